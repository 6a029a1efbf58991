"""`import sgpe` needs only `regex`: the app, HF, tiktoken and pyarrow stay unloaded."""

from __future__ import annotations

import importlib
import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_core_import_loads_no_optional_dependency():
    code = (
        "import sys, sgpe, sgpe.gpe, sgpe.tokenizer, sgpe.baselines.bytebpe, sgpe.metrics, sgpe.cli, "
        "sgpe_explorer.runs.manager, sgpe.runs, sgpe.interop.hf, sgpe.interop.meta\n"
        "heavy = ['streamlit', 'tokenizers', 'tiktoken', 'pyarrow', 'pandas', 'numpy', 'plotly', 'sentencepiece', 'transformers']\n"
        "print(','.join(m for m in heavy if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_public_api():
    import sgpe

    assert set(sgpe.__all__) == {
        "TrainSettings",
        "Tokenizer",
        "TokenizerProtocol",
        "__version__",
        "engine",
        "load",
        "shipped",
        "syllabify",
        "syllable_spans",
        "train",
    }
    assert callable(sgpe.syllabify) and callable(sgpe.train)
    # __version__ comes from a module __getattr__ (read on first use).
    assert all(hasattr(sgpe, name) for name in sgpe.__all__)
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", sgpe.__version__)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        sgpe.nope  # noqa: B018
    # dir() shows the promise alone, not what the package imports for itself (Path, Any).
    assert dir(sgpe) == sorted(sgpe.__all__)
    # sgpe.engine is a plain function; its module is private (sgpe/_engine.py).
    assert sgpe.engine() in ("native", "python")
    assert sgpe.engine() == sgpe._engine.engine()
    assert not inspect.ismodule(sgpe.engine) and sgpe.engine is sgpe._engine.engine


def test_no_public_name_shadows_a_module():
    """``sgpe.train`` (a function) once hid the module ``sgpe/train.py``; no module of the
    package may share a name with an attribute of ``sgpe`` that is something else."""
    import pkgutil

    import sgpe

    for info in pkgutil.walk_packages(sgpe.__path__, "sgpe."):
        parent, _, name = info.name.rpartition(".")
        module = importlib.import_module(info.name)
        value = getattr(importlib.import_module(parent), name)
        assert value is module, f"{parent}.{name} is {value!r}, not the module {info.name}"


# The module paths of before the reorganisation, deprecated in 0.1.0 and removed in 0.2.0
# (CHANGELOG.md): each now fails to import, and its replacement is named in
# docs/architecture.md section 7.
OLD_PATHS = {
    "sgpe.words": "sgpe.pieces",
    "sgpe.defaults": "sgpe.shipped",
    "sgpe.bytebpe": "sgpe.baselines.bytebpe",
    "sgpe._tiktoken": "sgpe.baselines.tiktoken_offline",
    "sgpe.export": "sgpe.interop.hf",
    "sgpe.meta": "sgpe.interop.meta",
    "sgpe.jobs": "sgpe_explorer.runs.manager",
}


@pytest.mark.parametrize("old", sorted(OLD_PATHS))
def test_old_module_paths_are_gone_and_the_docs_name_the_new_ones(old: str) -> None:
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(old)
    importlib.import_module(OLD_PATHS[old])
    table = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert f"| `{old}` | `{OLD_PATHS[old]}` |" in table


def test_syllabify_and_train_are_functions_not_old_modules() -> None:
    import sgpe

    assert callable(sgpe.syllabify) and callable(sgpe.train)
    assert sgpe.syllabify("ලංකා") == ["ලං", "කා"]


# What `import sgpe` and encoding one line from the command line must not import: the data
# libraries (seconds of start-up each), the trainer and its merge loop, the regex module of
# the byte-level baseline, and the corpus readers.
NOT_ON_THE_ENCODE_PATH = (
    "numpy",
    "pyarrow",
    "pandas",
    "regex",
    "sgpe.gpe",
    "sgpe.hierarchical.engine",
    "sgpe.hierarchical.units",
    "sgpe.corpus",
    "sgpe.baselines",
)


def _imported(args: list[str], stdin: str = "") -> set[str]:
    """The modules a process imports, as ``python -X importtime`` lists them."""
    out = subprocess.run(
        [sys.executable, "-X", "importtime", *args],
        input=stdin, capture_output=True, text=True, check=True, cwd=ROOT,
    )  # fmt: skip
    return {
        line.rsplit("|", 1)[1].strip()
        for line in out.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }


@pytest.mark.parametrize(
    "args",
    [["-c", "import sgpe"], ["-m", "sgpe", "encode", "--vocab", "sgpe-4k"]],
    ids=["import sgpe", "python -m sgpe encode"],
)
def test_import_and_the_encode_command_load_only_what_they_need(args: list[str]) -> None:
    modules = _imported(args, "ශ්‍රී ලංකාව\n")
    assert modules, "python -X importtime listed no module"
    heavy = sorted(
        m
        for m in modules
        for name in NOT_ON_THE_ENCODE_PATH
        if m == name or m.startswith(name + ".")
    )
    assert heavy == []
    if args[0] == "-c":
        # The public names import their modules on first use (sgpe/__init__.py).
        assert sorted(m for m in modules if m.startswith("sgpe")) == ["sgpe"]

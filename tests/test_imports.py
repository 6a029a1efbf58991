"""`import sgpe` needs only `regex`: the app, HF, tiktoken and pyarrow stay unloaded."""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys

import pytest


def test_core_import_loads_no_optional_dependency():
    code = (
        "import sys, sgpe, sgpe.gpe, sgpe.tokenizer, sgpe.baselines.bytebpe, sgpe.metrics, sgpe.cli, "
        "sgpe.runs.manager, sgpe.runs, sgpe.interop.hf, sgpe.interop.meta\n"
        "heavy = ['streamlit', 'tokenizers', 'tiktoken', 'pyarrow', 'pandas', 'plotly', 'sentencepiece', 'transformers']\n"
        "print(','.join(m for m in heavy if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_public_api():
    import sgpe

    assert set(sgpe.__all__) == {
        "TrainSettings",
        "Tokenizer",
        "__version__",
        "load",
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


OLD_PATHS = {
    # old module path: (new module path, a name that lives there)
    "sgpe.train": ("sgpe.gpe", "GPETrainer"),
    "sgpe.syllabify": ("sgpe.syllables", "trace"),
    "sgpe.words": ("sgpe.pieces", "get_word_splitter"),
    "sgpe.defaults": ("sgpe.shipped", "DEFAULT_SGPE"),
    "sgpe.bytebpe": ("sgpe.baselines.bytebpe", "ByteBPETokenizer"),
    "sgpe._tiktoken": ("sgpe.baselines.tiktoken_offline", "load_encoding"),
    "sgpe.export": ("sgpe.interop.hf", "to_hf"),
    "sgpe.meta": ("sgpe.interop.meta", "MetaTokenizer"),
    "sgpe.jobs": ("sgpe.runs.manager", "RunManager"),
}


def test_old_module_paths_still_work_and_say_where_they_moved():
    code = (
        "import importlib, json, sys, warnings\n"
        "warnings.simplefilter('always')\n"
        f"old_paths = {OLD_PATHS!r}\n"
        "out = {}\n"
        "for old, (new, name) in old_paths.items():\n"
        "    with warnings.catch_warnings(record=True) as caught:\n"
        "        warnings.simplefilter('always')\n"
        "        value = getattr(importlib.import_module(old), name)\n"
        "    same = value is getattr(importlib.import_module(new), name)\n"
        "    out[old] = [same, [str(w.message) for w in caught if w.category is DeprecationWarning]]\n"
        "import sgpe\n"
        "out['calls'] = [sgpe.syllabify('ලංකා'), sgpe.train(['ලංකා ලංකා'], vocab_size=300).vocab_size]\n"
        "print(json.dumps(out))"
    )
    got = json.loads(
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout
    )
    for old, (new, name) in OLD_PATHS.items():
        same, messages = got[old]
        assert same, old
        assert messages == [
            f"the module {old} moved to {new}; import from {new}",
            f"{old}.{name} moved to {new}.{name}; import it from {new}",
        ]
    # After `import sgpe.train`, `sgpe.train(...)` still trains (the old module path is callable).
    assert got["calls"] == [["ලං", "කා"], 256]

"""The repository explains itself: no comment or document cites a text outside it, every
link and file path in the documentation points to a file that exists, the module paths it
names are the current ones, and the lint hooks stay local and in step with the tests."""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
THIS = Path(__file__).resolve()

# ---------------------------------------------------------------------------- citations

#: What a clone of the repository cannot follow: the numbered design notes, planning
#: documents and issue numbers the project was built from. The corpora are a data location,
#: not a document, so ``../shared/corpora`` is allowed.
CITATION = re.compile(
    r"\bseeds? ?0\d\d\b"
    r"|\b(?:DESIGN|STYLE|ANCHORS|UI)\.md\b|\bANCHORS\b"
    r"|\bissue[- ]#?\d+"
    r"|\.\./shared/(?!corpora\b)|\bshared/(?:seeds|DESIGN|STYLE|UI|ANCHORS)"
    r"|§",
    re.IGNORECASE,
)
TEXT_SUFFIXES = (
    ".py",
    ".pyi",
    ".rs",
    ".sh",
    ".toml",
    ".yaml",
    ".yml",
    ".json",
    ".md",
    ".txt",
    ".cfg",
)
#: Not scanned: version control, caches, outputs of runs and tests, the text written for
#: the project (``sample_data``, data, not prose), and the benchmarks' generated results
#: (their source in ``bench/`` is scanned, so a citation cannot come back through it), and
#: ``.venv``, the installed packages of the environment the two README commands make, and
#: ``native/target``, cargo's build directory.
SKIP_DIRS = {".git", "__pycache__", ".mypy_cache", ".ruff_cache", ".hypothesis", ".pytest_cache"}
SKIP_PATHS = {
    "runs",
    "tests/artifacts",
    "sample_data",
    "bench/results",
    "build",
    "dist",
    ".venv",
    "native/target",
}


def _text_files() -> Iterator[Path]:
    for dirpath, dirnames, filenames in os.walk(ROOT):
        rel_dir = Path(dirpath).relative_to(ROOT)
        dirnames[:] = sorted(
            d
            for d in dirnames
            if d not in SKIP_DIRS
            and not d.endswith(".egg-info")
            and (rel_dir / d).as_posix() not in SKIP_PATHS
        )
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if (name.endswith(TEXT_SUFFIXES) or name in {"run", "LICENSE"}) and path != THIS:
                yield path


def _area(path: Path) -> str:
    parts = path.relative_to(ROOT).parts
    return parts[0] if len(parts) > 1 else "(top level)"


AREAS = sorted({_area(p) for p in _text_files()})


@pytest.mark.parametrize("area", AREAS)
def test_nothing_cites_a_document_outside_the_repository(area: str) -> None:
    found = []
    for path in _text_files():
        if _area(path) != area:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            if CITATION.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    assert not found, (
        "say the point in the project's own words and, if a reference helps, point to "
        "docs/ (docs/decisions.md describes the original SGPE):\n" + "\n".join(found)
    )


def test_the_citation_pattern_catches_what_it_is_for() -> None:
    for cited in (
        "seed 000 §2.3",
        "(DESIGN.md section 6)",
        "shared/ANCHORS.md",
        "ANCHORS 3a",
        "(issue 15)",
        "the issue-15 bug",
        "../shared/seeds/000.txt",
        "see ../shared/UI.md",
    ):
        assert CITATION.search(cited), cited
    for fine in (
        "read ../shared/corpora/si_dev.txt in place",
        "random.seed(0)",
        "PYTHONHASHSEED",
        "a tissue 5 cm",
        "docs/decisions.md",
    ):
        assert not CITATION.search(fine), fine


# ---------------------------------------------------------------------------- links

DOCS = sorted([ROOT / "README.md", ROOT / "CONTRIBUTING.md", *(ROOT / "docs").glob("*.md")])
LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")
#: A backticked repository path: `sgpe/gpe.py`, `docs/`, `tests/test_x.py::test_y` (the test
#: must exist too), `test_x.py::test_long_name_...` (a test whose name starts so).
PATH = re.compile(
    r"`((?:sgpe|sgpe_explorer|docs|tests|bench|scripts|pages|sample_data|native|\.ci|\.github)/[^`\s:]*"
    r"|[\w.-]+\.(?:py|md|toml|sh|yaml))(?:::(\w+)(\.\.\.)?[^`]*)?`"
)
#: Files the build makes rather than the repository holds, each with the line of setup.py that
#: makes it: named by the docs, present on every install with the native core, absent where
#: there is no Rust toolchain (scripts/test_without_rust.sh).
BUILT = {"sgpe/_native.abi3.so": '"sgpe._native",'}


def _resolves(base: Path, target: str) -> bool:
    pattern = re.sub(r"<[^>]*>", "*", target.rstrip("/"))
    if "*" in pattern:
        rel = (base / pattern).resolve().relative_to(ROOT).as_posix()
        return any(ROOT.glob(rel))
    return (base / pattern).exists()


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_points_to_a_file(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    broken = []
    for target in LINK.findall(text):
        if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue  # a web address or an anchor on the same page
        if not _resolves(doc.parent, target.split("#", 1)[0]):
            broken.append(target)
    assert not broken, f"{doc.name}: links to missing files: {broken}"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_file_path_named_in_the_docs_exists(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    missing = []
    for path, test_name, prefix_only in PATH.findall(text):
        if path in BUILT:
            assert BUILT[path] in (ROOT / "setup.py").read_text(encoding="utf-8")
            continue
        if "/" in path:
            found = [ROOT / path] if _resolves(ROOT, path) else []
        else:  # a bare file name (`hf.py` beside its package): anywhere in the repository
            found = [p for p in _text_files() if p.name == path]
        if not found:
            missing.append(path)
        elif test_name and not any(
            re.search(
                rf"^(?:async )?def {test_name}" + ("" if prefix_only else r"\("),
                f.read_text(encoding="utf-8"),
                re.M,
            )
            for f in found
            if f.is_file()
        ):
            missing.append(f"{path}::{test_name}")
    assert not missing, f"{doc.name} names files that do not exist: {sorted(set(missing))}"


def _top_level_names(module_file: Path) -> set[str]:
    tree = ast.parse(module_file.read_text(encoding="utf-8"))
    names: set[str] = set()
    body = list(tree.body)
    for node in body:
        if isinstance(node, (ast.Try, ast.If)):  # try: ... except ImportError: ...
            body.extend([*node.body, *node.orelse])
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                # Names a module-level __getattr__ provides (sgpe.__version__) are listed
                # in __all__ (tests/test_imports.py checks that each one resolves).
                names.update(ast.literal_eval(node.value) if node.value else ())
    return names


def _module_file(parts: list[str]) -> Path | None:
    """The file (or package directory) of ``sgpe.x.y`` (or ``sgpe_explorer.x.y``), without
    importing anything; for the extension module ``sgpe._native``, its stub (the built file may not be there)."""
    base = ROOT.joinpath(*parts)
    for suffix in (".py", ".pyi"):
        if base.with_suffix(suffix).is_file():
            return base.with_suffix(suffix)
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    return base if base.is_dir() else None


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_module_paths_named_in_the_docs_are_the_current_ones(doc: Path) -> None:
    """The documentation names where things are now. Old paths (removed in 0.2.0) may be
    named only in the tables that map them to their new homes (the explorer's, moved in
    0.3.0, too)."""
    text = doc.read_text(encoding="utf-8")
    old_paths_table = re.compile(
        r"^\| `sgpe\.[\w.]+`( \(module\))? \| `sgpe(_explorer)?\.[\w.]+`", re.M
    )
    text = old_paths_table.sub("", text)
    wrong = []
    for dotted in re.findall(r"`(sgpe(?:_explorer)?(?:\.\w+)+)", text):
        parts = dotted.split(".")
        for cut in range(len(parts), 0, -1):
            module = _module_file(parts[:cut])
            if module is not None:
                break
        rest = parts[cut:]
        if module is None or (
            rest and module.is_file() and rest[0] not in _top_level_names(module)
        ):
            wrong.append(dotted)
    assert not wrong, f"{doc.name} names module paths that are not current: {sorted(set(wrong))}"


# ---------------------------------------------------------------------------- lint hooks


def test_the_lint_hooks_are_local_and_run_by_the_test_script() -> None:
    """pre-commit must not download hook repositories (the test machine has no internet
    but PyPI), its hooks must be the checks of tests/test_lint.py, and run_tests.sh must
    run them."""
    yaml = pytest.importorskip(
        "yaml", reason="PyYAML comes with pre-commit (pip install -e '.[dev]')"
    )
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    hooks = {}
    for repo in config["repos"]:
        assert repo["repo"] == "local", repo["repo"]
        for hook in repo["hooks"]:
            assert hook["language"] == "system", hook["id"]
            hooks[hook["id"]] = hook["entry"]
    assert hooks == {
        "ruff-check": "ruff check --force-exclude",
        "ruff-format": "ruff format --check --force-exclude",
        "mypy": "python -m mypy",
    }
    lint_test = (ROOT / "tests" / "test_lint.py").read_text(encoding="utf-8")
    assert '"ruff", "check"' in lint_test and '"ruff", "format", "--check"' in lint_test
    assert '"-m", "mypy", "sgpe"' in lint_test
    script = (ROOT / "scripts" / "run_tests.sh").read_text(encoding="utf-8").splitlines()
    assert '    "$PYTHON" -m pre_commit run --all-files' in script
    assert script.index('    "$PYTHON" -m pre_commit run --all-files') < script.index(
        'exec "$PYTHON" -m pytest "$@"'
    )


#: "`name` in `sgpe/x.py`" (also "of", "from"): the docs say where a function, class or constant
#: lives; the file must define it (a moved function left such claims false before).
WHERE = re.compile(r"`(\w+)`(?:\(\))? (?:in|of|from) `((?:sgpe|bench|scripts|tests)/[\w/]+\.py)`")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_name_said_to_be_in_a_file_is_defined_there(doc: Path) -> None:
    wrong = []
    for name, path in WHERE.findall(doc.read_text(encoding="utf-8")):
        source = ROOT / path
        defined = rf"^\s*(?:async )?(?:def|class) {name}\b|^\s*{name}\s*[:=]"
        if not source.is_file() or not re.search(defined, source.read_text(encoding="utf-8"), re.M):
            wrong.append(f"{name} in {path}")
    assert not wrong, f"{doc.name} says these are defined where they are not: {wrong}"


# ---------------------------------------------------------------------------- claims
# Claims of the documentation checked against the code, so that a change that makes one
# false fails here (each was found false once).

NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}
NUMBER_WORDS |= {"eight": 8, "nine": 9, "ten": 10}


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_a_count_of_files_is_the_number_of_files(doc: Path) -> None:
    """ "the four `tests/test_native*.py` files" was written when there were four."""
    text = doc.read_text(encoding="utf-8")
    claim = re.compile(r"\b(\d+|" + "|".join(NUMBER_WORDS) + r")\s+`([\w/]+\*[\w.]*)`\s+files")
    for number, pattern in claim.findall(text):
        n = int(number) if number.isdigit() else NUMBER_WORDS[number]
        assert n == len(list(ROOT.glob(pattern))), f"{doc.name}: {number} `{pattern}` files"


def test_the_docs_name_the_apps_frame_where_it_is() -> None:
    """The frame is the module the checkout's app.py runs (it once was app.py itself)."""
    entry = (ROOT / "app.py").read_text(encoding="utf-8")
    module = re.search(r"^from ([\w.]+) import run$", entry, re.M)
    assert module is not None, entry
    frame = module.group(1).replace(".", "/") + ".py"
    architecture = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = re.findall(r"^\| `([\w/]+\.py)` \| the app's frame", architecture, re.M)
    assert named and all(n == frame for n in named), (named, frame)
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        assert not re.search(r"^\| `app\.py` \||`app\.py` sets up the page", text, re.M), doc


def test_the_suite_time_the_docs_state_is_cis() -> None:
    """CONTRIBUTING once said "about 6 minutes" while CI's pytest took 12 to 16; every time
    stated for the whole suite is at least CI's shortest run."""
    ci_minutes = 12
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert f"{ci_minutes} to 16 minutes" in text
    for doc in DOCS:
        for paragraph in doc.read_text(encoding="utf-8").split("\n\n"):
            if not re.search(r"\b(whole|default|test) suite\b|run_tests\.sh", paragraph):
                continue
            for figure in re.findall(r"(\d+(?:\.\d+)?)(?: CPU)? minutes", paragraph):
                assert float(figure) >= ci_minutes, f"{doc.name}: {figure} minutes"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_round_trip_claim_names_the_lone_surrogate(doc: Path) -> None:
    """`decode(encode(x)) == x` holds for every string UTF-8 can hold; a lone surrogate is
    a ValueError (tests/test_surrogates.py), and every "for every string" says so."""
    for paragraph in re.split(r"\n\n|\n\|", doc.read_text(encoding="utf-8")):
        flat = " ".join(paragraph.split())
        if "decode(encode(x)) == x" in flat and re.search(r"\b(every|any) string\b", flat):
            assert "surrogate" in flat, f"{doc.name}: {flat[:120]}"


def _dict_keys_written(path: str, function: str) -> set[str]:
    """The string keys of every dict literal in `function` of `path` (to_dict's keys)."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    (node,) = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == function]
    return {
        key.value
        for d in ast.walk(node)
        if isinstance(d, ast.Dict)
        for key in d.keys
        if isinstance(key, ast.Constant) and isinstance(key.value, str)
    }


def test_the_vocab_json_tables_name_every_key_the_code_writes() -> None:
    """Section 4.1 once lacked `merge_counts`; its table lists exactly the keys
    `Tokenizer.to_dict` can write, and 4.2 names every key of the byte-level file."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    sgpe_part = text.split("### 4.1 `vocab.json` (SGPE)", 1)[1].split("### 4.2", 1)[0]
    first_cells = re.findall(r"^\| ((?:`\w+`(?:, )?)+) \|", sgpe_part, re.M)
    table = {key for cell in first_cells for key in re.findall(r"`(\w+)`", cell)}
    assert table == _dict_keys_written("sgpe/tokenizer.py", "to_dict")
    byte_part = text.split("### 4.2 `vocab.json` (byte-level BPE)", 1)[1].split("### 4.3", 1)[0]
    written = _dict_keys_written("sgpe/baselines/bytebpe.py", "to_dict")
    assert written and {k for k in written if f"`{k}`" not in byte_part} == set()


def test_no_module_but_the_engine_seam_asks_which_engine_runs() -> None:
    """No module but sgpe/_engine.py asks which engine runs, and no public loader hands out
    the engine's objects (Tokenizer.load_file, which returned None under the Python engine,
    went private in 0.3.0: sgpe.load is the one way to load)."""
    for path in sorted((ROOT / "sgpe").rglob("*.py")):
        if path.name != "_engine.py":
            text = path.read_text(encoding="utf-8")
            assert not re.search(r"engine\(\)\s*[!=]=", text), path
    doc = (ROOT / "sgpe" / "_engine.py").read_text(encoding="utf-8").split('"""')[1]
    assert "never branch" not in doc
    assert "def load_file(" not in (ROOT / "sgpe" / "tokenizer.py").read_text("utf-8")
    assert "Tokenizer.load_file" not in doc

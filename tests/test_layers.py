"""The package's layers (docs/architecture.md, section 1.1) hold: imports go down.

The tables are read from the docs, so the picture there and the code cannot drift apart:
every module of ``sgpe/`` is in one layer, an import from a lower layer to a higher one is
made inside a function and named in the docs with its reason, and every import the docs name
that way still exists. That no import makes a circle (every import counted, the ones inside
functions too) is tests/test_import_graph.py's."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
NATIVE = "sgpe/_native.pyi"  # the extension sgpe._native, named by its types

# An import's place: executed when the module is imported, only when a function runs (or
# under a condition), or only for the type checker (never executed: not an edge).
TOP, LAZY, TYPING = "module level", "in a function", "typing"


def _section() -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index("### 1.1 ")
    return text[start : text.index("\n## ", start)]


def _layers() -> list[tuple[int, str, list[str]]]:
    rows = []
    for line in _section().splitlines():
        m = re.match(r"\| (\d+) \| ([^|]+) \| (.+) \|$", line)
        if m:
            rows.append((int(m[1]), m[2].strip(), re.findall(r"`([^`]+)`", m[3])))
    return rows


def _upward_table() -> set[tuple[str, str]]:
    pairs = set()
    for line in _section().splitlines():
        m = re.match(r"\| `([^`]+)` → `([^`]+)` \|", line)
        if m:
            pairs.add((m[1], m[2]))
    return pairs


def _modules() -> dict[str, Path]:
    """Dotted name -> file, for every module of sgpe/ (a package by its __init__.py)."""
    mods = {}
    for path in sorted((ROOT / "sgpe").rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        mods[".".join(parts)] = path
    return mods


MODULES = _modules()


def _rel(name: str) -> str:
    """A module's path as the docs write it."""
    if name == "sgpe._native":
        return NATIVE
    return MODULES[name].relative_to(ROOT).as_posix()


def _resolve(name: str) -> str | None:
    """The module an import name runs (``sgpe.x.y`` of a name ``y`` inside ``sgpe.x``)."""
    while name:
        if name in MODULES or name == "sgpe._native":
            return name
        name = name.rpartition(".")[0]
    return None


def _imports(name: str) -> dict[str, str]:
    """The sgpe modules ``name`` imports -> where (TOP wins over LAZY over TYPING)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: dict[str, str] = {}
    rank = {TOP: 0, LAZY: 1, TYPING: 2}

    def add(target: str | None, where: str) -> None:
        if target and target != name and (target not in found or rank[where] < rank[found[target]]):
            found[target] = where

    def visit(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            here = where
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                here = TYPING
            elif where == TOP and isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                here = LAZY
            if isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name.split(".")[0] == "sgpe":
                        add(_resolve(alias.name), here)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")[: len(package.split(".")) - (child.level - 1)]
                    module = ".".join(base + ([child.module] if child.module else []))
                else:
                    module = child.module or ""
                if module.split(".")[0] == "sgpe":
                    for alias in child.names:
                        add(_resolve(f"{module}.{alias.name}"), here)
            visit(child, here)

    visit(ast.parse(path.read_text(encoding="utf-8")), TOP)
    return {t: w for t, w in found.items() if w != TYPING}


def _layer_of() -> dict[str, int]:
    entries = [(entry, number) for number, _, paths in _layers() for entry in paths]
    layer = {}
    for name in [*MODULES, "sgpe._native"]:
        rel = _rel(name)
        # The most specific entry decides: a file named alone beats its folder's entry.
        hits = sorted(
            (len(e), n) for e, n in entries if rel == e or (e.endswith("/") and rel.startswith(e))
        )
        assert hits, f"{rel} is in no layer of {DOC.name} section 1.1: add it to one"
        best = [n for length, n in hits if length == hits[-1][0]]
        assert len(best) == 1, f"{rel} is in layers {best}: name it once"
        layer[name] = best[0]
    return layer


GRAPH = {name: _imports(name) for name in MODULES}


def test_the_layer_table_is_read() -> None:
    """The docs' tables parse (a reworded table would make the other tests vacuous)."""
    layers = _layers()
    assert [n for n, _, _ in layers] == list(range(1, len(layers) + 1))
    assert len(layers) == 9
    assert len(_upward_table()) >= 1


def test_every_module_is_in_one_layer() -> None:
    layer = _layer_of()
    assert layer["sgpe.engine"] < layer["sgpe.syllables"] < layer["sgpe.tokenizer"]
    assert layer["sgpe.tokenizer"] < layer["sgpe.runs.manager"] < layer["sgpe.cli"]


def test_imports_go_down_or_are_named() -> None:
    layer = _layer_of()
    named = _upward_table()
    wrong = []
    for a, targets in sorted(GRAPH.items()):
        for b, where in sorted(targets.items()):
            if layer[b] <= layer[a]:
                continue
            pair = (_rel(a), _rel(b))
            if where == TOP:
                wrong.append(f"{pair[0]} imports {pair[1]} (layer {layer[b]}) at module level")
            elif pair not in named:
                wrong.append(f"{pair[0]} imports {pair[1]} (layer {layer[b]}) unnamed in the docs")
    assert wrong == [], "imports that go up (docs/architecture.md section 1.1):\n" + "\n".join(
        wrong
    )


def test_every_named_upward_import_exists() -> None:
    layer = _layer_of()
    paths = {_rel(n): n for n in [*MODULES, "sgpe._native"]}
    for a, b in sorted(_upward_table()):
        assert a in paths and b in paths, f"the docs name {a} -> {b}, a file that is gone"
        assert paths[b] in GRAPH[paths[a]], f"the docs name {a} -> {b}, an import that is gone"
        assert layer[paths[b]] > layer[paths[a]], f"the docs name {a} -> {b}, which goes down"

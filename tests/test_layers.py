"""The package's layers (docs/architecture.md, section 1.1) hold: imports go down.

The tables are read from the docs, so the picture there and the code cannot drift apart:
every module of ``sgpe/`` is in one layer, an import from a lower layer to a higher one is
made inside a function and named in the docs with its reason, and every import the docs name
that way still exists. That no import makes a circle (every import counted, the ones inside
functions too) is tests/test_import_graph.py's."""

from __future__ import annotations

import re
from pathlib import Path

from test_import_graph import TOP, TYPING, _modules, imports_by_place

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"


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


# The modules of sgpe/ and the extension (by its stub, sgpe/_native.pyi), as
# tests/test_import_graph.py reads them.
MODULES = _modules()


def _rel(name: str) -> str:
    """A module's path as the docs write it."""
    return MODULES[name].relative_to(ROOT).as_posix()


def _layer_of() -> dict[str, int]:
    entries = [(entry, number) for number, _, paths in _layers() for entry in paths]
    layer = {}
    for name in MODULES:
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


# Every executed import: the type checker's alone do not tie modules together at run time.
GRAPH = {
    name: {t: w for t, w in imports_by_place(name, path, MODULES).items() if w != TYPING}
    for name, path in MODULES.items()
}


def test_the_layer_table_is_read() -> None:
    """The docs' tables parse (a reworded table would make the other tests vacuous)."""
    layers = _layers()
    assert [n for n, _, _ in layers] == list(range(1, len(layers) + 1))
    assert len(layers) == 9
    assert len(_upward_table()) >= 1


def test_every_module_is_in_one_layer() -> None:
    layer = _layer_of()
    assert layer["sgpe._engine"] < layer["sgpe.syllables"] < layer["sgpe.tokenizer"]
    assert layer["sgpe.tokenizer"] < layer["sgpe.runs.worker"] < layer["sgpe.cli"]


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
    paths = {_rel(n): n for n in MODULES}
    for a, b in sorted(_upward_table()):
        assert a in paths and b in paths, f"the docs name {a} -> {b}, a file that is gone"
        assert paths[b] in GRAPH[paths[a]], f"the docs name {a} -> {b}, an import that is gone"
        assert layer[paths[b]] > layer[paths[a]], f"the docs name {a} -> {b}, which goes down"

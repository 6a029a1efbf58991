"""The modules of `sgpe` import each other without a circle, and so do the explorer's
(`sgpe_explorer`); the library never imports the explorer and is portable: no module of
`sgpe` imports a platform's own module (`fcntl`, `msvcrt`, ...) or Streamlit at module level.

Every import counts, the function-local ones too: a lazy import hides a circle from
`import sgpe` but still ties the two modules together (a constant moved into the lower
module breaks it for good). The edges are the modules an import statement names; the
implicit import of a parent package (`sgpe/__init__.py`) is left out, as it names no
module of its own.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "sgpe"
EXPLORER = PACKAGE.parent / "sgpe_explorer"
KNOWN: set[tuple[str, str]] = set()


def _modules(package: Path = PACKAGE) -> dict[str, Path]:
    found = {}
    # an extension module (sgpe/_native.abi3.so) is a node too, known by its stub
    for path in sorted([*package.rglob("*.py"), *package.rglob("*.pyi")]):
        if path.suffix == ".pyi" and path.with_suffix(".py").exists():
            continue
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


#: Where an import statement stands: run when its module is imported, only when a function
#: runs, or only for the type checker (tests/test_layers.py tells them apart).
TOP, LAZY, TYPING = "module level", "in a function", "typing"
_RANK = {TOP: 0, LAZY: 1, TYPING: 2}


def _statements(tree: ast.AST) -> Iterator[tuple[ast.Import | ast.ImportFrom, str]]:
    """Every import statement of a module with its place."""

    def visit(node: ast.AST, place: str) -> Iterator[tuple[ast.Import | ast.ImportFrom, str]]:
        for child in ast.iter_child_nodes(node):
            here = place
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                here = TYPING
            elif place == TOP and isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                here = LAZY
            if isinstance(child, ast.Import | ast.ImportFrom):
                yield child, here
            yield from visit(child, here)

    yield from visit(tree, TOP)


def imports_by_place(name: str, path: Path, modules: dict[str, Path]) -> dict[str, str]:
    """The modules ``name`` imports, each with the place of its first-run import (module
    level before in a function before typing only)."""
    is_package = path.name == "__init__.py"
    found: dict[str, str] = {}
    for node, place in _statements(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            bases = [alias.name for alias in node.names]
            names: list[str] = []
        else:
            if node.level:
                anchor = name.split(".")
                if not is_package:
                    anchor.pop()
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            bases = [base]
            names = [alias.name for alias in node.names]
        for base in bases:
            # `from .a import b` names module sgpe.a.b when there is one, else sgpe.a
            targets = [f"{base}.{n}" for n in names if f"{base}.{n}" in modules]
            if base in modules and (not names or len(targets) < len(names)):
                targets.append(base)
            for target in targets:
                if target != name and (target not in found or _RANK[place] < _RANK[found[target]]):
                    found[target] = place
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    return set(imports_by_place(name, path, modules))


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    modules = _modules(package)
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle as a list of modules (the first repeated at the end), or None."""
    state: dict[str, int] = {}  # 1 while on the path, 2 when finished
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (cycle := visit(start)):
            return cycle
    return None


def test_the_graph_sees_function_local_imports():
    graph = import_graph()
    # sgpe/_engine.py imports the extension inside a function: the edge is still there
    assert "sgpe._native" in graph["sgpe._engine"]
    assert "sgpe" not in graph["sgpe._engine"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_sgpe_has_no_import_cycle():
    graph = import_graph()
    assert {(a, b) for a, b in KNOWN if b in graph[a]} == KNOWN, "a known edge is gone: drop it"
    for a, b in KNOWN:
        graph[a].discard(b)
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_explorer_has_no_import_cycle():
    graph = import_graph(EXPLORER)
    assert "sgpe_explorer.runs.manager" in graph["sgpe_explorer.ui.resources"]
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def _absolute_imports(path: Path) -> Iterator[tuple[str, str]]:
    """The modules a file names by their absolute names, with each statement's place (a
    relative import of sgpe/ stays inside sgpe/)."""
    for node, place in _statements(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, place
        elif node.level == 0 and node.module:
            yield node.module, place


def test_the_library_never_imports_the_explorer():
    """The explorer imports the library, never the other way: save `sgpe app`, which
    imports the explorer inside the function that runs it and says what to install where
    the explorer is missing."""
    found = {
        (name, target, place)
        for name, path in _modules().items()
        for target, place in _absolute_imports(path)
        if target.partition(".")[0] == "sgpe_explorer"
    }
    assert found == {("sgpe.cli.parser", "sgpe_explorer.app.launch", LAZY)}


#: Modules that exist on some systems only (POSIX's, Windows'), and the app's Streamlit: the
#: library may import them only inside the function that needs them, so that `import sgpe`
#: and `sgpe train` work everywhere (tests/test_cli.py runs `train` with fcntl hidden).
NOT_AT_MODULE_LEVEL = frozenset(
    {"fcntl", "termios", "tty", "pty", "pwd", "grp", "resource", "posix", "msvcrt", "winreg",
     "_winapi", "streamlit"}
)  # fmt: skip


def test_the_library_imports_no_platform_module_at_module_level():
    found = sorted(
        f"{path.relative_to(PACKAGE.parent)} imports {target}"
        for name, path in _modules().items()
        for target, place in _absolute_imports(path)
        if place == TOP and target.partition(".")[0] in NOT_AT_MODULE_LEVEL
    )
    assert found == []

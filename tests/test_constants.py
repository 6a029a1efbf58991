"""The numbers both engines need agree: each constant of the native core (``native/src/``)
that stands for one of the Python engine is read from the Rust source and compared with the
Python value, so a copy changed on one side alone fails here, with or without a Rust
toolchain (docs/architecture.md, "The native core")."""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from sgpe import _json as json_module
from sgpe import bpe, hierarchical, pieces, schema, settings, tokenizer
from sgpe.baselines import bytebpe
from sgpe.hierarchical import encoder as hierarchical_encoder
from sgpe.hierarchical import rules as hierarchical_rules
from sgpe.hierarchical import units as hierarchical_units

SRC = Path(__file__).resolve().parents[1] / "native" / "src"

#: ``pub const NAME: Type = value;`` with the doc comment above it, at any depth of a file.
_CONST = re.compile(
    r"(?P<doc>(?:^[ \t]*///[^\n]*\n)*)"
    r"^[ \t]*(?:pub(?:\([a-z]+\))? )?const (?P<name>[A-Z][A-Z0-9_]*): [^=]+= (?P<value>[^;]+);",
    re.MULTILINE,
)
_OPERATORS: dict[type, Callable[[int, int], int]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.LShift: operator.lshift,
}


def _value(expr: str, known: dict[str, int | str]) -> int | str | None:
    """A Rust constant expression of literals, earlier constants and ``+ - * <<``; None for
    anything else (``u32::MAX``, a cast), which no Python twin shares."""

    def walk(node: ast.AST) -> int | str:
        if isinstance(node, ast.Constant) and isinstance(node.value, int | str):
            return node.value
        if isinstance(node, ast.Name) and node.id in known:
            return known[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            left, right = walk(node.left), walk(node.right)
            if isinstance(left, int) and isinstance(right, int):
                return _OPERATORS[type(node.op)](left, right)
        raise ValueError(expr)

    try:
        return walk(ast.parse(expr.strip(), mode="eval").body)
    except (SyntaxError, ValueError):
        return None


def _rust_constants() -> dict[tuple[str, str], tuple[int | str | None, str]]:
    """(file, name) -> (value, doc comment) of every constant of the crate's sources."""
    found: dict[tuple[str, str], tuple[int | str | None, str]] = {}
    for path in sorted(SRC.rglob("*.rs")):
        known: dict[str, int | str] = {}
        for m in _CONST.finditer(path.read_text(encoding="utf-8")):
            value = _value(m["value"], known)
            if value is not None:
                known[m["name"]] = value
            found[(path.relative_to(SRC).as_posix(), m["name"])] = (value, m["doc"])
    return found


RUST = _rust_constants()

#: Each shared constant: where the core keeps it, and every Python value it must equal.
SHARED: dict[tuple[str, str], list[int | str]] = {
    ("hierarchical.rs", "LIMIT"): [hierarchical_rules._LIMIT],
    ("hierarchical.rs", "FIRST_PLACEHOLDER"): [hierarchical_rules._FIRST_PLACEHOLDER],
    ("hierarchical.rs", "PAIR_SHIFT"): [hierarchical_rules.PAIR_SHIFT],
    ("hierarchical.rs", "MAX_SUPERWORD_WORDS"): [pieces.MAX_SUPERWORD_WORDS],
    ("hierarchical.rs", "PART"): [hierarchical_rules._KIND_CODE[hierarchical.PART]],
    ("hierarchical.rs", "JOIN"): [hierarchical_rules._KIND_CODE[hierarchical.JOIN]],
    ("units.rs", "MAX_UNITS"): [
        ord(hierarchical_units._SEP) - hierarchical_rules._FIRST_PLACEHOLDER
    ],
    # The heap-merge threshold of the one Python encoder rule (sgpe.bpe.bpe, which both
    # modes' encoders and the byte-level baseline's call).
    ("encoder.rs", "LONG_RUN"): [bpe.LONG_RUN],
    ("encoder.rs", "PIECE_CACHE_LIMIT"): [tokenizer._PIECE_CACHE_LIMIT],
    ("encoder.rs", "UNIT_CACHE_LIMIT"): [hierarchical_encoder._UNIT_CACHE_LIMIT],
    # Symbol ids of the BPE loop are code points: the largest vocabulary settings accept.
    ("bpe.rs", "SYMBOL_LIMIT"): [settings.MAX_VOCAB_SIZE],
    ("bpe.rs", "BYTE_TOKENS"): [bytebpe._BYTE_TOKENS],
    ("syllables.rs", "CLASS_LETTERS"): ["".join(schema.CLASS_LETTERS)],
    ("syllables.rs", "PRE_BASE"): [schema.PRE_BASE],
    # The native vocab.json writer spells dumps_json's layout (tests/test_json_native.py).
    ("json_file.rs", "ITEM_SEP"): [json_module.ITEM_SEP],
}


@pytest.mark.parametrize("key", sorted(SHARED), ids=lambda k: f"{k[0]}:{k[1]}")
def test_shared_constant_is_equal_in_both_engines(key: tuple[str, str]) -> None:
    assert key in RUST, f"native/src/{key[0]} no longer defines {key[1]}"
    rust, _ = RUST[key]
    assert rust is not None, f"{key[1]} in native/src/{key[0]} is no plain constant expression"
    for python in SHARED[key]:
        assert rust == python, f"{key[1]}: {rust!r} in native/src/{key[0]}, {python!r} in Python"


def test_every_constant_that_names_a_python_twin_is_checked() -> None:
    """A Rust constant whose doc comment points to a file of ``sgpe/`` is a copy of a Python
    value: it belongs in :data:`SHARED`."""
    citing = {key for key, (_, doc) in RUST.items() if "sgpe/" in doc}
    assert citing, "the pattern finds no constant: the parser is broken"
    assert citing <= set(SHARED), sorted(citing - set(SHARED))


def test_the_parser_reads_expressions() -> None:
    assert _value("0x10ffff - 0x80001", {}) == 0x10FFFF - 0x80001
    assert _value("LIMIT + 1", {"LIMIT": 0x80000}) == 0x80001
    assert _value("1 << 18", {}) == 1 << 18
    assert _value("500_000", {}) == 500_000
    assert _value('"CV"', {}) == "CV"
    assert _value("u32::MAX", {}) is None


def test_the_rust_tests_know_the_builtin_scripts_in_autos_order() -> None:
    """native/tests/ reads the shipped schemas in the order of "auto" from its own list (the
    Rust tests run without Python): that list is ``BUILTIN_SCRIPTS``."""
    text = (SRC.parent / "tests" / "common" / "mod.rs").read_text(encoding="utf-8")
    body = re.search(r"pub const SCRIPTS: \[&str; \d+\] = \[(?P<names>[^\]]*)\];", text)
    assert body is not None, "native/tests/common/mod.rs no longer defines SCRIPTS"
    assert tuple(re.findall(r'"([a-z]+)"', body["names"])) == schema.BUILTIN_SCRIPTS

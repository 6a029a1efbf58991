"""The native JSON writer (native/src/json_file.rs, ``sgpe._native.dumps_json``, which
``sgpe._engine.json_bytes`` calls under the native engine) against ``dumps_json``, the
Python reference: the same bytes for every shipped vocabulary and for any value of the
types JSON has, in both layouts (the canonical one and the byte-level baseline's); the
writer declines what it cannot be sure to spell as Python does, and a lone surrogate is
the same error under both engines.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from pathlib import Path
from typing import Any

import pytest
from conftest import engine_set_to, require_native_core

from sgpe import _engine, shipped
from sgpe._engine import json_bytes
from sgpe._json import BYTE_LEVEL_LAYOUT, CANONICAL_LAYOUT, JsonLayout, dumps_json

require_native_core()

LAYOUTS = [CANONICAL_LAYOUT, BYTE_LEVEL_LAYOUT]
SHIPPED = [shipped.DEFAULT_SGPE, shipped.PAPER_SGPE, shipped.DEFAULT_BYTEBPE]

# Every code point json escapes, and those where writers tend to differ: DEL, the line
# and paragraph separators (which JavaScript-safe writers escape), the byte order mark,
# the last code point, astral characters, and a combining sequence.
HARD = "".join(map(chr, range(0x20))) + '"\\/\x7f\u0085\u2028\u2029\ufeff\U0010ffff😀ශ්‍රී'


def native(data: dict[str, Any], layout: JsonLayout) -> bytes | None:
    """What the native writer itself gives (None: it declined)."""
    writer = _engine.native_json_writer()
    assert writer is not None
    return writer([(json.dumps(k), v) for k, v in data.items()], *layout)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_every_shipped_vocabulary_is_spelled_byte_for_byte(path: Path) -> None:
    raw = path.read_bytes()
    data = json.loads(raw)
    layout = BYTE_LEVEL_LAYOUT if data["model"] == "bytebpe" else CANONICAL_LAYOUT
    assert native(data, layout) == raw == dumps_json(data, layout=layout).encode("utf-8")
    assert json_bytes(data, layout=layout) == raw
    # Merges held as tuples (as the tokenizers hold them) are lists to JSON.
    tuples = {**data, "merges": [tuple(m) for m in data["merges"]]}
    assert native(tuples, layout) == raw


HARD_DATA: dict[str, Any] = {
    "format": "sgpe-vocab",
    HARD: HARD,  # a top-level key is spelled with ASCII escapes, as dumps_json spells it
    "floats": [0.1, 1e-05, 1e20, 1e16, 123456789.0, -0.0, 5e-324, 1.7976931348623157e308],
    "not numbers": [float("inf"), float("-inf"), float("nan")],
    "ints": [0, -1, 2**63 - 1, -(2**63), 2**63, -(2**64) - 5, 10**40],
    "others": [True, False, None, [], {}, [[]], {"": {}}],
    "few": [HARD, 1, (2, "3")],
    "many": [HARD, *range(12), ["a", 1, None], {"k": [1.5, HARD]}, (HARD, HARD)],
    "pairs": [(HARD[i], HARD[i + 1 :]) for i in range(len(HARD) - 1)],
    "vocab": {HARD[: i + 1]: i for i in range(len(HARD))},
    "mixed dict": {
        HARD: 1.5,
        "": None,
        "x": [True],
        "y": {"z": HARD},
        **{str(i): i for i in range(9)},
    },
    # A key another writer may add (a recorded schema): carried as any other value.
    "schema": {"name": "sinhala", "classes": {"V": [[3461, 3478]], "C": []}, "version": 2},
    "empty": "",
}


@pytest.mark.parametrize("layout", LAYOUTS, ids=("canonical", "byte-level"))
def test_any_json_value_is_spelled_as_dumps_json_spells_it(layout: JsonLayout) -> None:
    expected = dumps_json(HARD_DATA, layout=layout).encode("utf-8")
    assert native(HARD_DATA, layout) == expected
    assert json_bytes(HARD_DATA, layout=layout) == expected
    with engine_set_to("python"):
        assert _engine.native_json_writer() is None
        assert json_bytes(HARD_DATA, layout=layout) == expected
    for k in range(0x20):  # each escape alone too
        one = {"s": chr(k), "l": [chr(k)] * 9, "d": {chr(k): chr(k)}}
        assert native(one, layout) == dumps_json(one, layout=layout).encode("utf-8")


class Name(str):
    pass


class Count(int):
    pass


class Ratio(float):
    def __repr__(self) -> str:
        return "ratio"


DECLINED = {
    "a str subclass": {"k": [Name("a")]},
    "an int subclass": {"k": Count(3)},
    "a float subclass": {"k": [Ratio(0.5)]},
    "a dict subclass": {"k": OrderedDict(a=1)},
    "a key that is not a str": {"k": {1: "a", None: 2, 2.5: 3, False: 4}},
    "a top-level tuple": {"k": tuple(range(20))},
    "a value 100 levels deep": {"k": json.loads("[" * 100 + "]" * 100)},
}


@pytest.mark.parametrize("data", DECLINED.values(), ids=DECLINED.keys())
@pytest.mark.parametrize("layout", LAYOUTS, ids=("canonical", "byte-level"))
def test_the_writer_declines_what_python_may_spell_otherwise(
    data: dict[str, Any], layout: JsonLayout
) -> None:
    """json.dumps spells a subclass by its base type's rules or its own, turns keys into
    strings, and writes a top-level tuple on one line: the Python writer answers."""
    assert native(data, layout) is None
    assert json_bytes(data, layout=layout) == dumps_json(data, layout=layout).encode("utf-8")


def test_a_cycle_is_declined_and_python_says_so() -> None:
    data: dict[str, Any] = {"k": []}
    data["k"].append(data["k"])
    assert native(data, CANONICAL_LAYOUT) is None
    with pytest.raises(ValueError, match="Circular reference detected"):
        json_bytes(data)


@pytest.mark.parametrize("where", ["value", "nested key", "merge"])
def test_a_lone_surrogate_is_the_same_error_under_both_engines(where: str) -> None:
    bad = "ab\ud800c"
    data: dict[str, Any] = {
        "value": {"k": bad},
        "nested key": {"k": {bad: 1}},
        "merge": {"merges": [("a", "b")] * 9 + [("a", bad)]},
    }[where]
    errors = []
    for engine in ("native", "python"):
        with engine_set_to(engine), pytest.raises(UnicodeEncodeError) as err:
            json_bytes(data)
        errors.append(str(err.value))
    assert errors[0] == errors[1]
    assert "'\\ud800'" in errors[0] and "surrogates not allowed" in errors[0]

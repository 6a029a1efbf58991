"""The JSON of our files, written and read once for the package.

* :func:`dumps_json`: the canonical JSON text of our files (identical data, identical bytes),
  the reference; :func:`json_bytes`: the same as UTF-8, spelled natively under the native
  engine; :func:`write_json_atomic` writes it whole (sgpe/_atomic.py);
* :func:`parse_json` / :func:`read_json`: JSON with one-line errors that name the file and
  the problem (:data:`TOO_DEEP` for nesting Python's parser cannot follow).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from itertools import chain
from pathlib import Path
from typing import Any, NamedTuple

from ._atomic import atomic_write

#: The message for JSON nested deeper than Python's parser can follow (a damaged or hostile
#: file): every reader of JSON in the package turns that RecursionError into this.
TOO_DEEP = "JSON nested too deeply to read (more than about 1,000 levels); is the file damaged?"


# json.dumps builds an encoder per call; long lists of short items (a vocabulary's merges
# and tokens) are written item by item, so the common items are spelled here with json's
# own C string encoder, which gives the same text (tests/test_files.py checks it).
_encode_str = json.encoder.encode_basestring


def _item_json(value: Any) -> str:
    """``json.dumps(value, ensure_ascii=False)``, faster for strings, whole numbers and
    short lists of them."""
    kind = type(value)
    if kind is str:
        return _encode_str(value)
    if kind is int:
        return str(value)
    if (kind is list or kind is tuple) and all(type(v) is str or type(v) is int for v in value):
        return "[" + ", ".join(_encode_str(v) if type(v) is str else str(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def _list_items(values: list[Any]) -> Iterable[str]:
    """The items of a long list, each as :func:`_item_json` spells it; a list of only
    strings, of only whole numbers or of only pairs of strings (a vocabulary's merges) is
    spelled without a Python call per item."""
    kinds = set(map(type, values))
    if kinds == {str}:
        return map(_encode_str, values)
    if kinds == {int}:
        return map(int.__repr__, values)  # what json writes for an int
    if kinds <= {list, tuple} and set(map(len, values)) == {2}:
        flat = list(chain.from_iterable(values))
        if set(map(type, flat)) == {str}:
            spelled = map(_encode_str, flat)
            return map("[{}, {}]".format, spelled, spelled)  # left, right of each pair
    return map(_item_json, values)


def _dict_items(mapping: dict[Any, Any]) -> Iterable[str]:
    """The ``key: value`` lines of a long dict as :func:`_item_json` spells them; a dict
    of strings to whole numbers (a vocabulary) without a Python call per item."""
    if set(map(type, mapping)) == {str} and set(map(type, mapping.values())) == {int}:
        return map("{}: {}".format, map(_encode_str, mapping), map(int.__repr__, mapping.values()))
    return (f"{_item_json(k)}: {_item_json(v)}" for k, v in mapping.items())


# Between the items of a long list or dict of dumps_json (one item per line).
ITEM_SEP = ",\n  "


class JsonLayout(NamedTuple):
    """Where :func:`dumps_json` breaks lines. The byte-level baseline's files
    (sgpe/baselines/bytebpe.py, ``BYTE_LEVEL_LAYOUT``) have always indented the top-level
    keys by one space, put every non-empty list or dict one item per line and spelled
    the items without spaces (``[224,182]``); they keep that layout so their bytes never
    change."""

    key_indent: str = ""
    inline_max: int = 8  # lists and dicts of at most this many items stay on one line
    compact_items: bool = False


CANONICAL_LAYOUT = JsonLayout()
BYTE_LEVEL_LAYOUT = JsonLayout(" ", 0, True)


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def dumps_json(data: Any, *, layout: JsonLayout = CANONICAL_LAYOUT) -> str:
    """The canonical JSON text of our files: UTF-8, no ASCII escapes, one key per line at
    the top level, one item per line in long lists and dicts. Identical data gives
    identical bytes. ``layout``: see :class:`JsonLayout`."""
    lines = ["{"]
    items = list(data.items())
    pad, most, compact = layout
    for k, (key, value) in enumerate(items):
        comma = "," if k < len(items) - 1 else ""
        head = f"{pad}{json.dumps(key)}"
        if isinstance(value, list) and len(value) > most:
            body = ITEM_SEP.join(map(_compact, value) if compact else _list_items(value))
            lines.append(f"{head}: [\n  {body}\n ]{comma}")
        elif isinstance(value, dict) and len(value) > most:
            if compact:
                body = ITEM_SEP.join(
                    f"{_compact(name)}: {_compact(v)}" for name, v in value.items()
                )
            else:
                body = ITEM_SEP.join(_dict_items(value))
            lines.append(f"{head}: {{\n  {body}\n }}{comma}")
        elif compact:
            lines.append(f"{head}: {_compact(value)}{comma}")
        else:
            lines.append(f"{head}: {json.dumps(value, ensure_ascii=False)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_json_atomic(path: str | Path, data: Any) -> None:
    """Write :func:`dumps_json` of ``data`` atomically (a vocabulary's large ``vocab.json``
    goes through ``sgpe._engine.json_bytes``, spelled natively under the native engine)."""
    atomic_write(path, dumps_json(data).encode("utf-8"))


# ---------------------------------------------------------------------------- reading


def parse_json(
    text: str,
    where: object,
    *,
    hint: str = "",
    one_line: bool = False,
    error: type[Exception] = ValueError,
) -> Any:
    """Parse JSON text; a failure raises ``error`` with one line that starts with ``where``
    (a file, or ``"<file>: line 7"``), says what is wrong and, with ``hint``, what is
    expected. ``one_line`` text (a JSONL line) reports only the column."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        at = (
            f"{err.msg} at column {err.colno}"
            if one_line
            else (f"line {err.lineno}, column {err.colno}: {err.msg}")
        )
        raise error(f"{where}: not valid JSON ({at})" + (f"; {hint}" if hint else "")) from None
    except RecursionError:
        deep = f"{TOO_DEEP.split(';')[0]}; {hint}" if hint else TOO_DEEP
        raise error(f"{where}: {deep}") from None


def read_json(path: str | Path) -> Any:
    """Parse a JSON file; every failure is a ``ValueError`` of one line naming the file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(f"{path}: file not found") from None
    except UnicodeDecodeError as err:
        raise ValueError(f"{path}: not UTF-8 text ({err.reason} at byte {err.start})") from None
    return parse_json(text, path)

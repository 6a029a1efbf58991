"""Small file and text helpers that every layer shares, written once.

* :func:`atomic_write` / :func:`write_text_atomic` / :func:`write_json_atomic`: a reader
  (or a ``kill -9``) sees the old file or the new one, never half a file;
  :func:`write_folder_atomic` does the same for a directory of files;
* :func:`read_json`: JSON with one-line errors that name the file and the problem;
* :func:`dumps_json`: the canonical JSON text of our files (identical data, identical bytes);
* :func:`split_lines` / :func:`read_lines`: lines split on ``"\\n"`` only, so a ``"\\r"`` or
  a form feed stays inside its line as it does in every corpus reader of the project;
* :func:`byte_token` / :data:`BYTE_TOKEN`: the ``<0xNN>`` spelling of one byte;
* :func:`file_sha256`.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import threading
from collections.abc import Iterable, Iterator
from itertools import chain
from pathlib import Path
from typing import Any, NamedTuple

#: The message for JSON nested deeper than Python's parser can follow (a damaged or hostile
#: file): every reader of JSON in the package turns that RecursionError into this.
#: The corpus file types sgpe reads (sgpe/corpus/readers.py); here, in a module the
#: command line loads anyway, so that its help text needs no corpus reader.
SUPPORTED_SUFFIXES = (".txt", ".txt.gz", ".jsonl", ".csv", ".parquet")
TOO_DEEP = "JSON nested too deeply to read (more than about 1,000 levels); is the file damaged?"

#: A byte token as it appears in token strings: ``<0xE0>`` (upper-case hex, two digits).
BYTE_TOKEN = re.compile(r"<0x([0-9A-F]{2})>")


def byte_token(b: int) -> str:
    """The token string of one byte: ``<0xNN>``.

    >>> byte_token(0xE0)
    '<0xE0>'
    """
    return f"<0x{b:02X}>"


# ---------------------------------------------------------------------------- writing


def atomic_write(
    path: str | Path, data: bytes, *, keep_previous: Path | None = None, sync: bool = True
) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the new one.

    The temp file sits next to the target (``.<name>.<pid>.<thread>.<random>.tmp``, so a
    run directory can tell a dead writer's leftovers from its own) and is created with
    mode 0644 under the umask, like any new file. With ``keep_previous`` the old file is
    first moved there; the new file is complete and synced before anything is renamed, so
    at every moment one of the two is valid. Errors name ``path``, never the temp file.
    """
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a directory; give a file path", str(path))
    tmp = path.with_name(
        f".{path.name}.{os.getpid()}.{threading.get_ident()}.{os.urandom(3).hex()}.tmp"
    )
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except OSError as err:
        raise OSError(err.errno, f"cannot write here: {err.strerror}", str(path)) from None
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)
        if keep_previous is not None and path.exists():
            os.replace(path, keep_previous)
        os.replace(tmp, path)
    except BaseException as err:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(err, OSError) and err.filename != str(path):  # e.g. ENOSPC mid-write
            raise OSError(err.errno, err.strerror, str(path)) from err
        raise


def write_text_atomic(path: str | Path, text: str) -> None:
    """:func:`atomic_write` of UTF-8 text (newlines written as they are)."""
    atomic_write(path, text.encode("utf-8"))


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
    """Write :func:`dumps_json` of ``data`` atomically."""
    write_text_atomic(path, dumps_json(data))


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


def split_lines(text: str) -> list[str]:
    """Lines split on ``"\\n"`` only; the final newline ends the last line, it does not
    start a new one.

    >>> split_lines("a\\r\\nb\\n")
    ['a\\r', 'b']
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def read_lines(path: str | Path) -> Iterator[str]:
    """:func:`split_lines` of a UTF-8 text file, streamed in 1 MiB blocks."""
    with open(path, encoding="utf-8", newline="") as f:
        tail = ""
        while chunk := f.read(1 << 20):
            parts = (tail + chunk).split("\n")
            tail = parts.pop()
            yield from parts
        if tail:
            yield tail


def file_sha256(path: str | Path) -> str:
    """Hex sha256 of a file's bytes, read in 1 MiB blocks."""
    import hashlib  # here: loading OpenSSL is a share of starting every command

    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def write_folder_atomic(path: str | Path, files: dict[str, bytes]) -> None:
    """Write a directory of ``files`` (name -> bytes) so that readers see the old
    directory or the new one, never a half-written one.

    The files go into a temp directory next to ``path`` (``.<name>.<pid>.<random>.tmp``,
    created under the umask like any new directory), each synced, and the directory is
    renamed into place. An existing ``path`` (empty, or one the caller decided may be
    replaced) is first renamed aside and removed after the new one is in place; between
    the two renames ``path`` briefly does not exist. On any error the temp directory is
    removed and ``path`` is as it was.
    """
    import shutil

    path = Path(path)
    for name in files:
        if not name or "/" in name or "\\" in name or name in (".", ".."):
            raise ValueError(f"{name!r}: a folder file name must be a plain name")
    parent = path.parent
    tag = f"{os.getpid()}.{os.urandom(3).hex()}"
    tmp = parent / f".{path.name}.{tag}.tmp"
    try:
        os.mkdir(tmp, 0o777)
    except OSError as err:
        raise OSError(err.errno, f"cannot write here: {err.strerror}", str(path)) from None
    old = parent / f".{path.name}.{tag}.old"
    try:
        for name, data in sorted(files.items()):
            atomic_write(tmp / name, data)
        if path.exists():
            os.replace(path, old)
            try:
                os.replace(tmp, path)
            except BaseException:
                os.replace(old, path)
                raise
            shutil.rmtree(old)
        else:
            os.replace(tmp, path)
    except BaseException as err:
        with contextlib.suppress(OSError):
            shutil.rmtree(tmp)
        if isinstance(err, OSError) and err.filename not in (str(path), None):
            raise OSError(err.errno, err.strerror, str(path)) from err
        raise


def merge_counts_of(data: Any, source: str) -> list[int] | None:
    """The optional ``merge_counts`` key of a vocabulary file: a list of non-negative
    integers (its length is checked against the merges by the tokenizer), or None."""
    if "merge_counts" not in data:
        return None
    counts = data["merge_counts"]
    # Every count exactly an int (not a bool) and none negative, checked at C speed: a
    # 32k vocabulary's counts are a share of loading it.
    if not isinstance(counts, list) or (
        counts and (set(map(type, counts)) != {int} or min(counts) < 0)
    ):
        raise ValueError(
            f"{source}: key 'merge_counts' must be a list of non-negative integers "
            "(one per merge), or be left out"
        )
    return counts


# ---------------------------------------------------------------------------- typed keys
# The keys of a vocabulary file, read with the error a user can act on (file, key, type).


def required_key(data: dict[str, Any], key: str, kind: type, source: str) -> Any:
    """``data[key]`` of exactly type ``kind``, or an error naming the file and key."""
    if key not in data:
        raise ValueError(f"{source}: missing key {key!r}")
    return optional_key(data, key, kind, None, source)


def json_kind(value: Any) -> str:
    """The JSON name of a value's type, for error messages."""
    names = {bool: "a boolean", int: "a number", float: "a number", str: "a string"}
    names.update({list: "a list", dict: "an object", type(None): "null"})
    return names.get(type(value), type(value).__name__)


def optional_key(data: dict[str, Any], key: str, kind: type, default: Any, source: str) -> Any:
    """``data[key]`` if it has exactly type ``kind`` (``True`` is not an int), else an error
    naming the file and key; ``default`` when the key is absent."""
    if key not in data:
        return default
    value = data[key]
    if type(value) is not kind and not (kind in (list, dict) and isinstance(value, kind)):
        raise ValueError(
            f"{source}: key {key!r} must be {json_kind(kind())}, not {json_kind(value)} ({value!r:.40})"
        )
    return value


def optional_str(data: dict[str, Any], key: str, default: str, source: str) -> str:
    """A string setting of a vocabulary file, ``default`` when the key is absent."""
    return str(optional_key(data, key, str, default, source))

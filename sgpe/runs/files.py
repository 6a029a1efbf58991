"""File helpers of a run directory: canonical JSON, the counted data-file writes (the
``SGPE_TEST_FAIL_WRITE_AFTER`` test hook), leftover temp files, and the two table
encodings (Parquet where pyarrow is installed to read it, JSON otherwise).
"""

from __future__ import annotations

import contextlib
import errno
import importlib.util
import json
import os
import struct
from pathlib import Path
from typing import Any

from .._files import TOO_DEEP, dumps_json
from ..engine import dispatch, native_module
from ..protocol import one_line
from .constants import FAIL_WRITE_ENV


def _canonical(data: Any) -> bytes:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()


class _Writes:
    """Counts data-file writes, for the ``SGPE_TEST_FAIL_WRITE_AFTER`` fault injection."""

    def __init__(self) -> None:
        raw = os.environ.get(FAIL_WRITE_ENV, "")
        self.fail_after = int(raw) if raw.strip().isdigit() else None
        self.done = 0

    def check(self, path: Path) -> None:
        if self.fail_after is not None and self.done >= self.fail_after:
            raise OSError(
                errno.ENOSPC,
                f"{os.strerror(errno.ENOSPC)} (injected by {FAIL_WRITE_ENV})",
                str(path),
            )
        self.done += 1


def _remove_temp_files(directory: Path) -> None:
    """Delete temp files left by a writer that was killed mid-write (not this process's:
    its heartbeat thread may be writing one right now)."""
    mine = f".{os.getpid()}."
    if directory.is_dir():
        for p in directory.glob(".*.tmp"):
            if mine not in p.name:
                with contextlib.suppress(OSError):
                    p.unlink()


def _have_pyarrow() -> bool:
    """Whether pyarrow is installed (the run's tables are Parquet then, JSON otherwise),
    without importing it: writing them needs no pyarrow (sgpe/runs/parquet.py)."""
    try:
        return importlib.util.find_spec("pyarrow") is not None
    except (ImportError, ValueError):
        return False


def _arrow_column(pa: Any, column: list[Any]) -> Any:
    """A column of only ``str`` or only ``int`` values as an Arrow array built from its
    buffers; anything else through ``pyarrow.array``. ``pyarrow.array`` first asks whether
    its input is a pandas object and so imports pandas into every training run (time and
    memory that ``python -m bench scale --only cli`` counts); the buffers give the same
    array (``tests/test_files.py``)."""
    try:
        import numpy as np
    except ImportError:
        return pa.array(column)
    n = len(column)
    kinds = set(map(type, column))  # at C speed, unlike all(type(v) is int ...)
    try:
        if n and kinds == {int}:
            values = np.fromiter(column, dtype=np.int64, count=n)
            return pa.Array.from_buffers(pa.int64(), n, [None, pa.py_buffer(values)])
        if n and kinds == {str}:
            encoded = list(map(str.encode, column))  # UTF-8
            ends = np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=n))
            if ends[-1] < 2**31:  # else a large_string array: pyarrow.array chunks it
                offsets = np.concatenate(([0], ends)).astype(np.int32)
                buffers = [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
                return pa.Array.from_buffers(pa.string(), n, buffers)
    except (OverflowError, UnicodeEncodeError):
        pass  # an int beyond int64, a lone surrogate: pyarrow.array's own error or type
    return pa.array(column)


def _kind(column: list[Any]) -> str | None:
    """``"str"`` or ``"int"`` for a column sgpe/runs/parquet.py writes (empty: ``"int"``),
    else None (through pyarrow)."""
    kinds = set(map(type, column))  # at C speed; a bool is not an int here
    if kinds <= {int}:
        return "int"
    return "str" if kinds == {str} else None


def _simple_table(columns: dict[str, list[Any]], strings: list[bool], meta_json: str) -> bytes:
    """The Parquet bytes of string (``strings[k]``) and whole-number columns, by the native
    core where it is built (the same bytes); a number beyond int64 goes through pyarrow."""
    from .parquet import PAGE_BYTES, write_table

    try:
        data: bytes = dispatch(
            native_module(),
            lambda native: native.parquet_table(
                list(columns), list(columns.values()), strings, meta_json, PAGE_BYTES
            ),
            lambda: write_table(columns, meta_json, PAGE_BYTES),
        )
        return data
    except (OverflowError, struct.error):
        return _arrow_table(columns, meta_json)


def _arrow_table(columns: dict[str, list[Any]], meta_json: str) -> bytes:
    """The Parquet bytes of any other columns, by pyarrow."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrays = [_arrow_column(pa, column) for column in columns.values()]
    table = pa.Table.from_arrays(arrays, names=list(columns))
    table = table.replace_schema_metadata({"sgpe": meta_json})
    sink = pa.BufferOutputStream()
    # Without dictionary pages: our columns are mostly unique strings and counts, so a
    # dictionary only adds to the file and to the memory writing it takes. Arrow's
    # allocator keeps the memory a write used; giving it back keeps the trainer's peak
    # down (`python -m bench scale --only cli` prints that peak).
    pq.write_table(table, sink, use_dictionary=False)
    data = bytes(sink.getvalue().to_pybytes())
    del table, sink
    pa.default_memory_pool().release_unused()
    return data


def encode_table(columns: dict[str, list[Any]], meta: dict[str, Any], parquet: bool) -> bytes:
    """A small column table as Parquet bytes (with ``meta`` in the schema metadata under
    ``sgpe``), or as JSON ``{"meta": ..., "columns": ...}`` when ``parquet`` is false. The
    run's own tables (strings and whole numbers) are written without pyarrow
    (:func:`_simple_table`)."""
    kinds = [_kind(c) for c in columns.values()] if parquet else []
    if parquet and None not in kinds:
        return _simple_table(columns, [k == "str" for k in kinds], json.dumps(meta))
    if parquet:
        return _arrow_table(columns, json.dumps(meta))
    return dumps_json({"meta": meta, "columns": columns}).encode("utf-8")


def decode_table(path: Path) -> tuple[dict[str, list[Any]], dict[str, Any]]:
    """Inverse of :func:`encode_table`, chosen by the file suffix. Raises ``ValueError``."""
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        try:
            table = pq.read_table(path)
            columns = {name: table.column(name).to_pylist() for name in table.column_names}
            meta = json.loads((table.schema.metadata or {}).get(b"sgpe", b"{}"))
        except (FileNotFoundError, PermissionError):
            raise
        except Exception as err:
            # pyarrow reports a damaged file as OSError, ArrowInvalid, ... (e.g. "Corrupt
            # snappy compressed data"): all of them mean "this file is damaged".
            raise ValueError(f"{path}: not a readable parquet file ({one_line(err)})") from None
        if not isinstance(meta, dict):
            raise ValueError(f"{path}: its 'sgpe' metadata is not a JSON object (damaged)")
        return columns, meta
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(f"{path}: not valid JSON ({one_line(err)})") from None
    except RecursionError:
        raise ValueError(f"{path}: {TOO_DEEP}") from None
    if not isinstance(data, dict) or not isinstance(data.get("columns"), dict):
        raise ValueError(f"{path}: expected an object with 'meta' and 'columns'")
    meta = data.get("meta") or {}
    if not isinstance(meta, dict):
        raise ValueError(f"{path}: key 'meta' must be an object")
    return data["columns"], meta


def _table_suffix(parquet: bool) -> str:
    return ".parquet" if parquet else ".json"


def _find_table(run_dir: Path, stem: str) -> Path | None:
    for suffix in (".parquet", ".json"):
        p = run_dir / f"{stem}{suffix}"
        if p.exists():
            return p
    return None

"""File helpers of a run directory: canonical JSON, the counted data-file writes (the
``SGPE_TEST_FAIL_WRITE_AFTER`` test hook), leftover temp files, and the two table
encodings (Parquet by pyarrow where it is installed, JSON otherwise).
"""

from __future__ import annotations

import contextlib
import errno
import importlib.util
import json
import os
from collections.abc import Collection
from pathlib import Path
from typing import Any

from .._json import TOO_DEEP, dumps_json
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
    without importing it (a training run imports it on the thread that writes its word
    counts beside the merge loop: sgpe/runs/worker.py, ``RunWorker._count``)."""
    try:
        return importlib.util.find_spec("pyarrow") is not None
    except (ImportError, ValueError):
        return False


def _arrow_column(pa: Any, column: list[Any], string: bool) -> Any:
    """A column of only ``str`` or only ``int`` values as an Arrow array built from its
    buffers; anything else through ``pyarrow.array``. ``pyarrow.array`` first asks whether
    its input is a pandas object and so imports pandas into every training run (time and
    memory that ``python -m bench scale --only cli`` counts); the buffers give the same
    array (``tests/test_files.py``). An empty column is a string column when ``string``
    says so (readers such as DuckDB then see its type), else int64."""
    n = len(column)
    if not n:
        return pa.nulls(0, pa.string() if string else pa.int64())
    try:
        import numpy as np
    except ImportError:  # pyarrow does not need numpy
        return pa.array(column)
    kinds = set(map(type, column))  # at C speed, unlike all(type(v) is int ...)
    try:
        if kinds == {int}:
            values = np.fromiter(column, dtype=np.int64, count=n)
            return pa.Array.from_buffers(pa.int64(), n, [None, pa.py_buffer(values)])
        if kinds == {str}:
            encoded = list(map(str.encode, column))  # UTF-8
            ends = np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=n))
            if ends[-1] < 2**31:  # else a large_string array: pyarrow.array chunks it
                offsets = np.concatenate(([0], ends)).astype(np.int32)
                buffers = [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
                return pa.Array.from_buffers(pa.string(), n, buffers)
    except OverflowError:
        pass  # an int beyond int64: pyarrow.array's own error
    return pa.array(column)


def _arrow_table(columns: dict[str, list[Any]], meta_json: str, strings: Collection[str]) -> bytes:
    """The Parquet bytes of the columns, by pyarrow."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    arrays = [_arrow_column(pa, column, name in strings) for name, column in columns.items()]
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


def _lone_surrogate(columns: dict[str, list[Any]]) -> ValueError:
    """The error for a table with a string UTF-8 cannot hold (a lone surrogate, which only
    a caller's own Python strings can carry: the corpus readers decode UTF-8), naming the
    first such value by column and row."""
    for name, column in columns.items():
        for row, value in enumerate(column):
            if isinstance(value, str):
                try:
                    value.encode("utf-8")
                except UnicodeEncodeError as err:
                    return ValueError(
                        f"column {name!r}, row {row}: a lone surrogate "
                        f"(U+{ord(value[err.start]):04X} at position {err.start}) cannot be "
                        "written as UTF-8"
                    )
    return ValueError("the table's metadata holds a lone surrogate, which UTF-8 cannot hold")


def encode_table(
    columns: dict[str, list[Any]],
    meta: dict[str, Any],
    parquet: bool,
    strings: Collection[str] = (),
) -> bytes:
    """A small column table as Parquet bytes by pyarrow (with ``meta`` in the schema
    metadata under ``sgpe``), or as JSON ``{"meta": ..., "columns": ...}`` when ``parquet``
    is false. ``strings``: the columns that hold strings, which an empty one still does.
    A lone surrogate in a string raises ``ValueError`` naming its column and row."""
    try:
        if parquet:
            return _arrow_table(columns, json.dumps(meta), strings)
        return dumps_json({"meta": meta, "columns": columns}).encode("utf-8")
    except UnicodeEncodeError:
        raise _lone_surrogate(columns) from None


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

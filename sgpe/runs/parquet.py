"""The Parquet files of a run directory (``word_counts.parquet``, ``merges.parquet`` and
its parts), written without pyarrow: a table of string and whole-number columns as one
row group, each column one chunk of plain, uncompressed pages, its rows required.

pyarrow's import (numpy's with it) was paid by every training run, for files this
simple; pyarrow still reads them (``decode_table``), and the run directory
uses Parquet only where pyarrow is installed to read them (``sgpe/runs/files.py``). The
native core writes the same bytes (``native/src/parquet_file.rs``;
``tests/test_parquet.py`` compares them, and what pyarrow reads back).

The layout (the Parquet format's own, in Thrift's compact protocol): ``PAR1``, then each
column's data pages (a page header, then its values: a string as its UTF-8 length, 4
bytes little-endian, and its bytes; a number as 8 bytes little-endian), then the file
metadata (the schema, the one row group's column chunks, the ``sgpe`` key), its length
(4 bytes little-endian) and ``PAR1``.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence

MAGIC = b"PAR1"
# A column's values go in pages of at most this many bytes (a page's sizes are 32-bit).
PAGE_BYTES = 1 << 26
CREATED_BY = "sgpe"

# Thrift compact protocol: field types.
_I32, _I64, _BINARY, _LIST, _STRUCT = 5, 6, 8, 9, 12
# Parquet: physical types, repetition, converted type, encodings, codec, page type.
_INT64, _BYTE_ARRAY = 2, 6
_REQUIRED = 0
_UTF8 = 0
_PLAIN, _RLE = 0, 3
_UNCOMPRESSED = 0
_DATA_PAGE = 0


def _varint(n: int) -> bytes:
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _zigzag(n: int) -> bytes:
    return _varint((n << 1) ^ (n >> 63))


class _Struct:
    """A Thrift struct in the compact protocol, its fields added in increasing id order."""

    def __init__(self) -> None:
        self.out = bytearray()
        self.last = 0

    def _head(self, fid: int, kind: int) -> None:
        delta = fid - self.last
        assert 0 < delta <= 15  # every struct here numbers its fields closely
        self.out.append(delta << 4 | kind)
        self.last = fid

    def i32(self, fid: int, n: int) -> _Struct:
        self._head(fid, _I32)
        self.out += _zigzag(n)
        return self

    def i64(self, fid: int, n: int) -> _Struct:
        self._head(fid, _I64)
        self.out += _zigzag(n)
        return self

    def binary(self, fid: int, data: bytes) -> _Struct:
        self._head(fid, _BINARY)
        self.out += _varint(len(data)) + data
        return self

    def struct(self, fid: int, inner: _Struct) -> _Struct:
        self._head(fid, _STRUCT)
        self.out += inner.end()
        return self

    def list(self, fid: int, kind: int, items: Sequence[bytes]) -> _Struct:
        """A list of ``kind`` items, each already encoded (a struct's ``end()``)."""
        self._head(fid, _LIST)
        n = len(items)
        self.out += bytes([n << 4 | kind]) if n < 15 else bytes([0xF0 | kind]) + _varint(n)
        for item in items:
            self.out += item
        return self

    def end(self) -> bytes:
        return bytes(self.out) + b"\x00"


def _pages(
    column: Sequence[str] | Sequence[int], strings: bool, page_bytes: int
) -> list[tuple[int, bytes]]:
    """The column's values in plain encoding, as (values, bytes) per page."""
    if not strings:
        per_page = max(page_bytes // 8, 1)
        chunks = [column[k : k + per_page] for k in range(0, len(column), per_page)] or [[]]
        return [(len(chunk), struct.pack(f"<{len(chunk)}q", *chunk)) for chunk in chunks]
    pages: list[tuple[int, bytes]] = []
    values: list[bytes] = []
    size = 0
    for text in column:
        data = text.encode("utf-8")  # type: ignore[union-attr]
        if values and size + 4 + len(data) > page_bytes:
            pages.append((len(values), b"".join(values)))
            values, size = [], 0
        values.append(struct.pack("<I", len(data)) + data)
        size += 4 + len(data)
    pages.append((len(values), b"".join(values)))
    return pages


def write_table(
    columns: Mapping[str, Sequence[str] | Sequence[int]],
    meta_json: str,
    page_bytes: int = PAGE_BYTES,
) -> bytes:
    """The Parquet bytes of ``columns`` (each all ``str`` or all ``int`` in int64, all of
    one length), with ``meta_json`` under the file's key ``sgpe``; a page holds at most
    ``page_bytes`` of values (or one value)."""
    rows = {len(c) for c in columns.values()}
    if len(rows) > 1:
        raise ValueError("the columns of a table must have one length")
    n_rows = rows.pop() if rows else 0
    out = bytearray(MAGIC)
    schema = [_Struct().binary(4, b"schema").i32(5, len(columns)).end()]
    chunks: list[bytes] = []
    for name, column in columns.items():
        strings = bool(column) and isinstance(column[0], str)
        physical = _BYTE_ARRAY if strings else _INT64
        leaf = _Struct().i32(1, physical).i32(3, _REQUIRED).binary(4, name.encode("utf-8"))
        schema.append((leaf.i32(6, _UTF8) if strings else leaf).end())
        start = len(out)
        for count, data in _pages(column, strings, page_bytes):
            levels = _Struct().i32(1, count).i32(2, _PLAIN).i32(3, _RLE).i32(4, _RLE)
            header = _Struct().i32(1, _DATA_PAGE).i32(2, len(data)).i32(3, len(data))
            out += header.struct(5, levels).end() + data
        size = len(out) - start
        meta = (
            _Struct()
            .i32(1, physical)
            .list(2, _I32, [_zigzag(_PLAIN), _zigzag(_RLE)])
            .list(3, _BINARY, [_varint(len(name.encode())) + name.encode()])
            .i32(4, _UNCOMPRESSED)
            .i64(5, n_rows)
            .i64(6, size)
            .i64(7, size)
            .i64(9, start)
        )
        chunks.append(_Struct().i64(2, start).struct(3, meta).end())
    total = len(out) - len(MAGIC)
    group = _Struct().list(1, _STRUCT, chunks).i64(2, total).i64(3, n_rows).end()
    key = _Struct().binary(1, b"sgpe").binary(2, meta_json.encode("utf-8")).end()
    footer = (
        _Struct()
        .i32(1, 1)
        .list(2, _STRUCT, schema)
        .i64(3, n_rows)
        .list(4, _STRUCT, [group])
        .list(5, _STRUCT, [key])
        .binary(6, CREATED_BY.encode())
        .end()
    )
    out += footer + struct.pack("<I", len(footer)) + MAGIC
    return bytes(out)

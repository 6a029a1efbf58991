"""Read training corpora: ``.txt`` (one document per line), ``.txt.gz``, ``.jsonl`` (a
``text`` field per line), ``.csv`` and ``.parquet`` (a ``text`` column).

Everything is decoded as strict UTF-8. A bad file raises :class:`CorpusError` naming the
file, the line or row, what is wrong and what to do; nothing is silently skipped or
changed (no stripping, no normalisation). Lines are split on ``\\n`` only: a trailing
``\\r`` is part of the line.

The trainer consumes *chunks*: documents joined with ``\\n`` into strings of a few MB, so
the piece splitter runs over large strings at C speed.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import re
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._files import parse_json, split_lines
from ..protocol import one_line

SUPPORTED_SUFFIXES = (".txt", ".txt.gz", ".jsonl", ".csv", ".parquet")
CHUNK_CHARS = 1 << 22  # about 4M characters per chunk


class CorpusError(ValueError):
    """A corpus file cannot be used; the message says where and how to fix it."""


@dataclass(frozen=True)
class CorpusInfo:
    """Identity of a corpus, recorded in ``vocab.json`` (no paths, no timings)."""

    name: str | None
    sha256: str
    documents: int
    characters: int


def corpus_format(path: str | Path) -> str:
    """The format of a corpus file from its name, or a CorpusError listing the supported ones."""
    name = Path(path).name.lower()
    for suffix in SUPPORTED_SUFFIXES:
        if name.endswith(suffix):
            return suffix
    raise CorpusError(
        f"{path}: unsupported corpus type; use one of {', '.join(SUPPORTED_SUFFIXES)} "
        "(.txt: one document per line; .jsonl: objects with a 'text' field; "
        ".csv/.parquet: a 'text' column)"
    )


def _decode_utf8(data: bytes, path: Path) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        col = err.start - (data.rfind(b"\n", 0, err.start) + 1)
        raise CorpusError(
            f"{path}: line {line}, byte {col + 1}: not valid UTF-8 ({err.reason}: "
            f"{data[err.start : err.end]!r}); save the file as UTF-8 and try again"
        ) from None


def _read_bytes(path: Path) -> bytes:
    try:
        if path.name.lower().endswith(".gz"):
            with gzip.open(path, "rb") as f:
                return f.read()
        return path.read_bytes()
    except FileNotFoundError:
        raise CorpusError(f"{path}: file not found") from None
    except (OSError, EOFError, zlib.error) as err:  # zlib.error: damaged compressed data
        raise CorpusError(
            f"{path}: cannot be read: {one_line(err)}; check the file (for .gz: compress it again)"
        ) from None


def _jsonl_documents(text: str, path: Path) -> Iterator[str]:
    for number, line in enumerate(split_lines(text), start=1):
        if not line.strip():
            continue
        obj = parse_json(
            line,
            f"{path}: line {number}",
            hint='each line must be an object like {"text": "..."}',
            one_line=True,
            error=CorpusError,
        )
        if not isinstance(obj, dict):
            raise CorpusError(
                f"{path}: line {number}: expected a JSON object with a 'text' field, "
                f"got a {type(obj).__name__}"
            )
        if "text" not in obj:
            raise CorpusError(f"{path}: line {number}: the object has no 'text' field")
        value = obj["text"]
        if not isinstance(value, str):
            raise CorpusError(
                f"{path}: line {number}: 'text' must be a string, got {type(value).__name__}"
            )
        yield value


def _csv_documents(text: str, path: Path) -> Iterator[str]:
    # strict: a quote that is never closed, or text after a closing quote, is an error
    # (pandas: "EOF inside string"), instead of swallowing the rest of the file.
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader)
    except StopIteration:
        raise CorpusError(
            f"{path}: the file is empty; it needs a header row with a 'text' column"
        ) from None
    except csv.Error as err:  # found by tests/test_fuzz.py: a malformed header row
        raise CorpusError(
            f"{path}: line 1: malformed CSV header ({one_line(err)}); the first row must name "
            'the columns, one of them "text"'
        ) from None
    if "text" not in header:
        raise CorpusError(
            f"{path}: no 'text' column (columns: {', '.join(header[:10]) or 'none'}); "
            "rename the column that holds the documents to 'text'"
        )
    col = header.index("text")
    start = reader.line_num + 1  # the line where the next row starts
    try:
        for row in reader:
            if row and col >= len(row):
                raise CorpusError(
                    f"{path}: line {start}: the row has {len(row)} fields, the 'text' column is "
                    f"number {col + 1}; give every row a value for each column"
                )
            if row:
                yield row[col]
            start = reader.line_num + 1
    except csv.Error as err:
        if "unexpected end of data" in str(err):
            raise CorpusError(
                f"{path}: line {start}: a quoted field opened in this row is never closed (it "
                'runs to the end of the file); close it with " and write a quote inside a field '
                'as ""'
            ) from None
        raise CorpusError(
            f"{path}: line {start}: malformed CSV ({one_line(err)}); quote a field that holds commas, "
            'quotes or line breaks, and write a quote inside it as ""'
        ) from None


def _parquet_documents(path: Path) -> Iterator[str]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise CorpusError(
            f"{path}: reading .parquet needs pyarrow: pip install 'sgpe-explorer[parquet]'"
        ) from None
    try:
        pf = pq.ParquetFile(path)
    except Exception as err:  # pyarrow raises several types for a bad file
        raise CorpusError(f"{path}: not a readable parquet file: {one_line(err)}") from None
    if "text" not in pf.schema_arrow.names:
        raise CorpusError(
            f"{path}: no 'text' column (columns: {', '.join(pf.schema_arrow.names[:10])}); "
            "rename the column that holds the documents to 'text'"
        )
    row = 0
    for batch in _parquet_batches(pf, path):
        try:
            values = batch.column(0).to_pylist()
        except UnicodeDecodeError as err:  # a string column holding bytes that are not UTF-8
            raise CorpusError(
                f"{path}: rows {row + 1}-{row + batch.num_rows}: 'text' is not valid UTF-8 "
                f"({err.reason}); write the column as UTF-8 strings"
            ) from None
        for value in values:
            row += 1
            if value is None:
                continue
            if not isinstance(value, str):
                raise CorpusError(
                    f"{path}: row {row}: 'text' must be a string, got {type(value).__name__}"
                )
            yield value


def _parquet_batches(pf: Any, path: Path) -> Iterator[Any]:
    """The 'text' column in batches; damage found while decoding (pyarrow raises OSError,
    ArrowInvalid, ...) becomes a CorpusError naming the file."""
    batches = pf.iter_batches(columns=["text"], batch_size=8192)
    while True:
        try:
            batch = next(batches)
        except StopIteration:
            return
        except Exception as err:
            raise CorpusError(
                f"{path}: damaged parquet data ({one_line(err)}); write the file again"
            ) from None
        yield batch


def iter_documents(path: str | Path) -> Iterator[str]:
    """Yield the documents of a corpus file, validating as it goes."""
    path = Path(path)
    fmt = corpus_format(path)
    if fmt == ".parquet":
        yield from _parquet_documents(path)
        return
    text = _decode_utf8(_read_bytes(path), path)
    if fmt in (".txt", ".txt.gz"):
        yield from split_lines(text)
    elif fmt == ".jsonl":
        yield from _jsonl_documents(text, path)
    else:
        yield from _csv_documents(text, path)


def chunk_documents(documents: Iterable[str], chunk_chars: int = CHUNK_CHARS) -> Iterator[str]:
    """Join documents with ``\\n`` into chunks of about ``chunk_chars`` characters.

    Each document is followed by ``\\n``, so the chunks concatenate to the corpus text.
    """
    batch: list[str] = []
    size = 0
    for doc in documents:
        if not isinstance(doc, str):
            raise TypeError(f"corpus documents must be str, got {type(doc).__name__}")
        batch.append(doc)
        size += len(doc) + 1
        if size >= chunk_chars:
            batch.append("")
            yield "\n".join(batch)
            batch, size = [], 0
    if batch:
        batch.append("")
        yield "\n".join(batch)


_LINE_START = re.compile(r"(?m)^(?=.)")  # the start of every non-empty line


def read_corpus(
    source: str | Path | Iterable[str], *, prefix: str = ""
) -> tuple[Iterator[str], CorpusInfo]:
    """Chunks of a corpus (file path or iterable of documents) plus its identity.

    ``prefix`` is put before every non-empty document (the trainer's ``prepend_space``);
    the identity is that of the documents as given. The identity is computed while the
    chunks are consumed: read ``info`` only after the iterator is exhausted. For a
    ``.txt`` file this reads the file once.
    """
    if isinstance(source, (str, Path)):
        if (
            isinstance(source, str)
            and ("\n" in source or not Path(source).suffix)
            and not Path(source).exists()
        ):
            raise CorpusError(
                f"{source[:40]!r}... is not a corpus file; to train on text in memory pass a "
                "list of documents, e.g. train([text], ...)"
            )
        path = Path(source)
        fmt = corpus_format(path)
        if fmt in (".txt", ".txt.gz"):
            raw = _read_bytes(path)
            text = _decode_utf8(raw, path)
            docs = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
            info = CorpusInfo(path.name, hashlib.sha256(raw).hexdigest(), docs, len(text))
            if not text.strip():
                raise CorpusError(
                    f"{path}: the corpus is empty; it needs at least one line of text"
                )
            chunks = _text_chunks(text)
            if prefix:  # in a .txt file every line is a document
                chunks = (_LINE_START.sub(prefix, chunk) for chunk in chunks)
            return chunks, info
        return _hashing_chunks(iter_documents(path), path.name, str(path), prefix)
    return _hashing_chunks(iter(source), None, "corpus", prefix)


def _text_chunks(text: str) -> Iterator[str]:
    """Cut after a newline, so that no piece is split across two chunks."""
    i = 0
    while i < len(text):
        j = text.find("\n", i + CHUNK_CHARS)
        j = len(text) if j < 0 else j + 1
        yield text[i:j]
        i = j


class _Tracked:
    def __init__(self) -> None:
        self.digest = hashlib.sha256()
        self.documents = 0
        self.characters = 0


def _hashing_chunks(
    docs: Iterator[str], name: str | None, label: str, prefix: str = ""
) -> tuple[Iterator[str], CorpusInfo]:
    tracked = _Tracked()

    def counted() -> Iterator[str]:
        for doc in docs:
            if not isinstance(doc, str):
                raise TypeError(f"corpus documents must be str, got {type(doc).__name__}")
            tracked.documents += 1
            tracked.characters += len(doc)
            tracked.digest.update(doc.encode("utf-8") + b"\n")
            yield prefix + doc if prefix and doc else doc

    info = _LazyInfo(tracked, name)

    def chunks() -> Iterator[str]:
        any_text = False
        for chunk in chunk_documents(counted()):
            any_text = any_text or bool(chunk.strip())
            yield chunk
        if not any_text:
            raise CorpusError(f"{label}: empty; it needs at least one document with text")

    return chunks(), info  # type: ignore[return-value]


class _LazyInfo:
    """A CorpusInfo whose fields are read after the chunks have been consumed."""

    def __init__(self, tracked: _Tracked, name: str | None) -> None:
        self._t = tracked
        self.name = name

    @property
    def sha256(self) -> str:
        return self._t.digest.hexdigest()

    @property
    def documents(self) -> int:
        return self._t.documents

    @property
    def characters(self) -> int:
        return self._t.characters

    def freeze(self) -> CorpusInfo:
        return CorpusInfo(self.name, self.sha256, self.documents, self.characters)

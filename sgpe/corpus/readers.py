"""Read training corpora: ``.txt`` (one document per line), ``.txt.gz``, ``.jsonl`` (a
``text`` field per line), ``.csv`` and ``.parquet`` (a ``text`` column).

Everything is decoded as strict UTF-8. A bad file raises :class:`CorpusError` naming the
file, the line or row, what is wrong and what to do; nothing is silently skipped or
changed (no stripping, no normalisation). Lines are split on ``\\n`` only: a trailing
``\\r`` is part of the line.

Nothing reads a whole file: files are read in blocks of :data:`BLOCK_BYTES` and cut
into segments of whole pieces (:class:`TextBlocks`), so memory is bounded by the block,
the longest line (:data:`DEFAULT_MAX_LINE_BYTES`, configurable) and what the consumer
keeps, never by the corpus. A corpus may also be a directory or a glob pattern of many
files (:func:`corpus_files`) or any iterable of strings (a list, a generator, a column of
a Hugging Face ``datasets`` table). Two limits are explicit and give a CorpusError, not a
MemoryError: ``max_bytes`` (decompressed size) and ``max_line_bytes``.

The trainer consumes *chunks*: documents joined with ``\\n`` into strings of a few MB, so
the piece splitter runs over large strings at C speed (:class:`CorpusStream` makes them,
:mod:`sgpe.corpus.counting` counts them on all cores).
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import re
import zlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._json import parse_json
from .._text import SUPPORTED_SUFFIXES
from ..protocol import one_line
from ..settings import default

CHUNK_CHARS = 1 << 22  # about 4M characters per chunk
# Files are read 2 MiB at a time: small enough that a corpus of tens of MB gives every
# worker several blocks, large enough that the counts of a block are far smaller than it.
BLOCK_BYTES = 1 << 21
#: The longest stretch of a file held in memory at once: a .txt stretch without a line
#: break or space, a .jsonl line, a .csv field. 64 MiB: far above any real document, far
#: below what would exhaust a laptop.
DEFAULT_MAX_LINE_BYTES: int = default("max_line_bytes")  # 64 MiB, declared in sgpe/settings.py


class CorpusError(ValueError):
    """A corpus file cannot be used; the message says where and how to fix it."""


@dataclass(frozen=True)
class CorpusInfo:
    """Identity of a corpus, recorded in ``vocab.json`` (no paths, no timings)."""

    name: str | None
    sha256: str
    documents: int
    characters: int


@dataclass(frozen=True)
class KnownFile:
    """A file's size and sha256 as a caller recorded them before it is read (a run's
    ``config.json`` lists its corpus files so): the reader then does not hash the file a
    second time, and a file of another size is a CorpusError."""

    size: int
    sha256: str


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


def _open_binary(path: Path) -> Any:
    return gzip.open(path, "rb") if path.name.lower().endswith(".gz") else open(path, "rb")


def raw_blocks(
    path: Path, max_bytes: int | None = None, block: int = BLOCK_BYTES
) -> Iterator[bytes]:
    """The bytes of a file (decompressed for ``.gz``) in blocks of ``block`` bytes.

    More than ``max_bytes`` bytes (after decompression) is a CorpusError: a small ``.gz``
    can hold terabytes, and the limit is what stops it before the disk or the clock does.
    """
    total = 0
    try:
        with _open_binary(path) as f:
            while True:
                data = f.read(block)
                if not data:
                    return
                total += len(data)
                if max_bytes is not None and total > max_bytes:
                    raise CorpusError(
                        f"{path}: more than {max_bytes:,} bytes"
                        f"{' after decompression' if path.name.lower().endswith('.gz') else ''}"
                        " (max_corpus_bytes); raise the limit (--max-corpus-bytes) if this "
                        "corpus is meant to be that large"
                    )
                yield data
    except FileNotFoundError:
        raise CorpusError(f"{path}: file not found") from None
    except IsADirectoryError:
        raise CorpusError(f"{path}: is a directory, not a corpus file") from None
    except (OSError, EOFError, zlib.error) as err:  # zlib.error: damaged compressed data
        raise CorpusError(
            f"{path}: cannot be read: {one_line(err)}; check the file (for .gz: compress it again)"
        ) from None


class TextBlocks:
    """A text file as segments of whole pieces, read ``block`` bytes at a time.

    Each segment ends after a ``\n`` or, with ``cut_at_space``, just before a plain space
    (every plain space starts a piece, see :mod:`sgpe.pieces`; a cut there changes no
    piece), so counting the segments one by one counts the file. Only a stretch without
    either must be held at once; longer than ``max_line_bytes`` it is a CorpusError.
    Iterating yields ``(bytes, line number, byte column)`` of each segment's start and
    records the file's sha256 (unless ``digest`` is false), size and line count.
    """

    def __init__(
        self,
        path: Path,
        *,
        max_bytes: int | None = None,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        cut_at_space: bool = True,
        block: int = BLOCK_BYTES,
        digest: bool = True,
        known: KnownFile | None = None,
    ) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.max_line_bytes = max_line_bytes
        self.cut_at_space = cut_at_space
        self.block = block
        self.digest = hashlib.sha256()
        # Off where nobody reads the digest (validation), or where the caller hashed the
        # file a moment ago (``known``: a run records its files' sha256 before it counts).
        self._hash = digest and known is None
        self.known = known
        self.size = 0
        self.newlines = 0
        self.last_byte = b""

    @property
    def lines(self) -> int:
        """Lines of the file (a last line without ``\n`` counts); valid after iterating."""
        return self.newlines + (1 if self.size and self.last_byte != b"\n" else 0)

    def hexdigest(self) -> str:
        """The file's sha256 (valid after iterating): the one ``known`` gave, else the
        bytes' own."""
        return self.digest.hexdigest() if self.known is None else self.known.sha256

    def _too_long(self, line: int) -> CorpusError:
        what = "a line break or space" if self.cut_at_space else "a line break"
        return CorpusError(
            f"{self.path}: line {line}: more than {self.max_line_bytes:,} bytes without {what} "
            "(max_line_bytes); add line breaks, or raise the limit (--max-line-bytes) "
            "if the machine has the memory"
        )

    def _check_lines(self, seg: bytes, line: int, col: int) -> None:
        start, k = -col, 0
        while True:
            end = seg.find(b"\n", max(start, 0))
            if (end if end >= 0 else len(seg)) - start > self.max_line_bytes:
                raise self._too_long(line + k)
            if end < 0:
                return
            start, k = end + 1, k + 1

    def __iter__(self) -> Iterator[tuple[bytes, int, int]]:
        carry = b""
        line, col = 1, 0
        limit = self.max_line_bytes
        for data in raw_blocks(self.path, self.max_bytes, self.block):
            if self._hash:
                self.digest.update(data)
            self.size += len(data)
            self.newlines += data.count(b"\n")
            self.last_byte = data[-1:]
            if carry:
                data = carry + data
            cut = data.rfind(b"\n") + 1
            if cut == 0 and self.cut_at_space:
                cut = max(data.rfind(b" "), 0)  # before the space: it starts the next piece
            if cut == 0:
                if len(data) > limit:
                    raise self._too_long(line)
                carry = data
                continue
            seg, carry = data[:cut], data[cut:]
            if len(carry) > limit:
                raise self._too_long(line + seg.count(b"\n"))
            if not self.cut_at_space and len(seg) > limit:
                self._check_lines(seg, line, col)  # a whole line is one document
            yield seg, line, col
            nl = seg.count(b"\n")
            if nl:
                line += nl
                col = len(seg) - (seg.rfind(b"\n") + 1)
            else:
                col += len(seg)
        if carry:
            yield carry, line, col
        if self.known is not None and self.size != self.known.size:
            raise CorpusError(
                f"{self.path}: changed while the run started ({self.known.size:,} bytes when "
                f"it was hashed, {self.size:,} when it was read); start the run again"
            )


def decode_segment(data: bytes, path: Path | str, line: int = 1, col: int = 0) -> str:
    """Strict UTF-8; an error names the line and byte of the file (``line``/``col``: where
    ``data`` starts)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        before = data.rfind(b"\n", 0, err.start)
        at_line = line + data.count(b"\n", 0, err.start)
        at_col = err.start - (before + 1) + (col if before < 0 else 0)
        raise CorpusError(
            f"{path}: line {at_line}, byte {at_col + 1}: not valid UTF-8 ({err.reason}: "
            f"{data[err.start : err.end]!r}); save the file as UTF-8 and try again"
        ) from None


def segment_lines(data: bytes, path: Path | str, line: int = 1, col: int = 0) -> list[str]:
    """The lines of a segment of a text file (split on ``\n`` only), decoded as
    :func:`decode_segment` does."""
    parts = decode_segment(data, path, line, col).split("\n")
    if parts[-1] == "":
        parts.pop()  # the final newline ends the last line; it does not start a new one
    return parts


def _text_lines(blocks: TextBlocks) -> Iterator[tuple[int, str]]:
    """(line number, line) of a text file, streamed."""
    for data, line, col in blocks:
        for k, part in enumerate(segment_lines(data, blocks.path, line, col)):
            yield line + k, part


def _jsonl_documents(lines: Iterable[tuple[int, str]], path: Path) -> Iterator[str]:
    for number, line in lines:
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


def _csv_lines(blocks: TextBlocks) -> Iterator[str]:
    """The physical lines csv reads (as ``io.StringIO(text, newline="")`` cuts them): every
    segment ends after a ``\n``, so no ``\r\n`` is split between two segments."""
    for data, line, col in blocks:
        yield from io.StringIO(decode_segment(data, blocks.path, line, col), newline="")


def _csv_documents(lines: Iterable[str], path: Path, max_field: int) -> Iterator[str]:
    # A field may be as long as a line may be (csv's own default stops at 128 KiB).
    if csv.field_size_limit() < max_field:
        csv.field_size_limit(max_field)
    # strict: a quote that is never closed, or text after a closing quote, is an error
    # (pandas: "EOF inside string"), instead of swallowing the rest of the file.
    reader = csv.reader(iter(lines), strict=True)
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


def iter_documents(
    path: str | Path,
    *,
    max_bytes: int | None = None,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    blocks: TextBlocks | None = None,
) -> Iterator[str]:
    """Yield the documents of a corpus file, streamed and validated as it goes: memory
    holds one block and one document (at most ``max_line_bytes``), never the file."""
    path = Path(path)
    fmt = corpus_format(path)
    if fmt == ".parquet":
        yield from _parquet_documents(path)
        return
    if blocks is None:
        blocks = TextBlocks(
            path,
            max_bytes=max_bytes,
            max_line_bytes=max_line_bytes,
            cut_at_space=False,
            digest=False,  # made here, so no caller can read its digest
        )
    if fmt in (".txt", ".txt.gz"):
        for _, line in _text_lines(blocks):
            yield line
    elif fmt == ".jsonl":
        yield from _jsonl_documents(_text_lines(blocks), path)
    else:
        yield from _csv_documents(_csv_lines(blocks), path, blocks.max_line_bytes)


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
_GLOB_CHARS = frozenset("*?[")

#: One unit of counting work: ``(data, file, line, column)``. ``bytes`` are a segment of a
#: ``.txt`` file (:class:`TextBlocks`), decoded where they are counted; a ``str`` is text
#: already joined from documents (prefix applied).
Job = tuple[bytes | str, str, int, int]


def job_text(job: Job, prefix: str) -> tuple[str, int]:
    """The text of a job (prefix put before every non-empty line of a file segment) and
    how many characters of the corpus it holds (0 for document text, counted elsewhere)."""
    data, label, line, col = job
    if isinstance(data, str):
        return data, 0
    text = decode_segment(data, label, line, col)
    n = len(text)
    if prefix:
        if col == 0:
            text = _LINE_START.sub(prefix, text)
        else:  # the segment starts inside a line: no prefix before the first newline
            i = text.find("\n") + 1
            if i:
                text = text[:i] + _LINE_START.sub(prefix, text[i:])
    return text, n


def corpus_files(source: str | Path) -> list[Path]:
    """The files of a corpus given as a path: one file, every supported file under a
    directory (recursively), or the matches of a glob pattern; sorted, so the order (and
    the identity) does not depend on the file system."""
    text = str(source)
    path = Path(source)
    if path.is_dir():
        files = sorted(
            p
            for p in path.rglob("*")
            if p.is_file() and p.name.lower().endswith(SUPPORTED_SUFFIXES)
        )
        if not files:
            raise CorpusError(
                f"{path}: the directory holds no corpus file ({', '.join(SUPPORTED_SUFFIXES)})"
            )
        return files
    if _GLOB_CHARS.intersection(text) and not path.exists():
        import glob

        files = sorted(Path(p) for p in glob.glob(text, recursive=True) if Path(p).is_file())
        if not files:
            raise CorpusError(f"{text}: no file matches this pattern")
        for f in files:
            corpus_format(f)
        return files
    if isinstance(source, str) and ("\n" in source or not path.suffix) and not path.exists():
        raise CorpusError(
            f"{source[:40]!r}... is not a corpus file; to train on text in memory pass a "
            "list of documents, e.g. train([text], ...)"
        )
    corpus_format(path)
    if not path.exists():
        raise CorpusError(f"{path}: file not found")
    return [path]


class CorpusStream:
    """A corpus (file, directory, glob, or iterable of documents) as counting jobs, read
    in blocks; :meth:`finish` gives its identity once every job has been counted.

    The identity of one ``.txt`` file is the sha256 of its bytes; of other files and of
    documents, the sha256 of the documents each followed by ``\n``; of several files, the
    sha256 of the lines ``name<TAB>sha256`` of its files in order. ``known`` (absolute
    path -> :class:`KnownFile`) gives the sha256 of ``.txt`` files hashed a moment ago,
    which are then read without hashing them again.
    """

    def __init__(
        self,
        source: str | Path | Iterable[str],
        *,
        prefix: str = "",
        max_bytes: int | None = None,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        block: int = BLOCK_BYTES,
        chunk_chars: int = CHUNK_CHARS,
        known: Mapping[Path, KnownFile] | None = None,
    ) -> None:
        self.prefix = prefix
        self.known = known or {}
        self.max_bytes = max_bytes
        self.max_line_bytes = max_line_bytes
        self.block = block
        self.chunk_chars = chunk_chars
        self.files: list[Path] | None = None
        self.documents: Iterable[str] | None = None
        if isinstance(source, (str, Path)):
            self.files = corpus_files(source)
            self.name: str | None = (
                self.files[0].name
                if len(self.files) == 1 and Path(source).is_file()
                else str(source)
            )
        else:
            self.documents = source
            self.name = None
        self._parts: list[tuple[str, _Tracked | TextBlocks]] = []
        self._bytes_seen = 0

    def jobs(self) -> Iterator[Job]:
        """Counting jobs in corpus order (call once)."""
        if self.files is None:
            assert self.documents is not None
            tracked = _Tracked()
            self._parts.append(("", tracked))
            yield from self._doc_jobs(iter(self.documents), tracked, "corpus")
            return
        for path in self.files:
            left = None if self.max_bytes is None else self.max_bytes - self._bytes_seen
            if corpus_format(path) in (".txt", ".txt.gz"):
                # A plain .txt file's identity is the sha256 of its bytes, the hash a run
                # recorded for it (a .txt.gz's is that of its decompressed bytes).
                known = self.known.get(path.absolute()) if corpus_format(path) == ".txt" else None
                blocks = TextBlocks(
                    path,
                    max_bytes=left,
                    max_line_bytes=self.max_line_bytes,
                    block=self.block,
                    known=known,
                )
                self._parts.append((path.name, blocks))
                label = str(path)
                for data, line, col in blocks:
                    yield data, label, line, col
                self._bytes_seen += blocks.size
            else:
                tracked = _Tracked()
                self._parts.append((path.name, tracked))
                lines = TextBlocks(
                    path,
                    max_bytes=left,
                    max_line_bytes=self.max_line_bytes,
                    cut_at_space=False,
                    block=self.block,
                    digest=False,  # such a file's identity hashes its documents (tracked)
                )
                docs = iter_documents(path, blocks=lines)
                yield from self._doc_jobs(docs, tracked, str(path))
                self._bytes_seen += lines.size

    def _doc_jobs(self, docs: Iterator[str], tracked: _Tracked, label: str) -> Iterator[Job]:
        prefix = self.prefix
        batch: list[str] = []
        size = 0
        for doc in docs:
            if not isinstance(doc, str):
                raise TypeError(f"corpus documents must be str, got {type(doc).__name__}")
            tracked.documents += 1
            tracked.characters += len(doc)
            tracked.digest.update(doc.encode("utf-8") + b"\n")
            batch.append(prefix + doc if prefix and doc else doc)
            size += len(doc) + 1
            if size >= self.chunk_chars:
                batch.append("")
                yield "\n".join(batch), label, 0, 0
                batch, size = [], 0
        if batch:
            batch.append("")
            yield "\n".join(batch), label, 0, 0

    def finish(self, characters: int, any_text: bool, *, require_text: bool = True) -> CorpusInfo:
        """The identity, given the characters of the file segments (from :func:`job_text`)
        and whether any job held text that is not whitespace (else a CorpusError)."""
        if require_text and not any_text:
            if self.files is not None and len(self.files) == 1:
                path = self.files[0]
                if corpus_format(path) in (".txt", ".txt.gz"):
                    raise CorpusError(
                        f"{path}: the corpus is empty; it needs at least one line of text"
                    )
                raise CorpusError(f"{path}: empty; it needs at least one document with text")
            raise CorpusError(
                f"{self.name or 'corpus'}: empty; it needs at least one document with text"
            )
        ids: list[tuple[str, str]] = []
        documents = 0
        for name, part in self._parts:
            if isinstance(part, TextBlocks):
                documents += part.lines
            else:
                documents += part.documents
                characters += part.characters
            ids.append((name, part.hexdigest()))
        if len(ids) == 1:
            sha = ids[0][1]
        else:
            sha = hashlib.sha256("".join(f"{n}\t{h}\n" for n, h in ids).encode()).hexdigest()
        return CorpusInfo(self.name, sha, documents, characters)


def read_corpus(
    source: str | Path | Iterable[str],
    *,
    prefix: str = "",
    max_bytes: int | None = None,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
) -> tuple[Iterator[str], CorpusInfo]:
    """Chunks of a corpus (file, directory, glob, or iterable of documents) plus its
    identity, streamed.

    ``prefix`` is put before every non-empty document (the trainer's ``prepend_space``);
    the identity is that of the documents as given. The identity is computed while the
    chunks are consumed: read ``info`` only after the iterator is exhausted.
    """
    stream = CorpusStream(source, prefix=prefix, max_bytes=max_bytes, max_line_bytes=max_line_bytes)
    state = {"chars": 0, "text": False}
    info = _LazyInfo(stream, state)

    def chunks() -> Iterator[str]:
        for job in stream.jobs():
            text, n = job_text(job, prefix)
            state["chars"] += n
            state["text"] = state["text"] or bool(text.strip())
            yield text
        info.done = stream.finish(state["chars"], bool(state["text"]))

    return chunks(), info  # type: ignore[return-value]


class _Tracked:
    def __init__(self) -> None:
        self.digest = hashlib.sha256()
        self.documents = 0
        self.characters = 0

    def hexdigest(self) -> str:
        return self.digest.hexdigest()


class _LazyInfo:
    """A CorpusInfo whose fields are read after the chunks have been consumed."""

    def __init__(self, stream: CorpusStream, state: dict[str, Any]) -> None:
        self.name = stream.name
        self.done: CorpusInfo | None = None

    def freeze(self) -> CorpusInfo:
        if self.done is None:
            raise RuntimeError("read the corpus chunks to the end before its identity")
        return self.done

    @property
    def sha256(self) -> str:
        return self.freeze().sha256

    @property
    def documents(self) -> int:
        return self.freeze().documents

    @property
    def characters(self) -> int:
        return self.freeze().characters

"""Encode a whole corpus to token ids on all cores (or a Dask cluster), streamed to a file.

The next thing after training is to encode the corpus a model learns from. Documents are
read in blocks (:mod:`sgpe.corpus.readers`) or taken from any iterable of strings,
encoded in batches by a pool of processes (each loads the vocabulary once and keeps its
own piece cache) and written in corpus order, so the file is the same whatever the
number of workers:

* ``.parquet``: one row per document, column ``ids`` (list of int32), row groups of one
  batch each (the lines of about :data:`TEXT_BATCH_BYTES` of a text file; of other
  formats and of documents, up to :data:`BATCH_DOCS` documents and about
  :data:`TEXT_BATCH_BYTES`);
* ``.npy``: every document's ids one after the other (uint16 when the vocabulary has at
  most 65,536 tokens, else uint32), and next to it ``NAME.offsets.npy`` (int64, one more
  entry than documents): document ``k`` is ``ids[offsets[k]:offsets[k + 1]]``.

An output name with ``{stem}`` or ``{index}`` (``ids/{stem}.npy``, :func:`per_file_outputs`)
writes one output per corpus file, each equal to that file encoded alone, and
``manifest.json`` next to them; on Dask each task writes its own file's output. Each row
of the manifest records what its output was made from (the corpus file's size and
modification time, the vocabulary's sha256), and while a run goes
``manifest.partial.jsonl`` gets each row as soon as its output is in place; so a run
started again with ``resume=True`` (``--resume``) skips the files whose outputs are done
and unchanged and encodes the rest (:class:`_Journal`).

Files are written to a temporary name and renamed when complete: an interrupted run leaves
no half-written output.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import re
import sys
import tempfile
from array import array
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from itertools import accumulate, chain, islice
from pathlib import Path
from typing import Any, cast

from .._atomic import file_sha256, write_text_atomic
from .._json import write_json_atomic
from ..settings import default
from .readers import (
    CorpusError,
    TextBlocks,
    corpus_files,
    corpus_format,
    iter_documents,
    segment_lines,
)

__all__ = ["BATCH_DOCS", "OUTPUT_SUFFIXES", "encode_corpus"]

OUTPUT_SUFFIXES = (".parquet", ".npy")
BATCH_DOCS = 2000  # documents per task: a few hundred KB of text
# Below this many bytes of corpus one process encodes alone (process start-up and loading
# the vocabulary in each worker cost more than they save).
SERIAL_BYTES = 4 << 20

_WORKER: dict[str, Any] = {}


def _load(vocab: str) -> Any:
    from .. import load

    return load(vocab)


def _one_blas_thread() -> None:
    """Runs first in every worker, before numpy is imported there (a ``.npy`` output or a
    library may import it). Importing numpy starts OpenBLAS's threads, one per core, which spin for a
    while: a worker never calls BLAS, and on a machine whose cores are all encoding those
    threads take CPU from the other workers (a worker's process time was above its wall
    time on 2 cores until they were gone). A value the user set is kept."""
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")


def _init_worker(vocab: str | None) -> None:
    _one_blas_thread()
    if vocab is not None:
        _WORKER["tok"] = _load(vocab)


#: A batch of work: the documents themselves, or a segment of a text file (whole lines,
#: as :class:`sgpe.corpus.readers.TextBlocks` cuts it) that the worker decodes and splits.
Batch = list[str] | tuple[bytes, str, int, int]
# Bytes of a text file per batch: small enough that the last batches keep both cores busy,
# large enough that handing one to a worker costs nothing.
TEXT_BATCH_BYTES = 1 << 19


def _encode_batch_in_worker(batch: Batch, typecode: str) -> tuple[bytes, array[int]]:
    return encode_batch(_WORKER["tok"], _documents(batch), typecode)


def _documents(batch: Batch) -> list[str]:
    """The documents of a batch: a text segment's lines, as
    :func:`sgpe.corpus.readers.iter_documents` reads them."""
    return batch if isinstance(batch, list) else segment_lines(*batch)


def encode_batch(tok: Any, docs: Sequence[str], typecode: str = "i") -> tuple[bytes, array[int]]:
    """The ids of the documents as machine integers of ``typecode`` (an :mod:`array` type
    code: ``i`` int32, ``H`` uint16, ``I`` uint32), and where each document's ids start
    (int64, one more than the documents). An SGPE vocabulary gives them flat
    (:meth:`sgpe.tokenizer.Tokenizer.encode_batch_flat`: no Python object per id); other
    tokenizers give lists of ids."""
    flat = getattr(tok, "encode_batch_flat", None)
    if flat is not None:
        ids, offsets = flat(docs)
        return _as_typecode(ids, typecode), offsets
    many = getattr(tok, "encode_batch", None)
    lists = many(docs) if many is not None else [tok.encode(d) for d in docs]
    data = array(typecode, chain.from_iterable(lists)).tobytes()
    return data, array("q", accumulate(map(len, lists), initial=0))


def _as_typecode(ids: array[int], typecode: str) -> bytes:
    """The bytes of ``array(typecode, ids)`` from uint32 ids, without a Python int per id.
    The writer's type holds every id of the vocabulary (:func:`_typecode`): four-byte types
    (int32 too: ids are below 2**31) have the same bytes; uint16 ids are the low two
    bytes of each four."""
    if array(typecode).itemsize == ids.itemsize:
        return ids.tobytes()
    if typecode != "H" or ids.itemsize != 4:
        return array(typecode, ids).tobytes()
    data = ids.tobytes()
    low = 0 if sys.byteorder == "little" else 2
    out = bytearray(len(data) // 2)
    out[0::2] = data[low::4]
    out[1::2] = data[low + 1 :: 4]
    return bytes(out)


def _batches(files: list[Path], max_line_bytes: int) -> Iterator[tuple[Batch, int, int]]:
    """Batches of documents in corpus order, each with the bytes of the file it covers
    (for the progress report) and the file's number. A text file goes to the workers as raw
    segments of whole lines: this process only reads (decoding, splitting and pickling
    every document here kept two workers from being twice as fast as one)."""
    for k, path in enumerate(files):
        # A batch never spans two files, so local and per-file (Dask) runs write the same
        # row groups.
        if corpus_format(path) in (".txt", ".txt.gz"):
            blocks = TextBlocks(
                path,
                max_line_bytes=max_line_bytes,
                cut_at_space=False,
                block=TEXT_BATCH_BYTES,
                digest=False,  # nothing records an encoded corpus's hash
            )
            for data, line, col in blocks:
                yield (data, str(path), line, col), len(data), k
            continue
        docs = iter_documents(path, max_line_bytes=max_line_bytes)
        yield from ((batch, size, k) for batch, size in _document_batches(docs))


def _document_batches(docs: Iterable[Any], check: bool = False) -> Iterator[tuple[Batch, int]]:
    """Documents in batches of up to :data:`BATCH_DOCS` documents and about
    :data:`TEXT_BATCH_BYTES` (a batch of long documents must not fill the memory), each
    with its size in UTF-8 bytes plus a line break per document. ``check``: the documents
    come from the caller, and one that is not a ``str`` is a TypeError that says which."""
    batch: list[str] = []
    size = 0
    for number, doc in enumerate(docs, 1):
        if check and not isinstance(doc, str):
            raise TypeError(
                f"corpus document {number:,} must be str, got {type(doc).__name__}; "
                "drop or fill the documents that are not text first"
            )
        batch.append(doc)
        size += len(doc.encode("utf-8")) + 1
        if len(batch) >= BATCH_DOCS or size >= TEXT_BATCH_BYTES:
            yield batch, size
            batch, size = [], 0
    if batch:
        yield batch, size


def _npy_header(typecode: str, n: int) -> bytes:
    """The header of a one-dimensional ``.npy`` file (format 1.0) of ``n`` items of an
    :mod:`array` type code, as numpy writes it: the text of a dict, padded with spaces to
    a multiple of 64 bytes. (Written here so that the command line needs no numpy.)"""
    order = "<" if sys.byteorder == "little" else ">"
    kind = "i" if typecode.islower() else "u"
    descr = f"{order}{kind}{array(typecode).itemsize}"
    text = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': ({n},), }}"
    size = -(-(10 + len(text) + 1) // 64) * 64 - 10
    return b"\x93NUMPY\x01\x00" + size.to_bytes(2, "little") + text.ljust(size - 1).encode() + b"\n"


# The .npy header of the ids is written last, over room kept at the start of the file:
# the header of a 1-d array of up to 10**19 items takes exactly this many bytes.
_NPY_HEADER_BYTES = 128


def _unsigned(itemsize: int) -> str:
    return next(code for code in "HILQ" if array(code).itemsize == itemsize)


def _typecode(kind: str, vocab_size: int) -> str:
    """The type the workers give the ids in: int32 for parquet; for numpy uint16 when every
    id fits, else uint32."""
    return "i" if kind == ".parquet" else _unsigned(2 if vocab_size <= 1 << 16 else 4)


class _Writer:
    """Writes batches of ids to a temporary file; :meth:`commit` renames it into place."""

    def __init__(self, out: Path, vocab_size: int) -> None:
        self.out = out
        self.kind = output_kind(out)
        self.typecode = _typecode(self.kind, vocab_size)
        self.itemsize = array(self.typecode).itemsize
        fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent or ".")
        os.close(fd)
        self.tmp = Path(tmp)
        self.documents = 0
        self.tokens = 0
        self.offsets = array("q", [0])
        if self.kind == ".parquet":
            import pyarrow as pa
            import pyarrow.parquet as pq

            self.schema = pa.schema([("ids", pa.list_(pa.int32()))])
            self.pq_writer = pq.ParquetWriter(self.tmp, self.schema)
        else:
            self.raw = open(self.tmp, "wb")  # noqa: SIM115 (closed in commit/abort)
            self.raw.write(bytes(_NPY_HEADER_BYTES))

    def add(self, data: bytes, offsets: array[int]) -> None:
        """A batch: its ids (of :attr:`typecode`) and where each document's ids start in
        them (one more than the documents, from 0)."""
        n = len(data) // self.itemsize
        self.documents += len(offsets) - 1
        self.tokens += n
        if self.kind == ".parquet":
            import numpy as np
            import pyarrow as pa

            starts = np.asarray(offsets, dtype=np.int32)
            flat = np.frombuffer(data, dtype=np.int32)
            column = pa.ListArray.from_arrays(pa.array(starts), pa.array(flat))
            self.pq_writer.write_table(pa.Table.from_arrays([column], schema=self.schema))
        else:
            self.raw.write(data)
            base = self.offsets[-1]
            self.offsets.extend(base + start for start in islice(offsets, 1, None))

    def commit(self) -> None:
        if self.kind == ".parquet":
            self.pq_writer.close()
            os.replace(self.tmp, self.out)
            return
        header = _npy_header(self.typecode, self.tokens)
        if len(header) != _NPY_HEADER_BYTES:  # pragma: no cover (more than 10**19 ids)
            raise CorpusError(f"{self.out}: too many token ids for one .npy file")
        self.raw.seek(0)
        self.raw.write(header)
        self.raw.close()
        offsets_path = self.out.with_name(self.out.stem + ".offsets.npy")
        with tempfile.NamedTemporaryFile(dir=self.out.parent, suffix=".tmp", delete=False) as f:
            off_tmp = Path(f.name)
            f.write(_npy_header("q", len(self.offsets)))
            f.write(self.offsets.tobytes())
        os.replace(off_tmp, offsets_path)
        os.replace(self.tmp, self.out)

    def abort(self) -> None:
        with contextlib.suppress(Exception):
            if self.kind == ".parquet":
                self.pq_writer.close()
            else:
                self.raw.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.tmp)


def encode_corpus(
    vocab: str | Path,
    corpus: str | Path | Iterable[str],
    out: str | Path,
    *,
    workers: int | None = None,
    backend: str = default("backend"),
    scheduler: str | None = None,
    max_line_bytes: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    serial_bytes: int | None = None,
    tokenizer: Any = None,
    resume: bool = False,
) -> tuple[int, int]:
    """Encode every document of ``corpus`` with the vocabulary at ``vocab`` into ``out``
    (``.parquet`` or ``.npy``); returns (documents, tokens).

    ``corpus`` is a file, directory or glob, or documents: any iterable of ``str`` (a list,
    a generator, a Hugging Face ``datasets`` column), read as it goes, never held whole.
    ``progress(done_bytes, total_bytes)`` is called after each batch (total: the size of
    the files on disk, compressed files finishing above it; 0 for documents, whose size
    is not known in advance). A corpus below ``serial_bytes`` (default
    :data:`SERIAL_BYTES`) is encoded in this process. ``tokenizer`` is the vocabulary
    already loaded from ``vocab``, when the caller has it (workers that do not fork from
    this process, and Dask workers, load ``vocab`` themselves).

    ``resume`` (one output per corpus file only): skip the corpus files that an earlier,
    interrupted run of the same outputs finished, when neither the file nor the
    vocabulary has changed since; the totals returned are those of the whole corpus.
    """
    from .counting import DEFAULT_MAX_LINE_BYTES, default_workers

    limit = max_line_bytes or DEFAULT_MAX_LINE_BYTES
    in_memory = not isinstance(corpus, (str, Path))
    if in_memory and backend == "dask":
        raise CorpusError(
            "the dask backend encodes files that every worker can read: pass a file, a "
            "directory or a glob pattern (documents in memory: use the local backend)"
        )
    output_kind(out)  # a wrong suffix is an error before any work
    per_file = is_per_file(out)
    if in_memory and per_file:
        raise CorpusError(
            f"{out}: {{stem}} and {{index}} name one output per corpus file; documents in "
            "memory go to one output"
        )
    if resume and not per_file:
        raise CorpusError(
            f"{out}: resuming needs one output per corpus file ({{stem}} or {{index}} in the "
            "output's name); one output is written again whole"
        )
    files = [] if in_memory else corpus_files(cast("str | Path", corpus))
    outputs = per_file_outputs(out, files) if per_file else None
    sizes = [p.stat().st_size for p in files]
    total = sum(sizes)
    threshold = SERIAL_BYTES if serial_bytes is None else serial_bytes
    tok = tokenizer if tokenizer is not None else _load(str(vocab))
    try:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise CorpusError(f"{out}: cannot make its folder ({err.strerror})") from None
    done = 0
    journal = None
    todo: list[int] = []
    if outputs is not None:
        journal = _Journal(Path(out), str(vocab), files, outputs, resume)
        todo = [k for k in range(len(files)) if k not in journal.rows]
        done = sum(sizes[k] for k in journal.rows)
        if progress is not None and journal.rows:
            progress(done, total)
        if not todo:
            return journal.finish()
        if backend == "dask":
            return _dask_per_file(
                str(vocab), journal, todo, limit, scheduler, progress, (done, total)
            )
        files = [files[k] for k in todo]
        outputs = [outputs[k] for k in todo]
    sink = _Sink(Path(out), outputs, tok.vocab_size, journal, todo)
    try:
        if backend == "dask":
            results: Iterator[tuple[bytes, array[int], int, int]] = _dask_results(
                str(vocab), files, limit, scheduler, sink.typecode
            )
        else:
            if in_memory:
                docs = _document_batches(cast(Iterable[Any], corpus), check=True)
                batches, small = _read_ahead(((b, size, 0) for b, size in docs), threshold)
            else:
                batches, small = _batches(files, limit), total - done < threshold
            n = 1 if small else workers or default_workers()
            results = _local_results(tok, str(vocab), batches, n, sink.typecode)
        for data, offsets, size, k in results:
            sink.add(k, data, offsets)
            done += size
            if progress is not None:
                progress(done, total)
        sink.commit()
    except BaseException:
        sink.abort()
        raise
    if journal is not None:
        return journal.finish()
    return sink.documents, sink.tokens


def _read_ahead(
    batches: Iterator[tuple[Batch, int, int]], threshold: int
) -> tuple[Iterator[tuple[Batch, int, int]], bool]:
    """Documents have no size on disk: read batches up to ``threshold`` bytes ahead. Gives
    the same batches, and whether they all came before it (then one process encodes
    them)."""
    ahead: list[tuple[Batch, int, int]] = []
    seen = 0
    while seen < threshold:
        got = next(batches, None)
        if got is None:
            return iter(ahead), True
        ahead.append(got)
        seen += got[1]
    return chain(ahead, batches), False


# ============================================================================ outputs

_PLACEHOLDER = re.compile(r"\{(\w*)\}")
#: The parts of a per-file output name, and what each becomes.
PLACEHOLDERS = {
    "stem": "the corpus file's name without its suffix",
    "index": "the file's number in corpus order, from 00000",
}


def is_per_file(out: str | Path) -> bool:
    """Does ``out`` name one output per corpus file (``ids/{stem}.npy``)? (Placeholders
    outside the file name are an error, from :func:`per_file_outputs`.)"""
    return _PLACEHOLDER.search(str(out)) is not None


def output_kind(out: str | Path) -> str:
    """``.parquet`` or ``.npy``, from the output's name; else a CorpusError."""
    kind = Path(out).suffix.lower()
    if kind not in OUTPUT_SUFFIXES:
        raise CorpusError(
            f"{out}: the output must end in {' or '.join(OUTPUT_SUFFIXES)} (token ids as "
            "a parquet table, one row per document, or a flat numpy array)"
        )
    return kind


def per_file_outputs(out: str | Path, files: list[Path]) -> list[Path]:
    """The output of each corpus file: ``out``'s name with ``{stem}`` and ``{index}``
    filled in (:data:`PLACEHOLDERS`); a CorpusError for an unknown placeholder, one in a
    folder name, or two files that would write the same output."""
    out = Path(out)
    for part in out.parent.parts:
        if _PLACEHOLDER.search(part):
            raise CorpusError(f"{out}: {{stem}} and {{index}} go in the file name, not a folder")
    unknown = sorted(set(_PLACEHOLDER.findall(out.name)) - set(PLACEHOLDERS))
    if unknown:
        known = "; ".join(f"{{{k}}}: {v}" for k, v in PLACEHOLDERS.items())
        raise CorpusError(f"{out}: unknown placeholder {{{unknown[0]}}} in the name ({known})")
    outputs: list[Path] = []
    written: dict[Path, Path] = {}
    for k, path in enumerate(files):
        stem = path.name[: len(path.name) - len(corpus_format(path))]
        values = {"stem": stem, "index": f"{k:05d}"}
        target = out.with_name(_PLACEHOLDER.sub(partial(_fill, values), out.name))
        if target in written:
            raise CorpusError(
                f"{out}: {written[target]} and {path} would both write {target}; put "
                "{index} in the name"
            )
        written[target] = path
        outputs.append(target)
    return outputs


def _fill(values: dict[str, str], match: re.Match[str]) -> str:
    return values[match.group(1)]


def manifest_path(out: str | Path) -> Path:
    """Where a per-file encoding lists its outputs: ``manifest.json`` next to them."""
    return Path(out).with_name("manifest.json")


class _Journal:
    """What the outputs of a per-file run were made from, so that a run can skip the work
    an earlier one did. Every row of ``manifest.json`` records, besides its output's
    documents and tokens, its corpus file's size and modification time (the two that
    ``make`` and ``rsync`` trust), the vocabulary's sha256 and the output's size; while a
    run goes, ``manifest.partial.jsonl`` gets the same row for each output as soon as it is
    in place (appended and flushed to disk). On resume, a corpus file is skipped when a row
    of either says the same output of the same file, made from the file as it is now with
    this vocabulary, and the output is still there at that size. A row that cannot be read
    (a run killed while writing it) is ignored: its file is encoded again. So resuming a
    finished run encodes only the files added or changed since. :meth:`finish` writes
    ``manifest.json`` and removes the partial list."""

    def __init__(
        self, out: Path, vocab: str, files: list[Path], outputs: list[Path], resume: bool
    ) -> None:
        self.out = out
        self.path = out.with_name("manifest.partial.jsonl")
        self.files = files
        self.outputs = outputs
        self.vocab = file_sha256(vocab)
        #: corpus file number -> its manifest row, for the outputs that are done
        self.rows: dict[int, dict[str, Any]] = {}
        if resume:
            self._read()
        # A new list with the rows still valid (none for a new run: nothing of an earlier
        # run is trusted without --resume), and no manifest until every output is done.
        write_text_atomic(self.path, "".join(map(_json_line, self.rows.values())))
        with contextlib.suppress(FileNotFoundError):
            manifest_path(out).unlink()

    def row(self, k: int, documents: int, tokens: int) -> dict[str, Any]:
        """The manifest row of output ``k`` (in place now), with what it was made from."""
        source = self.files[k].stat()
        return {
            "corpus": str(self.files[k]),
            "output": self.outputs[k].name,
            "documents": documents,
            "tokens": tokens,
            "corpus_bytes": source.st_size,
            "corpus_mtime_ns": source.st_mtime_ns,
            "vocab_sha256": self.vocab,
            "output_bytes": [p.stat().st_size for p in _output_files(self.outputs[k])],
        }

    def _read(self) -> None:
        entries: list[Any] = []
        with contextlib.suppress(OSError, UnicodeDecodeError, ValueError):
            text = manifest_path(self.out).read_text(encoding="utf-8")
            entries += json.loads(text)["outputs"]
        with contextlib.suppress(OSError, UnicodeDecodeError):
            for line in self.path.read_text(encoding="utf-8").splitlines():
                with contextlib.suppress(ValueError):
                    entries.append(json.loads(line))
        where = {(str(p), o.name): k for k, (p, o) in enumerate(zip(self.files, self.outputs))}
        for entry in entries:
            with contextlib.suppress(KeyError, TypeError, ValueError, OSError):
                k = where[(entry["corpus"], entry["output"])]
                if entry == self.row(k, entry["documents"], entry["tokens"]):
                    self.rows[k] = entry

    def add(self, k: int, documents: int, tokens: int) -> None:
        """Output ``k`` is in place: record it."""
        row = self.rows[k] = self.row(k, documents, tokens)
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(_json_line(row))
            f.flush()
            os.fsync(f.fileno())

    def finish(self) -> tuple[int, int]:
        """Every output is done: write ``manifest.json``, drop the partial list; the
        documents and tokens of all outputs."""
        totals = _write_manifest(self.out, [self.rows[k] for k in range(len(self.files))])
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        return totals


def _json_line(row: dict[str, Any]) -> str:
    return json.dumps(row, ensure_ascii=False) + "\n"


def _output_files(out: Path) -> list[Path]:
    """The files an output is made of: ``.npy`` outputs have their offsets beside them."""
    if out.suffix.lower() == ".npy":
        return [out, out.with_name(out.stem + ".offsets.npy")]
    return [out]


class _Sink:
    """Writes the results in corpus order: to one output, or (``outputs``) to one output
    per corpus file, each recorded in the ``journal`` when it is in place. A file whose
    results are all written is committed before the next one starts; a file without
    documents gets an empty output, so every corpus file has its output."""

    def __init__(
        self,
        out: Path,
        outputs: list[Path] | None,
        vocab_size: int,
        journal: _Journal | None = None,
        numbers: list[int] | None = None,
    ) -> None:
        self.out = out
        self.outputs = outputs
        self.vocab_size = vocab_size
        self.journal = journal
        self.numbers = numbers or []  # each output's corpus file number in the journal
        self.current = 0
        self.writer = _Writer(outputs[0] if outputs else out, vocab_size)
        #: The type the workers give the ids in; every output of a run shares it.
        self.typecode = self.writer.typecode
        self.documents = 0
        self.tokens = 0

    def add(self, k: int, data: bytes, offsets: array[int]) -> None:
        if self.outputs is not None:
            while self.current < k:
                self._next()
        self.writer.add(data, offsets)

    def _next(self) -> None:
        self._close()
        self.current += 1
        assert self.outputs is not None
        self.writer = _Writer(self.outputs[self.current], self.vocab_size)

    def _close(self) -> None:
        w = self.writer
        w.commit()
        self.documents += w.documents
        self.tokens += w.tokens
        if self.journal is not None:
            self.journal.add(self.numbers[self.current], w.documents, w.tokens)

    def commit(self) -> None:
        if self.outputs is not None:
            while self.current < len(self.outputs) - 1:
                self._next()
        self._close()

    def abort(self) -> None:
        self.writer.abort()


def _write_manifest(out: Path, rows: list[dict[str, Any]]) -> tuple[int, int]:
    """Writes ``manifest.json``; returns the documents and tokens of all outputs."""
    documents = sum(r["documents"] for r in rows)
    tokens = sum(r["tokens"] for r in rows)
    write_json_atomic(
        manifest_path(out), {"outputs": rows, "documents": documents, "tokens": tokens}
    )
    return documents, tokens


def _local_results(
    tok: Any, vocab: str, batches: Iterator[tuple[Batch, int, int]], workers: int, typecode: str
) -> Iterator[tuple[bytes, array[int], int, int]]:
    """Each batch's ids, its number of ids per document, its size and its file's number,
    in corpus order."""
    if workers <= 1:
        for batch, size, k in batches:
            yield (*encode_batch(tok, _documents(batch), typecode), size, k)
        return
    from .counting import start_method

    method = start_method()
    ctx = multiprocessing.get_context(method)
    if method == "fork":
        # The workers inherit the loaded vocabulary (copy-on-write). They start with empty
        # piece caches: encoding a first part of the corpus here to warm the cache they
        # inherit ran on one core while the other waited, and cost more than the words the
        # two workers then both encode (bench/scale.py, "encode").
        _WORKER["tok"] = tok
    with ctx.Pool(
        workers, initializer=_init_worker, initargs=(None if method == "fork" else vocab,)
    ) as pool:
        pending: deque[tuple[Any, int, int]] = deque()
        for batch, size, k in batches:
            task = pool.apply_async(_encode_batch_in_worker, (batch, typecode))
            pending.append((task, size, k))
            if len(pending) >= 2 * workers:
                result, n, file = pending.popleft()
                yield (*result.get(), n, file)
        while pending:
            result, n, file = pending.popleft()
            yield (*result.get(), n, file)


def _worker_tok(vocab: str) -> Any:
    """The vocabulary at ``vocab``, loaded once per worker process (a cluster worker runs
    many files' tasks)."""
    key = f"vocab:{vocab}"
    if key not in _WORKER:
        _WORKER[key] = _load(vocab)
    return _WORKER[key]


def _encode_file_task(
    vocab: str, path: str, max_line_bytes: int, typecode: str
) -> list[tuple[bytes, array[int], int]]:
    tok = _worker_tok(vocab)
    return [
        (*encode_batch(tok, _documents(batch), typecode), size)
        for batch, size, _ in _batches([Path(path)], max_line_bytes)
    ]


def _dask_results(
    vocab: str, files: list[Path], max_line_bytes: int, scheduler: str | None, typecode: str
) -> Iterator[tuple[bytes, array[int], int, int]]:
    """One task per file on a dask.distributed cluster; results in file order."""
    from .counting import dask_client

    with dask_client(scheduler) as client:
        futures = [
            client.submit(_encode_file_task, vocab, str(p), max_line_bytes, typecode, pure=False)
            for p in files
        ]
        for k, future in enumerate(futures):  # in file order; later files keep computing
            for data, offsets, size in future.result():
                yield data, offsets, size, k
            future.release()


def _encode_file_to(vocab: str, path: str, out: str, max_line_bytes: int) -> tuple[int, int, int]:
    """A per-file task: encode one corpus file into its own output, written where the
    worker runs (a folder every worker and the caller can reach). Returns its documents,
    tokens and the bytes read."""
    tok = _worker_tok(vocab)
    Path(out).parent.mkdir(parents=True, exist_ok=True)  # made on this worker's machine too
    writer = _Writer(Path(out), tok.vocab_size)
    size = 0
    try:
        for batch, n, _ in _batches([Path(path)], max_line_bytes):
            writer.add(*encode_batch(tok, _documents(batch), writer.typecode))
            size += n
        writer.commit()
    except BaseException:
        writer.abort()
        raise
    return writer.documents, writer.tokens, size


def _dask_per_file(
    vocab: str,
    journal: _Journal,
    todo: list[int],
    max_line_bytes: int,
    scheduler: str | None,
    progress: Callable[[int, int], None] | None,
    done_total: tuple[int, int],
) -> tuple[int, int]:
    """One task per file (of those ``todo``) that writes the file's output itself: the ids
    never pass through this process, which records each output in the journal and then
    writes ``manifest.json``. ``done_total``: the bytes of the files done already, and of
    all of them (for ``progress``)."""
    from .counting import dask_client

    files, outputs = journal.files, journal.outputs
    done, total = done_total
    with dask_client(scheduler) as client:
        futures = [
            client.submit(
                _encode_file_to, vocab, str(files[k]), str(outputs[k]), max_line_bytes, pure=False
            )
            for k in todo
        ]
        for k, future in zip(todo, futures):
            documents, tokens, size = future.result()
            future.release()
            journal.add(k, documents, tokens)
            done += size
            if progress is not None:
                progress(done, total)
    return journal.finish()

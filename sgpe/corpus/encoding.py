"""Encode a whole corpus to token ids on all cores (or a Dask cluster), streamed to a file.

The next thing after training is to encode the corpus a model learns from. Documents are
read in blocks (:mod:`sgpe.corpus.readers`), encoded in batches by a pool of processes
(each loads the vocabulary once and keeps its own piece cache) and written in corpus
order, so the file is the same whatever the number of workers:

* ``.parquet``: one row per document, column ``ids`` (list of int32), row groups of one
  batch each (the lines of about :data:`TEXT_BATCH_BYTES` of a text file, or
  :data:`BATCH_DOCS` documents of the other formats);
* ``.npy``: every document's ids one after the other (uint16 when the vocabulary has at
  most 65,536 tokens, else uint32), and next to it ``NAME.offsets.npy`` (int64, one more
  entry than documents): document ``k`` is ``ids[offsets[k]:offsets[k + 1]]``.

Files are written to a temporary name and renamed at the end: an interrupted run leaves
no half-written output.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import shutil
import tempfile
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

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

# Encoded in the main process before the workers fork from it (see _local_results).
WARM_BYTES = 2 << 20

_WORKER: dict[str, Any] = {}


def _load(vocab: str) -> Any:
    from .. import load

    return load(vocab)


def _init_worker(vocab: str) -> None:
    _WORKER["tok"] = _load(vocab)


#: A batch of work: the documents themselves, or a segment of a text file (whole lines,
#: as :class:`sgpe.corpus.readers.TextBlocks` cuts it) that the worker decodes and splits.
Batch = list[str] | tuple[bytes, str, int, int]
# Bytes of a text file per batch: small enough that the last batches keep both cores busy,
# large enough that handing one to a worker costs nothing.
TEXT_BATCH_BYTES = 1 << 19


def _encode_batch_in_worker(batch: Batch) -> tuple[bytes, list[int]]:
    return encode_batch(_WORKER["tok"], _documents(batch))


def _documents(batch: Batch) -> list[str]:
    """The documents of a batch: a text segment's lines, as
    :func:`sgpe.corpus.readers.iter_documents` reads them."""
    return batch if isinstance(batch, list) else segment_lines(*batch)


def encode_batch(tok: Any, docs: Sequence[str]) -> tuple[bytes, list[int]]:
    """The ids of the documents as int32 bytes, and each document's number of ids."""
    import numpy as np

    encode = tok.encode
    lists = [encode(d) for d in docs]
    lengths = [len(x) for x in lists]
    flat = np.fromiter((i for x in lists for i in x), dtype=np.int32, count=sum(lengths))
    return flat.tobytes(), lengths


def _batches(files: list[Path], max_line_bytes: int) -> Iterator[tuple[Batch, int]]:
    """Batches of documents in corpus order, each with the bytes of the file it covers
    (for the progress report). A text file goes to the workers as raw segments of whole
    lines: this process only reads (decoding, splitting and pickling every document here
    kept two workers from being twice as fast as one)."""
    for path in files:
        # A batch never spans two files, so local and per-file (Dask) runs write the same
        # row groups.
        if corpus_format(path) in (".txt", ".txt.gz"):
            blocks = TextBlocks(
                path, max_line_bytes=max_line_bytes, cut_at_space=False, block=TEXT_BATCH_BYTES
            )
            for data, line, col in blocks:
                yield (data, str(path), line, col), len(data)
            continue
        batch: list[str] = []
        size = 0
        for doc in iter_documents(path, max_line_bytes=max_line_bytes):
            batch.append(doc)
            size += len(doc.encode("utf-8")) + 1
            if len(batch) >= BATCH_DOCS:
                yield batch, size
                batch, size = [], 0
        if batch:
            yield batch, size


class _Writer:
    """Writes batches of ids to a temporary file; :meth:`commit` renames it into place."""

    def __init__(self, out: Path, vocab_size: int) -> None:
        import numpy as np

        self.out = out
        self.kind = out.suffix.lower()
        if self.kind not in OUTPUT_SUFFIXES:
            raise CorpusError(
                f"{out}: the output must end in {' or '.join(OUTPUT_SUFFIXES)} (token ids as "
                "a parquet table, one row per document, or a flat numpy array)"
            )
        self.dtype = np.uint16 if vocab_size <= 1 << 16 else np.uint32
        fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent or ".")
        os.close(fd)
        self.tmp = Path(tmp)
        self.documents = 0
        self.tokens = 0
        self.offsets: list[int] = [0]
        if self.kind == ".parquet":
            import pyarrow as pa
            import pyarrow.parquet as pq

            self.schema = pa.schema([("ids", pa.list_(pa.int32()))])
            self.pq_writer = pq.ParquetWriter(self.tmp, self.schema)
        else:
            self.raw = open(self.tmp, "wb")  # noqa: SIM115 (closed in commit/abort)

    def add(self, data: bytes, lengths: list[int]) -> None:
        import numpy as np

        flat = np.frombuffer(data, dtype=np.int32)
        self.documents += len(lengths)
        self.tokens += len(flat)
        if self.kind == ".parquet":
            import pyarrow as pa

            offsets = np.zeros(len(lengths) + 1, dtype=np.int32)
            np.cumsum(lengths, out=offsets[1:])
            column = pa.ListArray.from_arrays(pa.array(offsets), pa.array(flat))
            self.pq_writer.write_table(pa.Table.from_arrays([column], schema=self.schema))
        else:
            self.raw.write(flat.astype(self.dtype).tobytes())
            last = self.offsets[-1]
            for n in lengths:
                last += n
                self.offsets.append(last)

    def commit(self) -> None:
        import numpy as np

        if self.kind == ".parquet":
            self.pq_writer.close()
            os.replace(self.tmp, self.out)
            return
        self.raw.close()
        offsets_path = self.out.with_name(self.out.stem + ".offsets.npy")
        with tempfile.NamedTemporaryFile(dir=self.out.parent, suffix=".tmp", delete=False) as f:
            header_path = Path(f.name)
            np.lib.format.write_array_header_1_0(
                f,
                {
                    "descr": np.dtype(self.dtype).str,
                    "fortran_order": False,
                    "shape": (self.tokens,),
                },
            )
            with open(self.tmp, "rb") as raw:
                shutil.copyfileobj(raw, f, 1 << 20)
        os.unlink(self.tmp)
        with tempfile.NamedTemporaryFile(dir=self.out.parent, suffix=".tmp", delete=False) as f:
            off_tmp = Path(f.name)
            np.save(f, np.asarray(self.offsets, dtype=np.int64))
        os.replace(off_tmp, offsets_path)
        os.replace(header_path, self.out)

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
    corpus: str | Path,
    out: str | Path,
    *,
    workers: int | None = None,
    backend: str = default("backend"),
    scheduler: str | None = None,
    max_line_bytes: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    serial_bytes: int | None = None,
) -> tuple[int, int]:
    """Encode every document of ``corpus`` (a file, directory or glob) with the vocabulary
    at ``vocab`` into ``out`` (``.parquet`` or ``.npy``); returns (documents, tokens).

    ``progress(done_bytes, total_bytes)`` is called after each batch (total: the size of
    the files on disk; compressed files finish above it). A corpus below ``serial_bytes``
    (default :data:`SERIAL_BYTES`) is encoded in this process.
    """
    from .counting import DEFAULT_MAX_LINE_BYTES, default_workers

    limit = max_line_bytes or DEFAULT_MAX_LINE_BYTES
    files = corpus_files(corpus)
    total = sum(p.stat().st_size for p in files)
    tok = _load(str(vocab))
    out = Path(out)
    writer = _Writer(out, tok.vocab_size)
    done = 0
    try:
        if backend == "dask":
            results: Iterator[tuple[bytes, list[int], int]] = _dask_results(
                str(vocab), files, limit, scheduler
            )
        else:
            n = workers or default_workers()
            if total < (SERIAL_BYTES if serial_bytes is None else serial_bytes):
                n = 1
            results = _local_results(tok, str(vocab), _batches(files, limit), n)
        for data, lengths, size in results:
            writer.add(data, lengths)
            done += size
            if progress is not None:
                progress(done, total)
        writer.commit()
    except BaseException:
        writer.abort()
        raise
    return writer.documents, writer.tokens


def _local_results(
    tok: Any, vocab: str, batches: Iterator[tuple[Batch, int]], workers: int
) -> Iterator[tuple[bytes, list[int], int]]:
    if workers <= 1:
        for batch, size in batches:
            yield (*encode_batch(tok, _documents(batch)), size)
        return
    from .counting import start_method

    method = start_method()
    ctx = multiprocessing.get_context(method)
    if method == "fork":
        # Encode the first batches here, then fork: the workers inherit the vocabulary and
        # its piece cache already warm with the frequent words (copy-on-write), instead of
        # each one encoding them again from cold.
        seen = 0
        for batch, size in batches:
            yield (*encode_batch(tok, _documents(batch)), size)
            seen += size
            if seen >= WARM_BYTES:
                break
        _WORKER["tok"] = tok
        initializer: Callable[..., None] | None = None
        initargs: tuple[str, ...] = ()
    else:
        initializer, initargs = _init_worker, (vocab,)
    with ctx.Pool(workers, initializer=initializer, initargs=initargs) as pool:
        pending: deque[tuple[Any, int]] = deque()
        for batch, size in batches:
            pending.append((pool.apply_async(_encode_batch_in_worker, (batch,)), size))
            if len(pending) >= 2 * workers:
                result, n = pending.popleft()
                yield (*result.get(), n)
        while pending:
            result, n = pending.popleft()
            yield (*result.get(), n)


def _encode_file_task(
    vocab: str, path: str, max_line_bytes: int
) -> list[tuple[bytes, list[int], int]]:
    tok = _load(vocab)
    return [
        (*encode_batch(tok, _documents(batch)), size)
        for batch, size in _batches([Path(path)], max_line_bytes)
    ]


def _dask_results(
    vocab: str, files: list[Path], max_line_bytes: int, scheduler: str | None
) -> Iterator[tuple[bytes, list[int], int]]:
    """One task per file on a dask.distributed cluster; results in file order."""
    from .counting import dask_client

    with dask_client(scheduler) as client:
        futures = [
            client.submit(_encode_file_task, vocab, str(p), max_line_bytes, pure=False)
            for p in files
        ]
        for future in futures:  # in file order; later files keep computing meanwhile
            yield from future.result()
            future.release()

"""Count the pieces of a corpus in one process, on all cores, or on a Dask cluster.

Counting is the only phase whose cost grows with the corpus (the merge loop works on the
unique pieces), so it is the one that runs in parallel. Whatever way the counts are made
they are the same ``Counter``, in the same order (the order in which pieces first occur
in the corpus), so the vocabulary and the files written from the counts are byte-identical:

* **serial**: the corpus is read in blocks (:class:`sgpe.corpus.readers.CorpusStream`)
  and each block's pieces are counted with one regex at C speed;
* **local processes** (the default): the main process reads blocks and hands them to a
  pool, at most two per worker in flight, so memory stays bounded; the workers decode,
  split and count into counts of their own, which they hand over once at the end
  (:func:`count_jobs` says how the order is kept). Files smaller than
  :data:`POOL_MIN_BYTES` in all, and the first :data:`SERIAL_BYTES` of anything, are
  counted in the main process: there the pool would cost more than it saves
  (``python -m bench scale`` measured it);
* **native** (under the native engine, for the local backend, whatever ``workers``
  says): the main process reads the same blocks and the native core
  (:meth:`sgpe.pieces.WordSplitter.native_counter`) decodes, splits and counts each one
  on all cores, on a thread of its own while the next block is read
  (:func:`count_jobs_native`); faster than the pool at every size
  (``python -m bench scale --only count``);
* **Dask** (:func:`count_files_dask`): one task per file on a ``dask.distributed``
  cluster; the client adds the per-file counts up in file order.

Pieces longer than the cap (:mod:`sgpe.pieces`) are cut once, after counting, so every
way of counting applies the same cut to the same totals; or not at all (``capped=False``),
when the trainer cuts them itself as it syllabifies them.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import re
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._engine import dispatch
from ..settings import BACKENDS, check_count_options
from .readers import (
    DEFAULT_MAX_LINE_BYTES,
    CorpusError,
    CorpusInfo,
    CorpusStream,
    Job,
    KnownFile,
    corpus_files,
    decode_segment,
    job_text,
)

if TYPE_CHECKING:
    from .._engine import PieceCounter as NativePieceCounter
    from ..settings import CountOptions, TrainSettings

__all__ = [
    "BACKENDS",
    "DEFAULT_MAX_LINE_BYTES",
    "FLUSH_PIECES",
    "POOL_MIN_BYTES",
    "SERIAL_BYTES",
    "check_count_options",
    "count_files_dask",
    "count_jobs",
    "count_pieces",
    "default_workers",
    "read_counts_table",
    "write_counts_table",
]

#: The first this many bytes are counted in the main process; the pool starts only for a
#: corpus larger than that. Measured (bench/scale.py): starting and stopping a pool of 2
#: forked workers takes ~35 ms, the time one process needs to count ~1 MB.
SERIAL_BYTES = 2 << 20
#: With the default number of workers, a corpus of files smaller than this is counted in
#: one process: each worker hands all its counts over at the end, which costs more than
#: two cores save on a small corpus (`python -m bench scale --only count`, a pool of 2
#: against one process: 0.86x on 16 MB, 1.06x on 32 MB, 1.32x on 64 MB, 1.48x on 160 MB).
POOL_MIN_BYTES = 24 << 20

ChunkResult = tuple[Counter[str], int, bool]


def default_workers() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


# ---------------------------------------------------------------------------- one chunk

_WORKER: dict[str, Any] = {}
# How long a worker waits at the final hand-over for the others (they are all idle by then).
_HARVEST_SECONDS = 600.0
#: A worker hands its counts over early once they hold this many distinct pieces, so its
#: memory stays bounded however many distinct pieces the corpus has.
FLUSH_PIECES = 1 << 20


def _init_worker(pattern: str, prefix: str, barrier: Any, flush_pieces: int) -> None:
    _WORKER["findall"] = re.compile(pattern).findall
    _WORKER["prefix"] = prefix
    _WORKER["barrier"] = barrier
    _WORKER["flush"] = flush_pieces
    _WORKER["counts"] = Counter()


def _count_in_worker(job: Job) -> tuple[list[str], int, bool, Counter[str] | None]:
    """Count one job into this worker's running counts; return the pieces that are new to
    them, in the order they first occur (see :func:`count_jobs`), and the counts
    themselves when they have grown to ``FLUSH_PIECES`` pieces (the worker starts anew)."""
    counts: Counter[str] = _WORKER["counts"]
    before = len(counts)
    n, text = count_job_into(counts, job, _WORKER["findall"], _WORKER["prefix"])
    # Counter.update adds new keys at the end, so they are the last ones: read backwards.
    new = list(islice(reversed(counts), len(counts) - before))
    new.reverse()
    return new, n, text, _take_counts() if len(counts) >= _WORKER["flush"] else None


def _take_counts() -> Counter[str]:
    """This worker's counts, handed over; it counts on from empty ones."""
    counts: Counter[str] = _WORKER["counts"]
    _WORKER["counts"] = Counter()
    return counts


def _harvest(_: int) -> Counter[str]:
    """This worker's counts. The barrier makes every worker take exactly one harvest task
    (none can return before all have started one)."""
    _WORKER["barrier"].wait(_HARVEST_SECONDS)
    return _take_counts()


def count_job_into(
    counts: Counter[str], job: Job, findall: Callable[[str], list[str]], prefix: str
) -> tuple[int, bool]:
    """Add the raw pieces of one job to ``counts`` (at C speed: ``Counter.update`` of a
    list); return the job's corpus characters and whether it holds any text that is not
    whitespace."""
    text, n = job_text(job, prefix)
    counts.update(findall(text))
    return n, bool(text) and not text.isspace()


def count_jobs(
    jobs: Iterable[Job],
    pattern: str,
    prefix: str,
    workers: int,
    *,
    serial_bytes: int = SERIAL_BYTES,
    flush_pieces: int = FLUSH_PIECES,
) -> ChunkResult:
    """Count jobs in order, the first ``serial_bytes`` here and the rest (if any) on a pool
    of ``workers`` processes. The result, order included, does not depend on ``workers``.

    Each worker keeps its own running counts (adding a job's pieces to them runs at C
    speed; adding up per-job counts in this process was a Python loop over every job's
    distinct pieces, half the counting time on two cores). For the order, each job
    returns only the pieces new to its worker's counts: a worker takes jobs in corpus
    order, so a piece's first job in the corpus is one where it is new to that worker, and
    taking the new pieces of all jobs in corpus order, first occurrence kept, gives the
    order of the serial count. A worker hands its counts over when they reach
    ``flush_pieces`` distinct pieces and starts anew (a piece it saw before is then new to
    it again, which changes no first occurrence), and once more at the end. So this
    process holds one table of the corpus's distinct pieces, and each worker at most
    ``flush_pieces`` of them."""
    total: Counter[str] = Counter()
    chars = 0
    any_text = False
    findall = re.compile(pattern).findall
    it: Iterator[Job] = iter(jobs)
    seen = 0
    for job in it:
        n, text = count_job_into(total, job, findall, prefix)
        chars += n
        any_text = any_text or text
        seen += len(job[0])
        if workers > 1 and seen >= serial_bytes:
            break
    else:
        return total, chars, any_text
    with _pool(workers, pattern, prefix, flush_pieces) as pool:
        pending: deque[Any] = deque()

        def take() -> None:
            nonlocal chars, any_text
            new, n, text, flushed = pending.popleft().get()
            # New pieces enter with 0, at the end; pieces already there keep their place.
            total.update(dict.fromkeys(new, 0))
            if flushed is not None:
                total.update(flushed)
            chars += n
            any_text = any_text or text

        for job in it:
            pending.append(pool.apply_async(_count_in_worker, (job,)))
            if len(pending) >= 2 * workers:
                take()
        while pending:
            take()
        for part in pool.imap_unordered(_harvest, range(workers), chunksize=1):
            total.update(part)  # every piece is there already: the order stays
    return total, chars, any_text


def count_jobs_native(
    jobs: Iterable[Job], counter: NativePieceCounter, pattern: str, prefix: str
) -> ChunkResult:
    """Count jobs in order with the native counter (:meth:`sgpe.pieces.WordSplitter.native_counter`),
    in this process on all cores: the same counts in the same order as :func:`count_jobs`.
    A segment that is not UTF-8 gets the CorpusError :func:`decode_segment` gives.
    (Documents holding a lone surrogate never get here: the stream hashes each document
    as UTF-8 and raises UnicodeEncodeError first, under either engine.)"""
    it: Iterator[Job] = iter(jobs)
    for job in it:
        data, label, line, col = job
        if isinstance(data, bytes):
            if not counter.feed_segment(data, col == 0):
                decode_segment(data, label, line, col)  # raises, naming line and byte
                raise CorpusError(f"{label}: line {line}: not valid UTF-8")  # not reached
            continue
        counter.feed_text(data)
    total: Counter[str] = Counter()
    counter.take_into(total)
    return total, counter.chars, counter.any_text


def start_method() -> str:
    """How worker processes start. ``fork`` when this process has a single thread: it is
    fast and does not run the caller's main module again (``spawn`` and ``forkserver``
    import it in every worker, which fails for a script read from stdin and re-runs an
    unguarded script). With other threads alive (a run's heartbeat, or the native core's
    rayon pool after an ``encode_batch``) forking could copy a lock another thread holds,
    and a forked child waits for pool threads it does not have; then ``forkserver`` (or
    ``spawn``) is used. The threads are the operating system's (``/proc/self/task``), as
    ``threading`` sees only Python's."""
    import multiprocessing  # here: the native counter, the usual one, needs no pool

    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and _os_threads() == 1:
        return "fork"
    return "forkserver" if "forkserver" in methods else "spawn"


def _os_threads() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:  # not Linux: the Python threads are all we can see
        import threading

        return threading.active_count()


def _pool(workers: int, pattern: str, prefix: str, flush_pieces: int) -> Any:
    import multiprocessing

    ctx = multiprocessing.get_context(start_method())
    barrier = ctx.Barrier(workers)
    return ctx.Pool(
        workers, initializer=_init_worker, initargs=(pattern, prefix, barrier, flush_pieces)
    )


# ---------------------------------------------------------------------------- a corpus


def count_pieces(
    corpus: str | Path | Iterable[str],
    settings: TrainSettings,
    counting: CountOptions,
    *,
    capped: bool = True,
    known: Mapping[Path, KnownFile] | None = None,
) -> tuple[Counter[str], CorpusInfo]:
    """Piece counts (capped, see :mod:`sgpe.pieces`) and identity of a corpus: the pieces
    are cut as ``settings`` say, with the backend, workers and limits of ``counting``.
    ``capped=False`` leaves long pieces whole, for a caller that cuts them itself (the
    trainer cuts them while it syllabifies the pieces, without a second pass). ``known``:
    the sha256 of files the caller hashed a moment ago (:class:`~sgpe.corpus.readers.CorpusStream`);
    a run's trainer passes the ones its ``config.json`` records, so that the corpus is
    hashed once, not once for the run and again while it is counted."""
    from ..pieces import get_word_splitter

    splitter = get_word_splitter(
        settings.script,
        settings.leading_space,
        settings.pieces,
        settings.max_piece_units,
        settings.superwords_from is not None,  # superword spans are counted as one key each
    )
    prefix = " " if settings.prepend_space else ""
    if counting.backend == "dask":
        if not isinstance(corpus, (str, Path)):
            raise CorpusError(
                "the dask backend counts files that every worker can read: pass a file, a "
                "directory or a glob pattern (documents in memory: use the local backend)"
            )
        counts, info = count_files_dask(
            corpus_files(corpus),
            splitter.pattern,
            prefix,
            scheduler=counting.scheduler,
            max_line_bytes=counting.max_line_bytes,
            max_corpus_bytes=counting.max_corpus_bytes,
            name=_corpus_name(corpus),
        )
    else:
        stream = CorpusStream(
            corpus,
            prefix=prefix,
            max_bytes=counting.max_corpus_bytes,
            max_line_bytes=counting.max_line_bytes,
            known=known,
        )
        workers = counting.workers or default_workers()
        if counting.workers is None and stream.files is not None:
            with contextlib.suppress(OSError):  # a file gone: the stream reports it
                if sum(p.stat().st_size for p in stream.files) < POOL_MIN_BYTES:
                    workers = 1
        # The stream is read once: an error while counting is the caller's under either
        # engine, never a reason to count again in Python.
        counts, chars, any_text = dispatch(
            splitter.native_counter(prefix),
            lambda native: count_jobs_native(stream.jobs(), native, splitter.pattern, prefix),
            lambda: count_jobs(stream.jobs(), splitter.pattern, prefix, workers),
            surrogate_fallback=False,
        )
        info = stream.finish(chars, any_text)
    return (splitter.cap_counts(counts) if capped else counts), info


def _corpus_name(corpus: str | Path) -> str:
    path = Path(corpus)
    return path.name if path.is_file() else str(corpus)


# ---------------------------------------------------------------------------- Dask


def _count_file_task(
    path: str, pattern: str, prefix: str, max_line_bytes: int, max_bytes: int | None
) -> tuple[Counter[str], CorpusInfo, bool]:
    """One file, counted serially where the Dask worker runs (it reads the file itself)."""
    stream = CorpusStream(path, prefix=prefix, max_line_bytes=max_line_bytes, max_bytes=max_bytes)
    counts, chars, any_text = count_jobs(stream.jobs(), pattern, prefix, 1)
    # An empty file is judged with the others: the corpus is empty only if all of them are.
    return counts, stream.finish(chars, any_text, require_text=False), any_text


def count_files_dask(
    files: list[Path],
    pattern: str,
    prefix: str,
    *,
    scheduler: str | None = None,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    max_corpus_bytes: int | None = None,
    name: str | None = None,
) -> tuple[Counter[str], CorpusInfo]:
    """Raw piece counts of files on a ``dask.distributed`` cluster (``scheduler``: its
    address, e.g. ``tcp://10.0.0.5:8786``; None starts a LocalCluster on this machine).

    Every worker must see the files under the same paths (a shared file system or a copy
    on each machine). The counts and the identity equal those of local counting: files
    are added up in order, and the identity of several files is built the same way
    (:class:`sgpe.corpus.readers.CorpusStream`). ``max_corpus_bytes`` applies per file.
    """
    with dask_client(scheduler) as client:
        return _gather_files(client, files, pattern, prefix, max_line_bytes, max_corpus_bytes, name)


@contextlib.contextmanager
def dask_client(scheduler: str | None) -> Iterator[Any]:
    """A ``dask.distributed`` client of the cluster at ``scheduler`` (None: a LocalCluster
    on this machine, closed again afterwards); clear errors when dask is not installed or
    the scheduler cannot be reached."""
    try:
        # As Any: dask.distributed is an optional extra, partly typed.
        distributed: Any = importlib.import_module("distributed")
    except ImportError:
        raise CorpusError(
            "the dask backend needs dask.distributed: pip install 'sgpe-explorer[dask]'"
        ) from None
    cluster = None
    if scheduler is None:
        cluster = distributed.LocalCluster(processes=True, dashboard_address=None)
        client = distributed.Client(cluster)
    else:
        try:
            client = distributed.Client(scheduler, timeout=30)
        except OSError as err:
            raise CorpusError(
                f"cannot reach the dask scheduler at {scheduler}: {err}; start it with "
                "`dask scheduler` and its workers with `dask worker ADDRESS`"
            ) from None
    try:
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _gather_files(
    client: Any,
    files: list[Path],
    pattern: str,
    prefix: str,
    max_line_bytes: int,
    max_bytes: int | None,
    name: str | None,
) -> tuple[Counter[str], CorpusInfo]:
    as_completed = importlib.import_module("distributed").as_completed

    futures = [
        client.submit(
            _count_file_task, str(p), pattern, prefix, max_line_bytes, max_bytes, pure=False
        )
        for p in files
    ]
    # Results arrive in any order; they are added up in file order, so the counts keep
    # the order of first occurrence in the corpus.
    done: dict[int, tuple[Counter[str], CorpusInfo, bool]] = {}
    index = {f.key: k for k, f in enumerate(futures)}
    total: Counter[str] = Counter()
    infos: list[CorpusInfo] = []
    any_text = False
    next_k = 0
    for future in as_completed(futures):
        done[index[future.key]] = future.result()
        future.release()
        while next_k in done:
            counts, info, text = done.pop(next_k)
            total.update(counts)
            infos.append(info)
            any_text = any_text or text
            next_k += 1
    if not any_text:
        raise CorpusError(f"{name or 'corpus'}: empty; it needs at least one document with text")
    return total, _combined_info(files, infos, name)


def _combined_info(files: list[Path], infos: list[CorpusInfo], name: str | None) -> CorpusInfo:
    import hashlib

    documents = sum(i.documents for i in infos)
    characters = sum(i.characters for i in infos)
    if len(infos) == 1:
        return CorpusInfo(name, infos[0].sha256, documents, characters)
    # The same identity as CorpusStream.finish gives for these files.
    body = "".join(f"{f.name}\t{i.sha256}\n" for f, i in zip(files, infos))
    return CorpusInfo(name, hashlib.sha256(body.encode()).hexdigest(), documents, characters)


# ---------------------------------------------------------------------------- counts files

#: Parquet metadata key of the corpus identity in a counts file written here.
COUNTS_META_KEY = b"sgpe.corpus_info"


def write_counts_table(path: str | Path, counts: Counter[str], info: CorpusInfo) -> None:
    """Write piece counts as parquet (columns ``piece`` string, ``count`` int64, in the
    counts' order), atomically; the corpus identity goes into the file's metadata."""
    import dataclasses
    import json
    import tempfile

    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise CorpusError(
            "writing counts needs pyarrow: pip install 'sgpe-explorer[parquet]'"
        ) from None
    path = Path(path)
    table = pa.table(
        {
            "piece": pa.array(list(counts), pa.string()),
            "count": pa.array(list(counts.values()), pa.int64()),
        }
    )
    meta = json.dumps(dataclasses.asdict(info), ensure_ascii=False).encode()
    table = table.replace_schema_metadata({COUNTS_META_KEY: meta})
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        pq.write_table(table, tmp)
        os.replace(tmp, path)
    except BaseException:
        with _suppress_missing():
            os.unlink(tmp)
        raise


def _suppress_missing() -> Any:
    import contextlib

    return contextlib.suppress(FileNotFoundError)


def read_counts_table(path: str | Path) -> tuple[Counter[str], CorpusInfo]:
    """Piece counts made by any engine (this module, Spark, DuckDB, ...): a parquet file,
    or a directory of parquet parts, with a string column ``piece`` and an integer column
    ``count``. A piece listed twice has its counts added. The identity is the one this
    module wrote, else the file's name and the sha256 of its bytes (documents unknown: 0).
    """
    import hashlib
    import json

    try:
        import pyarrow.compute as pc
        import pyarrow.dataset as ds
    except ImportError:
        raise CorpusError(
            "reading counts needs pyarrow: pip install 'sgpe-explorer[parquet]'"
        ) from None
    path = Path(path)
    if not path.exists():
        raise CorpusError(f"{path}: file not found")
    try:
        dataset = ds.dataset(path, format="parquet")
        schema = dataset.schema
    except Exception as err:
        raise CorpusError(f"{path}: not a readable parquet file or directory: {err}") from None
    names = schema.names
    if "piece" not in names or "count" not in names:
        raise CorpusError(
            f"{path}: needs columns 'piece' (string) and 'count' (integer), has "
            f"{', '.join(names[:10]) or 'none'}"
        )
    import pyarrow as pa

    if not pa.types.is_string(schema.field("piece").type) and not pa.types.is_large_string(
        schema.field("piece").type
    ):
        raise CorpusError(
            f"{path}: column 'piece' must hold strings, not {schema.field('piece').type}"
        )
    if not pa.types.is_integer(schema.field("count").type):
        raise CorpusError(
            f"{path}: column 'count' must hold integers, not {schema.field('count').type}"
        )
    counts: Counter[str] = Counter()
    row = 0
    for batch in dataset.to_batches(columns=["piece", "count"]):
        pieces, values = batch.column(0), batch.column(1)
        if pieces.null_count or values.null_count:
            raise CorpusError(
                f"{path}: rows {row + 1}-{row + batch.num_rows}: empty (null) piece or count"
            )
        if batch.num_rows and pc.min(values).as_py() < 1:
            raise CorpusError(f"{path}: rows {row + 1}-{row + batch.num_rows}: a count below 1")
        for p, c in zip(pieces.to_pylist(), values.to_pylist()):
            counts[p] += c
        row += batch.num_rows
    if not counts:
        raise CorpusError(f"{path}: no rows; it needs at least one piece")
    meta = (schema.metadata or {}).get(COUNTS_META_KEY)
    if meta is not None:
        try:
            return counts, CorpusInfo(**json.loads(meta))
        except (TypeError, ValueError):
            raise CorpusError(f"{path}: metadata {COUNTS_META_KEY.decode()} is malformed") from None
    digest = hashlib.sha256()
    for f in sorted(dataset.files):
        with open(f, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    return counts, CorpusInfo(path.name, digest.hexdigest(), 0, 0)

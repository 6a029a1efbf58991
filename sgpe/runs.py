"""Run directories (DESIGN.md §5): the files of one training run, the trainer that fills
them, and the reader that reports a run's true state from those files alone.

A run directory holds::

    config.json          settings the run was started with (RunConfig; enough to resume it)
    corpus.<ext>         the corpus copy the run trains on (original extension, e.g. .txt.gz)
    .lock                flock(2)-ed by the trainer while it works on the run
    status.json          state, phase, step, target, rate, ETA, heartbeat, pid, message
    word_counts.parquet  pieces and their counts, written once after counting
    checkpoint.json      merges so far (+ counts, checksum, config fingerprint)
    checkpoint.prev.json the checkpoint before that (fallback if the newest is damaged)
    merges/part-*.parquet  rows of the merges table, one part file per checkpoint
    merges.parquet       one row per merge (step, left, right, merged, count), when done
    vocab.json           the final vocabulary, when done
    train.log            what happened, in words

Every file is written atomically (temp file in the same directory + ``os.replace``), so
a reader (or a ``kill -9``) sees the old file or the new one, never half a file.
Without pyarrow the two tables are written as ``word_counts.json`` / ``merges/*.json`` /
``merges.json`` instead.

Resume (SGPE model): read ``config.json``, load the word counts (no recount), take the
newest *valid* checkpoint (strict parse, sha256 of its merges, config fingerprint) and
replay its merges; the trainer then continues exactly as an uninterrupted run, so the
resumed ``vocab.json`` is byte-identical. Byte-level BPE runs checkpoint too (each merge
as two token ids, since display strings are ambiguous): a resume reads the corpus again
(a few seconds; it keeps no word counts) and replays the checkpoint's merges without
searching for them, then continues, again to a byte-identical ``vocab.json``.

Test hooks (environment variables honoured by the trainer, for fault-injection tests
only): ``SGPE_TEST_FAIL_WRITE_AFTER=N`` makes every data-file write after the first N
(word counts, merge parts, checkpoints; never status.json) fail with ``ENOSPC``.

This module does not start or stop processes (that is :mod:`sgpe.jobs`) and does not parse
command lines (that is :mod:`sgpe.cli`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import fcntl
import hashlib
import io
import json
import math
import os
import secrets
import shutil
import signal
import sys
import threading
import time
import traceback
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any, Protocol

from .corpus import CorpusError, CorpusInfo, corpus_format, iter_documents
from .protocol import TOO_DEEP, one_line
from .tokenizer import dumps_json

# ============================================================================ constants

CONFIG = "config.json"
STATUS = "status.json"
LOCK = ".lock"
CHECKPOINT = "checkpoint.json"
CHECKPOINT_PREV = "checkpoint.prev.json"
CHECKPOINT_CORRUPT = "checkpoint.corrupt.json"
VOCAB = "vocab.json"
LOG = "train.log"
MERGE_PARTS = "merges"

CONFIG_FORMAT = "sgpe-run-config"
STATUS_FORMAT = "sgpe-run-status"
CHECKPOINT_FORMAT = "sgpe-checkpoint"
FORMAT_VERSION = 1

#: States of a run. ``interrupted`` is never written: the reader derives it.
STATES = ("queued", "counting", "merging", "done", "failed", "cancelled", "interrupted")
ACTIVE_STATES = frozenset({"counting", "merging"})
FINAL_STATES = frozenset({"done", "failed", "cancelled"})

MODELS = ("sgpe", "bytebpe")
DEFAULT_MIN_FREQ = {"sgpe": 1, "bytebpe": 1}  # sgpe paper mode: 2 (default_min_freq)


def min_freq_default(model: str, mode: str = "hierarchical") -> int:
    """The default ``min_freq`` of a run of this model (and SGPE training mode)."""
    if model == "sgpe":
        from .train import default_min_freq

        return default_min_freq(mode)
    return DEFAULT_MIN_FREQ.get(model, 1)


FAIL_WRITE_ENV = "SGPE_TEST_FAIL_WRITE_AFTER"
# How long a starting trainer waits for the run lock (a reader or the run manager may
# hold it for a moment).
LOCK_WAIT_SECONDS = 10.0
#: The longest checkpoint or heartbeat interval a run may ask for (one hour).
MAX_INTERVAL_SECONDS = 3600.0
#: A working trainer whose heartbeat is older than this many intervals is reported as
#: stalled (a SIGSTOPped or hung process still holds its lock, so the lock alone cannot
#: tell). Generous, because a busy shared machine delays the heartbeat thread.
STALL_INTERVALS = 10
#: ... but never sooner than this many seconds.
STALL_MIN_SECONDS = 3.0


class RunError(Exception):
    """A run directory cannot be used as asked; the message says why and what to do."""


# ============================================================================ config


@dataclass(frozen=True)
class RunConfig:
    """The settings a run was started with, stored as ``config.json``.

    ``corpus`` is the file name of the corpus copy inside the run directory;
    ``corpus_name`` is the original file name, recorded in ``vocab.json``.
    """

    model: str = "sgpe"
    vocab_size: int = 32_000
    mode: str = "hierarchical"
    prune_freq: int = 2
    min_freq: int = 2
    oov_policy: str = "fallback"
    script: str = "auto"
    pieces: str = "whitespace"
    leading_space: bool = True
    prepend_space: bool = True  # takes effect only with leading_space
    pattern: str = "o200k"
    checkpoint_every: int = 1000
    checkpoint_seconds: float = 5.0
    heartbeat_seconds: float = 1.0
    corpus: str = ""
    corpus_name: str = ""
    corpus_sha256: str = ""
    created: float = 0.0  # unix time; not part of the fingerprint

    def validate(self) -> None:
        """Raise ``ValueError`` naming the first bad setting."""
        if self.model not in MODELS:
            raise ValueError(f"model must be one of {', '.join(MODELS)}, got {self.model!r}")
        if self.model == "sgpe":
            self.train_settings()
        else:
            from .bytebpe import ByteBPETokenizer

            if self.vocab_size < 257:
                raise ValueError(
                    "vocab_size must be at least 257 for bytebpe (one token per byte and "
                    f"<|endoftext|>), got {self.vocab_size}"
                )
            if self.min_freq < 1:
                raise ValueError(f"min_freq must be >= 1, got {self.min_freq}")
            ByteBPETokenizer((), self.pattern)  # raises ValueError for a bad pattern
        if self.checkpoint_every < 1:
            raise ValueError(f"checkpoint_every must be >= 1, got {self.checkpoint_every}")
        for name in ("checkpoint_seconds", "heartbeat_seconds"):
            value = getattr(self, name)
            # inf or nan would make a trainer that never checkpoints, or a heartbeat that
            # never goes stale (a hung trainer would look healthy forever).
            if not (math.isfinite(value) and 0 < value <= MAX_INTERVAL_SECONDS):
                raise ValueError(
                    f"{name} must be a number of seconds in (0, {MAX_INTERVAL_SECONDS:g}], "
                    f"got {value!r}"
                )

    def train_settings(self) -> Any:
        """The :class:`sgpe.train.TrainSettings` of an SGPE run."""
        from .train import TrainSettings

        return TrainSettings(
            vocab_size=self.vocab_size,
            mode=self.mode,  # type: ignore[arg-type]
            prune_freq=self.prune_freq,
            min_freq=self.min_freq,
            leading_space=self.leading_space,
            prepend_space=self.prepend_space and self.leading_space,
            oov_policy=self.oov_policy,  # type: ignore[arg-type]
            script=self.script,
            pieces=self.pieces,
        )

    def fingerprint(self) -> str:
        """sha256 of everything that determines the result (settings + corpus identity);
        checkpoints and word counts carry it so that they are never mixed across runs."""
        if self.model == "sgpe":
            keys = ["vocab_size", "prune_freq", "min_freq", "oov_policy", "script", "pieces"]
            keys += ["leading_space", "prepend_space"]
            if self.mode != "paper":
                keys.append("mode")  # so that runs made before the modes keep their fingerprint
        else:
            keys = ["vocab_size", "min_freq", "pattern"]
        data = {k: getattr(self, k) for k in ["model", *keys, "corpus_name", "corpus_sha256"]}
        data["format_version"] = FORMAT_VERSION
        return hashlib.sha256(_canonical(data)).hexdigest()

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": CONFIG_FORMAT,
            "format_version": FORMAT_VERSION,
            **dataclasses.asdict(self),
        }

    @classmethod
    def from_dict(cls, data: Any, source: str = CONFIG) -> RunConfig:
        if not isinstance(data, dict) or data.get("format") != CONFIG_FORMAT:
            raise RunError(
                f"{source}: not a run configuration (key 'format' must be {CONFIG_FORMAT!r})"
            )
        if data.get("format_version") != FORMAT_VERSION:
            raise RunError(
                f"{source}: key 'format_version' is {data.get('format_version')!r}; this version "
                f"of sgpe reads {FORMAT_VERSION}"
            )
        kwargs: dict[str, Any] = {}
        if data.get("model", "sgpe") == "sgpe" and "mode" not in data:
            kwargs["mode"] = "paper"  # written before the hierarchical mode existed
        for f in dataclasses.fields(cls):
            if f.name in data:
                value = data[f.name]
                kind = type(getattr(cls(), f.name))
                if kind is float and isinstance(value, int) and not isinstance(value, bool):
                    value = float(value)
                if type(value) is not kind:
                    raise RunError(
                        f"{source}: key {f.name!r} must be a {kind.__name__}, got {value!r}"
                    )
                kwargs[f.name] = value
        config = cls(**kwargs)
        try:
            config.validate()
        except ValueError as err:
            raise RunError(f"{source}: {err}; start a new run") from None
        return config


def read_config(run_dir: str | Path) -> RunConfig:
    """The :class:`RunConfig` of a run directory, or :class:`RunError` if it has none."""
    path = Path(run_dir) / CONFIG
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RunError(f"{run_dir}: no {CONFIG}; this is not a run directory") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise RunError(f"{path}: unreadable ({one_line(err)}); start a new run") from None
    except RecursionError:
        raise RunError(f"{path}: {TOO_DEEP}") from None
    return RunConfig.from_dict(data, str(path))


# ============================================================================ file helpers


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


def atomic_write(
    path: Path, data: bytes, *, keep_previous: Path | None = None, sync: bool = True
) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the new one.

    With ``keep_previous`` the old file is first moved there (the new file is complete and
    synced before anything is renamed, so at every moment one of the two is valid).
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
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
        if isinstance(err, OSError) and not err.filename:
            raise OSError(err.errno, err.strerror, str(path)) from err  # name the file
        raise


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
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


def encode_table(columns: dict[str, list[Any]], meta: dict[str, Any], parquet: bool) -> bytes:
    """A small column table as Parquet bytes (with ``meta`` in the schema metadata under
    ``sgpe``), or as JSON ``{"meta": ..., "columns": ...}`` when ``parquet`` is false."""
    if parquet:
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.table(columns).replace_schema_metadata({"sgpe": json.dumps(meta)})
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink)
        return bytes(sink.getvalue().to_pybytes())
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


# ============================================================================ word counts


def read_word_counts(run_dir: Path, fingerprint: str) -> tuple[Counter[str], CorpusInfo]:
    """The saved piece counts and corpus identity; ``ValueError`` if missing, damaged or
    made with other settings."""
    path = _find_table(run_dir, "word_counts")
    if path is None:
        raise ValueError("no word_counts file")
    columns, meta = decode_table(path)
    if meta.get("fingerprint") != fingerprint:
        raise ValueError(f"{path} belongs to other settings or another corpus")
    pieces, counts = columns.get("piece"), columns.get("count")
    info = meta.get("corpus_info")
    if not (isinstance(pieces, list) and isinstance(counts, list) and len(pieces) == len(counts)):
        raise ValueError(f"{path}: columns 'piece' and 'count' are missing or differ in length")
    if not isinstance(info, dict) or meta.get("pieces") != len(pieces):
        raise ValueError(f"{path}: metadata is incomplete")
    # A damaged file can still decode (a flipped bit inside a count): the checksum written
    # with the table is what tells a true count from a changed one.
    if meta.get("sha256") != _counts_sha256(pieces, counts):
        raise ValueError(f"{path}: sha256 of its pieces and counts does not match (damaged)")
    try:
        return Counter(dict(zip(pieces, counts))), CorpusInfo(**info)
    except TypeError as err:
        raise ValueError(f"{path}: metadata 'corpus_info' is malformed ({err})") from None


def _counts_sha256(pieces: Sequence[Any], counts: Sequence[Any]) -> str:
    return hashlib.sha256(_canonical([list(pieces), list(counts)])).hexdigest()


def write_word_counts(
    run_dir: Path, counts: Counter[str], info: CorpusInfo, fingerprint: str, writes: _Writes
) -> Path:
    parquet = _have_pyarrow()
    path = run_dir / f"word_counts{_table_suffix(parquet)}"
    pieces, values = list(counts), list(counts.values())
    meta = {
        "fingerprint": fingerprint,
        "corpus_info": dataclasses.asdict(info),
        "pieces": len(counts),
        "sha256": _counts_sha256(pieces, values),
    }
    data = encode_table({"piece": pieces, "count": values}, meta, parquet)
    writes.check(path)
    atomic_write(path, data)
    return path


# ============================================================================ checkpoints


@dataclass(frozen=True)
class Checkpoint:
    """Merges learned so far, as string pairs, with each merge's pair count."""

    step: int
    target: int
    merges: list[tuple[str, str]]
    counts: list[int]
    fingerprint: str
    source: str = CHECKPOINT

    @staticmethod
    def _body(merges: Sequence[tuple[str, str]], counts: Sequence[int]) -> str:
        """The checksummed part of the file: ``[merges, counts]`` as compact JSON."""
        return json.dumps([merges, counts], ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def checksum(cls, merges: Sequence[tuple[str, str]], counts: Sequence[int]) -> str:
        return hashlib.sha256(cls._body(merges, counts).encode("utf-8")).hexdigest()

    def to_bytes(self) -> bytes:
        """The file: one JSON object whose ``data`` is ``[merges, counts]``, serialized
        once with the C encoder for both the file and its checksum (a checkpoint is written
        every few hundred milliseconds; 30,000 merges take about 10 ms)."""
        body = self._body(self.merges, self.counts)
        head = {
            "format": CHECKPOINT_FORMAT,
            "format_version": FORMAT_VERSION,
            "fingerprint": self.fingerprint,
            "step": self.step,
            "target": self.target,
            "written": time.time(),
            "sha256": hashlib.sha256(body.encode("utf-8")).hexdigest(),
        }
        return (json.dumps(head, ensure_ascii=False)[:-1] + ', "data": ' + body + "}\n").encode()

    @classmethod
    def parse(cls, raw: bytes, fingerprint: str, source: str) -> Checkpoint:
        """Strictly parse a checkpoint file; ``ValueError`` says what is wrong."""
        try:
            data = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError as err:
            if err.reason == "unexpected end of data":
                raise ValueError(
                    f"truncated (ends inside a character at byte {err.start})"
                ) from None
            raise ValueError(f"not UTF-8 ({err.reason} at byte {err.start})") from None
        except json.JSONDecodeError as err:
            raise ValueError(f"not valid JSON ({err.msg} at byte {err.pos}) — truncated?") from None
        except RecursionError:
            raise ValueError(TOO_DEEP) from None
        if not isinstance(data, dict) or data.get("format") != CHECKPOINT_FORMAT:
            raise ValueError(f"key 'format' is not {CHECKPOINT_FORMAT!r}")
        if data.get("format_version") != FORMAT_VERSION:
            raise ValueError(f"unknown format_version {data.get('format_version')!r}")
        if data.get("fingerprint") != fingerprint:
            raise ValueError("it belongs to other settings or another corpus (fingerprint differs)")
        body, step = data.get("data"), data.get("step")
        if not (isinstance(body, list) and len(body) == 2 and type(step) is int):
            raise ValueError("keys 'data' ([merges, counts]) and 'step' are missing or mistyped")
        merges, counts = body
        if not (isinstance(merges, list) and isinstance(counts, list)):
            raise ValueError("key 'data' must hold [merges, counts]")
        pairs: list[tuple[str, str]] = []
        for k, m in enumerate(merges):
            if not (isinstance(m, list) and len(m) == 2 and all(isinstance(x, str) for x in m)):
                raise ValueError(f"merge {k + 1} is not a [left, right] pair of strings")
            pairs.append((m[0], m[1]))
        if len(pairs) != step or len(counts) != step or not all(type(c) is int for c in counts):
            raise ValueError(
                f"'step' is {step} but it holds {len(pairs)} merges / {len(counts)} counts"
            )
        if data.get("sha256") != cls.checksum(pairs, counts):
            raise ValueError("sha256 of its merges does not match (damaged)")
        target = data.get("target")
        return cls(
            step, target if type(target) is int else 0, pairs, list(counts), fingerprint, source
        )


@dataclass
class CheckpointChoice:
    """The checkpoint a resume uses (``None``: start the merges from step 0) and what was
    wrong with the others."""

    checkpoint: Checkpoint | None
    notes: list[str] = field(default_factory=list)
    corrupt: list[str] = field(default_factory=list)


def pick_checkpoint(run_dir: str | Path, fingerprint: str) -> CheckpointChoice:
    """The newest valid checkpoint of a run; damaged ones are named in ``notes``."""
    run_dir = Path(run_dir)
    choice = CheckpointChoice(None)
    valid: list[Checkpoint] = []
    for name in (CHECKPOINT, CHECKPOINT_PREV):
        path = run_dir / name
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            continue
        try:
            valid.append(Checkpoint.parse(raw, fingerprint, name))
        except ValueError as err:
            choice.corrupt.append(name)
            choice.notes.append(f"{name} is unusable: {err}")
    if valid:
        best = max(valid, key=lambda c: c.step)
        choice.checkpoint = best
        if choice.corrupt:
            choice.notes.append(f"resuming from {best.source} (step {best.step}) instead")
    elif choice.corrupt:
        choice.notes.append("no valid checkpoint: the merges start again from step 0")
    return choice


# ============================================================================ merges table


def _merge_columns(
    merges: Sequence[tuple[str, str]], counts: Sequence[int], first: int, last: int
) -> dict[str, list[Any]]:
    """Rows ``first..last`` (1-based steps, inclusive) of the merges table."""
    rows = merges[first - 1 : last]
    return {
        "step": list(range(first, last + 1)),
        "left": [a for a, _ in rows],
        "right": [b for _, b in rows],
        "merged": [a + b for a, b in rows],
        "count": list(counts[first - 1 : last]),
    }


def _part_range(path: Path) -> tuple[int, int] | None:
    parts = path.stem.split("-")
    if len(parts) == 3 and parts[0] == "part" and parts[1].isdigit() and parts[2].isdigit():
        return int(parts[1]), int(parts[2])
    return None


def _parts(run_dir: Path) -> list[tuple[int, int, Path]]:
    folder = run_dir / MERGE_PARTS
    if not folder.is_dir():
        return []
    out = []
    for p in folder.iterdir():
        r = _part_range(p)
        if r is not None and p.suffix in (".parquet", ".json"):
            out.append((r[0], r[1], p))
    return sorted(out)


def read_merges(run_dir: str | Path) -> dict[str, list[Any]]:
    """The merges table of a run so far (columns step, left, right, merged, count): the
    final ``merges.parquet`` when done, else the part files written at checkpoints.
    A damaged file raises ``ValueError`` naming it."""
    run_dir = Path(run_dir)
    final = _find_table(run_dir, "merges")
    if final is not None:
        return _merge_table(final)
    out: dict[str, list[Any]] = {k: [] for k in MERGE_COLUMNS}
    expected = 1
    for first, last, path in _parts(run_dir):
        if first != expected:
            break  # a gap (a part being replaced during a resume): stop at what is contiguous
        columns = _merge_table(path)
        for k in out:
            out[k].extend(columns[k])
        expected = last + 1
    return out


MERGE_COLUMNS = ("step", "left", "right", "merged", "count")


def _merge_table(path: Path) -> dict[str, list[Any]]:
    columns, _ = decode_table(path)
    lengths = {len(v) for k, v in columns.items() if k in MERGE_COLUMNS and isinstance(v, list)}
    if not all(isinstance(columns.get(k), list) for k in MERGE_COLUMNS) or len(lengths) != 1:
        raise ValueError(
            f"{path}: expected columns {', '.join(MERGE_COLUMNS)} of equal length (damaged)"
        )
    return {k: columns[k] for k in MERGE_COLUMNS}


# ============================================================================ status


@dataclass(frozen=True)
class RunStatus:
    """A run's state as a reader sees it (``status.json`` plus liveness of the trainer)."""

    state: str
    phase: str = ""
    step: int = 0
    target: int = 0
    merges_per_s: float | None = None
    eta_s: float | None = None
    heartbeat: float | None = None
    heartbeat_age_s: float | None = None
    pid: int | None = None
    message: str = ""
    started: float | None = None
    updated: float | None = None
    checkpoint_step: int = 0
    alive: bool = False
    #: the trainer exists but is not working: stopped (SIGSTOP, Ctrl-Z) or its heartbeat
    #: is long overdue; ``message`` says how to continue or cancel it
    stalled: bool = False
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def fraction(self) -> float:
        """Progress of the merges, 0..1 (1 when done)."""
        if self.state == "done":
            return 1.0
        return min(1.0, self.step / self.target) if self.target > 0 else 0.0


def _read_status_file(run_dir: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((run_dir / STATUS).read_text(encoding="utf-8"))
    except (FileNotFoundError, UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def pid_alive(pid: int | None) -> bool:
    """True if process ``pid`` exists and is not a zombie."""
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def pid_stopped(pid: int | None) -> bool:
    """True if process ``pid`` is stopped (state T or t in ``/proc/<pid>/stat``)."""
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] in ("T", "t")
    except (OSError, IndexError):
        return False


def _finite(value: Any) -> float | None:
    """A JSON number as a float, or None for anything else (bool, inf, nan, text):
    status.json is written by other processes and may be damaged."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def _whole(value: Any) -> int:
    """A step count from status.json: a non-negative int, else 0 (damaged or absent)."""
    return value if type(value) is int and value >= 0 else 0


def lock_held(run_dir: Path) -> bool | None:
    """Whether some process holds the run's lock (None: the run has no lock file)."""
    try:
        fd = os.open(run_dir / LOCK, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing releases a lock we took
    return False


def read_status(run_dir: str | Path) -> RunStatus:
    """The state of a run, from its files alone (any process can call this).

    A run whose status says ``counting``/``merging`` but whose trainer is gone is reported
    ``interrupted``. The trainer holds an ``flock`` on ``.lock`` while it works, so "gone"
    is exact (no pid reuse, no zombie confusion); for a run without a lock file, the rule is
    a heartbeat older than 3 x its interval and a pid that no longer exists.

    A trainer that holds the lock but does not work is reported ``stalled`` (its state stays
    ``counting``/``merging``): stopped, per ``/proc/<pid>/stat``, or a heartbeat older than
    ``STALL_INTERVALS`` intervals. A heartbeat that is not a finite number counts as none.
    """
    run_dir = Path(run_dir)
    data = _read_status_file(run_dir)
    if data is None:
        if not (run_dir / CONFIG).exists():
            raise RunError(f"{run_dir}: not a run directory (no {CONFIG} or {STATUS})")
        data = {"state": "queued", "phase": "prepared"}
    state = str(data.get("state", "queued"))
    now = time.time()
    heartbeat = _finite(data.get("heartbeat"))
    age = now - heartbeat if heartbeat is not None else None
    pid = data.get("pid") if type(data.get("pid")) is int else None
    alive = stalled = False
    message = str(data.get("message", ""))
    interval = _finite(data.get("heartbeat_interval_s")) or 1.0
    if not 0 < interval <= MAX_INTERVAL_SECONDS:
        interval = 1.0
    if state in ACTIVE_STATES:
        held = lock_held(run_dir)
        if held is None:
            alive = pid_alive(pid) or (age is not None and 0 <= age <= 3 * interval)
        else:
            alive = held
        limit = max(STALL_INTERVALS * interval, STALL_MIN_SECONDS)
        overdue = age is None or not -limit <= age <= limit  # a heartbeat from the future too
        if alive and pid_stopped(pid):
            stalled = True
            message = (
                f"the trainer (pid {pid}) is stopped (SIGSTOP or Ctrl-Z): `kill -CONT {pid}` "
                "continues it; Cancel stops it with a checkpoint"
            )
        elif alive and overdue:
            stalled = True
            ago = f"for {age:.0f} s" if age is not None else "at all"
            message = (
                f"the trainer (pid {pid}) has not written a heartbeat {ago} (every {interval:g} s "
                "expected): it is hung or the machine is overloaded; wait, or cancel it and resume"
            )
        if not alive:
            # The trainer writes its final status before it exits: re-read, so that a run
            # that finished between our two reads is not misreported.
            again = _read_status_file(run_dir) or data
            if again.get("state") in ACTIVE_STATES:
                state = "interrupted"
                ago = f"{age:.0f} s ago" if age is not None else "at an unknown time"
                message = (
                    f"the trainer (pid {pid}) stopped without finishing (last heartbeat {ago}, "
                    f"during {data.get('phase') or state} at step {data.get('step', 0)}); "
                    "resume to continue from its last checkpoint"
                )
            else:
                return read_status(run_dir)
    elif state == "queued" and data.get("phase") == "launching":
        alive = pid_alive(pid) or bool(lock_held(run_dir))
        if not alive and (_read_status_file(run_dir) or {}).get("phase") == "launching":
            state = "interrupted"
            message = f"the trainer (pid {pid}) exited before it started; see {LOG}"

    def num(key: str) -> float | None:
        return _finite(data.get(key))

    return RunStatus(
        state=state,
        phase=str(data.get("phase", "")),
        step=_whole(data.get("step")),
        target=_whole(data.get("target")),
        merges_per_s=num("merges_per_s"),
        eta_s=num("eta_s"),
        heartbeat=num("heartbeat"),
        heartbeat_age_s=age,
        pid=pid,
        message=message,
        started=num("started"),
        updated=num("updated"),
        checkpoint_step=_whole(data.get("checkpoint_step")),
        alive=alive,
        stalled=stalled,
        raw=data,
    )


def write_status(run_dir: Path, data: dict[str, Any]) -> None:
    """Rewrite ``status.json`` atomically (used by the trainer and the run manager)."""
    data = {"format": STATUS_FORMAT, **data, "updated": time.time()}
    atomic_write(run_dir / STATUS, json.dumps(data, ensure_ascii=False, indent=1).encode("utf-8"))


class _StatusFile:
    """``status.json`` of a working trainer: phase changes are written at once by the main
    thread; a heartbeat thread rewrites it every ``interval`` seconds with the latest
    step, rate and ETA. After :meth:`final` nothing else is written."""

    def __init__(self, run_dir: Path, interval: float, base: dict[str, Any]) -> None:
        self.run_dir = run_dir
        self.interval = interval
        self.lock = threading.Lock()
        self.data: dict[str, Any] = {
            "state": "counting",
            "phase": "starting",
            "step": 0,
            "target": 0,
            "merges_per_s": None,
            "eta_s": None,
            "heartbeat": time.time(),
            "heartbeat_interval_s": interval,
            "pid": os.getpid(),
            "message": "",
            "started": time.time(),
            "checkpoint_step": 0,
            **base,
        }
        self.step = 0  # updated by the main thread on every merge (no lock: an int store)
        self.rate_from: tuple[float, int] | None = None  # (time, step) when merging started
        self.error: OSError | None = None
        self._final = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat_loop, name="sgpe-heartbeat", daemon=True)

    def start(self) -> None:
        self.update()
        self._thread.start()

    def _snapshot(self) -> None:
        now = time.time()
        d = self.data
        d["heartbeat"] = now
        d["step"] = self.step
        if self.rate_from is not None and d["state"] == "merging":
            t0, s0 = self.rate_from
            if now - t0 > 0.05 and self.step > s0:
                rate = (self.step - s0) / (now - t0)
                d["merges_per_s"] = round(rate, 1)
                d["eta_s"] = round(max(0, d["target"] - self.step) / rate, 1)

    def update(self, **fields: Any) -> None:
        """Change fields and write now (raises OSError if the write fails)."""
        with self.lock:
            if self._final:
                return
            self.data.update(fields)
            self._snapshot()
            write_status(self.run_dir, self.data)

    def final(self, **fields: Any) -> None:
        """Write the last status; the heartbeat stops first so it cannot overwrite it."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        with self.lock:
            self.data.update(fields)
            self._snapshot()
            self.data["eta_s"] = None
            self._final = True
            write_status(self.run_dir, self.data)

    def _beat_loop(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.update()
            except OSError as err:
                self.error = err
                return


# ============================================================================ preparing a run


def copy_corpus(src: Path, run_dir: Path) -> tuple[str, str]:
    """Copy a corpus into ``run_dir`` as ``corpus.<ext>``; return (file name, sha256)."""
    name = "corpus" + corpus_format(src)
    digest = hashlib.sha256()
    dst = run_dir / name
    tmp = run_dir / f".{name}.tmp"
    with open(src, "rb") as fin, open(tmp, "wb") as fout:
        while block := fin.read(1 << 20):
            digest.update(block)
            fout.write(block)
        fout.flush()
        os.fsync(fout.fileno())
    os.replace(tmp, dst)
    return name, digest.hexdigest()


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def init_run_dir(run_dir: Path, config: RunConfig, *, phase: str = "prepared") -> None:
    """Write ``config.json``, the lock file and a ``queued`` status into a directory that
    already holds the corpus copy named by ``config.corpus``."""
    (run_dir / LOCK).touch()
    atomic_write(run_dir / CONFIG, dumps_json(config.to_dict()).encode("utf-8"))
    write_status(
        run_dir,
        {
            "state": "queued",
            "phase": phase,
            "step": 0,
            "target": 0,
            "pid": None,
            "message": "",
            "queued_at": time.time(),
            "heartbeat": None,
        },
    )


INCOMING_PREFIX = ".incoming-"


def staging_dir(parent: Path, label: str = "") -> Path:
    """A new hidden directory in ``parent`` where a run is assembled before it is renamed
    into place, named with this process's id so that :func:`remove_stale_staging` can tell
    an abandoned one (its creator was killed during intake) from one being filled now."""
    path = parent / f"{INCOMING_PREFIX}{label}{os.getpid()}-{secrets.token_hex(4)}"
    path.mkdir(parents=True)
    return path


def remove_stale_staging(parent: Path) -> list[Path]:
    """Delete staging directories in ``parent`` whose creating process is gone; return them."""
    removed: list[Path] = []
    if not parent.is_dir():
        return removed
    for p in parent.glob(f"{INCOMING_PREFIX}*"):
        pid = p.name.rsplit("-", 2)[-2] if p.name.count("-") >= 2 else ""
        if p.is_dir() and pid.isdigit() and not pid_alive(int(pid)):
            shutil.rmtree(p, ignore_errors=True)
            removed.append(p)
    return removed


def create_run(run_dir: Path, config: RunConfig, corpus: Path) -> RunConfig:
    """Create a new run directory from a corpus file (copied in); returns the config with
    the corpus fields filled in.

    The run is assembled in a hidden staging directory next to ``run_dir`` and renamed
    into place only when complete, so a failure or a kill during intake never leaves a
    half-made run directory (a killed intake's staging directory is removed by the next
    :func:`create_run` in the same parent).
    """
    if run_dir.exists() and (not run_dir.is_dir() or any(run_dir.iterdir())):
        raise RunError(
            f"{run_dir} is not empty; use --resume to continue the run in it, or choose a new --out"
        )
    parent = run_dir.absolute().parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        remove_stale_staging(parent)
        staging = staging_dir(parent, run_dir.name + "-")
    except OSError as err:
        raise OSError(
            err.errno, f"cannot create the run directory: {err.strerror}", str(parent)
        ) from err
    try:
        try:
            name, sha = copy_corpus(corpus, staging)
            config = dataclasses.replace(
                config,
                corpus=name,
                corpus_name=config.corpus_name or corpus.name,
                corpus_sha256=sha,
                created=time.time(),
            )
            init_run_dir(staging, config)
            os.rename(staging, run_dir)  # also replaces an empty run_dir
        except OSError as err:
            where = err.filename or run_dir
            raise OSError(
                err.errno, f"cannot create the run directory: {err.strerror}", str(where)
            ) from err
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return config


@contextlib.contextmanager
def run_lock(run_dir: Path, wait: float = LOCK_WAIT_SECONDS) -> Iterator[int]:
    """Hold the run's exclusive lock (waiting up to ``wait`` seconds for it)."""
    fd = os.open(run_dir / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    data = _read_status_file(run_dir) or {}
                    raise RunError(
                        f"{run_dir}: another process is working on this run "
                        f"(pid {data.get('pid')}, state {data.get('state')}); cancel it first"
                    ) from None
                time.sleep(0.05)
        yield fd
    finally:
        os.close(fd)


# ============================================================================ the trainer


class Display(Protocol):
    """Where the trainer reports to (the CLI's progress bar or log lines)."""

    def note(self, message: str) -> None: ...

    def progress(self, phase: str, step: int, target: int, rate: float | None) -> None: ...


@dataclass(frozen=True)
class TrainResult:
    state: str  # done | cancelled | failed
    exit_code: int  # 0 done/cancelled by SIGTERM; 130 SIGINT; 2 input error; 1 other failure
    message: str
    unchanged: bool = False  # the run was already done; nothing was written


class _Cancelled(Exception):
    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class _InputError(Exception):
    """A failure caused by the run's input (corpus, settings): exit code 2."""


class _Log:
    """``train.log`` lines; also shown on the display (skipped when stderr *is* the log,
    as when the run manager redirects the trainer's output there)."""

    def __init__(self, run_dir: Path, display: Display | None) -> None:
        self.path = run_dir / LOG
        self.display = display
        self.to_file = not _stderr_is(self.path)

    def __call__(self, message: str, *, show: bool = True) -> None:
        """Log a line; ``show=False`` keeps it off the display (the CLI prints failures
        itself, as ``sgpe: error: ...``)."""
        line = f"{time.strftime('%Y-%m-%d %H:%M:%S')} {message}\n"
        if self.to_file or not show:
            with contextlib.suppress(OSError), open(self.path, "a", encoding="utf-8") as f:
                f.write(line)
        if show and self.display is not None:
            with contextlib.suppress(OSError, ValueError):
                self.display.note(message)


def _stderr_is(path: Path) -> bool:
    try:
        a, b = os.fstat(sys.stderr.fileno()), os.stat(path)
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


class Trainer:
    """Trains the run in ``run_dir`` in this process, keeping its files up to date.

    Use :func:`train_run`. Signals: SIGTERM/SIGINT finish the current merge, write a final
    checkpoint and end the run as ``cancelled``.
    """

    def __init__(self, run_dir: Path, config: RunConfig, display: Display | None) -> None:
        self.run_dir = run_dir
        self.config = config
        self.fingerprint = config.fingerprint()
        self.display = display
        self.log = _Log(run_dir, display)
        self.writes = _Writes()
        self.status = _StatusFile(
            run_dir, config.heartbeat_seconds, {"model": config.model, "run_id": run_dir.name}
        )
        self.stop_signal: int | None = None
        self.raise_on_signal = False
        # The merge list so far (checkpoint merges + one entry per progress event).
        self.merges: list[tuple[str, str]] = []
        self.counts: list[int] = []
        self.merge_ids: list[tuple[int, int]] = []  # bytebpe: the merges as token ids
        self.target = 0
        self.checkpoint_step = 0
        self.part_end = 0
        self.last_checkpoint = time.monotonic()
        self.last_display = 0.0

    # ------------------------------------------------------------------ signals
    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self.stop_signal = signum
        if self.raise_on_signal:
            raise _Cancelled(signum)

    @contextlib.contextmanager
    def _signals(self) -> Iterator[None]:
        saved: dict[signal.Signals, Any] = {}
        try:
            for sig in (signal.SIGTERM, signal.SIGINT):
                saved[sig] = signal.signal(sig, self._on_signal)
        except ValueError:  # not the main thread: no signal handling
            pass
        try:
            yield
        finally:
            for saved_sig, handler in saved.items():
                signal.signal(saved_sig, handler)

    def _check_stop(self) -> None:
        if self.stop_signal is not None:
            raise _Cancelled(self.stop_signal)
        if self.status.error is not None:
            raise self.status.error

    # ------------------------------------------------------------------ main
    def run(self, resume: bool) -> TrainResult:
        self.status.start()
        started = any((self.run_dir / n).exists() for n in (CHECKPOINT, CHECKPOINT_PREV))
        started = started or _find_table(self.run_dir, "word_counts") is not None
        what = "resuming" if resume and started else "starting"
        self.log(f"{what} run {self.run_dir.name}: {_describe(self.config)} (pid {os.getpid()})")
        try:
            with self._signals():
                if self.config.model == "bytebpe":
                    message = self._train_bytebpe(resume)
                else:
                    message = self._train_sgpe(resume)
        except _Cancelled as stop:
            return self._end_cancelled(stop)
        except (_InputError, CorpusError) as err:
            return self._end_failed(str(err), 2)
        except OSError as err:
            return self._end_failed(_os_message(err), 1)
        except Exception as err:
            self.log("internal error:\n" + traceback.format_exc().rstrip())
            return self._end_failed(f"internal error: {type(err).__name__}: {err}", 1)
        try:
            self.status.final(state="done", phase="done", step=len(self.merges), message=message)
        except OSError as err:
            return TrainResult("failed", 1, f"cannot write {STATUS}: {_os_message(err)}")
        self.log(message)
        return TrainResult("done", 0, message)

    def _end_cancelled(self, stop: _Cancelled) -> TrainResult:
        message = f"cancelled by {stop}"
        try:
            if self.status.data["state"] == "merging" and self.merges:
                self._write_checkpoint(final=True)
                message += f"; checkpoint at step {len(self.merges)}: resume to continue"
            else:
                message += "; resume to continue"
        except OSError as err:
            return self._end_failed(
                f"{message}, but the final checkpoint failed: {_os_message(err)}", 1
            )
        code = 130 if stop.signum == signal.SIGINT else 0
        try:
            self.status.final(state="cancelled", phase="cancelled", message=message)
        except OSError as err:
            return TrainResult(
                "failed", 1, f"cannot write {STATUS}: {_os_message(err)} ({message})"
            )
        self.log(message)
        return TrainResult("cancelled", code, message)

    def _end_failed(self, message: str, code: int) -> TrainResult:
        self.log(f"failed: {message}", show=False)
        try:
            self.status.final(state="failed", message=message)
        except OSError as err:
            return TrainResult(
                "failed", 1, f"cannot write {STATUS}: {_os_message(err)} ({message})"
            )
        return TrainResult("failed", code, message)

    # ------------------------------------------------------------------ SGPE
    def _corpus_path(self) -> Path:
        path = self.run_dir / self.config.corpus
        if not path.exists():
            raise _InputError(f"{path}: the run's corpus copy is missing; start a new run")
        return path

    def _train_sgpe(self, resume: bool) -> str:
        from .train import GPETrainer, ResumeError

        try:
            trainer = GPETrainer(self.config.train_settings())
        except ValueError as err:
            raise _InputError(str(err)) from None
        counts: Counter[str] | None = None
        info: CorpusInfo | None = None
        if resume:
            try:
                counts, info = read_word_counts(self.run_dir, self.fingerprint)
                self.log(f"loaded {len(counts):,} word counts (no recount)")
            except (ValueError, KeyError, TypeError) as err:
                if str(err) != "no word_counts file":
                    self.log(f"word counts unusable ({err}); counting again")
        if counts is None or info is None:
            counts, info = self._count(trainer)
        trainer.corpus_info = info
        self._check_stop()

        choice = (
            pick_checkpoint(self.run_dir, self.fingerprint) if resume else CheckpointChoice(None)
        )
        for note in choice.notes:
            self.log(note)
        for name in choice.corrupt:
            if name == CHECKPOINT:  # keep it for inspection; the next checkpoint takes its place
                with contextlib.suppress(OSError):
                    os.replace(self.run_dir / name, self.run_dir / CHECKPOINT_CORRUPT)
        ckpt = choice.checkpoint
        if ckpt is not None:
            self.merges, self.counts = list(ckpt.merges), list(ckpt.counts)
            self.target = ckpt.target
            self.checkpoint_step = ckpt.step
            if not choice.corrupt:
                self.log(f"resuming from {ckpt.source} at step {ckpt.step}")
        self._sync_parts()
        message = "; ".join(choice.notes)
        self.status.step = len(self.merges)
        self.status.update(
            state="merging",
            phase="preparing",
            checkpoint_step=self.checkpoint_step,
            target=self.target,
            message=message,
        )
        self._check_stop()
        try:
            tok = trainer.fit(
                counts,
                progress=self._on_merge,
                resume_merges=list(self.merges[: self.checkpoint_step]),
            )
        except ResumeError as err:
            raise _InputError(f"cannot resume: {err}") from None
        except ValueError as err:  # e.g. vocab_size below the base vocabulary
            raise _InputError(str(err)) from None
        if [tuple(m) for m in tok.merges] != self.merges:
            raise RuntimeError("the trainer's merges differ from the ones recorded in this run")
        self._check_stop()
        self.status.update(phase="writing")
        self._write_checkpoint(final=True)
        self._write_final_merges()
        tok.save(self.run_dir / VOCAB)
        done = f"done: {VOCAB} with {tok.vocab_size:,} tokens ({len(self.merges):,} merges)"
        return f"{done}; {message}" if message else done

    def _count(self, trainer: Any) -> tuple[Counter[str], CorpusInfo]:
        path = self._corpus_path()
        if self.config.corpus_sha256 and file_sha256(path) != self.config.corpus_sha256:
            raise _InputError(
                f"{path}: the corpus copy changed since the run started; start a new run"
            )
        self.status.update(state="counting", phase="counting")
        self.log(f"counting pieces of {self.config.corpus_name or path.name}")
        self._show("counting", 0, 0, None)
        self.raise_on_signal = True
        try:
            self._check_stop()
            counts: Counter[str] = trainer.count(path)
        finally:
            self.raise_on_signal = False
        info = trainer.corpus_info
        info = CorpusInfo(
            self.config.corpus_name or info.name, info.sha256, info.documents, info.characters
        )
        write_word_counts(self.run_dir, counts, info, self.fingerprint, self.writes)
        self.log(f"counted {len(counts):,} unique pieces in {info.documents:,} lines")
        return counts, info

    def _on_merge(self, event: Any) -> None:
        step = len(self.merges) + 1
        if event.step != step:
            raise RuntimeError(f"progress step {event.step} but {step - 1} merges recorded")
        self.merges.append(event.pair)
        self.counts.append(event.count)
        self.status.step = step
        now = time.monotonic()
        if self.status.rate_from is None:
            if not self.target:
                self.target = event.target
            self.status.rate_from = (time.time(), step - 1)
            self.status.update(phase="merging", target=self.target)
        self._after_merge(step, now)

    def _after_merge(self, step: int, now: float) -> None:
        """After each recorded merge (both models): checkpoint when due, stop if asked to,
        show progress at most ten times a second."""
        cfg = self.config
        if (
            step - self.checkpoint_step >= cfg.checkpoint_every
            or now - self.last_checkpoint >= cfg.checkpoint_seconds
        ):
            self._write_checkpoint()
        if self.stop_signal is not None or self.status.error is not None:
            self._check_stop()
        if now - self.last_display >= 0.1:
            self.last_display = now
            self._show("merging", step, self.target, _rate(self.status))

    def _show(self, phase: str, step: int, target: int, rate: float | None) -> None:
        if self.display is not None:
            with contextlib.suppress(OSError, ValueError):
                self.display.progress(phase, step, target, rate)

    # ------------------------------------------------------------------ checkpoint files
    def _sync_parts(self) -> None:
        """Make ``merges/`` hold exactly the rows 1..checkpoint step (a resume may come
        from an older checkpoint than the newest part, or find a gap)."""
        _remove_temp_files(self.run_dir)
        _remove_temp_files(self.run_dir / MERGE_PARTS)
        end = 0
        for first, last, path in _parts(self.run_dir):
            if first == end + 1 and last <= self.checkpoint_step:
                end = last
            else:
                path.unlink()
        self.part_end = end
        if end < self.checkpoint_step:
            self._write_part(self.checkpoint_step)

    def _write_part(self, last: int) -> None:
        first = self.part_end + 1
        if last < first:
            return
        parquet = _have_pyarrow()
        folder = self.run_dir / MERGE_PARTS
        folder.mkdir(exist_ok=True)
        path = folder / f"part-{first:08d}-{last:08d}{_table_suffix(parquet)}"
        data = encode_table(_merge_columns(self.merges, self.counts, first, last), {}, parquet)
        self.writes.check(path)
        atomic_write(path, data, sync=False)
        self.part_end = last

    def _write_checkpoint(self, final: bool = False) -> None:
        step = len(self.merges)
        if step == self.checkpoint_step and (self.run_dir / CHECKPOINT).exists():
            return
        self._write_part(step)
        merges = self.merges
        if self.config.model == "bytebpe":  # ids, not display strings (those are ambiguous)
            merges = [(str(a), str(b)) for a, b in self.merge_ids]
        ckpt = Checkpoint(step, self.target, merges, self.counts, self.fingerprint)
        path = self.run_dir / CHECKPOINT
        self.writes.check(path)
        atomic_write(path, ckpt.to_bytes(), keep_previous=self.run_dir / CHECKPOINT_PREV)
        self.checkpoint_step = step
        self.last_checkpoint = time.monotonic()
        self.status.data["checkpoint_step"] = step

    def _write_final_merges(self) -> None:
        parquet = _have_pyarrow()
        path = self.run_dir / f"merges{_table_suffix(parquet)}"
        data = encode_table(
            _merge_columns(self.merges, self.counts, 1, len(self.merges)), {}, parquet
        )
        self.writes.check(path)
        atomic_write(path, data)
        shutil.rmtree(self.run_dir / MERGE_PARTS, ignore_errors=True)

    # ------------------------------------------------------------------ byte-level BPE
    def _train_bytebpe(self, resume: bool) -> str:
        from .bytebpe import ByteBPETokenizer, ResumeMismatch
        from .protocol import display_bytes

        cfg = self.config
        path = self._corpus_path()
        self.target = cfg.vocab_size - 257
        replay: list[tuple[int, int]] = []
        if resume:
            choice = pick_checkpoint(self.run_dir, self.fingerprint)
            for note in choice.notes:
                self.log(note)
            ckpt = choice.checkpoint
            if ckpt is not None:
                try:  # a byte-level checkpoint records each merge as two decimal token ids
                    replay = [(int(a), int(b)) for a, b in ckpt.merges]
                    ByteBPETokenizer(replay, cfg.pattern)  # ids must refer to earlier tokens
                except ValueError as err:
                    raise _InputError(
                        f"{self.run_dir / ckpt.source}: not a byte-level checkpoint ({err}); "
                        "delete it to train again from the start"
                    ) from None
                self.merge_ids = list(replay)
                token_bytes = [bytes([i]) for i in range(256)]
                for a, b in replay:
                    token_bytes.append(token_bytes[a] + token_bytes[b])
                self.merges = [
                    (display_bytes(token_bytes[a]), display_bytes(token_bytes[b]))
                    for a, b in replay
                ]
                self.counts = list(ckpt.counts)
                self.checkpoint_step = ckpt.step
                self.log(f"resuming from {ckpt.source} at step {ckpt.step}")
            self._sync_parts()
        self.status.step = len(self.merges)
        self.status.update(
            state="counting",
            phase="counting",
            target=self.target,
            checkpoint_step=self.checkpoint_step,
        )
        self.log(f"training byte-level BPE on {cfg.corpus_name or path.name}")
        lines = 0

        def documents() -> Iterator[str]:
            nonlocal lines
            for doc in iter_documents(path):
                lines += 1
                if self.stop_signal is not None:
                    raise _Cancelled(self.stop_signal)
                yield doc

        def on_merge(step: int, left: int, right: int, count: int) -> None:
            if step <= len(replay):
                if count != self.counts[step - 1]:
                    raise _InputError(
                        f"cannot resume: merge {step} of the checkpoint has count "
                        f"{self.counts[step - 1]}, the corpus gives {count}; delete "
                        f"{CHECKPOINT} to train again from the start"
                    )
                return
            self.merge_ids.append((left, right))

        def progress(step: int, pair: tuple[str, str], count: int, elapsed: float) -> None:
            if self.status.rate_from is None:
                self.status.rate_from = (time.time(), len(replay))
                self.status.update(state="merging", phase="merging")
            if step <= len(replay):
                return
            self.merges.append(pair)
            self.counts.append(count)
            self.status.step = step
            self._after_merge(step, time.monotonic())

        self._show("counting", 0, 0, None)
        try:
            tok = ByteBPETokenizer.train(
                documents(),
                cfg.vocab_size,
                pattern=cfg.pattern,
                min_freq=cfg.min_freq,
                progress=progress,
                on_merge=on_merge,
                resume_merges=replay,
            )
        except ResumeMismatch as err:
            raise _InputError(
                f"cannot resume: {err}; delete {CHECKPOINT} to train again from the start"
            ) from None
        except (ValueError, TypeError) as err:
            raise _InputError(str(err)) from None
        if list(tok.merges) != self.merge_ids:
            raise RuntimeError("the trainer's merges differ from the ones recorded in this run")
        self.status.update(phase="writing")
        self._write_checkpoint(final=True)
        self._write_final_merges()
        training = {
            **tok.training,
            "corpus": cfg.corpus_name or path.name,
            "sha256": cfg.corpus_sha256,
            "lines": lines,
        }
        tok.save(self.run_dir / VOCAB, training=training)
        return f"done: {VOCAB} with {tok.vocab_size:,} tokens ({tok.num_merges:,} merges)"


def _rate(status: _StatusFile) -> float | None:
    if status.rate_from is None:
        return None
    t0, s0 = status.rate_from
    dt = time.time() - t0
    return (status.step - s0) / dt if dt > 0.05 else None


def _describe(config: RunConfig) -> str:
    if config.model == "bytebpe":
        return f"bytebpe vocab_size={config.vocab_size} min_freq={config.min_freq} pattern={config.pattern}"
    return (
        f"sgpe mode={config.mode} vocab_size={config.vocab_size} prune_freq={config.prune_freq} "
        f"min_freq={config.min_freq} oov={config.oov_policy} script={config.script} "
        f"pieces={config.pieces} leading_space={config.leading_space}"
    )


def _os_message(err: OSError) -> str:
    name = Path(err.filename).name if err.filename else ""
    text = f"[Errno {err.errno}] {err.strerror}" if err.errno else str(err)
    return f"writing {name} failed: {text}" if name else text


def train_run(
    run_dir: str | Path, *, resume: bool = False, display: Display | None = None
) -> TrainResult:
    """Train the run in ``run_dir`` in this process (the CLI's ``train`` calls this).

    The directory must hold ``config.json`` and the corpus copy (see :func:`create_run`).
    With ``resume`` the saved word counts and the newest valid checkpoint are reused.
    A run that is already done is left as it is.
    """
    run_dir = Path(run_dir)
    config = read_config(run_dir)
    running = read_status(run_dir)
    if running.state in ACTIVE_STATES and running.alive:
        raise RunError(
            f"{run_dir}: a trainer (pid {running.pid}) is working on this run "
            f"({running.state}, step {running.step}); cancel it first"
        )
    with run_lock(run_dir):
        current = _read_status_file(run_dir) or {}
        if current.get("state") == "done" and (run_dir / VOCAB).exists():
            return TrainResult(
                "done", 0, f"{run_dir} is already done ({VOCAB}); nothing to do", unchanged=True
            )
        return Trainer(run_dir, config, display).run(resume)

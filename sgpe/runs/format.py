"""Run directories: the files of one training run, the trainer that fills
them, and the reader that reports a run's true state from those files alone.

A run directory holds::

    config.json          settings the run was started with (RunConfig; enough to resume it),
                         the counting options, and the corpus by reference: its path(s)
                         and every file's size and sha256 (no copy of the corpus)
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

The corpus stays where it is (an upload of the app is stored once under the runs root,
``uploads/<sha256><ext>``). Every start and resume first checks the corpus files against
``config.json`` (:func:`verify_corpus`) and stops with one line naming the missing,
changed or added file. Run directories made by older versions hold a copy of the corpus
(``corpus.<ext>``, ``config.json`` layout 1); they are read and resumed as they are.

Resume (SGPE model): read ``config.json``, load the word counts (no recount), take the
newest *valid* checkpoint (strict parse, sha256 of its merges, config fingerprint) and
replay its merges; the trainer then continues exactly as an uninterrupted run, so the
resumed ``vocab.json`` is byte-identical. Byte-level BPE runs checkpoint too (each merge
as two token ids, since display strings are ambiguous): a resume reads the corpus again
(a few seconds; it keeps no word counts) and replays the checkpoint's merges without
searching for them, then continues, again to a byte-identical ``vocab.json``.

Test hooks (environment variables honoured by the trainer, for fault-injection tests
only): ``SGPE_TEST_FAIL_WRITE_AFTER=N`` makes every data-file write after the first N
(word counts, merge parts, checkpoints; never status.json) fail with ``ENOSPC``;
``SGPE_TEST_MERGE_PAUSE=S`` makes the trainer sleep S seconds per merge after each batch
of merges it records, so that a test can kill or cancel a run mid-merge however fast the
engine trains (the native core trains a test corpus in a fraction of a second, in batches
of thousands of merges).

This module does not start or stop processes (that is :mod:`sgpe.runs.manager`) and does not parse
command lines (that is :mod:`sgpe.cli`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import fcntl
import hashlib
import json
import math
import os
import secrets
import shutil
import threading
import time
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import Any

from .._files import TOO_DEEP, _encode_str, atomic_write, dumps_json, file_sha256
from ..corpus.readers import CorpusError, CorpusInfo
from ..protocol import one_line
from ..settings import _NOTHING as _NO_ABSENT
from ..settings import (
    COUNT_FIELDS,
    MAX_INTERVAL_SECONDS,
    MECHANICS_FIELDS,
    MODELS,
    TRAIN_FIELDS,
    CountOptions,
    RunMechanics,
    TrainSettings,
    default,
    default_min_freq,
    info,
    settings_fields,
    split_options,
)
from .sources import CorpusFile, corpus_problem, manifest, manifest_sha256, resolve

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


def min_freq_default(model: str, mode: str = default("mode")) -> int:
    """The default ``min_freq`` of a run of this model (and SGPE training mode)."""
    return default_min_freq(mode, model)


FAIL_WRITE_ENV = "SGPE_TEST_FAIL_WRITE_AFTER"
MERGE_PAUSE_ENV = "SGPE_TEST_MERGE_PAUSE"
# How long a starting trainer waits for the run lock (a reader or the run manager may
# hold it for a moment).
LOCK_WAIT_SECONDS = 10.0
#: A working trainer whose heartbeat is older than this many intervals is reported as
#: stalled (a SIGSTOPped or hung process still holds its lock, so the lock alone cannot
#: tell). Generous, because a busy shared machine delays the heartbeat thread.
STALL_INTERVALS = 10
#: ... but never sooner than this many seconds.
STALL_MIN_SECONDS = 3.0


class RunError(Exception):
    """A run directory cannot be used as asked; the message says why and what to do."""


# ============================================================================ config


#: The corpus fields of ``config.json`` (the other keys are the settings' fields).
CORPUS_FIELDS = ("corpus", "corpus_name", "corpus_sha256", "created")
#: The fields that layout 2 adds (see :class:`RunConfig`).
SOURCE_FIELDS = ("corpus_path", "corpus_files", "counting")
#: config.json layout 1 holds a corpus copy (``corpus``); layout 2 refers to the corpus
#: by path and records the counting options. Both are read; new runs are written in 2.
CONFIG_VERSIONS = (1, 2)


@dataclass(frozen=True, init=False)
class RunConfig:
    """The settings a run was started with, stored as ``config.json``: the fields of
    :class:`~sgpe.settings.TrainSettings` and :class:`~sgpe.settings.RunMechanics` flat, the
    :class:`~sgpe.settings.CountOptions` under ``counting``, and the corpus identity.

    The corpus is recorded by reference: ``corpus_path`` is the corpus as given (a file, a
    directory or a glob; relative paths are relative to the run directory),
    ``corpus_files`` its files with their sizes and sha256, ``corpus_sha256`` their content
    hash (:func:`sgpe.runs.sources.manifest_sha256`) and ``corpus_name`` the name recorded
    in ``vocab.json``. Runs made before that hold a copy of the corpus in the run
    directory: their ``corpus`` is the copy's file name (layout 1, still read and resumed).

    Build one with the settings objects or with flat keywords
    (``RunConfig(vocab_size=700, checkpoint_every=5)``); every setting is readable as an
    attribute (``config.vocab_size``).
    """

    settings: TrainSettings
    mechanics: RunMechanics
    counting: CountOptions
    corpus: str
    corpus_name: str
    corpus_sha256: str
    created: float  # unix time; not part of the fingerprint
    corpus_path: str
    corpus_files: tuple[CorpusFile, ...]

    def __init__(
        self,
        settings: TrainSettings | None = None,
        mechanics: RunMechanics | None = None,
        *,
        counting: CountOptions | None = None,
        corpus: str = "",
        corpus_name: str = "",
        corpus_sha256: str = "",
        created: float = 0.0,
        corpus_path: str = "",
        corpus_files: Sequence[CorpusFile] = (),
        **options: Any,
    ) -> None:
        train, mech = split_options(options, "RunConfig")
        if (train and settings is not None) or (mech and mechanics is not None):
            raise TypeError("RunConfig: give the settings objects or flat keywords, not both")
        set_ = object.__setattr__
        set_(self, "settings", settings if settings is not None else TrainSettings(**train))
        set_(self, "mechanics", mechanics if mechanics is not None else RunMechanics(**mech))
        set_(self, "counting", counting if counting is not None else CountOptions())
        set_(self, "corpus", corpus)
        set_(self, "corpus_name", corpus_name)
        set_(self, "corpus_sha256", corpus_sha256)
        set_(self, "created", created)
        set_(self, "corpus_path", corpus_path)
        set_(self, "corpus_files", tuple(corpus_files))

    def __getattr__(self, name: str) -> Any:
        # Only called for names that are not attributes: the settings' fields.
        if name in TRAIN_FIELDS:
            return getattr(object.__getattribute__(self, "settings"), name)
        if name in MECHANICS_FIELDS:
            return getattr(object.__getattribute__(self, "mechanics"), name)
        raise AttributeError(f"RunConfig has no attribute {name!r}")

    @property
    def has_copy(self) -> bool:
        """Whether the run holds a copy of its corpus (layout 1, made by older versions)."""
        return bool(self.corpus)

    def replace(self, **changes: Any) -> RunConfig:
        """A copy with some fields (settings, counting or corpus fields) changed."""
        own = CORPUS_FIELDS + SOURCE_FIELDS
        train, mech = split_options(
            {k: v for k, v in changes.items() if k not in own}, "RunConfig.replace"
        )
        kept = {k: changes.get(k, getattr(self, k)) for k in own}
        return RunConfig(
            self.settings.replace(**train) if train else self.settings,
            dataclasses.replace(self.mechanics, **mech) if mech else self.mechanics,
            **kept,
        )

    def validate(self) -> None:
        """Raise ``ValueError`` naming the first bad setting (the settings types check
        themselves on construction, so a config that exists is valid)."""

    def train_settings(self) -> TrainSettings:
        """The :class:`~sgpe.settings.TrainSettings` of the run."""
        return self.settings

    def fingerprint(self) -> str:
        """sha256 of everything that determines the result (settings + corpus identity);
        checkpoints and word counts carry it so that they are never mixed across runs.

        A setting whose value is its ``absent`` value (what an older ``config.json``
        without it meant) is left out, so runs made before it existed keep their
        fingerprint and still resume. Where the corpus lives and how it is counted are
        left out too: neither changes the result."""
        s = self.settings
        data: dict[str, Any] = {"model": s.model}
        for f in dataclasses.fields(TrainSettings):
            meta = info(f)
            if f.name == "model" or s.model not in meta.models:
                continue
            value = getattr(s, f.name)
            if f.name in _ABSENT and value == _ABSENT[f.name]:
                continue
            data[f.name] = value
        data["corpus_name"] = self.corpus_name
        data["corpus_sha256"] = self.corpus_sha256
        data["format_version"] = FORMAT_VERSION
        return hashlib.sha256(_canonical(data)).hexdigest()

    def to_dict(self) -> dict[str, Any]:
        """``config.json``: one flat object (every setting resolved to its value); a run
        with a corpus copy is written in layout 1, as it was made."""
        flat = self.settings.to_dict()
        if flat["prepend_space"] is None:  # bytebpe: not used; written as before
            flat["prepend_space"] = flat["leading_space"]
        data = {
            "format": CONFIG_FORMAT,
            "format_version": 1 if self.has_copy else 2,
            **flat,
            **self.mechanics.to_dict(),
            **{k: getattr(self, k) for k in CORPUS_FIELDS if k != "corpus" or self.has_copy},
        }
        if not self.has_copy:
            data["corpus_path"] = self.corpus_path
            data["corpus_files"] = [f.to_dict() for f in self.corpus_files]
            data["counting"] = self.counting.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: Any, source: str = CONFIG) -> RunConfig:
        if not isinstance(data, dict) or data.get("format") != CONFIG_FORMAT:
            raise RunError(
                f"{source}: not a run configuration (key 'format' must be {CONFIG_FORMAT!r})"
            )
        version = data.get("format_version")
        if type(version) is not int or version not in CONFIG_VERSIONS:
            raise RunError(
                f"{source}: key 'format_version' is {version!r}; this version "
                f"of sgpe reads {' and '.join(map(str, CONFIG_VERSIONS))}"
            )
        model = data.get("model", default("model"))
        options: dict[str, Any] = {}
        for f in settings_fields():
            meta = info(f)
            if f.name != "model" and model in MODELS and model not in meta.models:
                continue  # written for every run; means nothing for this model
            if f.name not in data:
                if f.name in _ABSENT:
                    options[f.name] = _ABSENT[f.name]
                continue
            options[f.name] = _typed(data[f.name], f, source)
        if options.get("leading_space") is False and options.get("prepend_space"):
            # Written by versions that stored the flag as given; a dummy space needs the
            # leading space, and those versions trained without it too.
            options["prepend_space"] = False
        corpus: dict[str, Any] = {}
        for name in (*CORPUS_FIELDS, "corpus_path"):
            if name in data:
                kind = float if name == "created" else str
                value = data[name]
                if kind is float and isinstance(value, int) and not isinstance(value, bool):
                    value = float(value)
                if type(value) is not kind:
                    raise RunError(
                        f"{source}: key {name!r} must be a {kind.__name__}, got {value!r}"
                    )
                corpus[name] = value
        try:
            if version >= 2:
                files = data.get("corpus_files")
                if not isinstance(files, list):
                    raise ValueError(f"key 'corpus_files' must be a list, got {files!r}")
                corpus["corpus_files"] = [CorpusFile.from_dict(f, source) for f in files]
                counting = data.get("counting", {})
                if not isinstance(counting, dict) or set(counting) - COUNT_FIELDS:
                    raise ValueError(
                        f"key 'counting' must be an object with keys among "
                        f"{', '.join(sorted(COUNT_FIELDS))}, got {counting!r}"
                    )
                corpus["counting"] = CountOptions(**counting)
            return cls(**options, **corpus)
        except (ValueError, TypeError) as err:
            text = str(err)
            where = "" if text.startswith(source) else f"{source}: "
            raise RunError(f"{where}{text}; start a new run") from None


#: What a ``config.json`` written before a setting existed means (Setting.absent).
_ABSENT: dict[str, Any] = {
    f.name: info(f).absent for f in settings_fields() if info(f).absent is not _NO_ABSENT
}


def _typed(value: Any, f: dataclasses.Field[Any], source: str) -> Any:
    """A ``config.json`` value checked against the type of the field's default (an int
    where a float is expected is taken; anything else that differs is an error)."""
    if value is None and f.name == "superwords_from":
        return None  # a setting whose value may be None: no superwords
    example = f.default if f.default is not None else (True if f.name == "prepend_space" else 1)
    kind = type(example)
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if type(value) is not kind:
        raise RunError(f"{source}: key {f.name!r} must be a {kind.__name__}, got {value!r}")
    return value


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


def encode_table(columns: dict[str, list[Any]], meta: dict[str, Any], parquet: bool) -> bytes:
    """A small column table as Parquet bytes (with ``meta`` in the schema metadata under
    ``sgpe``), or as JSON ``{"meta": ..., "columns": ...}`` when ``parquet`` is false."""
    if parquet:
        import pyarrow as pa
        import pyarrow.parquet as pq

        arrays = [_arrow_column(pa, column) for column in columns.values()]
        table = pa.Table.from_arrays(arrays, names=list(columns))
        table = table.replace_schema_metadata({"sgpe": json.dumps(meta)})
        sink = pa.BufferOutputStream()
        # Without dictionary pages: our columns are mostly unique strings and counts, so
        # a dictionary only adds to the file and to the memory writing it takes. Arrow's
        # allocator keeps the memory a write used; giving it back keeps the trainer's peak
        # down (`python -m bench scale --only cli` prints that peak).
        pq.write_table(table, sink, use_dictionary=False)
        data = bytes(sink.getvalue().to_pybytes())
        del table, sink
        pa.default_memory_pool().release_unused()
        return data
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
    run_dir: Path, counts: Mapping[str, int], info: CorpusInfo, fingerprint: str, writes: _Writes
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

    def to_bytes(self, body: str | None = None) -> bytes:
        """The file: one JSON object whose ``data`` is ``[merges, counts]``, serialized
        once with the C encoder for both the file and its checksum (a checkpoint is written
        every few hundred milliseconds; 30,000 merges take about 10 ms). ``body``: that
        text made already (:class:`CheckpointBody`)."""
        if body is None:
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


class CheckpointBody:
    """:meth:`Checkpoint._body` of the successive checkpoints of one run, each merge
    spelled once: a run's merges only grow between checkpoints, and spelling all of them
    again for each checkpoint was most of its cost. Any other change starts afresh."""

    def __init__(self) -> None:
        self.merges: list[tuple[str, str]] = []
        self.spelled: list[str] = []

    def __call__(self, merges: Sequence[tuple[str, str]], counts: Sequence[int]) -> str:
        n = len(self.merges)
        if len(merges) < n or list(merges[:n]) != self.merges:
            self.merges, self.spelled, n = [], [], 0
        new = list(merges[n:])
        pairs = set(map(type, new)) <= {tuple, list} and set(map(len, new)) <= {2}
        flat = list(chain.from_iterable(new)) if pairs else []
        if pairs and set(map(type, flat)) <= {str}:
            spelled = map(_encode_str, flat)
            self.spelled += map("[{},{}]".format, spelled, spelled)  # left, right
        else:
            self.spelled += (_compact_json(m) for m in new)
        self.merges += new
        if set(map(type, counts)) <= {int}:
            count_text = ",".join(map(int.__repr__, counts))  # what json writes for an int
        else:
            count_text = _compact_json(counts)[1:-1]
        return "[[" + ",".join(self.spelled) + "],[" + count_text + "]]"


def _compact_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


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
    def resumable(self) -> bool:
        """Whether resuming can help: a run that stopped (interrupted, cancelled) or failed
        for a reason outside its settings and corpus (a full disk, a killed writer). A run
        that failed because of its settings or corpus fails the same way again."""
        if self.state in ("interrupted", "cancelled"):
            return True
        return self.state == "failed" and self.raw.get("resumable") is not False

    @property
    def trained_size(self) -> int | None:
        """The size of the finished vocabulary (None until done)."""
        value = self.raw.get("vocab_size")
        return value if self.state == "done" and type(value) is int else None

    @property
    def stop_reason(self) -> str:
        """Why a finished run stopped where it did, in words ("" if unknown)."""
        return str(self.raw.get("stopped") or "") if self.state == "done" else ""

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
        # (time, step) of the first checkpoint: the ETA is measured from there, because the
        # first merges (the most frequent pairs, touching the most words) run at another
        # speed than the rest, and an ETA from them alone is far off.
        self.eta_from: tuple[float, int] | None = None
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
            if self.eta_from is not None:
                t1, s1 = self.eta_from
                if now - t1 > 0.05 and self.step > s1:
                    measured = (self.step - s1) / (now - t1)
                    d["eta_s"] = round(max(0, d["target"] - self.step) / measured, 1)

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


def corpus_source(run_dir: Path, config: RunConfig) -> Path:
    """What the trainer reads: the corpus copy of a layout-1 run, else the corpus as given
    (file, directory or glob; a relative path is relative to the run directory)."""
    if config.has_copy:
        return run_dir / config.corpus
    return resolve(config.corpus_path, run_dir)


def verify_corpus(run_dir: Path, config: RunConfig) -> None:
    """Raise :class:`RunError` (one line: what changed, where, how to fix it) unless the
    run's corpus is on disk with the bytes the run started on."""
    if config.has_copy:
        path = run_dir / config.corpus
        if not path.is_file():
            raise RunError(f"{path}: the run's corpus copy is missing; start a new run")
        if config.corpus_sha256 and file_sha256(path) != config.corpus_sha256:
            raise RunError(
                f"{path}: the corpus copy changed since the run started; start a new run"
            )
        return
    if not config.corpus_files:
        raise RunError(f"{run_dir / CONFIG}: the run records no corpus files; start a new run")
    problem = corpus_problem(config.corpus_path, config.corpus_files, run_dir)
    if problem:
        raise RunError(f"run {run_dir.name}: {problem}")


def relocate_corpus(run_dir: Path, config: RunConfig, source: str | Path) -> RunConfig:
    """Point a run at its corpus in a new place (``--corpus`` with ``--resume``): the files
    there must have the content hash the run recorded; ``config.json`` is rewritten
    atomically with the new paths. A run with a corpus copy keeps its copy."""
    if config.has_copy:
        path = Path(source)
        if not path.is_file() or file_sha256(path) != config.corpus_sha256:
            raise RunError(
                f"--corpus {source} is not the corpus this run trains on; omit --corpus to resume"
            )
        return config
    try:
        files = manifest(source)
    except CorpusError as err:
        raise RunError(f"--corpus {err}") from None
    sha = manifest_sha256(files)
    if sha != config.corpus_sha256:
        raise RunError(
            f"--corpus {source} is not the corpus this run trains on (content sha256 "
            f"{sha[:12]}…, the run's is {config.corpus_sha256[:12]}…); give the run's corpus, "
            "or start a new run"
        )
    if str(source) == config.corpus_path and list(config.corpus_files) == files:
        return config
    moved = config.replace(corpus_path=str(Path(source).absolute()), corpus_files=files)
    atomic_write(run_dir / CONFIG, dumps_json(moved.to_dict()).encode("utf-8"))
    return moved


def init_run_dir(run_dir: Path, config: RunConfig, *, phase: str = "prepared") -> None:
    """Write ``config.json``, the lock file and a ``queued`` status into ``run_dir``."""
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


def create_run(run_dir: Path, config: RunConfig, corpus: str | Path) -> RunConfig:
    """Create a new run directory for a corpus (a file, a directory or a glob pattern),
    recorded by reference: its files' paths, sizes and sha256 go into ``config.json``,
    nothing is copied. Returns the config with the corpus fields filled in.

    The run is assembled in a hidden staging directory next to ``run_dir`` and renamed
    into place only when complete, so a failure or a kill during intake never leaves a
    half-made run directory (a killed intake's staging directory is removed by the next
    :func:`create_run` in the same parent).
    """
    if run_dir.exists() and (not run_dir.is_dir() or any(run_dir.iterdir())):
        raise RunError(
            f"{run_dir} is not empty; use --resume to continue the run in it, or choose a new --out"
        )
    files = manifest(corpus)  # CorpusError: no such file, no corpus file in a directory
    source = Path(corpus)
    single = len(files) == 1 and source.is_file()
    config = config.replace(
        corpus="",
        corpus_path=str(source.absolute()),
        corpus_files=files,
        corpus_name=config.corpus_name or (source.name if single else str(corpus)),
        corpus_sha256=manifest_sha256(files),
        created=time.time(),
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

"""Run directories: the files of one training run, the trainer that fills
them, and the reader that reports a run's true state from those files alone.

A run directory holds::

    config.json          settings the run was started with (RunConfig; enough to resume it),
                         the counting options, and the corpus by reference: its path(s)
                         and every file's size and sha256 (no copy of the corpus)
    .lock                locked by the trainer while it works on the run (sgpe/runs/system.py)
    status.json          state, phase, step, target, rate, ETA, heartbeat, pid, message
    word_counts.parquet  pieces and their counts, written once after counting
    checkpoint.json      merges so far (+ counts, checksum, config fingerprint)
    checkpoint.prev.json the checkpoint before that (fallback if the newest is damaged)
    merges/part-*.parquet  rows of the merges table, one part file per checkpoint
    merges.parquet       one row per merge (step, left, right, merged, count), when done:
                         the vocabulary's merges (for Thai and Lao, whose syllables are
                         kept whole, the loop's first merges and then the merges that
                         complete the syllables; the checkpoint keeps the loop's:
                         sgpe/hierarchical/whole.py)
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

The code lives in one module per file of the format, and this module re-exports it:
:mod:`sgpe.runs.constants` (file names, states, test hooks, :class:`RunError`),
:mod:`sgpe.runs.config` (``config.json``), :mod:`sgpe.runs.files` (atomic data-file writes and
the two table encodings), :mod:`sgpe.runs.word_counts`, :mod:`sgpe.runs.checkpoints`,
:mod:`sgpe.runs.merges_table`, :mod:`sgpe.runs.status` (``status.json`` and the reader of a
run's true state), :mod:`sgpe.runs.creation` (preparing a run and its corpus) and
:mod:`sgpe.runs.locks` (the run lock).

None of them starts or stops processes (that is the explorer's run manager,
``sgpe_explorer/runs/manager.py``) or parses command lines (that is :mod:`sgpe.cli`).
"""

from __future__ import annotations

from .checkpoints import Checkpoint, CheckpointBody, CheckpointChoice, pick_checkpoint
from .config import CONFIG_VERSIONS, CORPUS_FIELDS, SOURCE_FIELDS, RunConfig, read_config
from .constants import (
    ACTIVE_STATES,
    CHECKPOINT,
    CHECKPOINT_CORRUPT,
    CHECKPOINT_FORMAT,
    CHECKPOINT_PREV,
    CONFIG,
    CONFIG_FORMAT,
    FAIL_WRITE_ENV,
    FINAL_STATES,
    FORMAT_VERSION,
    LOCK,
    LOCK_WAIT_SECONDS,
    LOG,
    MERGE_PARTS,
    MERGE_PAUSE_ENV,
    STALL_INTERVALS,
    STALL_MIN_SECONDS,
    STATES,
    STATUS,
    STATUS_FORMAT,
    VOCAB,
    RunError,
    min_freq_default,
)
from .creation import (
    INCOMING_PREFIX,
    corpus_source,
    create_run,
    init_run_dir,
    relocate_corpus,
    remove_stale_staging,
    staging_dir,
    verify_corpus,
)
from .files import decode_table, encode_table
from .locks import run_lock
from .merges_table import MERGE_COLUMNS, merges_stamp, read_merges
from .status import RunStatus, lock_held, pid_alive, pid_stopped, read_status, write_status
from .word_counts import read_word_counts, write_word_counts

__all__ = [
    "ACTIVE_STATES",
    "CHECKPOINT",
    "CHECKPOINT_CORRUPT",
    "CHECKPOINT_FORMAT",
    "CHECKPOINT_PREV",
    "CONFIG",
    "CONFIG_FORMAT",
    "CONFIG_VERSIONS",
    "CORPUS_FIELDS",
    "FAIL_WRITE_ENV",
    "FINAL_STATES",
    "FORMAT_VERSION",
    "INCOMING_PREFIX",
    "LOCK",
    "LOCK_WAIT_SECONDS",
    "LOG",
    "MERGE_COLUMNS",
    "MERGE_PARTS",
    "MERGE_PAUSE_ENV",
    "SOURCE_FIELDS",
    "STALL_INTERVALS",
    "STALL_MIN_SECONDS",
    "STATES",
    "STATUS",
    "STATUS_FORMAT",
    "VOCAB",
    "Checkpoint",
    "CheckpointBody",
    "CheckpointChoice",
    "RunConfig",
    "RunError",
    "RunStatus",
    "corpus_source",
    "create_run",
    "decode_table",
    "encode_table",
    "init_run_dir",
    "lock_held",
    "merges_stamp",
    "min_freq_default",
    "pick_checkpoint",
    "pid_alive",
    "pid_stopped",
    "read_config",
    "read_merges",
    "read_status",
    "read_word_counts",
    "relocate_corpus",
    "remove_stale_staging",
    "run_lock",
    "staging_dir",
    "verify_corpus",
    "write_status",
    "write_word_counts",
]

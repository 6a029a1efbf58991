"""The names of a run directory: its file names, the states of a run, the test hooks'
environment variables, and :class:`RunError`.

The layout of a run directory is described in :mod:`sgpe.runs.format`.
"""

from __future__ import annotations

from ..settings import default, default_min_freq

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

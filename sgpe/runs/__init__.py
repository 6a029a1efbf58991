"""Training runs that survive crashes: the run-directory format and the worker that trains
one run in its own process (``sgpe train --out``, with exact resume).

* :mod:`sgpe.runs.format` -- the files of a run directory and their readers and writers
  (re-exported from one module per part: :mod:`~sgpe.runs.constants`, :mod:`~sgpe.runs.config`,
  :mod:`~sgpe.runs.files`, :mod:`~sgpe.runs.word_counts`, :mod:`~sgpe.runs.checkpoints`,
  :mod:`~sgpe.runs.merges_table`, :mod:`~sgpe.runs.status`, :mod:`~sgpe.runs.creation`,
  :mod:`~sgpe.runs.locks`);
* :mod:`sgpe.runs.sources` -- the corpus a run refers to (paths, sizes, sha256; no copy);
* :mod:`sgpe.runs.intake` -- the checks of a corpus before a run is made from it;
* :mod:`sgpe.runs.worker` -- trains one run directory, checkpointing as it goes.

The manager that starts, watches, cancels and resumes runs in the background is the
explorer's (``sgpe_explorer.runs.manager``), not the library's.
"""

from __future__ import annotations

from .._atomic import atomic_write, file_sha256
from ..settings import MODELS
from .format import (
    ACTIVE_STATES,
    CHECKPOINT,
    CHECKPOINT_PREV,
    CONFIG,
    FAIL_WRITE_ENV,
    FINAL_STATES,
    INCOMING_PREFIX,
    STATES,
    STATUS,
    VOCAB,
    Checkpoint,
    RunConfig,
    RunError,
    RunStatus,
    create_run,
    decode_table,
    encode_table,
    merges_stamp,
    min_freq_default,
    pick_checkpoint,
    read_config,
    read_merges,
    read_status,
    read_word_counts,
    relocate_corpus,
    verify_corpus,
    write_status,
)
from .sources import CorpusFile
from .worker import Display, RunWorker, TrainResult, train_run

__all__ = [
    "ACTIVE_STATES",
    "CHECKPOINT",
    "CHECKPOINT_PREV",
    "CONFIG",
    "FAIL_WRITE_ENV",
    "FINAL_STATES",
    "INCOMING_PREFIX",
    "MODELS",
    "STATES",
    "STATUS",
    "VOCAB",
    "Checkpoint",
    "CorpusFile",
    "Display",
    "RunConfig",
    "RunError",
    "RunStatus",
    "RunWorker",
    "TrainResult",
    "atomic_write",
    "create_run",
    "decode_table",
    "encode_table",
    "file_sha256",
    "merges_stamp",
    "min_freq_default",
    "pick_checkpoint",
    "read_config",
    "read_merges",
    "read_status",
    "read_word_counts",
    "relocate_corpus",
    "train_run",
    "verify_corpus",
    "write_status",
]

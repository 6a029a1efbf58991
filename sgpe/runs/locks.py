"""The run lock: the trainer holds ``<run>/.lock`` (``flock(2)``) while it works on a run
(:func:`run_lock`); a reader tests it with :func:`sgpe.runs.status.lock_held`.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path

from .constants import LOCK, LOCK_WAIT_SECONDS, RunError
from .status import _read_status_file


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

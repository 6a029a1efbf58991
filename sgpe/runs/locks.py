"""The run lock: the trainer holds ``<run>/.lock`` (:func:`sgpe.runs.system.try_lock`:
``flock(2)`` on POSIX, ``msvcrt.locking`` on Windows) while it works on a run
(:func:`run_lock`); a reader tests it with :func:`sgpe.runs.status.lock_held`.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path

from .constants import LOCK, LOCK_WAIT_SECONDS, RunError
from .status import read_status_data
from .system import try_lock, unlock


@contextlib.contextmanager
def run_lock(run_dir: Path, wait: float = LOCK_WAIT_SECONDS) -> Iterator[int]:
    """Hold the run's exclusive lock (waiting up to ``wait`` seconds for it)."""
    fd = os.open(run_dir / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + wait
        while True:
            if try_lock(fd) is not False:  # taken, or a system without file locks
                break
            if time.monotonic() >= deadline:
                data = read_status_data(run_dir) or {}
                raise RunError(
                    f"{run_dir}: another process is working on this run "
                    f"(pid {data.get('pid')}, state {data.get('state')}); cancel it first"
                )
            time.sleep(0.05)
        try:
            yield fd
        finally:
            unlock(fd)
    finally:
        os.close(fd)

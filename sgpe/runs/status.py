"""``status.json`` of a run directory and the reader that reports a run's true state:
:class:`RunStatus`, :func:`read_status` (status file plus the trainer's lock, pid and
heartbeat), :func:`write_status`, and the trainer's status file with its heartbeat.
"""

from __future__ import annotations

import json
import math
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._atomic import atomic_write
from ..settings import MAX_INTERVAL_SECONDS
from .constants import (
    ACTIVE_STATES,
    CONFIG,
    LOCK,
    LOG,
    STALL_INTERVALS,
    STALL_MIN_SECONDS,
    STATUS,
    STATUS_FORMAT,
    RunError,
)
from .system import process_exists, try_lock, unlock


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


def read_status_data(run_dir: Path) -> dict[str, Any] | None:
    """The fields of a run's ``status.json`` as written, or None when it is missing,
    unreadable or not an object (:func:`read_status` names such a run damaged)."""
    try:
        data = json.loads((run_dir / STATUS).read_text(encoding="utf-8"))
    except (FileNotFoundError, UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def pid_alive(pid: int | None) -> bool:
    """True if process ``pid`` exists and is not a zombie."""
    if not isinstance(pid, int) or pid <= 0:
        return False
    if not process_exists(pid):
        return False
    try:  # Linux alone has /proc: elsewhere a process that exists counts as alive
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def pid_stopped(pid: int | None) -> bool:
    """True if process ``pid`` is stopped (state T or t in ``/proc/<pid>/stat``; never
    where there is no ``/proc``)."""
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
    """Whether some process holds the run's lock (None: the run has no lock file, or the
    system has no file locks)."""
    try:
        fd = os.open(run_dir / LOCK, os.O_RDONLY)
    except OSError:
        return None
    try:
        taken = try_lock(fd)
        if taken:
            unlock(fd)
    finally:
        os.close(fd)
    # None: the system has no file locks, and the lock file tells nothing
    return None if taken is None else not taken


def read_status(run_dir: str | Path) -> RunStatus:
    """The state of a run, from its files alone (any process can call this).

    A run whose status says ``counting``/``merging`` but whose trainer is gone is reported
    ``interrupted``. The trainer holds a lock of ``.lock`` while it works, so "gone"
    is exact (no pid reuse, no zombie confusion); for a run without a lock file, the rule is
    a heartbeat older than 3 x its interval and a pid that no longer exists.

    A trainer that holds the lock but does not work is reported ``stalled`` (its state stays
    ``counting``/``merging``): stopped, per ``/proc/<pid>/stat``, or a heartbeat older than
    ``STALL_INTERVALS`` intervals. A heartbeat that is not a finite number counts as none.
    """
    run_dir = Path(run_dir)
    data = read_status_data(run_dir)
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
            again = read_status_data(run_dir) or data
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
        if not alive and (read_status_data(run_dir) or {}).get("phase") == "launching":
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
        checkpoint_step=_whole(data.get("checkpoint_step")),
        alive=alive,
        stalled=stalled,
        raw=data,
    )


def write_status(run_dir: Path, data: dict[str, Any], *, sync: bool = True) -> None:
    """Rewrite ``status.json`` atomically (used by the trainer and the run manager);
    ``sync=False`` leaves the flush to disk to the system (:func:`sgpe._atomic.atomic_write`)."""
    data = {"format": STATUS_FORMAT, **data, "updated": time.time()}
    atomic_write(
        run_dir / STATUS,
        json.dumps(data, ensure_ascii=False, indent=1).encode("utf-8"),
        sync=sync,
    )


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
        """Change fields and write now (raises OSError if the write fails).

        Not synced to disk here: the heartbeat thread rewrites the file, synced, within
        ``interval`` seconds, and an fsync here took 1-30 ms of the trainer's main thread
        at each phase change (``python -m bench native``'s training row)."""
        self._write(fields, sync=False)

    def _write(self, fields: dict[str, Any], *, sync: bool) -> None:
        with self.lock:
            if self._final:
                return
            self.data.update(fields)
            self._snapshot()
            write_status(self.run_dir, self.data, sync=sync)

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
                self._write({}, sync=True)
            except OSError as err:
                self.error = err
                return

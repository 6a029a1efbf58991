"""Background training runs: corpus intake, start, watch, cancel, resume, delete.

A :class:`RunManager` works over a runs root (default ``runs/``). Each run is a directory
``<root>/<run-id>/`` laid out as in :mod:`sgpe.runs`, trained by a separate
process (:mod:`sgpe_explorer.runs.trainer`: ``sgpe train --out <dir> --resume``, then the
queued runs its slot frees) started with ``subprocess.Popen(..., start_new_session=True)``,
output to ``<dir>/train.log``.

* **State lives in files only.** :meth:`RunManager.status` reads the run directory (and
  tests the trainer's lock), so an app restarted after a crash, or two app sessions,
  see the same true state of every run. Nothing is kept in memory except the handles of
  child processes, which are only used to reap them.
* **Intake.** :meth:`RunManager.start` checks the corpus (:func:`validate_corpus`) and
  assembles the run in a hidden staging directory (named with its pid: :meth:`poll`
  removes one whose app process was killed mid-upload), renamed to the run directory only
  when complete, so a rejected upload leaves nothing behind. A corpus given as a path is
  read where it is; an upload is stored once, content-addressed, as
  ``<root>/uploads/<sha256><ext>`` (the same file uploaded twice is stored once). Either
  way the run records the corpus by path and sha256, never a copy. Run ids are generated
  (``20261121-061500-ab12cd``), never derived from a file name.
* **Disk.** :meth:`disk_use` reports the bytes of runs and uploads; :meth:`delete_finished`
  and :meth:`delete_unused_uploads` clean up, and :meth:`delete_upload` refuses an upload
  that any run refers to. A run is deleted by renaming it out of view first, so it goes
  whole or not at all. An upload records who stored it (``<sha256><ext>.owners.json``,
  one entry per owner, since two visitors may upload the same file): with ``as_owner``,
  :meth:`disk_use` counts only that owner's runs and uploads, and
  :meth:`delete_unused_uploads` only gives up that owner's claim, removing the file once
  nobody claims it. An upload with no recorded owner is left to a call without
  ``as_owner`` (the library's, an administrator's).
* **Which folders are runs.** Every folder directly under the root that holds a
  ``config.json`` (what :func:`sgpe.runs.format.init_run_dir` writes first, so also a run
  made with ``sgpe train --out <root>/<any-name>``), whatever its name, except hidden
  folders (the manager's staging) and ``uploads/``. :meth:`skipped_dirs` names the other
  folders, with why. A run whose ``config.json`` or ``status.json`` cannot be read is left out of
  :meth:`list_runs` and named, with the reason, by :meth:`damaged_runs`.
* **Concurrency.** At most ``max_running`` trainers run at once (default 1). A start
  beyond that leaves the run ``queued``. The queue moves without any page open: a trainer
  that ends (done, failed or cancelled) launches the oldest queued runs its slot frees
  (:func:`start_queued`, reading ``max_running`` from ``<root>/.queue.json``, which
  :meth:`RunManager.start` writes), and so does :meth:`RunManager.poll`, which the app
  calls once when it starts (queued runs whose trainer was killed outright, or that were
  left when the machine restarted, start then).
* **Reading has no side effects.** :meth:`list_runs`, :meth:`status`, :meth:`wait`,
  :meth:`damaged_runs` and :meth:`survey` (the listing, the damaged runs and the skipped
  folders from one scan) only read files: they never launch, signal or kill a trainer.
* **Ownership.** A run may record an owner (the app records a digest of the visitor's
  owner key, see :mod:`sgpe_explorer.ui.owner`). :meth:`cancel`, :meth:`resume`, :meth:`delete`
  and :meth:`delete_finished` take ``as_owner``: given, they refuse a run whose recorded
  owner differs (a :class:`RunError`, before any signal or change), so a visitor cannot
  stop, restart or remove another visitor's run whatever buttons a page shows. A run
  without an owner (started by the CLI or a library caller: the server's operator) is
  refused too: on a shared server, a run everyone may delete is nobody's safe run.
  ``as_owner=None`` is the library's and an administrator's call: no check.

The run records (:class:`Run`, :class:`RunInfo`, labels and owners, :class:`RunRequest`)
are in :mod:`sgpe_explorer.runs.records`, the corpus checks of intake (:func:`validate_corpus`) in
:mod:`sgpe.runs.intake` and the vocabulary sizes a corpus allows (:func:`size_range`) in
:mod:`sgpe_explorer.runs.sizes`; this module re-exports their names.

This module does not train (that is :mod:`sgpe.runs`, in the child process) and has no
Streamlit code.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import sgpe
import sgpe_explorer
from sgpe.corpus.readers import CorpusError, corpus_format
from sgpe.protocol import one_line
from sgpe.runs import atomic_write
from sgpe.runs.format import (
    CONFIG,
    FINAL_STATES,
    INCOMING_PREFIX,
    LOG,
    VOCAB,
    RunError,
    RunStatus,
    init_run_dir,
    read_config,
    read_status,
    remove_stale_staging,
    run_lock,
    staging_dir,
    verify_corpus,
    write_status,
)
from sgpe.runs.intake import (
    DEFAULT_MAX_BYTES,
    GZIP_EXPANSION_LIMIT,
    SUPPORTED_SCRIPTS,
    CorpusSummary,
    size_text,
    validate_corpus,
)
from sgpe.runs.sources import CorpusFile, manifest, manifest_sha256, resolve
from sgpe.runs.status import read_status_data
from sgpe.runs.system import try_lock, unlock

from .records import (
    LABEL_FILE,
    LABEL_MAX,
    OWNER_FILE,
    REACH_FILE,
    UPLOADS_DIR,
    Run,
    RunInfo,
    RunRequest,
    _forget_meta,
    _run_meta,
    check_label,
    is_run_name,
    kept_status,
    new_run_id,
    read_label,
    read_owner,
    status_problem,
    status_suspect,
)
from .sizes import SizeRange, size_range, upload_size_range

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_ROOT",
    "GZIP_EXPANSION_LIMIT",
    "LABEL_FILE",
    "LABEL_MAX",
    "OWNER_FILE",
    "QUEUE_FILE",
    "REACH_FILE",
    "SUPPORTED_SCRIPTS",
    "UPLOADS_DIR",
    "UPLOAD_OWNERS_SUFFIX",
    "CorpusSummary",
    "DiskUse",
    "Run",
    "RunInfo",
    "RunManager",
    "RunRequest",
    "SizeRange",
    "check_label",
    "new_run_id",
    "read_label",
    "read_owner",
    "size_range",
    "start_queued",
    "upload_size_range",
    "validate_corpus",
]

DEFAULT_ROOT = Path("runs")
_ROOT_LOCK = ".jobs.lock"
#: ``{"max_running": N}``: how many trainers a runs root may run at once, for the trainers
#: that start queued runs when they end.
QUEUE_FILE = ".queue.json"
_UPLOAD = re.compile(r"^[0-9a-f]{64}\.(txt|txt\.gz|jsonl|csv|parquet)$")
#: Beside each stored upload: ``{"owners": [...]}``, who stored it (see Disk above).
UPLOAD_OWNERS_SUFFIX = ".owners.json"


def start_queued(root: str | Path) -> list[Run]:
    """Launch the queued runs of a managed runs root that its free slots allow (the
    ``max_running`` in its ``.queue.json``); nothing for a folder without one."""
    root = Path(root)
    try:
        data = json.loads((root / QUEUE_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    limit = data.get("max_running") if isinstance(data, dict) else None
    if type(limit) is not int or limit < 1:
        raise RunError(f"{root / QUEUE_FILE}: key 'max_running' must be an integer >= 1")
    return RunManager(root, max_running=limit).poll()


class RunManager:
    """Start, watch, cancel, resume and delete training runs under ``root``.

    For example (not a doctest: it starts a trainer process; tests/test_jobs.py runs it)::

        jobs = RunManager("runs")
        run = jobs.start(RunRequest("sample_data/sinhala.txt", vocab_size=4000))
        jobs.status(run).state  # 'counting', later 'merging', then 'done'
    """

    def __init__(
        self,
        root: str | Path = DEFAULT_ROOT,
        *,
        max_running: int = 1,
        max_upload_bytes: int | None = DEFAULT_MAX_BYTES,
        python: str = sys.executable,
    ) -> None:
        if max_running < 1:
            raise ValueError(f"max_running must be >= 1, got {max_running}")
        self.root = Path(root).resolve()
        self.max_running = max_running
        self.max_upload_bytes = max_upload_bytes
        self.python = python
        self._children: dict[str, subprocess.Popen[bytes]] = {}

    # ------------------------------------------------------------------ lookup
    def run(self, run: Run | str) -> Run:
        """The :class:`Run` for an id, the name of its folder under the root (checked: an
        id never leads outside the root)."""
        if isinstance(run, Run):
            return run
        if not is_run_name(run):
            raise RunError(
                f"{run!r} is not a run id (the name of a run's folder under the runs folder, "
                "e.g. 20261121-061500-ab12cd)"
            )
        path = self.root / run
        if not (path.is_dir() and (path / CONFIG).exists()):
            raise RunError(f"no run {run} under {self.root}")
        return Run(run, path)

    def _folders(self) -> tuple[list[Run], list[tuple[str, str]]]:
        """The run directories under the root (the module docstring's "Which folders"),
        and the visible folders that are not runs, each with why, from one scan."""
        if not self.root.is_dir():
            return [], []
        with os.scandir(self.root) as entries:  # scandir: no stat for the folders' type
            names = sorted(e.name for e in entries if is_run_name(e.name) and e.is_dir())
        runs, skipped = [], []
        for name in names:
            if os.path.exists(os.path.join(self.root, name, CONFIG)):
                runs.append(Run(name, self.root / name))
            else:
                skipped.append((name, f"not a run directory: it has no {CONFIG}"))
        return runs, skipped

    def _run_dirs(self) -> list[Run]:
        """The run directories under the root (the module docstring's "Which folders")."""
        return self._folders()[0]

    def skipped_dirs(self) -> list[tuple[str, str]]:
        """The visible folders under the root that are not runs, each with why (read only)."""
        return self._folders()[1]

    def vocab_path(self, run: Run | str) -> Path | None:
        """``vocab.json`` of a finished run, else None."""
        run = self.run(run)
        path = run.path / VOCAB
        return path if path.exists() and read_status(run.path).state == "done" else None

    # ------------------------------------------------------------------ start
    @property
    def uploads(self) -> Path:
        """Where uploads are stored, once each: ``<root>/uploads/<sha256><ext>``."""
        return self.root / UPLOADS_DIR

    def start(self, request: RunRequest) -> Run:
        """Validate the corpus, create the run and launch it (or queue it).

        A corpus given as a path is read where it is; an upload (bytes or a file object)
        is stored once under :attr:`uploads`, named by its sha256, so the same file
        uploaded twice is stored once. The run records the corpus by path and hash.

        Raises :class:`~sgpe.corpus.CorpusError` for a bad corpus and ``ValueError`` for
        bad settings; in both cases no directory or upload is left behind.
        """
        config = request.config()
        config.validate()
        name = request.name
        if name is None:
            if not isinstance(request.corpus, (str, Path)):
                raise ValueError("RunRequest.name (the upload's file name) is required for bytes")
            name = Path(request.corpus).name
        name = Path(name).name  # a file name, never a path
        ext = corpus_format(name)  # CorpusError for an unsupported type
        self.root.mkdir(parents=True, exist_ok=True)
        staging = staging_dir(self.root)
        upload: Path | None = None
        try:
            if isinstance(request.corpus, (str, Path)):
                source = Path(request.corpus).absolute()
                validate_corpus(source, name=name, max_bytes=self.max_upload_bytes)
                files = manifest(source)
                corpus_path = str(source)
            else:
                incoming = staging / f".upload{ext}"
                try:
                    sha = self._copy_in(request.corpus, incoming, name)
                except OSError as err:  # e.g. a full disk: say what failed, not the temp file
                    raise OSError(
                        err.errno,
                        f"cannot store the upload {name}: {err.strerror}",
                        str(self.uploads),
                    ) from None
                validate_corpus(incoming, name=name, max_bytes=self.max_upload_bytes)
                upload = self.uploads / f"{sha}{ext}"
                # Relative to the run directory, so a runs root moved whole keeps working.
                corpus_path = os.path.join("..", UPLOADS_DIR, upload.name)
                files = [CorpusFile(corpus_path, incoming.stat().st_size, sha)]
            config = config.replace(
                corpus="",
                corpus_path=corpus_path,
                corpus_files=files,
                corpus_name=name,
                corpus_sha256=manifest_sha256(files),
                counting=request.counting,
                created=time.time(),
            )
            init_run_dir(staging, config)
            if request.owner is not None:
                atomic_write(
                    staging / OWNER_FILE, json.dumps({"owner": request.owner}).encode("utf-8")
                )
            if request.reachable is not None:
                atomic_write(
                    staging / REACH_FILE,
                    json.dumps({"largest": request.reachable}).encode("utf-8"),
                )
            if request.label is not None:
                atomic_write(
                    staging / LABEL_FILE,
                    json.dumps({"label": request.label}, ensure_ascii=False).encode("utf-8"),
                )
            with self._root_lock():  # cleanup holds it too: no upload is removed in between
                if upload is not None:
                    self.uploads.mkdir(exist_ok=True)
                    incoming = staging / f".upload{ext}"
                    if _file_bytes(upload) == incoming.stat().st_size:
                        incoming.unlink()  # uploaded before: the same bytes, stored once
                    else:  # new, or a stored copy damaged since: this one is right
                        os.replace(incoming, upload)
                    if request.owner is not None:
                        self._claim_upload(upload, request.owner)
                while True:
                    run_id = new_run_id()
                    final = self.root / run_id
                    if not final.exists():
                        break
                os.rename(staging, final)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        self._write_queue_file()
        self.poll()
        return Run(run_id, final)

    def _write_queue_file(self) -> None:
        """Record ``max_running`` for the trainers that start queued runs when they end."""
        atomic_write(
            self.root / QUEUE_FILE,
            json.dumps({"max_running": self.max_running}).encode("utf-8"),
            sync=False,
        )

    def _copy_in(self, source: bytes | BinaryIO, target: Path, name: str) -> str:
        """Write an upload to ``target`` (synced), within the size limit; its sha256."""
        limit = self.max_upload_bytes
        digest = hashlib.sha256()
        total = 0

        def too_big(size: int) -> CorpusError:
            assert limit is not None
            return CorpusError(
                f"{name}: {size_text(size)} is over the size limit of {size_text(limit)}; "
                "use a smaller sample of the corpus (e.g. its first 100,000 lines)"
            )

        if isinstance(source, (bytes, bytearray, memoryview)):
            if limit is not None and len(source) > limit:
                raise too_big(len(source))
            import io

            stream: BinaryIO = io.BytesIO(bytes(source))
        else:
            stream = source
            with contextlib.suppress(AttributeError, OSError):
                stream.seek(0)
        with open(target, "wb") as out:
            while block := stream.read(1 << 20):
                total += len(block)
                if limit is not None and total > limit:
                    raise too_big(total)
                digest.update(block)
                out.write(block)
            out.flush()
            os.fsync(out.fileno())
        return digest.hexdigest()

    # ------------------------------------------------------------------ queue
    @contextlib.contextmanager
    def _root_lock(self) -> Iterator[None]:
        self.root.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.root / _ROOT_LOCK, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            # The library's portable lock never waits: wait here (the holder is another
            # process starting or polling runs, done in moments).
            while try_lock(fd) is False:
                time.sleep(0.02)
            try:
                yield
            finally:
                unlock(fd)
        finally:
            os.close(fd)

    def _reap(self) -> None:
        for run_id, proc in list(self._children.items()):
            if proc.poll() is not None:
                del self._children[run_id]

    def poll(self) -> list[Run]:
        """Launch queued runs while fewer than ``max_running`` trainers are alive; return
        the runs launched. Safe to call from several processes at once."""
        self._reap()
        launched: list[Run] = []
        with self._root_lock():
            remove_stale_staging(self.root)  # uploads whose app process was killed
            queued: list[tuple[float, str, Run]] = []
            running = 0
            for run in self._run_dirs():
                try:
                    # A finished run's status as the listing keeps it: each Start polls,
                    # and it read every run's status file (records.kept_status).
                    st = kept_status(run.path)
                except RunError:
                    continue
                if status_suspect(st) and status_problem(run.path) is not None:
                    continue  # damaged: named on the Train page, its files untouched
                if st.alive:
                    running += 1
                elif st.state == "queued" and st.phase != "launching":
                    queued.append((float(st.raw.get("queued_at") or 0.0), run.id, run))
            for _, _, run in sorted(queued, key=lambda q: (q[0], q[1])):
                if running >= self.max_running:
                    break
                if self._launch(run):
                    launched.append(run)
                    running += 1
        return launched

    def _launch(self, run: Run) -> bool:
        config = read_config(run.path)
        with run_lock(run.path, wait=2.0):
            data = read_status_data(run.path) or {}
            if data.get("state", "queued") != "queued" or data.get("phase") == "launching":
                return False
            cmd = [
                self.python,
                "-m",
                "sgpe_explorer.runs.trainer",
                "--vocab-size",
                str(config.vocab_size),
                "--model",
                config.model,
                "--out",
                str(run.path),
                "--resume",
            ]
            env = dict(os.environ)
            # The child imports this package and the library from where this process has
            # them (a checkout, or site-packages), whatever its working directory.
            parents = dict.fromkeys(
                str(Path(m.__file__ or "").resolve().parents[1]) for m in (sgpe, sgpe_explorer)
            )
            env["PYTHONPATH"] = os.pathsep.join(
                p for p in (*parents, env.get("PYTHONPATH", "")) if p
            )
            env.setdefault("PYTHONIOENCODING", "utf-8")
            try:
                with open(run.path / LOG, "ab") as log:
                    proc = subprocess.Popen(
                        cmd,
                        stdin=subprocess.DEVNULL,
                        stdout=log,
                        stderr=subprocess.STDOUT,
                        start_new_session=True,
                        env=env,
                    )
            except OSError as err:
                write_status(
                    run.path,
                    {**data, "state": "failed", "message": f"cannot start the trainer: {err}"},
                )
                return False
            self._children[run.id] = proc
            write_status(
                run.path,
                {
                    **data,
                    "state": "queued",
                    "phase": "launching",
                    "pid": proc.pid,
                    "heartbeat": time.time(),
                    "message": "starting the trainer",
                },
            )
        return True

    # ------------------------------------------------------------------ watch
    def status(self, run: Run | str) -> RunStatus:
        """The run's state, from its files (nothing is launched or stopped)."""
        run = self.run(run)
        self._reap()
        return read_status(run.path)

    def survey(self) -> Survey:
        """The runs folder in one scan: what :meth:`list_runs`, :meth:`damaged_runs`
        and :meth:`skipped_dirs` each give, and every run directory (for
        :meth:`disk_use`). The Train page drew its runs panel from four scans of every
        run folder, once a second while a visitor's run was live (docs/app.md, section
        11). Read only, like them."""
        self._reap()
        runs, skipped = self._folders()
        listed, damaged = [], []
        for run in runs:
            try:
                config, owner, label, reachable = _run_meta(run.path)
                status = kept_status(run.path)
            except RunError as err:
                damaged.append((run, str(err)))
                continue
            problem = status_problem(run.path) if status_suspect(status) else None
            if problem is not None:
                damaged.append((run, problem))
                continue
            listed.append(RunInfo(run, config, status, owner, label, reachable))
        _forget_meta(self.root, {run.path for run in runs})
        listed.sort(key=lambda i: (i.config.created, i.run.id), reverse=True)
        return Survey(listed, damaged, skipped, runs)

    def list_runs(self) -> list[RunInfo]:
        """Every run under the root, newest first, from their files (nothing is launched
        or stopped; finished child processes of this manager are reaped)."""
        return self.survey().runs

    def damaged_runs(self) -> list[tuple[Run, str]]:
        """Run directories that :meth:`list_runs` leaves out because their ``config.json``
        or ``status.json`` cannot be read, each with the reason (nothing is changed)."""
        return self.survey().damaged

    def wait(self, run: Run | str, timeout: float = 60.0, interval: float = 0.1) -> RunStatus:
        """Read the run's state until it is done, failed, cancelled or interrupted (or
        ``timeout``); queued runs start by themselves (see the module docstring)."""
        run = self.run(run)
        deadline = time.monotonic() + timeout
        while True:
            st = self.status(run)
            if st.state in FINAL_STATES or st.state == "interrupted":
                return st
            if time.monotonic() >= deadline:
                return st
            time.sleep(interval)

    # ------------------------------------------------------------------ control
    def _signal(self, pid: int, sig: int) -> None:
        try:
            os.killpg(pid, sig)  # the trainer leads its own session (start_new_session)
        except (ProcessLookupError, PermissionError):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)

    def _wait_gone(self, run: Run, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._reap()
            if not read_status(run.path).alive:
                return True
            time.sleep(0.05)
        return False

    def _check_owner(self, run: Run, as_owner: str | None, action: str) -> None:
        """Refuse ``action`` on ``run`` when ``as_owner`` is given and the run records
        another owner (see the module docstring, Ownership)."""
        if as_owner is None:
            return
        owner = read_owner(run.path)
        if owner is None:
            raise RunError(
                f"run {run.id} was started on the server (e.g. with `sgpe train`), not in a "
                f"browser session; only an administrator can {action} it"
            )
        if owner != as_owner:
            raise RunError(
                f"run {run.id} was started in another browser session; only its owner or an "
                f"administrator can {action} it"
            )

    def cancel(
        self, run: Run | str, *, wait: float = 10.0, as_owner: str | None = None
    ) -> RunStatus:
        """Stop a run: a queued run is marked ``cancelled``; a running trainer gets SIGTERM,
        finishes its current merge, writes a final checkpoint and ends ``cancelled``. With
        ``as_owner``, another owner's run is refused."""
        run = self.run(run)
        self._check_owner(run, as_owner, "cancel")
        st = read_status(run.path)
        if st.state == "queued" and not st.alive:
            with run_lock(run.path, wait=2.0):
                data = read_status_data(run.path) or {}
                if data.get("state", "queued") == "queued" and data.get("phase") != "launching":
                    write_status(
                        run.path,
                        {**data, "state": "cancelled", "message": "cancelled before it started"},
                    )
                    return read_status(run.path)
            st = read_status(run.path)
        if not st.alive:
            raise RunError(f"run {run.id} is {st.state}; there is nothing to cancel")
        if st.pid is not None:
            self._signal(st.pid, signal.SIGTERM)
            # A stopped trainer (SIGSTOP, Ctrl-Z) keeps a SIGTERM pending until it runs
            # again: continue it so that it can write its checkpoint and end.
            self._signal(st.pid, signal.SIGCONT)
        self._wait_gone(run, wait)
        st = read_status(run.path)
        if st.state not in FINAL_STATES and not st.alive:
            # The trainer died before it could handle the signal (e.g. while starting).
            with run_lock(run.path, wait=2.0):
                data = read_status_data(run.path) or {}
                write_status(run.path, {**data, "state": "cancelled", "message": "cancelled"})
            st = read_status(run.path)
        return st

    def resume(self, run: Run | str, *, as_owner: str | None = None) -> RunStatus:
        """Queue an interrupted, cancelled or failed run to continue from its newest valid
        checkpoint (launched at once if a slot is free). With ``as_owner``, another owner's
        run is refused."""
        run = self.run(run)
        self._check_owner(run, as_owner, "resume")
        st = read_status(run.path)
        if st.state == "done":
            raise RunError(f"run {run.id} is already done; start a new run to train again")
        if st.alive or st.state not in ("interrupted", "cancelled", "failed"):
            raise RunError(f"run {run.id} is {st.state}; only a stopped run can be resumed")
        if not st.resumable:
            raise RunError(
                f"run {run.id} failed because of its settings or corpus ({st.message}); "
                "resuming would fail the same way: start a new run with other settings"
            )
        verify_corpus(run.path, read_config(run.path))  # before anything changes
        with run_lock(run.path, wait=2.0):
            data = read_status_data(run.path) or {}
            write_status(
                run.path,
                {
                    **data,
                    "state": "queued",
                    "phase": "waiting",
                    "pid": None,
                    "queued_at": time.time(),
                    "message": f"waiting to resume from step {st.checkpoint_step}",
                },
            )
        self._write_queue_file()
        self.poll()
        return read_status(run.path)

    def delete(self, run: Run | str, *, force: bool = False, as_owner: str | None = None) -> None:
        """Remove a run directory. Refuses while a trainer works on it, unless ``force``
        (the trainer is then killed first), and, with ``as_owner``, a run that another
        owner started (pass ``as_owner=None`` only for an administrator)."""
        run = self.run(run)
        self._check_owner(run, as_owner, "delete")
        with self._root_lock():
            st = read_status(run.path)
            if st.alive:
                if not force:
                    raise RunError(
                        f"run {run.id} is {st.state} (pid {st.pid}); cancel it first, or "
                        "delete with force=True"
                    )
                if st.pid is not None:
                    self._signal(st.pid, signal.SIGKILL)
                if not self._wait_gone(run, 10.0):
                    raise RunError(f"run {run.id}: the trainer (pid {st.pid}) did not stop")
            _remove_dir(run.path, run.id)
            self._children.pop(run.id, None)

    # ------------------------------------------------------------------ disk
    def disk_use(self, *, as_owner: str | None = None, survey: Survey | None = None) -> DiskUse:
        """Bytes on disk of the run directories and of the stored uploads (read only).

        With ``as_owner``, only what that owner manages: their runs (as :meth:`delete`;
        not ownerless ones) and the uploads they stored (as :meth:`delete_unused_uploads`).
        With ``survey`` (:meth:`survey`, just made), its run directories instead of a
        scan of their own.
        """
        runs = survey.folders if survey is not None else self._run_dirs()
        if as_owner is not None:
            runs = [r for r in runs if _owner(r) == as_owner]
        files = self._upload_files()
        if as_owner is not None:
            files = [p for p in files if as_owner in self._upload_owners(p)]
        # Which runs use an upload reads every run's config: only when there is an upload
        # to judge (a classroom's visitors, training on sample_data/, have none, and the
        # Train page asks at each redraw of its runs panel).
        used = self._upload_users() if files else {}
        unused = [p for p in files if p.name not in used]
        return DiskUse(
            runs=len(runs),
            runs_bytes=sum(_tree_bytes(r.path) for r in runs),
            uploads=len(files),
            uploads_bytes=sum(_file_bytes(p) for p in files),
            unused_uploads=len(unused),
            unused_bytes=sum(_file_bytes(p) for p in unused),
        )

    def _upload_files(self) -> list[Path]:
        if not self.uploads.is_dir():
            return []
        return sorted(p for p in self.uploads.iterdir() if _UPLOAD.match(p.name) and p.is_file())

    @staticmethod
    def _owners_file(upload: Path) -> Path:
        return upload.with_name(upload.name + UPLOAD_OWNERS_SUFFIX)

    def _upload_owners(self, upload: Path) -> list[str]:
        """Who stored ``upload`` (none: stored without an owner, or an unreadable record)."""
        try:
            data = json.loads(self._owners_file(upload).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        owners = data.get("owners") if isinstance(data, dict) else None
        if not isinstance(owners, list):
            return []
        return [o for o in owners if isinstance(o, str)]

    def _write_upload_owners(self, upload: Path, owners: list[str]) -> None:
        """Record ``owners`` for ``upload`` (the caller holds the root lock)."""
        path = self._owners_file(upload)
        if owners:
            atomic_write(path, json.dumps({"owners": owners}).encode("utf-8"))
        else:
            path.unlink(missing_ok=True)

    def _claim_upload(self, upload: Path, owner: str) -> None:
        owners = self._upload_owners(upload)
        if owner not in owners:
            self._write_upload_owners(upload, [*owners, owner])

    def _upload_users(self) -> dict[str, list[str]]:
        """The runs that refer to each stored upload, by the upload's file name. A run whose
        config.json cannot be read keeps every upload whose name its text mentions."""
        users: dict[str, list[str]] = {}
        uploads = self.uploads.resolve()
        names = [p.name for p in self._upload_files()]
        for run in self._run_dirs():
            try:
                config = _run_meta(run.path)[0]
            except RunError:
                try:
                    text = (run.path / CONFIG).read_text(encoding="utf-8", errors="replace")
                except OSError:
                    text = ""
                for name in names:
                    if name in text:
                        users.setdefault(name, []).append(run.id)
                continue
            for f in config.corpus_files:
                path = resolve(f.path, run.path).resolve()
                if path.parent == uploads:
                    users.setdefault(path.name, []).append(run.id)
        return users

    def delete_upload(self, name: str) -> int:
        """Remove one stored upload (its file name, ``<sha256><ext>``); returns its bytes.
        Refuses an upload that a run refers to: a queued, live or resumable run needs it,
        and a finished one names it as its corpus."""
        if not _UPLOAD.match(name):
            raise RunError(f"{name!r} is not a stored upload (expected <sha256><ext>)")
        path = self.uploads / name
        with self._root_lock():
            if not path.is_file():
                raise RunError(f"no upload {name} under {self.uploads}")
            users = self._upload_users().get(name, [])
            if users:
                states = [self._state_of(run_id) for run_id in users]
                listed = ", ".join(f"{r} ({st})" for r, st in zip(users, states))
                raise RunError(
                    f"upload {name} is the corpus of run(s) {listed}; delete those runs first"
                )
            size = _file_bytes(path)
            path.unlink()
            self._owners_file(path).unlink(missing_ok=True)
        return size

    def _state_of(self, run_id: str) -> str:
        try:
            return read_status(self.root / run_id).state
        except RunError:
            return "unreadable"

    def delete_unused_uploads(self, *, as_owner: str | None = None) -> tuple[int, int]:
        """Remove every stored upload that no run refers to; returns (files, bytes freed).

        With ``as_owner``, only the uploads that owner stored: their claim is given up, and
        the file goes once nobody else claims it (another owner who stored the same bytes
        keeps them). Such uploads count among the files; only removed files free bytes.
        """
        files = size = 0
        with self._root_lock():
            used = self._upload_users()
            for path in self._upload_files():
                if path.name in used:
                    continue
                others: list[str] = []
                if as_owner is not None:
                    owners = self._upload_owners(path)
                    if as_owner not in owners:
                        continue  # another visitor's, or stored without an owner
                    others = [o for o in owners if o != as_owner]
                if others:
                    self._write_upload_owners(path, others)
                    files += 1
                    continue
                n = _file_bytes(path)
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
                    files += 1
                    size += n
                self._owners_file(path).unlink(missing_ok=True)
        return files, size

    def delete_finished(
        self, *, as_owner: str | None = None, keep: frozenset[str] = frozenset()
    ) -> tuple[list[str], int]:
        """Delete the runs that are done or failed (not those in ``keep``; with
        ``as_owner``, only that owner's runs, as :meth:`delete`). Returns the
        ids deleted and the bytes freed. Each run goes whole or not at all."""
        deleted: list[str] = []
        freed = 0
        for info in self.list_runs():
            run = info.run
            if info.status.state not in ("done", "failed") or info.status.alive:
                continue
            if run.id in keep or (as_owner is not None and info.owner != as_owner):
                continue
            size = _tree_bytes(run.path)
            try:
                self.delete(run, as_owner=as_owner)
            except RunError:
                continue  # it started again meanwhile (a resume from another session)
            deleted.append(run.id)
            freed += size
        return deleted, freed


@dataclass(frozen=True)
class Survey:
    """What :meth:`RunManager.survey` found in one scan of the runs folder."""

    runs: list[RunInfo]  # as list_runs: readable runs, newest first
    damaged: list[tuple[Run, str]]  # as damaged_runs
    skipped: list[tuple[str, str]]  # as skipped_dirs
    folders: list[Run]  # every run directory, damaged ones too (disk_use counts them)


@dataclass(frozen=True)
class DiskUse:
    """What :meth:`RunManager.disk_use` found."""

    runs: int
    runs_bytes: int
    uploads: int
    uploads_bytes: int
    unused_uploads: int  # uploads that no run refers to (RunManager.delete_unused_uploads)
    unused_bytes: int


def _owner(run: Run) -> str | None:
    """A run's owner as the listing keeps it (read afresh if its config cannot be read)."""
    try:
        return _run_meta(run.path)[1]
    except RunError:
        return read_owner(run.path)


def _file_bytes(path: Path) -> int:
    try:
        return path.lstat().st_size
    except OSError:
        return 0


def _tree_bytes(path: Path) -> int:
    """Bytes of the files under ``path`` (symbolic links are not followed)."""
    total = 0
    for folder, _, files in os.walk(path):
        total += sum(_file_bytes(Path(folder) / f) for f in files)
    return total


def _remove_dir(path: Path, run_id: str) -> None:
    """Remove a run directory whole: it is renamed out of the runs root's view first (one
    atomic step), then emptied; if that fails midway, what is left is a hidden staging
    directory that :func:`remove_stale_staging` clears later, never half a run."""
    trash = path.with_name(
        f"{INCOMING_PREFIX}deleted-{run_id}-{os.getpid()}-{secrets.token_hex(4)}"
    )
    try:
        os.rename(path, trash)
    except OSError as err:
        raise RunError(
            f"run {run_id}: cannot delete it ({one_line(err)}); nothing was removed"
        ) from None
    shutil.rmtree(trash, ignore_errors=True)

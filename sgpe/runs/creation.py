"""Preparing a run: its corpus (where the trainer reads it, :func:`verify_corpus`,
:func:`relocate_corpus`), a new run directory assembled in a hidden staging directory
(:func:`create_run`), and the removal of staging directories left by killed intakes.
"""

from __future__ import annotations

import os
import secrets
import shutil
import time
from pathlib import Path

from .._atomic import atomic_write, file_sha256
from .._json import dumps_json
from ..corpus.readers import CorpusError, KnownFile
from .config import RunConfig
from .constants import CONFIG, LOCK, RunError
from .sources import corpus_problem, manifest, manifest_sha256, resolve
from .status import pid_alive, write_status


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


def checked_files(run_dir: Path, config: RunConfig) -> dict[Path, KnownFile]:
    """The corpus files with the sizes and sha256 ``config.json`` records (absolute path ->
    :class:`~sgpe.corpus.readers.KnownFile`), for the count of a run whose files were
    just hashed (by :func:`create_run` or :func:`verify_corpus`): it reads them without
    hashing them again. A run with a corpus copy records no files: its count hashes."""
    return {
        resolve(f.path, run_dir).absolute(): KnownFile(f.bytes, f.sha256)
        for f in config.corpus_files
    }


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

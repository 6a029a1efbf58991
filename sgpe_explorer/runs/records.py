"""What the run manager records of a run: :class:`Run` and :class:`RunInfo`, a run's
label and owner files, the cached metadata of listed runs, :class:`RunRequest` (what to
train) and :func:`new_run_id`.
"""

from __future__ import annotations

import json
import os
import secrets
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from sgpe._json import TOO_DEEP
from sgpe.protocol import one_line
from sgpe.runs.constants import FINAL_STATES
from sgpe.runs.format import (
    CONFIG,
    STATES,
    STATUS,
    STATUS_FORMAT,
    RunConfig,
    RunStatus,
    read_config,
    read_status,
)
from sgpe.settings import (
    MECHANICS_FIELDS,
    TRAIN_FIELDS,
    CountOptions,
    RunMechanics,
    TrainSettings,
    split_options,
)

#: ``{"owner": "..."}`` in a run directory: who started the run (see Ownership in
#: :mod:`sgpe_explorer.runs.manager`).
OWNER_FILE = "owner.json"
#: ``{"label": "..."}`` in a run directory: the name its starter gave it (optional).
LABEL_FILE = "label.json"
LABEL_MAX = 80  # characters of a run's name
#: ``{"largest": N}`` in a run directory: the size the Train page said the corpus stops at
#: (asked for more, the run ends there), so its progress counts toward N.
REACH_FILE = "reach.json"
#: The folder of stored uploads under a runs root (never a run).
UPLOADS_DIR = "uploads"


def is_run_name(name: str) -> bool:
    """Whether a folder named ``name`` directly under a runs root may be a run: any visible
    name (a run made with ``sgpe train --out <root>/<name>`` keeps its own) except the
    uploads folder. Hidden names are the manager's own (staging, locks, the queue file),
    and a name is one path component, so an id never leads outside the root."""
    return (
        bool(name)
        and not name.startswith(".")
        and name != UPLOADS_DIR
        and not any(c in name for c in "/\\\0")
    )


def status_problem(run_dir: Path) -> str | None:
    """Why a run's ``status.json`` cannot be read, in one line (None: it can, or it is not
    written yet). The library reads an unreadable status file as a run not started yet
    ("queued"), which showed a damaged run as waiting for a slot, with Cancel; the run
    manager names such a run as damaged instead (docs/reliability.md)."""
    path = run_dir / STATUS
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as err:
        return f"{path}: cannot be read ({one_line(err)})"
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return f"{path}: not UTF-8 text; is the file damaged?"
    except json.JSONDecodeError as err:
        return f"{path}: not valid JSON ({err.msg}, line {err.lineno}); is the file damaged?"
    except RecursionError:
        return f"{path}: {TOO_DEEP}"
    if not isinstance(data, dict):
        return f"{path}: not a JSON object; is the file damaged?"
    state = data.get("state", "queued")
    if state not in STATES:
        return f"{path}: unknown state {state!r} (expected one of {', '.join(STATES)})"
    return None


def status_suspect(status: RunStatus) -> bool:
    """Whether a status read by the library may hide a damaged file (see
    :func:`status_problem`): every status file the trainer and the run manager write
    carries the format tag, and a readable one a known state."""
    return status.raw.get("format") != STATUS_FORMAT or status.state not in STATES


@dataclass(frozen=True)
class Run:
    """A run directory under a runs root."""

    id: str
    path: Path


@dataclass(frozen=True)
class RunInfo:
    run: Run
    config: RunConfig
    status: RunStatus
    owner: str | None = None
    #: the name the run's starter gave it (None: none; pages then name it by its corpus)
    label: str | None = None
    #: where the Train page said training stops, below the size asked (None: not said)
    reachable: int | None = None

    @property
    def goal(self) -> int:
        """The merges the run will make: its status's target, or fewer when the page said
        it stops at :attr:`reachable` (the target counts toward the size asked, and each
        token short of it is one merge fewer, in both models)."""
        target = self.status.target
        asked = int(self.config.vocab_size)
        if self.reachable is None or target <= 0 or self.reachable >= asked:
            return target
        return max(self.status.step, target - (asked - self.reachable), 1)


def check_label(label: str | None) -> str | None:
    """A run name as stored: stripped, at most :data:`LABEL_MAX` characters, printable
    (None or empty: no name). Raises ValueError with what is wrong."""
    if label is None or not label.strip():
        return None
    label = " ".join(label.split())
    if len(label) > LABEL_MAX:
        raise ValueError(f"a run name has at most {LABEL_MAX} characters, this one {len(label)}")
    if not label.isprintable():
        raise ValueError("a run name cannot hold control characters")
    return label


def _read_str_field(path: Path, key: str) -> str | None:
    """The string ``key`` of a small JSON object file (None: missing, unreadable, or not
    a string)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, str) else None


def read_label(run_dir: Path) -> str | None:
    """The name recorded for a run (None: none, or an unreadable file)."""
    label = _read_str_field(run_dir / LABEL_FILE, "label")
    try:
        return check_label(label)
    except ValueError:
        return None


def read_owner(run_dir: Path) -> str | None:
    """The owner recorded for a run (None: no owner, or an unreadable file)."""
    return _read_str_field(run_dir / OWNER_FILE, "owner")


def read_reachable(run_dir: Path) -> int | None:
    """The size recorded in :data:`REACH_FILE` (None: none, or an unreadable file)."""
    try:
        data = json.loads((run_dir / REACH_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    value = data.get("largest") if isinstance(data, dict) else None
    return value if type(value) is int and value > 0 else None


# A run's config.json, owner.json and label.json are written when it is created (config
# again only when its corpus is relocated): list_runs keeps what it parsed of them, keyed
# by each file's mtime and size, and reads only status.json afresh. The app lists every
# run several times per page (sidebar, Train, Compare); parsing 50 configs each time was
# a large part of the Train page's time (python -m bench app, docs/app.md).
_RunMeta = tuple[RunConfig, str | None, str | None, int | None]
_META: dict[Path, tuple[tuple[Any, ...], _RunMeta]] = {}
_META_LOCK = threading.Lock()


def _stamp(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


_META_FILES = (CONFIG, OWNER_FILE, LABEL_FILE, REACH_FILE)


def _run_meta(run_dir: Path) -> _RunMeta:
    """A run's config, owner, label and reachable size (RunError for an unreadable
    config)."""
    # Paths as strings: building pathlib paths for the four stamps was most of a listing's
    # time once the files themselves were kept (docs/app.md, section 11).
    base = os.fspath(run_dir) + os.sep
    key = tuple(_stamp(base + name) for name in _META_FILES)
    with _META_LOCK:
        hit = _META.get(run_dir)
    if hit is not None and hit[0] == key:
        return hit[1]
    meta = (read_config(run_dir), read_owner(run_dir), read_label(run_dir), read_reachable(run_dir))
    with _META_LOCK:
        _META[run_dir] = (key, meta)
    return meta


# A finished run's status.json (done, failed, cancelled) is not written again until the
# run is resumed, and what read_status makes of it depends on the file alone (a live
# run's also on its trainer's lock and the clock). So the listing keeps a finished run's
# status per file (inode, mtime, size; a rewrite is a new file) and reads afresh only
# the others. The Train page's runs panel lists every run once a second while a run of
# the visitor's is live: reading and parsing 50 finished statuses twice on each tick was
# most of the listing's time (docs/app.md, section 11).
_STATUS: dict[Path, tuple[tuple[int, int, int], RunStatus]] = {}
#: status files read by :func:`kept_status` (tests/test_app_classroom.py counts them)
STATUS_READS = [0]


def kept_status(run_dir: Path) -> RunStatus:
    """:func:`sgpe.runs.format.read_status` of ``run_dir``, kept while a finished run's
    status file is unchanged."""
    try:
        st = os.stat(os.path.join(run_dir, STATUS))
        key: tuple[int, int, int] | None = (st.st_ino, st.st_mtime_ns, st.st_size)
    except OSError:
        key = None
    if key is not None:
        with _META_LOCK:
            hit = _STATUS.get(run_dir)
        if hit is not None and hit[0] == key:
            return hit[1]
    status = read_status(run_dir)
    with _META_LOCK:
        STATUS_READS[0] += 1
        if key is not None and status.state in FINAL_STATES and not status.alive:
            _STATUS[run_dir] = (key, status)
        else:
            _STATUS.pop(run_dir, None)
    return status


def _forget_meta(root: Path, present: set[Path]) -> None:
    """Drop what is kept of runs under ``root`` that are gone."""
    with _META_LOCK:
        for kept in (_META, _STATUS):
            for path in [p for p in kept if p.parent == root and p not in present]:
                del kept[path]


@dataclass(frozen=True, init=False)
class RunRequest:
    """What to train: the corpus (a path, the bytes of an upload, or a binary file object
    such as Streamlit's ``UploadedFile``) and the settings.

    ``name`` is the upload's file name; it decides the format by its extension and is
    recorded in ``vocab.json``. It is required unless ``corpus`` is a path. The settings
    are :class:`~sgpe.settings.TrainSettings` and :class:`~sgpe.settings.RunMechanics`
    objects, or their fields as keywords (``RunRequest(path, vocab_size=4000,
    checkpoint_every=200)``), with their defaults.
    """

    corpus: str | Path | bytes | BinaryIO
    name: str | None
    settings: TrainSettings
    mechanics: RunMechanics
    #: who starts the run (the app: a digest of the visitor's owner key); see Ownership above
    owner: str | None
    #: how the corpus is counted (recorded in the run, used again when it resumes)
    counting: CountOptions
    #: a name for the run (see check_label), shown by the app instead of its id
    label: str | None
    #: the size the page said the corpus stops at, below ``vocab_size`` (see REACH_FILE)
    reachable: int | None

    def __init__(
        self,
        corpus: str | Path | bytes | BinaryIO,
        name: str | None = None,
        *,
        settings: TrainSettings | None = None,
        mechanics: RunMechanics | None = None,
        owner: str | None = None,
        counting: CountOptions | None = None,
        label: str | None = None,
        reachable: int | None = None,
        **options: Any,
    ) -> None:
        train, mech = split_options(options, "RunRequest")
        if (train and settings is not None) or (mech and mechanics is not None):
            raise TypeError("RunRequest: give the settings objects or flat keywords, not both")
        object.__setattr__(self, "corpus", corpus)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "settings", settings or TrainSettings(**train))
        object.__setattr__(self, "mechanics", mechanics or RunMechanics(**mech))
        object.__setattr__(self, "owner", owner)
        object.__setattr__(self, "counting", counting or CountOptions())
        object.__setattr__(self, "label", check_label(label))
        if reachable is not None and (type(reachable) is not int or reachable < 1):
            raise ValueError(f"reachable must be a positive integer or None, got {reachable!r}")
        object.__setattr__(self, "reachable", reachable)

    def __getattr__(self, name: str) -> Any:
        if name in TRAIN_FIELDS:
            return getattr(object.__getattribute__(self, "settings"), name)
        if name in MECHANICS_FIELDS:
            return getattr(object.__getattribute__(self, "mechanics"), name)
        raise AttributeError(f"RunRequest has no attribute {name!r}")

    def config(self) -> RunConfig:
        return RunConfig(self.settings, self.mechanics, counting=self.counting)


def new_run_id() -> str:
    """``YYYYMMDD-HHMMSS-xxxxxx`` (UTC time + 6 random hex digits): sortable, unique."""
    return f"{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}-{secrets.token_hex(3)}"

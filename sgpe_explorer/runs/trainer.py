"""The trainer process :class:`~sgpe_explorer.runs.manager.RunManager` starts for a run:
``sgpe train`` on the run directory, then the queued runs of its runs root that the slot
it frees allows (:func:`~sgpe_explorer.runs.manager.start_queued`), so the queue moves with
no app page open. The library's ``sgpe train`` knows nothing of queues: the queue is the
manager's, and the library never imports this package.

Usage (the manager's command line): ``python -m sgpe_explorer.runs.trainer <sgpe train
arguments, with --out RUN_DIR>``.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from sgpe.cli import main as sgpe_main
from sgpe.runs.format import LOG

# Imported before training, not after: the queue starts the moment the run has ended.
from .manager import QUEUE_FILE, start_queued


def _run_dir(args: Sequence[str]) -> Path | None:
    """The ``--out`` of an ``sgpe train`` argument list (None without one)."""
    for i, arg in enumerate(args):
        if arg == "--out" and i + 1 < len(args):
            return Path(args[i + 1])
        if arg.startswith("--out="):
            return Path(arg.removeprefix("--out="))
    return None


def start_next(run_dir: Path) -> None:
    """Start the queued runs the slot of the run that ended frees. Never fails that run:
    a problem is written to its log."""
    root = run_dir.absolute().parent
    if not (root / QUEUE_FILE).exists():
        return  # not a managed runs root
    try:
        start_queued(root)
    except Exception as err:
        with contextlib.suppress(OSError), open(run_dir / LOG, "a", encoding="utf-8") as f:
            f.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} could not start queued runs: {err}\n")


def main(argv: Sequence[str] | None = None) -> int:
    """Train (``sgpe train`` with these arguments), then start what the queue allows."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        return sgpe_main(["train", *args])
    finally:
        run_dir = _run_dir(args)
        if run_dir is not None:
            start_next(run_dir)


if __name__ == "__main__":
    sys.exit(main())

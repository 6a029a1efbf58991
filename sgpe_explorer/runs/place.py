"""Where training runs are kept when nobody says: the one rule for the app, ``sgpe app`` and
the run manager's callers.

1. ``$SGPE_RUNS_DIR``, when set;
2. ``runs/`` in the checkout, when sgpe runs from one (a contributor's tree: the top-level
   ``pyproject.toml`` and ``app.py`` beside the package);
3. else a per-user data directory: ``$XDG_DATA_HOME/sgpe-explorer/runs`` (``~/.local/share``
   when unset) on Linux and other Unix systems, ``~/Library/Application Support`` on macOS,
   ``%LOCALAPPDATA%`` on Windows. An installed package never writes into site-packages.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

RUNS_ENV = "SGPE_RUNS_DIR"
APP_NAME = "sgpe-explorer"


def checkout_root() -> Path | None:
    """The checkout sgpe runs from, or None for an installed package."""
    root = Path(__file__).resolve().parents[2]
    if (root / "pyproject.toml").is_file() and (root / "app.py").is_file():
        return root
    return None


def user_data_dir() -> Path:
    """This user's data directory for sgpe (not created here)."""
    home = Path.home()
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or home / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = home / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share")
    return base / APP_NAME


def default_runs_dir() -> Path:
    """Where runs live when no caller names a directory (the module doc's three rules)."""
    env = os.environ.get(RUNS_ENV)
    if env:
        return Path(env)
    root = checkout_root()
    return root / "runs" if root is not None else user_data_dir() / "runs"

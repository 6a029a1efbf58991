"""``sgpe app``: start the explorer with Streamlit, from an installed package or a checkout.

It runs ``streamlit run`` (through :mod:`sgpe_explorer.app.serve`) on
:mod:`sgpe_explorer.app.main` (the file inside the package, so any working directory will do) with the app's Streamlit settings, :data:`STREAMLIT_OPTIONS`,
given as flags: an installed package has no ``.streamlit/config.toml`` beside the visitor's working
directory, and Streamlit reads its settings from there. The checkout keeps that file for
``streamlit run app.py``; ``tests/test_launch.py`` proves the two agree. Arguments after
``sgpe app`` go to Streamlit after these, so the visitor's own win
(``sgpe app --server.port 8600``).

Where training runs are kept is decided once here
(:func:`sgpe_explorer.runs.place.default_runs_dir`), named on the terminal, and handed to the
app in ``$SGPE_RUNS_DIR``.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from sgpe_explorer.runs import place

MAIN = Path(__file__).resolve().parent / "main.py"

# The app's Streamlit settings, section.option -> value (strings, as on the command line).
STREAMLIT_OPTIONS: dict[str, str] = {
    "global.developmentMode": "false",
    "server.headless": "true",
    # MB per uploaded file (training corpora can be large).
    "server.maxUploadSize": "200",
    # A served app watches no files: Streamlit's watcher would walk every folder under the
    # main script's (a checkout's .venv/ too), overflow inotify and rescan while any visitor
    # is connected. A contributor who edits pages passes --server.fileWatcherType auto.
    "server.fileWatcherType": "none",
    "server.runOnSave": "false",
    # No full garbage collection after every script run: in a server holding the app's
    # tokenizers and tables it took 0.125 CPU-s a run, a third of a classroom visitor's
    # script time (docs/app.md, section 11); Python's own collector still runs.
    "runner.postScriptGC": "false",
    # No "magic": no page shows a bare expression, and rewriting each page's syntax tree
    # for it cost 0.04-0.1 CPU-s whenever Streamlit compiled the page again (each time the
    # server's last visitor left; docs/app.md, section 11).
    "runner.magicEnabled": "false",
    "browser.gatherUsageStats": "false",
    # No "Deploy" button or developer menu items for the app's users.
    "client.toolbarMode": "minimal",
    # Never a traceback on a page: the frame (sgpe_explorer/app/main.py) shows a one-line
    # message for anything a page did not handle itself and logs the traceback on the server.
    "client.showErrorDetails": "none",
    "theme.base": "light",
    "theme.primaryColor": "#2f6f8f",
    "theme.backgroundColor": "#fbfbf8",
    "theme.secondaryBackgroundColor": "#eef2f3",
    "theme.textColor": "#1f2a30",
    "theme.font": "sans-serif",
}


def streamlit_command(args: Sequence[str] = ()) -> list[str]:
    """The ``streamlit run`` command line for the app, *args* last. It runs Streamlit
    through :mod:`sgpe_explorer.app.serve`, whose ``index.html`` names the server, so a
    page's own link (``/compare``) costs the browser no 404s."""
    flags = [f"--{name}={value}" for name, value in STREAMLIT_OPTIONS.items()]
    return [sys.executable, "-m", "sgpe_explorer.app.serve", "run", str(MAIN), *flags, *args]


def launch(args: Sequence[str] = ()) -> int:
    """Start the app (replacing this process where the system allows); the exit code."""
    if importlib.util.find_spec("streamlit") is None:
        print(
            "sgpe: error: the explorer needs Streamlit and the app's other packages: "
            'pip install "sgpe-explorer[app]"',
            file=sys.stderr,
        )
        return 2
    runs = place.default_runs_dir().expanduser().resolve()
    print(
        f"sgpe app: training runs are kept in {runs} (set {place.RUNS_ENV} to choose another)",
        file=sys.stderr,
        flush=True,
    )
    os.environ[place.RUNS_ENV] = str(runs)
    command = streamlit_command(args)
    if os.name == "posix":
        # One process, so a signal to `sgpe app` (Ctrl-C, a service manager) reaches Streamlit.
        os.execv(command[0], command)
    return subprocess.call(command)

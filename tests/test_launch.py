"""`sgpe app` and where runs are kept (sgpe_explorer/app/launch.py,
sgpe_explorer/runs/place.py), without a browser: the launcher's Streamlit settings are the checkout's, Streamlit takes them (and
the visitor's own flags over them), and the runs folder follows its three rules. The
launched app itself is opened in Chromium by tests/test_browser.py (from the checkout) and
tests/test_wheel.py (from an installed wheel)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

from sgpe_explorer.app.launch import MAIN, STREAMLIT_OPTIONS, streamlit_command
from sgpe_explorer.runs import place

ROOT = Path(__file__).resolve().parents[1]


def test_the_launcher_sets_what_the_checkouts_config_sets() -> None:
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    flat = {
        f"{section}.{name}": str(value).lower() if isinstance(value, bool) else str(value)
        for section, options in config.items()
        for name, value in options.items()
    }
    assert flat == STREAMLIT_OPTIONS
    assert STREAMLIT_OPTIONS["server.fileWatcherType"] == "none"
    # No full collection after each script run (0.125 CPU-s a run: docs/app.md, section 11).
    assert STREAMLIT_OPTIONS["runner.postScriptGC"] == "false"


def test_no_page_needs_streamlits_magic() -> None:
    """Magic is off (runner.magicEnabled): a bare expression in a page script, which magic
    would have drawn, would now draw nothing. No page or the frame has one (a docstring
    is not one: magic never drew those)."""
    import ast

    scripts = [MAIN, *sorted((MAIN.parent / "app_pages").glob("*.py"))]
    assert len(scripts) == 8
    bare = []
    for script in scripts:
        tree = ast.parse(script.read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0])
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and node.body
        }
        bare += [
            f"{script.name}:{node.lineno}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Expr)
            and not isinstance(node.value, (ast.Call, ast.Await, ast.Yield, ast.YieldFrom))
            and not (isinstance(node.value, ast.Constant) and id(node) in docstrings)
        ]
    assert STREAMLIT_OPTIONS["runner.magicEnabled"] == "false"
    assert bare == []


def test_streamlit_takes_the_settings_and_the_visitors_flags_win() -> None:
    """Streamlit itself reads the command line: every setting of the launcher is known to
    it, and a flag given after `sgpe app` overrides the launcher's."""
    pytest.importorskip("streamlit")
    command = streamlit_command(["--server.maxUploadSize=50"])
    assert command[:5] == [sys.executable, "-m", "sgpe_explorer.app.serve", "run", str(MAIN)]
    # Streamlit's own parsing of `streamlit run`'s flags, then its own loading of them.
    code = (
        "import sys\n"
        "from streamlit import config\n"
        "from streamlit.web import bootstrap, cli\n"
        "ctx = cli.main.commands['run'].make_context('run', sys.argv[1:])\n"
        "bootstrap.load_config_options(flag_options=ctx.params)\n"
        "for name in sys.stdin.read().split():\n"
        "    print(name, config.get_option(name))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *command[4:]],
        input=" ".join(STREAMLIT_OPTIONS),
        capture_output=True,
        text=True,
        cwd=ROOT / "tests",  # no .streamlit/config.toml there: only the flags count
        env={**os.environ, "HOME": str(ROOT / "tests" / "data")},
    )
    assert done.returncode == 0, done.stderr
    got = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    want = {**STREAMLIT_OPTIONS, "server.maxUploadSize": "50"}
    assert {k: v.lower() for k, v in got.items()} == {k: v.lower() for k, v in want.items()}


def test_runs_are_kept_where_the_variable_the_checkout_or_the_user_says(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(place.RUNS_ENV, str(tmp_path / "mine"))
    assert place.default_runs_dir() == tmp_path / "mine"
    monkeypatch.delenv(place.RUNS_ENV)
    assert place.checkout_root() == ROOT  # these tests run from a checkout
    assert place.default_runs_dir() == ROOT / "runs"
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    if sys.platform.startswith("linux"):
        assert place.user_data_dir() == tmp_path / "xdg" / "sgpe-explorer"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    if sys.platform.startswith("linux"):
        assert place.user_data_dir() == tmp_path / "home" / ".local" / "share" / "sgpe-explorer"


def test_sgpe_app_without_streamlit_says_which_extra_to_install() -> None:
    """A library-only install (no extra `app`): one line naming the install command."""
    code = (
        "import importlib.util, sys\n"
        "real = importlib.util.find_spec\n"
        "importlib.util.find_spec = lambda n, *a: None if n == 'streamlit' else real(n, *a)\n"
        "from sgpe.cli import main\n"
        "sys.exit(main(['app']))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr == (
        "sgpe: error: the explorer needs Streamlit and the app's other packages: "
        'pip install "sgpe-explorer[app]"\n'
    )

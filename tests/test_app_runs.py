"""The Train page and the runs on the server, under ``streamlit.testing.v1.AppTest``:

* a run whose ``status.json`` cannot be read is named as damaged, not shown as queued;
* once the form has said where training stops, the run's progress counts toward that size;
* the default form does not warn about itself;
* the operator's own browser (``SGPE_ADMIN_OWNERS``) manages a run made on the server;
* the sidebar's menus tell runs of one name apart by their start.

The fixtures are tests/test_app.py's: runs go to a temporary ``SGPE_RUNS_DIR``; a
visitor's owner key is set in the session, as the cookie would (tests/test_app_words.py).
tests/test_browser_runs.py checks the visitor's side in a browser.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

pytest.importorskip("streamlit", reason="streamlit not installed: pip install -e '.[app]'")
from streamlit.testing.v1 import AppTest

# The fixtures of tests/test_app.py: runs in a temporary SGPE_RUNS_DIR (autouse).
from test_app import APP, REPO_ROOT, TIMEOUT, runs_dir  # noqa: F401
from test_app_words import KEY, LINES, ME

from sgpe.runs.format import STATUS_FORMAT

SINHALA_TXT = REPO_ROOT / "sgpe" / "sample_data" / "sinhala.txt"


def open_page(page: str) -> AppTest:
    """The app as this visitor (owner key ``KEY``) on ``page``."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state["owner_key"] = KEY
    at.run()
    at.switch_page(f"app_pages/{page}").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def texts(elements: object) -> list[str]:
    return [str(e.value).replace("\\", "") for e in elements]  # type: ignore[attr-defined]


def button_keys(at: AppTest) -> set[str]:
    return {str(b.key) for b in at.button}


def progress(at: AppTest) -> list[tuple[int, str]]:
    return [(int(el.proto.value), str(el.proto.text)) for el in at.get("progress")]


def test_a_run_whose_status_is_damaged_is_named_not_queued(runs_dir: Path) -> None:
    """It showed "queued: it starts on its own…" with Cancel and Delete."""
    from sgpe_explorer.runs.manager import RunManager, RunRequest

    manager = RunManager(runs_dir)
    text = ("\n".join(LINES * 20) + "\n").encode("utf-8")
    run = manager.start(RunRequest(text, name="a.txt", vocab_size=300, owner=ME))
    assert manager.wait(run).state == "done"
    (run.path / "status.json").write_text('{"state": "done", "step": 12', encoding="utf-8")
    at = open_page("train.py")
    assert not at.exception, [e.value for e in at.exception]
    (said,) = [w for w in texts(at.warning) if run.id in w]
    assert said.startswith(f"Run {run.id} cannot be shown: status.json: not valid JSON"), said
    assert not [t for _, t in progress(at) if t.startswith("queued")]
    assert not {f"cancel_{run.id}", f"delete_{run.id}"} & button_keys(at)


def test_progress_counts_toward_where_the_page_said_it_stops(runs_dir: Path) -> None:
    """After the warning "training stops at 6,039", the progress line and the ETA counted
    toward the size asked, and the bar jumped to done from a sixth of the way."""
    from sgpe_explorer.runs.manager import RunManager

    at = open_page("train.py")
    at.toggle(key="train_base").set_value(False).run()
    at.text_input(key="train_vocab_size").set_value("8000").run()
    (warned,) = [w for w in texts(at.warning) if "training stops at" in w]
    reach = int(re.search(r"training stops at ([\d,]+) tokens", warned)[1].replace(",", ""))  # type: ignore[index]
    at.button(key="train_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    manager = RunManager(runs_dir)
    (info,) = manager.list_runs()
    assert manager.wait(info.run, timeout=60).state == "done"
    (info,) = manager.list_runs()
    assert info.reachable == reach and info.status.trained_size == reach
    target = info.status.target  # merges toward 8,000
    goal = target - (8000 - reach)  # merges toward where it stops
    # The run as it was halfway to where it stops (its trainer gone: "interrupted").
    half = goal // 2
    (info.run.path / "status.json").write_text(
        json.dumps(
            {
                "format": STATUS_FORMAT,
                "state": "merging",
                "phase": "merging",
                "step": half,
                "target": target,
                "merges_per_s": 100.0,
                "eta_s": (target - half) / 100.0,
                "heartbeat": time.time() - 3600,
            }
        ),
        encoding="utf-8",
    )
    at.run()
    eta = (goal - half) / 100.0
    eta_text = f"{eta:.0f} s" if eta < 120 else f"{eta / 60:.1f} min"
    assert (
        int(100 * half / goal),
        f"merging: step {half:,} of {goal:,} · 100 merges/s · ETA {eta_text}",
    ) in progress(at), progress(at)


def test_the_default_form_reaches_its_size_on_its_first_corpus() -> None:
    """32,000 tokens on sinhala.txt opened with two warnings that this corpus gives at most
    6,039 / 5,717 tokens."""
    at = open_page("train.py")
    assert at.selectbox(key="train_sample").value == "sinhala.txt"
    assert at.toggle(key="train_base").value is True
    assert at.text_input(key="train_vocab_size").value == "4,000".replace(",", "")
    assert texts(at.warning) == [] and texts(at.error) == []
    assert not at.button(key="train_start").disabled
    assert "vocab_size" not in at.query_params  # the form's default stays out of the link


def test_the_operators_browser_manages_the_servers_runs(
    runs_dir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A run made with `sgpe train --out <runs>/my-cli-run` is read-only to a visitor;
    the browser whose owner id is in SGPE_ADMIN_OWNERS deletes it."""
    from sgpe.cli import main as cli

    corpus = tmp_path / "c.txt"
    corpus.write_text("\n".join(LINES * 20) + "\n", encoding="utf-8")
    out = runs_dir / "my-cli-run"
    argv = ["train", "--corpus", str(corpus), "--vocab-size", "300", "--out", str(out)]
    assert cli(argv) == 0
    at = open_page("train.py")
    assert "Your runs (0)" in texts(at.subheader)
    assert "Runs started on the server (1, read-only)" in [e.label for e in at.expander]
    assert at.button(key="train_clean_runs").label == "Delete 0 finished or failed run(s)"
    assert "delete_my-cli-run" not in button_keys(at)
    monkeypatch.setenv("SGPE_ADMIN_OWNERS", f"someone-else, {ME}")
    at = open_page("train.py")
    assert "Your runs (1)" in texts(at.subheader)
    assert at.button(key="train_clean_runs").label == "Delete 1 finished or failed run(s)"
    at.button(key="delete_my-cli-run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert not out.exists()
    assert "Deleted run my-cli-run." in texts(at.info)


def test_the_sidebar_tells_runs_of_one_name_apart(runs_dir: Path) -> None:
    """Two runs read "sinhala.txt, 600 tokens · SGPE hierarchic…" alike in the sidebar,
    which shows about 38 characters of a choice."""
    from sgpe_explorer.runs.manager import RunManager, RunRequest

    manager = RunManager(runs_dir, max_running=2)
    runs = [
        manager.start(RunRequest(SINHALA_TXT, vocab_size=600, heartbeat_seconds=0.1))
        for _ in range(3)
    ]
    for run in runs:
        assert manager.wait(run, timeout=60).state == "done"
    at = open_page("train.py")
    menu = at.sidebar.selectbox(key="side_tok")
    shown = list(menu.options)  # as the menu shows them (format_func applied)
    assert shown[0].startswith("shipped")
    heads = [s[:38] for s in shown[1:]]
    assert len(set(heads)) == 3, shown
    for head in heads:
        # Runs of one name and minute: the random end of the id before the start.
        assert re.fullmatch(
            r"sinhala\.txt · (?:[0-9a-f]{6} · )?\d\d [A-Z][a-z]{2} \d\d:\d\d.*", head
        ), head

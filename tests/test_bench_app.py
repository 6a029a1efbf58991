"""``python -m bench app`` (bench/app.py): the app's speed budgets and its classroom.

The plan of the runs directory and the report are checked on their own (fast); the whole
bench runs once end to end on a tiny configuration (2 runs of 2 visitors, 1 repeat, a
classroom of 2) with the real server, trainers and Debian's Chromium, as
tests/test_browser.py does: it proves the bench measures, not what it measures.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest

from bench import app
from bench.__main__ import main


def test_the_runs_are_shared_evenly_and_each_visitor_has_both_models() -> None:
    planned = app.plan(50, 10)
    assert Counter(p["visitor"] for p in planned) == {v: 5 for v in range(10)}
    for v in range(10):
        assert {p["model"] for p in planned if p["visitor"] == v} == {"sgpe", "bytebpe"}
    assert all(p["vocab_size"] in app.SIZES[p["model"]] for p in planned)
    assert app.plan(50, 10) == planned  # the cache is kept only for the same plan


def test_owner_keys_are_what_the_app_accepts_and_records() -> None:
    from sgpe_explorer.ui import owner

    keys = {app.owner_key(v) for v in range(10)}
    assert len(keys) == 10 and all(owner.KEY_RE.fullmatch(k) for k in keys)
    assert app.owner_digest(app.owner_key(0)) == owner.digest(app.owner_key(0))


def test_the_report_says_each_budget_met_or_missed() -> None:
    row = {"page": "compare", "runs": "50 runs", "repeats": 3, "open_s": 1.0,
           "first_s": 0.5, "again_s": 0.4, "b_open_s": 3.0, "b_first_s": 4.0,
           "b_again_s": 1.0, "b_first_marker_s": 1.9, "b_again_marker_s": 0.8, "load": 2.5}  # fmt: skip
    slow = {k: v for k, v in row.items() if "marker" not in k}  # only Compare has a marker
    slow.update(page="train", runs="5 own runs only", b_first_s=1.6)
    record = {"after": {"meta": {"command": "python -m bench app", "date": "d", "machine": "m"},
                        "pages": [row, slow]}}  # fmt: skip
    lines = app.render(record).splitlines()
    # Compare's budget is on its tokens (1.9 s), not on the corpus table below them.
    assert "| compare | 50 runs | 3.00 | 1.90 | 0.80 | 0.50 | 0.40 | ≤ 2.0 s: met | 2.5 |" in lines
    assert "| train | 5 own runs only | 3.00 | 1.60 | 1.00 | 0.50 | 0.40 | ≤ 1.5 s: missed | 2.5 |" in lines  # fmt: skip


def _needs_chromium() -> None:
    """Skip unless Debian's Chromium and Playwright are there (the classroom drives them)."""
    if not app.CHROMIUM.exists():
        pytest.skip(f"{app.CHROMIUM} not found: run scripts/install_browser.sh")
    pytest.importorskip("playwright.sync_api")


# Slow (about 95 s: two app servers, browsers and training runs): the default suite stays
# under the 15 minutes CI gives it; the bench's parts above run by default.
@pytest.mark.slow
@pytest.mark.browser
def test_the_bench_runs_end_to_end_on_a_tiny_configuration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _needs_chromium()
    argv = ["app", "--runs", "2", "--owners", "2", "--repeats", "1", "--visitors", "2",
            "--cache", str(tmp_path / "cache"), "--out", str(tmp_path), "--label", "tiny"]  # fmt: skip
    monkeypatch.setenv("PYTHONPATH", os.environ.get("PYTHONPATH") or str(app.ROOT))
    assert main(argv) == 0
    record = json.loads((tmp_path / "app.json").read_text(encoding="utf-8"))["tiny"]
    assert [(r["page"], r["runs"]) for r in record["pages"]] == [
        ("train", "2 runs (1 own)"),
        ("train", "1 own runs only"),
        ("vocabulary", "2 runs"),
        ("compare", "2 runs"),
    ]
    for r in record["pages"]:
        assert all(r[k] > 0 for k in ("open_s", "first_s", "again_s", "b_first_s", "b_again_s"))
    room = record["classroom"]
    assert room["errors"] == [] and room["same_tokens"]
    assert room["runs_started"] == room["runs_done"] == 2
    assert room["steps"]["compare_s"]["n"] == 2
    memory = record["memory"]  # the tour: the size check's worker is gone afterwards
    assert memory["errors"] == [] and memory["workers_left"] == [] and memory["rss_mb"] > 0
    report = (tmp_path / "app.md").read_text(encoding="utf-8")
    assert "## tiny" in report and "Classroom: 2 visitors, errors 0" in report
    assert "memory: 2 runs, 7 pages, two visitors, a 16 MB upload checked" in report
    # The trained runs are kept: a second build finds them and trains nothing.
    root = app.build_runs(tmp_path / "cache", 2, 2, log=pytest.fail)
    assert len([p for p in root.iterdir() if p.is_dir() and p.name[0].isdigit()]) == 2


def test_the_cpu_log_sums_each_thread_group_between_the_two_signals(tmp_path: Path) -> None:
    """bench/app_cpu.py's hooks in a real process: a thread that works inside the window
    counts, one that worked and ended before it does not, and one that ends inside it
    counts up to its end."""
    log = tmp_path / "cpu.jsonl"
    script = f"""
import os, signal, threading, time
from bench import app_cpu
app_cpu.install({str(log)!r})

def work(seconds):
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass

before = threading.Thread(target=work, args=(0.3,), name="before-1")
before.start(); before.join()
idle = threading.Event()
long = threading.Thread(target=lambda: (work(0.2), idle.wait(), work(0.2)), name="long-2")
long.start()
time.sleep(0.5)
os.kill(os.getpid(), signal.SIGUSR1)
inside = threading.Thread(target=work, args=(0.4,), name="inside-3")
inside.start(); inside.join()
import gc
gc.collect(); gc.collect()  # two full passes inside the window
idle.set()
time.sleep(0.5)
os.kill(os.getpid(), signal.SIGUSR1)
long.join()
"""
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(app.ROOT)}
    subprocess.run([sys.executable, "-c", script], check=True, env=env, cwd=tmp_path, timeout=60)
    from bench import app_cpu

    records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    groups, runs = app_cpu.window(records)
    assert runs == []
    assert "before" not in groups
    assert 0.35 <= groups["inside"] <= 0.6
    assert 0.15 <= groups["long"] <= 0.4  # its second half only
    assert app_cpu._group("ThreadPoolExecutor-0_3") == "ThreadPoolExecutor"
    assert app_cpu._group("Thread-12 (build)") == "Thread"
    full_passes, full_cpu = app_cpu.gc_window(records)[2]
    assert full_passes >= 2 and full_cpu > 0  # the collector's passes, counted too


@pytest.mark.slow
@pytest.mark.browser
def test_a_classroom_with_a_cpu_log_says_where_the_servers_cpu_went(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _needs_chromium()
    log = tmp_path / "cpu.jsonl"
    argv = ["app", "--only", "classroom", "--runs", "2", "--owners", "2", "--visitors", "2",
            "--cache", str(tmp_path / "cache"), "--out", str(tmp_path), "--cpu-log", str(log)]  # fmt: skip
    monkeypatch.setenv("PYTHONPATH", os.environ.get("PYTHONPATH") or str(app.ROOT))
    assert main(argv) == 0
    from bench import app_cpu

    records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    groups, runs = app_cpu.window(records)
    assert groups["MainThread"] > 0 and groups["ScriptRunner.scriptThread"] > 0
    pages = Counter(r["page"] for r in runs if not r["fragment"])
    # Each visitor: Compare opened and pasted into, Train opened and Start pressed.
    assert pages["Compare"] >= 4 and pages["Train"] >= 4, pages
    text = app_cpu.summary(log, 2)
    assert "| MainThread |" in text and "| whole page (Compare) |" in text

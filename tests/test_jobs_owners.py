"""The run manager and the runs an operator makes on the server: a run made with
``sgpe train --out <runs>/<any-name>`` is listed whatever its folder's name, but it is the
administrator's alone (no visitor cancels, resumes or deletes it, or counts it as theirs);
a run whose ``status.json`` cannot be read is named as damaged, never read as queued; a
run records where the Train page said it stops. Real trainer processes, as
tests/test_jobs.py."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from sgpe.cli import main as cli
from sgpe.runs import RunError
from sgpe.settings import TrainSettings
from sgpe_explorer.runs.manager import REACH_FILE, RunManager, RunRequest, size_range
from sgpe_explorer.runs.records import RunInfo

LINES = [
    "ශ්‍රී ලංකාව ඉන්දියන් සාගරයේ පිහිටි ලස්සන දූපතකි.",
    "ක්‍රීඩා පිටියේ ළමයින් සෙල්ලම් කරති.",
    "ගුරුවරු ව්‍යාකරණ පාඩම් සරලව උගන්වති.",
]
TEXT = "\n".join(a + " " + b for a in LINES for b in LINES) + "\n"
SMALL = {"vocab_size": 300, "heartbeat_seconds": 0.1}


def cli_run(root: Path, name: str, corpus: Path) -> Path:
    """A finished run made the operator's way: ``sgpe train --out <root>/<name>``."""
    out = root / name
    argv = ["train", "--corpus", str(corpus), "--vocab-size", "300", "--out", str(out)]
    assert cli(argv) == 0
    return out


def test_a_cli_run_of_any_name_is_listed_and_only_an_administrator_manages_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before, a run folder not named like 20261128-174100-c10029 was never listed, and an
    ownerless run that was listed could be deleted by any visitor ("Deleted run ...")."""
    root = tmp_path / "runs"
    corpus = tmp_path / "c.txt"
    corpus.write_text(TEXT, encoding="utf-8")
    path = cli_run(root, "my-cli-run", corpus)
    (root / "notes").mkdir()  # a folder of the operator's that is not a run
    jobs = RunManager(root)
    mine = jobs.start(RunRequest(TEXT.encode(), name="a.txt", owner="alice", **SMALL))
    assert jobs.wait(mine).state == "done"

    infos = {i.run.id: i for i in jobs.list_runs()}
    assert set(infos) == {"my-cli-run", mine.id}
    assert infos["my-cli-run"].owner is None and infos["my-cli-run"].status.state == "done"
    assert jobs.run("my-cli-run").path == path
    assert jobs.skipped_dirs() == [("notes", "not a run directory: it has no config.json")]
    for bad in ("..", ".hidden", "uploads", "a/b", "../runs/my-cli-run", "notes"):
        with pytest.raises(RunError):
            jobs.run(bad)

    before = sorted(p.name for p in path.iterdir())
    for action in (jobs.delete, jobs.cancel, jobs.resume):
        with pytest.raises(RunError, match="only an administrator can"):
            action("my-cli-run", as_owner="alice")
    assert sorted(p.name for p in path.iterdir()) == before
    # The bulk cleanup and the disk figures of a visitor count only their own runs.
    assert jobs.disk_use(as_owner="alice").runs == 1
    assert jobs.disk_use(as_owner="bob").runs == 0
    assert jobs.delete_finished(as_owner="bob") == ([], 0)
    deleted, _ = jobs.delete_finished(as_owner="alice")
    assert deleted == [mine.id] and path.is_dir()
    jobs.delete("my-cli-run")  # as_owner=None: the administrator (or a library caller)
    assert not path.exists()


def test_a_damaged_status_is_named_not_queued(tmp_path: Path) -> None:
    """A status.json that cannot be read made the run look queued (with Cancel), and the
    queue would have launched it again; now it is left out of the list, named with the
    reason, and left untouched."""
    jobs = RunManager(tmp_path / "runs")
    good = jobs.start(RunRequest(TEXT.encode(), name="a.txt", **SMALL))
    bad = jobs.start(RunRequest(TEXT.encode(), name="b.txt", **SMALL))
    assert jobs.wait(good).state == "done" and jobs.wait(bad).state == "done"
    cases = {
        b'{"format": "sgpe-run-sta': "not valid JSON",
        b"\xff\xfe{}": "not UTF-8 text",
        b"[1, 2]": "not a JSON object",
        b'{"state": "exploded"}': "unknown state 'exploded'",
    }
    for damage, reason in cases.items():
        (bad.path / "status.json").write_bytes(damage)
        assert [i.run.id for i in jobs.list_runs()] == [good.id]
        ((run, said),) = jobs.damaged_runs()
        assert run.id == bad.id and reason in said and "status.json" in said, said
        assert jobs.poll() == []
        time.sleep(0.2)  # a trainer launched by mistake would rewrite the file by now
        assert (bad.path / "status.json").read_bytes() == damage
    (bad.path / "status.json").unlink()  # not written yet: a run still being prepared
    assert jobs.damaged_runs() == []


def test_a_run_records_where_the_page_said_it_stops(tmp_path: Path) -> None:
    """The Train page warned "training stops at N" and then counted progress toward the
    size asked; the run now records N, and its goal is the merges up to N."""
    corpus = tmp_path / "c.txt"
    corpus.write_text(TEXT, encoding="utf-8")
    largest = size_range(corpus, TrainSettings()).largest
    asked = largest + 500
    jobs = RunManager(tmp_path / "runs")
    run = jobs.start(RunRequest(corpus, vocab_size=asked, heartbeat_seconds=0.1, reachable=largest))
    assert jobs.wait(run).state == "done"
    assert json.loads((run.path / REACH_FILE).read_text()) == {"largest": largest}
    (info,) = jobs.list_runs()
    assert info.reachable == largest
    status = info.status
    assert status.trained_size == largest
    assert info.goal == status.step == status.target - 500  # every merge it made, no more
    unsaid = RunInfo(info.run, info.config, status, None, None, None)
    assert unsaid.goal == status.target
    with pytest.raises(ValueError, match="reachable must be a positive integer"):
        RunRequest(corpus, vocab_size=asked, reachable=0)

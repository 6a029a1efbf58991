"""The run manager with real trainer processes: upload intake (every bad-input case gives
its exact error and leaves no directory), every accepted format, the queue, cancel,
``kill -9`` + resume to a byte-identical vocabulary, delete, and two managers (an app
restart, two sessions) agreeing on the state of every run."""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import re
import signal
import time
from pathlib import Path

import pytest

from sgpe import load
from sgpe.corpus import CorpusError
from sgpe.gpe import GPETrainer, TrainSettings
from sgpe.runs import RunError, create_run, pick_checkpoint, read_config, read_status
from sgpe.settings import TrainSettings as Settings
from sgpe_explorer.runs.manager import (
    QUEUE_FILE,
    RunManager,
    RunRequest,
    new_run_id,
    size_range,
    validate_corpus,
)

SINHALA = [
    "ශ්‍රී ලංකාව ඉන්දියන් සාගරයේ පිහිටි ලස්සන දූපතකි.",
    "ක්‍රීඩා පිටියේ ළමයින් සෙල්ලම් කරති.",
    "ප්‍රධාන විදුහල්පතිතුමා රැස්වීමේදී කතා කළේය.",
    "ගුරුවරු ව්‍යාකරණ පාඩම් සරලව උගන්වති.",
    "අම්මා කුස්සියේ රසවත් කෑම උයනවා.",
]
HINDI = ["क्षत्रिय राजा ने युद्ध जीता।", "विद्यालय में बच्चे ध्यान से पढ़ते हैं।"]
LINES = [f"{a} {b}" for a in SINHALA + HINDI for b in SINHALA + HINDI]
TEXT = "\n".join(LINES) + "\n"
SMALL = {"vocab_size": 1000, "heartbeat_seconds": 0.1}


def leftovers(root: Path) -> list[str]:
    """Entries of a runs root other than the manager's lock and queue files."""
    if not root.exists():
        return []
    return sorted(p.name for p in root.iterdir() if p.name not in (".jobs.lock", QUEUE_FILE))


def parquet_bytes(column: str, values: list[str]) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = io.BytesIO()
    pq.write_table(pa.table({column: values}), sink)
    return sink.getvalue()


# ============================================================================ intake

BAD_UPLOADS = [
    pytest.param(
        "notes.docx",
        b"PK\x03\x04",
        "notes.docx: unsupported corpus type; use one of .txt, .txt.gz, .jsonl, .csv, .parquet "
        "(.txt: one document per line; .jsonl: objects with a 'text' field; .csv/.parquet: a "
        "'text' column)",
        id="type",
    ),
    pytest.param(
        "latin1.txt",
        "ශ්‍රී ලංකාව\n".encode() + b"caf\xe9 au lait\n",
        "latin1.txt: line 2, byte 4: not valid UTF-8 (invalid continuation byte: b'\\xe9'); "
        "save the file as UTF-8 and try again",
        id="not-utf8",
    ),
    pytest.param(
        "empty.txt",
        b"",
        "empty.txt: the file is empty (0 bytes); it needs text, e.g. one document per line",
        id="empty",
    ),
    pytest.param(
        "blank.txt",
        b"\n  \n\t\n",
        "blank.txt: all 3 lines are blank; it needs at least one with text",
        id="blank",
    ),
    pytest.param(
        "data.jsonl",
        '{"body": "ශ්‍රී ලංකාව"}\n'.encode(),
        "data.jsonl: line 1: the object has no 'text' field",
        id="jsonl-no-text",
    ),
    pytest.param(
        "data.jsonl",
        '{"text": "ශ්‍රී"}\n{"text": "ලං\n'.encode(),
        "data.jsonl: line 2: not valid JSON (Unterminated string starting at at column 10); "
        'each line must be an object like {"text": "..."}',
        id="jsonl-bad-json",
    ),
    pytest.param(
        "data.csv",
        "id,body\n1,ශ්‍රී ලංකාව\n".encode(),
        "data.csv: no 'text' column (columns: id, body); rename the column that holds the "
        "documents to 'text'",
        id="csv-no-text",
    ),
    pytest.param(
        "data.csv",
        b"",
        "data.csv: the file is empty (0 bytes); it needs text, e.g. one document per line",
        id="csv-empty",
    ),
    pytest.param(
        "data.csv",
        b"text\n",
        "data.csv: no documents with text; it needs at least one non-blank document",
        id="csv-header-only",
    ),
    pytest.param(
        "english.txt",
        b"hello world\nno abugida here\n",
        "english.txt: no character of a supported script in 2 lines: SGPE learns syllables of "
        "Sinhala (U+0D80–U+0DFF), Devanagari (U+0900–U+097F), Bengali–Assamese (U+0980–U+09FF), "
        "Gurmukhi (U+0A00–U+0A7F), Gujarati (U+0A80–U+0AFF), Odia (U+0B00–U+0B7F), Tamil "
        "(U+0B80–U+0BFF), Telugu (U+0C00–U+0C7F), Kannada (U+0C80–U+0CFF), Malayalam "
        "(U+0D00–U+0D7F), Myanmar (U+1000–U+109F), Khmer (U+1780–U+17FF), Thai "
        "(U+0E00–U+0E7F) or Lao (U+0E80–U+0EFF) text. Check that this is the "
        "right file (not transliterated or in another script)",
        id="no-script",
    ),
    pytest.param(
        "broken.txt.gz",
        b"this is not gzip",
        "broken.txt.gz: not a readable gzip file (Not a gzipped file (b'th')); compress it "
        "again with gzip",
        id="gzip",
    ),
]


@pytest.mark.parametrize(("name", "data", "message"), BAD_UPLOADS)
def test_bad_upload_gives_its_error_and_leaves_nothing(
    tmp_path: Path, name: str, data: bytes, message: str
) -> None:
    root = tmp_path / "runs"
    jobs = RunManager(root)
    with pytest.raises(CorpusError, match=f"^{re.escape(message)}$"):
        jobs.start(RunRequest(data, name=name, **SMALL))
    assert leftovers(root) == []
    # The same file given as a path is judged alike.
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(CorpusError, match=f"^{re.escape(message)}$"):
        jobs.start(RunRequest(path, **SMALL))
    assert leftovers(root) == []


def test_parquet_without_text_column(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    with pytest.raises(CorpusError, match=r"^data\.parquet: no 'text' column \(columns: body\)"):
        RunManager(root).start(RunRequest(parquet_bytes("body", LINES), name="data.parquet"))
    assert leftovers(root) == []


def test_size_limit(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    jobs = RunManager(root, max_upload_bytes=1024)
    expected = (
        "big.txt: 0.0 MB is over the size limit of 0.0 MB; use a smaller sample of the corpus "
        "(e.g. its first 100,000 lines)"
    )
    for source in (TEXT.encode(), io.BytesIO(TEXT.encode())):
        with pytest.raises(CorpusError, match=f"^{re.escape(expected)}$"):
            jobs.start(RunRequest(source, name="big.txt"))
    bomb = gzip.compress(b"\xe0\xb6\xbd" * 4000)  # 12 kB of one Sinhala letter, 80 bytes gzipped
    with pytest.raises(CorpusError, match=r"^bomb\.txt\.gz: decompresses to more than"):
        jobs.start(RunRequest(bomb, name="bomb.txt.gz"))
    assert leftovers(root) == []


def test_bad_settings_leave_nothing(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    with pytest.raises(ValueError, match="oov_policy must be one of fallback, unk"):
        RunManager(root).start(RunRequest(TEXT.encode(), name="c.txt", oov_policy="drop"))
    with pytest.raises(ValueError, match=r"name .* is required"):
        RunManager(root).start(RunRequest(TEXT.encode()))
    assert leftovers(root) == []


def test_validate_corpus_summary(tmp_path: Path) -> None:
    path = tmp_path / "c.txt"
    path.write_text(TEXT, encoding="utf-8")
    summary = validate_corpus(path)
    assert (summary.documents, summary.format) == (len(LINES), ".txt")
    assert summary.script_characters > 0


# ============================================================================ runs


def test_every_format_trains_and_the_upload_is_stored_once(tmp_path: Path) -> None:
    uploads = {
        "u.txt": TEXT.encode(),
        "u.txt.gz": gzip.compress(TEXT.encode()),
        "u.jsonl": "".join(f'{{"text": "{line}"}}\n' for line in LINES).encode(),
        "u.csv": ("text\n" + TEXT).encode(),
        "u.parquet": parquet_bytes("text", LINES),
    }
    jobs = RunManager(tmp_path / "runs", max_running=2)
    runs = {
        name: jobs.start(RunRequest(io.BytesIO(data), name=name, **SMALL))
        for name, data in uploads.items()
    }
    merges = set()
    for name, run in runs.items():
        assert re.fullmatch(r"\d{8}-\d{6}-[0-9a-f]{6}", run.id)
        status = jobs.wait(run, timeout=60)
        assert status.state == "done", (name, status.message)
        ext = name[1:]
        sha = hashlib.sha256(uploads[name]).hexdigest()
        stored = jobs.root / "uploads" / f"{sha}{ext}"
        assert stored.read_bytes() == uploads[name]
        config = read_config(run.path)
        assert config.corpus_path == f"../uploads/{sha}{ext}" and config.corpus_sha256 == sha
        assert [(f.path, f.bytes) for f in config.corpus_files] == [
            (f"../uploads/{sha}{ext}", len(uploads[name]))
        ]
        assert not [p for p in run.path.iterdir() if p.name.startswith("corpus")]  # no copy
        tok = load(run.path / "vocab.json")
        assert tok.training["corpus"] == name and tok.training["lines"] == len(LINES)
        merges.add(tuple(tok.merges))
        assert jobs.vocab_path(run) == run.path / "vocab.json"
    assert len(merges) == 1  # the same documents in every format: the same merges
    assert len(list((jobs.root / "uploads").iterdir())) == len(uploads)


def test_the_same_upload_twice_is_stored_once(tmp_path: Path) -> None:
    jobs = RunManager(tmp_path / "runs", max_running=2)
    data = TEXT.encode()
    sha = hashlib.sha256(data).hexdigest()
    first = jobs.start(RunRequest(data, name="a.txt", **SMALL))
    second = jobs.start(RunRequest(io.BytesIO(data), name="again.txt", **SMALL))
    assert sorted(p.name for p in (jobs.root / "uploads").iterdir()) == [f"{sha}.txt"]
    for run in (first, second):
        assert read_config(run.path).corpus_path == f"../uploads/{sha}.txt"
    assert jobs.wait(first).state == "done" and jobs.wait(second).state == "done"
    use = jobs.disk_use()
    assert (use.runs, use.uploads, use.uploads_bytes, use.unused_uploads) == (2, 1, len(data), 0)
    assert use.runs_bytes == sum(
        p.stat().st_size for r in (first, second) for p in r.path.rglob("*") if p.is_file()
    )


def test_cleanup_refuses_a_needed_upload_and_removes_an_unused_one(tmp_path: Path) -> None:
    """An upload a run refers to is never removed (queued, live, resumable or done);
    once its last run is deleted, cleanup removes it, whole."""
    jobs = RunManager(tmp_path / "runs", max_running=1)
    data = TEXT.encode()
    name = hashlib.sha256(data).hexdigest() + ".txt"
    done = jobs.start(RunRequest(data, name="a.txt", owner="alice", **SMALL))
    cancelled = jobs.start(RunRequest(data, name="a.txt", owner="bob", **SMALL))  # queued
    assert jobs.cancel(cancelled).message == "cancelled before it started"
    assert jobs.status(cancelled).resumable
    assert jobs.wait(done).state == "done"
    with pytest.raises(RunError) as err:
        jobs.delete_upload(name)
    users = sorted([(done.id, "done"), (cancelled.id, "cancelled")])  # in run-id order
    assert str(err.value) == (
        f"upload {name} is the corpus of run(s) "
        + ", ".join(f"{r} ({st})" for r, st in users)
        + "; delete those runs first"
    )
    assert jobs.delete_unused_uploads() == (0, 0)
    assert (jobs.root / "uploads" / name).read_bytes() == data
    # Bulk cleanup by alice: her finished run goes, bob's resumable one stays.
    deleted, freed = jobs.delete_finished(as_owner="alice")
    assert deleted == [done.id] and freed > 0 and not done.path.exists()
    assert jobs.delete_unused_uploads() == (0, 0)  # bob's run still needs it
    jobs.delete(cancelled)
    assert jobs.disk_use().unused_uploads == 1
    assert jobs.delete_unused_uploads() == (1, len(data))
    assert leftovers(jobs.root) == ["uploads"] and not list((jobs.root / "uploads").iterdir())
    with pytest.raises(RunError, match=f"^no upload {name} under "):
        jobs.delete_upload(name)


def test_a_queued_run_whose_corpus_is_gone_fails_resumable_and_resume_checks_first(
    tmp_path: Path,
) -> None:
    """The trainer checks the corpus before anything else: a queued run whose file went
    away fails with the one-line reason, resumable; resume() refuses with the same reason
    and changes nothing until the file is back."""
    jobs = RunManager(tmp_path / "runs", max_running=1)
    first, second = tmp_path / "first.txt", tmp_path / "second.txt"
    first.write_text(TEXT, encoding="utf-8")
    second.write_text(TEXT + LINES[0] + "\n", encoding="utf-8")
    blocker = jobs.start(RunRequest(first, **SMALL))
    queued = jobs.start(RunRequest(second, **SMALL))
    assert jobs.status(queued).state == "queued"
    moved = tmp_path / "elsewhere.txt"
    second.rename(moved)
    assert jobs.wait(blocker).state == "done"
    st = jobs.wait(queued)
    reason = (
        f"run {queued.id}: corpus file {second} is missing (recorded "
        f"{moved.stat().st_size:,} bytes); put it back, or resume with --corpus at its new "
        "place (python -m sgpe train --out RUN_DIR --resume --corpus PATH)"
    )
    assert (st.state, st.message, st.resumable) == ("failed", reason, True)
    before = (queued.path / "status.json").read_bytes()
    with pytest.raises(RunError) as err:
        jobs.resume(queued)
    assert str(err.value) == reason
    assert (queued.path / "status.json").read_bytes() == before
    moved.rename(second)
    jobs.resume(queued)
    assert jobs.wait(queued).state == "done"


def test_a_run_on_a_path_reads_it_in_place(tmp_path: Path) -> None:
    """A corpus given as a path is neither copied nor stored: the run records its path."""
    corpus = tmp_path / "c.txt"
    corpus.write_text(TEXT, encoding="utf-8")
    jobs = RunManager(tmp_path / "runs")
    run = jobs.start(RunRequest(corpus, **SMALL))
    assert jobs.wait(run).state == "done"
    config = read_config(run.path)
    assert config.corpus_path == str(corpus) and config.corpus_name == "c.txt"
    assert leftovers(jobs.root) == [run.id]  # no uploads folder


def test_queue_cancel_and_two_readers(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    jobs = RunManager(root, max_running=1)
    first = jobs.start(RunRequest(TEXT.encode(), name="a.txt", **SMALL))
    second = jobs.start(RunRequest(TEXT.encode(), name="b.txt", **SMALL))
    third = jobs.start(RunRequest(TEXT.encode(), name="c.txt", **SMALL))
    assert read_status(second.path).state == "queued"
    assert read_status(second.path).pid is None  # not launched: the first one runs
    # Cancelling a queued run needs no process.
    assert jobs.cancel(third).state == "cancelled"
    # Another manager over the same root (a second session, or the app after a restart)
    # sees the same runs in the same states.
    other = RunManager(root, max_running=1)
    assert [i.run.id for i in other.list_runs()] == [third.id, second.id, first.id]
    assert jobs.wait(first, timeout=60).state == "done"
    # The first trainer, ending, launched the queued run.
    assert other.wait(second, timeout=60).state == "done"
    for run in (first, second, third):
        a, b = jobs.status(run), other.status(run)
        assert (a.state, a.step, a.message) == (b.state, b.step, b.message)
    assert jobs.status(third).state == "cancelled"
    with pytest.raises(RunError, match="already done"):
        jobs.resume(first)
    with pytest.raises(RunError, match="is done; there is nothing to cancel"):
        jobs.cancel(first)


def _wait_files(path: Path, timeout: float = 90.0) -> str:
    """A run's state from its files alone (no manager), once it is final."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = read_status(path).state
        if state in ("done", "failed", "cancelled", "interrupted"):
            return state
        time.sleep(0.1)
    return read_status(path).state


def test_a_queued_run_finishes_with_no_page_open(tmp_path: Path) -> None:
    """Two runs with capacity 1: the second is queued. Then nobody is left to poll (the
    manager is gone, no page is open): the first trainer starts the second when it ends."""
    root = tmp_path / "runs"
    jobs = RunManager(root, max_running=1)
    first = jobs.start(RunRequest(TEXT.encode(), name="a.txt", **SMALL))
    second = jobs.start(RunRequest(TEXT.encode(), name="b.txt", **SMALL))
    assert read_status(second.path).state == "queued" and read_status(second.path).pid is None
    del jobs  # close everything: only the trainer processes are left
    assert _wait_files(first.path) == "done"
    assert _wait_files(second.path) == "done"
    # the same text, the same vocabulary as the first run (and as a run nobody queued)
    assert load(second.path / "vocab.json").merges == load(first.path / "vocab.json").merges


def test_reading_runs_has_no_side_effects(tmp_path: Path) -> None:
    """A queued run with a free slot (left by a restart) stays queued however often the
    runs are listed, read or waited for; only poll() (the app's start) launches it."""
    root = tmp_path / "runs"
    jobs = RunManager(root, max_running=1)
    corpus = tmp_path / "c.txt"
    corpus.write_text(TEXT, encoding="utf-8")
    run_dir = root / new_run_id()
    create_run(run_dir, RunRequest(corpus, **SMALL).config(), corpus)
    before = (run_dir / "status.json").read_bytes()
    for _ in range(3):
        (info,) = jobs.list_runs()
        assert info.status.state == "queued"
        assert jobs.status(info.run.id).state == "queued"
        assert jobs.wait(info.run.id, timeout=0.2).state == "queued"
        jobs.damaged_runs()
    assert (run_dir / "status.json").read_bytes() == before  # nothing was written
    assert [r.id for r in jobs.poll()] == [run_dir.name]
    assert jobs.wait(run_dir.name, timeout=60).state == "done"


def test_a_run_failed_by_its_settings_offers_no_resume(tmp_path: Path) -> None:
    """A vocabulary size below the corpus's base alphabet fails the run; resuming cannot
    fix that, so the status says so and resume() refuses with the reason."""
    jobs = RunManager(tmp_path / "runs")
    run = jobs.start(RunRequest(TEXT.encode(), name="a.txt", vocab_size=50))
    st = jobs.wait(run)
    assert st.state == "failed" and "smaller than the base vocabulary" in st.message
    assert not st.resumable
    with pytest.raises(RunError, match="resuming would fail the same way: start a new run"):
        jobs.resume(run)


def test_the_trained_size_and_why_training_stopped(tmp_path: Path) -> None:
    """A run asked for more than its corpus gives reports the size it reached and why."""
    jobs = RunManager(tmp_path / "runs")
    corpus = tmp_path / "c.txt"
    corpus.write_text(TEXT, encoding="utf-8")
    limits = size_range(corpus, Settings())
    run = jobs.start(RunRequest(corpus, vocab_size=limits.largest + 100))
    st = jobs.wait(run)
    trained = load(run.path / "vocab.json").vocab_size
    assert st.state == "done" and st.trained_size == trained == limits.largest
    assert st.stop_reason == (
        f"stopped at {trained:,} of {limits.largest + 100:,} tokens: no pair of tokens is left "
        "to merge in the corpus (every word is one token)"
    )
    small = jobs.start(RunRequest(corpus, vocab_size=limits.smallest + 10))
    st = jobs.wait(small)
    assert (st.trained_size, st.stop_reason) == (limits.smallest + 10, "reached the requested size")


def test_size_range_bounds_what_training_reaches(tmp_path: Path) -> None:
    """The smallest size is exact (one less fails); so is the largest: a run asked for
    far more stops there (a bound said before was up to half again too high)."""
    corpus = tmp_path / "c.txt"
    corpus.write_text(TEXT, encoding="utf-8")
    for settings in (Settings(), Settings(mode="paper", min_freq=1)):
        limits = size_range(corpus, settings)
        assert limits.documents == len(LINES)
        with pytest.raises(ValueError, match=f"Use vocab_size >= {limits.smallest}"):
            GPETrainer(settings.replace(vocab_size=limits.smallest - 1)).train(corpus)
        GPETrainer(settings.replace(vocab_size=limits.smallest)).train(corpus)
        full = GPETrainer(settings.replace(vocab_size=10 * limits.largest)).train(corpus)
        assert limits.smallest < full.vocab_size == limits.largest
        assert "below the smallest size" in limits.problem(limits.smallest - 1)
        assert limits.problem(limits.smallest) == limits.problem(limits.largest) == ""
        assert "more than this corpus can give" in limits.problem(limits.largest + 1)


def test_only_the_owner_deletes_a_run(tmp_path: Path) -> None:
    jobs = RunManager(tmp_path / "runs")
    run = jobs.start(RunRequest(TEXT.encode(), name="a.txt", owner="alice", **SMALL))
    assert jobs.wait(run).state == "done"
    (info,) = jobs.list_runs()
    assert info.owner == "alice"
    with pytest.raises(RunError, match="started in another browser session"):
        jobs.delete(run, as_owner="bob")
    assert run.path.exists()
    jobs.delete(run, as_owner="alice")
    assert not run.path.exists()
    other = jobs.start(RunRequest(TEXT.encode(), name="a.txt", owner="alice", **SMALL))
    assert jobs.wait(other).state == "done"
    jobs.delete(other)  # no owner given: an administrator (or a library caller)
    assert not other.path.exists()


def test_only_the_owner_cancels_and_resumes_a_run(tmp_path: Path) -> None:
    """The run manager itself refuses another owner's cancel and resume (not only the
    app's buttons): the run keeps training untouched and finishes; its owner can then
    cancel and resume a second run."""
    jobs = RunManager(tmp_path / "runs", max_running=1)
    blocker = jobs.start(RunRequest(TEXT.encode(), name="a.txt", owner="alice", **SMALL))
    queued = jobs.start(RunRequest(TEXT.encode(), name="b.txt", owner="alice", **SMALL))
    before = (queued.path / "status.json").read_bytes()
    for run in (blocker, queued):
        with pytest.raises(RunError) as err:
            jobs.cancel(run, as_owner="bob")
        assert str(err.value) == (
            f"run {run.id} was started in another browser session; only its owner or an "
            "administrator can cancel it"
        )
    assert (queued.path / "status.json").read_bytes() == before
    assert jobs.wait(blocker).state == "done"
    assert jobs.wait(queued).state == "done"
    stopped = jobs.start(RunRequest(TEXT.encode(), name="c.txt", owner="alice", **SMALL))
    assert jobs.cancel(stopped, as_owner="alice").state == "cancelled"
    with pytest.raises(RunError, match="only its owner or an administrator can resume it"):
        jobs.resume(stopped, as_owner="bob")
    assert jobs.status(stopped).state == "cancelled"
    with pytest.raises(RunError, match="only its owner or an administrator can delete it"):
        jobs.delete(stopped, as_owner="bob")
    jobs.resume(stopped, as_owner="alice")
    assert jobs.wait(stopped).state == "done"


def test_a_run_keeps_the_name_it_was_given(tmp_path: Path) -> None:
    """A run's name (optional) is stored beside it, normalised; a bad one is refused
    before anything is written."""
    from sgpe_explorer.runs.manager import LABEL_MAX

    jobs = RunManager(tmp_path / "runs")
    run = jobs.start(RunRequest(TEXT.encode(), name="a.txt", label="  news\n 2026 ", **SMALL))
    plain = jobs.start(RunRequest(TEXT.encode(), name="a.txt", label="  ", **SMALL))
    for r in (run, plain):
        assert jobs.wait(r).state == "done"
    labels = {i.run.id: i.label for i in jobs.list_runs()}
    assert labels == {run.id: "news 2026", plain.id: None}
    with pytest.raises(ValueError, match=f"at most {LABEL_MAX} characters, this one 81"):
        RunRequest(TEXT.encode(), name="a.txt", label="x" * 81)
    with pytest.raises(ValueError, match="control characters"):
        RunRequest(TEXT.encode(), name="a.txt", label="a\x00b")


def test_delete(tmp_path: Path) -> None:
    jobs = RunManager(tmp_path / "runs")
    run = jobs.start(RunRequest(TEXT.encode(), name="a.txt", **SMALL))
    assert jobs.status(run).alive
    with pytest.raises(RunError, match="cancel it first, or delete with force=True"):
        jobs.delete(run)
    jobs.delete(run, force=True)
    assert not run.path.exists()
    done = jobs.start(RunRequest(TEXT.encode(), name="a.txt", **SMALL))
    assert jobs.wait(done).state == "done"
    jobs.delete(done.id)
    assert leftovers(jobs.root) == ["uploads"]  # the upload stays until cleanup
    assert jobs.delete_unused_uploads() == (1, len(TEXT.encode()))
    with pytest.raises(RunError, match="is not a run id"):
        jobs.delete("../../etc")


def test_a_damaged_config_is_reported_not_hidden(tmp_path: Path) -> None:
    """A run whose config.json is damaged is left out of list_runs but named, with the
    reason, by damaged_runs; its files stay as they were."""
    jobs = RunManager(tmp_path / "runs")
    good = jobs.start(RunRequest(TEXT.encode(), name="a.txt", **SMALL))
    bad = jobs.start(RunRequest(TEXT.encode(), name="b.txt", **SMALL))
    assert jobs.wait(good).state == "done" and jobs.wait(bad).state == "done"
    (bad.path / "config.json").write_text('{"format": "sgpe-run-config", "format_ver', "utf-8")
    before = sorted((p.name, p.read_bytes()) for p in bad.path.iterdir() if p.is_file())
    assert [i.run.id for i in jobs.list_runs()] == [good.id]
    ((run, reason),) = jobs.damaged_runs()
    assert run.id == bad.id
    assert "config.json" in reason and "\n" not in reason
    after = sorted((p.name, p.read_bytes()) for p in bad.path.iterdir() if p.is_file())
    assert after == before


# ============================================================================ kill -9, SIGTERM


@pytest.fixture(scope="module")
def reference_vocab(long_corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The library trained in-process, uninterrupted, on the same file."""
    path = tmp_path_factory.mktemp("ref") / "vocab.json"
    GPETrainer(TrainSettings(vocab_size=12_000)).train(long_corpus).save(path)
    return path.read_bytes()


def wait_step(jobs: RunManager, run: object, step: int, timeout: float = 60.0) -> int:
    deadline = time.monotonic() + timeout
    while True:
        status = jobs.status(run)  # type: ignore[arg-type]
        if status.step >= step and status.pid is not None:
            return status.pid
        assert status.state in ("queued", "counting", "merging"), status
        assert time.monotonic() < deadline, f"no step {step} within {timeout} s"
        time.sleep(0.03)


def test_kill_9_cancel_and_resume_give_the_identical_vocabulary(
    long_corpus: Path, reference_vocab: bytes, tmp_path: Path
) -> None:
    """kill -9 mid-merge -> interrupted -> resume; then SIGTERM (cancel) in the resumed
    run -> cancelled with a final checkpoint -> resume -> the uninterrupted result."""
    root = tmp_path / "runs"
    jobs = RunManager(root)
    request = RunRequest(
        long_corpus, vocab_size=12_000, checkpoint_every=500, heartbeat_seconds=0.1
    )
    run = jobs.start(request)
    pid = wait_step(jobs, run, 1500)
    os.killpg(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while jobs.status(run).state != "interrupted":
        assert time.monotonic() < deadline, jobs.status(run)
        time.sleep(0.01)
    status = RunManager(root).status(run.id)  # a second reader agrees
    assert status.state == "interrupted" and not status.alive
    assert "stopped without finishing" in status.message and "resume" in status.message
    assert status.step >= 1500
    ckpt = pick_checkpoint(run.path, read_config(run.path).fingerprint()).checkpoint
    # (status.json is rewritten every 0.1 s, so the newest checkpoint may be a bit ahead of it)
    assert ckpt is not None and 500 <= ckpt.step < ckpt.target
    assert not (run.path / "vocab.json").exists()

    assert jobs.resume(run).state in ("queued", "counting", "merging")
    wait_step(jobs, run, ckpt.step + 1500)
    cancelled = jobs.cancel(run)
    assert cancelled.state == "cancelled"
    assert cancelled.message.startswith("cancelled by a stop request (Cancel)")
    last = pick_checkpoint(run.path, read_config(run.path).fingerprint()).checkpoint
    assert last is not None and last.step == cancelled.checkpoint_step == cancelled.step
    assert last.merges[: ckpt.step] == ckpt.merges

    jobs.resume(run)
    final = jobs.wait(run, timeout=120)
    assert final.state == "done", final.message
    assert (run.path / "vocab.json").read_bytes() == reference_vocab
    log = (run.path / "train.log").read_text(encoding="utf-8")
    assert log.count("word counts (no recount)") == 2
    assert f"at step {ckpt.step}" in log and f"at step {last.step}" in log

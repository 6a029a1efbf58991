"""Bad inputs and faults (docs/reliability.md): every case is a clear one-line error that says what,
where and how to fix it, or the right behaviour; never a traceback, an "internal error",
or lost or silently changed data. The library, the command line and the run reader are
each tried; the app's cases are in test_app.py, kill/resume byte identity in
test_runs.py, test_jobs.py and the soak test at the end of this file."""

from __future__ import annotations

import io
import json
import math
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sgpe import load
from sgpe.cli import main
from sgpe.corpus import CorpusError, iter_documents
from sgpe.runs import (
    INCOMING_PREFIX,
    RunConfig,
    RunError,
    create_run,
    encode_table,
    read_config,
    read_status,
    read_word_counts,
    train_run,
    write_status,
)
from sgpe.runs.system import try_lock
from sgpe.schema import load_schema
from sgpe.syllables import syllabify
from sgpe_explorer.runs.manager import RunManager, RunRequest

REPO_ROOT = Path(__file__).resolve().parents[1]
SGPE_4K = REPO_ROOT / "sample_data" / "vocab" / "sgpe_4k.json"
BYTE_4K = REPO_ROOT / "sample_data" / "vocab" / "bytebpe_4k.json"
DEEP = "[" * 100_000 + "]" * 100_000  # deeper than Python's JSON parser can follow
SINHALA = ["ශ්‍රී ලංකාව සුන්දර රටකි.", "ප්‍රධාන විදුහල්පතිතුමා කතා කළේය.", "අපි හෙට පාසලට යමු."]


def cli(
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
    argv: list[str],
    stdin: str = "",
) -> tuple[int, str, str]:
    capsysbinary.readouterr()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode()), "utf-8"))
    code = main(argv)
    out, err = capsysbinary.readouterr()
    return code, out.decode("utf-8"), err.decode("utf-8")


def one_clear_line(err: str) -> str:
    """The single ``sgpe: error:`` line of a failed command (no traceback, not internal)."""
    assert "Traceback" not in err and "internal error" not in err, err
    lines = [line for line in err.splitlines() if line.startswith("sgpe: error:")]
    assert len(lines) == 1, err
    return lines[0]


# ============================================================================ decode ids


@pytest.mark.parametrize("path", [SGPE_4K, BYTE_4K], ids=["sgpe", "bytebpe"])
@pytest.mark.parametrize("ids", [[-1, 5], [5, -4000], [4001], ["5"], [1.0]])
def test_decode_rejects_ids_outside_the_vocabulary(path: Path, ids: list[object]) -> None:
    tok = load(path)
    with pytest.raises(ValueError, match=r"^invalid token id: .* \(.*ids 0\.\.\d+\)$"):
        tok.decode(ids)
    with pytest.raises(ValueError, match=r"^invalid token id"):
        tok.decode_bytes(ids)


def test_cli_decode_rejects_a_negative_id(
    monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    code, out, err = cli(
        monkeypatch, capsysbinary, ["decode", "--vocab", str(SGPE_4K)], "[-1, 5]\n"
    )
    assert code != 0 and out == ""
    assert "invalid token id: -1" in one_clear_line(err)


# ============================================================================ corpus readers


def test_csv_with_an_unclosed_quote_is_an_error_not_one_huge_field(tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text('id,text\n1,"first\n2,second\n3,third\n', encoding="utf-8")
    with pytest.raises(CorpusError) as err:
        list(iter_documents(path))
    assert str(err.value) == (
        f"{path}: line 2: a quoted field opened in this row is never closed (it runs to the end "
        'of the file); close it with " and write a quote inside a field as ""'
    )


def test_csv_with_text_after_a_closing_quote_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text('text\nok\n"a"b\n', encoding="utf-8")
    with pytest.raises(CorpusError, match=r"bad\.csv: line 3: malformed CSV \(',' expected"):
        list(iter_documents(path))


def test_csv_quoted_fields_with_line_breaks_still_read(tmp_path: Path) -> None:
    path = tmp_path / "ok.csv"
    path.write_text('text,n\n"a, ""b""\nc",1\nd,2\n', encoding="utf-8")
    assert list(iter_documents(path)) == ['a, "b"\nc', "d"]


@pytest.mark.parametrize("line", [DEEP, '{"text": ' + DEEP + "}"])
def test_deeply_nested_jsonl_line_is_a_corpus_error(tmp_path: Path, line: str) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_text('{"text": "ok"}\n' + line + "\n", encoding="utf-8")
    with pytest.raises(CorpusError) as err:
        list(iter_documents(path))
    assert str(err.value) == (
        f"{path}: line 2: JSON nested too deeply to read (more than about 1,000 levels); "
        'each line must be an object like {"text": "..."}'
    )


@pytest.mark.parametrize(
    ("name", "content", "fragment"),
    [
        ("bad.csv", 'text\n"never closed\nmore\n', "line 2: a quoted field opened"),
        ("deep.jsonl", DEEP + "\n", "line 1: JSON nested too deeply"),
    ],
)
def test_cli_train_rejects_bad_corpora_in_one_line(
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
    tmp_path: Path,
    name: str,
    content: str,
    fragment: str,
) -> None:
    corpus = tmp_path / name
    corpus.write_text(content, encoding="utf-8")
    out = tmp_path / "run"
    argv = ["train", "--corpus", str(corpus), "--vocab-size", "500", "--out", str(out)]
    code, _, err = cli(monkeypatch, capsysbinary, argv)
    assert code == 2
    line = one_clear_line(err)
    assert f"{corpus}: {fragment}" in line
    assert not out.exists()  # nothing left behind
    assert not list(tmp_path.glob(f"{INCOMING_PREFIX}*"))


# ============================================================================ vocab.json


def _vocab_with(tmp_path: Path, key: str, value: object) -> Path:
    data = json.loads(SGPE_4K.read_text(encoding="utf-8"))
    data[key] = value
    path = tmp_path / "vocab.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("prune_freq", "x", "key 'prune_freq' must be a number, not a string ('x')"),
        ("prune_freq", [1], "key 'prune_freq' must be a number, not a list ([1])"),
        ("min_freq", None, "key 'min_freq' must be a number, not null (None)"),
        ("scripts", 5, "key 'scripts' must be a string, not a number (5)"),
        ("scripts", "klingon", "unknown script 'klingon'"),
        ("pieces", "lines", "pieces must be one of whitespace, script, got 'lines'"),
        ("training", "abc", "key 'training' must be an object, not a string"),
        ("training", [1], "key 'training' must be an object, not a list"),
        ("special_tokens", [1, 2], "key 'special_tokens' must be a list of strings"),
        ("oov_policy", 3, "key 'oov_policy' must be a string, not a number (3)"),
        ("prepend_space", "no", "key 'prepend_space' must be a boolean, not a string ('no')"),
        ("leading_space", 1, "key 'leading_space' must be a boolean, not a number (1)"),
        ("format_version", True, "key 'format_version' is True"),
        ("vocab_size", "4000", "key 'vocab_size' is '4000' but key 'vocab' holds 4000 tokens"),
        ("vocab_size", 3999, "key 'vocab_size' is 3999 but key 'vocab' holds 4000 tokens"),
    ],
)
def test_malformed_vocab_fields_name_the_file_and_key(
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
    tmp_path: Path,
    key: str,
    value: object,
    message: str,
) -> None:
    path = _vocab_with(tmp_path, key, value)
    with pytest.raises(ValueError) as err:
        load(path)
    assert str(err.value).startswith(f"{path}: {message}"), str(err.value)
    code, out, stderr = cli(monkeypatch, capsysbinary, ["encode", "--vocab", str(path)], "ලංකා\n")
    assert code == 2 and out == ""
    assert f"{path}: {message}" in one_clear_line(stderr)


def test_deeply_nested_vocab_json_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "vocab.json"
    path.write_text(DEEP, encoding="utf-8")
    with pytest.raises(ValueError) as err:
        load(path)
    assert str(err.value) == (
        f"{path}: JSON nested too deeply to read (more than about 1,000 levels); "
        "is the file damaged?"
    )


def test_cli_decode_of_a_deeply_nested_line_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    code, _, err = cli(monkeypatch, capsysbinary, ["decode", "--vocab", str(SGPE_4K)], DEEP + "\n")
    assert code == 2
    assert "stdin line 1: JSON nested too deeply to read" in one_clear_line(err)


# ============================================================================ run files


@pytest.fixture(scope="module")
def small_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("c") / "small.txt"
    lines = [f"{SINHALA[i % 3]} {SINHALA[(i * 2 + 1) % 3]}" for i in range(60)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def finished(small_corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ref") / "run"
    create_run(out, RunConfig(vocab_size=700, prune_freq=1, checkpoint_every=5), small_corpus)
    assert train_run(out).state == "done"
    return out


def _reopen(run: Path) -> None:
    """Make a finished run resumable again, as if it had been cancelled before the end."""
    (run / "vocab.json").unlink()
    data = json.loads((run / "status.json").read_text(encoding="utf-8"))
    write_status(run, {**data, "state": "cancelled"})


def _copy_run(src: Path, dst: Path) -> Path:
    subprocess.run(["cp", "-a", str(src), str(dst)], check=True)
    return dst


@pytest.mark.parametrize("damage", ["garbage", "truncated", "count changed"])
def test_damaged_word_counts_are_recounted_on_resume(
    finished: Path, tmp_path: Path, damage: str
) -> None:
    run = _copy_run(finished, tmp_path / "run")
    path = run / "word_counts.parquet"
    raw = path.read_bytes()
    if damage == "garbage":
        path.write_bytes(b"not parquet")
    elif damage == "truncated":
        path.write_bytes(raw[: len(raw) // 2])
    else:  # a valid table whose numbers changed: only the checksum can tell
        import pyarrow.parquet as pq

        table = pq.read_table(path)
        meta = json.loads(table.schema.metadata[b"sgpe"])
        counts = table.column("count").to_pylist()
        counts[0] += 1
        cols = {"piece": table.column("piece").to_pylist(), "count": counts}
        path.write_bytes(encode_table(cols, meta, parquet=True))
    with pytest.raises(ValueError, match=f"^{path}: "):
        read_word_counts(run, read_config(run).fingerprint())
    _reopen(run)
    result = train_run(run, resume=True)
    assert result.state == "done", result.message
    assert (run / "vocab.json").read_bytes() == (finished / "vocab.json").read_bytes()
    log = (run / "train.log").read_text(encoding="utf-8")
    assert f"word counts unusable ({path}: " in log and "counting again" in log
    assert "internal error" not in log and "Traceback" not in log


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan])
def test_config_rejects_infinite_or_nan_intervals(tmp_path: Path, value: float) -> None:
    with pytest.raises(ValueError, match=r"^heartbeat_seconds must be a number of seconds in"):
        RunConfig(heartbeat_seconds=value).validate()
    with pytest.raises(ValueError, match=r"^checkpoint_seconds must be a number of seconds in"):
        RunConfig(checkpoint_seconds=value).validate()
    path = tmp_path / "config.json"
    # (a config.json edited by hand, or by another program: RunConfig cannot write one)
    data = RunConfig().to_dict() | {"heartbeat_seconds": value}
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(RunError, match=f"^{path}: heartbeat_seconds must be"):
        read_config(tmp_path)


@pytest.mark.parametrize(
    "content",
    [
        "abc\r\n\n  \n" + "\n".join(SINHALA) + "\n",
        "latin only\n\t\nmore latin\n" + SINHALA[1] + " x",  # script text on the last line
        "\n \n\u00a0\n",  # blank lines only
        SINHALA[0] * 40 + "\n" + SINHALA[2],  # a line longer than a block
    ],
)
@pytest.mark.parametrize("suffix", [".txt", ".txt.gz"])
def test_the_segment_check_of_a_text_file_counts_as_the_line_reader(
    tmp_path: Path, content: str, suffix: str
) -> None:
    """validate_corpus reads a text file a segment at a time: the same documents,
    characters, blank-ness and script characters as reading it line by line."""
    import gzip

    from sgpe.runs.intake import _document_counts, _text_file_counts

    path = tmp_path / f"c{suffix}"
    data = content.encode("utf-8")
    path.write_bytes(gzip.compress(data) if suffix == ".txt.gz" else data)
    expected = _document_counts(iter_documents(path))
    assert expected[0] == len(content.split("\n")) - content.endswith("\n")
    for block in (7, 64, 1 << 21):
        assert _text_file_counts(path, block=block) == (*expected, False)


def test_the_segment_check_raises_the_line_readers_errors_and_can_stop_early(
    tmp_path: Path,
) -> None:
    from sgpe.runs.intake import _text_file_counts

    path = tmp_path / "late.txt"
    path.write_bytes(("\n".join(SINHALA * 40) + "\n").encode() + b"caf\xe9\n")
    with pytest.raises(CorpusError) as by_lines:
        list(iter_documents(path))
    with pytest.raises(CorpusError) as by_segments:
        _text_file_counts(path, block=64)
    assert str(by_segments.value) == str(by_lines.value)
    assert f"{path}: line 121, byte 4: not valid UTF-8" in str(by_lines.value)
    # Text and a script character in the first segment: the rest is left to counting.
    count, _, any_text, script, stopped = _text_file_counts(path, whole=False, block=64)
    assert (any_text, script > 0, stopped) == (True, True, True) and count < 120


@pytest.mark.parametrize("out_exists", [False, True])
def test_a_bad_byte_deep_in_a_text_corpus_fails_the_cli_run_and_leaves_nothing(
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
    tmp_path: Path,
    out_exists: bool,
) -> None:
    """The CLI checks only the start of a text corpus before the run (counting reads the
    rest): a bad byte past the first block still fails with one clear line, and the new
    run directory is removed again (an existing empty --out is left empty)."""
    lines = SINHALA * 12_000  # about 2.4 MB: the bad byte is past the first 2 MiB block
    corpus = tmp_path / "late.txt"
    corpus.write_bytes(("\n".join(lines) + "\n").encode() + b"caf\xe9\n")
    assert corpus.stat().st_size > (1 << 21)
    out = tmp_path / "run"
    if out_exists:
        out.mkdir()
    argv = ["train", "--corpus", str(corpus), "--vocab-size", "500", "--out", str(out)]
    code, _, err = cli(monkeypatch, capsysbinary, argv)
    assert code == 2
    line = one_clear_line(err)
    assert f"line {len(lines) + 1}, byte 4: not valid UTF-8" in line
    assert out.exists() == out_exists and (not out_exists or not any(out.iterdir()))
    # Fixed, the same --out trains.
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, _, err = cli(monkeypatch, capsysbinary, argv)
    assert code == 0, err
    assert (out / "vocab.json").is_file()


@pytest.mark.parametrize("flag", ["--heartbeat-seconds", "--checkpoint-seconds"])
@pytest.mark.parametrize("value", ["inf", "nan"])
def test_cli_train_rejects_infinite_intervals(
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
    small_corpus: Path,
    tmp_path: Path,
    flag: str,
    value: str,
) -> None:
    out = tmp_path / "run"
    argv = ["train", "--corpus", str(small_corpus), "--vocab-size", "400", "--out", str(out)]
    code, _, err = cli(monkeypatch, capsysbinary, [*argv, flag, value])
    assert code == 2 and not out.exists()
    assert (
        f"{flag[2:].replace('-', '_')} must be a number of seconds in (0, 3600], got {value}"
        in (one_clear_line(err))
    )


def _fake_run(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.json").write_text(json.dumps(RunConfig().to_dict()), encoding="utf-8")
    return run


@pytest.mark.parametrize("heartbeat", [math.inf, math.nan, "soon", True])
def test_a_heartbeat_that_is_not_a_finite_number_counts_as_none(
    tmp_path: Path, heartbeat: object
) -> None:
    """Without a lock file the heartbeat decides; ``inf`` used to keep a dead run alive."""
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    run = _fake_run(tmp_path)
    write_status(run, {"state": "merging", "step": "x", "pid": dead.pid, "heartbeat": heartbeat})
    status = read_status(run)
    assert status.state == "interrupted" and not status.alive
    assert status.heartbeat is None and status.heartbeat_age_s is None and status.step == 0
    assert "last heartbeat at an unknown time" in status.message


def test_a_trainer_that_holds_the_lock_but_writes_no_heartbeat_is_stalled(tmp_path: Path) -> None:
    run = _fake_run(tmp_path)
    fd = os.open(run / ".lock", os.O_RDWR | os.O_CREAT)
    assert try_lock(fd) is True  # this process plays a trainer that holds its lock
    try:
        base = {"state": "merging", "pid": os.getpid(), "heartbeat_interval_s": 0.5}
        write_status(run, {**base, "heartbeat": time.time()})
        assert not read_status(run).stalled
        write_status(run, {**base, "heartbeat": time.time() - 60})
        status = read_status(run)
        assert status.alive and status.stalled and status.state == "merging"
        assert status.message == (
            f"the trainer (pid {os.getpid()}) has not written a heartbeat for 60 s (every 0.5 s "
            "expected): it is hung or the machine is overloaded; wait, or cancel it and resume"
        )
    finally:
        os.close(fd)


def test_a_sigstopped_trainer_is_stalled_and_cancel_still_stops_it(
    long_corpus: Path, tmp_path: Path
) -> None:
    mgr = RunManager(tmp_path / "runs")
    run = mgr.start(
        RunRequest(long_corpus, vocab_size=12000, checkpoint_every=200, heartbeat_seconds=0.1)
    )
    deadline = time.monotonic() + 60
    while (st := mgr.status(run)).step < 300:
        assert st.state in ("queued", "counting", "merging"), st.message
        assert time.monotonic() < deadline, "the trainer did not reach step 300"
        time.sleep(0.02)
    assert st.pid is not None and not st.stalled
    os.kill(st.pid, signal.SIGSTOP)
    try:
        deadline = time.monotonic() + 10
        while not (st := mgr.status(run)).stalled:  # /proc shows "T" within moments
            assert time.monotonic() < deadline, "a stopped trainer still looks healthy"
            time.sleep(0.02)
        assert st.alive and st.state == "merging"
        assert f"`kill -CONT {st.pid}` continues it" in st.message
        final = mgr.cancel(run, wait=30)
    finally:
        os.kill(st.pid, signal.SIGCONT) if read_status(run.path).alive else None
    assert final.state == "cancelled", final.message
    assert f"checkpoint at step {final.checkpoint_step}" in final.message


# ============================================================================ kill during intake


def _fifo(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    os.mkfifo(path)
    return path


def _kill_mid_copy(code: str, fifo: Path) -> None:
    """Run ``code`` in a child that copies from ``fifo``; kill -9 it mid-copy."""
    child = subprocess.Popen([sys.executable, "-c", code], cwd=REPO_ROOT)
    with open(fifo, "wb") as w:  # blocks until the child opens the FIFO to copy it
        w.write(("\n".join(SINHALA) + "\n").encode() * 50)
        w.flush()
        time.sleep(0.3)  # the child has read that much and waits for more
        child.kill()
        child.wait(timeout=10)


def test_kill_during_cli_intake_leaves_no_dead_end(small_corpus: Path, tmp_path: Path) -> None:
    """The CLI's intake reads the corpus once to hash it (nothing is copied): a kill while
    it reads leaves no run directory and no staging directory."""
    fifo = _fifo(tmp_path, "stream.txt")
    out = tmp_path / "run"
    _kill_mid_copy(
        "from pathlib import Path; from sgpe.runs import RunConfig, create_run; "
        f"create_run(Path({str(out)!r}), RunConfig(vocab_size=400), Path({str(fifo)!r}))",
        fifo,
    )
    assert not out.exists()  # the half-made run was never renamed into place
    assert list(tmp_path.glob(f"{INCOMING_PREFIX}*")) == []
    # The same command again just works.
    config = create_run(out, RunConfig(vocab_size=700, prune_freq=1), small_corpus)
    assert config.corpus_path == str(small_corpus) and not config.has_copy
    assert train_run(out).state == "done"


def test_kill_during_app_intake_leaves_nothing_visible(tmp_path: Path) -> None:
    fifo = _fifo(tmp_path, "upload.txt")
    root = tmp_path / "runs"
    _kill_mid_copy(
        "from sgpe_explorer.runs.manager import RunManager, RunRequest; "
        f"RunManager({str(root)!r}).start(RunRequest(open({str(fifo)!r}, 'rb'), name='u.txt', "
        "vocab_size=400))",
        fifo,
    )
    [staging] = list(root.glob(f"{INCOMING_PREFIX}*"))
    mgr = RunManager(root)
    assert mgr.list_runs() == []  # the abandoned upload is not a run
    assert staging.exists()  # listing changes nothing ...
    mgr.poll()  # ... the next start, or the app's start, removes it
    assert not staging.exists()


def test_full_disk_during_intake_is_one_line_and_leaves_nothing(tiny_tmpfs: Path) -> None:
    """A real 1.5 MB tmpfs and a 2 MB upload: storing it fails with ENOSPC, in one line
    that names the upload, and nothing is left in the runs root."""
    data = (("\n".join(SINHALA) + "\n") * 11000).encode("utf-8")
    assert len(data) > 2_000_000
    root = tiny_tmpfs / "runs"
    with pytest.raises(OSError) as err:
        RunManager(root).start(RunRequest(data, name="big.txt", vocab_size=700))
    assert str(err.value) == (
        f"[Errno 28] cannot store the upload big.txt: No space left on device: '{root / 'uploads'}'"
    )
    assert list(root.iterdir()) == []  # no run, no staging directory, no temp file


# ============================================================================ schemas


def test_devanagari_vowel_sign_ay_is_a_vowel_sign() -> None:
    """U+A8FF DEVANAGARI VOWEL SIGN AY (Unicode 11) is a vowel sign: it joins its consonant."""
    assert load_schema("devanagari").classify("\ua8ff") == "P"
    assert syllabify("क\ua8ff") == ["क\ua8ff"]


# ============================================================================ soak


@pytest.mark.slow
def test_soak_twenty_cancel_resume_cycles_are_byte_identical(
    long_corpus: Path, tmp_path: Path
) -> None:
    """20 cycles of train / cancel at a random moment / resume, then the result must be
    byte-identical to an uninterrupted run (random timing, fixed seed for the record)."""
    rnd = random.Random(15)
    request = RunRequest(long_corpus, vocab_size=12000, checkpoint_every=300, heartbeat_seconds=0.1)
    mgr = RunManager(tmp_path / "runs")
    reference = mgr.wait(mgr.start(request), timeout=300)
    assert reference.state == "done", reference.message
    [ref_run] = mgr.list_runs()
    run = mgr.start(request)
    cycles = mid_merge = 0
    while cycles < 20:
        # One stop in four hits whatever the trainer is doing (starting, counting); the
        # others wait for the merges, then stop it at a random moment of them.
        phases = rnd.choice([("counting", "merging"), ("merging",), ("merging",), ("merging",)])
        deadline = time.monotonic() + 60
        while (st := mgr.status(run)).state not in (*phases, "done"):
            assert time.monotonic() < deadline, st
            time.sleep(0.01)
        if st.state == "done":
            break
        time.sleep(rnd.uniform(0.0, 0.3))
        try:
            st = mgr.cancel(run, wait=30)
        except RunError:  # it finished in the meantime
            break
        assert st.state == "cancelled", st.message
        cycles += 1
        mid_merge += "checkpoint at step" in st.message
        mgr.resume(run)
    final = mgr.wait(run, timeout=300)
    assert final.state == "done", final.message
    print(f"soak: {cycles} cancel/resume cycles, {mid_merge} of them mid-merge")
    assert cycles == 20  # the corpus is long enough for all of them
    assert mid_merge >= 5  # the others stop a trainer while it starts or counts
    same = (run.path / "vocab.json").read_bytes() == (ref_run.run.path / "vocab.json").read_bytes()
    assert same


# ============================================================================ byte-level BPE runs


def _train_cli(out: Path, *args: str) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "sgpe", "train", "--out", str(out), "--model", "bytebpe", *args]
    return subprocess.Popen(cmd, cwd=REPO_ROOT, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE)


def test_bytebpe_run_resumes_from_its_checkpoint_to_the_same_vocab(
    long_corpus: Path, tmp_path: Path
) -> None:
    # 10,000 real lines to 6,000 tokens: byte-level training runs ~3,000 merges/s here, so
    # the ~5,400 merges after step 300 leave seconds to stop it (status.json lags the
    # trainer by up to one heartbeat; 1,000 lines to 1,200 tokens once ended first).
    corpus = long_corpus
    args = ["--vocab-size", "6000", "--checkpoint-every", "50", "--heartbeat-seconds", "0.1"]
    reference = tmp_path / "reference"
    proc = _train_cli(reference, "--corpus", str(corpus), *args)
    assert proc.wait(timeout=120) == 0, proc.stderr.read() if proc.stderr else ""
    assert load(reference / "vocab.json").vocab_size == 6000  # exactly the requested size

    out = tmp_path / "run"
    proc = _train_cli(out, "--corpus", str(corpus), *args)
    deadline = time.monotonic() + 120
    while True:
        assert proc.poll() is None, "the trainer ended before it could be stopped"
        assert time.monotonic() < deadline
        try:
            if read_status(out).step >= 300:
                break
        except RunError:
            pass
        time.sleep(0.01)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 0
    stopped = read_status(out)
    assert stopped.state == "cancelled"
    step = stopped.checkpoint_step
    assert step >= 300 and f"checkpoint at step {step}: resume to continue" in stopped.message

    proc = _train_cli(out, "--resume")
    assert proc.wait(timeout=120) == 0
    log = (out / "train.log").read_text(encoding="utf-8")
    assert f"resuming from checkpoint.json at step {step}" in log
    assert (out / "vocab.json").read_bytes() == (reference / "vocab.json").read_bytes()
    assert (out / "merges.parquet").read_bytes() == (reference / "merges.parquet").read_bytes()


# ============================================================================ output paths


@pytest.mark.parametrize(
    ("target", "flags", "message"),
    [
        # An existing directory is a tokenizer folder's place; a lone tokenizer.json is not.
        ("a_dir", ["--format", "hf"], "--out {t}/a_dir is a directory: use --format hf-folder"),
        ("no_dir/t.json", [], "{t}/no_dir/t.json: cannot write here: No such file or directory"),
    ],
)
def test_export_to_a_bad_path_names_that_path(
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
    tmp_path: Path,
    target: str,
    flags: list[str],
    message: str,
) -> None:
    (tmp_path / "a_dir").mkdir()
    out = tmp_path / target
    code, _, err = cli(
        monkeypatch, capsysbinary, ["export", "--vocab", str(SGPE_4K), "--out", str(out), *flags]
    )
    assert code == 2
    line = one_clear_line(err)
    assert message.replace("{t}", str(tmp_path)) in line and ".tmp" not in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_dir"]  # no temp file left


# ============================================================================ the command line, swept

BAD_COMMANDS = [
    (["train", "--corpus", "{c}", "--vocab-size", "-5", "--out", "{o}"], "", "vocab_size must be"),
    (
        [
            "train",
            "--corpus",
            "{c}",
            "--vocab-size",
            "700",
            "--checkpoint-every",
            "0",
            "--out",
            "{o}",
        ],
        "",
        "checkpoint_every must be >= 1, got 0",
    ),
    (
        ["train", "--corpus", "{d}", "--vocab-size", "700", "--out", "{o}"],
        "",
        "the directory holds no corpus file",
    ),
    (
        ["train", "--corpus", "{d}.txt", "--vocab-size", "700", "--out", "{o}"],
        "",
        ".txt: file not found",
    ),
    (
        ["train", "--corpus", "{c}", "--vocab-size", "256", "--model", "bytebpe", "--out", "{o}"],
        "",
        "vocab_size must be at least 257 for bytebpe",
    ),
    (["train", "--out", "{d}", "--resume"], "", "no config.json; this is not a run directory"),
    # A directory is read as a tokenizer folder sgpe exported; this one is not.
    (["encode", "--vocab", "{d}"], "", "not a tokenizer folder (no sgpe_config.json"),
    (["encode", "--vocab", "{c}"], "", "not valid JSON (line 1, column 1"),
    (
        ["decode", "--vocab", str(SGPE_4K)],
        "[99999999999999999999999]\n",
        "invalid token id: 99999999999999999999999",
    ),
    (["decode", "--vocab", str(SGPE_4K)], "[1e400]\n", "expected a JSON list of integer token ids"),
    (["decode", "--vocab", str(SGPE_4K)], "NaN\n", "expected a JSON list of integer token ids"),
    (["eval", "--vocab", str(SGPE_4K), "--text", "{d}"], "", "Is a directory"),
    (
        ["export", "--vocab", str(SGPE_4K), "--out", "{o}.json", "--check", "{d}.txt"],
        "",
        "No such file or directory",
    ),
]


@pytest.mark.parametrize(("argv", "stdin", "fragment"), BAD_COMMANDS)
def test_bad_commands_give_one_clear_line(
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
    small_corpus: Path,
    tmp_path: Path,
    argv: list[str],
    stdin: str,
    fragment: str,
) -> None:
    (tmp_path / "a_dir").mkdir()
    where = {"c": str(small_corpus), "d": str(tmp_path / "a_dir"), "o": str(tmp_path / "out")}
    code, _, err = cli(monkeypatch, capsysbinary, [a.format(**where) for a in argv], stdin)
    assert code == 2
    assert fragment in one_clear_line(err)
    assert not (tmp_path / "out").exists()


def test_a_malformed_csv_header_is_a_clear_error(tmp_path: Path) -> None:
    """Found by the fuzz suite: text after a closing quote in the header row."""
    path = tmp_path / "bad.csv"
    path.write_text('"text"x,id\n"a",1\n', encoding="utf-8")
    with pytest.raises(CorpusError, match=r"bad.csv: line 1: malformed CSV header"):
        list(iter_documents(path))

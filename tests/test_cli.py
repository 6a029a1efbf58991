"""The command line (docs/architecture.md): ``main([...])`` in-process with real stdin/stdout bytes,
plus subprocess smoke tests of ``python -m sgpe`` (locale-independent UTF-8, a progress bar
on a real pseudo-terminal)."""

from __future__ import annotations

import argparse
import io
import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

from sgpe import load, syllabify
from sgpe._engine import describe
from sgpe.cli import main
from sgpe.gpe import GPETrainer, TrainSettings
from sgpe.runs import read_status

REPO_ROOT = Path(__file__).resolve().parents[1]

# Sentences written for these tests (Sinhala with yansaya, rakaransaya, ZWJ forms,
# anusvara; Hindi with conjuncts and nukta).
SINHALA = [
    "ශ්‍රී ලංකාව ඉන්දියන් සාගරයේ පිහිටි ලස්සන දූපතකි.",
    "අපි හෙට උදේ පාසලට යමු.",
    "මම සිංහල භාෂාව ඉගෙන ගනිමි.",
    "ක්‍රීඩා පිටියේ ළමයින් සෙල්ලම් කරති.",
    "ප්‍රධාන විදුහල්පතිතුමා රැස්වීමේදී කතා කළේය.",
    "ගුරුවරු ව්‍යාකරණ පාඩම් සරලව උගන්වති.",
    "වැස්ස නිසා ග්‍රාමීය මාර්ග තෙත් වී ඇත.",
    "කොළඹ නගරය ඉතා කාර්යබහුලයි.",
    "විද්‍යාගාරයේ ප්‍රායෝගික පරීක්ෂණ පැවැත්වේ.",
    "අම්මා කුස්සියේ රසවත් කෑම උයනවා.",
]
HINDI = [
    "नमस्ते दुनिया, आज मौसम अच्छा है।",
    "मैं हिंदी सीख रहा हूँ।",
    "क्षत्रिय राजा ने युद्ध जीता।",
    "विद्यालय में बच्चे ध्यान से पढ़ते हैं।",
    "भारत एक विशाल और सुंदर देश है।",
    "स्त्री ने ज़रूरी पत्र लिखा।",
]


def composed_lines(n: int = 240) -> list[str]:
    """A small mixed corpus: pairs of the sentences above, so words repeat in new contexts."""
    sents = SINHALA + HINDI
    k = len(sents)
    return [f"{sents[i % k]} {sents[(i * 7 + 3) % k]}" for i in range(n)]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("corpus") / "mixed.txt"
    path.write_text("\n".join(composed_lines()) + "\n", encoding="utf-8")
    return path


def run(
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
    argv: list[str],
    stdin: bytes = b"",
) -> tuple[int, bytes, str]:
    """main(argv) with ``stdin`` as the process's standard input bytes."""
    capsysbinary.readouterr()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
    code = main(argv)
    out, err = capsysbinary.readouterr()
    return code, out, err.decode("utf-8")


def assert_one_error_line(err: str, *fragments: str) -> None:
    lines = [line for line in err.splitlines() if line.startswith("sgpe: error:")]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


@pytest.fixture(scope="module")
def trained(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run directory trained through main() (module scope: trained once)."""
    out = tmp_path_factory.mktemp("runs") / "run"
    code = main(
        [
            "train",
            "--corpus",
            str(corpus),
            "--vocab-size",
            "2000",
            "--out",
            str(out),
            "--checkpoint-every",
            "50",
        ]
    )
    assert code == 0
    return out


# ============================================================================ syllabify


def test_syllabify_splits_on_newline_only_and_keeps_carriage_return(
    monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    lines = ["ශ්‍රී ලංකාව\r", "नमस्ते\tदुनिया", "", "abc 😀"]
    code, out, err = run(
        monkeypatch, capsysbinary, ["syllabify", "--leading-space"], "\n".join(lines).encode()
    )
    assert code == 0, err
    got = [json.loads(x) for x in out.decode("utf-8").split("\n")[:-1]]
    assert got == [syllabify(x, leading_space=True) for x in lines]
    assert got[0][-1] == "\r"
    assert "ශ්‍රී".encode() in out  # UTF-8, not \u escapes


def test_syllabify_script_option(
    monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    code, out, _ = run(
        monkeypatch, capsysbinary, ["syllabify", "--script", "sinhala"], "ලංකා क्ष\n".encode()
    )
    assert code == 0
    assert json.loads(out) == syllabify("ලංකා क्ष", script="sinhala")


def test_invalid_utf8_on_stdin_names_the_line(
    monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    code, _, err = run(monkeypatch, capsysbinary, ["syllabify"], b"ok\ncaf\xe9\n")
    assert code == 2
    assert_one_error_line(err, "stdin line 2, byte 4: not valid UTF-8")


# ============================================================================ train, encode, decode


def test_train_writes_the_run_directory(trained: Path) -> None:
    names = {p.name for p in trained.iterdir()}
    assert not [n for n in names if n.startswith("corpus")]  # the corpus is read in place
    for name in (
        "config.json",
        "word_counts.parquet",
        "status.json",
        "checkpoint.json",
        "checkpoint.prev.json",
        "merges.parquet",
        "vocab.json",
        "train.log",
    ):
        assert name in names
    assert "merges" not in names  # part files are consolidated into merges.parquet
    status = read_status(trained)
    assert status.state == "done" and status.step == len(load(trained / "vocab.json").merges)
    assert "done: vocab.json" in (trained / "train.log").read_text(encoding="utf-8")


def test_a_run_checkpointed_only_at_its_end_writes_the_same_files(
    trained: Path, corpus: Path, tmp_path: Path
) -> None:
    """With the default checkpoints (by the clock) a short run checkpoints once, at its
    end, and its merges.parquet is the bytes of that one part; `trained` checkpointed
    every 50 merges and consolidated its parts."""
    out = tmp_path / "run"
    assert main(["train", "--corpus", str(corpus), "--vocab-size", "2000", "--out", str(out)]) == 0
    assert "merges" not in {p.name for p in out.iterdir()}
    assert "checkpoint.prev.json" not in {p.name for p in out.iterdir()}  # one checkpoint
    for name in ("merges.parquet", "vocab.json", "word_counts.parquet"):
        assert (out / name).read_bytes() == (trained / name).read_bytes(), name


def test_train_output_equals_the_library(trained: Path, corpus: Path, tmp_path: Path) -> None:
    GPETrainer(TrainSettings(vocab_size=2000)).train(corpus).save(tmp_path / "vocab.json")
    assert (trained / "vocab.json").read_bytes() == (tmp_path / "vocab.json").read_bytes()


def test_encode_decode_round_trip(
    trained: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    vocab = str(trained / "vocab.json")
    lines = [*composed_lines(5), "unseen ඥ්‍ය 😀 text\r", "", "  double  spaces "]
    text = ("\n".join(lines) + "\n").encode()
    code, ids_out, err = run(monkeypatch, capsysbinary, ["encode", "--vocab", vocab], text)
    assert code == 0, err
    ids = [json.loads(x) for x in ids_out.decode().splitlines()]
    assert len(ids) == len(lines) and all(isinstance(i, int) for row in ids for i in row)
    code, back, err = run(monkeypatch, capsysbinary, ["decode", "--vocab", vocab], ids_out)
    assert code == 0, err
    assert back == text
    code, toks, _ = run(monkeypatch, capsysbinary, ["encode", "--vocab", vocab, "--tokens"], text)
    assert code == 0
    # The tokens carry the space encode() puts before each non-empty line (prepend_space).
    tokens = ["".join(json.loads(x)) for x in toks.decode().split("\n")[:-1]]
    assert tokens[:5] == [" " + line for line in lines[:5]]


@pytest.mark.parametrize(
    ("stdin", "fragment"),
    [
        pytest.param(b"[5, 6]\nnot json\n", "stdin line 2: not valid JSON", id="not-json"),
        pytest.param(
            b'[5]\n[5]\n["a"]\n', "stdin line 3: expected a JSON list of integer", id="str"
        ),
        pytest.param(b"[5]\n[99999999]\n", "stdin line 2: invalid token id: 99999999", id="bad-id"),
        pytest.param(b"\n", "stdin line 1: not valid JSON", id="empty-line"),
    ],
)
def test_decode_bad_line_is_named(
    trained: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
    stdin: bytes,
    fragment: str,
) -> None:
    code, _, err = run(
        monkeypatch, capsysbinary, ["decode", "--vocab", str(trained / "vocab.json")], stdin
    )
    assert code == 2
    assert_one_error_line(err, fragment)


def test_encode_with_missing_or_bad_vocab(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    code, _, err = run(
        monkeypatch, capsysbinary, ["encode", "--vocab", str(tmp_path / "no.json")], b"x\n"
    )
    assert code == 2
    assert_one_error_line(err, "no.json: file not found")
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "sgpe-vocab", "format_version": 99}', encoding="utf-8")
    code, _, err = run(monkeypatch, capsysbinary, ["encode", "--vocab", str(bad)], b"x\n")
    assert code == 2
    assert_one_error_line(err, "format_version")


def test_train_bytebpe(
    corpus: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    out = tmp_path / "bpe"
    code, _, err = run(
        monkeypatch,
        capsysbinary,
        [
            "train",
            "--model",
            "bytebpe",
            "--corpus",
            str(corpus),
            "--vocab-size",
            "400",
            "--out",
            str(out),
        ],
    )
    assert code == 0, err
    tok = load(out / "vocab.json")
    assert type(tok).__name__ == "ByteBPETokenizer" and tok.num_merges == 143
    assert tok.vocab_size == 400  # 256 bytes + 143 merges + <|endoftext|>
    assert tok.training["corpus"] == "mixed.txt" and tok.training["lines"] == 240
    assert read_status(out).state == "done" and (out / "merges.parquet").exists()
    text = "ශ්‍රී ලංකාව नमस्ते\n".encode()
    code, ids, _ = run(
        monkeypatch, capsysbinary, ["encode", "--vocab", str(out / "vocab.json")], text
    )
    code, back, _ = run(
        monkeypatch, capsysbinary, ["decode", "--vocab", str(out / "vocab.json")], ids
    )
    assert back == text


# ============================================================================ train errors


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        pytest.param(
            ["--corpus", "{tmp}/nope.txt", "--vocab-size", "900"],
            "nope.txt: file not found",
            id="missing",
        ),
        pytest.param(
            ["--corpus", "{tmp}/c.docx", "--vocab-size", "900"],
            "unsupported corpus type",
            id="suffix",
        ),
        pytest.param(
            ["--corpus", "{tmp}/bad.txt", "--vocab-size", "900"],
            "line 2, byte 4: not valid UTF-8",
            id="utf8",
        ),
        pytest.param(["--corpus", "{corpus}"], "train needs --vocab-size", id="no-size"),
        pytest.param(
            ["--corpus", "{corpus}", "--vocab-size", "3"],
            "vocab_size must be an integer above 5",
            id="tiny",
        ),
        pytest.param(
            ["--corpus", "{corpus}", "--vocab-size", "900", "--pattern", "gpt2"],
            "--pattern: only for --model bytebpe",
            id="pattern",
        ),
        pytest.param(
            ["--corpus", "{corpus}", "--vocab-size", "900", "--model", "bytebpe", "--oov", "unk"],
            "--oov: only for --model sgpe",
            id="oov",
        ),
        pytest.param(
            ["--corpus", "{corpus}", "--vocab-size", "900", "--checkpoint-every", "0"],
            "checkpoint_every must be >= 1",
            id="ckpt",
        ),
        pytest.param(  # it trained no superword, without a word
            ["--corpus", "{corpus}", "--vocab-size", "2000", "--superwords-from", "999999"],
            "superwords_from must be below vocab_size (2,000), got 999,999",
            id="superwords-above-size",
        ),
        pytest.param(  # the byte-level trainer failed after counting
            ["--corpus", "{corpus}", "--vocab-size", "1000000000000", "--model", "bytebpe"],
            "vocab_size must be at most 1,114,112",
            id="size-above-code-points",
        ),
    ],
)
def test_train_usage_errors_leave_no_run_directory(
    argv: list[str],
    fragment: str,
    corpus: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    (tmp_path / "c.docx").write_bytes(b"PK")
    (tmp_path / "bad.txt").write_bytes("ශ්‍රී\n".encode() + b"caf\xe9\n")
    out = tmp_path / "out"
    argv = [a.format(tmp=tmp_path, corpus=corpus) for a in argv]
    code, _, err = run(monkeypatch, capsysbinary, ["train", *argv, "--out", str(out)])
    assert code == 2
    assert_one_error_line(err, fragment)
    assert not out.exists()


def test_vocab_size_below_the_base_vocabulary_fails_the_run(
    corpus: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    out = tmp_path / "out"
    argv = ["train", "--corpus", str(corpus), "--vocab-size", "50", "--out", str(out)]
    code, _, err = run(monkeypatch, capsysbinary, argv)
    assert code == 2
    assert_one_error_line(err, "vocab_size=50 is smaller than the base vocabulary")
    assert read_status(out).state == "failed"


def test_existing_run_needs_resume_and_matching_flags(
    trained: Path,
    corpus: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    argv = ["train", "--corpus", str(corpus), "--vocab-size", "2000", "--out", str(trained)]
    code, _, err = run(monkeypatch, capsysbinary, argv)
    assert code == 2
    assert_one_error_line(err, "is not empty; use --resume")
    code, _, err = run(
        monkeypatch,
        capsysbinary,
        ["train", "--out", str(trained), "--resume", "--vocab-size", "999"],
    )
    assert code == 2
    assert_one_error_line(err, "--vocab-size 999 differs from the run's config.json (2000)")
    other = tmp_path / "other.txt"
    other.write_text("අපි යමු\n", encoding="utf-8")
    code, _, err = run(
        monkeypatch,
        capsysbinary,
        ["train", "--out", str(trained), "--resume", "--corpus", str(other)],
    )
    assert code == 2
    assert_one_error_line(err, "is not the corpus this run trains on")
    code, _, err = run(monkeypatch, capsysbinary, ["train", "--out", str(tmp_path), "--resume"])
    assert code == 2
    assert_one_error_line(err, "no config.json; this is not a run directory")


def test_resume_of_a_finished_run_changes_nothing(
    trained: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    before = (trained / "vocab.json").read_bytes(), (trained / "status.json").read_bytes()
    code, _, err = run(monkeypatch, capsysbinary, ["train", "--out", str(trained), "--resume"])
    assert code == 0
    assert "already done" in err
    assert ((trained / "vocab.json").read_bytes(), (trained / "status.json").read_bytes()) == before


def test_help_shows_defaults(
    monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    code, out, _ = run(monkeypatch, capsysbinary, ["train", "--help"])
    assert code == 0
    text = out.decode()
    for flag in (
        "--corpus",
        "--vocab-size",
        "--out",
        "--model",
        "--prune-freq",
        "--min-freq",
        "--oov",
        "--checkpoint-every",
        "--resume",
        "--checkpoint-seconds",
    ):
        assert flag in text
    assert "(default: 50000)" in text and "(default: fallback)" in text
    code, out, _ = run(monkeypatch, capsysbinary, ["syllabify", "-h"])
    assert "(default: auto)" in out.decode()
    code, _, err = run(monkeypatch, capsysbinary, ["frobnicate"])
    assert code == 2 and "invalid choice" in err
    import sgpe

    code, out, _ = run(monkeypatch, capsysbinary, ["--version"])
    assert code == 0 and out.decode() == f"sgpe {sgpe.__version__}, {describe()}\n"


def test_help_says_each_default_once_and_only_where_there_is_one(
    monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """No "(default: None)" for an option without a default, no "(default: False)" for a
    switch, and an option whose help says its default in words is not given it twice."""
    texts = {}
    for command in ("syllabify", "train", "count", "encode", "decode", "eval", "export"):
        code, out, _ = run(monkeypatch, capsysbinary, [command, "--help"])
        assert code == 0
        texts[command] = text = " ".join(out.decode().split())
        assert "(default: None)" not in text and "(default: False)" not in text
        assert re.search(r"\(default: [^()]*\) \(default:", text) is None, command
    assert "a LocalCluster on this machine)" in texts["count"]
    assert "larger (default: no limit) --max-line-bytes" in texts["train"]
    # Batch encoding words the counting options for what they do there.
    assert "processes that encode the corpus" in texts["encode"]
    assert "a small corpus is encoded in one" in texts["encode"]
    assert "encode here (local)" in texts["encode"] and "count" not in texts["encode"]
    assert "processes that count the corpus" in texts["count"]


def test_a_run_error_is_a_usage_error_and_other_commands_skip_the_run_modules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command line catches RunError without importing the run modules for commands
    that never use a run (starting them is part of every command's time)."""
    code = (
        "import sys; from sgpe.cli import main\n"
        "sys.stdin = open(sys.argv[1], encoding='utf-8')\n"
        "assert main(['syllabify']) == 0\n"
        "print(sorted(m for m in sys.modules if m.startswith('sgpe.runs')))\n"
    )
    (tmp_path / "in.txt").write_text("ශ්‍රී\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "in.txt")],
        capture_output=True, text=True, cwd=REPO_ROOT, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]"
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "junk").write_text("x", encoding="utf-8")
    monkeypatch.setenv("SGPE_DEBUG", "1")  # an error the CLI did not catch would raise
    assert main(["train", "--out", str(tmp_path / "run"), "--resume"]) == 2
    assert "run: no config.json; this is not a run directory" in capsys.readouterr().err


def test_eval_prints_metrics_json(
    trained: Path,
    corpus: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    pytest.importorskip("sgpe.metrics", reason="sgpe.metrics is written in parallel")
    code, out, err = run(
        monkeypatch,
        capsysbinary,
        ["eval", "--vocab", str(trained / "vocab.json"), "--text", str(corpus)],
    )
    assert code == 0, err
    metrics = json.loads(out)
    assert metrics["tokens"] > 0 and metrics["lines"] == 240
    code, _, err = run(
        monkeypatch,
        capsysbinary,
        ["eval", "--vocab", str(trained / "vocab.json"), "--text", "nope.txt"],
    )
    assert code == 2
    assert_one_error_line(err, "nope.txt: file not found")


# ============================================================================ subprocess


def test_python_dash_m_is_utf8_under_the_c_locale(trained: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG", "PYTHONIO"))}
    env.update(LANG="C", LC_ALL="C", PYTHONUTF8="0")
    text = "ශ්‍රී ලංකාව\r\nनमस्ते\n".encode()
    done = subprocess.run(
        [sys.executable, "-m", "sgpe", "syllabify"],
        input=text,
        capture_output=True,
        env=env,
        cwd=REPO_ROOT,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert [json.loads(x) for x in done.stdout.decode("utf-8").splitlines()] == [
        syllabify("ශ්‍රී ලංකාව\r"),
        syllabify("नमस्ते"),
    ]
    vocab = str(trained / "vocab.json")
    enc = subprocess.run(
        [sys.executable, "-m", "sgpe", "encode", "--vocab", vocab],
        input=text,
        capture_output=True,
        env=env,
        cwd=REPO_ROOT,
        timeout=60,
    )
    dec = subprocess.run(
        [sys.executable, "-m", "sgpe", "decode", "--vocab", vocab],
        input=enc.stdout,
        capture_output=True,
        env=env,
        cwd=REPO_ROOT,
        timeout=60,
    )
    assert dec.stdout == text
    bad = subprocess.run(
        [sys.executable, "-m", "sgpe", "decode", "--vocab", "missing.json"],
        input=b"[1]\n",
        capture_output=True,
        env=env,
        cwd=REPO_ROOT,
        timeout=60,
    )
    assert bad.returncode == 2
    assert bad.stderr.decode().strip() == "sgpe: error: missing.json: file not found"


def test_progress_bar_on_a_terminal(corpus: Path, tmp_path: Path) -> None:
    """stderr on a pseudo-terminal gets a \\r-redrawn bar; a pipe gets log lines."""
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "sgpe",
                "train",
                "--corpus",
                str(corpus),
                "--vocab-size",
                "2000",
                "--out",
                str(tmp_path / "tty"),
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=slave,
            cwd=REPO_ROOT,
        )
        os.close(slave)
        chunks = []
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        assert proc.wait(timeout=60) == 0
    finally:
        os.close(master)
    shown = b"".join(chunks).decode("utf-8", "replace")
    assert "\r[" in shown and "merges" in shown and "done: vocab.json" in shown
    piped = subprocess.run(
        [
            sys.executable,
            "-m",
            "sgpe",
            "train",
            "--corpus",
            str(corpus),
            "--vocab-size",
            "2000",
            "--out",
            str(tmp_path / "pipe"),
        ],
        capture_output=True,
        cwd=REPO_ROOT,
        timeout=60,
    )
    assert piped.returncode == 0
    assert "\r" not in piped.stderr.decode() and "done: vocab.json" in piped.stderr.decode()


# ---------------------------------------------------------------------------- export: folders

SGPE_4K = REPO_ROOT / "sample_data" / "vocab" / "sgpe_4k.json"
BYTEBPE_4K = REPO_ROOT / "sample_data" / "vocab" / "bytebpe_4k.json"


def test_export_to_a_directory_writes_a_folder_that_every_vocab_flag_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    from sgpe.interop.hf_folder import FILES

    out = tmp_path / "tok"
    code, _, err = run(
        monkeypatch, capsysbinary, ["export", "--vocab", str(SGPE_4K), "--out", f"{out}/"]
    )
    assert code == 0, err
    assert sorted(p.name for p in out.iterdir()) == sorted(FILES)
    text = "\n".join(SINHALA + HINDI).encode() + b"\n"
    by_file = run(monkeypatch, capsysbinary, ["encode", "--vocab", str(SGPE_4K)], text)
    by_folder = run(monkeypatch, capsysbinary, ["encode", "--vocab", str(out)], text)
    assert by_folder == by_file and by_file[0] == 0
    decoded = run(monkeypatch, capsysbinary, ["decode", "--vocab", str(out)], by_file[1])
    assert decoded[1] == text
    # An existing directory is a folder without the slash; the folder is a --vocab too.
    code, _, err = run(
        monkeypatch, capsysbinary,
        ["export", "--vocab", str(out), "--out", str(out), "--special-tokens", "causal",
         "--eos-token", "none", "--model-max-length", "512"],
    )  # fmt: skip
    assert code == 0, err
    config = json.loads((out / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert (config["model_max_length"], config["bos_token"]) == (512, "[CLS]")
    assert "eos_token" not in config
    ids, corpus = tmp_path / "ids.npy", tmp_path / "c.txt"
    corpus.write_bytes(text)
    code, _, err = run(
        monkeypatch, capsysbinary,
        ["encode", "--vocab", str(out), "--corpus", str(corpus), "--out", str(ids)],
    )  # fmt: skip
    assert code == 0, err
    np = pytest.importorskip("numpy")
    assert np.load(ids).tolist() == [
        i for line in by_file[1].splitlines() for i in json.loads(line)
    ]


@pytest.mark.parametrize(
    ("argv", "fragments"),
    [
        (["--out", "{t}/x.json", "--pad-token", "[PAD]"], ["--pad-token: only for a tokenizer folder"]),
        (["--out", "{t}/x.json", "--special-tokens", "causal"], ["--special-tokens: only for a tokenizer folder"]),
        (["--out", "{t}/d/", "--format", "hf"], ["--format hf writes one tokenizer.json file, but --out", "is a directory"]),
        (["--out", "{t}/d/", "--eos-token", "</s>"], ["eos_token (--eos-token) '</s>' given is not a special token of this vocabulary"]),
        (["--out", "{t}/d/", "--model-max-length", "0"], ["model_max_length must be a positive integer, not 0"]),
        (["--out", "{t}/d/", "--format", "meta", "--cls-sep"], ["--cls-sep: only for --format hf or hf-folder"]),
        (["--out", "{t}/mine/"], ["not empty and not a tokenizer folder sgpe wrote (it holds notes.txt)"]),
    ],
)  # fmt: skip
def test_export_folder_usage_errors(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
    argv: list[str],
    fragments: list[str],
) -> None:
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("mine")
    argv = [a.replace("{t}", str(tmp_path)) for a in argv]
    code, _, err = run(monkeypatch, capsysbinary, ["export", "--vocab", str(SGPE_4K), *argv])
    assert code == 2
    assert_one_error_line(err, *fragments)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]
    assert [p.name for p in (tmp_path / "mine").iterdir()] == ["notes.txt"]


def test_vocab_flags_refuse_folders_sgpe_did_not_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    code, _, err = run(
        monkeypatch,
        capsysbinary,
        ["export", "--vocab", str(SGPE_4K), "--out", str(plain / "tokenizer.json")],
    )
    assert code == 0, err
    for argv in (
        ["encode", "--vocab", str(plain)],
        [
            "encode",
            "--vocab",
            str(plain),
            "--corpus",
            str(SGPE_4K),
            "--out",
            str(tmp_path / "i.npy"),
        ],
    ):
        code, _, err = run(monkeypatch, capsysbinary, argv, b"x\n")
        assert code == 2
        assert_one_error_line(
            err,
            "a Hugging Face tokenizer folder that sgpe did not write (no sgpe_config.json)",
            "export again, or pass the vocab.json",
        )


def test_export_roles_are_the_folder_modules_roles() -> None:
    from sgpe.cli import commands, parser
    from sgpe.interop.hf_folder import ROLES

    assert commands._ROLES == parser._ROLES == ROLES


def test_python_m_sgpe_export_folder_loads_with_autotokenizer(tmp_path: Path) -> None:
    """The three lines of docs/usage.md's Hugging Face section, as a user runs them (a
    fresh process each)."""
    pytest.importorskip("transformers")
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(composed_lines()) + "\n", encoding="utf-8")
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    run_dir, folder = tmp_path / "run", tmp_path / "tok"
    steps = [
        [sys.executable, "-m", "sgpe", "train", "--corpus", str(corpus), "--vocab-size", "1200", "--out", str(run_dir)],
        [sys.executable, "-m", "sgpe", "export", "--vocab", str(run_dir / "vocab.json"), "--out", f"{folder}/"],
    ]  # fmt: skip
    for cmd in steps:
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
        assert done.returncode == 0, done.stderr
    code = (
        "import sys, json; from transformers import AutoTokenizer; "
        "t = AutoTokenizer.from_pretrained(sys.argv[1]); "
        "print(json.dumps(t([sys.argv[2], sys.argv[3]], padding=True)['input_ids']))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(folder), SINHALA[0], HINDI[1]],
        capture_output=True, text=True, env=env, timeout=300, check=True,
    )  # fmt: skip
    tok = load(run_dir / "vocab.json")
    ours = [tok.encode(SINHALA[0]), tok.encode(HINDI[1])]
    width = max(map(len, ours))
    assert json.loads(done.stdout) == [ids + [0] * (width - len(ids)) for ids in ours]


def test_commands_list_every_command_and_one_command_builds_only_its_flags() -> None:
    """``main`` builds the flags of the command it runs alone (sgpe/cli/parser.py,
    ``_Unbuilt``): ``COMMANDS`` must name every command, and one command's parser must
    parse its arguments as the full parser does."""
    from sgpe.cli.parser import COMMANDS, build_parser

    full = build_parser()
    sub = next(a for a in full._actions if isinstance(a, argparse._SubParsersAction))
    assert tuple(sub.choices) == COMMANDS
    argv = ["encode", "--vocab", "sgpe-4k", "--tokens"]
    assert vars(build_parser("encode").parse_args(argv)) == vars(full.parse_args(argv))
    alone = build_parser("encode")
    only = next(a for a in alone._actions if isinstance(a, argparse._SubParsersAction))
    assert tuple(only.choices) == ("encode",)


# ============================================================================ portability

#: Runs ``sgpe train`` in a Python where ``import fcntl`` fails, as on Windows (a None in
#: sys.modules is how Python itself marks a module that must not be imported).
NO_FCNTL = (
    "import sys\n"
    "sys.modules['fcntl'] = None\n"
    "from sgpe.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "assert sys.modules['fcntl'] is None\n"
    "sys.exit(code)\n"
)


def test_train_works_where_fcntl_does_not_exist(tmp_path: Path) -> None:
    """No module of the library needs fcntl to be imported (tests/test_import_graph.py):
    `train` runs without it, writes the run directory, and the vocabulary is the bytes of
    a run trained here, with fcntl's lock."""
    corpus = REPO_ROOT / "sgpe" / "sample_data" / "sinhala.txt"
    args = ["train", "--corpus", str(corpus), "--vocab-size", "1000", "--out"]
    done = subprocess.run(
        [sys.executable, "-c", NO_FCNTL, *args, str(tmp_path / "without")],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "error" not in done.stderr
    assert main([*args, str(tmp_path / "with")]) == 0
    without, with_lock = tmp_path / "without", tmp_path / "with"
    assert read_status(without).state == "done"
    for name in ("vocab.json", "word_counts.parquet"):
        assert (without / name).read_bytes() == (with_lock / name).read_bytes(), name
    assert load(without / "vocab.json").vocab_size == 1000


def test_sgpe_app_without_the_explorer_says_what_to_install() -> None:
    """A library alone (the explorer's package not importable): `sgpe app` prints one line
    naming the install command and exits 2, with no traceback."""
    code = (
        "import sys\n"
        "sys.modules['sgpe_explorer'] = None\n"
        "from sgpe.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    for argv in (["app"], ["app", "--server.port", "8600"]):
        done = subprocess.run(
            [sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=60
        )
        assert (done.returncode, done.stdout) == (2, "")
        assert done.stderr == (
            'sgpe: error: the explorer is not installed: pip install "sgpe-explorer[app]"\n'
        )

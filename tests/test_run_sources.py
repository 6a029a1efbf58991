"""A run refers to its corpus by path and sha256 instead of copying it: the run directory
stays small, a resume first checks the corpus and names exactly what changed (one line,
with the fix), a moved corpus can be pointed to, the counting options are recorded and
used again, and a run directory of the older layout (with a corpus copy) still resumes
to the byte-identical vocabulary.

Runs are stopped at a checkpoint with the documented ``SGPE_TEST_FAIL_WRITE_AFTER`` writer
fault (deterministic: the run fails after its first checkpoint, resumable). The corpus is
the first 10,000 lines of ``../shared/corpora/si_train.txt`` (the ``long_corpus`` fixture),
copied to a temp folder where a test changes it.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sgpe.runs import FAIL_WRITE_ENV, read_config, read_status

REPO_ROOT = Path(__file__).resolve().parents[1]
ARGS = ["--vocab-size", "2000", "--checkpoint-every", "500", "--checkpoint-seconds", "1000"]
#: word counts, merge part 1-500 and checkpoint 500 are written; the next part fails.
FAIL_AFTER_FIRST_CHECKPOINT = {FAIL_WRITE_ENV: "3"}
RUN_FILES = {
    ".lock", "config.json", "status.json", "train.log", "word_counts.parquet",
    "checkpoint.json", "checkpoint.prev.json", "merges.parquet", "vocab.json",
}  # fmt: skip
#: tests/data/run_v1_copy was made by ``python -m sgpe train --corpus
#: sample_data/sinhala.txt --vocab-size 1500 --checkpoint-every 100`` at commit 1132146
#: (the layout with a corpus copy), failed by SGPE_TEST_FAIL_WRITE_AFTER=5 after its
#: step-200 checkpoint; its files are as that version wrote them.
OLD_RUN = REPO_ROOT / "tests" / "data" / "run_v1_copy"
OLD_ARGS = ["--vocab-size", "1500", "--checkpoint-every", "100"]


def sgpe_train(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sgpe", "train", *args],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        env={**os.environ, **(env or {})},
        timeout=300,
    )


def stopped_run(corpus: str | Path, out: Path, *extra: str) -> None:
    """A run of ``corpus`` that failed (resumable) right after its step-500 checkpoint."""
    done = sgpe_train(
        "--corpus", str(corpus), "--out", str(out), *ARGS, *extra, env=FAIL_AFTER_FIRST_CHECKPOINT
    )
    assert done.returncode == 1, done.stderr
    status = read_status(out)
    assert (status.state, status.checkpoint_step, status.resumable) == ("failed", 500, True)


def snapshot(run: Path) -> dict[str, bytes]:
    return {str(p.relative_to(run)): p.read_bytes() for p in sorted(run.rglob("*")) if p.is_file()}


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def reference(long_corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An uninterrupted run of the long corpus."""
    out = tmp_path_factory.mktemp("ref") / "run"
    done = sgpe_train("--corpus", str(long_corpus), "--out", str(out), *ARGS, "--workers", "2")
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture
def corpus(long_corpus: Path, tmp_path: Path) -> Path:
    path = tmp_path / "corpora" / "si_head.txt"
    path.parent.mkdir()
    shutil.copyfile(long_corpus, path)
    return path


# ============================================================================ no copy


def test_the_run_directory_holds_no_corpus_copy_and_is_small(
    reference: Path, long_corpus: Path
) -> None:
    assert {p.name for p in reference.iterdir()} == RUN_FILES
    size = sum(p.stat().st_size for p in reference.iterdir())
    corpus_bytes = long_corpus.stat().st_size
    assert size < corpus_bytes // 5, (size, corpus_bytes)  # about 1.1 MB for 10 MB of text
    digest = sha(long_corpus)
    assert all(sha(p) != digest for p in reference.iterdir())
    data = json.loads((reference / "config.json").read_text(encoding="utf-8"))
    assert data["format_version"] == 2 and "corpus" not in data
    assert data["corpus_path"] == str(long_corpus) and data["corpus_name"] == long_corpus.name
    assert data["corpus_files"] == [
        {"path": str(long_corpus), "bytes": corpus_bytes, "sha256": digest}
    ]
    assert data["corpus_sha256"] == digest
    # The counting options the run was started with are recorded.
    assert data["counting"] == {
        "workers": 2, "backend": "local", "scheduler": None, "max_corpus_bytes": None,
        "max_line_bytes": 1 << 26,
    }  # fmt: skip


# ============================================================================ resume checks


def test_a_changed_corpus_stops_the_resume_and_the_original_resumes_identically(
    corpus: Path, reference: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    stopped_run(corpus, out)
    before = snapshot(out)
    original = corpus.read_bytes()
    old = sha(corpus)

    # One byte changed, the same size: found by the hash, named with both hashes.
    k = original.index(b"\n") - 1  # the last byte of the first line: "." or a letter's last byte
    changed = original[:k] + bytes([original[k] ^ 1]) + original[k + 1 :]
    corpus.write_bytes(changed)
    new = hashlib.sha256(changed).hexdigest()
    done = sgpe_train("--out", str(out), "--resume")
    assert done.returncode == 2
    assert done.stderr == (
        f"sgpe: error: run run: corpus file {corpus} changed since the run started (sha256 "
        f"{old[:12]}… then, {new[:12]}… now, same size); restore the original bytes, or start "
        "a new run on the corpus as it is now\n"
    )
    assert snapshot(out) == before  # nothing was touched

    # A line added: found by the size.
    added = "අලුත් පේළියක්\n".encode()
    corpus.write_bytes(original + added)
    done = sgpe_train("--out", str(out), "--resume")
    assert done.returncode == 2
    assert done.stderr == (
        f"sgpe: error: run run: corpus file {corpus} changed since the run started "
        f"({len(original):,} bytes then, {len(original) + len(added):,} now); restore the original "
        "bytes, or start a new run on the corpus as it is now\n"
    )

    # Gone: named, with how to point the run at it again.
    corpus.unlink()
    done = sgpe_train("--out", str(out), "--resume")
    assert done.returncode == 2
    assert done.stderr == (
        f"sgpe: error: run run: corpus file {corpus} is missing (recorded {len(original):,} "
        "bytes); put it back, or resume with --corpus at its new place (python -m sgpe train "
        "--out RUN_DIR --resume --corpus PATH)\n"
    )
    assert snapshot(out) == before

    # Another file given as the new place: refused, nothing changed.
    other = tmp_path / "other.txt"
    other.write_bytes(changed)
    done = sgpe_train("--out", str(out), "--resume", "--corpus", str(other))
    assert done.returncode == 2
    assert done.stderr == (
        f"sgpe: error: --corpus {other} is not the corpus this run trains on (content sha256 "
        f"{new[:12]}…, the run's is {old[:12]}…); give the run's corpus, or start a new run\n"
    )
    assert snapshot(out) == before

    # The original bytes in a new place: the run is pointed there and ends identical.
    moved = tmp_path / "moved" / "si_head.txt"
    moved.parent.mkdir()
    moved.write_bytes(original)
    done = sgpe_train("--out", str(out), "--resume", "--corpus", str(moved))
    assert done.returncode == 0, done.stderr
    config = read_config(out)
    assert config.corpus_path == str(moved) and config.corpus_sha256 == old
    assert [f.path for f in config.corpus_files] == [str(moved)]
    assert (out / "vocab.json").read_bytes() == (reference / "vocab.json").read_bytes()
    assert "resuming from checkpoint.json at step 500" in (out / "train.log").read_text("utf-8")


def test_a_directory_corpus_names_added_and_missing_files(
    long_corpus: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "parts"
    folder.mkdir()
    lines = long_corpus.read_bytes().splitlines(keepends=True)
    (folder / "a.txt").write_bytes(b"".join(lines[:5000]))
    (folder / "b.txt").write_bytes(b"".join(lines[5000:]))
    out = tmp_path / "run"
    stopped_run(folder, out)
    config = read_config(out)
    assert config.corpus_name == str(folder)
    files = [(Path(f.path).name, f.bytes) for f in config.corpus_files]
    assert files == [("a.txt", (folder / "a.txt").stat().st_size), ("b.txt", (folder / "b.txt").stat().st_size)]  # fmt: skip
    hashes = "".join(f"{sha(folder / n)}\n" for n in ("a.txt", "b.txt"))
    assert config.corpus_sha256 == hashlib.sha256(hashes.encode()).hexdigest()

    (folder / "c.txt").write_bytes(lines[0])
    done = sgpe_train("--out", str(out), "--resume")
    assert done.returncode == 2
    assert done.stderr == (
        f"sgpe: error: run run: corpus {folder}: 1 file(s) added since the run started "
        f"({folder / 'c.txt'}); remove them, or start a new run on the corpus as it is now\n"
    )
    (folder / "c.txt").unlink()
    (folder / "b.txt").rename(tmp_path / "b.txt")
    done = sgpe_train("--out", str(out), "--resume")
    assert done.returncode == 2
    assert done.stderr.startswith(
        f"sgpe: error: run run: corpus file {folder / 'b.txt'} is missing (recorded "
    )
    (tmp_path / "b.txt").rename(folder / "b.txt")
    done = sgpe_train("--out", str(out), "--resume")
    assert done.returncode == 0, done.stderr
    assert read_status(out).state == "done"


# ============================================================================ counting options


def test_counting_options_are_recorded_and_used_on_resume(corpus: Path, tmp_path: Path) -> None:
    """A limit given at the start applies again when the run resumes: the run counts as it
    was started, not with the defaults (with which it would succeed)."""
    out = tmp_path / "run"
    limit = ["--max-corpus-bytes", "1000000"]
    done = sgpe_train("--corpus", str(corpus), "--out", str(out), *ARGS, *limit)
    message = (
        f"sgpe: error: {corpus}: more than 1,000,000 bytes (max_corpus_bytes); raise the limit "
        "(--max-corpus-bytes) if this corpus is meant to be that large"
    )
    assert (done.returncode, done.stderr.splitlines()[-1]) == (2, message)
    assert read_config(out).counting.max_corpus_bytes == 1_000_000
    again = sgpe_train("--out", str(out), "--resume")
    assert (again.returncode, again.stderr.splitlines()[-1]) == (2, message)
    other = sgpe_train("--out", str(out), "--resume", "--max-corpus-bytes", "20000000")
    assert other.returncode == 2
    assert other.stderr == (
        "sgpe: error: --max-corpus-bytes 20000000 differs from the run's config.json "
        "(1000000); a resumed run counts as it was started: omit the flag, or start a new run "
        "with another --out\n"
    )


# ============================================================================ the older layout


def test_a_run_directory_with_a_corpus_copy_still_resumes_identically(tmp_path: Path) -> None:
    old = tmp_path / "old"
    shutil.copytree(OLD_RUN, old)
    config = read_config(old)
    assert config.has_copy and config.corpus == "corpus.txt"
    assert (read_status(old).state, read_status(old).checkpoint_step) == ("failed", 200)
    new = tmp_path / "new"
    done = sgpe_train("--corpus", "sample_data/sinhala.txt", "--out", str(new), *OLD_ARGS)
    assert done.returncode == 0, done.stderr
    assert read_config(new).fingerprint() == config.fingerprint()  # same corpus, same result
    done = sgpe_train("--out", str(old), "--resume")
    assert done.returncode == 0, done.stderr
    assert "resuming from checkpoint.json at step 200" in (old / "train.log").read_text("utf-8")
    assert (old / "vocab.json").read_bytes() == (new / "vocab.json").read_bytes()
    # Its config.json is still layout 1 (a resume does not rewrite it).
    assert (old / "config.json").read_bytes() == (OLD_RUN / "config.json").read_bytes()


def test_a_changed_or_missing_corpus_copy_is_named(tmp_path: Path) -> None:
    old = tmp_path / "old"
    shutil.copytree(OLD_RUN, old)
    with open(old / "corpus.txt", "ab") as f:
        f.write("අලුත් පේළියක්\n".encode())
    done = sgpe_train("--out", str(old), "--resume")
    assert (done.returncode, done.stderr) == (
        2,
        f"sgpe: error: {old / 'corpus.txt'}: the corpus copy changed since the run started; "
        "start a new run\n",
    )
    (old / "corpus.txt").unlink()
    done = sgpe_train("--out", str(old), "--resume")
    assert (done.returncode, done.stderr) == (
        2,
        f"sgpe: error: {old / 'corpus.txt'}: the run's corpus copy is missing; start a new run\n",
    )


# ============================================================================ hashed once


#: How many bytes each hash object made while a test counts them was fed.
_FED: list[list[int]] = []


class _CountingSha256:
    """hashlib.sha256, recording in :data:`_FED` how many bytes each hash object was fed."""

    def __init__(self, data: bytes = b"") -> None:
        self._hash = _REAL_SHA256(data)
        self._fed = [len(data)]
        _FED.append(self._fed)

    def update(self, data: bytes) -> None:
        self._hash.update(data)
        self._fed[0] += len(data)

    def hexdigest(self) -> str:
        return self._hash.hexdigest()


_REAL_SHA256 = hashlib.sha256


def test_a_new_run_hashes_its_corpus_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``sgpe train`` records the corpus's sha256 in config.json before it counts, and the
    count reads the file without hashing it again: one pass of the hash over the corpus's
    bytes (two before), and the one hash is the run's, the word counts' and the
    vocabulary's."""
    from sgpe.cli import main

    corpus = REPO_ROOT / "sample_data" / "sinhala.txt"
    size = corpus.stat().st_size
    _FED.clear()
    monkeypatch.setattr(hashlib, "sha256", _CountingSha256)
    out = tmp_path / "run"
    assert main(["train", "--corpus", str(corpus), "--out", str(out), "--vocab-size", "1500"]) == 0
    monkeypatch.undo()
    assert [fed[0] for fed in _FED].count(size) == 1
    digest = sha(corpus)
    assert read_config(out).corpus_sha256 == digest
    vocab = json.loads((out / "vocab.json").read_text(encoding="utf-8"))
    assert vocab["training"]["sha256"] == digest
    from sgpe.runs import read_word_counts

    counts, info = read_word_counts(out, read_config(out).fingerprint())
    assert info.sha256 == digest and sum(counts.values()) > 0


def test_a_file_that_changed_since_it_was_hashed_is_named(tmp_path: Path) -> None:
    """The count trusts a recorded hash only for a file of the recorded size."""
    from sgpe.corpus.readers import CorpusError, CorpusStream, KnownFile

    path = tmp_path / "c.txt"
    path.write_text("අම්මා ගෙදර\n", encoding="utf-8")
    size = path.stat().st_size
    ok = CorpusStream(path, known={path.absolute(): KnownFile(size, "ab" * 32)})
    assert sum(1 for _ in ok.jobs()) == 1
    assert ok.finish(10, True).sha256 == "ab" * 32
    stale = CorpusStream(path, known={path.absolute(): KnownFile(size - 1, "ab" * 32)})
    with pytest.raises(CorpusError, match=r"c\.txt: changed while the run started"):
        list(stale.jobs())

"""The native training merge loops against the Python engine: exact equality.

Two loops: the byte-level BPE baseline's (``_learn_merges`` of sgpe/baselines/bytebpe.py)
and the paper mode's (``_PaperLoop`` of sgpe/gpe.py). Each is trained twice on the same
input, once as ``sgpe._engine`` hands it out and once under ``SGPE_ENGINE=python``, and
everything a caller sees must be equal: the saved vocabulary file byte for byte, the
merge counts, every progress event and checkpoint, the errors. Inputs: the first lines of
the real corpora (si_train, hi_train, several ``multi/`` languages) at small sizes,
``min_freq``/``prune_freq`` variations, resume from half-way checkpoints, and hypothesis
corpora (any code point, whitespace, empty texts, long pieces). The whole run
(``python -m sgpe train``, run files included) is compared in subprocesses.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import pytest
from conftest import engine_set_to, require_native_core
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from sgpe import _engine as engine
from sgpe.baselines.bytebpe import ByteBPETokenizer
from sgpe.bpe import ResumeMismatch
from sgpe.corpus.readers import CorpusError
from sgpe.gpe import GPETrainer, ProgressEvent
from sgpe.settings import TrainSettings

ROOT = Path(__file__).resolve().parents[1]
T = TypeVar("T")

require_native_core()


@contextmanager
def python_engine() -> Iterator[None]:
    """Run the block under ``SGPE_ENGINE=python`` (the seam is read again after)."""
    with engine_set_to("python"):
        assert engine.native_module() is None
        yield
    assert engine.native_module() is not None


def both(run: Callable[[], T]) -> tuple[T, T]:
    """``run()`` with the native engine, then with the Python one."""
    native = run()
    with python_engine():
        python = run()
    return native, python


def outcome(run: Callable[[], T]) -> tuple[str, Any]:
    """The result, or the exception's type and message."""
    try:
        return "ok", run()
    except (ValueError, TypeError) as err:
        return type(err).__name__, str(err)


def lines_of(shared_corpora: Path, name: str, n: int) -> list[str]:
    with open(shared_corpora / name, encoding="utf-8") as f:
        return [line for _, line in zip(range(n), f)]


# ---------------------------------------------------------------------------- byte-level BPE


def train_bytebpe(
    texts: list[str], vocab_size: int, tmp: Path, **kw: Any
) -> tuple[bytes, list[tuple[Any, ...]]]:
    """The saved file and every merge event (ids and display strings, with counts)."""
    events: list[tuple[Any, ...]] = []
    tok = ByteBPETokenizer.train(
        texts,
        vocab_size,
        progress=lambda step, pair, count, _t: events.append((step, pair, count)),
        on_merge=lambda *args: events.append(args),
        **kw,
    )
    path = tmp / f"bytebpe-{engine.engine()}.json"
    tok.save(path)
    return path.read_bytes(), events


@pytest.mark.parametrize(
    "name,lines,vocab_size,min_freq,pattern",
    [
        ("si_train.txt", 1500, 1200, None, "o200k"),
        ("si_train.txt", 800, 3000, 1, "cl100k"),  # stops when no pair is left
        ("hi_train.txt", 1500, 1000, 3, "o200k"),
        ("multi/ta.txt", 600, 700, None, "gpt2"),
        ("multi/km.txt", 600, 800, 2, "o200k"),
        ("multi/my.txt", 400, 600, 1, "o200k"),
    ],
)
def test_bytebpe_real_corpora_are_identical(
    shared_corpora: Path,
    tmp_path: Path,
    name: str,
    lines: int,
    vocab_size: int,
    min_freq: int | None,
    pattern: str,
) -> None:
    texts = lines_of(shared_corpora, name, lines)
    native, python = both(
        lambda: train_bytebpe(texts, vocab_size, tmp_path, pattern=pattern, min_freq=min_freq)
    )
    assert native[0] == python[0]
    assert native[1] == python[1]
    assert len(native[1]) > 200


def test_bytebpe_resume_is_identical(shared_corpora: Path, tmp_path: Path) -> None:
    texts = lines_of(shared_corpora, "si_train.txt", 600)
    whole = ByteBPETokenizer.train(texts, 900, pattern="o200k")
    half = list(whole.merges[:300])

    def resumed() -> tuple[bytes, list[tuple[Any, ...]]]:
        return train_bytebpe(texts, 900, tmp_path, pattern="o200k", resume_merges=half)

    native, python = both(resumed)
    assert native == python
    assert native[0] == train_bytebpe(texts, 900, tmp_path, pattern="o200k")[0]
    # A checkpoint of another corpus, and one longer than the merges wanted.
    bad = [*half[:10], (200, 100), *half[11:20]]
    for resume, size in ((bad, 900), (half, 400)):
        got = both(
            lambda r=resume, s=size: outcome(  # type: ignore[misc]
                lambda: ByteBPETokenizer.train(texts, s, pattern="o200k", resume_merges=r).merges
            )
        )
        assert got[0] == got[1]
        assert got[0][0] == "ResumeMismatch" or got[0][0] == "ValueError"
    with pytest.raises(
        ResumeMismatch, match=r"merge 11 \(200, 100\) to resume from occurs 0 times"
    ):
        ByteBPETokenizer.train(texts, 900, pattern="o200k", resume_merges=bad)


_TEXT = st.text(
    st.one_of(
        st.characters(),  # any code point, lone surrogates included
        st.sampled_from(" \t\n\r\x0b\x0c\x85\u2028\u3000"),
        st.sampled_from("අආකගඩ්‍රාිෙංසහ"),
        st.sampled_from("कखगा्िींऽ"),
        st.sampled_from("ab1 ,."),
    ),
    max_size=60,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    texts=st.lists(_TEXT | st.builds(lambda c, n: c * n, _TEXT, st.integers(0, 40)), max_size=8),
    extra=st.integers(1, 120),
    min_freq=st.integers(1, 3),
)
@example(texts=[], extra=10, min_freq=1)
@example(texts=["", "\ud800"], extra=10, min_freq=1)
@example(texts=["ab" * 2000, "ශ්‍රී " * 300], extra=100, min_freq=1)
def test_bytebpe_generated_corpora_are_identical(
    texts: list[str], extra: int, min_freq: int
) -> None:
    def run() -> tuple[str, Any]:
        return outcome(
            lambda: (lambda t: (t.to_dict(), t.merge_counts))(
                ByteBPETokenizer.train(texts, 257 + extra, pattern="o200k", min_freq=min_freq)
            )
        )

    try:
        native = run()
    except UnicodeEncodeError as err:
        with python_engine(), pytest.raises(UnicodeEncodeError) as python_err:
            run()
        assert str(err) == str(python_err.value)
        return
    with python_engine():
        python = run()
    assert native == python


# ---------------------------------------------------------------------------- paper mode


def fit_paper(
    trainer: GPETrainer, counts: Counter[str], tmp: Path, **kw: Any
) -> tuple[bytes, list[ProgressEvent], list[tuple[int, list[tuple[str, str]]]]]:
    """The saved vocabulary, the progress events (without times) and the checkpoints."""
    events: list[ProgressEvent] = []
    checkpoints: list[tuple[int, list[tuple[str, str]]]] = []
    tok = trainer.fit(
        counts,
        progress=lambda e: events.append(e.__class__(e.step, e.target, e.pair, e.count, 0.0)),
        checkpoint_every=97,
        on_checkpoint=lambda step, merges: checkpoints.append((step, list(merges))),
        **kw,
    )
    path = tmp / f"paper-{engine.engine()}.json"
    tok.save(path)
    return path.read_bytes(), events, checkpoints


@pytest.mark.parametrize(
    "name,lines,settings_",
    [
        ("si_train.txt", 1500, {"vocab_size": 2500}),
        ("si_train.txt", 1000, {"vocab_size": 4000, "min_freq": 1, "prune_freq": 1}),
        ("hi_train.txt", 1500, {"vocab_size": 3000, "oov_policy": "unk"}),
        ("hi_train.txt", 800, {"vocab_size": 2500, "pieces": "script", "leading_space": False}),
        ("multi/ta.txt", 800, {"vocab_size": 2500, "min_freq": 3}),
        ("multi/km.txt", 600, {"vocab_size": 2500, "prune_freq": 2}),
        ("multi/bn.txt", 600, {"vocab_size": 2000}),
    ],
)
def test_paper_real_corpora_are_identical(
    shared_corpora: Path, tmp_path: Path, name: str, lines: int, settings_: dict[str, Any]
) -> None:
    trainer = GPETrainer(TrainSettings(mode="paper", **settings_))
    counts = trainer.count(lines_of(shared_corpora, name, lines))
    native, python = both(lambda: fit_paper(trainer, counts, tmp_path))
    assert native[0] == python[0]
    assert native[1] == python[1]
    assert native[2] == python[2]
    assert len(native[1]) > 100


def test_paper_resume_is_identical(shared_corpora: Path, tmp_path: Path) -> None:
    trainer = GPETrainer(TrainSettings(mode="paper", vocab_size=2500))
    counts = trainer.count(lines_of(shared_corpora, "si_train.txt", 1500))
    whole, events, _ = fit_paper(trainer, counts, tmp_path)
    half = [e.pair for e in events[: len(events) // 2]]
    native, python = both(lambda: fit_paper(trainer, counts, tmp_path, resume_merges=half))
    assert native == python
    assert native[0] == whole
    assert [e.step for e in native[1]] == list(range(len(half) + 1, len(events) + 1))
    # Merges of another corpus: the same error from both engines.
    for bad in ([*half[:5], ("නැති_පද", "x")], [*half[:5], (half[0][1], half[0][0])]):
        got = both(lambda b=bad: outcome(lambda: trainer.fit(counts, resume_merges=b).merges))  # type: ignore[misc]
        assert got[0] == got[1]
        assert got[0][0] == "ResumeMismatch"
        with pytest.raises(ResumeMismatch, match="checkpoint merge 6"):
            trainer.fit(counts, resume_merges=bad)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    texts=st.lists(_TEXT | st.builds(lambda c, n: c * n, _TEXT, st.integers(0, 30)), max_size=8),
    min_freq=st.integers(1, 3),
    prune_freq=st.integers(0, 2),
    oov=st.sampled_from(["fallback", "unk"]),
)
@example(texts=[], min_freq=1, prune_freq=0, oov="unk")
@example(texts=["\ud800 ශ්‍රී \ud800", "\ud800\ud800"], min_freq=1, prune_freq=0, oov="unk")
@example(texts=["ශ්‍රී ලංකා " * 50, "කා කා කා"], min_freq=1, prune_freq=1, oov="fallback")
def test_paper_generated_corpora_are_identical(
    texts: list[str], min_freq: int, prune_freq: int, oov: str
) -> None:
    trainer = GPETrainer(
        TrainSettings(
            mode="paper", vocab_size=1200, min_freq=min_freq, prune_freq=prune_freq, oov_policy=oov
        )
    )
    # The corpus's piece counts, and the texts themselves as pieces (whitespace, newlines
    # and long runs inside one piece).
    variants: list[Counter[str]] = [Counter(t for t in texts if t)]
    # A lone surrogate or an empty corpus: the counting refuses it (in both engines).
    with contextlib.suppress(UnicodeEncodeError, CorpusError):
        variants.append(trainer.count(texts))
    for counts in variants:

        def run(counts: Counter[str] = counts) -> tuple[str, Any]:
            try:
                return outcome(lambda: trainer.fit(counts).to_dict())
            except UnicodeEncodeError as err:  # a lone surrogate in a piece
                return "UnicodeEncodeError", str(err)

        native, python = both(run)
        assert native == python


# ---------------------------------------------------------------------------- whole runs


@pytest.mark.parametrize("model", ["bytebpe", "paper"])
def test_whole_run_files_are_identical(shared_corpora: Path, tmp_path: Path, model: str) -> None:
    """``python -m sgpe train`` under each engine: the same run files (the checkpoint but
    for its time, the merges table, the vocabulary)."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("".join(lines_of(shared_corpora, "si_train.txt", 1200)), encoding="utf-8")
    args = ["--model", "bytebpe", "--vocab-size", "900"]
    if model == "paper":
        args = ["--mode", "paper", "--vocab-size", "2500"]
    command = [sys.executable, "-m", "sgpe", "train", "--corpus", str(corpus)]
    files = {}
    for name in ("native", "python"):
        out = tmp_path / name
        done = subprocess.run(
            [*command, "--out", str(out), *args, "--checkpoint-every", "150"],
            env={**os.environ, engine.ENV_VAR: name},
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        assert done.returncode == 0, done.stderr
        files[name] = {
            p.name: p.read_bytes()
            for p in sorted(out.iterdir())
            if p.name == "vocab.json" or p.name.startswith("merges.")
        }
        checkpoint = json.loads((out / "checkpoint.json").read_text(encoding="utf-8"))
        del checkpoint["written"]  # when it was written
        files[name]["checkpoint.json"] = checkpoint
    assert set(files["native"]) >= {"vocab.json", "checkpoint.json"}
    assert files["native"] == files["python"]


# ---------------------------------------------------------------------------- the seam


def test_batches_of_a_few_merges_change_nothing(
    shared_corpora: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The loops report after every batch: batches of 7 merges give what one batch gives."""
    texts = lines_of(shared_corpora, "si_train.txt", 500)
    trainer = GPETrainer(TrainSettings(mode="paper", vocab_size=2200))
    counts = trainer.count(texts)
    whole = train_bytebpe(texts, 700, tmp_path), fit_paper(trainer, counts, tmp_path)
    assert len(whole[0][1]) > 100 and len(whole[1][1]) > 100  # merges: many batches of 7
    monkeypatch.setattr(engine, "BATCH_MERGES", 7)  # the one batch driver's (sgpe/_engine.py)
    assert (train_bytebpe(texts, 700, tmp_path), fit_paper(trainer, counts, tmp_path)) == whole
    with python_engine():
        assert (train_bytebpe(texts, 700, tmp_path), fit_paper(trainer, counts, tmp_path)) == whole


def test_the_seam_hands_out_trainers_or_none() -> None:
    native = engine.native_bytebpe_trainer({"ab": 2, " ab": 1, "": 5})
    assert native is not None and native.unique_words == 2
    # The byte baseline's merge i makes id 256 + i: (left, right, count, merged id).
    assert native.learn(266, 1, 10) == ([(97, 98, 3, 256), (32, 256, 1, 257)], True, None)
    paper = engine.native_paper_trainer(["a", "b"], ["\x00\x01\x00\x01"], [2])
    assert paper is not None and paper.learn(10, 1, 100)[0] == [(0, 1, 4, 2), (2, 2, 2, 3)]
    # Rust strings cannot hold a lone surrogate: that symbol table trains in Python.
    assert engine.native_paper_trainer(["a", "\ud800"], ["\x00\x01"], [1]) is None
    with pytest.raises(UnicodeEncodeError, match="surrogates not allowed"):
        engine.native_bytebpe_trainer({"\ud800": 1})
    with python_engine():
        assert engine.native_bytebpe_trainer({"ab": 1}) is None
        assert engine.native_paper_trainer(["a"], ["\x00"], [1]) is None

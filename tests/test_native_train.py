"""The native merge loop (native/src/hierarchical.rs) against the Python engine's
``HierarchicalEngine``: training gives the same files, byte for byte.

Each test trains the same corpus with ``SGPE_ENGINE=python`` and with the native engine
and compares everything a run leaves: the tokenizer file (vocab, merges, merge counts),
the merge kinds, the Hugging Face export, the progress events and the checkpoints. The
corpora are the real ones (the shared corpora: Sinhala, Hindi, several ``multi/`` scripts,
Khmer with its spaces taken out, so that the Python engine takes its array word level),
at small vocabulary sizes, and hypothesis-generated text.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from conftest import engine_set_to, require_native_core
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import sgpe
from sgpe import _engine as engine
from sgpe.bpe import ResumeMismatch
from sgpe.gpe import GPETrainer, ProgressBatch, ProgressEvent
from sgpe.hierarchical import (
    HierarchicalEngine,
    NativeHierarchicalEngine,
    build_state,
    corpus_units,
    merge_engine,
)
from sgpe.interop.hf import to_hf_str
from sgpe.interop.hf_export import deep_lookahead_scripts
from sgpe.runs import read_merges
from sgpe.settings import CountOptions, TrainSettings
from sgpe.syllables import get_syllabifier

require_native_core()

ENGINES = ("python", "native")


@pytest.fixture
def use_engine(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], None]]:
    """Switch the engine for the rest of the test (and back to the default after it)."""

    def use(name: str) -> None:
        monkeypatch.setenv("SGPE_ENGINE", name)
        engine.reset()
        assert engine.engine() == name

    yield use
    monkeypatch.delenv("SGPE_ENGINE", raising=False)
    engine.reset()


def _lines(path: Path, n: int, *, spaces: bool = True) -> list[str]:
    with path.open(encoding="utf-8") as f:
        lines = [line for _, line in zip(range(n), f)]
    return lines if spaces else [line.replace(" ", "") for line in lines]


def _files(tok: sgpe.Tokenizer, tmp: Path) -> tuple[bytes, list[str], str]:
    """What a training run leaves: the tokenizer file, the merge kinds, the HF export."""
    path = tmp / "vocab.json"
    tok.save(path)
    assert tok._hier is not None
    # The export refuses a Thai vocabulary (its grammar looks further ahead than the
    # export's pre-tokenizer: docs/scripts.md, Thai).
    hf = "" if deep_lookahead_scripts(tok) else to_hf_str(tok)
    return path.read_bytes(), list(tok._hier.kinds), hf


def _same_both_ways(
    use_engine: Callable[[str], None],
    tmp_path: Path,
    corpus: list[str],
    **options: Any,
) -> sgpe.Tokenizer:
    """Train with both engines, assert identical results; the native tokenizer."""
    made = {}
    for name in ENGINES:
        use_engine(name)
        tok = sgpe.train(corpus, **options)
        made[name] = (tok, _files(tok, tmp_path))
    python, native = made["python"], made["native"]
    assert native[1][0] == python[1][0], "vocab.json differs"
    assert native[1][1] == python[1][1], "merge kinds differ"
    assert native[1][2] == python[1][2], "tokenizer JSON differs"
    assert native[0].merge_counts == python[0].merge_counts
    return native[0]


REAL = [
    ("si_train.txt", 3000, 3000, True),
    ("hi_train.txt", 2000, 3000, True),
    ("mixed_dev.txt", 2000, 2000, True),
    ("multi/km.txt", 1500, 2000, True),
    ("multi/my.txt", 1500, 2000, True),
    ("multi/ta.txt", 1500, 2000, True),
    ("multi/bn.txt", 1500, 2000, True),
    ("multi/km.txt", 1000, 2000, False),  # no spaces: long pieces that do not repeat
    # Thai: every syllable seen becomes a token (sgpe/hierarchical/whole.py), after a
    # prefix of the loop's merges.
    ("multi/th.txt", 1500, 4000, True),
]


@pytest.mark.parametrize(("name", "lines", "vocab_size", "spaces"), REAL)
def test_real_corpora_train_identically(
    use_engine: Callable[[str], None],
    tmp_path: Path,
    shared_corpora: Path,
    name: str,
    lines: int,
    vocab_size: int,
    spaces: bool,
) -> None:
    corpus = _lines(shared_corpora / name, lines, spaces=spaces)
    tok = _same_both_ways(use_engine, tmp_path, corpus, vocab_size=vocab_size)
    assert tok.vocab_size == vocab_size
    assert "join" in tok._hier.kinds and "part" in tok._hier.kinds  # type: ignore[union-attr]


def test_a_thai_vocabulary_too_small_for_its_syllables_trains_identically(
    use_engine: Callable[[str], None], tmp_path: Path, shared_corpora: Path
) -> None:
    """1,000 tokens hold only the most frequent Thai syllables of 1,500 lines: the
    trainer keeps none of the loop's merges (sgpe/hierarchical/whole.py), alike in both
    engines."""
    corpus = _lines(shared_corpora / "multi/th.txt", 1500)
    tok = _same_both_ways(use_engine, tmp_path, corpus, vocab_size=1000)
    assert set(tok._hier.kinds) == {"part"}  # type: ignore[union-attr]
    assert 990 <= tok.vocab_size <= 1000


@pytest.mark.parametrize(
    ("corpus", "spaces", "options"),
    [
        ("si_dev.txt", False, {"vocab_size": 3000}),
        ("hi_dev.txt", False, {"vocab_size": 2500, "leading_space": False, "pieces": "script"}),
        ("hi_dev.txt", False, {"vocab_size": 2500, "oov_policy": "unk", "min_freq": 1}),
        ("multi/km.txt", True, {"vocab_size": 2500, "max_piece_units": 16}),
    ],
)
def test_overlapping_runs_train_identically(
    use_engine: Callable[[str], None],
    tmp_path: Path,
    shared_corpora: Path,
    corpus: str,
    spaces: bool,
    options: dict[str, Any],
) -> None:
    """Runs of one syllable and of one punctuation mark make merges of a symbol with itself
    whose occurrences overlap (``හහහහහ``: which pairs a merge consumes depends on where it
    starts); both engines learn the same vocabulary, with text without spaces and pieces
    cut at ``max_piece_units``."""
    docs = _lines(shared_corpora / corpus, 1200, spaces=spaces)
    docs += ["හහහහහ ....... ලලල", "කකකක......කක", "ාාාාා"] * 3
    tok = _same_both_ways(use_engine, tmp_path, docs, workers=1, **options)
    assert len(tok.merges) > 1000


@pytest.mark.parametrize(
    "options",
    [
        {"vocab_size": 4000, "superwords_from": 3600},
        {"vocab_size": 6000, "min_freq": 60},  # stops early: no pair is counted 60 times
        {"vocab_size": 3000, "prune_freq": 5},
        {"vocab_size": 3000, "oov_policy": "unk", "prune_freq": 3},
        {"vocab_size": 2500, "leading_space": False},
        {"vocab_size": 2500, "script": "sinhala"},
    ],
)
def test_settings_train_identically(
    use_engine: Callable[[str], None],
    tmp_path: Path,
    shared_corpora: Path,
    options: dict[str, Any],
) -> None:
    corpus = _lines(shared_corpora / "si_train.txt", 4000)
    tok = _same_both_ways(use_engine, tmp_path, corpus, **options)
    if "superwords_from" in options:
        assert any(" " in t.strip() for t in tok.vocab), "no superword was learned"
    if "min_freq" in options:
        assert tok.vocab_size < options["vocab_size"]
        assert min(tok.merge_counts) >= options["min_freq"]


def test_the_native_engine_is_the_one_that_trains(
    use_engine: Callable[[str], None], shared_corpora: Path
) -> None:
    """merge_engine hands out the native loop under the native engine, the Python one
    under SGPE_ENGINE=python (the only switch: sgpe/_engine.py)."""
    trainer = GPETrainer(TrainSettings(vocab_size=2000), CountOptions())
    counts = trainer.count(_lines(shared_corpora / "si_dev.txt", 200))
    syll = get_syllabifier("auto", True)

    def made() -> object:
        units = corpus_units(counts, trainer.splitter.match_units)
        base = trainer.base_alphabet(counts, units.char_counts())
        state = build_state(units, base, "auto", True)
        return merge_engine(state, syll, "auto", True)

    use_engine("native")
    assert isinstance(made(), NativeHierarchicalEngine)
    use_engine("python")
    assert isinstance(made(), HierarchicalEngine)


def _events_and_checkpoints(
    corpus: list[str], resume: list[tuple[str, str]] | None = None, every: int = 250
) -> tuple[sgpe.Tokenizer, list[tuple[int, int, tuple[str, str], int]], list[Any]]:
    events: list[ProgressEvent] = []
    batches: list[ProgressBatch] = []
    saved: list[tuple[int, list[tuple[str, str]]]] = []
    trainer = GPETrainer(TrainSettings(vocab_size=3000), CountOptions())
    tok = trainer.fit(
        trainer.count(corpus),
        progress=events.append,
        checkpoint_every=every,
        on_checkpoint=lambda step, merges: saved.append((step, merges)),
        resume_merges=resume or (),
        progress_batch=batches.append,
    )
    assert all(b.elapsed >= a.elapsed >= 0 for a, b in pairwise(events))
    # The batches hold the same merges, in order, and each checkpoint ends a batch.
    assert [
        (b.first_step + i, p, c) for b in batches for i, (p, c) in enumerate(zip(b.pairs, b.counts))
    ] == [(e.step, e.pair, e.count) for e in events]
    ends = {b.first_step + len(b.pairs) - 1 for b in batches}
    assert {s for s, _ in saved} <= ends
    return tok, [(e.step, e.target, e.pair, e.count) for e in events], saved


def test_progress_checkpoints_and_resume_are_identical(
    use_engine: Callable[[str], None], shared_corpora: Path
) -> None:
    """The progress callback sees every merge in order, the checkpoints come at the same
    steps with the same merges, and resuming from a checkpoint gives the uninterrupted
    run's result, in both engines."""
    corpus = _lines(shared_corpora / "si_train.txt", 3000)
    runs = {}
    for name in ENGINES:
        use_engine(name)
        tok, events, saved = _events_and_checkpoints(corpus)
        assert [s for s, _ in saved] == list(range(250, len(tok.merges) + 1, 250))
        assert [e[0] for e in events] == list(range(1, len(tok.merges) + 1))
        step, merges = saved[3]
        again, later, _ = _events_and_checkpoints(corpus, merges)
        assert again.to_dict() == tok.to_dict()
        # Progress goes on from the checkpoint's step, towards the same target (the merges
        # in all, replayed ones included: sgpe/_driver.py).
        assert later == events[step:]
        runs[name] = (tok.to_dict(), events, saved)
    assert runs["native"] == runs["python"]


def test_resume_from_another_corpus_fails_alike(
    use_engine: Callable[[str], None], shared_corpora: Path
) -> None:
    hindi = _lines(shared_corpora / "hi_train.txt", 500)
    sinhala = _lines(shared_corpora / "si_train.txt", 500)
    errors = []
    for name in ENGINES:
        use_engine(name)
        merges = [tuple(m) for m in sgpe.train(hindi, vocab_size=1500).merges]
        trainer = GPETrainer(TrainSettings(vocab_size=1500), CountOptions())
        with pytest.raises(ResumeMismatch) as err:
            trainer.fit(trainer.count(sinhala), resume_merges=merges)  # type: ignore[arg-type]
        errors.append(str(err.value))
    assert errors[0] == errors[1]
    assert "checkpoint merge 1 (" in errors[0] and "has count 0 in this corpus" in errors[0]


# Syllables, orphans (a vowel sign or virama alone), joiners, Latin, digits and spaces:
# what makes part and join merges, barriers and units that never join.
_ALPHABET = "කගතනමරලසඅආාිීුෙෝංකක්ෂශ්\u200dරීनमस्तेक्षहिंदीabc1 "


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.text(alphabet=_ALPHABET, min_size=1, max_size=40), min_size=1, max_size=60),
    st.integers(min_value=0, max_value=120),
    st.sampled_from([None, 0, 20]),
)
def test_generated_corpora_train_identically(
    corpus: list[str], extra: int, superwords: int | None
) -> None:
    # superwords_from must lie below vocab_size (TrainSettings says so for both engines).
    assume(superwords is None or superwords < extra)
    made = []
    base = sgpe.train(corpus, vocab_size=100_000, min_freq=1_000_000).vocab_size
    options: dict[str, Any] = {"vocab_size": base + extra, "min_freq": 1}
    if superwords is not None:
        options["superwords_from"] = base + superwords
    # (hypothesis runs many examples in one test call: the variable is set and restored
    # here rather than by the function-scoped monkeypatch fixture)
    for name in ENGINES:
        with engine_set_to(name):
            tok = sgpe.train(corpus, **options)
            made.append((tok.to_dict(), tok._hier.kinds if tok._hier else None))
    assert made[0] == made[1]


def test_a_training_run_leaves_the_same_files(shared_corpora: Path, tmp_path: Path) -> None:
    """``python -m sgpe train`` (the run worker, which takes the merges in batches) with
    both engines: the same vocabulary, merge table and last two checkpoints."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("".join(_lines(shared_corpora / "si_train.txt", 3000)), encoding="utf-8")
    root = Path(__file__).resolve().parents[1]
    runs = {}
    for name in ENGINES:
        out = tmp_path / name
        env = {**os.environ, "SGPE_ENGINE": name}
        args = ["--vocab-size", "3000", "--checkpoint-every", "250", "--corpus", str(corpus)]
        done = subprocess.run(
            [sys.executable, "-m", "sgpe", "train", "--out", str(out), *args],
            cwd=root,
            env=env,
            capture_output=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr.decode()
        runs[name] = out
    python, native = runs["python"], runs["native"]
    assert (native / "vocab.json").read_bytes() == (python / "vocab.json").read_bytes()
    for file in ("checkpoint.json", "checkpoint.prev.json"):
        ours, theirs = (json.loads((run / file).read_bytes()) for run in (native, python))
        assert ours.pop("written") and theirs.pop("written")  # when: the one difference
        assert ours == theirs, file
    assert read_merges(native) == read_merges(python)
    steps = [
        json.loads((native / f).read_bytes())["step"]
        for f in ("checkpoint.prev.json", "checkpoint.json")
    ]
    assert steps == [2500, len(read_merges(native)["step"])]


def test_paper_mode_reports_batches_too(shared_corpora: Path) -> None:
    """The paper mode's loop (Python in both engines) gathers its merges into batches for
    ``progress_batch`` as well: the same merges as ``progress``, each checkpoint a batch end."""
    events: list[ProgressEvent] = []
    batches: list[ProgressBatch] = []
    saved: list[int] = []
    trainer = GPETrainer(TrainSettings(vocab_size=2500, mode="paper"), CountOptions())
    trainer.fit(
        trainer.count(_lines(shared_corpora / "si_train.txt", 1500)),
        progress=events.append,
        progress_batch=batches.append,
        checkpoint_every=100,
        on_checkpoint=lambda step, merges: saved.append(step),
    )
    flat = [(b.first_step + i, p) for b in batches for i, p in enumerate(b.pairs)]
    assert flat == [(e.step, e.pair) for e in events] and len(events) > 100
    assert set(saved) <= {b.first_step + len(b.pairs) - 1 for b in batches}

"""Layer 2: the incremental GPE trainer against a hand-worked example and the slow reference."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from conftest import assert_resumes_byte_identically
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import sgpe
from sgpe._reference import reference_pieces, reference_syllabify, reference_train
from sgpe.bpe import ResumeMismatch
from sgpe.gpe import FALLBACK_ASCII, GPETrainer, TrainSettings
from sgpe.protocol import byte_token
from sgpe.schema import BUILTIN_SCRIPTS, load_schema


def test_golden_example():
    """Worked by hand. Corpus "ලංකා ලංකා ලංකාව" + the newline that ends the document.

    Pieces (whitespace mode, leading space): "ලංකා", " ලංකා", " ලංකාව", "\\n".
    Units: [ලං, කා], [ ලං, කා], [ ලං, කා, ව], [\\n]; frequencies කා 3, " ලං" 2, the rest 1.
    Symbol ids by (-frequency, string): කා 0, " ලං" 1, "\\n" 2, ලං 3, ව 4.
    Step 1: pairs (3,0):1, (1,0):2, (0,4):1 -> merge (1,0) " ලංකා" (id 5).
    Step 2: (3,0):1 and (5,4):1 tie -> the smaller pair (3,0) "ලංකා" (id 6).
    Step 3: (5,4) " ලංකාව" (id 7). Now 8 symbols + 5 specials = vocab_size 13.
    Final ids: specials, then symbols used in the segmented corpus by frequency (all 1,
    ties by symbol id: "\\n", " ලංකා", "ලංකා", " ලංකාව"), then unused ones by symbol id.
    """
    tok = sgpe.train(
        ["ලංකා ලංකා ලංකාව"], vocab_size=13, mode="paper", prune_freq=1, min_freq=1, oov_policy="unk",
        prepend_space=False,
    )  # fmt: skip
    assert tok.merges == [(" ලං", "කා"), ("ලං", "කා"), (" ලංකා", "ව")]
    assert list(tok.vocab) == [
        "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",
        "\n", " ලංකා", "ලංකා", " ලංකාව", "කා", " ලං", "ලං", "ව",
    ]  # fmt: skip
    assert tok.tokenize("ලංකාව ලංකා") == ["ලංකා", "ව", " ලංකා"]
    assert tok.encode("ලංකාව ලංකා") == [7, 12, 6]
    # min_freq=2 (the default) stops after step 1: the best remaining count is 1.
    assert sgpe.train(
        ["ලංකා ලංකා ලංකාව"],
        vocab_size=13,
        mode="paper",
        prune_freq=1,
        oov_policy="unk",
        prepend_space=False,
    ).merges == [(" ලං", "කා")]
    # With prepend_space (the default) the document is " ලංකා ලංකා ලංකාව": pieces " ලංකා"
    # x2, " ලංකාව", "\n"; units " ලං" 3, කා 3, ව 1, "\n" 1 (+ the bare "ලං", count 0).
    # Ids: " ලං" 0, කා 1 (equal counts: " " sorts first), "\n" 2, ව 3, ලං 4. Merges:
    # (0, 1) count 3 -> " ලංකා"; then (" ලංකා", ව) count 1.
    tok = sgpe.train(
        ["ලංකා ලංකා ලංකාව"],
        vocab_size=10_000,
        mode="paper",
        prune_freq=1,
        min_freq=1,
        oov_policy="unk",
    )
    assert tok.merges == [(" ලං", "කා"), (" ලංකා", "ව")]
    assert tok.tokenize("ලංකාව ලංකා") == [" ලංකාව", " ලංකා"]


def _fallback_symbols(docs: list[str]) -> list[str]:
    """Code points of Sinhala and Devanagari (always, as before the other scripts existed)
    and of every other script the documents use (joiners alone do not count)."""
    seen = set("".join(docs)) - {"\u200c", "\u200d"}
    cps: set[str] = set()
    for name in BUILTIN_SCRIPTS:
        if name in ("sinhala", "devanagari") or load_schema(name).code_points & seen:
            cps |= load_schema(name).code_points
    return sorted(cps | FALLBACK_ASCII) + [byte_token(b) for b in range(256)]


WORDS = ["ක", "කා", "ශ්‍රී", "ලං", "ව", "ම", "ා", "a", "b", "7", ",", " ", " ", "\n", "ක්‍ෂ"]


@settings(max_examples=150, deadline=None)
@given(
    docs=st.lists(st.lists(st.sampled_from(WORDS), max_size=30), min_size=1, max_size=12),
    vocab_extra=st.integers(0, 40),
    prune_freq=st.integers(0, 3),
    min_freq=st.integers(1, 3),
    mode=st.sampled_from(["whitespace", "script"]),
    leading_space=st.booleans(),
    policy=st.sampled_from(["unk", "fallback"]),
)
def test_fast_trainer_matches_reference(
    docs, vocab_extra, prune_freq, min_freq, mode, leading_space, policy
):
    docs = ["".join(d) for d in docs]
    assume(any(d.strip() for d in docs))
    settings_ = TrainSettings(
        vocab_size=10_000, mode="paper", prune_freq=prune_freq, min_freq=min_freq, leading_space=leading_space,
        oov_policy=policy, pieces=mode,
    )  # fmt: skip
    trainer = GPETrainer(settings_)
    counts = trainer.count(docs)
    # The pieces are cut exactly as the hand-written reference cuts them.
    word_chars = load_schema("sinhala").word_chars | load_schema("devanagari").word_chars
    expected = Counter()
    for d in docs:
        d = " " + d if d and leading_space else d  # prepend_space follows leading_space
        expected.update(reference_pieces(d + "\n", leading_space, mode, word_chars))
    assert counts == expected
    state, _ = trainer._prepare(counts)
    base = len(state.symbols) + 5
    vocab_size = max(base + vocab_extra, 6)
    fallback = _fallback_symbols(docs) if policy == "fallback" else []
    ref = reference_train(
        counts, lambda p: reference_syllabify(p, leading_space), vocab_size=vocab_size,
        prune_freq=prune_freq, min_freq=min_freq, fallback_symbols=fallback,
        word_chars=frozenset().union(*(load_schema(n).word_chars for n in BUILTIN_SCRIPTS))
        if mode == "script" else None,
    )  # fmt: skip
    fast = GPETrainer(TrainSettings(**{**settings_.to_dict(), "vocab_size": vocab_size})).fit(
        counts
    )
    assert fast.merges == ref


def test_ties_are_broken_by_smallest_pair():
    # "ab" and "cd" occur equally often; equal frequencies give ids by string: a < b < c < d.
    tok = sgpe.train(
        ["cd ab"] * 3, vocab_size=10_000, mode="paper", prune_freq=1, leading_space=False
    )
    assert tok.merges == [("a", "b"), ("c", "d")]
    # "cab": (c, a) and (a, b) tie; (a, b) is the smaller pair although (c, a) comes first.
    tok = sgpe.train(
        ["cab"] * 2, vocab_size=10_000, mode="paper", prune_freq=1, leading_space=False
    )
    assert tok.merges[0] == ("a", "b")


def test_vocab_size_too_small_is_explained():
    with pytest.raises(
        ValueError,
        match=r"vocab_size=100 is smaller than the base vocabulary.*Use vocab_size >= \d+",
    ):
        sgpe.train(["ශ්‍රී ලංකාව"], vocab_size=100)


def test_prune_makes_barriers_and_fallback_spells_them():
    docs = ["කා කා කා ශ්‍රී"]
    tok = sgpe.train(docs, vocab_size=2000, mode="paper", prune_freq=2, min_freq=1)
    assert " ශ්‍රී" not in tok.vocab and "ශ්‍රී" not in tok.vocab
    assert tok.tokenize("ශ්‍රී") == [" ", "ශ", "්", "\u200d", "ර", "ී"]  # " ශ්‍රී" pruned
    assert tok.decode(tok.encode("කා ශ්‍රී")) == "කා ශ්‍රී"
    unk = sgpe.train(docs, vocab_size=200, mode="paper", prune_freq=2, min_freq=1, oov_policy="unk")
    assert unk.tokenize("ශ්‍රී") == ["[UNK]"]


def test_same_corpus_same_bytes(tmp_path):
    docs = ["ශ්‍රී ලංකාව සුන්දර රටකි.", "ලංකාවේ ජනතාව 2024 දී", "नमस्ते दुनिया", "ශ්‍රී ලංකාව"] * 5
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    sgpe.train(docs, vocab_size=700, mode="paper", prune_freq=1).save(a)
    sgpe.train(list(reversed(docs)), vocab_size=700, mode="paper", prune_freq=1).save(
        b
    )  # corpus order does not matter
    data = json.loads(a.read_text(encoding="utf-8"))
    assert data["format"] == "sgpe-vocab" and data["vocab_size"] == len(data["vocab"])
    # Only the corpus hash differs when the order differs.
    data_b = json.loads(b.read_text(encoding="utf-8"))
    assert {k: v for k, v in data.items() if k != "training"} == {
        k: v for k, v in data_b.items() if k != "training"
    }
    c = tmp_path / "c.json"
    sgpe.train(docs, vocab_size=700, mode="paper", prune_freq=1).save(c)
    assert a.read_bytes() == c.read_bytes()


def test_resume_from_checkpoint_is_byte_identical(tmp_path, shared_corpora):
    with open(shared_corpora / "si_dev.txt", encoding="utf-8") as f:
        docs = f.read().split("\n")[:800]
    settings_ = TrainSettings(vocab_size=4000, mode="paper", prune_freq=2)
    assert_resumes_byte_identically(settings_, docs, tmp_path, every=250, tries=3)


def test_resume_with_foreign_checkpoint_is_refused():
    trainer = GPETrainer(TrainSettings(vocab_size=700, mode="paper", prune_freq=1))
    with pytest.raises(ResumeMismatch, match="another corpus"):
        trainer.fit(trainer.count(["ශ්‍රී ලංකාව"]), resume_merges=[("x", "y")])


def test_progress_callback_reports_every_merge():
    events = []
    tok = sgpe.train(
        ["ලංකා ලංකා ලංකාව ලංකාව"] * 3,
        vocab_size=800,
        mode="paper",
        prune_freq=1,
        progress=events.append,
    )
    assert [e.step for e in events] == list(range(1, len(tok.merges) + 1))
    assert events[0].pair == tok.merges[0] and events[0].count >= events[-1].count


def test_settings_are_validated():
    with pytest.raises(ValueError, match="oov_policy"):
        TrainSettings(oov_policy="drop")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown script"):
        TrainSettings(script="javanese")
    with pytest.raises(ValueError, match="pieces"):
        sgpe.train(["x"], pieces="lines")  # type: ignore[arg-type]


def test_keeps_words_seen_once(shared_corpora):
    """The original trainer drops words seen once before pruning; we keep every piece."""
    trainer = GPETrainer(TrainSettings(vocab_size=2000, mode="paper", prune_freq=1))
    counts = trainer.count(["අපූර්ව වචනයක්", "සාමාන්‍ය වචනයක්"])
    assert counts[" වචනයක්"] == 2 and counts[" අපූර්ව"] == 1  # " ": prepend_space


def test_paper_mode_keeps_boundary_tokens():
    """docs/decisions.md: with pieces="script" the original never prunes a boundary token
    (a piece with no script letter); syllables below prune_freq are still pruned."""
    docs = ["ලංකා ලංකා ශ්\u200dරී 7 x"]
    tok = sgpe.train(docs, vocab_size=10_000, mode="paper", prune_freq=2, pieces="script",
                     oov_policy="unk")  # fmt: skip
    assert {" 7", " x"} <= set(tok.vocab)  # seen once, kept
    assert " ශ්\u200dරී" not in tok.vocab  # a syllable seen once, pruned
    assert tok.tokenize("7") == [" 7"]


def test_paper_mode_unk_keeps_no_extra_bare_syllables():
    """docs/decisions.md: only the fallback policy adds the bare X of a kept " X"."""
    docs = ["ලංකා ලංකා"]
    unk = sgpe.train(docs, vocab_size=10_000, mode="paper", prune_freq=1, oov_policy="unk")
    fallback = sgpe.train(docs, vocab_size=10_000, mode="paper", prune_freq=1)
    assert "ලං" not in unk.vocab and " ලං" in unk.vocab
    assert "ලං" in fallback.vocab

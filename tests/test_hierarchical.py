"""The hierarchical training mode (sgpe/hierarchical/): legality, encoder = trace = HF
export, exact resume, determinism, and a hand-worked golden example."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest
from conftest import engine_set_to
from hypothesis import given
from hypothesis import strategies as st

import sgpe
from sgpe.bpe import ResumeMismatch
from sgpe.gpe import GPETrainer, TrainSettings
from sgpe.hierarchical import merge_kind
from sgpe.hierarchical.rules import _FIRST_PLACEHOLDER
from sgpe.schema import schemas_for
from sgpe.syllables import get_syllabifier


def test_golden_example() -> None:
    """Corpus ``ලංකා ලංකා ලංකාව`` (no dummy space, leading space on, ``[UNK]`` policy so the
    base is ASCII + the 5 Sinhala characters = 133 symbols, + 5 specials = 138).

    Pieces: ``ලංකා``, `` ලංකා``, `` ලංකාව``; units ``ලං|කා``, `` ලං|කා``, `` ලං|කා|ව``.
    Base ids: ASCII 0..127 (space = 32), then by code point ං 128, ක 129, ල 130, ව 131, ා 132.

    1. Part pairs: (ක, ා) 3 (in කා, weight 3); (ල, ං) 1 + 2 = 3; (" ", ල) 2. No join pair yet
       (only ``ව`` is a whole one-symbol unit). Tie at 3: the smaller pair of ids is
       (129, 132) < (130, 128) → **ක + ා**, which completes the unit කා; now word 3 has the
       join pair (කා, ව) 1.
    2. **ල + ං** (3): completes ලං; word 1 gets the join pair (ලං, කා) 1; the unit " ලං" is
       now [" ", ලං]: part pair (" ", ලං) 2.
    3. **" " + ලං** (2): completes " ලං": words 2 and 3 get the join pair (" ලං", කා) 1 + 1.
    4. **" ලං" + කා** (2, a join): word 3 becomes [" ලංකා", ව]: join pair (" ලංකා", ව) 1.
    5. With ``min_freq=1`` the count-1 pairs follow, smaller ids first: (ලං, කා) = (134, 133)
       before (" ලංකා", ව) = (136, 131)? No: compare the first id, 134 < 136 → **ලං + කා**.
    6. **" ලංකා" + ව**. That is 6 merges: vocab_size = 138 + 6 = 144.

    Encoding ``ලංකාව ලංකා``: the first piece's units ලං, කා, ව are single tokens after the part
    merges; join merge 5 gives ලංකා, and (ලංකා, ව) is no merge; the second piece is one token.
    """
    tok = sgpe.train(
        ["ලංකා ලංකා ලංකාව"],
        vocab_size=144,
        prune_freq=1,
        min_freq=1,
        oov_policy="unk",
        prepend_space=False,
    )
    assert tok.merges == [
        ("ක", "ා"),
        ("ල", "ං"),
        (" ", "ලං"),
        (" ලං", "කා"),
        ("ලං", "කා"),
        (" ලංකා", "ව"),
    ]
    assert tok._hier is not None
    assert tok._hier.kinds == ["part", "part", "part", "join", "join", "join"]
    assert tok.vocab_size == 144
    assert tok.tokenize("ලංකාව ලංකා") == ["ලංකා", "ව", " ලංකා"]


def _spans_ok(tok: sgpe.Tokenizer, text: str) -> tuple[int, int]:
    """(tokens, tokens that straddle a syllable edge) of ``text``: a token is legal when it
    lies inside one unit or starts and ends on unit boundaries."""
    if tok.prepend_space and text:
        text = " " + text
    syll = get_syllabifier(tok.script, tok.leading_space)
    n = bad = 0
    for piece in get_word_splitter(tok).pieces(text):
        units = syll.spans(piece)
        starts = {s.start for s in units} | {len(piece)}
        owner = {}
        for k, s in enumerate(units):
            for i in range(s.start, s.end):
                owner[i] = k
        _ids, lengths = tok._hier.encode_piece(piece)  # type: ignore[union-attr]
        pos = 0
        byte_pos = [0]
        for ch in piece:
            byte_pos.append(byte_pos[-1] + len(ch.encode("utf-8")))
        char_at = {b: i for i, b in enumerate(byte_pos)}
        for length in lengths:
            n += 1
            start_b, end_b = pos, pos + length
            pos = end_b
            if start_b not in char_at or end_b not in char_at:
                continue  # a byte token inside one character: inside one unit
            a, b = char_at[start_b], char_at[end_b]
            if b == a:
                continue
            same_unit = owner[a] == owner[b - 1]
            whole = a in starts and b in starts
            if not (same_unit or whole):
                bad += 1
        assert pos == byte_pos[-1]
    return n, bad


def get_word_splitter(tok: sgpe.Tokenizer):  # type: ignore[no-untyped-def]
    from sgpe.pieces import get_word_splitter as get

    return get(tok.script, tok.leading_space, tok.pieces)


@pytest.fixture(scope="module")
def real_tok(shared_corpora: Path) -> sgpe.Tokenizer:
    """Hierarchical 3k vocabulary on the first 4,000 Sinhala + 3,000 Hindi train lines."""
    docs: list[str] = []
    for name, n in (("si_train.txt", 4000), ("hi_train.txt", 3000)):
        with open(shared_corpora / name, encoding="utf-8") as f:
            docs += [line.rstrip("\n") for _, line in zip(range(n), f)]
    return sgpe.train(docs, vocab_size=3000)


def test_no_token_straddles_a_syllable_on_real_text(
    real_tok: sgpe.Tokenizer, shared_corpora: Path
) -> None:
    for name in ("si_dev.txt", "hi_dev.txt", "mixed_dev.txt"):
        lines = (shared_corpora / name).read_text(encoding="utf-8").split("\n")[:1500]
        tokens = bad = 0
        for line in lines:
            n, b = _spans_ok(real_tok, line)
            tokens, bad = tokens + n, bad + b
            assert real_tok.decode(real_tok.encode(line)) == line
        assert tokens > 10_000
        assert bad == 0, f"{name}: {bad} tokens straddle a syllable boundary"


def test_every_learned_token_is_a_part_or_whole_syllables(real_tok: sgpe.Tokenizer) -> None:
    syll = get_syllabifier(real_tok.script, real_tok.leading_space)
    assert real_tok._hier is not None
    kinds = real_tok._hier.kinds
    assert kinds.count("part") > 200 and kinds.count("join") > 1000
    # A loaded vocab.json has no kind column: loading works the kinds out again.
    loaded = sgpe.Tokenizer._from_dict(real_tok.to_dict())
    assert loaded._hier is not None and loaded._hier.kinds == kinds
    for (a, b), kind in zip(real_tok.merges, kinds):
        assert merge_kind(a, b, syll) == kind
        if kind == "join":
            # whole units on both sides, with a unit boundary between them
            assert len(a) in {s.start for s in syll.spans(a + b)}
        else:
            # a part of one unit: it never starts a piece's second unit at the junction
            # unless one side is not a joinable unit (an orphan mark, a virama...)
            both = syll.spans(a + b)
            assert (
                len(both) == 1
                or len(a) not in {s.start for s in both}
                or any(s.kind != "syllable" for s in both)
            )


_ALPHABET = sorted(set().union(*(s.code_points for s in schemas_for("auto"))))
_EXTRA = [" ", " ", "a", "1", ",", "\u200d", "\u200c", "\n", "\t", "😀", "ා", "ං", "्"]
_TEXT = st.lists(st.sampled_from(_ALPHABET + _EXTRA * 8), max_size=14).map("".join)


@given(st.lists(_TEXT, min_size=1, max_size=30))
def test_random_text_is_legal_lossless_and_traced(texts: list[str]) -> None:
    tok = _small_tok()
    for text in texts:
        assert tok.decode(tok.encode(text)) == text
        assert _spans_ok(tok, text)[1] == 0
        final = [t for w in tok.merge_trace(text) for t in w.final]
        assert final == tok.tokenize(text)


_SMALL: list[sgpe.Tokenizer] = []


def _small_tok() -> sgpe.Tokenizer:
    if not _SMALL:
        docs = (Path(__file__).resolve().parents[1] / "sample_data" / "sinhala.txt").read_text(
            encoding="utf-8"
        ).split("\n") + (
            Path(__file__).resolve().parents[1] / "sample_data" / "hindi.txt"
        ).read_text(encoding="utf-8").split("\n")
        _SMALL.append(sgpe.train(docs, vocab_size=1500, prune_freq=1, min_freq=1))
    return _SMALL[0]


def test_hf_export_parity_on_real_and_random_text(
    real_tok: sgpe.Tokenizer, shared_corpora: Path
) -> None:
    pytest.importorskip("tokenizers")
    from sgpe.interop.hf import check_parity, load_hf

    hf = load_hf(real_tok)
    for name in ("si_dev.txt", "hi_dev.txt", "mixed_dev.txt"):
        lines = (shared_corpora / name).read_text(encoding="utf-8").split("\n")[:2000]
        report = check_parity(real_tok, lines, hf)
        assert report.ok, report.mismatches[:2]
    rng = random.Random(7)
    texts = [
        "".join(rng.choice(_ALPHABET + _EXTRA * 8) for _ in range(rng.randint(1, 14)))
        for _ in range(20_000)
    ]
    report = check_parity(real_tok, texts, hf)
    assert report.lines == 20_000
    assert report.ok, report.mismatches[:2]
    # Same vocabulary, id for id: the file has no tokens of its own.
    assert hf.get_vocab_size() == real_tok.vocab_size
    assert hf.decode(hf.encode(lines[0]).ids) == lines[0]


def test_resume_replays_to_the_same_vocabulary(shared_corpora: Path) -> None:
    with open(shared_corpora / "si_dev.txt", encoding="utf-8") as f:
        docs = [line.rstrip("\n") for _, line in zip(range(1500), f)]
    settings = TrainSettings(vocab_size=1500)
    saved: list[list[tuple[str, str]]] = []
    full = GPETrainer(settings).fit(
        GPETrainer(settings).count(docs),
        checkpoint_every=400,
        on_checkpoint=lambda step, merges: saved.append(list(merges)),
    )
    assert len(saved) >= 2 and len(saved[0]) == 400
    for ckpt in saved:
        resumed = GPETrainer(settings).fit(GPETrainer(settings).count(docs), resume_merges=ckpt)
        assert resumed.to_dict() == full.to_dict()
    other = [d[::-1] for d in docs]
    with pytest.raises(ResumeMismatch, match="checkpoint merge"):
        GPETrainer(settings).fit(GPETrainer(settings).count(other), resume_merges=saved[0])


def test_corpus_order_does_not_matter_and_size_is_exact(shared_corpora: Path) -> None:
    with open(shared_corpora / "hi_dev.txt", encoding="utf-8") as f:
        docs = [line.rstrip("\n") for _, line in zip(range(1200), f)]
    a = sgpe.train(docs, vocab_size=1200)
    shuffled = list(docs)
    random.Random(3).shuffle(shuffled)
    b = sgpe.train(shuffled, vocab_size=1200)
    assert a.to_dict()["vocab"] == b.to_dict()["vocab"] and a.merges == b.merges
    assert a.vocab_size == 1200
    assert a.to_dict()["mode"] == "hierarchical"


def test_base_alphabet_and_errors() -> None:
    trainer = GPETrainer(TrainSettings(vocab_size=1000, prune_freq=2))
    counts = trainer.count(["ලංකා ලංකා ශ්‍රී"])
    base = trainer.base_alphabet(counts)
    # ASCII, the characters seen twice (ල ං ක ා and the dummy/leading space), no ශ (seen once)
    assert {"ල", "ං", "ක", "ා"} <= set(base) and "ශ" not in base
    assert sum(1 for b in base if b.startswith("<0x")) == 115
    with pytest.raises(ValueError, match=r"vocab_size >= \d+"):
        GPETrainer(TrainSettings(vocab_size=100)).train(["ලංකා"])
    with pytest.raises(ValueError, match="mode must be one of hierarchical, paper"):
        TrainSettings(mode="fast")  # type: ignore[arg-type]


def test_unseen_characters_fall_back_to_bytes_and_round_trip() -> None:
    tok = _small_tok()
    text = "தமிழ் ශ්‍රී 😀 ාං"
    ids = tok.encode(text)
    assert tok.decode(ids) == text
    assert "[UNK]" not in tok.tokenize(text)
    assert tok.tokenize("😀") == [" ", "<0xF0>", "<0x9F>", "<0x98>", "<0x80>"]


def test_vocab_file_round_trip_keeps_the_mode(tmp_path: Path) -> None:
    tok = _small_tok()
    tok.save(tmp_path / "v.json")
    again = sgpe.load(tmp_path / "v.json")
    assert again.mode == "hierarchical"
    text = "ශ්‍රී ලංකාව नमस्ते"
    assert again.encode(text) == tok.encode(text)


@pytest.mark.parametrize(
    "lang", ["ta", "bn", "pa", "gu", "or", "te", "kn", "ml", "mr", "ne", "my", "km"]
)
def test_every_script_trains_legal_lossless_and_exports_exactly(
    shared_corpora: Path, lang: str
) -> None:
    """Hierarchical training on the first 80% of up to 2,500 lines of each language in
    multi/: no token straddles a syllable on the rest, every line round-trips, and the HF
    export agrees."""
    pytest.importorskip("tokenizers")
    from sgpe.interop.hf import check_parity, load_hf

    with open(shared_corpora / "multi" / f"{lang}.txt", encoding="utf-8") as f:
        lines = [line.rstrip("\n") for _, line in zip(range(2500), f)]
    cut = len(lines) * 4 // 5  # or.txt has fewer lines than the others
    train, held_out = lines[:cut], lines[cut:]
    tok = sgpe.train(train, vocab_size=2000)
    tokens = straddles = 0
    for line in held_out:
        n, bad = _spans_ok(tok, line)
        tokens, straddles = tokens + n, straddles + bad
        assert tok.decode(tok.encode(line)) == line
    assert tokens > 1_000 and straddles == 0
    report = check_parity(tok, held_out, load_hf(tok))
    assert report.ok, report.mismatches[:1]


def test_fast_ids_equal_the_encoder_with_lengths_on_long_pieces(shared_corpora: Path) -> None:
    """encode() takes a faster path (no lengths, a heap for runs of more than 24 units);
    it must give the ids of encode_with_spans(), also on whitespace-free text."""
    with open(shared_corpora / "si_dev.txt", encoding="utf-8") as f:
        lines = [line.rstrip("\n") for _, line in zip(range(300), f)]
    tok = _small_tok()
    assert tok._hier is not None
    texts = lines + ["".join(line.split()) for line in lines]  # pieces of 50-500 units
    assert max(len(t) for t in texts) > 200
    for text in texts:
        fresh = sgpe.Tokenizer._from_dict(tok.to_dict())  # empty caches
        assert fresh.encode(text) == fresh.encode_with_spans(text)[0]
        for piece in fresh._pieces(text):
            assert fresh._hier.ids_of_piece(piece) == fresh._hier.encode_piece(piece)[0]


# ============================================================================ array word level


def _lines(path: Path, n: int) -> list[str]:
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for _, line in zip(range(n), f)]


def _learned(tok: sgpe.Tokenizer) -> dict:
    """The vocabulary file without the corpus identity (which fit() on counts lacks)."""
    return {k: v for k, v in tok.to_dict().items() if k != "training"}


def test_text_without_spaces_resumes_exactly(shared_corpora: Path) -> None:
    """The Python merge loop on long pieces that do not repeat (text without spaces):
    resuming from a checkpoint learns the same vocabulary, and a checkpoint of another
    corpus is refused."""
    docs = [d.replace(" ", "") for d in _lines(shared_corpora / "si_dev.txt", 800)]
    settings = TrainSettings(vocab_size=2000)
    saved: list[list[tuple[str, str]]] = []
    with engine_set_to("python"):
        full = GPETrainer(settings).fit(
            GPETrainer(settings).count(docs),
            checkpoint_every=300,
            on_checkpoint=lambda step, merges: saved.append(list(merges)),
        )
        assert _learned(GPETrainer(settings).train(docs)) == _learned(full)
        assert len(saved) >= 2
        for ckpt in (saved[0], saved[-1]):
            resumed = GPETrainer(settings).fit(GPETrainer(settings).count(docs), resume_merges=ckpt)
            assert resumed.to_dict() == full.to_dict()
        with pytest.raises(ResumeMismatch, match="checkpoint merge"):
            GPETrainer(settings).fit(
                GPETrainer(settings).count([d[::-1] for d in docs]), resume_merges=saved[0]
            )
        # A join merge of symbols the corpus does not have (a checkpoint of another corpus).
        with pytest.raises(
            ResumeMismatch, match=r"checkpoint merge 1 \('xy', 'zw', 'join'\) has count 0"
        ):
            GPETrainer(settings).fit(GPETrainer(settings).count(docs), resume_merges=[("xy", "zw")])


def test_training_cuts_long_pieces_as_counting_does(shared_corpora: Path) -> None:
    """train() leaves long pieces whole when it counts and cuts them while it syllabifies
    them (sgpe.hierarchical.corpus_units); fitting counts that count() already cut gives
    the same vocabulary, in both modes."""
    for leading_space in (False, True):  # the cut relies on matches that look nowhere else
        pattern = get_syllabifier("auto", leading_space).pattern
        assert not any(look in pattern for look in ("(?=", "(?!", "(?<", "\\b", "\\B"))
    docs = [d.replace(" ", "") for d in _lines(shared_corpora / "si_dev.txt", 600)]
    for settings in (
        TrainSettings(vocab_size=2000, max_piece_units=8),
        TrainSettings(vocab_size=6000, mode="paper", oov_policy="unk", max_piece_units=8),
    ):
        trainer = GPETrainer(settings)
        raw = trainer.count(docs, capped=False)
        assert max(len(trainer.splitter.units(p)) for p in raw) > 8
        cut = GPETrainer(settings).count(docs)
        assert max(len(trainer.splitter.units(p)) for p in cut) == 8
        assert _learned(trainer.fit(raw)) == _learned(GPETrainer(settings).fit(cut))
        assert GPETrainer(settings).train(docs).to_dict() == trainer.fit(raw).to_dict()


def test_unit_weights_count_every_occurrence(shared_corpora: Path) -> None:
    from sgpe.hierarchical import corpus_units

    trainer = GPETrainer(TrainSettings(vocab_size=2000))
    counts = trainer.count(_lines(shared_corpora / "hi_dev.txt", 800))
    found = corpus_units(counts, trainer.splitter.match_units)
    expected = Counter()
    for word, count in zip(found.coded, found.counts):
        for code in word:
            expected[found.units[ord(code) - _FIRST_PLACEHOLDER]] += count
    assert dict(zip(found.units, found.weight)) == expected
    assert min(found.weight) > 0


@pytest.mark.parametrize("engine_name", ["python", "native"])
def test_no_output_depends_on_the_unit_numbering(
    shared_corpora: Path, monkeypatch: pytest.MonkeyPatch, engine_name: str
) -> None:
    """Unit types are numbered by first appearance (``_Coder``), but any numbering gives
    the same vocabulary, merge counts and ids, for either merge loop: a placeholder never
    forms a counted pair and is replaced by its unit's symbol once the unit is one token."""
    from sgpe import _engine as seam
    from sgpe import gpe
    from sgpe.hierarchical import CorpusUnits

    if engine_name == "native" and seam.native_module() is None:
        pytest.skip("the native core is not built")
    docs = _lines(shared_corpora / "si_dev.txt", 700) + _lines(shared_corpora / "hi_dev.txt", 300)
    first_appearance = gpe.corpus_units

    def permuted(*args: object, **kwargs: object) -> CorpusUnits:
        found = first_appearance(*args, **kwargs)  # type: ignore[arg-type]
        n = len(found.units)
        new = list(range(n))
        random.Random(5).shuffle(new)  # unit type k gets code new[k]
        units, weight = [""] * n, [0] * n
        for k in range(n):
            units[new[k]], weight[new[k]] = found.units[k], found.weight[k]
        recode = {_FIRST_PLACEHOLDER + k: _FIRST_PLACEHOLDER + new[k] for k in range(n)}
        coded = [w.translate(recode) for w in found.coded]
        assert coded != found.coded  # the words are written in other codes
        return CorpusUnits(units=units, weight=weight, coded=coded, counts=found.counts)

    with engine_set_to(engine_name):
        plain = sgpe.train(docs, vocab_size=2500, workers=1)
        monkeypatch.setattr(gpe, "corpus_units", permuted)
        renumbered = sgpe.train(docs, vocab_size=2500, workers=1)
    assert renumbered.to_dict() == plain.to_dict()
    assert renumbered.merge_counts == plain.merge_counts
    assert len(plain.merges) > 1000


def test_pieces_syllabified_in_groups_give_the_same_vocabulary(
    shared_corpora: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """corpus_units syllabifies the pieces a group at a time; groups of a few thousand
    characters, or of one piece, give the same vocabulary as the default groups."""
    docs = _lines(shared_corpora / "si_dev.txt", 900)
    corpus = docs + [d.replace(" ", "") for d in docs[:300]] + ["ab\ncd", "x\ty"]
    default = sgpe.train(corpus, vocab_size=2500, workers=1).to_dict()
    monkeypatch.setattr("sgpe.hierarchical.units._GROUP_CHARS", 3000)
    assert sgpe.train(corpus, vocab_size=2500, workers=1).to_dict() == default
    monkeypatch.setattr("sgpe.hierarchical.units._GROUP_CHARS", 1)  # one piece per group
    assert sgpe.train(corpus, vocab_size=2500, workers=1).to_dict() == default

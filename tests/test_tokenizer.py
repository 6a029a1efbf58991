"""The SGPE encoder/decoder: round trips, merge semantics, files, errors."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

import sgpe
from sgpe import Tokenizer
from sgpe.bpe import bpe_heap, bpe_with_sizes

DOCS = [
    "ශ්‍රී ලංකාව සුන්දර රටකි. ශ්‍රී ලංකාවේ ජනතාව",
    "ප්‍රශ්නය විද්‍යාව ක්‍රමය ප්‍රත්‍යක්ෂ ව්‍යාකරණය",
    "नमस्ते दुनिया, क्षत्रिय स्त्री 2024 में",
    "hello world 123 hello",
] * 4


@pytest.fixture(scope="module")
def tok() -> Tokenizer:
    return sgpe.train(DOCS, vocab_size=800, prune_freq=1, mode="paper")


@pytest.fixture(scope="module")
def unk_tok() -> Tokenizer:
    return sgpe.train(DOCS, vocab_size=300, prune_freq=1, oov_policy="unk", mode="paper")


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("", id="empty"),
        pytest.param("ා", id="lone-vowel-sign"),
        pytest.param("\u200d\u200c", id="zwj-zwnj"),
        pytest.param("👩‍👩‍👧", id="emoji-zwj"),
        pytest.param("\x00\x1f\x7f\ufeff", id="controls"),
        pytest.param("ශ්‍රී   \t\n  ලංකාව\r\n", id="whitespace-runs"),
        pytest.param("[UNK] <0x41> [PAD]", id="special-literals"),
        pytest.param("𝔘𝔫𝔦𝔠𝔬𝔡𝔢 中文 العربية", id="other-scripts"),
        pytest.param("ක" + "්ක" * 60 + "ා", id="very-long-cluster"),
    ],
)
def test_round_trip_edge_cases(tok, text):
    ids = tok.encode(text)
    assert tok.decode(ids) == text
    seen = " " + text if text and tok.prepend_space else text  # what encode() tokenized
    assert b"".join(tok.token_bytes(ids)) == seen.encode("utf-8")


@given(st.text())
def test_round_trip_any_string(tok, text):
    assert tok.decode(tok.encode(text)) == text


@given(
    st.text(
        alphabet=st.sampled_from(
            [*list("ශ්\u200dරීලංකාවසුන්දරටකි.ජනතාවේපශ්නයද්යක්ෂ"), " ", "\n", "a", "\u200d"]
        ),
        max_size=80,
    )
)
def test_encode_matches_reference_merge_loop(tok, text):
    """Inside each run of known syllables, merges follow the original encoder's rescan loop
    exactly: the Python engine's rescan (``bpe_with_sizes``, at every length) against what
    ``tokenize`` answers (the native core where it is built, else the heap for long runs)."""
    expected: list[str] = []
    for piece in tok._splitter.pieces(" " + text if text else text):  # prepend_space
        for seg, is_run in tok._segments(piece):
            if is_run:
                expected += rescan_tokens(tok, [tok.vocab[u] for u in seg])
            else:
                expected += [tok.id_to_token(i) for i in tok._spell(seg[0])[0]]
    assert tok.tokenize(text) == expected


def test_heap_merge_equals_rescan_on_long_runs(tok):
    ids = [tok.vocab[u] for u in [" ලං", "කා", "ව", "ජ", "න", "තා", "ව"] * 10]
    assert len(ids) > 30
    merged = bpe_heap(list(ids), tok._ranks)
    assert len(merged) < len(ids)  # the run has merges to make
    assert merged == bpe_with_sizes(ids, tok._ranks)[0]


def rescan_tokens(tok, ids):
    return [tok.id_to_token(i) for i in bpe_with_sizes(ids, tok._ranks)[0]]


def test_merge_trace_ends_in_the_encoding(tok):
    text = "ශ්‍රී ලංකාවේ ජනතාව hello"
    traces = tok.merge_trace(text)
    assert "".join(t.word for t in traces) == " " + text  # with the prepended space
    assert [t for tr in traces for t in tr.final] == tok.tokenize(text)
    steps = [s for tr in traces for s in tr.steps]
    assert steps and all(s.rank == tok.merges.index(s.pair) for s in steps)


def test_unknown_id_is_named(tok):
    last = tok.vocab_size - 1
    with pytest.raises(
        ValueError, match=rf"invalid token id: 99999 \(this vocabulary has ids 0\.\.{last}\)"
    ):
        tok.decode([5, 99999])
    # id_to_token answers None for an unknown id (HF tokenizers' convention), as
    # token_to_id does for an unknown token.
    assert tok.id_to_token(-1) is None and tok.id_to_token(last + 1) is None
    assert tok.id_to_token(True) is None and tok.id_to_token(last) is not None


def test_unk_policy_is_paper_faithful(unk_tok):
    ids = unk_tok.encode("ශ්‍රී ඣඤ")
    assert unk_tok.unk_id in ids
    assert not any(t.startswith("<0x") for t in unk_tok.vocab)


def test_missing_leading_space_syllable_falls_back_to_space_plus_syllable():
    tok = sgpe.train(["ලංකා ලංකා", "ලංකා"], vocab_size=2000, prune_freq=1, mode="paper")
    assert " ලං" in tok.vocab and "ලං" in tok.vocab
    text = "x ලංකා"  # " ලං" exists; now a syllable seen only inside words:
    assert tok.tokenize("x කා") == [" ", "x", " ", "කා"]  # " x" and " කා" were never seen
    assert tok.decode(tok.encode(text)) == text


def test_prepend_space_is_undone_by_decode():
    tok = sgpe.train(["ලංකා ලංකා", "ලංකා"], vocab_size=2000, prune_freq=1)
    assert tok.prepend_space
    # A line's first word is the same token as a word after a space.
    assert tok.tokenize("ලංකා") == [" ලංකා"] and tok.tokenize("x ලංකා")[-1] == " ලංකා"
    for text in ["ලංකා", " ලංකා", "  x", "\tx", "", " "]:
        assert tok.decode(tok.encode(text)) == text
    assert tok.encode("") == []
    assert tok.encode("ලංකා", prepend_space=False) != tok.encode("ලංකා")
    plain = sgpe.train(["ලංකා ලංකා", "ලංකා"], vocab_size=2000, prune_freq=1, prepend_space=False)
    assert plain.tokenize("ලංකා") == ["ලංකා"]  # learned from the lines' first words
    with pytest.raises(ValueError, match="prepend_space needs leading_space"):
        sgpe.train(["x"], leading_space=False, prepend_space=True)


def test_save_load_round_trip(tmp_path, tok):
    path = tmp_path / "vocab.json"
    tok.save(path)
    again = sgpe.load(path)
    text = "ශ්‍රී ලංකාව hello 2024"
    assert again.encode(text) == tok.encode(text)
    again.save(tmp_path / "again.json")
    assert (tmp_path / "again.json").read_bytes() == path.read_bytes()
    assert sgpe.load(path).encode(text) == tok.encode(text)
    assert not list(tmp_path.glob(".*.tmp"))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(format_version=99), "format_version"),
        (lambda d: d.pop("vocab"), "missing key 'vocab'"),
        (lambda d: d["merges"].append(["nope", "x"]), "key 'merges'"),
        (lambda d: d["vocab"].update({"extra": 10**6}), "ids must be exactly"),
        (lambda d: d.update(format="other"), "key 'format'"),
        (lambda d: d.update(model="bytebpe"), "key 'model'"),
    ],
)
def test_load_rejects_malformed_files(tmp_path, tok, change, message):
    data = tok.to_dict()
    data = json.loads(json.dumps(data))
    change(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        if data.get("model") == "bytebpe":  # sgpe.load reads it as a byte-level file
            Tokenizer._from_dict(data, str(path))
        else:
            sgpe.load(path)


def test_load_rejects_non_json(tmp_path):
    path = tmp_path / "x.json"
    path.write_text("{oops", encoding="utf-8")
    with pytest.raises(ValueError, match="not valid JSON"):
        sgpe.load(path)


def test_reads_a_reference_sgpe_vocab(tmp_path):
    """A vocab.json as written by the original SGPE trainer loads with the unk policy."""
    ref = {
        "version": "sgpe_v1.0.0", "vocab_size": 9, "special_tokens": ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"],
        "num_merges": 1, "prune_freq": 100, "leading_space": True,
        "merges": [[" ලං", "කා"]],
        "vocab": {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "[MASK]": 4, " ලංකා": 5, " ලං": 6, "කා": 7, "ව": 8},
    }  # fmt: skip
    path = tmp_path / "ref.json"
    path.write_text(json.dumps(ref, ensure_ascii=False), encoding="utf-8")
    tok = sgpe.load(path)
    assert tok.tokenize("ශ්‍රී ලංකාව") == ["[UNK]", " ලංකා", "ව"]


def test_real_text_round_trip_and_no_unk(shared_corpora):
    with open(shared_corpora / "si_train.txt", encoding="utf-8") as f:
        train = [next(f) for _ in range(3000)]
    tok = sgpe.train(train, vocab_size=6000)
    with open(shared_corpora / "si_dev.txt", encoding="utf-8") as f:
        dev = f.read().split("\n")
    for line in dev:
        ids = tok.encode(line)
        assert tok.unk_id not in ids
        assert tok.decode(ids) == line


def test_encode_batch_equals_encode_in_paper_mode(tok, unk_tok):
    texts = [*DOCS, "", "ශ්‍රී\tලංකාව  \n ", "[UNK] <0x41>", "ක" + "්ක" * 60 + "ා"]
    for t in (tok, unk_tok):
        assert t.encode_batch(texts) == [t.encode(x) for x in texts]


def test_encode_batch_equals_encode(shared_corpora, monkeypatch):
    """encode_batch (new pieces syllabified together, ids assembled from the cache) gives
    encode's ids on real Sinhala and Hindi text, empty and blank lines, a line without
    spaces longer than the piece cap, with prepend_space off, and when the piece cache
    fills up in the middle of a batch."""
    from sgpe import tokenizer
    from sgpe.shipped import DEFAULT_SGPE

    lines: list[str] = []
    for name, n in (("si_dev.txt", 1500), ("hi_dev.txt", 500)):
        with open(shared_corpora / name, encoding="utf-8") as f:
            lines += [next(f).rstrip("\n") for _ in range(n)]
    lines += ["", " ", "\t", lines[3].replace(" ", "") * 3, "ශ්‍රී ලංකා\r"]
    reference = sgpe.load(DEFAULT_SGPE)
    expected = [reference.encode(x) for x in lines]
    expected_bare = [reference.encode(x, prepend_space=False) for x in lines]
    tok = sgpe.load(DEFAULT_SGPE)
    assert tok.encode_batch(lines[:700]) + tok.encode_batch(lines[700:]) == expected
    assert tok.encode_batch(lines) == expected  # every piece known now
    assert sgpe.load(DEFAULT_SGPE).encode_batch(lines, prepend_space=False) == expected_bare
    assert tok.encode_batch([]) == []
    monkeypatch.setattr(tokenizer, "_PIECE_CACHE_LIMIT", 1000)
    small = sgpe.load(DEFAULT_SGPE)
    batches = [lines[k : k + 300] for k in range(0, len(lines), 300)]
    got = []
    for batch in batches:
        got += small.encode_batch(batch)
        distinct = {p for x in batch if x for p in small._pieces(" " + x)}
        assert len(small._cache) <= max(1000, len(distinct))
    assert got == expected


def test_constructor_defaults_are_trains(shared_corpora):
    """``Tokenizer(vocab, merges)`` is the vocabulary ``train`` writes with its defaults: the
    same settings and the same ids on held-out lines (the defaults once were the original
    SGPE's: paper mode, no dummy space)."""
    lines = (shared_corpora / "si_train.txt").read_text(encoding="utf-8").splitlines()[:400]
    trained = sgpe.train(lines, vocab_size=1500)
    made = Tokenizer(trained.vocab, trained.merges)
    settings = ("mode", "leading_space", "prepend_space", "script", "pieces", "oov_policy")
    assert [getattr(made, s) for s in settings] == [getattr(trained, s) for s in settings]
    assert (made.mode, made.prepend_space) == ("hierarchical", True)
    assert (made.min_freq, made.prune_freq, made.max_piece_units) == (
        trained.min_freq,
        trained.prune_freq,
        trained.max_piece_units,
    )
    dev = (shared_corpora / "si_dev.txt").read_text(encoding="utf-8").splitlines()[:200]
    assert [made.encode(t) for t in dev] == [trained.encode(t) for t in dev]

"""Tests for `sgpe.baselines.bytebpe`: the byte-level BPE baseline.

Three kinds of evidence:

* golden cases from the byte-level BPE invariants FR-4..FR-15 (the failure-mode table:
  vocab_size < 256, tie-break, early stop at chunk boundaries, non-overlapping merges,
  ``<|endoftext|>`` as ordinary text, the worked example "ab ab ab");
* properties with hypothesis: lossless round trip, the fast trainer equals the slow
  reference below on random small corpora (ties included), encode equals a naive
  rescan-loop encoder;
* files: save/load round trip, byte-identical saves, and loader errors that name the key.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import pytest
import regex
from hypothesis import given, settings
from hypothesis import strategies as st

import sgpe
from sgpe.baselines.bytebpe import END_OF_TEXT, SPLIT_PATTERNS, ByteBPETokenizer
from sgpe.protocol import MergeStep, TokenizerLike

REPO_ROOT = Path(__file__).resolve().parents[1]

MIXED_TEXT = [
    "The quick brown fox jumps over the lazy dog. It's 2024, isn't it?",
    "ශ්‍රී ලංකා ප්‍රජාතාන්ත්‍රික සමාජවාදී ජනරජය. රුධිර පරීක්ෂණ පෞද්ගලික අංශයෙන්.",
    "भारत गणराज्य दक्षिण एशिया में स्थित है। हिन्दी भाषा",
    "emoji 👨‍👩‍👧 🇱🇰 café naïve e\u0301  tabs\tand\r\nnewlines\n\n",
    "ababababab abababab aaaa bbbb " * 3,
    "<|endoftext|> 12345 67 ... --- !!! (a) [b] {c}",
]


# ============================================================================ references


def reference_merges(
    texts: Iterable[str], vocab_size: int, pattern: str = "gpt2"
) -> list[tuple[int, int]]:
    """Obviously-correct trainer: recount every pair at every step (minbpe style)."""
    compiled = regex.compile(SPLIT_PATTERNS.get(pattern, pattern))
    words: Counter[tuple[int, ...]] = Counter()
    for text in texts:
        for chunk in compiled.findall(text):
            words[tuple(chunk.encode("utf-8"))] += 1
    merges: list[tuple[int, int]] = []
    while len(merges) < vocab_size - 257:  # 256 bytes + merges + <|endoftext|> = vocab_size
        pair_counts: Counter[tuple[int, int]] = Counter()
        for word, count in words.items():
            for pair in itertools.pairwise(word):
                pair_counts[pair] += count
        if not pair_counts:
            break
        best = min(pair_counts.items(), key=lambda item: (-item[1], item[0]))[0]
        new_id = 256 + len(merges)
        merges.append(best)
        merged_words: Counter[tuple[int, ...]] = Counter()
        for word, count in words.items():
            out: list[int] = []
            i = 0
            while i < len(word):
                if i + 1 < len(word) and (word[i], word[i + 1]) == best:
                    out.append(new_id)
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            merged_words[tuple(out)] += count
        words = merged_words
    return merges


def naive_encode(tok: ByteBPETokenizer, text: str) -> list[int]:
    """Rescan loop: merge the lowest-id pair, leftmost on ties, one occurrence at a time."""
    rank = {pair: 256 + i for i, pair in enumerate(tok.merges)}
    out: list[int] = []
    for chunk in regex.findall(tok.pattern, text):
        ids = list(chunk.encode("utf-8"))
        while len(ids) >= 2:
            best_at, best_id = -1, -1
            for i in range(len(ids) - 1):
                new_id = rank.get((ids[i], ids[i + 1]), -1)
                if new_id >= 0 and (best_id < 0 or new_id < best_id):
                    best_at, best_id = i, new_id
            if best_at < 0:
                break
            ids[best_at : best_at + 2] = [best_id]
        out.extend(ids)
    return out


@pytest.fixture(scope="module")
def mixed() -> ByteBPETokenizer:
    return ByteBPETokenizer.train(MIXED_TEXT * 2, vocab_size=600)


# ============================================================================ golden: FR-9..FR-15


@pytest.mark.parametrize("size", [0, 1, 255, 256, -3])
def test_train_raises_value_error_for_vocab_size_below_257(size: int) -> None:
    with pytest.raises(
        ValueError, match=r"at least 257 \(a token for every byte and <\|endoftext\|>\)"
    ):
        ByteBPETokenizer.train(["abc"], vocab_size=size)


@pytest.mark.parametrize("size", [257, 258, 300, 1000])
def test_a_requested_vocab_size_is_the_number_of_ids(size: int) -> None:
    """A bug once fixed: 256 bytes + (N - 256) merges + <|endoftext|> made N + 1 ids."""
    text = (REPO_ROOT / "sample_data" / "sinhala.txt").read_text(encoding="utf-8")
    tok = ByteBPETokenizer.train(text.splitlines(), size)
    assert tok.vocab_size == size == 256 + len(tok.merges) + 1
    assert tok.eot_id == size - 1


def test_vocab_size_257_gives_zero_merges_and_special_at_256() -> None:
    tok = ByteBPETokenizer.train(["hello hello"], vocab_size=257)
    assert tok.merges == ()
    assert tok.special_tokens == {END_OF_TEXT: 256}
    assert tok.vocab_size == 257
    assert tok.encode("hi") == [104, 105]


def test_tie_breaking_picks_lexicographically_smallest_pair() -> None:
    # (99, 97) is seen first; (97, 98) is smaller. Both occur once.
    tok = ByteBPETokenizer.train(["cab"], vocab_size=258)
    assert tok.merges == ((97, 98),)


@pytest.mark.parametrize("pattern", ["o200k", "cl100k", "gpt2"])
def test_early_stops_instead_of_merging_across_chunk_boundaries(pattern: str) -> None:
    tok = ByteBPETokenizer.train(["ab\nab\nab\nab\nab"], vocab_size=300, pattern=pattern)
    assert tok.merges == ((97, 98),)
    assert tok.special_tokens == {END_OF_TEXT: 257}


def test_early_stops_when_no_mergeable_pairs_remain() -> None:
    tok = ByteBPETokenizer.train(["aaaa"], vocab_size=1000)
    assert tok.merges == ((97, 97), (256, 256))
    assert tok.vocab_size == 256 + 2 + 1


def test_min_freq_stops_earlier() -> None:
    corpus = ["ab ab ab cd"]
    assert len(ByteBPETokenizer.train(corpus, 300, pattern="gpt2").merges) > 2
    tok = ByteBPETokenizer.train(corpus, 300, pattern="gpt2", min_freq=2)
    assert tok.merges == ((97, 98), (32, 256))


def test_non_overlapping_merge_on_triple_emits_merged_then_trailing() -> None:
    tok = ByteBPETokenizer.train(["xxx"], vocab_size=258)
    assert tok.merges == ((120, 120),)
    assert tok.encode("xxx") == [256, 120]
    assert tok.tokenize("xxx") == ["xx", "x"]


def test_endoftext_literal_in_corpus_is_ordinary_text() -> None:
    with_literal = ByteBPETokenizer.train(["hello <|endoftext|> world"] * 3, vocab_size=280)
    without = ByteBPETokenizer.train(["hello  world"] * 3, vocab_size=280)
    assert with_literal.merges != without.merges
    for tok in (with_literal, without):
        assert tok.special_tokens == {END_OF_TEXT: 256 + len(tok.merges)}
        assert tok.eot_id == tok.vocab_size - 1
    tok = with_literal
    assert tok.eot_id not in tok.encode("a<|endoftext|>b")
    assert tok.decode(tok.encode("a<|endoftext|>b")) == "a<|endoftext|>b"
    ids = tok.encode_with_special("a<|endoftext|>b")
    assert ids == [*tok.encode("a"), tok.eot_id, *tok.encode("b")]
    assert tok.decode(ids) == "a<|endoftext|>b"
    assert tok.id_to_token(tok.eot_id) == END_OF_TEXT


def test_worked_example_ab_ab_ab() -> None:
    """Chunks (gpt2 split): b"ab" x1, b" ab" x2.

    Step 1 counts (97, 98): 1 + 2 = 3 and (32, 97): 2, so 256 = b"ab".
    Step 2 counts (32, 256): 2, so 257 = b" ab". No pair is left; the special gets 258.
    """
    tok = ByteBPETokenizer.train(["ab ab ab"], vocab_size=259, pattern="gpt2")
    assert tok.merges == ((97, 98), (32, 256))
    assert tok.token_bytes([256, 257, 258]) == [b"ab", b" ab", b"<|endoftext|>"]
    assert tok.special_tokens == {END_OF_TEXT: 258}
    assert tok.vocab_size == 259
    assert tok.encode("ab ab") == [256, 257]


def test_chunk_boundaries_are_never_crossed() -> None:
    corpus = ["a1a1a1 a1a1a1, a1!a1!"] * 5
    tok = ByteBPETokenizer.train(corpus, vocab_size=400, pattern="gpt2")
    chunks = {c.encode() for text in corpus for c in tok.split(text)}
    for token in tok.token_bytes(range(256, 256 + len(tok.merges))):
        assert any(token in chunk for chunk in chunks), token
    text = corpus[0]
    assert tok.encode(text) == [i for c in tok.split(text) for i in tok.encode(c)]


def test_training_is_deterministic(tmp_path: Path) -> None:
    first = ByteBPETokenizer.train(MIXED_TEXT, vocab_size=500)
    second = ByteBPETokenizer.train(MIXED_TEXT, vocab_size=500)
    first.save(tmp_path / "a.json")
    second.save(tmp_path / "b.json")
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


def test_training_does_not_depend_on_hash_seed() -> None:
    # The trainer iterates sets of str pairs, whose order changes with PYTHONHASHSEED.
    script = (
        "from sgpe.baselines.bytebpe import ByteBPETokenizer as T; import json, sys; "
        "texts = json.loads(sys.stdin.read()); "
        "print(T.train(texts, 600).merges)"
    )
    outputs = set()
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO_ROOT)}
        done = subprocess.run(
            [sys.executable, "-c", script],
            input=json.dumps(MIXED_TEXT),
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1


def test_progress_is_called_once_per_merge() -> None:
    calls: list[tuple[int, tuple[str, str], int, float]] = []
    tok = ByteBPETokenizer.train(
        ["ab ab ab"], 259, pattern="gpt2", progress=lambda *args: calls.append(args)
    )
    assert [(step, pair, count) for step, pair, count, _ in calls] == [
        (1, ("a", "b"), 3),
        (2, (" ", "ab"), 2),
    ]
    assert len(calls) == len(tok.merges)
    assert all(elapsed >= 0 for *_, elapsed in calls)


# ============================================================================ API details


def test_satisfies_protocol(mixed: ByteBPETokenizer) -> None:
    assert isinstance(mixed, TokenizerLike)
    assert mixed.model == "bytebpe"


def test_split_patterns_are_named_and_o200k_keeps_marks_in_words() -> None:
    word = " පරීක්ෂණ"  # vowel signs and the virama are \p{M}
    assert ByteBPETokenizer(pattern="o200k").split(word) == [word]
    assert ByteBPETokenizer(pattern="cl100k").split(word) == [" පර", "ීක", "්ෂණ"]
    # ZWJ is \p{Cf}, not a mark: it starts a new chunk even under o200k.
    assert ByteBPETokenizer().split("ශ්\u200dරී") == ["ශ්", "\u200dරී"]
    assert ByteBPETokenizer().pattern_name == "o200k"
    assert ByteBPETokenizer(pattern=SPLIT_PATTERNS["gpt2"]).pattern_name == "gpt2"
    assert ByteBPETokenizer(pattern=r"\w+").pattern_name is None


def test_custom_pattern_that_skips_characters_stays_lossless() -> None:
    tok = ByteBPETokenizer.train(["aa bb, aa!"], 300, pattern=r"[a-z]+")
    assert tok.split("aa bb, aa!") == ["aa", " ", "bb", ", ", "aa", "!"]
    assert tok.decode(tok.encode("zz yy!")) == "zz yy!"


def test_invalid_pattern_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="invalid split pattern"):
        ByteBPETokenizer(pattern="(unclosed")


def test_single_string_instead_of_texts_is_rejected() -> None:
    with pytest.raises(TypeError, match=r"wrap one text in a list"):
        ByteBPETokenizer.train("ab ab", 300)


@pytest.mark.parametrize("bad", [-1, 10**9])
def test_decode_unknown_id_names_the_id(mixed: ByteBPETokenizer, bad: int) -> None:
    message = rf"invalid token id: {bad} \(vocabulary has ids 0\.\.{mixed.vocab_size - 1}\)"
    with pytest.raises(ValueError, match=message):
        mixed.decode([97, bad])
    assert mixed.id_to_token(bad) is None  # unknown: None, as token_to_id answers


def test_decode_replaces_invalid_utf8_but_decode_bytes_is_exact() -> None:
    tok = ByteBPETokenizer()
    ids = list("ක".encode())[:2]
    assert tok.decode_bytes(ids) == b"\xe0\xb6"
    assert tok.decode(ids) == "\ufffd"
    assert tok.id_to_token(0xE0) == "<0xE0>"
    assert tok.tokenize("ක") == ["<0xE0>", "<0xB6>", "<0x9A>"]


def test_merge_trace_steps_through_each_merge() -> None:
    tok = ByteBPETokenizer.train(["ab ab ab"], 259, pattern="gpt2")
    first, second = tok.merge_trace("ab ab")
    assert first.word == "ab" and first.initial == ("a", "b")
    assert first.steps == (MergeStep(("a", "b"), 0, ("ab",), "bytes"),)
    assert second.initial == (" ", "a", "b")
    assert second.steps == (
        MergeStep(("a", "b"), 0, (" ", "ab"), "bytes"),
        MergeStep((" ", "ab"), 1, (" ab",), "bytes"),
    )
    assert second.final == (" ab",)


def test_merge_trace_ends_in_the_encoded_tokens(mixed: ByteBPETokenizer) -> None:
    for text in MIXED_TEXT:
        traces = mixed.merge_trace(text)
        assert "".join(t.word for t in traces) == text
        assert [tok for t in traces for tok in t.final] == mixed.tokenize(text)
        for trace in traces:
            assert all(step.rank >= 0 for step in trace.steps)


# ============================================================================ files


def test_save_load_round_trip(tmp_path: Path, mixed: ByteBPETokenizer) -> None:
    path = tmp_path / "byte.json"
    mixed.save(path)
    loaded = sgpe.load(path)
    assert loaded.merges == mixed.merges
    assert loaded.pattern == mixed.pattern and loaded.pattern_name == "o200k"
    assert loaded.training == mixed.training
    for text in MIXED_TEXT:
        assert loaded.encode(text) == mixed.encode(text)
    loaded.save(tmp_path / "again.json")
    assert (tmp_path / "again.json").read_bytes() == path.read_bytes()
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format"] == "sgpe-vocab" and data["format_version"] == 1
    assert data["model"] == "bytebpe"
    assert data["num_merges"] == len(data["merges"]) == len(mixed.merges)
    assert data["vocab_size"] == mixed.vocab_size
    assert data["special_tokens"] == {END_OF_TEXT: mixed.eot_id}
    assert data["vocab"]["a"] == 97
    assert {p.name for p in tmp_path.iterdir()} == {"byte.json", "again.json"}  # no temp


def test_save_writes_training_metadata_as_given(tmp_path: Path) -> None:
    tok = ByteBPETokenizer.train(["ab ab"], 257)
    tok.save(tmp_path / "t.json", training={"corpus": "සිංහල", "lines": 2})
    data = json.loads((tmp_path / "t.json").read_text(encoding="utf-8"))
    assert data["training"] == {"corpus": "සිංහල", "lines": 2}
    assert "සිංහල" in (tmp_path / "t.json").read_text(encoding="utf-8")  # ensure_ascii=False


def _mutated(tok: ByteBPETokenizer, key: str, value: object) -> dict[str, object]:
    data = tok.to_dict()
    data[key] = value
    return data


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        pytest.param("format_version", 2, "reads format_version 1", id="future-version"),
        pytest.param("format_version", "1", "reads format_version 1", id="version-as-str"),
        pytest.param("format", "minbpe v1", "expected 'sgpe-vocab'", id="format"),
        pytest.param("model", "sgpe", "not 'bytebpe'", id="model"),
        pytest.param("merges", [[97, 98], [97, 300]], "entry 1", id="forward-id"),
        pytest.param("merges", [[97]], "entry 0", id="short-merge"),
        pytest.param("merges", [[97, 98], [97, 98]], "repeats", id="duplicate"),
        pytest.param("merges", "97 98", "list of", id="not-a-list"),
        pytest.param("special_tokens", {END_OF_TEXT: 0}, "expected", id="special-id"),
        pytest.param("pattern", "(", "does not compile", id="pattern"),
        pytest.param("num_merges", 99, "has 2 entries", id="num-merges"),
    ],
)
def test_load_rejects_bad_files_naming_file_and_key(
    tmp_path: Path, key: str, value: object, message: str
) -> None:
    tok = ByteBPETokenizer.train(["ab ab ab"], 259, pattern="gpt2")
    path = tmp_path / "bad.json"
    data = _mutated(tok, key, value)
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match=regex.escape(str(path))) as caught:
        if key == "model":  # sgpe.load reads it as the model it names: the class's own check
            ByteBPETokenizer._from_dict(data, source=str(path))
        else:
            sgpe.load(path)
    assert f"key {key!r}" in str(caught.value)
    assert message in str(caught.value)


def test_load_rejects_non_json(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match=r"broken.json: not valid JSON \(line 1, column 2"):
        sgpe.load(path)


# ============================================================================ properties

EDGE_TEXTS = [
    pytest.param("", id="empty"),
    pytest.param("a", id="one-char"),
    pytest.param("ශ්‍රී ලංකාව", id="sinhala-zwj"),
    pytest.param("नमस्ते दुनिया", id="devanagari"),
    pytest.param("\u0dca\u0dcf", id="stray-vowel-signs"),
    pytest.param("👨‍👩‍👧‍👦🇱🇰", id="emoji-zwj"),
    pytest.param("e\u0301\u0301\u0301", id="combining"),
    pytest.param(" " * 3000 + "x", id="long-whitespace"),
    pytest.param("ab" * 700, id="long-chunk"),
    pytest.param("<|endoftext|>", id="eot-literal"),
]


@pytest.mark.parametrize("text", EDGE_TEXTS)
def test_round_trip_edge_cases(mixed: ByteBPETokenizer, text: str) -> None:
    ids = mixed.encode(text)
    assert mixed.decode(ids) == text
    assert ids == naive_encode(mixed, text)


@given(text=st.text())
def test_decode_encode_round_trip(mixed: ByteBPETokenizer, text: str) -> None:
    ids = mixed.encode(text)
    assert mixed.decode(ids) == text
    assert b"".join(mixed.token_bytes(ids)) == text.encode("utf-8")


@given(text=st.text(alphabet=st.sampled_from("ab \nකාෂ්\u200d👍é"), max_size=60))
def test_encode_equals_naive_rescan(mixed: ByteBPETokenizer, text: str) -> None:
    assert mixed.encode(text) == naive_encode(mixed, text)


@settings(max_examples=40)  # the naive encoder is quadratic on these long chunks
@given(text=st.text(alphabet="ab", min_size=520, max_size=800))
def test_long_chunk_encoder_equals_naive_rescan(mixed: ByteBPETokenizer, text: str) -> None:
    assert mixed.encode(text) == naive_encode(mixed, text)


@given(
    texts=st.lists(st.text(alphabet="ab c\nක", max_size=12), max_size=8),
    extra_merges=st.integers(min_value=0, max_value=40),
    pattern=st.sampled_from(["gpt2", "o200k"]),
)
def test_fast_trainer_equals_reference(texts: list[str], extra_merges: int, pattern: str) -> None:
    vocab_size = 257 + extra_merges
    tok = ByteBPETokenizer.train(texts, vocab_size, pattern=pattern)
    assert list(tok.merges) == reference_merges(texts, vocab_size, pattern)


# ============================================================================ real text


def test_real_sinhala_text_round_trip(shared_corpora: Path) -> None:
    path = shared_corpora / "si_dev.txt"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    tok = ByteBPETokenizer.train(lines[:500], vocab_size=1500)
    assert len(tok.merges) == 1500 - 257 and tok.vocab_size == 1500
    for line in lines:
        assert tok.decode(tok.encode(line)) == line
    for line in lines[:20]:
        assert tok.encode(line) == naive_encode(tok, line)
    # A trained vocabulary compresses Sinhala well below 3 bytes (one character) per token.
    text = "".join(lines[500:600])
    assert len(text.encode("utf-8")) / len(tok.encode(text)) > 3

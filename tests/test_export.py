"""Hugging Face ``tokenizer.json`` export: exact id parity with our encoders.

Evidence, in order:

* every line of ``../shared/corpora/{si,hi,mixed}_dev.txt`` (read in place) gives the same
  ids through ``tokenizers.Tokenizer.from_file`` as through :mod:`sgpe`, for vocabularies
  trained on the matching train file, in both OOV policies; the intermediate assembly
  tokens (ids after ours) never come out, and decoding round-trips;
* hypothesis strings that mix Sinhala, Devanagari (whole blocks, so unassigned and
  orphan code points too), Latin, digits, emoji, ZWJ/ZWNJ and whitespace runs, on small
  hermetic vocabularies trained on ``sample_data`` with several settings;
* targeted cases: a known ``" X"`` whose ``X`` is not a token (the byte-spelled
  intermediate), literal special-token strings (the one documented difference), long
  pieces (Oniguruma's retry limit), loading with ``transformers``;
* the byte-level baseline: the same parity for its exported file, every split pattern.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sgpe
from sgpe import Tokenizer
from sgpe.baselines.bytebpe import SPLIT_PATTERNS, ByteBPETokenizer
from sgpe.gpe import GPETrainer, TrainSettings
from sgpe.interop.hf import (
    MAX_RUN,
    ExportError,
    check_parity,
    load_hf,
    save_hf,
    to_hf,
    to_hf_str,
)
from sgpe.protocol import byte_token

tokenizers = pytest.importorskip("tokenizers")

# A share of the profile's budget (HYPOTHESIS_MAX_EXAMPLES, default 200): these tests
# compare two tokenizers per example.
EXAMPLES = max(10, int(os.environ.get("HYPOTHESIS_MAX_EXAMPLES", "200")))
REPO_ROOT = Path(__file__).resolve().parents[1]
SAMPLE = REPO_ROOT / "sample_data"
POLICIES = ("fallback", "unk")
SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
# Components a stock tokenizers build knows; the export must use nothing else.
STOCK_TYPES = {
    "Sequence",
    "Split",
    "Replace",
    "Prepend",
    "BPE",
    "ByteFallback",
    "Fuse",
    "Strip",
    "ByteLevel",
}


# ============================================================================ helpers


def lines_of(path: Path) -> list[str]:
    """Lines split on ``\\n`` only (as the command line does), without the empty string after a final LF."""
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def assert_parity(tok: Tokenizer | ByteBPETokenizer, hf: Any, texts: list[str]) -> None:
    """Same ids for every text, no id beyond our vocabulary, and lossless decoding."""
    got = [e.ids for e in hf.encode_batch(texts)]
    n_ours = tok.vocab_size
    lossless = isinstance(tok, ByteBPETokenizer) or tok.oov_policy == "fallback"
    bad = []
    for k, (text, theirs) in enumerate(zip(texts, got)):
        ours = tok.encode(text)
        if ours != theirs:
            bad.append(
                (k, text[:60], tok.tokenize(text)[:12], [hf.id_to_token(i) for i in theirs[:12]])
            )
        elif lossless:
            assert hf.decode(theirs, skip_special_tokens=False) == text, f"line {k}: decode"
        assert not theirs or max(theirs) < n_ours, f"line {k}: an intermediate id was emitted"
    assert not bad, f"{len(bad)} of {len(texts)} texts differ, first: {bad[:3]}"


def types_in(document: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(document, dict):
        if isinstance(document.get("type"), str):
            found.add(document["type"])
        for value in document.values():
            found |= types_in(value)
    elif isinstance(document, list):
        for value in document:
            found |= types_in(value)
    return found


def train_both(corpus: Any, vocab_size: int, **kwargs: Any) -> dict[str, Tokenizer]:
    """One word count, two vocabularies (fallback and unk)."""
    counts = GPETrainer(TrainSettings(vocab_size=vocab_size, **kwargs)).count(corpus)
    return {
        policy: GPETrainer(TrainSettings(vocab_size=vocab_size, oov_policy=policy, **kwargs)).fit(
            counts
        )
        for policy in POLICIES
    }


# ============================================================================ fixtures


@pytest.fixture(scope="module")
def dev_vocabs(shared_corpora: Path) -> dict[tuple[str, str], Tokenizer]:
    """SGPE vocabularies (8,000) trained on si_train and hi_train, both OOV policies."""
    out: dict[tuple[str, str], Tokenizer] = {}
    for lang in ("si", "hi"):
        for policy, tok in train_both(shared_corpora / f"{lang}_train.txt", 8000).items():
            out[lang, policy] = tok
    return out


@pytest.fixture(scope="module")
def dev_exports(
    dev_vocabs: dict[tuple[str, str], Tokenizer], tmp_path_factory: Any
) -> dict[tuple[str, str], Any]:
    """The exported files, written to disk and loaded with ``Tokenizer.from_file``."""
    folder = tmp_path_factory.mktemp("hf")
    out = {}
    for key, tok in dev_vocabs.items():
        path = folder / f"{key[0]}_{key[1]}.json"
        save_hf(tok, path)
        out[key] = tokenizers.Tokenizer.from_file(str(path))
    return out


@pytest.fixture(scope="module")
def sample_vocabs() -> dict[str, Tokenizer]:
    """Small hermetic vocabularies (sample_data) in several settings."""
    docs = [
        line
        for name in ("sinhala.txt", "hindi.txt", "mixed.txt")
        for line in lines_of(SAMPLE / name)
    ]
    docs += ["මිල ½ කි – හරි"] * 4
    out = {f"auto-{p}": t for p, t in train_both(docs, 3000, prune_freq=2).items()}
    out["script-pieces"] = sgpe.train(docs, vocab_size=3000, pieces="script")
    out["no-leading-space"] = sgpe.train(docs, vocab_size=3000, leading_space=False)
    out["sinhala-only-unk"] = sgpe.train(docs, vocab_size=1500, script="sinhala", oov_policy="unk")
    out["tiny-fallback"] = sgpe.train(docs, vocab_size=1400, prune_freq=5)
    return out


@pytest.fixture(scope="module")
def sample_exports(sample_vocabs: dict[str, Tokenizer]) -> dict[str, Any]:
    return {name: load_hf(tok) for name, tok in sample_vocabs.items()}


# ============================================================================ dev files


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize(
    ("dev", "lang"),
    [("si_dev", "si"), ("mixed_dev", "si"), ("hi_dev", "hi")],
)
def test_parity_on_every_dev_line(shared_corpora, dev_vocabs, dev_exports, dev, lang, policy):
    lines = lines_of(shared_corpora / f"{dev}.txt")
    assert len(lines) > 100
    assert_parity(dev_vocabs[lang, policy], dev_exports[lang, policy], lines)


@pytest.mark.slow
@pytest.mark.parametrize("policy", POLICIES)
def test_parity_at_32k_and_across_scripts(shared_corpora, policy):
    """32,000-token vocabularies, and each dev file through the other language's vocabulary
    (almost every syllable OOV: the fallback paths)."""
    for lang in ("si", "hi"):
        tok = train_both(shared_corpora / f"{lang}_train.txt", 32000)[policy]
        hf = load_hf(tok)
        for dev in ("si_dev", "hi_dev", "mixed_dev"):
            assert_parity(tok, hf, lines_of(shared_corpora / f"{dev}.txt"))


# ============================================================================ hypothesis

SINHALA = st.characters(min_codepoint=0x0D80, max_codepoint=0x0DFF)
DEVANAGARI = st.one_of(
    st.characters(min_codepoint=0x0900, max_codepoint=0x097F),
    st.sampled_from(["\u1cd0", "\u1cf4", "\ua8e0", "\ua8f1"]),
)
OTHER = st.sampled_from(
    [*"abcXYZ019.,;:!?'\"()[]<>-_/\\", "½", "–", "“", "é", "e\u0301", "中", "ſ"]
)
EMOJI = st.sampled_from(["😀", "👨\u200d👩\u200d👧", "🇱🇰", "👍🏽", "\U0010ffff", "\uffff"])
JOINER = st.sampled_from(["\u200d", "\u200c"])
SPACE = st.sampled_from(
    [" ", "  ", "\t", "\n", "\r\n", "\u00a0", " \u00a0", "\x1c", "\u2028", "\u3000"]
)
ATOM = st.one_of(SINHALA, SINHALA, DEVANAGARI, DEVANAGARI, OTHER, EMOJI, JOINER, SPACE)
WORDS = st.sampled_from(
    [
        "ශ්‍රී",
        "ලංකාව",
        "ප්‍රශ්නය",
        "ක්ෂ්ම",
        "ෂ්ක්ම",
        "කාක්කා",
        "කෝ",
        "කෙෝ",
        "नमस्ते",
        "क़िला",
        "क्‍ष",
        "ज़्",
        " ½",
        "½",
        " –",
    ]
)
MIXED = st.lists(st.one_of(ATOM, WORDS), max_size=24).map("".join)


@pytest.mark.parametrize(
    "name",
    [
        "auto-fallback",
        "auto-unk",
        "script-pieces",
        "no-leading-space",
        "sinhala-only-unk",
        "tiny-fallback",
    ],
)
@settings(max_examples=EXAMPLES * 3 // 10)
@given(texts=st.lists(MIXED, min_size=1, max_size=6))
def test_parity_on_mixed_strings(sample_vocabs, sample_exports, name, texts):
    hf = sample_exports[name]
    hf.encode_special_tokens = True  # "[UNK]" may not occur, but keep the comparison honest
    assert_parity(sample_vocabs[name], hf, texts)


@pytest.mark.parametrize("name", ["auto-fallback", "auto-unk"])
@settings(max_examples=EXAMPLES // 2)
@given(text=st.text(max_size=40))
def test_parity_on_arbitrary_text(sample_vocabs, sample_exports, name, text):
    hf = sample_exports[name]
    hf.encode_special_tokens = True
    assert_parity(sample_vocabs[name], hf, [text])


# ============================================================================ targeted cases


def handmade_vocab() -> Tokenizer:
    """A vocabulary with known ``" ½"`` and ``" –"`` whose ``"½"`` and ``"–"`` are not
    tokens (the trainer now keeps the bare form, but older or hand-made files need not)."""
    tokens = [*SPECIALS, " ", *(byte_token(b) for b in range(256)), *"abx්කෂා"]
    tokens += [" ½", " –", " a", "ab", " ab", "ක්", "ක්ෂ", "කා", " කා", "ක්ෂකා"]
    merges = [("a", "b"), (" a", "b"), ("ක්ෂ", "කා")]
    # The paper mode and no dummy space: the rules of a hand-made file that records neither.
    return Tokenizer(
        {t: i for i, t in enumerate(tokens)}, merges, mode="paper", prepend_space=False
    )


def test_known_space_unit_whose_character_is_not_a_token():
    """The file spells the intermediate ``"½"`` of ``" ½"`` with bytes, so a lone ``½``
    still falls back to byte tokens, and a decoder step restores the character."""
    tok = handmade_vocab()
    document = to_hf(tok)
    assert document["model"]["vocab"][" <0xC2><0xBD>"] == tok.vocab[" ½"]
    assert "½" not in document["model"]["vocab"]
    hf = load_hf(document)
    texts = ["½", " ½", "x½", "½½ ½", " ½x", "a ½ b", "  ½", "\t½", " –– ab", "ක්ෂකා ½ කා", "aab"]
    assert_parity(tok, hf, texts)
    assert hf.encode("½").tokens == ["<0xC2>", "<0xBD>"]
    assert hf.decode(hf.encode(" ½").ids) == " ½"


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("", id="empty"),
        pytest.param(" ", id="space"),
        pytest.param("   \t \n\r\n  ", id="whitespace-run"),
        pytest.param("\x1c\x1d\x1e\x1f x\x1cy", id="python-only-whitespace"),
        pytest.param(" \u00a0x \u2028 \u3000", id="unicode-spaces"),
        pytest.param("ක්ෂ්ම ෂ්ක්ම කාක්කා", id="cluster-orders"),
        pytest.param("කෙෝ කො කෝ ෙ ො ා්", id="decomposed-vowels"),
        pytest.param("क़ क़ ज़्‍ क्‌ष", id="nukta-and-joiners"),
        pytest.param("ක" + "්ක" * 80 + "ා", id="very-long-cluster"),
        pytest.param("ශ්‍රී" * 500, id="long-word"),
    ],
)
@pytest.mark.parametrize("name", ["auto-fallback", "auto-unk", "no-leading-space"])
def test_parity_edge_cases(sample_vocabs, sample_exports, name, text):
    assert_parity(sample_vocabs[name], sample_exports[name], [text])


@pytest.mark.parametrize("name", ["auto-fallback", "auto-unk"])
def test_special_token_literals_are_the_documented_difference(sample_vocabs, name):
    """HF matches added tokens in raw text before the pipeline; ``encode_special_tokens``
    (a runtime flag a tokenizer.json cannot store) turns that off and restores parity."""
    tok = sample_vocabs[name]
    hf = load_hf(tok)
    text = "a [UNK] b [MASK]"
    assert hf.encode(text).ids != tok.encode(text)
    assert tok.vocab["[UNK]"] in hf.encode(text).ids
    hf.encode_special_tokens = True
    assert hf.encode(text).ids == tok.encode(text)


def test_special_tokens_are_added_tokens_0_to_4(sample_vocabs):
    document = to_hf(sample_vocabs["auto-fallback"])
    added = document["added_tokens"]
    assert [(t["id"], t["content"], t["special"]) for t in added] == [
        (i, s, True) for i, s in enumerate(SPECIALS)
    ]
    hf = load_hf(document)
    assert [hf.token_to_id(s) for s in SPECIALS] == [0, 1, 2, 3, 4]
    assert hf.decode([2, hf.token_to_id("a"), 3]) == "a"


@pytest.mark.parametrize("name", ["auto-fallback", "auto-unk"])
def test_file_is_plain_json_with_stock_components(sample_vocabs, tmp_path, name):
    tok = sample_vocabs[name]
    path = tmp_path / "tokenizer.json"
    save_hf(tok, path)
    document = json.loads(path.read_text(encoding="utf-8"))
    assert set(document) == {
        "version",
        "truncation",
        "padding",
        "added_tokens",
        "normalizer",
        "pre_tokenizer",
        "post_processor",
        "decoder",
        "model",
    }
    assert types_in(document) <= STOCK_TYPES
    vocab = document["model"]["vocab"]
    assert sorted(vocab.values()) == list(range(len(vocab)))
    for token, i in tok.vocab.items():  # our ids are kept (byte-spelled only for " ½"-like)
        assert vocab.get(token, i) == i
    assert to_hf(tok) == document  # deterministic
    assert tokenizers.Tokenizer.from_file(str(path)).encode("ශ්‍රී ලංකා").ids == tok.encode("ශ්‍රී ලංකා")


def test_pieces_longer_than_the_cap_are_cut_alike_beyond_max_run():
    """A whitespace-free piece of more than MAX_RUN units: the encoder and the file's cap
    Split cut it into the same chunks of max_piece_units units, so the ids agree (before
    the cap, BPE could not merge across the MAX_RUN cut and they differed)."""
    tok = handmade_vocab()
    hf = load_hf(tok)
    long_run = "x" + "ab" * (MAX_RUN // 2 + 10)
    ours = tok.encode(long_run)
    assert hf.encode(long_run).ids == ours
    n = tok.max_piece_units  # one character per unit here
    chunks = [long_run[i : i + n] for i in range(0, len(long_run), n)]
    assert ours == [i for c in chunks for i in tok.encode(c, prepend_space=False)]
    assert hf.decode(ours) == long_run
    spaced = " ".join(["x" + "ab" * 1000] * (MAX_RUN // 1000 + 5))
    assert hf.encode(spaced).ids == tok.encode(spaced)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["auto-fallback", "auto-unk"])
def test_long_inputs_stay_within_oniguruma_limits(sample_vocabs, sample_exports, name):
    """Every regex match covers at most MAX_RUN units, so huge pieces do not hit
    Oniguruma's retry limit (which would make HF panic)."""
    tok, hf = sample_vocabs[name], sample_exports[name]
    for text in ["ක" * 300_000, "a" * 300_000, " ".join(["ශ්‍රී"] * 100_000), "ශ්‍රීලංකා" * 50_000]:
        assert hf.encode(text).ids == tok.encode(text)
    assert MAX_RUN >= 10_000


def test_transformers_fast_tokenizer(sample_vocabs, tmp_path):
    transformers = pytest.importorskip("transformers")
    tok = sample_vocabs["auto-fallback"]
    path = tmp_path / "tokenizer.json"
    save_hf(tok, path)
    fast = transformers.PreTrainedTokenizerFast(
        tokenizer_file=str(path),
        pad_token="[PAD]",
        unk_token="[UNK]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
    )
    for text in [*lines_of(SAMPLE / "mixed.txt")[:20], "ශ්‍රී ලංකා ½", "नमस्ते 😀"]:
        ids = fast(text)["input_ids"]
        assert ids == tok.encode(text)
        assert fast.decode(ids) == text
    assert fast.convert_tokens_to_ids(list(SPECIALS)) == [0, 1, 2, 3, 4]


def test_check_parity_reports_counts(sample_vocabs):
    tok = sample_vocabs["auto-unk"]
    report = check_parity(tok, ["ශ්‍රී ලංකා", "x [UNK] y", ""])
    assert report.ok and report.lines == 3


def test_to_hf_rejects_other_objects():
    with pytest.raises(TypeError, match=r"expects an sgpe\.Tokenizer"):
        to_hf("vocab.json")  # type: ignore[arg-type]


def test_export_does_not_import_tokenizers_at_import_time():
    code = "import sys, sgpe, sgpe.interop.hf, sgpe.interop.meta; print('tokenizers' in sys.modules, 'tiktoken' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


# ============================================================================ byte-level BPE


@pytest.fixture(scope="module")
def byte_tokenizers() -> dict[str, ByteBPETokenizer]:
    docs = [
        line
        for name in ("sinhala.txt", "hindi.txt", "mixed.txt")
        for line in lines_of(SAMPLE / name)
    ]
    docs += ["It's the DOG'S 'LL 'Ve café 1234567 ...  \n\n x"] * 3
    return {name: ByteBPETokenizer.train(docs, 1500, pattern=name) for name in SPLIT_PATTERNS}


@pytest.fixture(scope="module")
def byte_exports(byte_tokenizers: dict[str, ByteBPETokenizer]) -> dict[str, Any]:
    out = {name: load_hf(tok) for name, tok in byte_tokenizers.items()}
    for hf in out.values():
        hf.encode_special_tokens = True  # "<|endoftext|>" is text for ByteBPETokenizer.encode
    return out


@pytest.mark.parametrize("pattern", sorted(SPLIT_PATTERNS))
@settings(max_examples=EXAMPLES * 3 // 10)
@given(texts=st.lists(st.one_of(st.text(max_size=30), MIXED), min_size=1, max_size=6))
def test_bytebpe_parity_on_any_text(byte_tokenizers, byte_exports, pattern, texts):
    assert_parity(byte_tokenizers[pattern], byte_exports[pattern], texts)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("it's IT'S 'ſ 'K", id="case-folding"),
        pytest.param("x  \n\n  y \n", id="whitespace-lookahead"),
        pytest.param("12345 ١٢٣ ௧௨", id="digits"),
        pytest.param("\U0001fae9 \U00011f00 \U0001e4d0x", id="new-unicode-letters"),
    ],
)
@pytest.mark.parametrize("pattern", sorted(SPLIT_PATTERNS))
def test_bytebpe_split_patterns_match_the_regex_module(
    byte_tokenizers, byte_exports, pattern, text
):
    assert_parity(byte_tokenizers[pattern], byte_exports[pattern], [text + " <|endoftext|>"])


def test_bytebpe_parity_on_dev_files(shared_corpora):
    docs = (
        lines_of(shared_corpora / "si_train.txt")[:800]
        + lines_of(shared_corpora / "hi_train.txt")[:800]
    )
    tok = ByteBPETokenizer.train(docs, 2000)
    path_hf = load_hf(tok)
    for dev in ("si_dev", "hi_dev", "mixed_dev"):
        assert_parity(tok, path_hf, lines_of(shared_corpora / f"{dev}.txt"))
    document = to_hf(tok)
    assert types_in(document) <= STOCK_TYPES
    assert document["added_tokens"][0]["id"] == tok.eot_id


def test_bytebpe_duplicate_byte_strings_cannot_be_exported():
    tok = ByteBPETokenizer([(97, 98), (256, 99), (98, 99), (97, 258)])  # "abc" twice
    with pytest.raises(ExportError, match="same bytes"):
        to_hf(tok)


# ============================================================================ [CLS]/[SEP]

CLS_TEXTS = ["ශ්‍රී ලංකාව සුන්දර රටකි.", "नमस्ते दुनिया", "", "abc 😀 [UNK]"]


def test_cls_sep_post_processor_wraps_our_ids_as_seed_000_did(tmp_path: Path) -> None:
    """The original SGPE export's post-processor: TemplateProcessing [CLS] A [SEP] / [CLS] A [SEP] B [SEP]."""
    tok = sgpe.load(REPO_ROOT / "sample_data" / "vocab" / "sgpe_4k.json")
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    assert (cls, sep) == (2, 3)
    path = tmp_path / "tokenizer.json"
    save_hf(tok, path, cls_sep=True)
    hf = load_hf(path)
    hf.encode_special_tokens = True  # literal "[UNK]" is text, as in our encoder
    for text in CLS_TEXTS:
        ours = tok.encode(text)
        assert hf.encode(text).ids == [cls, *ours, sep]
        assert hf.encode(text, add_special_tokens=False).ids == ours
    a, b = CLS_TEXTS[:2]
    pair = hf.encode(a, b)
    assert pair.ids == [cls, *tok.encode(a), sep, *tok.encode(b), sep]
    assert pair.type_ids == [0] * (len(tok.encode(a)) + 2) + [1] * (len(tok.encode(b)) + 1)
    assert hf.decode(hf.encode(a).ids) == hf.decode(tok.encode(a))  # specials are skipped
    assert check_parity(tok, CLS_TEXTS, hf).ok  # parity is checked without specials
    # Without the option there is no post-processor: both ways give exactly our ids.
    assert to_hf(tok)["post_processor"] is None


def test_cls_sep_with_transformers(tmp_path: Path) -> None:
    transformers = pytest.importorskip("transformers")
    tok = sgpe.load(REPO_ROOT / "sample_data" / "vocab" / "sgpe_4k.json")
    path = tmp_path / "tokenizer.json"
    save_hf(tok, path, cls_sep=True)
    fast = transformers.PreTrainedTokenizerFast(tokenizer_file=str(path))
    text = CLS_TEXTS[0]
    assert fast(text)["input_ids"] == [2, *tok.encode(text), 3]
    assert fast(text, add_special_tokens=False)["input_ids"] == tok.encode(text)


def test_cls_sep_is_refused_where_it_cannot_apply(tmp_path: Path) -> None:
    byte = ByteBPETokenizer.train(["ab ab ab"], 259, pattern="gpt2")
    with pytest.raises(ExportError, match=r"^cls_sep: only SGPE vocabularies have \[CLS\]"):
        to_hf(byte, cls_sep=True)
    vocab = REPO_ROOT / "sample_data" / "vocab" / "sgpe_4k.json"
    out = tmp_path / "meta.json"
    cmd = [sys.executable, "-m", "sgpe", "export", "--vocab", str(vocab), "--out", str(out)]
    done = subprocess.run([*cmd, "--format", "meta", "--cls-sep"], capture_output=True, text=True)
    assert done.returncode == 2 and not out.exists()
    assert done.stderr.strip() == (
        "sgpe: error: --cls-sep: only for --format hf or hf-folder (a tokenizer.json post-processor)"
    )
    check = tmp_path / "lines.txt"
    check.write_text("\n".join(CLS_TEXTS) + "\n", encoding="utf-8")
    out = tmp_path / "tokenizer.json"
    cmd[-1] = str(out)
    done = subprocess.run(
        [*cmd, "--cls-sep", "--check", str(check)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == "parity: 4 lines, 0 mismatches"
    assert json.loads(out.read_text(encoding="utf-8"))["post_processor"]["type"] == (
        "TemplateProcessing"
    )


# sha256 of the tokenizer.json that 0.3.0 (commit acc42b8) wrote for each shipped vocabulary
# (our own writer, so no dependency version is involved).
EXPORTS_OF_0_3_0 = {
    "sgpe-4k": "8ace82c3128248e0b8627039e148ad52e3dfdf2b1f152227ce86005a00a6014e",
    "sgpe-paper-4k": "689823a9d213c8892aaab5636fb12bba9f32e28000b2f5e8f43dad023a026670",
    "bytebpe-4k": "c3c9650156022f9a74b67e6e8db6291942266f5066187addda3d7a06bdc27a87",
}


@pytest.mark.parametrize("name", sorted(EXPORTS_OF_0_3_0))
def test_shipped_exports_are_the_bytes_0_3_0_wrote(name):
    """Thai and Lao joined "auto" after 0.3.0. A fallback vocabulary without their letters
    spells their text byte by byte whatever its units, so the export leaves their grammars
    out and every earlier export stays byte-identical (the two SGPE ones grew by 8 KB of
    Thai and Lao grammar before sgpe/interop/hf_export.py's _export_syllabifier)."""
    written = to_hf_str(sgpe.load(name)).encode("utf-8")
    assert hashlib.sha256(written).hexdigest() == EXPORTS_OF_0_3_0[name]


def test_an_auto_vocabulary_with_lao_letters_exports_the_lao_grammar(shared_corpora):
    """The other side of the rule above: trained on Sinhala and Lao words, an "auto"
    vocabulary holds Lao letters, so its export carries the Lao grammar and gives our ids on
    Lao words; the shipped one (no Lao letter) carries none of it and still gives our ids
    on the same words."""
    lao = (shared_corpora / "multi" / "lo_words.txt").read_text(encoding="utf-8").split()
    sinhala = (SAMPLE / "sinhala.txt").read_text(encoding="utf-8").splitlines()
    mixed = sgpe.train(
        [*sinhala, *(" ".join(lao[k : k + 8]) for k in range(0, 4000, 8))], vocab_size=1500
    )
    words = lao[4000:4600]
    for tok, lao_grammar in ((mixed, True), (sgpe.load("sgpe-4k"), False)):
        pattern = json.dumps(to_hf(tok)["pre_tokenizer"], ensure_ascii=True)
        # U+0EB1 (MAI KAN) is a Lao vowel sign: only the Lao grammar names it.
        assert ("x{EB1}" in pattern) is lao_grammar
        report = check_parity(tok, words)
        assert report.lines == 600 and report.ok, report.mismatches[:1]


def test_only_thai_needs_more_lookahead_than_the_export_reads():
    """A fixed property of each grammar (sgpe/schema.py ``needs_deep_lookahead``); the
    export's refusal and the app's missing HF downloads follow from it, and a byte-level
    vocabulary, which has no grammar, is never refused."""
    from sgpe.interop.hf_export import deep_lookahead_scripts
    from sgpe.schema import schemas_for

    assert [s.name for s in schemas_for("auto") if s.needs_deep_lookahead] == ["thai"]
    assert deep_lookahead_scripts(sgpe.load("bytebpe-4k")) == []
    assert deep_lookahead_scripts(sgpe.load("sgpe-4k")) == []

"""Layer 1: the fast syllabifier against the original LinguisTrie loop, the DFA tables and real text."""

from __future__ import annotations

import itertools
import unicodedata

import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st

from sgpe import syllabify, syllable_spans
from sgpe._reference import reference_syllabify
from sgpe.syllables import syllabify_dfa, trace

ZWJ, HAL = "\u200d", "\u0dca"
# One or two representatives of every class (P includes the parts of two-part signs).
ALPHABET = [
    "ක",
    "ෂ",
    "අ",
    "ා",
    "\u0dd9",
    "\u0dcf",
    "\u0ddf",
    HAL,
    ZWJ,
    "ං",
    "a",
    "7",
    " ",
    "\t",
    "\n",
]
ALPHABET = list(dict.fromkeys(ALPHABET))  # U+0DCF is both "ා" and a part: keep one copy


def _strings(max_len: int):
    for n in range(max_len + 1):
        for combo in itertools.product(ALPHABET, repeat=n):
            yield "".join(combo)


@pytest.mark.parametrize("leading_space", [False, True])
def test_agrees_with_seed_000_on_every_short_string(leading_space):
    checked = 0
    for s in _strings(5):
        fast = syllabify(s, script="sinhala", leading_space=leading_space)
        ref = reference_syllabify(s, leading_space=leading_space)
        if fast != ref:
            pytest.fail(f"{s!r}: fast {fast!r} != reference {ref!r}")
        checked += 1
    assert checked == sum(len(ALPHABET) ** n for n in range(6))


@pytest.mark.slow
@pytest.mark.parametrize("leading_space", [False, True])
def test_agrees_with_seed_000_on_every_string_of_length_6(leading_space):
    for combo in itertools.product(ALPHABET, repeat=6):
        s = "".join(combo)
        assert syllabify(s, script="sinhala", leading_space=leading_space) == reference_syllabify(
            s, leading_space=leading_space
        ), s


@pytest.mark.parametrize("leading_space", [False, True])
@pytest.mark.parametrize("script", ["sinhala", "auto"])
def test_dfa_table_matches_grammar_regex_on_short_strings(script, leading_space):
    for s in _strings(4):
        assert syllabify_dfa(s, script, leading_space) == syllabify(s, script, leading_space), s


sinhala_text = st.text(
    alphabet=st.sampled_from([*ALPHABET, "ර", "ය", "ි", "ේ", "ො", "ෝ", "ඃ", "\r", "\u200c", "x"]),
    max_size=60,
)


@given(sinhala_text, st.booleans())
def test_agrees_with_seed_000_on_random_text(text, leading_space):
    assert syllabify(text, script="sinhala", leading_space=leading_space) == reference_syllabify(
        text, leading_space
    )
    assert syllabify(text, script="auto", leading_space=leading_space) == reference_syllabify(
        text, leading_space
    )


@given(st.text(), st.booleans(), st.sampled_from(["auto", "sinhala", "devanagari"]))
def test_lossless_on_any_string(text, leading_space, script):
    tokens = syllabify(text, script, leading_space)
    assert "".join(tokens) == text
    assert all(tokens)
    spans = syllable_spans(text, script, leading_space)
    assert [text[s:e] for s, e, _ in spans] == tokens


@given(sinhala_text, st.booleans())
def test_nfc_and_nfd_give_the_same_syllables(text, leading_space):
    nfc = [
        unicodedata.normalize("NFC", t)
        for t in syllabify(unicodedata.normalize("NFC", text), "sinhala", leading_space)
    ]
    nfd = [
        unicodedata.normalize("NFC", t)
        for t in syllabify(unicodedata.normalize("NFD", text), "sinhala", leading_space)
    ]
    assert nfc == nfd


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("ශ්‍රී ලංකාව", ["ශ්‍රී", " ", "ලං", "කා", "ව"], id="shri-lanka"),
        pytest.param("ප්‍රත්‍යක්ෂ", ["ප්‍ර", "ත්‍ය", "ක්ෂ"], id="pratyaksha"),
        pytest.param("ව්‍යාකරණය", ["ව්‍යා", "ක", "ර", "ණ", "ය"], id="vyakaranaya"),
        pytest.param("කුම්ජ්ද", ["කු", "ම්ජ්ද"], id="implicit-conjunct-without-zwj"),
        pytest.param("ක්‍ෂා", ["ක්‍ෂා"], id="zwj-conjunct-with-sign"),
        pytest.param("ක්‍", ["ක්‍"], id="stray-hal-zwj"),
        pytest.param("ක්‍ා", ["ක්‍ා"], id="C-H-Z-P-stays-whole"),
        pytest.param("කාා", ["කා", "ා"], id="doubled-vowel-sign"),
        pytest.param("ක්්", ["ක්", "්"], id="doubled-virama"),
        pytest.param("අං", ["අං"], id="vowel-anusvara"),
        pytest.param("\u200dක", ["\u200d", "ක"], id="bare-zwj"),
        pytest.param("ක\u0dd9\u0dca", ["ක\u0dd9\u0dca"], id="decomposed-ee"),
        pytest.param("ක\u0dd9\u0dcf\u0dca", ["ක\u0dd9\u0dcf\u0dca"], id="decomposed-oo"),
        pytest.param("\u0dd9\u0ddf", ["\u0dd9\u0ddf"], id="orphan-decomposed-au"),
        pytest.param("क्षत्रिय", ["क्ष", "त्रि", "य"], id="devanagari-conjuncts"),
        pytest.param("स्त्री", ["स्त्री"], id="devanagari-triple"),
        pytest.param("क़िला", ["क़ि", "ला"], id="devanagari-nukta-decomposed"),
        pytest.param("हँसी", ["हँ", "सी"], id="devanagari-chandrabindu"),
        pytest.param("क्‌ष", ["क्‌ष"], id="devanagari-zwnj"),
        pytest.param("", [], id="empty"),
    ],
)
def test_golden_syllables(text, expected):
    assert syllabify(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("  \t x", [" ", " ", "\t", " x"]),
        ("\t\n x", ["\t", "\n", " x"]),
        ("\t\nx", ["\t", "\n", "x"]),
        (" ක", [" ක"]),
        ("\tක", ["\t", "ක"]),
        ("ක ", ["ක", " "]),
        ("ක  ", ["ක", " ", " "]),
        (" ා", [" ා"]),
        (" \u00a0", [" \u00a0"]),
    ],
)
def test_leading_space_table(text, expected):
    """As in the original SGPE, only the last plain space of a whitespace run joins the next token."""
    assert syllabify(text, leading_space=True) == expected


def test_span_kinds():
    text = "ශ්‍රී ාx\u200d क"
    kinds = [k for _, _, k in syllable_spans(text)]
    assert kinds == [
        "syllable",
        "whitespace",
        "orphan",
        "passthrough",
        "passthrough",
        "whitespace",
        "syllable",
    ]
    assert [k for _, _, k in syllable_spans(" ා", leading_space=True)] == ["orphan"]


def test_trace_lists_class_and_state_per_character():
    rows = trace("ශ්‍රී x", leading_space=True)
    assert [(r.char, r.cls, r.state, r.token) for r in rows] == [
        ("ශ", "C", "CLUSTER", 0),
        ("්", "H", "HAL", 0),
        ("\u200d", "Z", "HAL_ZWJ", 0),
        ("ර", "C", "CLUSTER", 0),
        ("ී", "P", "VOWEL_SIGN", 0),
        (" ", "S", "LEADING_SPACE", 1),
        ("x", "O", "PASSTHROUGH", 1),
    ]
    unit = trace("ක\u0dd9\u0dca")
    assert [(r.cls, r.state) for r in unit] == [
        ("C", "CLUSTER"),
        ("P", "VOWEL_SIGN"),
        ("P", "VOWEL_SIGN"),
    ]


# ---------------------------------------------------------------- real text


def _corpus_lines(shared_corpora, name):
    with open(shared_corpora / name, encoding="utf-8") as f:
        return f.read().split("\n")


@pytest.mark.parametrize(
    "name", ["si_dev.txt", "hi_dev.txt", "mixed_dev.txt", "si_train.txt", "hi_train.txt"]
)
def test_lossless_on_every_corpus_line(shared_corpora, name):
    for line in _corpus_lines(shared_corpora, name):
        assert "".join(syllabify(line)) == line
        assert "".join(syllabify(line, leading_space=True)) == line


GRAPHEME = regex.compile(r"\X")


@pytest.mark.parametrize("name", ["si_dev.txt", "hi_dev.txt", "mixed_dev.txt"])
def test_no_boundary_inside_a_grapheme_cluster(shared_corpora, name):
    """A syllable boundary inside an extended grapheme cluster is allowed only next to an
    orphan or a single-character passthrough token (an orphan is one character, or a
    decomposed vowel sign that is canonically one character)."""
    violations = []
    for line in _corpus_lines(shared_corpora, name):
        spans = syllable_spans(line)
        inside = set()
        for m in GRAPHEME.finditer(line):
            inside.update(range(m.start() + 1, m.end()))
        for left, right in itertools.pairwise(spans):
            cut = left.end
            if cut not in inside:
                continue

            def excused(span):
                return span.kind == "orphan" or (
                    span.kind in ("passthrough", "whitespace") and span.end - span.start == 1
                )

            if not (excused(left) or excused(right)):
                violations.append((line[left.start : right.end], left, right))
    assert violations == []


@pytest.mark.parametrize("name", ["si_dev.txt", "hi_dev.txt", "mixed_dev.txt"])
def test_dfa_matcher_matches_regex_on_real_text(shared_corpora, name):
    lines = _corpus_lines(shared_corpora, name)[:400]
    for line in lines:
        assert syllabify_dfa(line, leading_space=True) == syllabify(line, leading_space=True)

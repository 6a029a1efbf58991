"""Every Brahmic schema: generated from Unicode data, grammar and DFA alike, lossless, NFC =
NFD, the per-script rules on example words, and mixed-script text."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sgpe import syllabify, syllable_spans
from sgpe.schema import BUILTIN_SCRIPTS, load_schema
from sgpe.syllables import syllabify_dfa, trace

REPO_ROOT = Path(__file__).resolve().parents[1]
GENERATED = [s for s in BUILTIN_SCRIPTS if s not in ("sinhala", "devanagari")]


def test_committed_schemas_equal_the_generator_output():
    result = subprocess.run(
        [sys.executable, "scripts/gen_schemas.py", "--check"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("script", GENERATED)
def test_generated_schema_records_its_unicode_version(script):
    path = REPO_ROOT / "sgpe" / "schemas" / f"{script}.json"
    generated = json.loads(path.read_text(encoding="utf-8"))["generated"]
    assert generated["unicode_version"] == "17.0"
    assert generated["by"] == "scripts/gen_schemas.py"


def _representatives(script: str) -> list[str]:
    """One member of every class, every unit, ZWJ, ZWNJ, a space and a Latin letter."""
    schema = load_schema(script)
    reps = [min(chars) for chars in schema.classes.values()]
    reps += [u.sequence for u in schema.units]
    return sorted(set(reps) | {"\u200c", "\u200d", " ", "a"})


@pytest.mark.parametrize("script", BUILTIN_SCRIPTS)
def test_dfa_table_and_grammar_regex_agree_on_every_short_string(script):
    reps = _representatives(script)
    for n in range(1, 4):
        for combo in itertools.product(reps, repeat=n):
            s = "".join(combo)
            for ls in (False, True):
                assert syllabify_dfa(s, script, ls) == syllabify(s, script, ls), (script, s)
                assert syllabify_dfa(s, "auto", ls) == syllabify(s, "auto", ls), (script, s)


def _reorders(text: str) -> bool:
    """Does NFD move a mark past another character's marks (canonical reordering)?

    It does only after a sign that decomposes (ై + ్ becomes ె + ్ + ౖ: a sign after a
    sign, which no grammar accepts) or for a Vedic accent on a Devanagari nukta letter
    (ऱ + U+1CE2 becomes र + U+1CE2 + ़); docs/scripts.md lists both.
    """
    one_by_one = "".join(unicodedata.normalize("NFD", ch) for ch in text)
    return unicodedata.normalize("NFD", text) != one_by_one or _doubled_nukta(text)


def _doubled_nukta(text: str) -> bool:
    """A second nukta after a letter that has one built in (ऱ + ़, ill-formed): NFC keeps
    the letter whole and the nukta joins it, NFD has two nuktas and the second is orphan."""
    nfd = unicodedata.normalize("NFD", text)
    return "\u093c\u093c" in nfd and "\u093c\u093c" not in text


def _block_text(script: str):
    """Random strings over a script's whole repertoire (every class member and unit) with
    joiners, spaces, newlines and a little Latin."""
    schema = load_schema(script)
    alphabet = sorted(schema.code_points) + [u.sequence for u in schema.units]
    alphabet += [" ", " ", "\n", "\t", "a", "\u200c", "\u200d"]
    return st.lists(st.sampled_from(alphabet), max_size=40).map("".join)


def _nfc_tokens(text: str, script: str, ls: bool) -> list[str]:
    return [unicodedata.normalize("NFC", t) for t in syllabify(text, script, ls)]


def test_nfd_reordering_is_rare_in_real_spelling():
    assert _reorders("ై్") and _reorders("ऱ\u1ce2") and _reorders("ऱ\u093c")
    assert not any(map(_reorders, ["కై", "ಕೋಂ", "কৌ", "கொ", "ക്കൊ", "ऱि", "ශ්‍රී"]))


@pytest.mark.parametrize("script", BUILTIN_SCRIPTS)
def test_lossless_and_nfc_nfd_alike_on_random_strings(script):
    @given(_block_text(script), st.booleans())
    def check(text, ls):
        for mode in (script, "auto"):
            tokens = syllabify(text, mode, ls)
            assert "".join(tokens) == text
            assert [text[s:e] for s, e, _ in syllable_spans(text, mode, ls)] == tokens
        if not _reorders(text):
            nfc = _nfc_tokens(unicodedata.normalize("NFC", text), script, ls)
            nfd = _nfc_tokens(unicodedata.normalize("NFD", text), script, ls)
            assert nfc == nfd

    check()


@given(
    st.lists(
        st.sampled_from(
            ["அம்மா", "অ্যাপ", "ਪੱਕਾ", "ક્ષમા", "କୋଣ", "కృష్ణ", "ಕನ್ನಡ", "അവൻ", "हिन्दी", "ශ්‍රී", "x"]
        ),
        min_size=1,
        max_size=12,
    ).map(" ".join),
    st.booleans(),
)
def test_mixed_script_text_syllabifies_each_run_with_its_own_schema(text, ls):
    """Auto gives exactly what each word gets from its own script's schema alone."""
    expected: list[str] = []
    for k, word in enumerate(text.split(" ")):
        script = next((s for s in BUILTIN_SCRIPTS if word[0] in load_schema(s).word_chars), None)
        piece = " " + word if k and ls else word
        if k and not ls:
            expected.append(" ")
        expected += syllabify(piece, script or "sinhala", ls)
    assert syllabify(text, "auto", ls) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Tamil: the pulli ends the syllable, no conjuncts ...
        pytest.param("அம்மா", ["அ", "ம்", "மா"], id="tamil-pulli"),
        pytest.param("தமிழ்", ["த", "மி", "ழ்"], id="tamil-final-pulli"),
        # ... except the letters க்ஷ and ஸ்ர (ஸ்ரீ)
        pytest.param("க்ஷேத்திரம்", ["க்ஷே", "த்", "தி", "ர", "ம்"], id="tamil-ksha"),
        pytest.param("ஸ்ரீலங்கா", ["ஸ்ரீ", "ல", "ங்", "கா"], id="tamil-shri"),
        pytest.param("கொ", ["கொ"], id="tamil-two-part-o-decomposed"),
        # Bengali: reph and ya-phala are conjuncts, a ya-phala on a vowel stays with it
        pytest.param("র্ক", ["র্ক"], id="bengali-reph"),
        pytest.param("অ্যাপ", ["অ্যা", "প"], id="bengali-ya-phala-on-vowel"),
        pytest.param("উৎসব", ["উ", "ৎ", "স", "ব"], id="bengali-khanda-ta"),
        pytest.param("কো", ["কো"], id="bengali-o-decomposed"),
        # Gurmukhi: addak and tippi belong to the syllable they sit on; subjoined ra
        pytest.param("ਪੱਕਾ", ["ਪੱ", "ਕਾ"], id="gurmukhi-addak"),
        pytest.param("ਸੰਤ", ["ਸੰ", "ਤ"], id="gurmukhi-tippi"),
        pytest.param("ਪ੍ਰੇਮ", ["ਪ੍ਰੇ", "ਮ"], id="gurmukhi-subjoined-ra"),
        pytest.param("ਨੋੁ", ["ਨੋੁ"], id="gurmukhi-two-vowel-signs"),
        pytest.param("ਖ਼ਬਰ", ["ਖ਼", "ਬ", "ਰ"], id="gurmukhi-nukta-decomposed"),
        pytest.param("સ્ત્રી", ["સ્ત્રી"], id="gujarati-triple-conjunct"),
        pytest.param("ଡ଼ାକ୍ତର", ["ଡ଼ା", "କ୍ତ", "ର"], id="odia-nukta-conjunct"),
        pytest.param("କୋଣ", ["କୋ", "ଣ"], id="odia-o-decomposed"),
        pytest.param("కృష్ణ", ["కృ", "ష్ణ"], id="telugu-conjunct"),
        pytest.param("కై", ["కై"], id="telugu-ai-decomposed"),
        # Kannada: ZWJ after the virama keeps the conjunct, ZWNJ ends the syllable
        pytest.param("ಕನ್ನಡ", ["ಕ", "ನ್ನ", "ಡ"], id="kannada-conjunct"),
        pytest.param("ಕ್\u200dಷ", ["ಕ್\u200dಷ"], id="kannada-zwj"),
        pytest.param("ಕ್\u200cಷ", ["ಕ್\u200c", "ಷ"], id="kannada-zwnj"),
        pytest.param("ಕೋ", ["ಕೋ"], id="kannada-oo-decomposed"),
        # Malayalam: chillu alone, dot reph with its consonant, samvruthokaram
        pytest.param("അവൻ", ["അ", "വ", "ൻ"], id="malayalam-chillu"),
        pytest.param("ൎയ", ["ൎയ"], id="malayalam-dot-reph"),
        pytest.param("അതു്", ["അ", "തു്"], id="malayalam-samvruthokaram"),
        pytest.param("മലയാളം", ["മ", "ല", "യാ", "ളം"], id="malayalam-anusvara"),
        pytest.param("ന്\u200dറെ", ["ന്\u200dറെ"], id="malayalam-old-chillu-conjunct"),
    ],
)
def test_rules_on_example_words(text, expected):
    assert syllabify(text) == expected


def test_trace_names_the_script_and_states():
    rows = trace("ൎയ ক")
    assert [(r.char, r.cls, r.state, r.script) for r in rows] == [
        ("ൎ", "R", "REPHA", "malayalam"),
        ("യ", "C", "CONSONANT", "malayalam"),
        (" ", "W", "WHITESPACE", None),
        ("ক", "C", "CONSONANT", "bengali"),
    ]

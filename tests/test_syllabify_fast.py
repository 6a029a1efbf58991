"""The fast syllabifier (its word memory) against the plain grammar regex.

``Syllabifier._findall`` is the reference: the grammar regex over the whole text. Every
faster path of ``Syllabifier.__call__`` must give exactly its tokens, on a fresh
syllabifier (new words matched in one batch) and again with every word known.
"""

from __future__ import annotations

import pytest
from conftest import python_syllabifier
from hypothesis import given
from hypothesis import strategies as st

from sgpe import syllables
from sgpe.schema import BUILTIN_SCRIPTS, load_schema, parse_schema_text
from sgpe.syllables import Syllabifier, get_syllabifier

SCRIPTS = ("auto", *BUILTIN_SCRIPTS)
# Characters every script's text meets besides its own: spaces and the other whitespace,
# a no-break space, Latin, digits, punctuation, control characters, and
# code points above every schema's (an emoji, a lone surrogate, the last code point).
COMMON = [" ", " ", " ", "\t", "\n", "\r", "\xa0", "\u3000", "a", "7", ".", "\x00", "\x01"]
COMMON += ["\U0001f600", "\ud83d", "\U0010ffff", "\uffff"]


def test_short_and_long_texts_give_the_regex_tokens(shared_corpora):
    text = (shared_corpora / "si_dev.txt").read_text(encoding="utf-8")[:20_000]
    short = " ".join(text.split()[:40])
    for sample in (short, text):
        # The Python engine's own paths (a long text would otherwise go native).
        syl = python_syllabifier("auto", True)
        assert syl(sample) == syl._findall(sample)
        assert syl(sample) == syl._findall(sample)  # every word known


def _repertoire(name: str) -> list[str]:
    """Every character a schema classifies, its units, and the joiners."""
    schema = load_schema(name)
    return sorted(schema.code_points) + [u.sequence for u in schema.units]


REPERTOIRE = {name: _repertoire(name) for name in BUILTIN_SCRIPTS}
EVERY = sorted({c for chars in REPERTOIRE.values() for c in chars})


def _one_script_text() -> st.SearchStrategy[str]:
    return st.sampled_from(BUILTIN_SCRIPTS).flatmap(
        lambda name: st.lists(st.sampled_from(REPERTOIRE[name] + COMMON), max_size=80).map("".join)
    )


mixed_text = st.lists(st.sampled_from(EVERY + COMMON), max_size=80).map("".join)


def _check(syl: Syllabifier, text: str) -> None:
    expected = syl._findall(text)
    assert syl.match(text) == expected  # the regex alone, whatever the word memory holds
    assert syl(text) == expected  # new words
    assert syl(text) == expected  # every word known


@given(st.one_of(_one_script_text(), mixed_text), st.booleans(), st.sampled_from(SCRIPTS))
def test_fast_path_equals_grammar_regex_on_random_text(text, leading_space, script):
    _check(Syllabifier(script, leading_space), text)


@given(st.lists(st.one_of(_one_script_text(), mixed_text), max_size=6), st.booleans())
def test_one_syllabifier_over_many_texts(texts, leading_space):
    """Words learnt from one text serve the next (the cache is shared between calls)."""
    syl = Syllabifier("auto", leading_space)
    for text in texts:
        _check(syl, text)


@pytest.mark.parametrize("leading_space", [False, True])
def test_word_memory_gives_the_regex_tokens_on_real_text(shared_corpora, leading_space):
    """On each script's real text: the whole call, with new words and with known ones, equals
    the regex."""
    from sgpe.oracles import CORPUS_FILES, corpus_lines

    files = {name for names in CORPUS_FILES.values() for name in names}
    files |= {f"multi/{p.name}" for p in (shared_corpora / "multi").glob("*.txt")}
    files |= {"mixed_dev.txt"}
    for name in sorted(files):
        with open(shared_corpora / name, encoding="utf-8") as f:
            text = f.read(300_000)
        syl = python_syllabifier("auto", leading_space)
        assert syl(text) == syl._findall(text), name
        assert syl(text) == syl._findall(text), name
    for script in BUILTIN_SCRIPTS:  # one script's own syllabifier on its own text
        text = "\n".join(corpus_lines(shared_corpora, script)[:300])
        _check(Syllabifier(script, leading_space), text)


def test_word_memory_is_bounded(monkeypatch):
    monkeypatch.setattr(syllables, "_CACHE_LIMIT", 50)
    monkeypatch.setattr(syllables, "_KEY_LIMIT", 12)
    syl = python_syllabifier("auto", leading_space=True)  # its word memory
    small = " ".join(f"ලං{i}කා" for i in range(30))
    many = " ".join([f"ලං{i}කා" for i in range(120)] + ["ක" * 30, "a" * 13, "b\nc"])
    for text in [small, small, many, many, small, many + "\n" + small]:
        expected = syl._findall(text)
        assert syl(text) == expected
        assert 0 < len(syl._words) <= 50
        assert all(len(p) <= 12 for p in syl._words)
    assert syl(small) == syl._findall(small)
    assert set(small.split(" ")[1:]) <= set(syl._words)  # what a call learns, it keeps


def _schema_with(grammar: dict[str, str]) -> Syllabifier:
    import json
    from importlib import resources

    data = json.loads(resources.files("sgpe.schemas").joinpath("sinhala.json").read_text("utf-8"))
    data["grammar"] = grammar
    schema = parse_schema_text(json.dumps(data), "custom.json")
    return Syllabifier(schemas=(schema,))


@given(st.lists(st.sampled_from(REPERTOIRE["sinhala"] + COMMON), max_size=40).map("".join))
def test_a_linguists_own_grammar_keeps_the_regex_tokens(text):
    """Lazy quantifiers and nested groups, as a user's schema may write them."""
    syl = _schema_with({"syllable": "C(?:HZ?C)*?(?:H|P+)??M*|V(?:M|H)*", "orphan": "P|H|M|Z"})
    _check(syl, text)


def test_a_grammar_that_matches_nothing_is_left_to_the_regex():
    syl = _schema_with({"syllable": "C*", "orphan": "P|H|M"})
    for text in ["", "ක ක", "ා a ක්ක", "  x"]:
        _check(syl, text)


def test_the_shared_syllabifier_gives_the_regex_tokens_after_other_texts():
    syl = get_syllabifier("auto", True)
    for text in ["ශ්‍රී ලංකාව", "क्षत्रिय नमस्ते\nশ্রী", "ශ්‍රී\tලංකාව  \n "]:
        _check(syl, text)


def test_learned_words_give_the_regex_tokens(shared_corpora):
    """``learn`` matches the new words of many texts at once (encode_batch's first step);
    calls afterwards find them known and give the regex's tokens, and it keeps to the word
    memory's limits (a part too long to remember is left to the call)."""
    with open(shared_corpora / "si_dev.txt", encoding="utf-8") as f:
        lines = [next(f).rstrip("\n") for _ in range(300)]
    with open(shared_corpora / "hi_dev.txt", encoding="utf-8") as f:
        lines += [next(f).rstrip("\n") for _ in range(100)]
    long_part = "ක" * (syllables._KEY_LIMIT + 1)
    texts = [" " + x for x in lines] + [f"a {long_part} b", "x  y", ""]
    syl = Syllabifier("auto", leading_space=True)
    syl.learn(texts)
    known = set(syl._words)
    expected_known = {p for t in texts for p in t.split(" ")[1:] if len(p) <= syllables._KEY_LIMIT}
    assert known == expected_known and long_part not in known
    for text in texts:
        assert syl(text) == syl._findall(text)
    assert set(syl._words) == known  # every call was a lookup: nothing new to learn


def test_learning_past_the_word_memory_starts_it_afresh(monkeypatch):
    monkeypatch.setattr(syllables, "_CACHE_LIMIT", 50)
    syl = Syllabifier("auto", leading_space=True)
    syl.learn([f" ලං{i}කා" for i in range(40)])
    assert len(syl._words) == 40
    syl.learn([f" ක{i}" for i in range(30)])  # 40 + 30 > 50: only the new 30 are kept
    assert set(syl._words) == {f"ක{i}" for i in range(30)}
    syl.learn([f" ර{i}" for i in range(80)])  # more than the limit at once: 50 of them
    assert len(syl._words) == 50
    for i in (0, 79):
        assert syl(f" ර{i}") == syl._findall(f" ර{i}")


def test_match_leaves_the_word_memory_alone(shared_corpora):
    """``match`` is for texts met once (a vocabulary's merges): it gives the call's tokens
    and remembers nothing."""
    with open(shared_corpora / "si_dev.txt", encoding="utf-8") as f:
        lines = [next(f).rstrip("\n") for _ in range(200)]
    syl = Syllabifier("auto", leading_space=True)
    got = [syl.match(" " + x) for x in lines]
    assert not syl._words and not syl._heads
    assert got == [syl(" " + x) for x in lines]
    assert sum(map(len, got)) > 5_000

"""The native piece counter (``sgpe._native.PieceCounter``) and the native
``corpus_units`` (``sgpe._native.corpus_units``) against the Python engine.

``count_pieces`` under both engines must give the same ``Counter`` with the same items in
the same order (the order of first occurrence, which the trainer's numbering follows),
the same ``CorpusInfo``, and the same ``CorpusError`` for a bad file. Inputs: the real
corpora (si_train and hi_train whole, the first lines of every ``multi/`` file), every
``pieces=`` setting, text without spaces, and hypothesis documents made of Python's
whitespace (``\\s`` and ``str.split`` know U+001C..U+001F, which Rust's
``char::is_whitespace`` does not), script letters, line breaks, CRLF and lone surrogates,
counted as documents and as a file cut into tiny blocks. ``corpus_units`` of the same
counts must give the same ``CorpusUnits`` (unit types and their numbering, weights, coded
pieces and their order), so the merge loop starts from the same state.
"""

from __future__ import annotations

from collections import Counter
from itertools import islice
from pathlib import Path
from typing import Any

import pytest
from conftest import engine_set_to, require_native_core
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sgpe.corpus.counting import count_jobs, count_jobs_native, count_pieces
from sgpe.corpus.readers import CorpusError, CorpusStream
from sgpe.hierarchical import CorpusUnits, corpus_units, split_spans
from sgpe.pieces import get_word_splitter
from sgpe.schema import BUILTIN_SCRIPTS, load_schema
from sgpe.settings import CountOptions, TrainSettings

require_native_core()

MULTI = ["bn", "gu", "km", "kn", "ml", "mr", "my", "ne", "or", "pa", "ta", "te"]
# Every way of cutting pieces the trainer has (superword spans need whitespace pieces and
# the leading space).
PIECE_SETTINGS: list[dict[str, Any]] = [
    {},
    {"leading_space": False},
    {"pieces": "script"},
    {"pieces": "script", "leading_space": False},
    {"prepend_space": False},
    {"pieces": "script", "prepend_space": False},
    {"superwords_from": 1000},
    {"superwords_from": 1000, "prepend_space": True, "max_piece_units": 3},
    {"max_piece_units": 2},
]


def _count(corpus: Any, name: str, capped: bool = False, **kw: Any) -> Any:
    with engine_set_to(name):
        counts, info = count_pieces(
            corpus, TrainSettings(**kw), CountOptions(workers=1), capped=capped
        )
    return list(counts.items()), info


def _assert_same(corpus: Any, capped: bool = False, **kw: Any) -> list[tuple[str, int]]:
    python = _count(corpus, "python", capped, **kw)
    native = _count(corpus, "native", capped, **kw)
    if python != native:  # name the first difference, not two huge lists
        assert python[1] == native[1]
        for k, (a, b) in enumerate(zip(python[0], native[0])):
            assert a == b, f"piece {k} differs"
        assert len(python[0]) == len(native[0])
    items: list[tuple[str, int]] = python[0]
    return items


def _assert_same_units(counts: Counter[str] | list[tuple[str, int]], **kw: Any) -> CorpusUnits:
    s = TrainSettings(**kw)
    splitter = get_word_splitter(s.script, s.leading_space, s.pieces, s.max_piece_units)
    native_units = splitter.native_units()
    assert native_units is not None
    table = Counter(dict(counts))
    python = corpus_units(table, splitter.match_units, splitter.max_units)
    native = corpus_units(table, splitter.match_units, splitter.max_units, native=native_units)
    assert native.units == python.units
    assert native.weight == python.weight
    assert native.coded == python.coded
    assert native.counts == python.counts
    return python


def _errors(corpus: Any, **kw: Any) -> tuple[str, str]:
    found = []
    for name in ("python", "native"):
        with pytest.raises(CorpusError) as err:
            _count(corpus, name, **kw)
        found.append(str(err.value))
    return found[0], found[1]


@pytest.mark.parametrize("name", ["si_train.txt", "hi_train.txt"])
def test_training_corpora_count_identically(shared_corpora: Path, name: str) -> None:
    items = _assert_same(shared_corpora / name)
    assert len(items) > 10_000
    units = _assert_same_units(items)
    assert len(units.units) > 2000


@pytest.mark.parametrize("kw", PIECE_SETTINGS, ids=repr)
def test_every_piece_setting(shared_corpora: Path, tmp_path: Path, kw: dict[str, Any]) -> None:
    lines = []
    for name in ("hi_train.txt", "si_train.txt", "mixed_dev.txt"):
        with open(shared_corpora / name, encoding="utf-8") as f:
            lines += list(islice(f, 2000))
    corpus = tmp_path / "mixed.txt"
    corpus.write_text("".join(lines), encoding="utf-8")
    items = _assert_same(corpus, **kw)
    _assert_same(corpus, capped=True, **kw)
    _assert_same([line.rstrip("\n") for line in lines], **kw)  # documents, not a file
    if "superwords_from" in kw:  # the trainer cuts the span keys into pieces first
        s = TrainSettings(**kw)
        splitter = get_word_splitter(s.script, s.leading_space, s.pieces, s.max_piece_units)
        items = list(split_spans(Counter(dict(items)), splitter.raw_pieces)[0].items())
    _assert_same_units(items, **kw)


@pytest.mark.parametrize("lang", MULTI)
def test_multi_languages(shared_corpora: Path, tmp_path: Path, lang: str) -> None:
    with open(shared_corpora / "multi" / f"{lang}.txt", encoding="utf-8") as f:
        head = "".join(islice(f, 3000))
    corpus = tmp_path / f"{lang}.txt"
    corpus.write_text(head, encoding="utf-8")
    _assert_same_units(_assert_same(corpus))
    _assert_same(corpus, superwords_from=1000, prepend_space=True)
    _assert_same_units(_assert_same(corpus, pieces="script", capped=True), pieces="script")


def test_text_without_spaces(shared_corpora: Path, tmp_path: Path) -> None:
    with open(shared_corpora / "si_train.txt", encoding="utf-8") as f:
        text = "".join(islice(f, 1000)).replace(" ", "")
    corpus = tmp_path / "nospace.txt"
    corpus.write_text(text, encoding="utf-8")
    items = _assert_same(corpus, capped=True)
    assert max(len(p) for p, _ in items) > 128  # long pieces, cut by units
    uncapped = _assert_same(corpus)
    units = _assert_same_units(uncapped)  # cut while coded (_cut)
    assert max(map(len, units.coded)) == 128
    _assert_same_units(uncapped, max_piece_units=3)


# ---------------------------------------------------------------------------- generated

# Python's whitespace (re's \s on str, str.isspace, str.split), line breaks of every kind.
PY_SPACE = [
    *"\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680",
    *(chr(c) for c in range(0x2000, 0x200B)),
    *"\u2028\u2029\u202f\u205f\u3000",
]
_LETTERS = sorted({c for s in BUILTIN_SCRIPTS for c in load_schema(s).word_chars})
_PIECE_CHAR = st.one_of(
    st.sampled_from(PY_SPACE),
    st.sampled_from([*_LETTERS, "\u200b", "\r\n", "  ", "a", "1", ",", " ", " "]),
    st.characters(blacklist_categories=("Cs",)),
)
documents = st.lists(st.lists(_PIECE_CHAR, max_size=60).map("".join), max_size=12)


def test_python_whitespace_is_what_the_splitter_knows() -> None:
    import re

    every = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    assert [c for c in every if re.match(r"\s", c)] == PY_SPACE
    assert [c for c in every if c.isspace()] == PY_SPACE
    splitter = get_word_splitter("auto", False)
    native = splitter.native_counter()
    assert native is not None
    for c in every[:0x4000]:  # every whitespace is below U+4000
        assert native.pieces(f"a{c}b") == splitter.pieces(f"a{c}b"), hex(ord(c))


def _stream_counts(docs: list[str], path: Path, kw: dict[str, Any], block: int) -> list[Any]:
    """The file of ``docs``, read in blocks of ``block`` bytes, counted by both engines'
    job counters (segments cut at line breaks and before plain spaces)."""
    path.write_text("\n".join(docs), encoding="utf-8", newline="")
    s = TrainSettings(**kw)
    splitter = get_word_splitter(
        s.script, s.leading_space, s.pieces, s.max_piece_units, s.superwords_from is not None
    )
    prefix = " " if s.prepend_space else ""
    out = []
    for native in (None, splitter.native_counter(prefix)):
        stream = CorpusStream(path, prefix=prefix, block=block)
        if native is None:
            counts, chars, text = count_jobs(stream.jobs(), splitter.pattern, prefix, 1)
        else:
            counts, chars, text = count_jobs_native(stream.jobs(), native, splitter.pattern, prefix)
        out.append((list(counts.items()), chars, text))
    return out


@settings(max_examples=150, deadline=None)
@given(documents, st.sampled_from(PIECE_SETTINGS), st.sampled_from([3, 16, 1 << 21]))
@example(["\x1c\x1fක \u2028a\r", "", " \x85 b", "\u3000\u3000"], {}, 3)
@example(["කා කා කා  කා\tකා කා,කා"], {"superwords_from": 1000}, 5)
def test_generated_documents_and_files(
    tmp_path_factory: pytest.TempPathFactory, docs: list[str], kw: dict[str, Any], block: int
) -> None:
    python, native = _stream_counts(docs, tmp_path_factory.mktemp("g") / "c.txt", kw, block)
    assert python == native
    if "superwords_from" not in kw:
        _assert_same_units(python[0], **kw)
    if any(d.strip() for d in docs):
        _assert_same(docs, **kw)


@given(st.lists(st.text(max_size=30), min_size=1, max_size=6), st.booleans())
@example(["ok ක", "\ud800 x", "y"], True)
def test_lone_surrogates_in_documents(docs: list[str], leading: bool) -> None:
    """A document holding a lone surrogate (which UTF-8 cannot hold) is rejected by the
    reader under both engines with the same UnicodeEncodeError; other documents count
    identically."""
    found = []
    for name in ("python", "native"):
        try:
            found.append(_count(docs, name, leading_space=leading))
        except (UnicodeEncodeError, CorpusError) as err:
            found.append((type(err), str(err)))
    assert found[0] == found[1]
    if any(0xD800 <= ord(c) <= 0xDFFF for d in docs for c in d):
        assert found[0][0] is UnicodeEncodeError


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.text(min_size=1, max_size=40), st.integers(1, 1 << 40)), max_size=30),
    st.sampled_from(PIECE_SETTINGS[:4]),
)
@example([("\ud800 x", 2), (" ක", 1)], {})
@example([(" a", 1), ("\n\n", 2), (" \x0b", 3), ("\r", 1), (" ", 4)], {})
def test_units_of_any_counts(pairs: list[tuple[str, int]], kw: dict[str, Any]) -> None:
    """Any table of counts (a counts file may hold any pieces, lone surrogates included:
    the native side declines those and Python codes them)."""
    _assert_same_units(list(dict(pairs).items()), **kw)


def test_huge_piece_and_crlf(tmp_path: Path) -> None:
    corpus = tmp_path / "huge.txt"
    corpus.write_bytes(("ක්" * 300_000 + "\r\n" + "අ ආ\r\n\r\n" * 5).encode())
    _assert_same(corpus, capped=True)
    _assert_same(corpus, prepend_space=True)


# ---------------------------------------------------------------------------- bad files


def test_bad_files_give_the_same_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_bytes("ශ්‍රී ලංකාව\nok ".encode() + b"x" * 3000 + b" \xff\xfe y\n")
    python, native = _errors(bad)
    assert python == native
    assert "line 2, byte 3005: not valid UTF-8" in python
    surrogate = tmp_path / "surrogate.txt"
    surrogate.write_bytes(b"a\n\xed\xa0\x80\n")  # a lone surrogate in UTF-8 form
    python, native = _errors(surrogate)
    assert python == native
    assert "line 2, byte 1: not valid UTF-8" in python
    empty = tmp_path / "empty.txt"
    empty.write_text("\n \t\u3000\x1c\n", encoding="utf-8")
    python, native = _errors(empty)
    assert python == native
    assert "the corpus is empty" in python
    long = tmp_path / "long.txt"
    long.write_text("ok\n" + "x" * (3 << 20) + "\n", encoding="utf-8")
    for name in ("python", "native"):
        options = CountOptions(workers=1, max_line_bytes=1 << 20)
        with (
            engine_set_to(name),
            pytest.raises(CorpusError, match="line 2: more than 1,048,576 bytes"),
        ):
            count_pieces(long, TrainSettings(), options)


def test_counts_are_a_counter_in_first_occurrence_order(tmp_path: Path) -> None:
    corpus = tmp_path / "order.txt"
    corpus.write_text("b a b\nc a\n", encoding="utf-8")
    with engine_set_to("native"):
        counts, info = count_pieces(corpus, TrainSettings(), CountOptions(), capped=False)
    assert isinstance(counts, Counter)
    assert list(counts.items()) == [(" b", 2), (" a", 2), ("\n", 2), (" c", 1)]
    assert (info.documents, info.characters) == (2, 10)


def test_take_into_adds_to_a_table_that_holds_counts() -> None:
    counter = get_word_splitter("auto", True).native_counter(" ")
    assert counter is not None
    assert counter.feed_segment(b"b a\nb\n", True)
    assert not counter.feed_segment(b"\xff", True)  # not UTF-8: nothing counted
    counter.feed_text(" a c\n")
    table: Counter[str] = Counter({" c": 5, "z": 1})
    counter.take_into(table)
    assert list(table.items()) == [(" c", 6), ("z", 1), (" b", 2), (" a", 2), ("\n", 3)]
    assert (counter.chars, counter.any_text) == (6, True)
    empty: Counter[str] = Counter()
    counter.take_into(empty)  # taken: the counter starts anew
    assert not empty

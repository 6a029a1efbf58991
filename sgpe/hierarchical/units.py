"""The corpus as units: every distinct piece split into units and coded, and the merge
loop's initial state (sgpe/hierarchical/__init__.py explains the two levels)."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from .._engine import dispatch
from .rules import _BARRIER, _FIRST_PLACEHOLDER, unit_joinable


@dataclass
class SuperwordSpans:
    """The superword spans of a corpus (:func:`sgpe.pieces.span_regex`), for the merge
    loop's transition: each distinct span as the indexes of its words (pieces) in the
    state's words, and how often the span occurs."""

    words: list[list[int]]
    counts: list[int]
    #: The transition: once the vocabulary holds this many symbols (special tokens not
    #: counted), merges may join whole syllables across a space inside a span.
    from_symbols: int


def split_spans(
    counts: Counter[str], raw_pieces: Callable[[str], list[str]]
) -> tuple[Counter[str], Counter[str]]:
    """A count table made with superword spans (:func:`sgpe.pieces.is_span` keys) as the
    piece counts of the same corpus, and the span counts. ``raw_pieces`` cuts a span into
    its pieces (the piece regex without spans): every word inside a span is counted as a
    piece too, so the merges before the transition are exactly those without superwords."""
    pieces: Counter[str] = Counter()
    spans: Counter[str] = Counter()
    by_count: defaultdict[int, list[str]] = defaultdict(list)
    for key, c in counts.items():
        if " " in key[1:]:
            spans[key] = c
            by_count[c].append(key)
        else:
            pieces[key] += c
    # The spans of each count cut in one call, joined by line breaks (each a piece of its
    # own, taken off again): most spans occur once, so there are few calls.
    for c, group in by_count.items():
        found = Counter(raw_pieces("\n".join(group)))
        found["\n"] -= len(group) - 1
        for p, n in found.items():
            if n:
                pieces[p] += n * c
    return pieces, spans


def code_spans(
    cu: CorpusUnits,
    span_counts: Counter[str],
    units_of: Callable[[str], list[str]],
    from_symbols: int,
) -> SuperwordSpans:
    """Each span as the indexes of its words in ``cu.coded`` (its words are pieces of the
    corpus, counted in ``cu``: :func:`split_spans`). The spans are syllabified in groups
    joined by line breaks, as :func:`corpus_units` does with pieces."""
    # Each unit's code, after _SEP when it starts a word (its leading space), and the line
    # breaks between spans as _BARRIER (never a unit's code): then a group of spans is
    # coded, cut into spans and words, and looked up at C speed, as corpus_units does.
    spaced = {
        u: (_SEP if u[0] == " " else "") + chr(_FIRST_PLACEHOLDER + k)
        for k, u in enumerate(cu.units)
    }
    spaced["\n"] = _BARRIER
    index = {w: i for i, w in enumerate(cu.coded)}.__getitem__
    spans = list(span_counts)
    words: list[list[int]] = []
    for group in _groups(spans):
        coded = "".join(map(spaced.__getitem__, units_of("\n".join(group))))
        for span in coded.split(_BARRIER):
            words.append(list(map(index, filter(None, span.split(_SEP)))))
    if len(words) != len(spans):
        raise RuntimeError("the syllabifier did not keep the spans apart")
    return SuperwordSpans(words, [span_counts[x] for x in spans], from_symbols)


@dataclass
class HierarchicalState:
    """Both levels of the merge loop's state (see the module docstring)."""

    symbols: list[str]
    symbol_id: dict[str, int]
    unit_strings: list[str]  # unit types, as CorpusUnits.units orders them
    unit_parts: list[str]  # symbol-id strings, one per unit type
    unit_weight: list[int]  # occurrences of the unit in the corpus
    unit_joinable: list[bool]  # may take part in join merges (not an orphan, fully known)
    words: list[str]  # level-2 strings (symbol ids and placeholders)
    counts: list[int]
    # Placeholder -> symbol for the unit types that are one symbol from the start; the
    # engine applies it to the words (as str.translate, or to the array word level's ids).
    translation: dict[int, str] = field(default_factory=dict)
    merges: list[tuple[int, int, int]] = field(default_factory=list)  # (left, right, kind code)


# Pieces are coded one character per unit type (unit k is chr(_FIRST_PLACEHOLDER + k), its
# placeholder) and separated by _SEP, which is above every placeholder; then a whole corpus
# of pieces is split, counted and mapped with str and Counter methods, at C speed.
_SEP = "\U0010ffff"
# A plain space and a word (no space or line break in it).
_SPACED_WORD = re.compile("[ ][^ \t\n\r][^ \n]*").fullmatch


@dataclass
class CorpusUnits:
    """The corpus as units: every distinct piece as a string of unit codes."""

    units: list[str]  # unit types (as the syllabifier emitted them), by first appearance
    weight: list[int]  # occurrences of each unit type in the corpus
    coded: list[str]  # one string per piece: its units' codes
    counts: list[int]  # occurrences of each piece

    def char_counts(self) -> Counter[str]:
        """Occurrences of each character in the corpus's pieces: a piece is the
        concatenation of its units, so the unit types' weights give them."""
        chars: Counter[str] = Counter()
        for u, w in zip(self.units, self.weight):
            for ch in u:
                chars[ch] += w
        return chars


def corpus_units(
    piece_counts: Counter[str],
    units_of: Callable[[str], list[str]],
    max_units: int | None = None,
    native: Callable[..., Any] | None = None,
) -> CorpusUnits:
    """Split every distinct piece into units with ``units_of`` (the piece splitter's
    grammar regex, :meth:`sgpe.pieces.WordSplitter.match_units`) and code it, in few
    calls: the regex matches each space-delimited word on its own and gives a plain space
    before a word to the word's first unit, so

    * pieces made of a space and a word (every piece but whitespace when ``leading_space``
      is on) are split in one call on their concatenation; each piece's first unit is the
      one unit that starts with a space;
    * the other pieces without a line break are split in one call, joined by line breaks
      (each a unit of its own), as :meth:`sgpe.pieces.WordSplitter.units_of_many` does;
    * the rare pieces with a line break one by one.

    The pieces keep the order of ``piece_counts`` within each group: the merge loop's
    result does not depend on the order of the words (every update is a sum, and the heap
    yields the best pair whatever order its entries came in).

    With ``max_units``, a piece of more units is cut into chunks of that many units from
    its start, as :meth:`sgpe.pieces.WordSplitter.cap` cuts it: a coded piece has one
    character per unit, so the chunks are slices of it, and the piece is not syllabified
    a second time to be cut (the grammar regex has no lookaround, so a chunk on its own
    has the units it had in its piece; ``tests/test_hierarchical.py`` trains on counts cut
    either way and compares). Identical chunks are added up.

    ``native`` (:meth:`sgpe.pieces.WordSplitter.native_units`, None under the Python
    engine) does all of it in the native core with the same syllabifier, numbering and
    order; where it declines (a check below would fail, or a lone surrogate) this runs."""
    return dispatch(
        native,
        lambda native_units: _native_corpus_units(native_units, piece_counts, max_units),
        lambda: _corpus_units(piece_counts, units_of, max_units),
    )


def _native_corpus_units(
    native: Callable[..., Any], piece_counts: Counter[str], max_units: int | None
) -> CorpusUnits | None:
    found = native(list(piece_counts), list(piece_counts.values()), max_units, _FIRST_PLACEHOLDER)
    if found is None:
        return None
    units, weight, coded, counts = found
    return CorpusUnits(units=units, weight=weight, coded=coded, counts=counts)


def _corpus_units(
    piece_counts: Counter[str], units_of: Callable[[str], list[str]], max_units: int | None
) -> CorpusUnits:
    """The Python reference of :func:`corpus_units`."""
    spaced = [p for p in piece_counts if _SPACED_WORD(p)]
    if len(spaced) == len(piece_counts):
        plain: list[str] = []
        other: list[str] = []
    else:
        plain = [p for p in piece_counts if "\n" not in p and not _SPACED_WORD(p)]
        other = [p for p in piece_counts if "\n" in p]
    coder = _Coder()
    coded: list[str] = []
    pieces: list[str] = []
    for group in _groups(spaced):
        flat = units_of("".join(group))
        types = dict.fromkeys(flat)  # in order of first appearance
        if any(" " in u[1:] for u in types):  # a unit across two pieces: never seen; be safe
            plain += group
            continue
        coder.add(types)
        coded += "".join(map(coder.spaced.__getitem__, flat)).split(_SEP)[1:]
        pieces += group
    for group in _groups(plain):
        flat = units_of("\n".join(group))
        types = dict.fromkeys(flat)
        types.pop("\n", None)  # the line breaks are the separators
        coder.add(types)
        by_line = {**coder.code, "\n": _SEP}
        coded += "".join(map(by_line.__getitem__, flat)).split(_SEP)
        pieces += group
    for p in other:
        us = units_of(p)
        coder.add(dict.fromkeys(us))
        coded.append("".join(map(coder.code.__getitem__, us)))
        pieces.append(p)
    units = list(coder.code)
    if len(coded) != len(pieces):
        raise RuntimeError("the syllabifier did not keep the pieces apart")
    counts = list(map(piece_counts.__getitem__, pieces))
    if max_units is not None and coded and max(map(len, coded)) > max_units:
        coded, counts = _cut(coded, counts, max_units)
    return CorpusUnits(
        units=units, weight=_unit_weights(coded, counts, len(units)), coded=coded, counts=counts
    )


def _unit_weights(coded: list[str], counts: list[int], n: int) -> list[int]:
    """Occurrences of each of the ``n`` unit types in the coded pieces, at C speed: one
    Counter per distinct piece count (most pieces occur once; there are few distinct
    counts)."""
    by_count: defaultdict[int, list[str]] = defaultdict(list)
    for w, c in zip(coded, counts):
        by_count[c].append(w)
    weight = [0] * n
    for c, ws in by_count.items():
        for ch, k in Counter("".join(ws)).items():
            weight[ord(ch) - _FIRST_PLACEHOLDER] += k * c
    return weight


# The pieces are syllabified about this many characters at a time: a group's units are
# Python strings (tens of bytes each) only until they are coded (four bytes each), so text
# without spaces, whose distinct pieces are nearly the whole corpus, does not hold every
# unit of the corpus as a string at once.
_GROUP_CHARS = 1 << 18


def _groups(pieces: list[str]) -> Iterator[list[str]]:
    """``pieces`` in consecutive groups of about :data:`_GROUP_CHARS` characters."""
    group: list[str] = []
    size = 0
    for p in pieces:
        group.append(p)
        size += len(p)
        if size >= _GROUP_CHARS:
            yield group
            group, size = [], 0
    if group:
        yield group


class _Coder:
    """Unit type -> its code (a placeholder), numbered in order of first appearance in the
    pieces as :func:`corpus_units` visits them. No output depends on the numbering: a
    placeholder never forms a counted pair, and once its unit is one token it is replaced
    by that token's symbol id, so the merges, counts and ids are those of any other
    numbering (``tests/test_hierarchical.py`` trains with the codes permuted). The native
    core numbers the same way, the obvious way, so the two engines' units can be compared
    one to one (``tests/test_native_count.py``)."""

    def __init__(self) -> None:
        self.code: dict[str, str] = {}
        # The same, with _SEP before the units that start with a space (a piece's first).
        self.spaced: dict[str, str] = {}

    def add(self, types: Iterable[str]) -> None:
        """Number the unit types not numbered yet, in the order given (no repeats)."""
        new = [u for u in types if u not in self.code]
        if len(self.code) + len(new) > ord(_SEP) - _FIRST_PLACEHOLDER:
            raise ValueError(
                f"the corpus has more than {len(self.code):,} distinct syllables, more than "
                "the trainer can index; split it into several corpora or use pieces='script'"
            )
        for u in new:
            c = chr(_FIRST_PLACEHOLDER + len(self.code))
            self.code[u] = c
            self.spaced[u] = _SEP + c if u[0] == " " else c


def _cut(coded: list[str], counts: list[int], n: int) -> tuple[list[str], list[int]]:
    """Coded pieces of more than ``n`` units cut into chunks of ``n``, and equal chunks
    (and pieces) added up; the order is that of first appearance."""
    total: dict[str, int] = {}
    get = total.get
    for w, c in zip(coded, counts):
        if len(w) <= n:
            total[w] = get(w, 0) + c
        else:
            for i in range(0, len(w), n):
                chunk = w[i : i + n]
                total[chunk] = get(chunk, 0) + c
    return list(total), list(total.values())


def build_state(
    cu: CorpusUnits, base_symbols: list[str], script: str, leading_space: bool
) -> HierarchicalState:
    """The initial state: every unit spelled with base symbols (code points)."""
    symbol_id = {s: i for i, s in enumerate(base_symbols)}
    unit_strings = cu.units
    may_join = unit_joinable(unit_strings, script, leading_space)
    unit_parts: list[str] = []
    joinable: list[bool] = []
    # The character each unit type stands for in the words: its symbol when it is one
    # joinable symbol already (a single known character), else its placeholder (the code
    # it has in ``cu.coded``).
    to_symbol: dict[int, str] = {}
    for k, u in enumerate(unit_strings):
        ids = [symbol_id.get(ch) for ch in u]
        parts = "".join(_BARRIER if i is None else chr(i) for i in ids)
        unit_parts.append(parts)
        joinable.append(may_join[k] and None not in ids)
        if len(parts) == 1 and joinable[k]:
            to_symbol[_FIRST_PLACEHOLDER + k] = parts
    return HierarchicalState(
        symbols=list(base_symbols),
        symbol_id=symbol_id,
        unit_strings=unit_strings,
        unit_parts=unit_parts,
        unit_weight=list(cu.weight),
        unit_joinable=joinable,
        words=list(cu.coded),
        counts=list(cu.counts),
        translation=to_symbol,
    )

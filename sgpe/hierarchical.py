"""Hierarchical GPE: BPE from code points, with merges that never cut a syllable.

The default training mode (``mode="hierarchical"``). The base alphabet is code points,
so nothing is ever out of vocabulary and no syllable inventory is forced into the
vocabulary; syllables are *assembled* by merges like any other frequent string. One rule
keeps syllables intact: a merge is legal only if its result is

* **part** of a single syllable (a "part" merge: ``ක`` + ``ා`` → ``කා``), or
* a sequence of **whole** syllables (a "join" merge: ``ලං`` + ``කා`` → ``ලංකා``),

inside one piece (word). So no token ever straddles a syllable boundary; a syllable is
either one token, a run of whole syllables inside one token, or spelled by several of its
own parts. Both kinds of merge compete in one frequency order, so the budget goes where it
pays. Orphans (a vowel sign or virama with no base) never join other syllables: where they
stand the syllabifier's boundaries depend on context, and the HF export isolates them.

The trainer keeps two levels of state:

1. **Syllable types.** Every distinct unit (syllable, orphan, passthrough character, with
   its leading space) is a string of symbol ids, weighted by how often it occurs in the
   corpus. Part merges act here, once per type, whatever words it occurs in.
2. **Words.** Every distinct piece is a string with one character per unit: the unit's
   symbol id once the unit is a single symbol, else a *placeholder* for that unit type (a
   code point at or above :data:`_LIMIT`). Join merges act here; pairs that touch a
   placeholder are never counted. When a part merge completes a syllable, its placeholder
   is replaced by the new symbol in every word that holds it (an inverted index
   ``syllable → words``), and those words' pairs are recounted.

Pair counts are incremental at both levels (inverted indexes ``pair → syllable types`` and
``pair → words``), and one max-heap with lazy refresh holds both kinds: an entry is
``(-count, code, kind, key)`` (``code``: the pair's two ids as one integer, ``key``: the
pair in its count table), so ties go to the smallest pair of ids, then to part before
join.

What keeps it fast (pure Python over C-speed ``str``, ``re`` and ``Counter``, and numpy
for text without spaces):

* **One pass over the pieces** (:func:`corpus_units`): the distinct pieces are split into
  units by the grammar regex, one call per 256K characters, and each piece is coded as a
  string with one character per unit type (pieces longer than the cap are cut there, by
  slicing); unit weights, the corpus's character counts (for the base alphabet) and the
  words then come from ``Counter`` (or one numpy histogram), ``str.translate`` and
  ``str.split``.
* **Only what a merge changes**: a merge visits the words (or unit types) its pair is
  indexed in, and in each only the neighbours of the replaced occurrences; the usual word
  holds the pair once and takes a short path.
* **A small heap**: only pairs counted at least a *floor* are on the heap; the rest wait
  in a pool by count and come up when the heap runs dry (most pairs are rare and never do).
* **No garbage collection while training** (:func:`paused_gc`): the tables are hundreds
  of thousands of small containers without cycles.

The order of the words does not matter (every update is a sum, and the heap yields the
same best pair whatever order its entries came in), so they are not sorted. What is left
is mostly syllabifier calls (splitting the pieces, and :func:`merge_kind` once per merge)
and one visit per word that holds each merged pair.

**Text without spaces** has long pieces (chunks of up to ``max_piece_units`` syllables)
that do not repeat, so a merge visits nearly every occurrence of its pair one long word at
a time. When the words average :data:`ARRAY_MIN_MEAN_UNITS` units or more, the engine
keeps them in numpy arrays instead (:mod:`sgpe._arraywords`): a merge is a few array
operations over all its occurrences, and the counts change once per distinct neighbouring
pair. Both word levels give the same merges; without numpy the strings are used.

**Superwords** (``superwords_from``, off by default): the corpus's *spans* (runs of words of
one script, :func:`sgpe.pieces.span_regex`) wait in :class:`SuperwordSpans` until the
vocabulary holds that many symbols; then :meth:`HierarchicalEngine._to_spans` makes the spans
the words (each the concatenation of its words' current strings) and counts the word level
again, so a pair of whole units across a space counts like any other join pair. Before the
transition the merges are exactly those without superwords.

Encoding (:class:`HierarchicalEncoder`) is the same rule applied in two phases per piece:
each unit is assembled with the part merges in rank order (cached per unit), then the
units that became single tokens are joined with the join merges in rank order; a unit
left in several parts, and every orphan, is a barrier. Because a join merge that uses a
syllable is always learned after that syllable is complete, this gives the same tokens as
applying all merges in one rank order, and it is what the Hugging Face export reproduces
(part merges ranked first, then join merges).
"""

from __future__ import annotations

import gc
import heapq
import re
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from itertools import repeat
from typing import Any, Literal, TypeVar, cast

from .engine import native_hierarchical, native_merge_kinds
from .pieces import MAX_SUPERWORD_WORDS, PAIR_SHIFT
from .schema import OTHER
from .syllables import Span, Syllabifier, get_syllabifier

MergeKind = Literal["part", "join"]
PART: MergeKind = "part"
JOIN: MergeKind = "join"
_KIND_CODE = {PART: 0, JOIN: 1}
_CODE_KIND: tuple[MergeKind, MergeKind] = (PART, JOIN)
# Symbol ids are code points below _LIMIT; characters at or above it are placeholders
# (a unit not yet assembled) or the barrier (a character outside the base alphabet).
_LIMIT = 0x80000
_BARRIER = chr(_LIMIT)
_FIRST_PLACEHOLDER = _LIMIT + 1

# The merge queue (HierarchicalEngine._pop_best): pairs go onto the heap about this many at a
# time, the best of the pool first.
_HEAP_BATCH = 4096
_NO_FLOOR = 1 << 62  # above every count: at first every pair waits in the pool
# A pair of symbol ids as one integer, left << PAIR_SHIFT | right (ids are below _LIMIT): the
# merge queue orders pairs by it (the order of their two-character strings), and the array
# word level keys its counts by it (PAIR_SHIFT lives in sgpe/pieces.py).
_PAIR_MASK = (1 << PAIR_SHIFT) - 1
# The merge loop keeps the words in arrays (sgpe/_arraywords.py) when they hold at least
# this many units on average: text without spaces, whose pieces are long chunks (up to
# sgpe.pieces.MAX_PIECE_UNITS units) that do not repeat. Ordinary text, and Khmer (no spaces
# between words, but spaces between phrases), stay below it (tests/test_hierarchical.py).
ARRAY_MIN_MEAN_UNITS = 32
# Unit weights are one numpy histogram from this many unit occurrences in the distinct
# pieces on (text without spaces, which the array word level trains), Counters below it:
# ordinary text does not import numpy to train.
_HISTOGRAM_MIN_UNITS = 1_000_000

ProgressHook = Callable[[int, int, tuple[str, str], int, float], None]
# Consecutive merges at once: (first step, target, pairs, counts, seconds since the loop
# started at the last of them); see ProgressBatches.
BatchHook = Callable[[int, int, list[tuple[str, str]], list[int], float], None]
CheckpointHook = Callable[[int, list[tuple[str, str, MergeKind]]], None]


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


def superword_words(token: str) -> int:
    """How many words a token holds (a superword holds several; a piece's token one)."""
    return len(token.split())


class ResumeMismatch(ValueError):
    """A checkpoint's merges do not fit this corpus and these settings."""


def resume_mismatch(n: int, merge: tuple[str, ...], count: int) -> str:
    """The message of a checkpoint's merge ``n`` (from 0) that the corpus has only
    ``count`` times: both engines and both modes say it alike."""
    shown = ", ".join(map(repr, merge))
    return (
        f"checkpoint merge {n + 1} ({shown}) has count {count} in this corpus; the "
        "checkpoint belongs to another corpus or other settings"
    )


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


def joinable_span(syll: Syllabifier, text: str, span: Span) -> bool:
    """May this unit take part in join merges?

    Syllables and characters no schema knows (Latin, digits, punctuation) may. Orphans and
    schema characters read as passthrough (a bare ZWJ) may not: whether they stand alone
    depends on what precedes them, so a merge learned inside a syllable could otherwise
    reach across their boundary (``ක්`` + ZWJ + ``ෂ`` is one syllable, ``x`` + ZWJ + ``ෂ`` is
    three units).
    """
    if span.kind == "syllable":
        return True
    if span.kind != "passthrough":
        return False
    ch = text[span.end - 1]
    return all(s.classify(ch) == OTHER for s in syll.schemas)


def unit_joinable(units: Sequence[str], script: str, leading_space: bool) -> list[bool]:
    """For each unit string (as the syllabifier emitted it): :func:`joinable_span`."""
    syll = get_syllabifier(script, leading_space)
    out = []
    for u in units:
        s = syll.spans(u)
        out.append(len(s) == 1 and joinable_span(syll, u, s[0]))
    return out


class _Wholeness:
    """Cached answers to "is this string a run of whole joinable units?" for one
    syllabifier (a token's answer is asked again for every merge that uses it)."""

    def __init__(self, syll: Syllabifier) -> None:
        self.syll = syll
        self.cache: dict[str, bool] = {}

    def __call__(self, text: str) -> bool:
        hit = self.cache.get(text)
        if hit is None:
            syll = self.syll
            hit = all(joinable_span(syll, text, sp) for sp in syll.spans(text))
            if len(self.cache) >= 1_000_000:
                self.cache.clear()
            self.cache[text] = hit
        return hit


@cache
def wholeness(syll: Syllabifier) -> _Wholeness:
    return _Wholeness(syll)


def merge_kind(left: str, right: str, syll: Syllabifier) -> MergeKind:
    """The kind of a merge, from its two strings alone.

    ``join`` when both sides are runs of whole joinable units and the syllabifier puts a
    unit boundary between them (then it cuts ``left + right`` exactly as it cuts the two
    sides alone: a regex match that ends inside ``left`` is the match it makes on ``left``
    alone); else ``part``. The trainer only learns merges whose kind this function
    confirms, so a ``vocab.json`` needs no kind column.
    """
    whole = wholeness(syll)
    if not (whole(left) and whole(right)):
        return PART
    end = 0
    n = len(left)
    for unit in syll.match(left + right):
        end += len(unit)
        if end >= n:
            return JOIN if end == n else PART
    return PART


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
    if native is not None:
        try:
            found = native(
                list(piece_counts), list(piece_counts.values()), max_units, _FIRST_PLACEHOLDER
            )
        except UnicodeEncodeError:
            found = None
        if found is not None:
            units_, weight_, coded_, counts_ = found
            return CorpusUnits(units=units_, weight=weight_, coded=coded_, counts=counts_)
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
        types = set(flat)
        if any(" " in u[1:] for u in types):  # a unit across two pieces: never seen; be safe
            plain += group
            continue
        coder.add(types)
        coded += "".join(map(coder.spaced.__getitem__, flat)).split(_SEP)[1:]
        pieces += group
    for group in _groups(plain):
        flat = units_of("\n".join(group))
        coder.add(set(flat).difference("\n"))  # the line breaks are the separators
        by_line = {**coder.code, "\n": _SEP}
        coded += "".join(map(by_line.__getitem__, flat)).split(_SEP)
        pieces += group
    for p in other:
        us = units_of(p)
        coder.add(set(us))
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


def _unit_histogram(coded: list[str], counts: list[int], n: int) -> list[int] | None:
    if sum(map(len, coded)) < _HISTOGRAM_MIN_UNITS:
        return None  # the Counters take less than importing numpy
    try:
        import numpy as np
    except ImportError:
        return None
    lengths = np.fromiter(map(len, coded), dtype=np.int64, count=len(coded))
    per_piece = np.asarray(counts, dtype=np.int64)
    if int(lengths @ per_piece) >= 1 << 53:
        return None
    codes = np.frombuffer("".join(coded).encode("utf-32-le"), dtype=np.uint32)
    found = np.bincount(
        codes - _FIRST_PLACEHOLDER,
        weights=np.repeat(per_piece.astype(np.float64), lengths),
        minlength=n,
    )
    return [int(x) for x in found.tolist()]


def _unit_weights(coded: list[str], counts: list[int], n: int) -> list[int]:
    """Occurrences of each of the ``n`` unit types in the coded pieces, at C speed: with
    numpy one weighted histogram of all the codes (exact: float64 adds integers exactly
    below 2**53 occurrences), else one Counter per distinct piece count (most pieces occur
    once; there are few distinct counts)."""
    histogram = _unit_histogram(coded, counts, n)
    if histogram is not None:
        return histogram
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
    """Unit type -> its code (a placeholder), numbered in order of first appearance (the
    merges do not depend on the numbering: ``tests/test_hierarchical.py`` trains on the
    same corpus in other orders)."""

    def __init__(self) -> None:
        self.code: dict[str, str] = {}
        # The same, with _SEP before the units that start with a space (a piece's first).
        self.spaced: dict[str, str] = {}

    def add(self, types: set[str]) -> None:
        new = sorted(types.difference(self.code))  # sorted: the same order every run
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


# Every pair of adjacent symbol ids (placeholders and barriers are at or above _LIMIT), by
# one regex call: a zero-width match at each position captures the two characters there.
_SYMBOL_PAIRS = re.compile("(?=([\\x00-\\U0007ffff]{2}))").findall


def _pairs(s: str) -> list[str]:
    """Adjacent pairs of symbol ids in a level string, skipping placeholders and barriers."""
    return _SYMBOL_PAIRS(s) if len(s) > 1 else []


def merged_symbol(symbols: list[str], symbol_id: dict[str, int], pair: str, limit: int) -> str:
    """The symbol (as ``chr(id)``) for merging the two symbols of ``pair``: an existing id
    when the concatenation is already a symbol, else a new id appended. Shared by both
    training modes' merge engines."""
    merged = symbols[ord(pair[0])] + symbols[ord(pair[1])]
    sid = symbol_id.get(merged)
    if sid is None:
        sid = len(symbols)
        if sid >= limit:
            raise ValueError(f"vocab_size above {limit:,} is not supported")
        symbols.append(merged)
        symbol_id[merged] = sid
    return chr(sid)


@contextmanager
def paused_gc() -> Iterator[None]:
    """Run a block without Python's cyclic garbage collector. Training builds hundreds of
    thousands of small containers (index sets, heap entries) and makes no reference cycles;
    each collection of the oldest generation would walk them all, which cost about a tenth
    of the training time."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


HeapEntry = TypeVar("HeapEntry", bound=tuple[Any, ...])


def pop_fresh(
    heap: list[HeapEntry], count_of: Callable[[HeapEntry], int]
) -> tuple[HeapEntry, int] | None:
    """Pop the best entry ``(-count, ...)`` whose count is current (lazy refresh): a stale
    entry is pushed back with its current count, a consumed one (count 0) dropped. Shared
    by both training modes' merge engines."""
    while heap:
        entry = heapq.heappop(heap)
        actual = count_of(entry)
        if actual == -entry[0]:
            return entry, actual
        if actual > 0:
            heapq.heappush(heap, cast(HeapEntry, (-actual, *entry[1:])))
    return None


def _unit_words(state: HierarchicalState) -> list[list[int]]:
    """For each unit type that a part merge may complete later (a placeholder in the
    words), the indexes of the words that hold it."""
    by_code: defaultdict[str, list[int]] = defaultdict(list)
    for wi, w in enumerate(state.words):
        for ch in set(w):
            by_code[ch].append(wi)
    return [
        by_code.get(chr(_FIRST_PLACEHOLDER + k), []) if ok and len(parts) > 1 else []
        for k, (ok, parts) in enumerate(zip(state.unit_joinable, state.unit_parts))
    ]


def _pair_code(pair: str) -> int:
    return (ord(pair[0]) << PAIR_SHIFT) | ord(pair[1])


def _array_words(state: HierarchicalState, arrays: bool | None) -> Any:
    """The word level in arrays (:mod:`sgpe._arraywords`) when ``arrays`` is True, or when
    it is None and the words are long (text without spaces); None for the string level.
    Both give the same merges. The string level costs Python work per word a merge
    touches, growing with the word's length; the array level costs a fixed amount of
    numpy work per merge. So arrays pay where each merge touches many long words, and
    strings where words are short and repeat (``python -m bench long-pieces`` times both
    on text with and without spaces, and on Khmer)."""
    words = state.words
    units = sum(map(len, words))
    if arrays is None:
        arrays = bool(words) and units >= ARRAY_MIN_MEAN_UNITS * len(words)
    if not arrays or units + len(words) + 1 >= 1 << 31:  # positions are 32-bit there
        return None
    try:
        from ._arraywords import ArrayWords
    except ImportError:
        return None  # numpy is an optional dependency; the string level gives the same
    return ArrayWords(state.words, state.counts, _LIMIT, state.translation)


class HierarchicalEngine:
    """The incremental two-level merge loop."""

    def __init__(
        self,
        state: HierarchicalState,
        syllabifier: Syllabifier,
        arrays: bool | None = None,
        spans: SuperwordSpans | None = None,
    ) -> None:
        self.st = state
        self.syll = syllabifier
        # Superwords (docs/algorithms.md): the spans wait for the transition. The array word
        # level has no transition; it is chosen only for text without spaces, which has no
        # spans, so with spans the strings are kept (both levels give the same merges).
        self.spans = spans if spans is not None and spans.words else None
        if self.spans is not None:
            arrays = False
        self.merge_counts: list[int] = []  # the pair count of each merge when it was chosen
        # Pairs (by code and kind) whose kind the strings do not confirm (see merge_kind);
        # never merged.
        self._checked: dict[tuple[int, int], bool] = {}
        # kind 0 (part): counts over unit types; kind 1 (join): counts over words. A pair is
        # keyed by its two-character string, or by its code at the array word level.
        self.counts: tuple[dict[str, int], dict[Any, int]] = ({}, {})
        # pair -> indexes of the unit types (0) or words (1) that hold it; read with
        # .pop/.get only, so a lookup never adds an empty entry. Lists, not sets: an index
        # listed twice is harmless (the merge rewrites the string at its first visit and
        # finds the pair gone at the second, like any stale entry), and an empty list takes
        # a quarter of the memory of an empty set (most pairs are held by a few words).
        self.where: tuple[defaultdict[str, list[int]], defaultdict[str, list[int]]] = (
            defaultdict(list),
            defaultdict(list),
        )
        for k, (parts, w) in enumerate(zip(state.unit_parts, state.unit_weight)):
            self._add(0, parts, w, k)
        self.arrays = _array_words(state, arrays)
        # unit type -> indexes of the words that hold its placeholder (string level only)
        self.unit_words: list[list[int]] = []
        if self.arrays is not None:
            self.counts[1].update(self.arrays.initial_counts())
            state.words = []
        else:
            if state.translation:
                state.words = [w.translate(state.translation) for w in state.words]
            self.unit_words = _unit_words(state)
        state.translation = {}
        barrier = _BARRIER
        for wi, (word, c) in enumerate(zip(state.words, state.counts)):
            # At first most words are placeholders only (min() skips them at C speed).
            if len(word) > 1 and min(word) < barrier:
                self._add(1, word, c, wi)
        # Heap entries are (-count, code, kind, key) and pool entries (code, kind, key): the
        # code orders pairs whatever their key (a string, or the code itself).
        self.heap: list[tuple[int, int, int, Any]] = []
        self.floor = _NO_FLOOR
        self.pool: defaultdict[int, list[tuple[int, int, Any]]] = defaultdict(list)
        self._rebuild_heap()

    # ------------------------------------------------------------------ counts
    def _add(self, kind: int, s: str, weight: int, index: int) -> list[str]:
        pc, where = self.counts[kind], self.where[kind]
        new = _pairs(s)
        for p in new:
            pc[p] = pc.get(p, 0) + weight
            where[p].append(index)
        return new

    def _sub(self, kind: int, s: str, weight: int) -> None:
        pc = self.counts[kind]
        for p in _pairs(s):
            pc[p] -= weight

    def _rebuild_heap(self) -> None:
        # Every counted pair goes to the pool; the first pop moves the best ones to the heap.
        self.heap = []
        self.floor = _NO_FLOOR
        self.pool = defaultdict(list)
        for k in (0, 1):
            for p, c in self.counts[k].items():
                if c > 0:
                    self.pool[c].append((p if isinstance(p, int) else _pair_code(p), k, p))

    def _refill(self) -> bool:
        """The heap is empty: lower the floor so that the pool's best pairs go onto the
        heap. False when the pool is empty too (no pair is left)."""
        pool, counts = self.pool, self.counts
        if not pool:
            return False
        keys = sorted(pool, reverse=True)
        # Half the best count, or higher when that would bring more than a batch.
        floor = max(1, keys[0] // 2)
        taken = 0
        for c in keys:
            taken += len(pool[c])
            if taken >= _HEAP_BATCH:
                floor = max(floor, c)
                break
        entries = []
        for c in keys:
            if c < floor:
                break
            for code, k, p in pool.pop(c):
                actual = counts[k].get(p, 0)
                if actual >= floor:
                    entries.append((-actual, code, k, p))
                elif actual > 0:
                    pool[actual].append((code, k, p))
        self.floor = floor
        heapq.heapify(entries)
        self.heap = entries
        return True

    def _pop_best(self) -> tuple[str, int, int] | None:
        """The legal pair with the highest count (ties: smaller pair of ids, then part
        before join), taken off the heap; None when no pair is left.

        Only pairs counted at least ``floor`` times are on the heap; the others wait in the
        pool, by the count they had when they last grew (at least their count now: a count
        that grows is pushed again). A count that shrank is refreshed lazily when its entry
        comes to the top. So while the heap holds a current entry, its best is the best of
        all pairs, and when it runs dry the floor goes down. Most pairs are rare and never
        reach the heap, which keeps it small."""
        counts = self.counts
        heappop, heapreplace = heapq.heappop, heapq.heapreplace
        checked = self._checked
        heap = self.heap
        while True:
            if not heap:
                if not self._refill():
                    return None
                heap = self.heap
            negc, code, kind, key = heap[0]
            actual = counts[kind].get(key, 0)
            if actual != -negc:
                # Stale: back onto the heap with its current count, to the pool, or dropped.
                if actual >= self.floor:
                    heapreplace(heap, (-actual, code, kind, key))
                else:
                    heappop(heap)
                    if actual > 0:
                        self.pool[actual].append((code, kind, key))
                continue
            heappop(heap)
            ok = checked.get((code, kind))
            if ok is None:
                ok = self._legal(code, kind)
            if ok:
                return chr(code >> PAIR_SHIFT) + chr(code & _PAIR_MASK), kind, actual
            # Dropped for good: a later count change re-pushes it, and it is checked again.

    def _legal(self, code: int, kind: int) -> bool:
        key = (code, kind)
        ok = self._checked.get(key)
        if ok is None:
            sy = self.st.symbols
            left, right = sy[code >> PAIR_SHIFT], sy[code & _PAIR_MASK]
            ok = _KIND_CODE[merge_kind(left, right, self.syll)] == kind
            if ok and kind == 1 and self.spans is None and " " in right:
                # After the transition (self.spans is None again): a superword of at most
                # MAX_SUPERWORD_WORDS words. Before it no pair across a space is counted.
                ok = superword_words(left + right) <= MAX_SUPERWORD_WORDS
            self._checked[key] = ok
        return ok

    def _to_spans(self) -> None:
        """The transition to superwords: the words become the corpus's spans (each the
        concatenation of its words' current strings, so the merges so far are in it) and
        the words outside spans, with the counts left to them; the word level's pair counts
        and index are counted afresh, so from now on a pair across a space inside a span
        counts like any other (a placeholder on either side, a syllable not yet one
        token, is still a barrier)."""
        spans = self.spans
        assert spans is not None and self.arrays is None
        st = self.st
        left = list(st.counts)
        for idx, c in zip(spans.words, spans.counts):
            for i in idx:
                left[i] -= c
        words = [w for w, c in zip(st.words, left) if c > 0]
        counts = [c for c in left if c > 0]
        old = st.words
        words += ["".join([old[i] for i in idx]) for idx in spans.words]
        counts += spans.counts
        st.words, st.counts = words, counts
        self.spans = None
        pc, where = self.counts[1], self.where[1]
        pc.clear()
        where.clear()
        # Every word's pairs (as _add counts them), the counts added up per word count at C
        # speed (most spans occur once), then the index.
        barrier = _BARRIER
        pairs = [_pairs(w) if len(w) > 1 and min(w) < barrier else [] for w in words]
        by_count: defaultdict[int, list[list[str]]] = defaultdict(list)
        for ps, c in zip(pairs, counts):
            if ps:
                by_count[c].append(ps)
        for c, lists in by_count.items():
            for p, n in Counter([p for ps in lists for p in ps]).items():
                pc[p] = pc.get(p, 0) + n * c
        for wi, ps in enumerate(pairs):
            for p in ps:
                where[p].append(wi)
        self.unit_words = _unit_words(st)
        self._checked.clear()  # pairs across a space were never asked; now they may be
        self._rebuild_heap()

    def _transition_due(self) -> bool:
        return self.spans is not None and len(self.st.symbols) >= self.spans.from_symbols

    def _key(self, pair: str, kind: int) -> Any:
        """The key of ``pair`` in ``counts[kind]``."""
        if kind == 1 and self.arrays is not None and pair:
            return _pair_code(pair)
        return pair  # (an empty pair: a resumed merge of symbols this corpus lacks)

    # ------------------------------------------------------------------ merging
    def _new_symbol(self, pair: str) -> str:
        return merged_symbol(self.st.symbols, self.st.symbol_id, pair, _LIMIT)

    def apply(self, pair: str, kind: int) -> None:
        """Merge ``pair`` (of the given kind) everywhere it is counted, updating counts."""
        new = self._new_symbol(pair)
        self.st.merges.append((ord(pair[0]), ord(pair[1]), kind))
        # Pairs whose count grew go (again) on the heap; a count that shrank is refreshed
        # lazily when its entry comes to the top.
        grown: tuple[set[str], set[str]] = (set(), set())
        if kind == 0:
            self._apply_part(pair, new, grown)
        else:
            self._apply_join(pair, new, grown[1])
        self.counts[kind].pop(self._key(pair, kind), None)
        heap, pool, floor = self.heap, self.pool, self.floor
        push = heapq.heappush
        for k in (0, 1):
            pc = self.counts[k]
            for p in grown[k]:
                c = pc.get(p, 0)
                code = (ord(p[0]) << PAIR_SHIFT) | ord(p[1])  # _pair_code, inline: hot loop
                if c >= floor:
                    push(heap, (-c, code, k, p))
                elif c > 0:
                    pool[c].append((code, k, p))

    def _push_grown(self, grown: list[tuple[int, list[int]]]) -> None:
        """Join pairs (codes) whose count grew, by their count now (the array level's
        updates): as :meth:`apply` does one pair at a time, but a whole count's pairs go to
        the pool at once."""
        heap, pool, floor = self.heap, self.pool, self.floor
        for c, codes in grown:
            if c >= floor:
                for p in codes:
                    heapq.heappush(heap, (-c, p, 1, p))
            else:
                pool[c].extend(zip(codes, repeat(1), codes))

    def _apply_part(self, pair: str, new: str, grown: tuple[set[str], set[str]]) -> None:
        st = self.st
        grown_parts = grown[0]
        for k in self.where[0].pop(pair, ()):
            old = st.unit_parts[k]
            if pair not in old:
                continue  # a stale index entry
            nw = old.replace(pair, new)
            st.unit_parts[k] = nw
            w = st.unit_weight[k]
            self._sub(0, old, w)
            for p in self._add(0, nw, w, k):
                if new in p:
                    grown_parts.add(p)
            if len(nw) == 1 and st.unit_joinable[k]:
                self._complete(k, nw, grown[1])

    def _complete(self, k: int, symbol: str, grown: set[str]) -> None:
        """Unit type ``k`` is now one symbol: it enters the words as that symbol."""
        if self.arrays is not None:
            self._push_grown(
                self.arrays.complete(_FIRST_PLACEHOLDER + k, ord(symbol), self.counts[1])
            )
            return
        st = self.st
        ph = chr(_FIRST_PLACEHOLDER + k)
        pc, where = self.counts[1], self.where[1]
        get = pc.get
        words, counts = st.words, st.counts
        barrier = _BARRIER
        add_grown = grown.add
        for wi in self.unit_words[k]:
            old = words[wi]
            nw = old.replace(ph, symbol)
            words[wi] = nw
            # Pairs touching a placeholder were never counted, so only the pairs next to
            # the replaced positions are new; every other pair of the word is unchanged.
            i = old.find(ph)
            if old.find(ph, i + 1) < 0:  # the usual case: the unit occurs once in the word
                if i and nw[i - 1] < barrier:
                    p = nw[i - 1 : i + 1]
                    pc[p] = get(p, 0) + counts[wi]
                    add_grown(p)
                    where[p].append(wi)
                if i + 1 < len(nw) and nw[i + 1] < barrier:
                    p = nw[i : i + 2]
                    pc[p] = get(p, 0) + counts[wi]
                    add_grown(p)
                    where[p].append(wi)
                continue
            c = counts[wi]
            last = len(nw) - 1
            seen = -1
            while i >= 0:
                for j in (i - 1, i):
                    if j > seen and 0 <= j < last and nw[j] < barrier and nw[j + 1] < barrier:
                        seen = j
                        p = nw[j : j + 2]
                        pc[p] = get(p, 0) + c
                        add_grown(p)
                        where[p].append(wi)
                i = old.find(ph, i + 1)

    def _apply_join(self, pair: str, new: str, grown: set[str]) -> None:
        # The hot loop of training (most merges are joins). Only the pairs next to a
        # replaced occurrence change, so only those are updated: a merge costs the number
        # of its occurrences, not the length of the words it touches (which made text
        # without spaces, whose pieces are long, train many times slower than normal text).
        if self.arrays is not None:
            self._push_grown(self.arrays.join(ord(pair[0]), ord(pair[1]), ord(new), self.counts[1]))
            return
        st = self.st
        words, counts = st.words, st.counts
        pc, where = self.counts[1], self.where[1]
        get = pc.get
        barrier = _BARRIER
        add_grown = grown.add
        first, second = pair[0], pair[1]
        for wi in where.pop(pair, ()):
            old = words[wi]
            i = old.find(pair)
            if i < 0:
                continue  # a stale index entry: an earlier merge consumed the pair here
            nw = old.replace(pair, new)
            words[wi] = nw
            c = counts[wi]
            if old.find(pair, i + 2) < 0:
                # The usual case, one occurrence: its two neighbours change (the pair's own
                # count is dropped by the caller).
                if i:
                    a = old[i - 1]
                    if a < barrier:
                        pc[a + first] -= c
                        p = a + new
                        pc[p] = get(p, 0) + c
                        add_grown(p)
                        where[p].append(wi)
                if i + 2 < len(old):
                    b = old[i + 2]
                    if b < barrier:
                        pc[second + b] -= c
                        p = new + b
                        pc[p] = get(p, 0) + c
                        add_grown(p)
                        where[p].append(wi)
                continue
            last_old = len(old) - 2  # the last index a pair of `old` can start at
            last_new = len(nw) - 2
            done_old = -1  # old pairs at indexes <= this one are already subtracted
            done_new = -1
            shift = 0  # str.replace shortens the word by one per earlier occurrence
            while i >= 0:
                for k in (i - 1, i, i + 1):
                    if done_old < k <= last_old:
                        done_old = k
                        a, b = old[k], old[k + 1]
                        if a < barrier and b < barrier:
                            pc[a + b] -= c
                j = i - shift
                for k in (j - 1, j):
                    if done_new < k <= last_new:
                        done_new = k
                        a, b = nw[k], nw[k + 1]
                        if a < barrier and b < barrier:
                            p = a + b
                            pc[p] = get(p, 0) + c
                            add_grown(p)
                            where[p].append(wi)
                shift += 1
                i = old.find(pair, i + 2)

    # ------------------------------------------------------------------ loop
    def run(
        self,
        *,
        target_symbols: int,
        min_freq: int,
        progress: ProgressHook | None = None,
        checkpoint_every: int = 0,
        on_checkpoint: CheckpointHook | None = None,
        resume: Sequence[tuple[str, str, str]] = (),
        progress_batch: BatchHook | None = None,
    ) -> None:
        st = self.st
        batches = None
        if progress_batch is not None:
            batches = ProgressBatches(progress_batch)
            each = progress
            progress = batches if each is None else _both(each, batches)
        for n, (left, right, kind_name) in enumerate(resume):
            if self._transition_due():
                self._to_spans()
            kind = _KIND_CODE.get(kind_name)  # type: ignore[call-overload]
            a, b = st.symbol_id.get(left), st.symbol_id.get(right)
            pair = "" if a is None or b is None else chr(a) + chr(b)
            count = self.counts[kind].get(self._key(pair, kind), 0) if kind is not None else 0
            if count < min_freq:
                raise ResumeMismatch(resume_mismatch(n, (left, right, kind_name), count))
            self.apply(pair, kind)
            self.merge_counts.append(count)
        if resume:
            self._rebuild_heap()
        target = max(0, target_symbols - len(st.symbols))
        start = time.perf_counter()
        while len(st.symbols) < target_symbols:
            if self._transition_due():
                self._to_spans()
            best = self._pop_best()
            if best is None or best[2] < min_freq:
                break
            pair, kind, count = best
            self.apply(pair, kind)
            self.merge_counts.append(count)
            step = len(st.merges)
            if progress is not None:
                shown = (st.symbols[ord(pair[0])], st.symbols[ord(pair[1])])
                progress(step, target, shown, count, time.perf_counter() - start)
            if checkpoint_every and on_checkpoint is not None and step % checkpoint_every == 0:
                if batches is not None:
                    batches.flush()
                on_checkpoint(step, self.merge_list())
        if batches is not None:
            batches.flush()

    def merge_list(self) -> list[tuple[str, str, MergeKind]]:
        sy = self.st.symbols
        return [(sy[a], sy[b], _CODE_KIND[k]) for a, b, k in self.st.merges]

    def usage(self) -> list[int]:
        """How often each symbol is used in the final segmentation of the corpus."""
        st = self.st
        freq = [0] * len(st.symbols)
        if self.arrays is not None:
            self.arrays.usage(freq)
        # The words of each count are counted together, at C speed.
        by_count: defaultdict[int, list[str]] = defaultdict(list)
        for w, c in zip(st.words, st.counts):
            by_count[c].append(w)
        for c, ws in by_count.items():
            for ch, n in Counter("".join(ws)).items():
                if ch < _BARRIER:
                    freq[ord(ch)] += n * c
        for k, parts in enumerate(st.unit_parts):
            if len(parts) == 1 and st.unit_joinable[k]:
                continue  # counted in the words
            weight = st.unit_weight[k]
            for ch in parts:
                if ch < _BARRIER:
                    freq[ord(ch)] += weight
        return freq


# The native merge loop hands the merges back to Python for the progress callback at most
# this many at a time, or after this many seconds (a checkpoint step ends a batch too).
_PROGRESS_BATCH = 4096
_PROGRESS_SECONDS = 0.1


class ProgressBatches:
    """A :data:`ProgressHook` that hands the merges on to a :data:`BatchHook` in batches:
    every :data:`_PROGRESS_BATCH` merges or :data:`_PROGRESS_SECONDS` seconds, and when
    flushed (at a checkpoint and at the end). A caller with work per report (the run
    worker's status) does it once per batch."""

    def __init__(self, hook: BatchHook) -> None:
        self.hook = hook
        self.first = self.target = 0
        self.pairs: list[tuple[str, str]] = []
        self.counts: list[int] = []
        self.elapsed = 0.0
        self.last = time.perf_counter()

    def __call__(self, step: int, target: int, pair: tuple[str, str], count: int, t: float) -> None:
        if not self.pairs:
            self.first = step
        self.target = target
        self.pairs.append(pair)
        self.counts.append(count)
        self.elapsed = t
        if (
            len(self.pairs) >= _PROGRESS_BATCH
            or time.perf_counter() - self.last >= _PROGRESS_SECONDS
        ):
            self.flush()

    def flush(self) -> None:
        if self.pairs:
            self.hook(self.first, self.target, self.pairs, self.counts, self.elapsed)
            self.pairs, self.counts = [], []
        self.last = time.perf_counter()


def _both(first: ProgressHook, second: ProgressHook) -> ProgressHook:
    def both(step: int, target: int, pair: tuple[str, str], count: int, t: float) -> None:
        first(step, target, pair, count, t)
        second(step, target, pair, count, t)

    return both


class NativeHierarchicalEngine:
    """:class:`HierarchicalEngine`'s interface (``run``, ``merge_list``, ``usage``,
    ``merge_counts``) over the native merge loop (``sgpe.engine.native_hierarchical``): the
    same merges, counts and symbols. The loop runs without Python and comes back in
    batches, so the progress callback is called for every merge, in order, with the time
    each merge was made, but a batch at a time; a checkpoint step always ends a batch, so
    ``on_checkpoint`` sees the same steps and merge lists."""

    def __init__(self, native: Any, state: HierarchicalState) -> None:
        self.native = native
        self.st = state
        self.merge_counts: list[int] = []

    def run(
        self,
        *,
        target_symbols: int,
        min_freq: int,
        progress: ProgressHook | None = None,
        checkpoint_every: int = 0,
        on_checkpoint: CheckpointHook | None = None,
        resume: Sequence[tuple[str, str, str]] = (),
        progress_batch: BatchHook | None = None,
    ) -> None:
        native, st = self.native, self.st
        if resume:
            codes = [(a, b, _KIND_CODE.get(k, 2)) for a, b, k in resume]  # type: ignore[call-overload]
            bad = native.resume(codes, min_freq)
            if bad is not None:
                n, count = bad
                raise ResumeMismatch(resume_mismatch(n, resume[n], count))
            self._sync()
        target = max(0, target_symbols - native.symbol_count())
        every = checkpoint_every if on_checkpoint is not None else 0
        report = progress is not None or progress_batch is not None
        batch, seconds = (_PROGRESS_BATCH, _PROGRESS_SECONDS) if report else (1 << 62, 1e300)
        while True:
            done = native.run(target_symbols, min_freq, batch, seconds, every)
            if report or every:
                first = len(st.merges) + 1
                made = self._sync()
                sy = st.symbols
                if progress is not None:
                    for step, (a, b, _, count, elapsed) in enumerate(made, first):
                        progress(step, target, (sy[a], sy[b]), count, elapsed)
                if progress_batch is not None and made:
                    pairs = [(sy[a], sy[b]) for a, b, _, _, _ in made]
                    counts = [c for _, _, _, c, _ in made]
                    progress_batch(first, target, pairs, counts, made[-1][4])
                step = len(st.merges)
                if every and made and step % every == 0:
                    assert on_checkpoint is not None
                    on_checkpoint(step, self.merge_list())
            if done:
                break
        self._sync()

    def _sync(self) -> list[tuple[int, int, int, int, float]]:
        """Bring the state's symbols and merges and the merge counts up to the native
        loop's; the merges that were new."""
        st = self.st
        made: list[tuple[int, int, int, int, float]] = self.native.merges_from(len(st.merges))
        new_symbols = self.native.symbols_from(len(st.symbols))
        for sym in new_symbols:
            st.symbol_id[sym] = len(st.symbols)
            st.symbols.append(sym)
        st.merges.extend((a, b, k) for a, b, k, _, _ in made)
        self.merge_counts.extend(c for _, _, _, c, _ in made)
        return made

    def merge_list(self) -> list[tuple[str, str, MergeKind]]:
        sy = self.st.symbols
        return [(sy[a], sy[b], _CODE_KIND[k]) for a, b, k in self.st.merges]

    def usage(self) -> list[int]:
        """How often each symbol is used in the final segmentation of the corpus."""
        freq: list[int] = self.native.usage()
        return freq


def merge_engine(
    state: HierarchicalState,
    syllabifier: Syllabifier,
    script: str,
    leading_space: bool,
    arrays: bool | None = None,
    spans: SuperwordSpans | None = None,
) -> HierarchicalEngine | NativeHierarchicalEngine:
    """The merge loop for ``state``: the native one under the native engine (for a
    built-in ``script`` setting), else :class:`HierarchicalEngine`. ``arrays`` set to True
    or False asks for one of the Python engine's word levels (the tests compare them), so
    it keeps the Python engine."""
    if arrays is None:
        native = native_hierarchical(
            script,
            leading_space,
            state.symbols,
            state.unit_parts,
            state.unit_weight,
            state.unit_joinable,
            state.words,
            state.counts,
            state.translation,
            spans.words if spans is not None else (),
            spans.counts if spans is not None else (),
            spans.from_symbols if spans is not None else 0,
        )
        if native is not None:
            # The native loop holds its own copy of the words; the state keeps the
            # symbols, merges and unit types (read after training).
            state.words, state.counts, state.translation = [], [], {}
            return NativeHierarchicalEngine(native, state)
    return HierarchicalEngine(state, syllabifier, arrays, spans)


# ============================================================================
# Encoding
# ============================================================================


class HierarchicalEncoder:
    """Encode pieces with part merges inside units, then join merges across whole units.

    ``spell`` gives the ids of one character that is not a token (its byte tokens, or
    ``[UNK]``); those ids never merge.
    """

    def __init__(
        self,
        vocab: dict[str, int],
        merges: Sequence[tuple[str, str]],
        script: str,
        leading_space: bool,
        spell: Callable[[str], list[int]],
        kinds: Sequence[MergeKind] | None = None,
    ) -> None:
        self.vocab = vocab
        self.syll = get_syllabifier(script, leading_space)
        self._whole = wholeness(self.syll)
        # The trainer passes the kinds it learned; a loaded file recomputes them (natively
        # where the native core runs: the same answers, without a syllabifier call per merge).
        if kinds is None:
            kinds = native_merge_kinds(script, leading_space, merges)
        self.kinds: list[MergeKind] = (
            list(kinds) if kinds is not None else [merge_kind(a, b, self.syll) for a, b in merges]
        )
        self.part_ranks: dict[tuple[int, int], tuple[int, int]] = {}
        self.join_ranks: dict[tuple[int, int], tuple[int, int]] = {}
        for rank, ((a, b), kind) in enumerate(zip(merges, self.kinds)):
            table = self.part_ranks if kind == PART else self.join_ranks
            table.setdefault((vocab[a], vocab[b]), (rank, vocab[a + b]))
        self._spell = spell
        self._unit_cache: dict[str, tuple[list[int], list[int], bool]] = {}

    def unit(self, unit: str) -> tuple[list[int], list[int], bool]:
        """A unit's tokens after the part merges, each token's length in UTF-8 bytes, and
        whether the unit can be joined (one token, every character known, and a joinable
        kind of unit: see :func:`joinable_span`)."""
        hit = self._unit_cache.get(unit)
        if hit is None:
            ids: list[int] = []
            lengths: list[int] = []
            run: list[int] = []
            run_bytes: list[int] = []
            known = True
            for ch in unit:
                i = self.vocab.get(ch)
                n = len(ch.encode("utf-8"))
                if i is not None:
                    run.append(i)
                    run_bytes.append(n)
                    continue
                known = False
                self._flush_part(run, run_bytes, ids, lengths)
                run, run_bytes = [], []
                spelled = self._spell(ch)  # byte tokens (or one [UNK]) never merge
                ids.extend(spelled)
                lengths.extend([1] * len(spelled) if len(spelled) == n else [n])
            self._flush_part(run, run_bytes, ids, lengths)
            hit = (ids, lengths, known and len(ids) == 1 and self._whole(unit))
            if len(self._unit_cache) >= 200_000:
                self._unit_cache.clear()
            self._unit_cache[unit] = hit
        return hit

    def _flush_part(
        self, run: list[int], run_bytes: list[int], ids: list[int], lengths: list[int]
    ) -> None:
        if run:
            _flush(run, run_bytes, self.part_ranks, ids, lengths)

    def ids_of_piece(self, piece: str) -> list[int]:
        """Token ids of a piece."""
        return self._encode(piece, None)

    def encode_piece(self, piece: str) -> tuple[list[int], list[int]]:
        """Token ids of a piece and each token's length in UTF-8 bytes."""
        lengths: list[int] = []
        return self._encode(piece, lengths), lengths

    def _encode(self, piece: str, lengths: list[int] | None) -> list[int]:
        """Assemble each unit with the part merges (cached per unit), then join runs of
        whole joinable units with the join merges; token lengths go to ``lengths`` when it
        is given (the ids-only path skips that bookkeeping: it is the hot path of encode)."""
        out: list[int] = []
        run: list[int] = []
        run_len: list[int] = []
        join = self.join_ranks
        unit = self.unit
        for text in self.syll(piece):
            ids, lens, joinable = unit(text)
            if joinable:
                run.append(ids[0])
                if lengths is not None:
                    run_len.append(lens[0])
                continue
            if run:
                _join_run(run, run_len, join, out, lengths)
                run, run_len = [], []
            out.extend(ids)
            if lengths is not None:
                lengths.extend(lens)
        if run:
            _join_run(run, run_len, join, out, lengths)
        return out


def _join_run(
    run: list[int],
    run_len: list[int],
    ranks: dict[tuple[int, int], tuple[int, int]],
    out: list[int],
    lengths: list[int] | None,
) -> None:
    if lengths is None:
        out.extend(bpe(run, ranks) if len(run) > 1 else run)
    else:
        _flush(run, run_len, ranks, out, lengths)


def _flush(
    run: list[int],
    run_len: list[int],
    ranks: dict[tuple[int, int], tuple[int, int]],
    out: list[int],
    lengths: list[int],
) -> None:
    """Merge a run with ``ranks`` and append the tokens and their byte lengths."""
    if len(run) == 1:
        out.append(run[0])
        lengths.append(run_len[0])
        return
    merged, sizes = bpe_with_sizes(run, ranks)
    out.extend(merged)
    pos = 0
    for n in sizes:
        lengths.append(sum(run_len[pos : pos + n]))
        pos += n


_LONG_RUN = 24  # runs longer than this merge with the heap (the rescan is quadratic)


def bpe(ids: list[int], ranks: dict[tuple[int, int], tuple[int, int]]) -> list[int]:
    """Merge the leftmost lowest-ranked pair until none applies."""
    if len(ids) > _LONG_RUN:
        return bpe_heap(ids, ranks)
    return bpe_with_sizes(ids, ranks)[0]


def bpe_with_sizes(
    ids: list[int], ranks: dict[tuple[int, int], tuple[int, int]]
) -> tuple[list[int], list[int]]:
    """:func:`bpe`, also returning how many input symbols each output token covers."""
    ids = list(ids)
    sizes = [1] * len(ids)
    get = ranks.get
    while len(ids) > 1:
        best = None
        at = 0
        for i in range(len(ids) - 1):
            r = get((ids[i], ids[i + 1]))
            if r is not None and (best is None or r < best):
                best, at = r, i
        if best is None:
            break
        ids[at : at + 2] = [best[1]]
        sizes[at : at + 2] = [sizes[at] + sizes[at + 1]]
    return ids, sizes


def bpe_heap(ids: list[int], ranks: dict[tuple[int, int], tuple[int, int]]) -> list[int]:
    """:func:`bpe` in O(n log n) for long runs: a heap of (rank, position) over a doubly
    linked list; entries made stale by earlier merges are skipped when popped."""
    n = len(ids)
    tok = list(ids)
    nxt = [*list(range(1, n)), -1]
    prv = list(range(-1, n - 1))
    alive = [True] * n
    heap: list[tuple[int, int]] = []
    for i in range(n - 1):
        r = ranks.get((tok[i], tok[i + 1]))
        if r is not None:
            heap.append((r[0], i))
    heapq.heapify(heap)
    while heap:
        rank, i = heapq.heappop(heap)
        j = nxt[i] if alive[i] else -1
        if j < 0:
            continue
        r = ranks.get((tok[i], tok[j]))
        if r is None or r[0] != rank:
            continue
        tok[i] = r[1]
        alive[j] = False
        k = nxt[j]
        nxt[i] = k
        if k >= 0:
            prv[k] = i
            r2 = ranks.get((tok[i], tok[k]))
            if r2 is not None:
                heapq.heappush(heap, (r2[0], i))
        p = prv[i]
        if p >= 0:
            r2 = ranks.get((tok[p], tok[i]))
            if r2 is not None:
                heapq.heappush(heap, (r2[0], p))
    out = []
    i = 0
    while i >= 0:
        out.append(tok[i])
        i = nxt[i]
    return out

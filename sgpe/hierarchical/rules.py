"""The rule of the hierarchical mode: which merges may not cut a syllable (the package
docstring, sgpe/hierarchical/__init__.py, explains the mode)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Literal

from ..schema import OTHER
from ..syllables import Span, Syllabifier, get_syllabifier

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
# The merge loop writes a pair of symbol ids as one integer, left << PAIR_SHIFT | right
# (ids stay below _LIMIT = 1 << 19).
PAIR_SHIFT = 20


def superword_words(token: str) -> int:
    """How many words a token holds (a superword holds several; a piece's token one)."""
    return len(token.split())


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

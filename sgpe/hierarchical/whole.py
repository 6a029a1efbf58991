"""Whole syllables: every syllable of the training corpus becomes a token.

For most scripts a rare syllable may stay in parts (``ක`` + ``ා``): no token crosses its
boundary, and the merge budget goes where it pays. Thai and Lao are otherwise. Their
syllables are Thai Character Clusters, which the writing system never cuts, and a
syllable left in parts is a cluster cut in two, on every line it occurs in. Their schemas
say so (``"whole_syllables": true``, :attr:`sgpe.schema.Schema.whole_syllables`), and for
them the trainer ends with every syllable it saw as one token.

How, within the vocabulary size and without a second merge rule:

1. The merge loop learns its merges as for any script.
2. :func:`completion_plan` finds the largest prefix of those merges that leaves room for
   the merges still needed to complete every syllable of those scripts. For each such
   syllable, in order of frequency (then string), its parts under the merges so far are
   joined left to right, each join a new part merge appended to the list.
3. The trainer replays that prefix and the appended merges (the loop's replay, so the
   symbol counts, merge counts and ids come out as for any run).

A prefix of the loop's merges is the state of a loop stopped there, so the result is a
run of the same loop, with a tail of part merges that are all legal (each one's result is
a part of one syllable, or the whole of it). Appended merges never tear anything the loop
built, and the encoder needs no new rule: it applies part merges in rank order as ever.
Nothing here depends on the engine: the plan reads only strings.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .rules import PART, MergeKind
from .units import HierarchicalState

# A merge as the trainer lists it: (left, right, kind).
Merge = tuple[str, str, MergeKind]
# The kind of a merge from its two strings (merge_kind with the corpus's syllabifier).
KindOf = Callable[[str, str], MergeKind]


def _apply(parts: list[str], rank: dict[tuple[str, str], int]) -> list[tuple[int, list[str]]]:
    """The merges of ``rank`` applied to ``parts`` in rank order (the encoder's part
    assembly, :class:`sgpe.hierarchical.HierarchicalEncoder`): each step's rank and the
    parts after it. The ranks only grow: a pair a merge makes holds its new symbol, and
    every merge of that symbol was learned after it."""
    steps: list[tuple[int, list[str]]] = []
    while len(parts) > 1:
        best = -1
        at = -1
        for i in range(len(parts) - 1):
            r = rank.get((parts[i], parts[i + 1]))
            if r is not None and (best < 0 or r < best):
                best, at = r, i
        if best < 0:
            break
        parts = [*parts[:at], parts[at] + parts[at + 1], *parts[at + 2 :]]
        steps.append((best, parts))
    return steps


class _Planner:
    """The completions of ``units`` after any prefix of ``merges``, made quickly enough to
    try a dozen prefixes: each unit's assembly under all the loop's part merges is traced
    once, and its parts after the first ``n`` merges are the trace's last step below
    ``n``."""

    def __init__(
        self, units: Sequence[str], merges: Sequence[Merge], base: Sequence[str], kind: KindOf
    ) -> None:
        self.units = units
        self.kind = kind
        self.base = set(base)
        rank: dict[tuple[str, str], int] = {}
        # The index of the first merge that makes each symbol (a later one may spell it
        # again), and how many symbols the first n merges make.
        self.first: dict[str, int] = {}
        self.made_upto = [0]
        for i, (a, b, k) in enumerate(merges):
            sym = a + b
            if sym not in self.first and sym not in self.base:
                self.first[sym] = i
                self.made_upto.append(self.made_upto[-1] + 1)
            else:
                self.made_upto.append(self.made_upto[-1])
            # Only part merges act inside a unit (join merges act on whole units in words).
            if k == PART:
                rank.setdefault((a, b), i)
        self.traces = [(list(u), _apply(list(u), rank)) for u in units]

    def completions(self, n: int, count: int | None = None) -> tuple[int, list[Merge]]:
        """The symbols after the first ``n`` merges and the part merges that complete the
        first ``count`` units (all by default) after them, in that order; and those merges.

        Each step merges the first adjacent pair that is a part merge by ``kind`` (the kind
        a loaded vocabulary gives it, :func:`sgpe.hierarchical.merge_kind`): two whole
        syllables that the grammar cuts apart when they stand alone (Thai เป + ลี่, of
        เปลี่ย) would be a join merge, applied between units and never inside one. A unit
        with no such pair left stays in parts: after the loop made ``เส`` of ``เสร็จ``,
        ``เส`` + ``ร็`` and ``ร็`` + ``จ`` are both such pairs. On the 8k vocabulary of
        ``python -m bench thai`` no syllable of the training text is left so."""
        rank: dict[tuple[str, str], int] = {}
        extra: list[Merge] = []
        new: set[str] = set()
        for spelled, steps in self.traces[:count]:
            parts = spelled
            for r, after in steps:
                if r >= n:
                    break
                parts = after
            if extra:  # the completions so far act on it too, in their order
                parts = (_apply(parts, rank) or [(0, parts)])[-1][1]
            while len(parts) > 1:
                at = next(
                    (i for i in range(len(parts) - 1) if self.kind(parts[i], parts[i + 1]) == PART),
                    -1,
                )
                if at < 0:
                    break
                a, b = parts[at], parts[at + 1]
                rank[(a, b)] = n + len(extra)
                extra.append((a, b, PART))
                sym = a + b
                if sym not in self.base and self.first.get(sym, n) >= n:
                    new.add(sym)
                parts = [*parts[:at], sym, *parts[at + 2 :]]
        return len(self.base) + self.made_upto[n] + len(new), extra


def completion_plan(
    units: Sequence[str],
    merges: Sequence[Merge],
    base: Sequence[str],
    target_symbols: int,
    kind: KindOf,
) -> tuple[int, list[Merge]] | None:
    """How many of the loop's ``merges`` to keep, and the part merges to append, so that
    every unit of ``units`` (syllables spelled with ``base`` symbols only, most frequent
    first) is one symbol and the symbols stay within ``target_symbols``. None when the
    loop's merges complete them all already. A vocabulary too small for every syllable
    keeps none of the loop's merges and as many of the most frequent syllables as fit.

    The prefix is the longest that fits when the symbols of a prefix and its completions
    never fall as the prefix grows, which is how they behave (a merge of the loop's costs
    one symbol and saves at most one completion), and a prefix that fits in any case: it
    is found by stepping down by the excess until a prefix fits, then by bisection."""
    plan = _Planner(units, merges, base, kind)
    n_all = len(merges)
    total, extra = plan.completions(n_all)
    if not extra:
        return None
    if total <= target_symbols:
        return n_all, extra
    fits, best = plan.completions(0)
    if fits > target_symbols:
        # Too small a vocabulary for every syllable: the most frequent ones that fit, and
        # no merge of the loop's (the syllables are what such a vocabulary is made of).
        lo, hi = 0, len(units)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if plan.completions(0, mid)[0] <= target_symbols:
                lo = mid
            else:
                hi = mid
        return 0, plan.completions(0, lo)[1]
    lo, hi = 0, n_all  # the prefix lo fits, the prefix hi does not
    n, count = n_all, total
    while count > target_symbols:
        hi = n
        n = max(lo, n - (count - target_symbols))
        count, extra = plan.completions(n)
    lo, best = n, extra
    while hi - lo > 1:
        mid = (lo + hi) // 2
        count, mid_extra = plan.completions(mid)
        if count <= target_symbols:
            lo, best = mid, mid_extra
        else:
            hi = mid
    return lo, best


def whole_syllable_letters(script: str) -> frozenset[str]:
    """The letters of the scripts under ``script`` whose schemas keep every syllable
    whole, less those another of its schemas claims too (the joiners ZWJ and ZWNJ, which
    every Brahmic grammar classes). None of the twelve Indic and Brahmic scripts of 0.3
    keeps them whole: their vocabularies do not change."""
    from ..schema import schemas_for

    schemas = schemas_for(script)
    whole = frozenset().union(*(s.code_points for s in schemas if s.whole_syllables))
    return whole.difference(*(s.code_points for s in schemas if not s.whole_syllables))


def whole_units(
    state: HierarchicalState, base: Sequence[str], letters: frozenset[str]
) -> list[str]:
    """The unit types of ``state`` to complete: syllables (not orphans) written in
    ``letters`` and spelled with base symbols only, most frequent first (then by string,
    so the corpus order does not matter)."""
    known = set(base)
    chosen = [
        (weight, unit)
        for unit, weight, joinable in zip(
            state.unit_strings, state.unit_weight, state.unit_joinable
        )
        if joinable and len(unit) > 1 and not letters.isdisjoint(unit) and known.issuperset(unit)
    ]
    chosen.sort(key=lambda wu: (-wu[0], wu[1]))
    return [unit for _, unit in chosen]

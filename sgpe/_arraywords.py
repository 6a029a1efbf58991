"""The word level of the hierarchical merge loop in numpy arrays, for long pieces.

:class:`sgpe.hierarchical.HierarchicalEngine` keeps its words as strings and visits, for
each merge, every word that holds the merged pair. That costs Python work per word, which
ordinary text pays little of (it repeats its words, so a merge meets each word type once)
but text without spaces pays in full: its pieces are chunks of up to 128 syllables that
do not repeat, so a merge meets nearly every occurrence in the corpus one word at a time,
in strings a hundred units long.

Here the words are one array of symbol ids (a linked list over positions, so a merge
deletes the right half of each occurrence without moving the rest), and a merge is a few
array operations over all its occurrences at once. What is left per merge is one update
per *distinct* neighbouring pair whose count changes, mapped over the engine's count
dictionary at C speed. The counts are keyed by pair code (``left << PAIR_SHIFT | right``)
and are the counts the string level would have after every merge, so both levels learn
the same merges (``tests/test_hierarchical.py`` trains with both and compares the
vocabularies).

Layout: the words one after the other, each followed by a separator; position 0 is a
separator too, so every position has a left and a right neighbour. Values at or above
``limit`` (placeholders of units not assembled yet, barriers, separators and deleted
positions) never form a pair. Occurrences are found through an index of the positions
that hold each symbol, kept as a list of arrays and compacted when it is read (a position
whose symbol changed is dropped then).
"""

from __future__ import annotations

from itertools import repeat
from operator import add
from typing import Any

import numpy as np

from .pieces import PAIR_SHIFT as _SHIFT

#: Pairs (codes) whose count grew, grouped by their count now: ``[(count, [code, ...])]``.
Grown = list[tuple[int, list[int]]]


def _sum_by_code(codes: Any, weights: Any) -> tuple[Any, Any]:
    """Distinct codes (sorted) and the sum of the weights of each, exact in int64."""
    if not len(codes):
        return codes, np.zeros(0, dtype=np.int64)
    order = np.argsort(codes)
    sc = codes[order]
    starts = np.flatnonzero(np.concatenate(([True], sc[1:] != sc[:-1])))
    return sc[starts], np.add.reduceat(weights[order], starts, dtype=np.int64)


def _translate(seq: Any, first: int, translation: dict[int, str]) -> None:
    """Apply ``translation`` (placeholder -> symbol) to the placeholders in ``seq``, which
    are ``first`` and above, in place."""
    inside = np.flatnonzero(seq >= first)
    if not len(inside):
        return
    held = seq[inside] - first
    keys = np.fromiter(translation, dtype=np.int64, count=len(translation)) - first
    table = np.arange(max(int(held.max()), int(keys.max())) + 1) + first
    table[keys] = np.fromiter(map(ord, translation.values()), dtype=np.int64, count=len(keys))
    seq[inside] = table[held]


class ArrayWords:
    """The words of the hierarchical state, as arrays (see the module docstring)."""

    def __init__(
        self,
        words: list[str],
        counts: list[int],
        limit: int,
        translation: dict[int, str] | None = None,
    ) -> None:
        """``translation``: placeholder -> symbol, applied to the words' ids (as
        ``str.translate`` would apply it to the words)."""
        self.limit = limit
        lengths = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
        total = int(lengths.sum()) + len(words) + 1
        # One separator (the limit itself: never part of a pair) before the first word and
        # after each word. The words are joined by one character each, whose positions then
        # become separators (a word's own characters may be any id, "\x00" included).
        body = np.frombuffer(
            "\x00".join(words).encode("utf-32-le", "surrogatepass"), dtype=np.uint32
        )
        seq = np.full(total, limit, dtype=np.int32)
        seq[1 : 1 + len(body)] = body
        seq[np.cumsum(lengths[:-1] + 1)] = limit
        if translation:
            _translate(seq, limit + 1, translation)
        self.seq = seq
        # A piece's count at each of its positions; 32 bits when every count fits (text
        # without spaces: mostly 1), as the positions themselves are.
        per_word = np.asarray(counts, dtype=np.int64)
        small = not len(per_word) or int(per_word.max()) < 1 << 31
        weight = np.zeros(total, dtype=np.int32 if small else np.int64)
        weight[1:] = np.repeat(per_word, lengths + 1)
        self.weight = weight
        self.nxt = np.arange(1, total + 1, dtype=np.int32)
        self.nxt[-1] = total - 1
        self.prv = np.arange(-1, total - 1, dtype=np.int32)
        self.prv[0] = 0
        self._mark = np.zeros(total, dtype=bool)
        # symbol or placeholder id -> positions that held it (some may be stale)
        self.where: dict[int, list[Any]]
        ids = np.flatnonzero(seq != limit).astype(np.int32)
        held = seq[ids]
        # Positions grouped by the value they hold: a stable sort of the values' ranks,
        # which numpy does as a radix sort when the ranks fit in 16 bits (the usual case:
        # a few thousand symbols and syllable types).
        sizes = np.bincount(held)
        values = np.flatnonzero(sizes)
        rank = np.zeros(len(sizes), dtype=np.int32)
        rank[values] = np.arange(len(values), dtype=np.int32)
        ranks = rank[held]
        if len(values) <= 1 << 16:
            ranks = ranks.astype(np.uint16)
        groups = np.split(ids[np.argsort(ranks, kind="stable")], np.cumsum(sizes[values])[:-1])
        self.where = {v: [g] for v, g in zip(values.tolist(), groups)}

    def initial_counts(self) -> dict[int, int]:
        """The count of every pair of adjacent symbols (placeholders are not symbols)."""
        seq, lim = self.seq, self.limit
        left = seq[:-1]
        right = seq[1:]
        ok = np.flatnonzero((left < lim) & (right < lim))
        codes = (left[ok].astype(np.int64) << _SHIFT) | right[ok]
        uc, sums = _sum_by_code(codes, self.weight[ok])
        return dict(zip(uc.tolist(), sums.tolist()))

    def _held(self, value: int) -> int:
        """How many positions the index lists for ``value`` (stale ones included)."""
        return sum(map(len, self.where.get(value, ())))

    def _positions(self, value: int) -> Any:
        """The positions that hold ``value`` now (the index entry, compacted)."""
        chunks = self.where.get(value)
        if not chunks:
            return np.empty(0, dtype=np.int32)
        pos = chunks[0] if len(chunks) == 1 else np.concatenate(chunks)
        pos = pos[self.seq[pos] == value]
        self.where[value] = [pos]
        return pos

    def _update(self, pc: dict[int, int], codes: Any, weights: Any) -> Grown:
        """Add the summed weights of each pair code to its count. Returns the pairs whose
        count grew, grouped by their new count (ascending), for the merge queue. No Python
        code runs per pair: lookups, sums and stores are mapped at C speed."""
        if not len(codes):
            return []
        uc, sums = _sum_by_code(codes, weights)
        pairs = uc.tolist()
        values = list(map(add, map(pc.get, pairs, repeat(0)), sums.tolist()))
        pc.update(zip(pairs, values))
        up = np.flatnonzero(sums > 0)
        if not len(up):
            return []
        now = np.asarray(values, dtype=np.int64)[up]
        order = np.argsort(now, kind="stable")
        now = now[order]
        up = up[order].tolist()
        cut = np.flatnonzero(np.concatenate(([True], now[1:] != now[:-1]))).tolist()
        ends = [*cut[1:], len(up)]
        at = pairs.__getitem__
        return [(c, list(map(at, up[i:j]))) for c, i, j in zip(now[cut].tolist(), cut, ends)]

    def complete(self, placeholder: int, symbol: int, pc: dict[int, int]) -> Grown:
        """A unit type is now one symbol: its placeholder becomes the symbol everywhere,
        and the pairs it now makes with its neighbours are counted."""
        pos = self._positions(placeholder)
        self.where.pop(placeholder, None)
        if not len(pos):
            return []
        self.seq[pos] = symbol
        self.where.setdefault(symbol, []).append(pos)
        codes, weights = self._neighbours(pos, self.nxt[pos], pos, symbol, symbol)
        return self._update(pc, codes, weights)

    def _neighbours(
        self, pos: Any, right: Any, taken: Any, first: int, last: int
    ) -> tuple[Any, Any]:
        """The codes and weights of the pairs that the runs starting at ``pos`` (beginning
        with the symbol ``first``, ending with ``last``, followed by the positions
        ``right``) make with their neighbours. A left neighbour in ``taken`` ends another
        of the runs, whose right pair this is: it is counted once, there."""
        seq, lim, mark = self.seq, self.limit, self._mark
        left = self.prv[pos]
        mark[taken] = True
        lv = seq[left]
        lok = (lv < lim) & ~mark[left]
        mark[taken] = False
        rv = seq[right]
        rok = rv < lim
        w = self.weight[pos]
        codes = np.concatenate(
            ((lv[lok].astype(np.int64) << _SHIFT) | first, (np.int64(last) << _SHIFT) | rv[rok])
        )
        return codes, np.concatenate((w[lok], w[rok]))

    def join(self, a: int, b: int, new: int, pc: dict[int, int]) -> Grown:
        """Merge every occurrence of the pair ``(a, b)`` into ``new``, left to right within
        a word (as ``str.replace``), and update the counts of the neighbouring pairs. The
        merged pair's own count is left to the caller."""
        seq, nxt, prv, lim = self.seq, self.nxt, self.prv, self.limit
        # Occurrences through the index of whichever symbol is held at fewer positions.
        if a != b and self._held(b) < self._held(a):
            pb = self._positions(b)
            lp = prv[pb]
            pos = lp[seq[lp] == a]
        else:
            pa = self._positions(a)
            pos = pa[seq[nxt[pa]] == b]
        if not len(pos):
            return []
        if a == b:
            pos = self._from_the_left(np.sort(pos))
        q = nxt[pos]
        r = nxt[q]
        # Pairs that disappear: (left, a) and (b, right); a left neighbour that is the b of
        # the occurrence just before makes that occurrence's right pair.
        old, old_w = self._neighbours(pos, r, q, a, b)
        # The merge: a becomes new, b's position leaves the list.
        seq[pos] = new
        seq[q] = lim
        nxt[pos] = r
        prv[r] = pos
        self.where.setdefault(new, []).append(pos)
        # Pairs that appear: (left, new) and (new, right); two occurrences side by side make
        # one (new, new).
        codes, weights = self._neighbours(pos, r, pos, new, new)
        return self._update(pc, np.concatenate((old, codes)), np.concatenate((-old_w, weights)))

    def _from_the_left(self, pos: Any) -> Any:
        """Occurrences of a pair of one symbol (sorted positions) as ``str.replace`` takes
        them: in a run of that symbol, from the left, skipping one that starts where a taken
        one ends."""
        mark, prv = self._mark, self.prv
        mark[pos] = True
        overlap = bool(mark[prv[pos]].any())
        mark[pos] = False
        if not overlap:
            return pos
        taken: list[int] = []
        last = -1
        for p, left in zip(pos.tolist(), prv[pos].tolist()):
            if left != last:  # else p is the right half of the one taken at `left`
                taken.append(p)
                last = p
        return np.asarray(taken, dtype=np.int32)

    def usage(self, freq: list[int]) -> None:
        """Add how often each symbol is used in the words to ``freq``."""
        seq = self.seq
        ok = np.flatnonzero(seq < self.limit)
        if not len(ok):
            return
        sym, sums = _sum_by_code(seq[ok].astype(np.int64), self.weight[ok])
        for s, n in zip(sym.tolist(), sums.tolist()):
            freq[s] += n

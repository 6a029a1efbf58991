"""Plain BPE, written once for every model that uses it.

* :class:`PairMerges`, the training loop's state: the paper mode's merge loop
  (``_MergeEngine`` in sgpe/gpe.py, its alphabet the syllables) and the byte-level
  baseline's (``_learn_merges`` in sgpe/baselines/bytebpe.py, its alphabet the 256 bytes)
  both drive it. The rule: the adjacent pair with the highest count wins, ties go to the
  smallest pair of symbol ids, and a merge is applied to every word left to right without
  overlaps. The two drivers differ only in the id a merge makes (the byte baseline always
  appends one, ``256 + rank``; the paper mode reuses the id of a symbol whose string the
  merge spells again) and in when they stop; both are the caller's.
* :func:`bpe`, the encoder's merge rule: the lowest-ranked adjacent pair first, the
  leftmost on ties, rescanning short runs and using a heap over a linked list for long
  ones. The hierarchical encoder (sgpe/hierarchical/encoder.py), the paper mode's
  (sgpe/tokenizer.py) and the byte-level baseline's encode with it.
* :class:`ResumeMismatch`, the one error of a checkpoint that does not fit the corpus,
  whichever model or engine replays it.

The native core has the same loop (native/src/bpe.rs) and the same encoder rule
(native/src/encoder.rs).
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Callable, Sequence
from operator import add
from typing import Any, TypeVar, cast

__all__ = [
    "LONG_RUN",
    "PairMerges",
    "ResumeMismatch",
    "bpe",
    "bpe_heap",
    "bpe_with_sizes",
    "pop_fresh",
]


class ResumeMismatch(ValueError):
    """A checkpoint's merges do not fit this corpus and these settings."""


# ============================================================================ training

HeapEntry = TypeVar("HeapEntry", bound=tuple[Any, ...])


def pop_fresh(
    heap: list[HeapEntry], count_of: Callable[[HeapEntry], int]
) -> tuple[HeapEntry, int] | None:
    """Pop the best entry ``(-count, ...)`` whose count is current (lazy refresh): a stale
    entry is pushed back with its current count, a consumed one (count 0) dropped. Shared
    by every training loop (this module's and the hierarchical mode's)."""
    while heap:
        entry = heapq.heappop(heap)
        actual = count_of(entry)
        if actual == -entry[0]:
            return entry, actual
        if actual > 0:
            heapq.heappush(heap, cast(HeapEntry, (-actual, *entry[1:])))
    return None


class PairMerges:
    """The state of BPE training over weighted words.

    A word is a ``str`` whose characters are symbol ids (``chr(id)``): a merge is then
    ``str.split`` and ``str.join`` (left to right, without overlaps, at C speed), a pair
    is a 2-character string, and comparing pair strings compares ``(left_id, right_id)``,
    so the min-heap of ``(-count, pair)`` gives the tie-break. State kept across merges:

    * ``pair_counts``: the weighted count of every adjacent pair;
    * ``pair_to_words``: pair -> indexes of the words that may hold it (never pruned: a
      word that lost the pair is skipped by a substring test; an index listed twice is
      skipped the same way at its second visit);
    * ``heap``: ``(-count, pair)`` entries. Counts only grow for pairs that hold the
      merged symbol, and those are pushed again after each merge; an entry whose count is
      stale is refreshed when it reaches the top (:func:`pop_fresh`).

    A merge visits only the words listed for its pair, and changes only the pairs next to
    each merge site. ``words`` is the caller's list, merged in place.
    """

    def __init__(self, words: list[str], counts: Sequence[int]) -> None:
        self.words = words
        self.counts = counts
        pair_counts: defaultdict[str, int] = defaultdict(int)
        where: defaultdict[str, list[int]] = defaultdict(list)
        for index, (word, count) in enumerate(zip(words, counts)):
            if len(word) < 2:
                continue
            pairs = list(map(add, word, word[1:]))
            for pair in pairs:
                pair_counts[pair] += count
            for pair in set(pairs):
                where[pair].append(index)
        self.pair_counts = pair_counts
        self.pair_to_words = where
        self.heap: list[tuple[int, str]] = []
        self.rebuild_heap()

    def rebuild_heap(self) -> None:
        """The heap from the current counts. A replay leaves the lazy refresh's entries
        stale; the next choice depends only on the counts, so either heap picks alike."""
        self.heap = [(-count, pair) for pair, count in self.pair_counts.items()]
        heapq.heapify(self.heap)

    def count(self, pair: str) -> int:
        """The current count of ``pair`` (0 for an empty or unknown pair)."""
        return self.pair_counts.get(pair, 0)

    def best(self) -> tuple[str, int] | None:
        """The pair to merge next and its count, or None when no pair is left (a pair
        rebuilt with count 0 may come back last: the caller's ``min_freq`` stops there)."""
        counts = self.pair_counts
        got = pop_fresh(self.heap, lambda entry: counts.get(entry[1], 0))
        return None if got is None else (got[0][1], got[1])

    def merge(self, pair: str, new: str) -> None:
        """Replace ``pair`` by the symbol ``new`` in every word that has it, updating the
        counts of the pairs around each merge site; the pairs that hold ``new`` there are
        pushed on the heap, every other changed count can only have gone down (the lazy
        refresh takes care of those). ``new`` may already occur in the words (the paper
        mode reuses a symbol whose string a merge spells again): the sites are read from
        the split, not from where ``new`` is."""
        words, counts = self.words, self.counts
        pair_counts = self.pair_counts
        where = self.pair_to_words
        left, right = pair[0], pair[1]
        grown: set[str] = set()
        for index in where.pop(pair, ()):
            word = words[index]
            if pair not in word:
                continue  # a stale index entry: an earlier merge consumed the pair here
            # Merge site k sits between parts[k] and parts[k + 1].
            parts = word.split(pair)
            words[index] = new.join(parts)
            count = counts[index]
            for k in range(len(parts) - 1):
                before = parts[k]
                if before:
                    pair_counts[before[-1] + left] -= count
                    gained = before[-1] + new
                elif k:  # "a b a b" -> "X X": (b, a) becomes (X, X)
                    pair_counts[right + left] -= count
                    gained = new + new
                else:
                    gained = ""
                if gained:
                    pair_counts[gained] += count
                    where[gained].append(index)
                    grown.add(gained)
                after = parts[k + 1]
                if after:  # an empty part is the next site's (X, X), or the word's end
                    pair_counts[right + after[0]] -= count
                    gained = new + after[0]
                    pair_counts[gained] += count
                    where[gained].append(index)
                    grown.add(gained)
        # Every occurrence of the pair is gone: none survives a left-to-right merge,
        # including those the neighbour updates above may have touched.
        pair_counts.pop(pair, None)
        heap = self.heap
        for gained in grown:
            heapq.heappush(heap, (-pair_counts[gained], gained))

    def usage(self, symbols: int) -> list[int]:
        """How often each of the ``symbols`` ids occurs in the words now."""
        freq = [0] * symbols
        for word, count in zip(self.words, self.counts):
            for ch in word:
                freq[ord(ch)] += count
        return freq


# ============================================================================ encoding

#: Runs longer than this merge with the heap (the rescan is quadratic); the native core uses
#: the same threshold (tests/test_constants.py).
LONG_RUN = 24

Ranks = dict[tuple[int, int], tuple[int, int]]


def bpe(ids: list[int], ranks: Ranks) -> list[int]:
    """Merge the leftmost lowest-ranked pair until none applies (the original SGPE encoder's
    rule, and GPT-2's). ``ranks`` maps a pair of ids to ``(rank, merged id)``; ranks are
    unique, so the leftmost occurrence of the best pair wins. A run longer than
    :data:`LONG_RUN` takes :func:`bpe_heap`, the same merges in O(n log n)."""
    n = len(ids)
    if n < 2:
        return ids
    if n == 2:  # most runs: one lookup
        r = ranks.get((ids[0], ids[1]))
        return [r[1]] if r is not None else ids
    if n > LONG_RUN:
        return bpe_heap(ids, ranks)
    return bpe_with_sizes(ids, ranks)[0]


def bpe_with_sizes(ids: list[int], ranks: Ranks) -> tuple[list[int], list[int]]:
    """The rescan of :func:`bpe` at any length, also returning how many input symbols each
    output token covers: find the lowest-ranked adjacent pair, merge it, scan again."""
    ids = list(ids)
    sizes = [1] * len(ids)
    get = ranks.get
    while len(ids) > 1:
        best = None
        at = 0
        prev = ids[0]
        for i in range(1, len(ids)):
            cur = ids[i]
            r = get((prev, cur))
            if r is not None and (best is None or r < best):
                best, at = r, i - 1
            prev = cur
        if best is None:
            break
        ids[at : at + 2] = [best[1]]
        sizes[at : at + 2] = [sizes[at] + sizes[at + 1]]
    return ids, sizes


def bpe_heap(ids: list[int], ranks: Ranks) -> list[int]:
    """:func:`bpe` in O(n log n) for long runs: a heap of (rank, position) over a doubly
    linked list; entries made stale by earlier merges are skipped when popped. The same
    merges as the rescan (``tests/test_tokenizer.py`` compares them on long runs)."""
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

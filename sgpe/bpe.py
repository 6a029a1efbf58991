"""Plain BPE, written once for every model that uses it.

* :class:`PairMerges`, the training loop's state, and :class:`BpeTrainer`, the loop over
  it with the interface of the native core's (``replay``, ``learn`` in batches, ``usage``):
  the paper mode's merge loop (``_PaperLoop`` in sgpe/gpe.py, its alphabet the syllables)
  and the byte-level baseline's (``_learn_merges`` in sgpe/baselines/bytebpe.py, its
  alphabet the 256 bytes) drive either. The rule: the adjacent pair with the highest count
  wins, ties go to the smallest pair of symbol ids, and a merge is applied to every word
  left to right without overlaps. The two models differ only in the id a merge makes (the
  byte baseline always appends one, ``256 + rank``; the paper mode reuses the id of a
  symbol whose string the merge spells again, :func:`merged_symbol`) and in when they
  stop; both are the trainer's settings.
* :class:`StepLoop`, ``learn`` in batches for a Python loop that merges one pair at a time
  (:class:`BpeTrainer` and the hierarchical mode's loop).
* :func:`bpe`, the encoder's merge rule: the lowest-ranked adjacent pair first, the
  leftmost on ties, rescanning short runs and using a heap over a linked list for long
  ones. The hierarchical encoder (sgpe/hierarchical/encoder.py), the paper mode's
  (sgpe/tokenizer.py) and the byte-level baseline's encode with it.
* :class:`ResumeMismatch`, the one error of a checkpoint that does not fit the corpus,
  whichever model or engine replays it.

The native core has the same loops (native/src/bpe.rs, native/src/hierarchical.rs) and the same encoder rule
(native/src/encoder.rs).
"""

from __future__ import annotations

import heapq
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from operator import add
from typing import Any, Generic, TypeVar, cast

__all__ = [
    "LONG_RUN",
    "BpeTrainer",
    "PairMerges",
    "ResumeMismatch",
    "StepLoop",
    "bpe",
    "bpe_heap",
    "bpe_with_sizes",
    "merged_symbol",
    "pop_fresh",
]


class ResumeMismatch(ValueError):
    """A checkpoint's merges do not fit this corpus and these settings."""


# ============================================================================ training

HeapEntry = TypeVar("HeapEntry", bound=tuple[Any, ...])
Made = TypeVar("Made")  # what a loop's learn hands back for one merge


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


class StepLoop(Generic[Made]):
    """``learn`` for a merge loop written in Python, which merges one pair per
    :meth:`_step`: in batches, with a time budget and an error after the batch, as the
    native core's loops learn (native/src/bpe.rs, native/src/hierarchical.rs)."""

    _started: float | None = None

    @property
    def symbol_count(self) -> int:
        """How many symbols the vocabulary holds now."""
        raise NotImplementedError

    def _step(self, min_freq: int, elapsed: Callable[[], float]) -> Made | None:
        """Merge the best pair if it occurs at least ``min_freq`` times and say what was
        merged (``elapsed()``: the seconds since the loop started learning), or None when
        no such pair is left."""
        raise NotImplementedError

    def learn(
        self, target_symbols: int, min_freq: int, max_merges: int, seconds: float | None = None
    ) -> tuple[list[Made], bool, ValueError | None]:
        """Learn while there are fewer than ``target_symbols`` symbols, at most
        ``max_merges`` merges, stopping after ``seconds`` (None: no limit): the merges,
        whether the loop is finished, and the ``ValueError`` of the merge after them (a
        vocabulary beyond the symbol limit), or None."""
        now = time.perf_counter
        called = now()
        if self._started is None:
            self._started = called
        started = self._started

        def elapsed() -> float:
            return now() - started

        budget = float("inf") if seconds is None else seconds
        made: list[Made] = []
        try:
            while self.symbol_count < target_symbols and len(made) < max_merges:
                merge = self._step(min_freq, elapsed)
                if merge is None:
                    return made, True, None
                made.append(merge)
                if now() - called >= budget:
                    break
        except ValueError as error:
            return made, True, error
        return made, self.symbol_count >= target_symbols, None


def merged_symbol(symbols: list[str], symbol_id: dict[str, int], pair: str, limit: int) -> str:
    """The symbol (as ``chr(id)``) for merging the two symbols of ``pair``: an existing id
    when the concatenation is already a symbol, else a new id appended. Shared by both
    training modes' merge loops."""
    merged = symbols[ord(pair[0])] + symbols[ord(pair[1])]
    sid = symbol_id.get(merged)
    if sid is None:
        sid = len(symbols)
        if sid >= limit:
            raise ValueError(f"vocab_size above {limit:,} is not supported")
        symbols.append(merged)
        symbol_id[merged] = sid
    return chr(sid)


class BpeTrainer(StepLoop[tuple[int, int, int, int]]):
    """The Python twin of the native core's ``sgpe._native.BpeTrainer``
    (native/src/bpe.rs), with its interface: :class:`PairMerges` and the ids its merges
    make, replayed and learned in batches. Made with a symbol table (the paper mode: a
    merge reuses the id of a symbol whose string it spells again) or by :meth:`of_chunks`
    (the byte-level baseline: merge ``i`` makes id ``256 + i``)."""

    def __init__(self, symbols: Sequence[str], words: list[str], counts: Sequence[int]) -> None:
        self.loop = PairMerges(words, counts)
        # None for the byte-level baseline, whose ids need no strings.
        self._symbols: list[str] | None = list(symbols)
        self._symbol_id = {s: i for i, s in enumerate(symbols)}
        self._count = len(symbols)

    @classmethod
    def of_chunks(cls, chunks: Sequence[str], counts: Sequence[int]) -> BpeTrainer:
        """The byte-level baseline's loop: the unique chunks of the pre-tokenized corpus
        and their counts, each chunk counted as its UTF-8 bytes (a lone surrogate raises
        ``UnicodeEncodeError``)."""
        words: dict[str, int] = {}
        for chunk, count in zip(chunks, counts):
            if chunk:
                word = chunk.encode("utf-8").decode("latin-1")  # one code point per byte
                words[word] = words.get(word, 0) + count
        made = cls((), list(words), list(words.values()))
        made._symbols, made._count = None, 256
        return made

    @property
    def symbol_count(self) -> int:
        return self._count

    @property
    def unique_words(self) -> int:
        return len(self.loop.words)

    def _merge(self, pair: str) -> int:
        if self._symbols is None:
            if self._count >= 0x110000:
                raise ValueError("vocab_size above 1,114,112 is not supported")
            new = chr(self._count)
        else:
            new = merged_symbol(self._symbols, self._symbol_id, pair, 0x110000)
        self._count = max(self._count, ord(new) + 1)
        self.loop.merge(pair, new)
        return ord(new)

    def replay(self, left: int, right: int, min_freq: int) -> tuple[bool, int, int]:
        """Replay a checkpoint's next merge: (True, count, merged id) when it occurs at
        least ``min_freq`` times (it is applied), else (False, count, 0)."""
        if left >= self._count or right >= self._count:
            raise ValueError(
                f"merge ({left}, {right}) names a symbol that does not exist "
                f"(ids 0..{self._count - 1})"
            )
        pair = chr(left) + chr(right)
        count = self.loop.count(pair)
        if count < min_freq:
            return False, count, 0
        return True, count, self._merge(pair)

    def rebuild_heap(self) -> None:
        """The heap from the current counts (after a replay)."""
        self.loop.rebuild_heap()

    def _step(
        self, min_freq: int, elapsed: Callable[[], float]
    ) -> tuple[int, int, int, int] | None:
        best = self.loop.best()
        if best is None or best[1] < min_freq:
            return None
        pair, count = best
        return ord(pair[0]), ord(pair[1]), count, self._merge(pair)

    def usage(self) -> list[int]:
        """How often each symbol occurs in the words now."""
        return self.loop.usage(self._count)


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

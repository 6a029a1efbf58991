"""The merge loop of the hierarchical mode: the Python reference
(:class:`HierarchicalEngine`), written to be read, and the interface of the native loop
over the same state (:class:`NativeHierarchicalEngine`); :func:`merge_engine` asks the
engine seam (sgpe/_engine.py) which one runs."""

from __future__ import annotations

import gc
import heapq
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from .._driver import Learned
from .._engine import dispatch, native_hierarchical
from ..bpe import StepLoop, merged_symbol
from ..pieces import MAX_SUPERWORD_WORDS
from ..syllables import Syllabifier
from .rules import (
    _BARRIER,
    _CODE_KIND,
    _FIRST_PLACEHOLDER,
    _KIND_CODE,
    _LIMIT,
    PAIR_SHIFT,
    MergeKind,
    merge_kind,
    superword_words,
)
from .units import HierarchicalState, SuperwordSpans

# The merge queue (HierarchicalEngine._pop_best): pairs go onto the heap about this many at a
# time, the best of the pool first.
_HEAP_BATCH = 4096
_NO_FLOOR = 1 << 62  # above every count: at first every pair waits in the pool
# A pair of symbol ids as one integer, left << PAIR_SHIFT | right (ids are below _LIMIT): the
# merge queue orders pairs by it, which is the order of their two-character strings.
_PAIR_MASK = (1 << PAIR_SHIFT) - 1

# Every pair of adjacent symbol ids (placeholders and barriers are at or above _LIMIT), by
# one regex call: a zero-width match at each position captures the two characters there.
_SYMBOL_PAIRS = re.compile("(?=([\\x00-\\U0007ffff]{2}))").findall


def _pairs(s: str) -> list[str]:
    """Adjacent pairs of symbol ids in a level string, skipping placeholders and barriers."""
    return _SYMBOL_PAIRS(s) if len(s) > 1 else []


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


class _MergeLoop:
    """What both merge loops hand back alike: the symbols and the merges so far, read from
    the state (the native loop's are brought into it after every batch)."""

    st: HierarchicalState

    @property
    def symbols(self) -> list[str]:
        return self.st.symbols

    @property
    def symbol_count(self) -> int:
        return len(self.st.symbols)

    def merge_list(self) -> list[tuple[str, str, MergeKind]]:
        sy = self.st.symbols
        return [(sy[a], sy[b], _CODE_KIND[k]) for a, b, k in self.st.merges]


class HierarchicalEngine(_MergeLoop, StepLoop[Learned]):
    """The incremental two-level merge loop, with the interface of
    :class:`sgpe._driver.MergeLoop` (which :func:`sgpe._driver.run_merges` drives)."""

    def __init__(
        self,
        state: HierarchicalState,
        syllabifier: Syllabifier,
        spans: SuperwordSpans | None = None,
    ) -> None:
        self.st = state
        self.syll = syllabifier
        # Superwords (docs/algorithms.md): the spans wait for the transition.
        self.spans = spans if spans is not None and spans.words else None
        self.merge_counts: list[int] = []  # the pair count of each merge when it was chosen
        # Pairs (by code and kind) whose kind the strings do not confirm (see merge_kind);
        # never merged.
        self._checked: dict[tuple[int, int], bool] = {}
        # kind 0 (part): counts over unit types; kind 1 (join): counts over words. A pair is
        # keyed by its two-character string.
        self.counts: tuple[dict[str, int], dict[str, int]] = ({}, {})
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
        if state.translation:
            state.words = [w.translate(state.translation) for w in state.words]
        state.translation = {}
        # unit type -> indexes of the words that hold its placeholder
        self.unit_words: list[list[int]] = _unit_words(state)
        barrier = _BARRIER
        for wi, (word, c) in enumerate(zip(state.words, state.counts)):
            # At first most words are placeholders only (min() skips them at C speed).
            if len(word) > 1 and min(word) < barrier:
                self._add(1, word, c, wi)
        # Heap entries are (-count, code, kind, pair) and pool entries (code, kind, pair):
        # the code orders pairs as their strings do, in one integer comparison.
        self.heap: list[tuple[int, int, int, str]] = []
        self.floor = _NO_FLOOR
        self.pool: defaultdict[int, list[tuple[int, int, str]]] = defaultdict(list)
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
                    self.pool[c].append((_pair_code(p), k, p))

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
        assert spans is not None
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
        self.counts[kind].pop(pair, None)
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
    def replay(self, merges: Sequence[tuple[str, ...]], min_freq: int) -> tuple[int, int] | None:
        st = self.st
        for n, (left, right, kind_name) in enumerate(merges):
            if self._transition_due():
                self._to_spans()
            kind = _KIND_CODE.get(kind_name)  # type: ignore[call-overload]
            a, b = st.symbol_id.get(left), st.symbol_id.get(right)
            pair = "" if a is None or b is None else chr(a) + chr(b)
            count = self.counts[kind].get(pair, 0) if kind is not None else 0
            if count < min_freq:
                return n, count
            self.apply(pair, kind)
            self.merge_counts.append(count)
        if merges:
            self._rebuild_heap()
        return None

    def _step(self, min_freq: int, elapsed: Callable[[], float]) -> Learned | None:
        if self._transition_due():
            self._to_spans()
        best = self._pop_best()
        if best is None or best[2] < min_freq:
            return None
        pair, kind, count = best
        self.apply(pair, kind)
        self.merge_counts.append(count)
        return ord(pair[0]), ord(pair[1]), count, elapsed()

    def usage(self) -> list[int]:
        """How often each symbol is used in the final segmentation of the corpus."""
        st = self.st
        freq = [0] * len(st.symbols)
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


class NativeHierarchicalEngine(_MergeLoop):
    """:class:`HierarchicalEngine`'s interface (:class:`sgpe._driver.MergeLoop`,
    ``merge_list``) over the native merge loop (``sgpe._engine.native_hierarchical``): the
    same merges, counts and symbols, brought into the state after every batch."""

    def __init__(self, native: Any, state: HierarchicalState) -> None:
        self.native = native
        self.st = state
        self.merge_counts: list[int] = []

    def replay(self, merges: Sequence[tuple[str, ...]], min_freq: int) -> tuple[int, int] | None:
        if not merges:
            return None
        codes = [(a, b, _KIND_CODE.get(k, 2)) for a, b, k in merges]  # type: ignore[call-overload]
        bad: tuple[int, int] | None = self.native.resume(codes, min_freq)
        self._sync()
        return bad

    def learn(
        self, target_symbols: int, min_freq: int, most: int, seconds: float
    ) -> tuple[list[Learned], bool, Exception | None]:
        error = None
        try:
            done = bool(self.native.run(target_symbols, min_freq, most, seconds, 0))
        except ValueError as err:  # a vocabulary beyond the symbol limit
            done, error = True, err
        made = self._sync()
        return [(a, b, count, t) for a, b, _, count, t in made], done, error

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

    def usage(self) -> list[int]:
        """How often each symbol is used in the final segmentation of the corpus."""
        freq: list[int] = self.native.usage()
        return freq


def merge_engine(
    state: HierarchicalState,
    syllabifier: Syllabifier,
    script: str,
    leading_space: bool,
    spans: SuperwordSpans | None = None,
) -> HierarchicalEngine | NativeHierarchicalEngine:
    """The merge loop for ``state``: the native one under the native engine (for a
    built-in ``script`` setting), else the Python reference :class:`HierarchicalEngine`."""
    return dispatch(
        native_hierarchical(
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
        ),
        lambda native: _native_engine(native, state),
        lambda: _python_engine(state, syllabifier, spans),
    )


def _python_engine(
    state: HierarchicalState, syllabifier: Syllabifier, spans: SuperwordSpans | None
) -> HierarchicalEngine | NativeHierarchicalEngine:
    return HierarchicalEngine(state, syllabifier, spans)


def _native_engine(
    native: Any, state: HierarchicalState
) -> HierarchicalEngine | NativeHierarchicalEngine:
    # The native loop holds its own copy of the words; the state keeps the symbols, merges
    # and unit types (read after training).
    state.words, state.counts, state.translation = [], [], {}
    return NativeHierarchicalEngine(native, state)

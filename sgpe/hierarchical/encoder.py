"""Encoding with a hierarchical vocabulary: part merges inside units, then join merges
across whole units (sgpe/hierarchical/__init__.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .._engine import merge_kinds
from ..bpe import bpe, bpe_with_sizes
from ..syllables import get_syllabifier
from .rules import PART, MergeKind, merge_kind, wholeness

# Units whose tokens are remembered (then the cache starts afresh); the native core's unit
# cache per thread has the same size (tests/test_constants.py).
_UNIT_CACHE_LIMIT = 200_000


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
        self.kinds: list[MergeKind] = (
            list(kinds)
            if kinds is not None
            else merge_kinds(
                script,
                leading_space,
                merges,
                lambda: [merge_kind(a, b, self.syll) for a, b in merges],
            )
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
            if len(self._unit_cache) >= _UNIT_CACHE_LIMIT:
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

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

What keeps it fast (pure Python over C-speed ``str``, ``re`` and ``Counter``):

* **One pass over the pieces** (:func:`corpus_units`): the distinct pieces are split into
  units by the grammar regex, one call per 256K characters, and each piece is coded as a
  string with one character per unit type (pieces longer than the cap are cut there, by
  slicing); unit weights, the corpus's character counts (for the base alphabet) and the
  words then come from ``Counter``, ``str.translate`` and
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
a time, touching only the neighbours of each occurrence. The native core is the fast path
there (``docs/large_corpora.md`` has the figures).

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

The package: :mod:`~sgpe.hierarchical.rules` (which merges are legal),
:mod:`~sgpe.hierarchical.units` (the corpus as units, the initial state),
:mod:`~sgpe.hierarchical.engine` (the merge loop) and :mod:`~sgpe.hierarchical.encoder`
(encoding); the names below are importable from ``sgpe.hierarchical`` itself.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .encoder import HierarchicalEncoder
    from .engine import (
        HierarchicalEngine,
        NativeHierarchicalEngine,
        merge_engine,
        paused_gc,
    )
    from .rules import (
        JOIN,
        PART,
        MergeKind,
        joinable_span,
        merge_kind,
        superword_words,
        unit_joinable,
        wholeness,
    )
    from .units import (
        CorpusUnits,
        HierarchicalState,
        SuperwordSpans,
        build_state,
        code_spans,
        corpus_units,
        split_spans,
    )

# Each name's module, imported on first use: loading a vocabulary needs the encoder alone,
# not the merge loop (engine.py) nor the corpus units (units.py), which training imports.
_HOMES = {
    "HierarchicalEncoder": "encoder",
    **dict.fromkeys(
        (
            "HierarchicalEngine",
            "NativeHierarchicalEngine",
            "merge_engine",
            "paused_gc",
        ),
        "engine",
    ),
    **dict.fromkeys(
        (
            "JOIN",
            "PART",
            "MergeKind",
            "joinable_span",
            "merge_kind",
            "superword_words",
            "unit_joinable",
            "wholeness",
        ),
        "rules",
    ),
    **dict.fromkeys(
        (
            "CorpusUnits",
            "HierarchicalState",
            "SuperwordSpans",
            "build_state",
            "code_spans",
            "corpus_units",
            "split_spans",
        ),
        "units",
    ),
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "JOIN",
    "PART",
    "CorpusUnits",
    "HierarchicalEncoder",
    "HierarchicalEngine",
    "HierarchicalState",
    "MergeKind",
    "NativeHierarchicalEngine",
    "SuperwordSpans",
    "build_state",
    "code_spans",
    "corpus_units",
    "joinable_span",
    "merge_engine",
    "merge_kind",
    "paused_gc",
    "split_spans",
    "superword_words",
    "unit_joinable",
    "wholeness",
]

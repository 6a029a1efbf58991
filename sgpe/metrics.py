"""Tokenizer metrics for any tokenizer: compression, UNK rate, round trips, broken syllables.

Every metric is computed from one record per text, :class:`Encoded` (token ids, each
token's span in the text's UTF-8 bytes, the number of UNK ids, the decoded text), which
:meth:`~sgpe.protocol.TokenizerLike.measure` of the tokenizer contract makes: our
:class:`~sgpe.tokenizer.Tokenizer` and :class:`~sgpe.baselines.bytebpe.ByteBPETokenizer`
directly, ``tiktoken.Encoding``, Hugging Face ``tokenizers.Tokenizer`` and
``sentencepiece.SentencePieceProcessor`` through :func:`sgpe.adapters.as_tokenizer`.

Definitions (:func:`evaluate`). They are the ones the project's first measurements of
existing tokenizers used, and these functions reproduce those o200k_base and Hugging Face
numbers on ``si_dev.txt``/``hi_dev.txt`` exactly (``tests/test_metrics.py``); the
glossary (``docs/glossary.md``) says each in words:

* **line**: one document. A file is split on ``"\\n"`` only (:func:`read_lines`; a ``"\\r"``
  stays part of its line), and each line is encoded on its own, without its newline.
* **chars**: code points (``len(line)``); **words**: whitespace-separated words
  (``len(line.split())``); **tokens**: ids returned by the tokenizer's plain encode call
  (no BOS/EOS or other added special tokens).
* **TWR** = tokens / words (tokens per whitespace word, "fertility"); **CPT** = chars /
  tokens. A ratio whose denominator is 0 is reported as 0.0.
* **unk**: ids equal to the tokenizer's UNK id (``[UNK]`` for ours; ``unk_id()`` for
  SentencePiece; the model's ``unk_token``/``unk_id`` for Hugging Face); always 0 for
  byte-level tokenizers (tiktoken, ``ByteBPETokenizer``). **unk_pct** = 100 * unk / tokens.
* **roundtrip_fail**: lines where ``decode(encode(line)) != line`` (each tokenizer's own
  decode; invalid UTF-8 becomes U+FFFD). **roundtrip_fail_pct** = 100 * that / lines.
* **units** (what must never be cut): the tokens of ``syllabify(line, script="auto",
  leading_space=False)``: every syllable, orphan sign, passthrough character and
  whitespace character. A **cut** is a byte offset at which some token starts or ends
  (duplicates count once); for tokens that tile the text these are the ``tokens - 1``
  boundaries between neighbours. A cut is **broken** when it lies strictly between a
  unit's first and last byte: inside a syllable, or inside a multi-byte character (only a
  byte-level tokenizer can do that, and it may do it inside any unit). SGPE never learns
  a token that cuts a syllable, but with ``oov_policy="fallback"`` a syllable missing from
  the vocabulary is spelled with code-point or byte tokens, and those cuts count.
  **broken_per_1k** = 1000 * broken / tokens.
* **straddling**: broken cuts next to a token that reaches past the unit's edge (the
  syllable is torn across tokens; SGPE never does this; a single plain space before the
  unit does not count, as in a Metaspace or leading-space token ``" X"``), and **spelled_units**: units
  with broken cuts none of which straddle (the unit is spelled by several of its own
  parts). Each also per 1,000 tokens.
* **words_with_broken**: words (as in *words*) that contain at least one broken cut; a
  cut inside a multi-byte whitespace character belongs to no word.
  **words_with_broken_pct** = 100 * that / words.
* **encode_seconds**: wall time of the tokenizer's own encode calls only (for ours that
  call is ``encode_with_spans``); building spans, decoding and the metrics are not timed.
* **inexact_lines**: lines whose spans could not be read off the tokens' own bytes and
  were aligned from offsets (see :attr:`Encoded.exact`).

How spans are obtained for each kind of tokenizer is described in :mod:`sgpe.adapters`.

>>> from sgpe.metrics import broken_boundaries, spans_from_token_bytes
>>> text = "ශ්‍රී ලංකාව"  # units: ශ්‍රී (15 bytes), " " (1), ලං (6), කා (6), ව (3)
>>> pieces = [text.encode()[:6], text.encode()[6:15], text.encode()[15:]]
>>> broken_boundaries(text, spans_from_token_bytes(pieces))
BrokenBoundaries(broken=1, word_flags=[True, False], positions=[6], straddling=0, spelled_units=1, straddling_at=())
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable
from typing import Any, NamedTuple

from ._text import read_lines
from .adapters import as_tokenizer
from .spans import (  # re-exported: the metrics' record and span helpers
    ByteSpan,
    Encoded,
    TokenId,
    spans_from_char_offsets,
    spans_from_token_bytes,
)
from .syllables import syllable_ends

__all__ = [
    "BrokenBoundaries",
    "ByteSpan",
    "Encoded",
    "broken_boundaries",
    "encode_for_metrics",
    "evaluate",
    "inside_unit_mask",
    "read_lines",
    "spans_from_char_offsets",
    "spans_from_token_bytes",
    "token_byte_spans",
]


_WORD = re.compile(r"\S+")  # `\s` of `re` is exactly str.isspace(), so this agrees with str.split()


# ============================================================================
# The per-text record and span helpers
# ============================================================================


# ============================================================================
# Any tokenizer -> Encoded
# ============================================================================


def encode_for_metrics(tokenizer: Any, text: str) -> Encoded:
    """Encode `text` with any supported tokenizer into an :class:`Encoded` record.

    For many texts, get the contract once with :func:`sgpe.adapters.as_tokenizer` and call
    its ``measure``.
    """
    return as_tokenizer(tokenizer).measure(text)


def token_byte_spans(tokenizer: Any, text: str) -> tuple[list[TokenId], list[ByteSpan]]:
    """Token ids of `text` and each token's span in its UTF-8 bytes, for any tokenizer."""
    encoded = encode_for_metrics(tokenizer, text)
    return encoded.ids, encoded.spans


# ============================================================================
# Broken syllables
# ============================================================================


class BrokenBoundaries(NamedTuple):
    """Cuts strictly inside a unit: how many, which words hold one, and where (bytes).

    A broken cut is of one of two kinds. It *straddles* when a token on either side of it
    reaches past the unit's edge (the token holds the end of one unit and the start of
    the next, or more): a syllable torn across tokens. Otherwise both neighbours lie inside
    the unit: the syllable is *spelled* by several of its own parts (the hierarchical SGPE
    mode does this for a syllable it has not learned whole).
    """

    broken: int
    word_flags: list[bool]  # one per word of text.split(): holds a broken cut
    positions: list[int]  # the broken cuts' byte offsets, ascending
    straddling: int = 0  # broken cuts next to a token that crosses the unit's edge
    spelled_units: int = 0  # units with a broken cut, all of whose cuts are not straddling
    straddling_at: tuple[int, ...] = ()  # the straddling cuts' byte offsets, ascending

    @property
    def words_with_broken(self) -> int:
        return sum(self.word_flags)


def inside_unit_mask(text: str, script: str = "auto") -> bytearray:
    """``mask[b] == 1`` iff byte offset ``b`` (0..len(utf8)) lies strictly inside a unit.

    Units are the tokens of ``syllabify(text, script, leading_space=False)``, so an offset
    inside a multi-byte character is always inside. Built once per text in O(n).

    >>> list(inside_unit_mask("කා a"))  # කා = 6 bytes, then " ", "a"
    [0, 1, 1, 1, 1, 1, 0, 0, 0]
    """
    size = len(text.encode("utf-8"))
    mask = bytearray(b"\x01") * (size + 1)
    mask[0] = 0
    for offset in syllable_ends(text, script, utf8=True):
        mask[offset] = 0
    return mask


def _word_byte_ranges(text: str) -> tuple[list[int], list[int]]:
    """Start and end byte offsets of the words of ``text.split()``."""
    starts: list[int] = []
    ends: list[int] = []
    char_pos = byte_pos = 0
    for m in _WORD.finditer(text):
        start, end = m.span()
        byte_pos += len(text[char_pos:start].encode("utf-8"))
        starts.append(byte_pos)
        byte_pos += len(text[start:end].encode("utf-8"))
        ends.append(byte_pos)
        char_pos = end
    return starts, ends


def broken_boundaries(
    text: str,
    spans: Iterable[ByteSpan],
    *,
    script: str = "auto",
    mask: bytearray | None = None,
) -> BrokenBoundaries:
    """Token cuts that fall strictly inside a syllable (or any unit, or a character).

    `spans` are the tokens' UTF-8 byte spans; every distinct start and end offset is a cut.
    `mask` may pass a precomputed :func:`inside_unit_mask` of `text`.

    >>> broken_boundaries("අ ආ", [(0, 1), (1, 3), (3, 4), (4, 7)])  # 1 is inside අ
    BrokenBoundaries(broken=1, word_flags=[True, False], positions=[1], straddling=0, spelled_units=1, straddling_at=())
    >>> broken_boundaries("කා", [(0, 3), (3, 6)])  # ක + ා: a syllable spelled by two parts
    BrokenBoundaries(broken=1, word_flags=[True], positions=[3], straddling=0, spelled_units=1, straddling_at=())
    """
    inside = mask if mask is not None else inside_unit_mask(text, script)
    cuts = set()
    for start, end in spans:
        cuts.add(start)
        cuts.add(end)
    if cuts and (min(cuts) < 0 or max(cuts) >= len(inside)):
        raise ValueError(
            f"token spans must lie within 0..{len(inside) - 1} (the text's length in UTF-8 "
            f"bytes); got offsets {min(cuts)}..{max(cuts)}"
        )
    positions = sorted(p for p in cuts if inside[p])
    flags = [False] * len(text.split())
    if not positions:
        return BrokenBoundaries(0, flags, positions)
    starts, ends = _word_byte_ranges(text)
    for p in positions:
        k = bisect_right(starts, p) - 1
        if k >= 0 and p < ends[k]:
            flags[k] = True
    bounds = [b for b in range(len(inside)) if not inside[b]]
    first_start: dict[int, int] = {}  # token end -> earliest start of a token ending there
    last_end: dict[int, int] = {}  # token start -> latest end of a token starting there
    for start, end in spans:
        first_start[end] = min(start, first_start.get(end, start))
        last_end[start] = max(end, last_end.get(start, end))
    straddling = 0
    straddling_at: list[int] = []
    cut_units: set[int] = set()
    torn_units: set[int] = set()
    raw = text.encode("utf-8")
    for p in positions:
        k = bisect_right(bounds, p) - 1
        lo, hi = bounds[k], bounds[k + 1]
        cut_units.add(k)
        # A plain space before a unit may ride with it (a leading-space or Metaspace token
        # " X"); reaching further left, or past the unit's end, tears the syllable.
        reach = lo - 1 if lo > 0 and raw[lo - 1] == 0x20 else lo
        if first_start.get(p, lo) < reach or last_end.get(p, hi) > hi:
            straddling += 1
            straddling_at.append(p)
            torn_units.add(k)
    return BrokenBoundaries(
        len(positions),
        flags,
        positions,
        straddling,
        len(cut_units - torn_units),
        tuple(straddling_at),
    )


# ============================================================================
# Evaluation over many lines
# ============================================================================


def _ratio(numerator: float, denominator: float, scale: float = 1.0) -> float:
    return scale * numerator / denominator if denominator else 0.0


def evaluate(
    tokenizer: Any, lines: Iterable[str], *, script: str = "auto"
) -> dict[str, int | float]:
    """Metrics of a tokenizer over lines of text (definitions in the module docstring).

    Each line is encoded on its own; one trailing ``"\\n"`` is removed from a line if
    present, so an open file can be passed directly (but see :func:`read_lines`).

    >>> from sgpe.baselines.bytebpe import ByteBPETokenizer
    >>> m = evaluate(ByteBPETokenizer(), ["අ ආ"])
    >>> m["tokens"], m["twr"], m["broken"], m["words_with_broken"]
    (7, 3.5, 4, 2)
    """
    measure = as_tokenizer(tokenizer).measure
    n_lines = chars = words = tokens = unk = roundtrip_fail = 0
    broken = words_with_broken = inexact = straddling = spelled = 0
    seconds = 0.0
    for line in lines:
        if line.endswith("\n"):
            line = line[:-1]
        encoded = measure(line)
        seconds += encoded.seconds
        result = broken_boundaries(line, encoded.spans, script=script)
        n_lines += 1
        chars += len(line)
        words += len(result.word_flags)
        tokens += len(encoded.ids)
        unk += encoded.unk
        roundtrip_fail += encoded.decoded != line
        broken += result.broken
        straddling += result.straddling
        spelled += result.spelled_units
        words_with_broken += result.words_with_broken
        inexact += not encoded.exact
    return {
        "lines": n_lines,
        "chars": chars,
        "words": words,
        "tokens": tokens,
        "twr": _ratio(tokens, words),
        "cpt": _ratio(chars, tokens),
        "unk": unk,
        "unk_pct": _ratio(unk, tokens, 100.0),
        "roundtrip_fail": roundtrip_fail,
        "roundtrip_fail_pct": _ratio(roundtrip_fail, n_lines, 100.0),
        "broken": broken,
        "broken_per_1k": _ratio(broken, tokens, 1000.0),
        "straddling": straddling,
        "straddling_per_1k": _ratio(straddling, tokens, 1000.0),
        "spelled_units": spelled,
        "spelled_per_1k": _ratio(spelled, tokens, 1000.0),
        "words_with_broken": words_with_broken,
        "words_with_broken_pct": _ratio(words_with_broken, words, 100.0),
        "encode_seconds": seconds,
        "inexact_lines": inexact,
    }

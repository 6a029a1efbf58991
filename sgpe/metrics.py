"""Tokenizer metrics for any tokenizer: compression, UNK rate, round trips, broken syllables.

Every metric is computed from one record per text, :class:`Encoded` (token ids, each
token's span in the text's UTF-8 bytes, the number of UNK ids, the decoded text), which
:func:`encode_for_metrics` makes for our :class:`~sgpe.tokenizer.Tokenizer`,
:class:`~sgpe.baselines.bytebpe.ByteBPETokenizer`, ``tiktoken.Encoding``, Hugging Face
``tokenizers.Tokenizer`` and ``sentencepiece.SentencePieceProcessor`` (the optional
packages are never imported here: a tokenizer object of theirs can only exist once its
package is loaded, so we look for the class in ``sys.modules``).

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

How spans are obtained, per tokenizer (all exact except where said):

* ours: ``Tokenizer.encode_with_spans`` (an ``[UNK]`` spans the syllable it replaced);
* ``ByteBPETokenizer`` and ``tiktoken``: cumulative lengths of ``token_bytes`` /
  ``decode_tokens_bytes``; any object with ``encode`` and ``token_bytes`` the same way;
* Hugging Face: the token strings are read as bytes (through GPT-2's byte alphabet for a
  ``ByteLevel`` pre-tokenizer or decoder; otherwise ``<0xNN>`` -> that byte and the
  ``Metaspace`` replacement character -> space); when they spell the text (allowing one
  added leading space), spans are their cumulative lengths. Otherwise (an UNK, WordPiece
  ``##``, a normalizer, a pre-tokenizer that drops whitespace) ``Encoding.offsets`` are
  used, which the Python binding reports in *code points of the original text* (also for
  byte-level models and after a normalizer), converted to bytes. Offsets cannot show a cut
  inside a character, except that tokens of known byte length (byte-level ones,
  ``<0xNN>``) sharing one character's offsets are given consecutive bytes;
* SentencePiece: pieces mapped to bytes (``▁`` -> space, ``<0xNN>`` -> that byte, control
  pieces -> nothing). When they concatenate to the text, or to ``" " + text`` (the dummy
  prefix, which is then dropped from the first piece), spans are exact. Otherwise
  (an ``<unk>``, whitespace normalisation, a literal ``▁`` in the text) the byte offsets
  of SentencePiece's own ``proto`` output are used; there every byte piece of a character
  but the last has an empty span, so they are given one byte each when their number
  equals the character's length. The edges of a gap (text the pieces do not cover, e.g.
  removed extra whitespace) are cuts like any other.

Spans from offsets are made monotone (a token starting before the previous one ends starts
where it ends), so tokens with identical offsets add no cut.

>>> from sgpe.metrics import broken_boundaries, spans_from_token_bytes
>>> text = "ශ්‍රී ලංකාව"  # units: ශ්‍රී (15 bytes), " " (1), ලං (6), කා (6), ව (3)
>>> pieces = [text.encode()[:6], text.encode()[6:15], text.encode()[15:]]
>>> broken_boundaries(text, spans_from_token_bytes(pieces))
BrokenBoundaries(broken=1, word_flags=[True, False], positions=[6], straddling=0, spelled_units=1, straddling_at=())
"""

from __future__ import annotations

import json
import re
import sys
import time
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path
from typing import Any, NamedTuple

from .protocol import TokenId
from .syllables import syllabify
from .tokenizer import Tokenizer

__all__ = [
    "Adapter",
    "BrokenBoundaries",
    "ByteSpan",
    "Encoded",
    "adapter_for",
    "broken_boundaries",
    "encode_for_metrics",
    "evaluate",
    "inside_unit_mask",
    "read_lines",
    "spans_from_char_offsets",
    "spans_from_token_bytes",
    "token_byte_spans",
]

ByteSpan = tuple[int, int]  # [start, end) in the UTF-8 bytes of the text

_BYTE_PIECE = re.compile(r"<0x([0-9A-Fa-f]{2})>")
_WORD = re.compile(r"\S+")  # `\s` of `re` is exactly str.isspace(), so this agrees with str.split()


# ============================================================================
# The per-text record and span helpers
# ============================================================================


@dataclass(frozen=True)
class Encoded:
    """One text as the metrics see it.

    ``spans[i]`` is token ``i``'s ``[start, end)`` in ``text.encode("utf-8")``. ``exact`` is
    True when the spans come from the tokens' own bytes (or our tokenizer's own span
    output) and tile the text; False when they were aligned from offsets (module docstring).
    """

    ids: list[TokenId]
    spans: list[ByteSpan]
    unk: int
    decoded: str
    exact: bool = True

    @property
    def tokens(self) -> int:
        return len(self.ids)


def spans_from_token_bytes(pieces: Iterable[bytes]) -> list[ByteSpan]:
    """Byte spans of consecutive tokens from their bytes (cumulative lengths).

    >>> spans_from_token_bytes([b"ab", b"", b"\\xe0\\xb6"])
    [(0, 2), (2, 2), (2, 4)]
    """
    ends = list(accumulate(map(len, pieces)))
    starts = [0, *ends[:-1]] if ends else []
    return list(zip(starts, ends, strict=True))


def _align_pieces(text_bytes: bytes, pieces: Sequence[bytes]) -> list[ByteSpan] | None:
    """Spans of `pieces` in `text_bytes` if they spell it, allowing one added leading space
    (SentencePiece's dummy prefix, ByteLevel's ``add_prefix_space``); else None."""
    joined = b"".join(pieces)
    if joined == text_bytes:
        return spans_from_token_bytes(pieces)
    if joined[:1] == b" " and joined[1:] == text_bytes:
        return [(max(s - 1, 0), max(e - 1, 0)) for s, e in spans_from_token_bytes(pieces)]
    return None


def _monotone(spans: Iterable[ByteSpan]) -> list[ByteSpan]:
    """Clamp spans so each starts no earlier than the previous one ended."""
    out: list[ByteSpan] = []
    pos = 0
    for start, end in spans:
        start = max(start, pos)
        end = max(end, start)
        out.append((start, end))
        pos = end
    return out


def _split_shared_offsets(
    spans: Sequence[ByteSpan], lengths: Sequence[int | None] | None
) -> list[ByteSpan]:
    """Give tokens that share one start offset (byte pieces of one character, as HF and
    SentencePiece report them) consecutive sub-spans of their known byte lengths, when
    those lengths add up to the shared span; then make the spans monotone."""
    out = list(spans)
    if lengths is not None:
        n = len(out)
        i = 0
        while i < n:
            start = out[i][0]
            j = i
            while j + 1 < n and out[j + 1][0] == start:
                j += 1
            if j > i:
                run = range(i, j + 1)
                end = max(out[k][1] for k in run)
                known = [lengths[k] for k in run]
                sizes = [size or 0 for size in known]
                if (
                    None not in known
                    and all(out[k][1] in (start, end) for k in run)
                    and sum(sizes) == end - start
                ):
                    pos = start
                    for k, size in zip(run, sizes, strict=True):
                        out[k] = (pos, pos + size)
                        pos += size
            i = j + 1
    return _monotone(out)


def spans_from_char_offsets(
    text: str,
    offsets: Sequence[tuple[int, int]],
    byte_lengths: Sequence[int | None] | None = None,
) -> list[ByteSpan]:
    """Byte spans from code-point offsets into `text` (Hugging Face ``Encoding.offsets``).

    `byte_lengths` optionally gives a token's byte length where it is known (byte tokens),
    so that several tokens reported with one character's offsets can be told apart.

    >>> spans_from_char_offsets("අa", [(0, 1), (1, 2)])
    [(0, 3), (3, 4)]
    >>> spans_from_char_offsets("අ", [(0, 1)] * 3, byte_lengths=[1, 1, 1])
    [(0, 1), (1, 2), (2, 3)]
    """
    size = len(text)
    positions = sorted({p for span in offsets for p in span})
    if positions and (positions[0] < 0 or positions[-1] > size):
        raise ValueError(f"offsets must lie within 0..{size} (the text's length in code points)")
    byte_at: dict[int, int] = {}
    char_pos = byte_pos = 0
    for p in positions:
        byte_pos += len(text[char_pos:p].encode("utf-8"))
        char_pos = p
        byte_at[p] = byte_pos
    spans = [(byte_at[s], byte_at[e]) for s, e in offsets]
    return _split_shared_offsets(spans, byte_lengths)


# ============================================================================
# Adapters: any tokenizer -> Encoded
# ============================================================================


@dataclass(frozen=True)
class Adapter:
    """How the metrics talk to one tokenizer: `encode` is the tokenizer's own call (the
    part :func:`evaluate` times); `finish` turns its result into an :class:`Encoded`."""

    name: str
    encode: Callable[[str], Any]
    finish: Callable[[str, Any], Encoded]

    def __call__(self, text: str) -> Encoded:
        return self.finish(text, self.encode(text))


def _sgpe_adapter(tok: Tokenizer) -> Adapter:
    unk_id = tok.unk_id

    def finish(text: str, raw: tuple[list[TokenId], list[ByteSpan]]) -> Encoded:
        ids, spans = raw
        unk = ids.count(unk_id) if unk_id >= 0 else 0
        return Encoded(ids, spans, unk, tok.decode(ids), exact=True)

    return Adapter("sgpe", tok.encode_with_spans, finish)


def _token_bytes_adapter(
    name: str,
    encode: Callable[[str], list[TokenId]],
    token_bytes: Callable[[list[TokenId]], list[bytes]],
    decode: Callable[[list[TokenId]], str],
) -> Adapter:
    """Byte-level tokenizers: spans are the cumulative lengths of the tokens' bytes."""

    def finish(text: str, ids: list[TokenId]) -> Encoded:
        ids = list(ids)
        pieces = token_bytes(ids)
        spans = _align_pieces(text.encode("utf-8"), pieces)
        exact = spans is not None
        if spans is None:  # the tokenizer changed the text: its bytes are all we know
            size = len(text.encode("utf-8"))
            spans = [(min(s, size), min(e, size)) for s, e in spans_from_token_bytes(pieces)]
        return Encoded(ids, spans, 0, decode(ids), exact=exact)

    return Adapter(name, encode, finish)


def _find_type(component: Any, type_name: str) -> dict[str, Any] | None:
    """The first part of a tokenizer.json component (Sequences searched) of `type_name`."""
    if isinstance(component, dict):
        if component.get("type") == type_name:
            return component
        component = [v for v in component.values() if isinstance(v, list)]
    if isinstance(component, list):
        for part in component:
            found = _find_type(part, type_name)
            if found is not None:
                return found
    return None


def _gpt2_byte_decoder() -> dict[str, int]:
    """The inverse of GPT-2's ``bytes_to_unicode`` (the alphabet of HF ``ByteLevel``)."""
    visible = [*range(ord("!"), ord("~") + 1), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    chars = list(visible)
    extra = 0
    for b in range(256):
        if b not in visible:
            visible.append(b)
            chars.append(256 + extra)
            extra += 1
    return {chr(c): b for b, c in zip(visible, chars, strict=True)}


def _hf_adapter(tok: Any) -> Adapter:
    config = json.loads(tok.to_str())
    pre_tokenizer, decoder = config.get("pre_tokenizer"), config.get("decoder")
    byte_level = (
        _find_type(pre_tokenizer, "ByteLevel") or _find_type(decoder, "ByteLevel")
    ) is not None
    metaspace = _find_type(pre_tokenizer, "Metaspace") or _find_type(decoder, "Metaspace")
    replacement: str | None = metaspace.get("replacement", "\u2581") if metaspace else None
    model = config.get("model") or {}
    unk_id: int | None = None
    if isinstance(model.get("unk_token"), str):
        unk_id = tok.token_to_id(model["unk_token"])
    elif isinstance(model.get("unk_id"), int):
        unk_id = model["unk_id"]
    byte_decoder = _gpt2_byte_decoder() if byte_level else {}

    def token_bytes(token: str) -> tuple[bytes | None, bool]:
        """A token's bytes if they can be read off its string, and whether that is sure
        (byte-level alphabet, ``<0xNN>``) rather than a guess to be checked."""
        if byte_level:
            if all(ch in byte_decoder for ch in token):
                return bytes(byte_decoder[ch] for ch in token), True
            return None, False
        if m := _BYTE_PIECE.fullmatch(token):
            return bytes([int(m.group(1), 16)]), True
        if replacement:
            token = token.replace(replacement, " ")
        return token.encode("utf-8"), False

    def encode(text: str) -> Any:
        return tok.encode(text, add_special_tokens=False)

    def finish(text: str, encoding: Any) -> Encoded:
        ids = list(encoding.ids)
        unk = ids.count(unk_id) if unk_id is not None else 0
        decoded = tok.decode(ids, skip_special_tokens=False)
        read = [token_bytes(t) for t in encoding.tokens]
        pieces = [piece for piece, _ in read if piece is not None]
        if not unk and len(pieces) == len(ids):
            spans = _align_pieces(text.encode("utf-8"), pieces)
            if spans is not None:
                return Encoded(ids, spans, unk, decoded, exact=True)
        lengths = [len(piece) if piece is not None and sure else None for piece, sure in read]
        spans = spans_from_char_offsets(text, encoding.offsets, lengths)
        return Encoded(ids, spans, unk, decoded, exact=False)

    return Adapter("huggingface", encode, finish)


def _spm_piece_offsets(sp: Any, text: str) -> list[ByteSpan] | None:
    """SentencePiece's own byte offsets of each piece in `text` (None if unavailable)."""
    for out_type in ("proto", "immutable_proto"):  # sentencepiece >= 0.2.1, older ones
        try:
            proto = sp.encode(text, out_type=out_type)
        except (ValueError, TypeError, RuntimeError, ImportError):
            continue
        return [(piece.begin, piece.end) for piece in proto.pieces]
    return None


def _spm_adapter(sp: Any) -> Adapter:
    unk_id: int = sp.unk_id()
    cache: dict[int, bytes] = {}

    def piece_bytes(i: int) -> bytes:
        data = cache.get(i)
        if data is None:
            piece: str = sp.id_to_piece(i)
            if sp.is_byte(i) and (m := _BYTE_PIECE.fullmatch(piece)):
                data = bytes([int(m.group(1), 16)])
            elif sp.is_control(i):
                data = b""
            else:
                data = piece.replace("\u2581", " ").encode("utf-8")
            cache[i] = data
        return data

    def encode(text: str) -> list[TokenId]:
        return list(sp.encode(text, out_type=int))

    def finish(text: str, ids: list[TokenId]) -> Encoded:
        unk = ids.count(unk_id)
        decoded: str = sp.decode(ids)
        pieces = [piece_bytes(i) for i in ids]
        if not unk:
            spans = _align_pieces(text.encode("utf-8"), pieces)
            if spans is not None:
                return Encoded(ids, spans, unk, decoded, exact=True)
        offsets = _spm_piece_offsets(sp, text)
        if offsets is None or len(offsets) != len(ids):
            size = len(text.encode("utf-8"))
            clamped = [(min(s, size), min(e, size)) for s, e in spans_from_token_bytes(pieces)]
            return Encoded(ids, clamped, unk, decoded, exact=False)
        lengths = [1 if sp.is_byte(i) else None for i in ids]
        return Encoded(ids, _split_shared_offsets(offsets, lengths), unk, decoded, exact=False)

    return Adapter("sentencepiece", encode, finish)


def _is_instance(obj: object, module_name: str, class_name: str) -> bool:
    """isinstance against a class of an optional package, without importing it: if the
    package is not loaded, no object of that class can exist."""
    module = sys.modules.get(module_name)
    cls = getattr(module, class_name, None) if module is not None else None
    return isinstance(cls, type) and isinstance(obj, cls)


def adapter_for(tokenizer: Any) -> Adapter:
    """The :class:`Adapter` for a tokenizer object (an :class:`Adapter` is returned as is).

    Recognises our ``Tokenizer`` and ``ByteBPETokenizer``, ``tiktoken.Encoding``,
    ``tokenizers.Tokenizer``, ``sentencepiece.SentencePieceProcessor`` and any object with
    ``encode(text)``, ``token_bytes(ids)`` and ``decode(ids)``.
    """
    if isinstance(tokenizer, Adapter):
        return tokenizer
    if isinstance(tokenizer, Tokenizer):
        return _sgpe_adapter(tokenizer)
    if _is_instance(tokenizer, "tiktoken", "Encoding"):
        return _token_bytes_adapter(
            "tiktoken", tokenizer.encode_ordinary, tokenizer.decode_tokens_bytes, tokenizer.decode
        )
    if _is_instance(tokenizer, "tokenizers", "Tokenizer"):
        return _hf_adapter(tokenizer)
    if _is_instance(tokenizer, "sentencepiece", "SentencePieceProcessor"):
        return _spm_adapter(tokenizer)
    if all(callable(getattr(tokenizer, a, None)) for a in ("encode", "token_bytes", "decode")):
        name = str(getattr(tokenizer, "model", type(tokenizer).__name__))
        return _token_bytes_adapter(name, tokenizer.encode, tokenizer.token_bytes, tokenizer.decode)
    raise TypeError(
        f"cannot measure a {type(tokenizer).__module__}.{type(tokenizer).__name__}: expected "
        "sgpe.Tokenizer, sgpe.baselines.bytebpe.ByteBPETokenizer, tiktoken.Encoding, "
        "tokenizers.Tokenizer, sentencepiece.SentencePieceProcessor, an object with "
        "encode/token_bytes/decode, or an sgpe.metrics.Adapter"
    )


def encode_for_metrics(tokenizer: Any, text: str) -> Encoded:
    """Encode `text` with any supported tokenizer into an :class:`Encoded` record.

    For many texts, build the adapter once with :func:`adapter_for` and call it.
    """
    return adapter_for(tokenizer)(text)


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
    for offset in accumulate(len(unit.encode("utf-8")) for unit in syllabify(text, script)):
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


def read_lines(path: str | Path) -> Iterator[str]:
    """Lines of a UTF-8 text file split on ``"\\n"`` only (as the command line does), streamed.

    A ``"\\r"`` stays in its line; a final newline does not make an extra empty line.
    """
    with open(path, encoding="utf-8", newline="") as f:
        tail = ""
        while chunk := f.read(1 << 20):
            parts = (tail + chunk).split("\n")
            tail = parts.pop()
            yield from parts
        if tail:
            yield tail


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
    adapter = adapter_for(tokenizer)
    encode, finish = adapter.encode, adapter.finish
    clock = time.perf_counter
    n_lines = chars = words = tokens = unk = roundtrip_fail = 0
    broken = words_with_broken = inexact = straddling = spelled = 0
    seconds = 0.0
    for line in lines:
        if line.endswith("\n"):
            line = line[:-1]
        started = clock()
        raw = encode(line)
        seconds += clock() - started
        encoded = finish(line, raw)
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

"""Where each token lies in the text: byte spans, and the record every tokenizer gives the
metrics (:class:`Encoded`).

A span is ``[start, end)`` in the UTF-8 bytes of the text. Tokenizers that return their
tokens' bytes (ours, byte-level BPE, tiktoken) give exact spans by cumulative lengths;
others (Hugging Face, SentencePiece) report offsets, which are converted here. How each
tokenizer is read is described in :mod:`sgpe.adapters`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate

TokenId = int
ByteSpan = tuple[int, int]  # [start, end) in the UTF-8 bytes of the text


@dataclass(frozen=True)
class Encoded:
    """One text as the metrics see it.

    ``spans[i]`` is token ``i``'s ``[start, end)`` in ``text.encode("utf-8")``. ``exact`` is
    True when the spans come from the tokens' own bytes (or our tokenizer's own span
    output) and tile the text; False when they were aligned from offsets. ``seconds`` is
    the wall time of the tokenizer's own encode call (not of building the spans).
    """

    ids: list[TokenId]
    spans: list[ByteSpan]
    unk: int
    decoded: str
    exact: bool = True
    seconds: float = 0.0

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


def align_pieces(text_bytes: bytes, pieces: Sequence[bytes]) -> list[ByteSpan] | None:
    """Spans of `pieces` in `text_bytes` if they spell it, allowing one added leading space
    (SentencePiece's dummy prefix, ByteLevel's ``add_prefix_space``); else None."""
    joined = b"".join(pieces)
    if joined == text_bytes:
        return spans_from_token_bytes(pieces)
    if joined[:1] == b" " and joined[1:] == text_bytes:
        return [(max(s - 1, 0), max(e - 1, 0)) for s, e in spans_from_token_bytes(pieces)]
    return None


def monotone(spans: Iterable[ByteSpan]) -> list[ByteSpan]:
    """Clamp spans so each starts no earlier than the previous one ended."""
    out: list[ByteSpan] = []
    pos = 0
    for start, end in spans:
        start = max(start, pos)
        end = max(end, start)
        out.append((start, end))
        pos = end
    return out


def split_shared_offsets(
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
    return monotone(out)


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
    return split_shared_offsets(spans, byte_lengths)


def measure_by_token_bytes(
    text: str,
    ids: Sequence[TokenId],
    seconds: float,
    token_bytes: Callable[[list[TokenId]], list[bytes]],
    decode: Callable[[list[TokenId]], str],
) -> Encoded:
    """The :class:`Encoded` of a byte-level tokenizer's ids: spans are the cumulative
    lengths of the tokens' bytes (clamped to the text when the tokenizer changed it)."""
    ids = list(ids)
    pieces = token_bytes(ids)
    spans = align_pieces(text.encode("utf-8"), pieces)
    exact = spans is not None
    if spans is None:  # the tokenizer changed the text: its bytes are all we know
        size = len(text.encode("utf-8"))
        spans = [(min(s, size), min(e, size)) for s, e in spans_from_token_bytes(pieces)]
    return Encoded(ids, spans, 0, decode(ids), exact=exact, seconds=seconds)

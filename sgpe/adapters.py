"""The tokenizer contract for tokenizers that are not ours.

:class:`sgpe.protocol.TokenizerLike` is what the metrics, the app, the bench and the
exports ask of a tokenizer. Our :class:`~sgpe.tokenizer.Tokenizer` and
:class:`~sgpe.baselines.bytebpe.ByteBPETokenizer` meet it themselves; the classes here make
``tiktoken.Encoding``, Hugging Face ``tokenizers.Tokenizer``,
``sentencepiece.SentencePieceProcessor`` and any object with ``encode``, ``token_bytes`` and
``decode`` meet it too. :func:`as_tokenizer` picks the adapter by the object's type, once,
at the edge; everything after that calls the contract.

The optional packages are never imported here: an object of theirs can only exist once its
package is loaded, so the type is looked up in ``sys.modules``.

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
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from .protocol import BYTE_TOKEN, TokenizerLike
from .spans import (
    ByteSpan,
    Encoded,
    TokenId,
    align_pieces,
    measure_by_token_bytes,
    spans_from_char_offsets,
    spans_from_token_bytes,
    split_shared_offsets,
)

__all__ = [
    "BytesTokenizer",
    "HFTokenizer",
    "SentencePieceTokenizer",
    "TiktokenTokenizer",
    "as_tokenizer",
]


class BytesTokenizer:
    """Any tokenizer with ``encode(text)``, ``token_bytes(ids)`` and ``decode(ids)``."""

    def __init__(
        self,
        name: str,
        encode: Callable[[str], list[TokenId]],
        token_bytes: Callable[[list[TokenId]], list[bytes]],
        decode: Callable[[list[TokenId]], str],
        vocab_size: int = 0,
    ) -> None:
        self.name = name
        self.vocab_size = vocab_size
        self._encode = encode
        self._token_bytes = token_bytes
        self._decode = decode

    def encode(self, text: str) -> list[TokenId]:
        return list(self._encode(text))

    def decode(self, ids: Sequence[TokenId]) -> str:
        return self._decode(list(ids))

    def token_bytes(self, ids: Sequence[TokenId]) -> list[bytes]:
        return self._token_bytes(list(ids))

    def measure(self, text: str) -> Encoded:
        started = time.perf_counter()
        ids = self._encode(text)
        seconds = time.perf_counter() - started
        return measure_by_token_bytes(text, ids, seconds, self._token_bytes, self._decode)


class TiktokenTokenizer(BytesTokenizer):
    """A ``tiktoken.Encoding``; ``encode`` is ``encode_ordinary`` (special tokens are text)."""

    def __init__(self, encoding: Any) -> None:
        super().__init__(
            f"tiktoken:{encoding.name}",
            encoding.encode_ordinary,
            encoding.decode_tokens_bytes,
            encoding.decode,
            encoding.n_vocab,
        )
        self.encoding = encoding


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


class HFTokenizer:
    """A Hugging Face ``tokenizers.Tokenizer`` (plain encode: no added special tokens)."""

    name = "huggingface"

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer
        self.vocab_size: int = tokenizer.get_vocab_size()
        config = json.loads(tokenizer.to_str())
        pre_tokenizer, decoder = config.get("pre_tokenizer"), config.get("decoder")
        self._byte_level = (
            _find_type(pre_tokenizer, "ByteLevel") or _find_type(decoder, "ByteLevel")
        ) is not None
        metaspace = _find_type(pre_tokenizer, "Metaspace") or _find_type(decoder, "Metaspace")
        self._replacement: str | None = (
            metaspace.get("replacement", "\u2581") if metaspace else None
        )
        model = config.get("model") or {}
        self.unk_id: int | None = None
        if isinstance(model.get("unk_token"), str):
            self.unk_id = tokenizer.token_to_id(model["unk_token"])
        elif isinstance(model.get("unk_id"), int):
            self.unk_id = model["unk_id"]
        self._byte_decoder = _gpt2_byte_decoder() if self._byte_level else {}

    def _read(self, token: str) -> tuple[bytes | None, bool]:
        """A token's bytes if they can be read off its string, and whether that is sure
        (byte-level alphabet, ``<0xNN>``) rather than a guess to be checked."""
        if self._byte_level:
            if all(ch in self._byte_decoder for ch in token):
                return bytes(self._byte_decoder[ch] for ch in token), True
            return None, False
        if m := BYTE_TOKEN.fullmatch(token):
            return bytes([int(m.group(1), 16)]), True
        if self._replacement:
            token = token.replace(self._replacement, " ")
        return token.encode("utf-8"), False

    def encode(self, text: str) -> list[TokenId]:
        return list(self.tokenizer.encode(text, add_special_tokens=False).ids)

    def decode(self, ids: Sequence[TokenId]) -> str:
        decoded: str = self.tokenizer.decode(list(ids), skip_special_tokens=False)
        return decoded

    def token_bytes(self, ids: Sequence[TokenId]) -> list[bytes]:
        """Each token's bytes as read off its string (b"" where they cannot be read)."""
        out = []
        for i in ids:
            token = self.tokenizer.id_to_token(i)
            out.append((self._read(token)[0] or b"") if token is not None else b"")
        return out

    def measure(self, text: str) -> Encoded:
        started = time.perf_counter()
        encoding = self.tokenizer.encode(text, add_special_tokens=False)
        seconds = time.perf_counter() - started
        ids = list(encoding.ids)
        unk = ids.count(self.unk_id) if self.unk_id is not None else 0
        decoded = self.decode(ids)
        read = [self._read(t) for t in encoding.tokens]
        pieces = [piece for piece, _ in read if piece is not None]
        if not unk and len(pieces) == len(ids):
            spans = align_pieces(text.encode("utf-8"), pieces)
            if spans is not None:
                return Encoded(ids, spans, unk, decoded, exact=True, seconds=seconds)
        lengths = [len(piece) if piece is not None and sure else None for piece, sure in read]
        spans = spans_from_char_offsets(text, encoding.offsets, lengths)
        return Encoded(ids, spans, unk, decoded, exact=False, seconds=seconds)


def _spm_piece_offsets(sp: Any, text: str) -> list[ByteSpan] | None:
    """SentencePiece's own byte offsets of each piece in `text` (None if unavailable)."""
    for out_type in ("proto", "immutable_proto"):  # sentencepiece >= 0.2.1, older ones
        try:
            proto = sp.encode(text, out_type=out_type)
        except (ValueError, TypeError, RuntimeError, ImportError):
            continue
        return [(piece.begin, piece.end) for piece in proto.pieces]
    return None


class SentencePieceTokenizer:
    """A ``sentencepiece.SentencePieceProcessor``."""

    name = "sentencepiece"

    def __init__(self, processor: Any) -> None:
        self.processor = processor
        self.vocab_size: int = processor.get_piece_size()
        self.unk_id: int = processor.unk_id()
        self._bytes: dict[int, bytes] = {}

    def _piece_bytes(self, i: int) -> bytes:
        data = self._bytes.get(i)
        if data is None:
            sp = self.processor
            piece: str = sp.id_to_piece(i)
            if sp.is_byte(i) and (m := BYTE_TOKEN.fullmatch(piece)):
                data = bytes([int(m.group(1), 16)])
            elif sp.is_control(i):
                data = b""
            else:
                data = piece.replace("\u2581", " ").encode("utf-8")
            self._bytes[i] = data
        return data

    def encode(self, text: str) -> list[TokenId]:
        return list(self.processor.encode(text, out_type=int))

    def decode(self, ids: Sequence[TokenId]) -> str:
        decoded: str = self.processor.decode(list(ids))
        return decoded

    def token_bytes(self, ids: Sequence[TokenId]) -> list[bytes]:
        return [self._piece_bytes(i) for i in ids]

    def measure(self, text: str) -> Encoded:
        started = time.perf_counter()
        ids = self.encode(text)
        seconds = time.perf_counter() - started
        unk = ids.count(self.unk_id)
        decoded = self.decode(ids)
        pieces = self.token_bytes(ids)
        if not unk:
            spans = align_pieces(text.encode("utf-8"), pieces)
            if spans is not None:
                return Encoded(ids, spans, unk, decoded, exact=True, seconds=seconds)
        offsets = _spm_piece_offsets(self.processor, text)
        if offsets is None or len(offsets) != len(ids):
            size = len(text.encode("utf-8"))
            clamped = [(min(s, size), min(e, size)) for s, e in spans_from_token_bytes(pieces)]
            return Encoded(ids, clamped, unk, decoded, exact=False, seconds=seconds)
        sp = self.processor
        lengths = [1 if sp.is_byte(i) else None for i in ids]
        spans = split_shared_offsets(offsets, lengths)
        return Encoded(ids, spans, unk, decoded, exact=False, seconds=seconds)


def _is_instance(obj: object, module_name: str, class_name: str) -> bool:
    """isinstance against a class of an optional package, without importing it: if the
    package is not loaded, no object of that class can exist."""
    module = sys.modules.get(module_name)
    cls = getattr(module, class_name, None) if module is not None else None
    return isinstance(cls, type) and isinstance(obj, cls)


def as_tokenizer(tokenizer: Any) -> TokenizerLike:
    """``tokenizer`` itself if it meets the contract, else its adapter.

    Recognises ``tiktoken.Encoding``, ``tokenizers.Tokenizer``,
    ``sentencepiece.SentencePieceProcessor`` and any object with ``encode(text)``,
    ``token_bytes(ids)`` and ``decode(ids)``.
    """
    if isinstance(tokenizer, TokenizerLike):
        return tokenizer
    if _is_instance(tokenizer, "tiktoken", "Encoding"):
        return TiktokenTokenizer(tokenizer)
    if _is_instance(tokenizer, "tokenizers", "Tokenizer"):
        return HFTokenizer(tokenizer)
    if _is_instance(tokenizer, "sentencepiece", "SentencePieceProcessor"):
        return SentencePieceTokenizer(tokenizer)
    if all(callable(getattr(tokenizer, a, None)) for a in ("encode", "token_bytes", "decode")):
        name = str(getattr(tokenizer, "name", None) or type(tokenizer).__name__)
        return BytesTokenizer(
            name,
            tokenizer.encode,
            tokenizer.token_bytes,
            tokenizer.decode,
            int(getattr(tokenizer, "vocab_size", 0) or 0),
        )
    raise TypeError(
        f"cannot use a {type(tokenizer).__module__}.{type(tokenizer).__name__} as a "
        "tokenizer: expected sgpe.Tokenizer, sgpe.baselines.bytebpe.ByteBPETokenizer, "
        "tiktoken.Encoding, tokenizers.Tokenizer, sentencepiece.SentencePieceProcessor or an "
        "object with encode/token_bytes/decode"
    )

"""Shared contracts: the tokenizer protocol both models satisfy, domain type aliases,
merge-trace records for the UI stepper, and the display form of raw bytes.

Nothing here does tokenization; it only fixes the shapes that the app, CLI, metrics and
exports rely on, so `Tokenizer` (SGPE) and `ByteBPETokenizer` stay interchangeable.
:class:`TokenizerProtocol` is the public one: what :func:`sgpe.load` returns, in the
conventions of Hugging Face ``tokenizers`` and tiktoken (tests/test_protocol.py holds
both models to it, under both engines).
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate, chain
from pathlib import Path
from typing import Protocol, runtime_checkable

from .spans import ByteSpan, Encoded, TokenId

__all__ = [
    "BYTE_TOKEN",
    "FORMAT_NAME",
    "ByteSpan",
    "Encoded",
    "MergeStep",
    "Pair",
    "Syllable",
    "TokenId",
    "TokenizerLike",
    "TokenizerProtocol",
    "TraceableTokenizer",
    "WordTrace",
    "byte_token",
    "check_num_threads",
    "display_bytes",
    "flat_ids",
    "is_token_id",
    "one_line",
]

Pair = tuple[TokenId, TokenId]
Syllable = str

FORMAT_NAME = "sgpe-vocab"


def one_line(err: object) -> str:
    """An exception's text on one line (pyarrow and zlib messages can span several), for
    error messages that must stay one line."""
    return " ".join(str(err).split())


@dataclass(frozen=True)
class MergeStep:
    """One merge applied while encoding a word: which pair, its rank, and the result."""

    pair: tuple[str, str]  # display strings of the two tokens merged
    rank: int  # merge rank: 0 = first merge learned = highest priority
    tokens: tuple[str, ...]  # the word's tokens (display strings) after this step
    # "part": builds a part of one syllable; "join": joins whole syllables (every paper-mode
    # merge); "super": joins whole syllables across a space (a superword); "bytes": a
    # byte-level BPE merge.
    kind: str = "join"


@dataclass(frozen=True)
class WordTrace:
    """Every merge step applied to one word (pre-token) of the input."""

    word: str  # the word exactly as in the input text
    initial: tuple[str, ...]  # tokens before any merge (syllables, or bytes for byte BPE)
    steps: tuple[MergeStep, ...]

    @property
    def final(self) -> tuple[str, ...]:
        return self.steps[-1].tokens if self.steps else self.initial


@runtime_checkable
class TokenizerProtocol(Protocol):
    """A tokenizer :func:`sgpe.load` returns (an SGPE vocabulary or the byte-level BPE
    baseline): the members both models have, with the meaning they have in Hugging Face
    ``tokenizers`` and tiktoken.

    * ``encode(text)`` and ``decode(ids)``; ``decode(encode(text)) == text``;
    * ``encode_batch(texts, num_threads=None)``: ``[encode(t) for t in texts]``, on
      ``num_threads`` threads where the engine runs a batch in parallel (None: all cores);
    * ``tokenize(text)``: the token strings of ``encode(text)``;
    * ``token_to_id(token)`` and ``id_to_token(id)``: None for an unknown token or id;
    * ``get_vocab()``: token -> id, a copy (changing it changes nothing in the tokenizer).
      ``vocab_size`` counts every id; ``len(get_vocab())`` equals it except where two
      byte-level tokens share a display string (a text token spelled ``<0xNN>`` and that
      byte), where the lower id is kept;
    * ``special_tokens``: each special token -> its id (a copy); never parsed from text;
    * ``save(path)``: a file :func:`sgpe.load` reads back to the same ids.
    """

    @property
    def vocab_size(self) -> int: ...

    @property
    def special_tokens(self) -> Mapping[str, TokenId]: ...

    def encode(self, text: str) -> list[TokenId]: ...

    def decode(self, ids: Sequence[TokenId]) -> str: ...

    def encode_batch(
        self, texts: Sequence[str], *, num_threads: int | None = None
    ) -> list[list[TokenId]]: ...

    def tokenize(self, text: str) -> list[str]: ...

    def token_to_id(self, token: str) -> TokenId | None: ...

    def id_to_token(self, token_id: TokenId) -> str | None: ...

    def get_vocab(self) -> dict[str, TokenId]: ...

    def save(self, path: str | Path) -> None: ...


def is_token_id(value: object, size: int) -> bool:
    """Whether ``value`` is an id of a vocabulary of ``size`` ids: an int (not a bool) in
    ``0..size-1``."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < size


def check_num_threads(num_threads: object) -> None:
    """``encode_batch``'s ``num_threads``: None (all cores) or an int of at least 1."""
    if num_threads is not None and (
        isinstance(num_threads, bool) or not isinstance(num_threads, int) or num_threads < 1
    ):
        raise ValueError(
            f"num_threads must be at least 1 (or None: all cores), got {num_threads!r}"
        )


def flat_ids(lists: Sequence[Sequence[TokenId]]) -> tuple[array[int], array[int]]:
    """``encode_batch``'s lists in the flat form of ``encode_batch_flat``: every id one
    after the other (``array("I")``, uint32) and the offsets where each list starts, with
    one more entry for the end (``array("q")``, int64)."""
    try:
        ids = array("I", chain.from_iterable(lists))
    except OverflowError:
        raise ValueError(
            "encode_batch_flat: this vocabulary spells a character with a byte token or "
            "[UNK] it lacks (id -1), which the uint32 ids cannot hold; use encode_batch"
        ) from None
    return ids, array("q", accumulate(map(len, lists), initial=0))


@runtime_checkable
class TokenizerLike(Protocol):
    """The tokenizer contract: what the metrics, the app, the bench and the exports ask of
    any tokenizer. Ours (:class:`~sgpe.tokenizer.Tokenizer`,
    :class:`~sgpe.baselines.bytebpe.ByteBPETokenizer`) meet it themselves; tiktoken, Hugging
    Face and SentencePiece tokenizers meet it through :func:`sgpe.adapters.as_tokenizer`."""

    name: str  # a short label: "sgpe", "bytebpe", "tiktoken:o200k_base", "huggingface", ...

    @property
    def vocab_size(self) -> int: ...

    def encode(self, text: str) -> list[TokenId]: ...

    def decode(self, ids: Sequence[TokenId]) -> str: ...

    def token_bytes(self, ids: Sequence[TokenId]) -> list[bytes]: ...

    def measure(self, text: str) -> Encoded:
        """Ids, each token's byte span in the text, UNK count, the decoded text and the
        time of the tokenizer's own encode call: everything :mod:`sgpe.metrics` needs."""
        ...


@runtime_checkable
class TraceableTokenizer(TokenizerLike, Protocol):
    """The contract of the tokenizers this project trains: the app's pages also show their
    token strings and merge steps, and save them."""

    model: str  # the vocabulary file's "model": "sgpe" or "bytebpe"

    def tokenize(self, text: str) -> list[str]: ...

    def id_to_token(self, token_id: TokenId) -> str | None: ...

    def merge_trace(self, text: str) -> list[WordTrace]: ...

    def save(self, path: str | Path) -> None: ...


#: A byte token as it appears in token strings: ``<0xE0>`` (upper-case hex, two digits).
BYTE_TOKEN = re.compile(r"<0x([0-9A-F]{2})>")


def byte_token(b: int) -> str:
    """The token string of one byte: ``<0xNN>``.

    >>> byte_token(0xE0)
    '<0xE0>'
    """
    return f"<0x{b:02X}>"


def display_bytes(data: bytes) -> str:
    """Show bytes as text: valid UTF-8 runs decode, every other byte becomes ``<0xNN>``.

    Byte tokens that are not whole characters are shown as their bytes, never as U+FFFD.

    >>> display_bytes("ක".encode()[:2])
    '<0xE0><0xB6>'
    >>> display_bytes(b"ab\\xe0")
    'ab<0xE0>'
    """
    out: list[str] = []
    i = 0
    n = len(data)
    while i < n:
        try:
            out.append(data[i:].decode("utf-8"))
            break
        except UnicodeDecodeError as err:
            out.append(data[i : i + err.start].decode("utf-8"))
            bad_end = i + max(err.end, err.start + 1)
            out.extend(map(byte_token, data[i + err.start : bad_end]))
            i = bad_end
    return "".join(out)

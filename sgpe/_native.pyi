# Types of the native core (its bindings: native/src/py/, one file per class; built into
# sgpe/_native.abi3.so by scripts/build_native.sh). Only sgpe/_engine.py imports it.

from collections.abc import Sequence
from typing import Any

__version__: str

_ClassTable = list[tuple[str, list[tuple[int, int]]]]
_Edges = list[tuple[str, list[tuple[str, str]]]]
SchemaTables = tuple[_ClassTable, list[tuple[str, str]], str, _Edges, list[str], list[str]]

class Syllabifier:
    """The DFA syllabifier of one (schemas, leading_space) setting."""

    def __init__(self, schemas: Sequence[SchemaTables], leading_space: bool) -> None: ...
    def syllabify(self, text: str) -> list[str]: ...
    def spans(self, text: str) -> list[tuple[int, int, str]]: ...
    def bounds(self, text: str) -> list[int]: ...
    def offsets(self, text: str, utf8: bool = False) -> bytes: ...
    def syllabify_batch(self, texts: Sequence[str]) -> list[list[str]]: ...

class TextEncoder:
    """Tokenizer.encode: pieces (sgpe/pieces.py), a piece cache and both merge phases
    (sgpe/hierarchical/), or with paper_vocab the paper mode's encoder."""

    def __init__(
        self,
        schemas: Sequence[SchemaTables],
        leading_space: bool,
        char_ids: dict[str, int],
        byte_ids: list[int] | None,
        unk: int,
        part: dict[tuple[int, int], tuple[int, int]],
        join: dict[tuple[int, int], tuple[int, int]],
        word_chars: list[tuple[int, int]] | None,
        span_letters: list[list[tuple[int, int]]],
        max_units: int,
        paper_vocab: dict[str, int] | None = None,
    ) -> None: ...
    @staticmethod
    def of_file(
        file: VocabFile,
        schemas: Sequence[SchemaTables],
        leading_space: bool,
        byte_ids: list[int] | None,
        unk: int,
        word_chars: list[tuple[int, int]] | None,
        span_letters: list[list[tuple[int, int]]],
        max_units: int,
        paper: bool,
    ) -> TextEncoder: ...
    def encode(self, text: str, prepend_space: bool) -> list[int]: ...
    def encode_batch(
        self, texts: Sequence[str], prepend_space: bool, threads: int | None = None
    ) -> list[list[int]]: ...
    def encode_batch_flat(
        self, texts: Sequence[str], prepend_space: bool, threads: int | None = None
    ) -> tuple[bytes, bytes] | None: ...
    def pieces(self, text: str) -> list[str]: ...
    def encode_pieces(self, pieces: Sequence[str]) -> list[list[int]]: ...
    def cached_pieces(self) -> int: ...

class VocabFile:
    """A vocab.json whose vocab and merges the core read and checked (sgpe.load of an SGPE vocab.json)."""

    @staticmethod
    def read(path: str) -> VocabFile | None: ...
    @property
    def header(self) -> str: ...
    def __len__(self) -> int: ...
    @property
    def merge_count(self) -> int: ...
    def lookup(self, tokens: Sequence[str]) -> dict[str, int]: ...
    def tables(self) -> tuple[dict[str, int], list[str], list[tuple[str, str]]]: ...

class BpeTrainer:
    """The plain BPE merge loop (sgpe/bpe.py) of the paper mode (sgpe/gpe.py) and of the
    byte-level baseline (sgpe/baselines/bytebpe.py), in batches."""

    def __init__(
        self, symbols: Sequence[str], words: bytes, lengths: Sequence[int], counts: Sequence[int]
    ) -> None: ...
    @staticmethod
    def of_chunks(chunks: Sequence[str], counts: Sequence[int]) -> BpeTrainer: ...
    @property
    def symbol_count(self) -> int: ...
    @property
    def unique_words(self) -> int: ...
    def replay(self, left: int, right: int, min_freq: int) -> tuple[bool, int, int]: ...
    def rebuild_heap(self) -> None: ...
    def learn(
        self, target_symbols: int, min_freq: int, max_merges: int, seconds: float | None = None
    ) -> tuple[list[tuple[int, int, int, int]], bool, ValueError | None]: ...
    def usage(self) -> list[int]: ...

class HierarchicalTrainer:
    """The hierarchical mode's merge loop (sgpe/hierarchical/, HierarchicalEngine)."""

    def __init__(
        self,
        schemas: Sequence[SchemaTables],
        leading_space: bool,
        symbols: list[str],
        unit_parts: bytes,
        unit_lengths: list[int],
        unit_weight: list[int],
        unit_joinable: list[bool],
        words: bytes,
        word_lengths: list[int],
        counts: list[int],
        translation: dict[int, int],
        span_words: list[list[int]],
        span_counts: list[int],
        span_from: int,
    ) -> None: ...
    def resume(
        self, merges: Sequence[tuple[str, str, int]], min_freq: int
    ) -> tuple[int, int] | None: ...
    def run(
        self,
        target_symbols: int,
        min_freq: int,
        max_merges: int,
        max_seconds: float,
        checkpoint_every: int,
    ) -> bool: ...
    def symbol_count(self) -> int: ...
    def symbols_from(self, start: int) -> list[str]: ...
    def merges_from(self, start: int) -> list[tuple[int, int, int, int, float]]: ...
    def usage(self) -> list[int]: ...

class PieceCounter:
    """The pieces of a corpus counted in order of first occurrence, on all cores."""

    def __init__(
        self,
        word_chars: Sequence[tuple[int, int]] | None,
        leading_space: bool,
        span_letters: Sequence[Sequence[tuple[int, int]]],
        max_units: int,
        prefix: str,
    ) -> None: ...
    def feed_segment(self, data: bytes, line_start: bool) -> bool: ...
    def feed_text(self, text: str) -> None: ...
    @property
    def chars(self) -> int: ...
    @property
    def any_text(self) -> bool: ...
    def take_into(self, into: dict[str, int]) -> None: ...
    def pieces(self, text: str) -> list[str]: ...

def corpus_units(
    syllabifier: Syllabifier,
    pieces: Sequence[str],
    counts: Sequence[int],
    max_units: int | None,
    first: int,
) -> tuple[list[str], list[int], list[str], list[int]] | None: ...
def merge_kinds(
    schemas: Sequence[SchemaTables], leading_space: bool, pairs: Sequence[tuple[str, str]]
) -> list[int]: ...
def dumps_json(
    items: Sequence[tuple[str, Any]], key_indent: str, inline_max: int, compact: bool
) -> bytes | None: ...

# Types of the native core (native/src/lib.rs, built into sgpe/_native.abi3.so by
# scripts/build_native.sh). Only sgpe/engine.py imports it.

from collections.abc import Sequence

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
    (sgpe/hierarchical.py), or with paper_vocab the paper mode's encoder."""

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
    def encode(self, text: str, prepend_space: bool) -> list[int]: ...
    def encode_batch(
        self, texts: Sequence[str], prepend_space: bool, threads: int | None = None
    ) -> list[list[int]]: ...
    def pieces(self, text: str) -> list[str]: ...
    def encode_pieces(self, pieces: Sequence[str]) -> list[list[int]]: ...
    def cached_pieces(self) -> int: ...

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
    def syllabify_batch(self, texts: Sequence[str]) -> list[list[str]]: ...

class PieceEncoder:
    """The hierarchical mode's piece encoder, both phases (sgpe/hierarchical.py)."""

    def __init__(
        self,
        schemas: Sequence[SchemaTables],
        leading_space: bool,
        char_ids: dict[str, int],
        byte_ids: list[int] | None,
        unk: int,
        part: dict[tuple[int, int], tuple[int, int]],
        join: dict[tuple[int, int], tuple[int, int]],
    ) -> None: ...
    def encode_pieces(self, pieces: Sequence[str]) -> list[list[int]]: ...

class PieceCounter:
    """The pieces of a corpus counted in order of first occurrence, on all cores."""

    def __init__(
        self,
        word_chars: Sequence[tuple[int, int]] | None,
        leading_space: bool,
        span_letters: Sequence[Sequence[tuple[int, int]]],
        span_max: int,
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

"""Group text into *pieces* (words); merges join syllables only inside a piece.

Two ways to cut pieces, both with the original SGPE's leading-space rule (the plain
space before a piece belongs to it when ``leading_space`` is on):

* ``"whitespace"`` (default): a piece is a maximal run of non-whitespace characters, as
  in SentencePiece or a Metaspace pre-tokenizer. A word keeps its punctuation and digits,
  so GPE can learn ``"ලංකාව,"`` or ``" 2024"``; syllables are still never split, because
  the units inside a piece are the syllables of :func:`sgpe.syllables.syllabify` (other
  characters are single units).
* ``"script"`` (the original's ``segment_into_words``): a piece is a maximal run of a schema's
  word characters (Sinhala block + ZWJ; Devanagari letters/marks + ZWJ/ZWNJ); every other
  character is its own piece ("boundary token") and never merges.

Whitespace characters are always single pieces. The splitter is one regex, so a corpus is
split at C speed and each unique piece is syllabified once.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Literal

from .schema import char_set, schemas_for
from .syllables import get_syllabifier

PieceMode = Literal["whitespace", "script"]
PIECE_MODES = ("whitespace", "script")


class WordSplitter:
    """Compiled piece splitter for one setting. Use :func:`get_word_splitter`."""

    def __init__(
        self, script: str = "auto", leading_space: bool = False, pieces: str = "whitespace"
    ):
        if pieces not in PIECE_MODES:
            raise ValueError(f"pieces must be one of {', '.join(PIECE_MODES)}, got {pieces!r}")
        self.script = script
        self.leading_space = leading_space
        self.mode = pieces
        if pieces == "whitespace":
            word = r"[^\s]+"
        else:
            word = char_set(frozenset().union(*(s.word_chars for s in schemas_for(script)))) + "+"
        if leading_space:
            # A space before a non-space character belongs to it (also when that character
            # is another kind of space, e.g. NO-BREAK SPACE), exactly as in syllabify().
            self.pattern = rf" ?{word}| ?[^ \t\n\r]|[\s\S]"
        else:
            self.pattern = rf"{word}|[\s\S]"
        self._findall = re.compile(self.pattern).findall
        self._units = get_syllabifier(script, leading_space)

    def pieces(self, text: str) -> list[str]:
        """Split text into pieces; ``"".join(pieces(t)) == t``."""
        return self._findall(text)

    def units(self, piece: str) -> list[str]:
        """The syllables (units) of one piece."""
        return self._units(piece)

    def units_of_many(self, pieces: list[str]) -> list[list[str]]:
        """Units of many pieces with one regex pass (pieces must not contain a newline)."""
        out: list[list[str]] = []
        current: list[str] = []
        for u in self._units("\n".join(pieces)):
            if u == "\n":
                out.append(current)
                current = []
            else:
                current.append(u)
        out.append(current)
        return out


@cache
def get_word_splitter(
    script: str = "auto", leading_space: bool = False, pieces: str = "whitespace"
) -> WordSplitter:
    return WordSplitter(script, leading_space, pieces)

"""Group text into *pieces* (words) whose syllables may merge; merges never cross a piece.

A piece is one of

* a script word: a maximal run of syllables, orphans and other characters of a schema's
  ``word_chars`` (Sinhala block + ZWJ; Devanagari letters and marks + ZWJ/ZWNJ), carrying
  the leading space if ``leading_space`` is on (seed 000 §3.1 ``segment_into_words``);
* with ``merge_other=True`` (our default), a run of other letters (``\\p{L}\\p{M}``), of
  digits, or of punctuation/symbols, again with an optional leading space: BPE learns
  ``2024`` or `` the`` the way it learns Sinhala words. Seed 000 instead emits each such
  character as its own "boundary token" (``merge_other=False`` reproduces that);
* a single whitespace character, or any other single character.

Each piece splits into units with :func:`sgpe.syllabify.syllabify` (for non-script runs the
units are single characters), so merges only ever join whole syllables.

The splitter is one compiled regex, so a corpus is split at C speed and each unique piece
is syllabified once (DESIGN.md §4).
"""

from __future__ import annotations

from functools import cache

import regex

from .schema import char_set, schemas_for
from .syllabify import get_syllabifier


class WordSplitter:
    """Compiled piece splitter for one setting. Use :func:`get_word_splitter`."""

    def __init__(self, script: str = "auto", leading_space: bool = False, merge_other: bool = True):
        self.script = script
        self.leading_space = leading_space
        self.merge_other = merge_other
        schemas = schemas_for(script)
        wc = char_set(frozenset().union(*(s.word_chars for s in schemas)))
        sp = " ?" if leading_space else ""
        # Every syllable and orphan consists of word characters, and every word character
        # is at least a unit of its own, so a script word is simply a maximal run of them.
        alternatives = [f"{sp}{wc}+"]
        if merge_other:
            alternatives += [
                f"{sp}[[\\p{{L}}\\p{{M}}]--{wc}]+",
                f"{sp}[\\p{{N}}--{wc}]+",
                f"{sp}[[^\\s\\p{{L}}\\p{{M}}\\p{{N}}]--{wc}]+",
            ]
        alternatives.append(f"{sp}[^ \\t\\n\\r]" if leading_space else "[^\\s]")
        alternatives.append("[\\s\\S]")
        self.pattern = "|".join(alternatives)
        self._findall = regex.compile(self.pattern, regex.V1).findall
        self._units = get_syllabifier(script, leading_space)

    def pieces(self, text: str) -> list[str]:
        """Split text into pieces; ``"".join(pieces(t)) == t``."""
        return self._findall(text)

    def units(self, piece: str) -> list[str]:
        """The syllables (units) of one piece."""
        return self._units(piece)


@cache
def get_word_splitter(
    script: str = "auto", leading_space: bool = False, merge_other: bool = True
) -> WordSplitter:
    return WordSplitter(script, leading_space, merge_other)

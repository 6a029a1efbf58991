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

**Long pieces are capped.** Text written without spaces (Khmer, Thai-style writing, a
scraped page with its spaces lost) makes one piece per line, and every merge that touches
such a piece rewrites all of it: training becomes quadratic. A piece of more than
``max_units`` units (:data:`MAX_PIECE_UNITS` by default) is therefore cut, from its start,
into chunks of ``max_units`` units; a chunk is a piece like any other (merges never cross
the cut). Only syllable boundaries are cut, and the same rule runs in training, encoding,
the merge trace and the Hugging Face export, so they agree. SentencePiece's
``max_sentencepiece_length`` and Hugging Face's ``max_token_length`` bound tokens for the
same reason; ``bench/long_pieces.py`` measured the cap.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from functools import cache, cached_property
from typing import TYPE_CHECKING, Any

from ._engine import native_corpus_units, native_piece_counter
from .schema import char_set, schemas_for
from .settings import MAX_PIECE_UNITS, check_max_units
from .syllables import get_syllabifier

if TYPE_CHECKING:
    from ._engine import PieceCounter as NativePieceCounter
    from .syllables import Syllabifier

#: A superword holds at most this many words (the trainer does not learn a longer one):
#: a phrase of five or more words is one text's boilerplate more often than language.
MAX_SUPERWORD_WORDS = 4
PIECE_MODES = ("whitespace", "script")


class WordSplitter:
    """Compiled piece splitter for one setting. Use :func:`get_word_splitter`."""

    def __init__(
        self,
        script: str = "auto",
        leading_space: bool = False,
        pieces: str = "whitespace",
        max_units: int = MAX_PIECE_UNITS,
        superwords: bool = False,
    ):
        if pieces not in PIECE_MODES:
            raise ValueError(f"pieces must be one of {', '.join(PIECE_MODES)}, got {pieces!r}")
        check_max_units(max_units)
        if superwords and (pieces != "whitespace" or not leading_space):
            raise ValueError("superword spans need whitespace pieces and the leading space")
        self.max_units = max_units
        self.script = script
        self.leading_space = leading_space
        self.mode = pieces
        self.superwords = superwords
        schemas_for(script)  # an unknown script fails here, as it does in the syllabifier
        # The regexes are compiled when the Python engine first needs them (pattern,
        # _findall, _units): a native tokenizer cuts its pieces in Rust.

    @cached_property
    def pattern(self) -> str:
        """The piece regex, with the superword spans first when the splitter has them."""
        if self.superwords:
            return span_regex(self.script, self.max_units) + "|" + self.pattern_with()
        return self.pattern_with()

    @cached_property
    def _findall(self) -> Callable[[str], list[str]]:
        return re.compile(self.pattern).findall

    @cached_property
    def _units(self) -> Syllabifier:
        return get_syllabifier(self.script, self.leading_space)

    def word_regex(self, exclude: str = "") -> str:
        """The regex of one word (a run of non-space or of script characters); ``exclude``
        lists characters that end a word too (the HF export's sentinels)."""
        if self.mode == "whitespace":
            return rf"[^\s{re.escape(exclude)}]+"
        chars = frozenset().union(*(s.word_chars for s in schemas_for(self.script)))
        return char_set(chars - set(exclude)) + "+"

    def pattern_with(self, exclude: str = "") -> str:
        """The piece regex (:meth:`word_regex` with ``exclude``)."""
        word = self.word_regex(exclude)
        if self.leading_space:
            # A space before a non-space character belongs to it (also when that character
            # is another kind of space, e.g. NO-BREAK SPACE), exactly as in syllabify().
            return rf" ?{word}| ?[^ \t\n\r]|[\s\S]"
        return rf"{word}|[\s\S]"

    def native_counter(self, prefix: str = "") -> NativePieceCounter | None:
        """A native counter of this splitter's raw pieces (``prefix`` before every
        non-empty line of a file segment), or None under the Python engine
        (:func:`sgpe._engine.native_piece_counter`)."""
        word_chars = None
        if self.mode == "script":
            word_chars = frozenset().union(*(s.word_chars for s in schemas_for(self.script)))
        spans = span_letters(self.script) if self.superwords else []
        return native_piece_counter(
            self.script, self.leading_space, word_chars, spans, self.max_units, prefix
        )

    def native_units(self) -> Callable[..., Any] | None:
        """The native :func:`sgpe.hierarchical.corpus_units` with this splitter's
        syllabifier, or None under the Python engine (:func:`sgpe._engine.native_corpus_units`)."""
        return native_corpus_units(self.script, self.leading_space)

    def pieces(self, text: str) -> list[str]:
        """Split text into pieces; ``"".join(pieces(t)) == t``. Pieces longer than
        ``max_units`` units are cut (:meth:`cap`)."""
        found: list[str] = self._findall(text)
        cap = self.max_units
        # A piece of at most `cap` characters has at most `cap` units: the usual case is
        # decided by one pass of len() at C speed.
        if not found or max(map(len, found)) <= cap:
            return found
        out: list[str] = []
        for p in found:
            if len(p) <= cap:
                out.append(p)
            else:
                out.extend(self.cap(p))
        return out

    def raw_pieces(self, text: str) -> list[str]:
        """The pieces before the cap; :meth:`cap_counts` applies it to counts of them."""
        return self._findall(text)

    def cap(self, piece: str) -> list[str]:
        """One piece cut into chunks of at most ``max_units`` units (usually itself). A
        superword span is never cut: each of its words is at most ``max_units``
        characters (:func:`span_regex`)."""
        n = self.max_units
        if len(piece) <= n or is_span(piece):
            return [piece]
        units = self._units(piece)
        if len(units) <= n:
            return [piece]
        return ["".join(units[i : i + n]) for i in range(0, len(units), n)]

    def cap_counts(self, counts: Counter[str]) -> Counter[str]:
        """Counts of raw pieces turned into counts of capped pieces, in place: equal to
        counting :meth:`pieces` directly."""
        n = self.max_units
        for p in [p for p in counts if len(p) > n]:
            chunks = self.cap(p)
            if len(chunks) > 1:
                c = counts.pop(p)
                for q in chunks:
                    counts[q] += c
        return counts

    def units(self, piece: str) -> list[str]:
        """The syllables (units) of one piece."""
        return self._units(piece)

    def match_units(self, text: str) -> list[str]:
        """The units of ``text`` by the syllabifier's grammar regex alone
        (:meth:`sgpe.syllables.Syllabifier.match`), the same as :meth:`units`. For the
        trainer, whose pieces are distinct: it syllabifies each once, so the syllabifier's
        word memory (and its batch path for new words) would cost more than it saves."""
        return self._units.match(text)

    def learn_units(self, pieces: Iterable[str]) -> None:
        """Syllabify many new pieces in one pass ahead of :meth:`units` on each of them
        (:meth:`sgpe.syllables.Syllabifier.learn`)."""
        self._units.learn(pieces)

    def units_of_many(self, pieces: list[str]) -> list[list[str]]:
        """Units of many pieces with one regex pass (pieces must not contain a newline)."""
        out: list[list[str]] = []
        current: list[str] = []
        for u in self._units.match("\n".join(pieces)):
            if u == "\n":
                out.append(current)
                current = []
            else:
                current.append(u)
        out.append(current)
        return out


def is_span(piece: str) -> bool:
    """Is this "piece" a superword span (several words: a plain space inside it)? A piece
    holds a plain space only as its first character."""
    return " " in piece[1:]


def span_letters(script: str) -> list[frozenset[str]]:
    """For each schema of ``script``: the characters a word of a superword span may hold,
    its letters and marks (the classified characters, without digits, punctuation or
    symbols) and the joiners."""
    import unicodedata

    out = []
    for sch in schemas_for(script):
        out.append(
            frozenset(
                c
                for c in sch.code_points | {"\u200c", "\u200d"}
                if unicodedata.category(c)[0] in "LM" or c in "\u200c\u200d"
            )
        )
    return out


def span_regex(script: str, max_units: int = MAX_PIECE_UNITS) -> str:
    """The regex of a superword *span*: two or more whole words of one script's letters
    (:func:`span_letters`), each word after the first with exactly one plain space
    before it. So punctuation, digits, any other character (Latin, another script), two
    spaces, a tab and a line break all end a span; there is no word limit on a span (a
    superword token has one: :data:`MAX_SUPERWORD_WORDS`). A word of more than
    ``max_units`` characters ends a span too (it may be cut, :meth:`WordSplitter.cap`).
    Spans start where pieces start and end where they end, so the piece regex after the
    span alternatives cuts the rest of the text exactly as it always does."""
    spans = []
    for letters in span_letters(script):
        # (?![^\s]), not (?!\S): the HF export spells out \s (sgpe/interop/hf.py).
        word = f"{char_set(letters)}{{1,{max_units}}}(?![^\\s])"
        spans.append(f" ?{word}(?: {word})+")
    return "|".join(spans)


@cache
def get_word_splitter(
    script: str = "auto",
    leading_space: bool = False,
    pieces: str = "whitespace",
    max_units: int = MAX_PIECE_UNITS,
    superwords: bool = False,
) -> WordSplitter:
    return WordSplitter(script, leading_space, pieces, max_units, superwords)

"""Layer 1 (LinguisTrie): split text into syllables with one compiled regex per schema set.

The output is total and lossless: every character lands in exactly one token, so
``"".join(syllabify(t)) == t`` for every string. Each token is one of

* ``syllable``    a full syllable of the script's grammar (``C(Z?HZ?C)*... | VM?`` for Sinhala),
* ``orphan``      a vowel sign, virama, modifier or nukta with no base (one symbol),
* ``passthrough`` any other single character (Latin, digits, punctuation, a bare ZWJ),
* ``whitespace``  a single whitespace character.

With ``leading_space=True`` the last plain space of a whitespace run is prefixed to the
token that follows it, as in the original SGPE; tabs, newlines and the other spaces of the run stay
single tokens. ``script="auto"`` uses every built-in schema at once: their syllables start
with disjoint characters, so one alternation routes each run of text to its own grammar.

The schemas' grammar regex defines the tokens (``Syllabifier._findall``). A call runs it
as little as possible, with the same result: each distinct space-delimited word is
matched once and its tokens remembered, and new words are cut with numpy where no token
can go across (:class:`Chunker`), so the regex only sees each distinct piece once. The
schema's DFA table drives :func:`trace` (per-character class and state for the UI) and
:func:`syllabify_dfa`, a table-driven matcher kept as an independent second definition;
the tests prove both give identical output, and the benchmarks in ``bench/`` measure them.

The original Sinhala syllable has three definitions that do not quite agree: the DFA
table of the SGPE paper, the loop of the original implementation (``LinguisTrie``), and
the table-driven DFA of WWHO, its code-switching successor. Where they differ, the
original implementation wins (``docs/decisions.md``):

* The paper's table has no transition from its ``ZWJ_SEEN`` state on P, H or M, so
  ``C H Z P`` becomes ``C H Z`` + orphan ``P``; the original implementation (and we) keep
  ``C H Z P`` whole (its conjunct loop absorbs a ``H Z`` that no consonant follows, then
  the vowel sign is taken after the cluster). Likewise ``C H Z H`` and ``C H Z M`` are one
  syllable here.
* The paper's table sends a bare ZWJ at the start to its orphan state; the original
  implementation passes it through. Both emit it as one single-character token; only the
  kind differs (we say passthrough).
* The paper and the original implementation alike: a doubled vowel sign ``C P P`` is
  ``C P`` + orphan ``P``, and a doubled virama ``C H H`` is ``C H`` + orphan ``H``. WWHO's
  DFA emits an independent vowel immediately, so ``V M`` (e.g. ``අං``) becomes two tokens
  there and one here; and when it reaches no accepting state it silently falls back,
  where our DFA always accepts the longest valid prefix.
* A correction of all three: a decomposed two-part vowel sign (U+0DD9
  followed by U+0DCA, U+0DCF [U+0DCA] or U+0DDF; and U+0DDC U+0DCA) is one P symbol, after a
  consonant cluster and as an orphan alike, so NFC and NFD text give the same syllables.
* The eight generated Brahmic scripts (Bengali to Malayalam) follow one template grammar
  with per-script rules; Myanmar and Khmer, also generated, have grammars of their own.
  ``docs/scripts.md`` lists them and checks them against HarfBuzz and Unicode grapheme
  clusters (``sgpe/oracles.py``).
* Devanagari (not in the original SGPE) follows WWHO's description: ``C N? (H Z? C N?)* (H (Z P?)?
  | P)? M* | V M*`` with Z = ZWJ or ZWNJ and M = candrabindu, anusvara, visarga, Vedic marks.
"""

from __future__ import annotations

import re
import sys
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache, reduce
from itertools import accumulate, islice
from operator import iadd
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from .engine import dispatch, native_syllabifier
from .schema import _GRAMMAR_TOKEN, OTHER, Schema, schemas_for

if TYPE_CHECKING:
    import numpy as np

Kind = Literal["syllable", "orphan", "passthrough", "whitespace"]
# As in the original SGPE, only these four characters take part in leading-space handling.
LS_WHITESPACE = " \t\n\r"
_CACHE_LIMIT = 200_000  # distinct parts remembered per syllabifier (then it starts afresh)
_KEY_LIMIT = 2_000  # longer parts (text without plain spaces) are matched, not remembered
# Shorter texts (the encoder's and trainer's pieces, one word each) stay with the word
# memory below, which answers a known word faster than a call into the native core: on
# si_dev.txt, encode_batch with sample_data/vocab/sgpe_4k.json ran at 6.5 M chars/s with
# the word memory and 3.7 with a native call per piece. Both give the same tokens.
_NATIVE_MIN_CHARS = 64


class Span(NamedTuple):
    start: int
    end: int
    kind: Kind


@dataclass(frozen=True)
class CharTrace:
    """One character of the input as the syllabifier saw it (for the UI)."""

    index: int  # position in the text
    char: str
    cls: str  # class letter (C V P H Z M N ...), "O" other, "W" whitespace, "S" leading space
    state: str  # DFA state after this character (unit-internal characters share it)
    token: int  # index of the token it belongs to
    script: str | None  # schema that claimed the token, None for passthrough/whitespace


# ============================================================================
# Chunking: token boundaries that hold in every context
# ============================================================================

# (nullable, first letters, last letters, adjacent letter pairs) of a regular language.
_Lang = tuple[bool, frozenset[int], frozenset[int], frozenset[tuple[int, int]]]
_EMPTY: _Lang = (True, frozenset(), frozenset(), frozenset())


def _cat(a: _Lang, b: _Lang) -> _Lang:
    return (
        a[0] and b[0],
        a[1] | b[1] if a[0] else a[1],
        a[2] | b[2] if b[0] else b[2],
        a[3] | b[3] | {(x, y) for x in a[2] for y in b[1]},
    )


def _alt(a: _Lang, b: _Lang) -> _Lang:
    return (a[0] or b[0], a[1] | b[1], a[2] | b[2], a[3] | b[3])


def _star(a: _Lang) -> _Lang:
    return (True, a[1], a[2], a[3] | {(x, y) for x in a[2] for y in a[1]})


def _letters(ks: Iterable[int]) -> _Lang:
    ks = frozenset(ks)
    return (False, ks, ks, frozenset())


def _word(ks: Iterable[int]) -> _Lang:
    out = _EMPTY
    for k in ks:
        out = _cat(out, _letters((k,)))
    return out


def _grammar_language(schema: Schema, grammar: str, letter: dict[str, int]) -> _Lang:
    """The :data:`_Lang` of a schema grammar over the letters of :class:`Chunker`.

    The grammar is read with the same tokens as ``Schema.grammar_regex`` expands it: a class
    letter stands for its characters or any of its units (a fixed sequence)."""
    toks = _GRAMMAR_TOKEN.findall(grammar)
    pos = 0

    def symbol(cls: str) -> _Lang:
        out = _letters(letter[c] for c in schema.classes[cls])
        for u in schema.units:
            if u.cls == cls:
                out = _alt(out, _word(letter[c] for c in u.sequence))
        return out

    def alternation() -> _Lang:
        nonlocal pos
        out = sequence()
        while pos < len(toks) and toks[pos] == "|":
            pos += 1
            out = _alt(out, sequence())
        return out

    def sequence() -> _Lang:
        nonlocal pos
        out = _EMPTY
        while pos < len(toks) and toks[pos] not in ("|", ")"):
            tok = toks[pos]
            pos += 1
            if tok == "(?:":
                item = alternation()
                pos += 1  # the ")" (the schema's grammar compiled, so it is balanced)
            else:
                item = symbol(tok)
            while pos < len(toks) and toks[pos] in ("*", "+", "?"):
                # A lazy "??" or "*?" only changes which match is preferred, not the language.
                q = toks[pos]
                pos += 1
                item = (
                    _star(item)
                    if q == "*"
                    else (True, *item[1:])
                    if q == "?"
                    else _cat(item, _star(item))
                )
            out = _cat(out, item)
        return out

    return alternation()


class Chunker:
    """Cuts text where no token can go across, with numpy, so only the pieces between
    are matched by the regex, and each distinct piece once.

    The regex tells characters apart only by the class sets and unit sequences of the
    schemas and by the four literal whitespace characters of ``leading_space``, so each
    character is mapped to one *letter* per such signature. From the grammars we know
    which pairs of adjacent letters occur inside some token; between any other pair there
    is a boundary in every context: no match can go across it, and the regex's choices
    before it never depend on what follows (it has no start or end assertions and no
    lookarounds). The text is cut there (a separator character inserted with numpy, then ``str.split``): most
    pieces are one syllable, and the rare piece of several tokens is matched by the
    reference regex. ``tests/test_syllabify_fast.py`` checks the result against that regex.
    """

    def __init__(
        self,
        tables: tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]],
        findall: Callable[[str], list[str]],
    ) -> None:
        self.table, self.inside = tables  # code point -> letter; letter pairs seen in a token
        self.findall = findall
        self.canon: dict[str, str] = {}  # piece known to be one token -> its shared string

    @classmethod
    def build(
        cls,
        schemas: tuple[Schema, ...] | str,
        leading_space: bool,
        findall: Callable[[str], list[str]],
    ) -> Chunker | None:
        """The chunker for these schemas (or a built-in ``script`` setting); None without
        numpy or for a grammar that can match the empty string (the regex's empty tokens
        are left to the regex)."""
        if isinstance(schemas, str):
            tables = _builtin_chunk_tables(schemas, leading_space)
        else:
            tables = _chunk_tables(schemas, leading_space)
        return None if tables is None else cls(tables, findall)

    def after_space(self, parts: list[str]) -> list[tuple[str, ...]] | None:
        """The tokens of ``" " + part`` for each part, or None if the text holds every
        separator character we could use."""
        import numpy as np

        text = " " + " ".join(parts)
        sep = next((c for c in _SEPARATORS if c not in text), None)
        if sep is None:
            return None
        chars = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        letters = self.table[np.minimum(chars, len(self.table) - 1)]
        cuts = np.flatnonzero(~self.inside[letters[:-1], letters[1:]]) + 1
        marked_chars = np.full(len(chars) + len(cuts), ord(sep), dtype=np.uint32)
        kept = np.ones(len(marked_chars), dtype=bool)
        kept[cuts + np.arange(len(cuts))] = False  # where the separators go
        marked_chars[kept] = chars
        marked = marked_chars.tobytes().decode("utf-32-le", "surrogatepass")
        flat = marked.split(sep)
        # Each part starts at its space, a cut (no token holds a space but at its start):
        # the pieces of part k are flat[first[k]:first[k + 1]].
        first = np.flatnonzero(chars[cuts] == 32) + 1
        if len(first) != len(parts) - 1:
            return None
        bounds = [0, *first.tolist(), len(flat)]
        # Each distinct piece is matched once. Nearly all are one token, kept as one
        # shared string object: the lists built from them then touch a few thousand hot
        # objects rather than a new one per token. A piece of several tokens (e.g. a
        # doubled vowel sign) is rare: only the parts holding one are rebuilt.
        canon = self.canon
        several: dict[str, list[str]] = {}
        for piece in set(flat).difference(canon):
            tokens = self.findall(piece)
            if len(tokens) > 1:
                several[piece] = tokens
            else:
                if len(canon) >= _CACHE_LIMIT:
                    canon.clear()
                canon[piece] = piece
        # Tuples: the garbage collector stops tracking a tuple of strings, not a list.
        pieces: tuple[Any, ...] = tuple(map(canon.get, flat))  # None: several tokens
        out = list(map(pieces.__getitem__, map(slice, bounds, bounds[1:])))
        i = -1
        while True:  # (a None without `several`: another thread cleared `canon` meanwhile)
            try:
                i = pieces.index(None, i + 1)
            except ValueError:
                break
            k = bisect_right(bounds, i) - 1
            own = flat[bounds[k] : bounds[k + 1]]
            out[k] = tuple(t for p in own for t in several.get(p) or (canon.get(p, p),))
        return out


def _chunk_tables(
    schemas: tuple[Schema, ...], leading_space: bool
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]] | None:
    """:class:`Chunker`'s letter of each code point and which letter pairs occur inside a
    token; None without numpy or for a grammar that matches the empty string."""
    try:
        import numpy as np
    except ImportError:
        return None
    special = set(" \t\n\r").union(*(u.sequence for s in schemas for u in s.units))
    member: dict[str, set[tuple[int, str]]] = {c: set() for c in special}
    for i, s in enumerate(schemas):
        for name, chars in s.classes.items():
            for c in chars:
                member.setdefault(c, set()).add((i, name))
    signatures: dict[object, int] = {"other": 0}
    letter = {
        c: signatures.setdefault((c if c in special else "", frozenset(m)), len(signatures))
        for c, m in member.items()
    }
    inside: set[tuple[int, int]] = set()
    starts: set[int] = set()
    for s in schemas:
        for grammar in (s.syllable_grammar, s.orphan_grammar):
            empty, first, _, pairs = _grammar_language(s, grammar, letter)
            if empty:
                return None
            inside |= pairs
            starts |= first
    if leading_space:  # " ?(?:syllable|orphan|[^ \t\n\r])": a space joins what follows
        ws = {letter[c] for c in " \t\n\r"}
        inside |= {(letter[" "], b) for b in starts | (set(range(len(signatures))) - ws)}
    n = len(signatures)
    # Up to the highest code point any letter stands for, plus one "other" entry that every
    # higher code point is clipped to (64 KB for the built-in schemas, not 1.1 MB).
    table = np.zeros(max(map(ord, letter)) + 2, dtype=np.uint8 if n <= 256 else np.uint16)
    table[[ord(c) for c in letter]] = list(letter.values())
    joined = np.zeros((n, n), dtype=bool)
    if inside:
        a, b = zip(*inside)
        joined[list(a), list(b)] = True
    return table, joined


@cache
def _builtin_chunk_tables(
    script: str, leading_space: bool
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]] | None:
    """:func:`_chunk_tables` of the built-in schemas, made once per setting."""
    return _chunk_tables(schemas_for(script), leading_space)


# Below this many characters of new words the regex alone is faster than the chunker
# (measured on si_dev.txt words: equal speed at about 420 characters).
_CHUNKER_MIN_CHARS = 1024

# Characters the chunker may insert as cut marks: any two that the text does not hold.
_SEPARATORS = "\x00\x01\x02\x03\ufffe\uffff\U0010fffe\U0010ffff"


# ============================================================================
# Compiled matchers
# ============================================================================


class Syllabifier:
    """The compiled matcher for one (script, leading_space) setting. Use :func:`get_syllabifier`."""

    def __init__(
        self,
        script: str = "auto",
        leading_space: bool = False,
        schemas: tuple[Schema, ...] | None = None,
    ) -> None:
        """``schemas`` replaces the built-in ones (a linguist's own schema on the Grammar page).
        Which engine answers is ``SGPE_ENGINE``'s choice (sgpe/engine.py); the differential
        tests make the Python reference under ``SGPE_ENGINE=python``."""
        self.script = script
        self.leading_space = leading_space
        self.schemas: tuple[Schema, ...] = schemas or schemas_for(script)
        self._builtin = not schemas
        syl = "|".join(s.syllable_regex for s in self.schemas)
        orph = "|".join(s.orphan_regex for s in self.schemas)
        if leading_space:
            self.pattern = f" ?(?:{syl}|{orph}|[^ \\t\\n\\r])|[\\s\\S]"
            span_pattern = (
                f"(?P<syllable> ?(?:{syl}))|(?P<orphan> ?(?:{orph}))"
                f"|(?P<passthrough> ?[^ \\t\\n\\r])|(?P<whitespace>[\\s\\S])"
            )
        else:
            self.pattern = f"{syl}|{orph}|[\\s\\S]"
            span_pattern = f"(?P<syllable>{syl})|(?P<orphan>{orph})|(?P<passthrough>[\\s\\S])"
        # The reference: the grammar regex over the whole text. Everything faster below
        # must give exactly its tokens (tests/test_syllabify_fast.py compares them).
        compiled = re.compile(self.pattern)
        self._findall = compiled.findall
        self._finditer = re.compile(span_pattern).finditer
        # A plain space never sits inside a token (only at the start of one, with
        # leading_space), so the tokens of a text are those of its first space-delimited
        # part followed by those of " " + each later part. Words repeat (Zipf): each
        # distinct part is matched once and its tokens reused, so a text already seen
        # word by word costs a dictionary lookup per word.
        # (Not for a schema that claims the space, nor for a grammar that matches the empty
        # string: the regex's empty tokens then depend on where the text starts.)
        # (The pattern matches the empty string exactly when `syl|orph` does: its other
        # branches need a character; so the compiled pattern answers, with no third regex.)
        self._split_at_spaces = not any(" " in s.code_points for s in self.schemas) and (
            compiled.fullmatch("") is None
        )
        self._words: dict[str, tuple[str, ...]] = {}  # part -> tokens of " " + part
        self._heads: dict[str, list[str]] = {}  # part -> its tokens (a text's first part)
        # Built on the first new word; stays None without numpy (the regex then does it all).
        self._chunker: Chunker | None = None
        self._chunker_built = False
        # The native core's DFA over the same schema tables (sgpe/engine.py), for the
        # built-in schemas under the native engine; None otherwise.
        self._native = native_syllabifier(script, leading_space, custom=not self._builtin)

    def __call__(self, text: str) -> list[str]:
        return dispatch(
            self._native,
            lambda native: native.syllabify(text),
            lambda: self._tokens(text),
            size=len(text),
            min_size=_NATIVE_MIN_CHARS,
        )

    def _tokens(self, text: str) -> list[str]:
        """The Python reference of :meth:`__call__`."""
        if not self._split_at_spaces:
            return self._findall(text)
        parts = text.split(" ")
        head = self._heads.get(parts[0])
        if head is None:
            head = self._findall(parts[0])
            if len(parts[0]) <= _KEY_LIMIT:
                if len(self._heads) >= _CACHE_LIMIT:
                    self._heads.clear()
                self._heads[parts[0]] = head
        if len(parts) == 1:
            return list(head)
        try:
            # Every part known: the list is built at C speed (no Python code per word).
            return reduce(iadd, map(self._words.__getitem__, islice(parts, 1, None)), list(head))
        except KeyError:
            pass
        # Some parts are new: match them all at once and remember the short ones.
        words = self._words
        distinct = set(islice(parts, 1, None))
        new = list(distinct.difference(words))
        tokens = self._after_space(new)
        full = len(words) + len(new) > _CACHE_LIMIT
        fresh: dict[str, tuple[str, ...]] = {}
        if not full and max(map(len, new), default=0) <= _KEY_LIMIT:
            words.update(zip(new, tokens))
        else:  # full (start afresh with this text's own parts) or a part too long to keep
            fresh = dict(zip(new, tokens))
            keep = {**dict(zip(distinct, map(words.get, distinct))), **fresh}
            if full:
                words.clear()
            kept = ((p, v) for p, v in keep.items() if v is not None and len(p) <= _KEY_LIMIT)
            words.update(islice(kept, _CACHE_LIMIT))
        try:
            return reduce(iadd, map(words.__getitem__, islice(parts, 1, None)), list(head))
        except KeyError:
            pass
        # A long part, a part forgotten when the dictionary was full, or another thread
        # cleared it: build from a dictionary of this text's own parts.
        local = dict(zip(distinct, map(words.get, distinct)))
        local.update(fresh)
        lost = [p for p, v in local.items() if v is None]
        local.update(zip(lost, self._after_space(lost)))
        return reduce(iadd, map(local.__getitem__, islice(parts, 1, None)), list(head))

    def match(self, text: str) -> list[str]:
        """The tokens of ``text`` by the grammar regex alone, without the word memory of
        :meth:`__call__`: for many short texts each met once (a vocabulary's merges, whose
        kinds a loaded tokenizer works out), where remembering them costs more than it
        saves. The same tokens as calling the syllabifier (``tests/test_syllabify_fast.py``)."""
        return self._findall(text)

    def learn(self, texts: Iterable[str]) -> None:
        """Match the space-delimited parts of many texts that are not known yet in one
        pass (the chunker's, from about a thousand characters on), so that calling this
        syllabifier on each text afterwards costs a dictionary lookup per part. A batch of
        new words syllabified one call at a time pays the per-call overhead once per word
        (:meth:`sgpe.tokenizer.Tokenizer.encode_batch` is what calls this)."""
        if not self._split_at_spaces:
            return
        words = self._words
        new = list(
            {
                part
                for text in texts
                for part in islice(text.split(" "), 1, None)
                if part not in words and len(part) <= _KEY_LIMIT
            }
        )
        if not new:
            return
        if len(words) + len(new) > _CACHE_LIMIT:
            words.clear()  # as __call__ does when full: start afresh
            del new[_CACHE_LIMIT:]
        words.update(zip(new, self._after_space(new)))

    def _after_space(self, parts: list[str]) -> list[tuple[str, ...]]:
        """The tokens of ``" " + part`` for each part (no plain space inside any of them)."""
        # numpy's fixed cost per call (about 60 us) only pays from a few hundred characters
        # on; encode() asks for one word at a time, which the regex does faster.
        if sum(map(len, parts)) < _CHUNKER_MIN_CHARS:
            return list(map(tuple, map(self._findall, map(" ".__add__, parts))))
        if not self._chunker_built:
            own = self.script if self._builtin else self.schemas
            self._chunker = Chunker.build(own, self.leading_space, self._findall)
            self._chunker_built = True
        if self._chunker is not None:
            tokens = self._chunker.after_space(parts)
            if tokens is not None:
                return tokens
        return list(map(tuple, map(self._findall, map(" ".__add__, parts))))

    def spans(self, text: str) -> list[Span]:
        return dispatch(
            self._native,
            lambda native: list(map(Span._make, native.spans(text))),  # kinds: Kind's names
            lambda: self._spans(text),
        )

    def _spans(self, text: str) -> list[Span]:
        """The Python reference of :meth:`spans`."""
        out: list[Span] = []
        for m in self._finditer(text):
            kind: Kind = m.lastgroup  # type: ignore[assignment]
            if kind == "passthrough" and m.group().isspace():
                kind = "whitespace"
            out.append(Span(m.start(), m.end(), kind))
        return out

    def ends(self, text: str, utf8: bool = False) -> array[int]:
        """Every token's end offset, in code points or (``utf8``) in bytes of the UTF-8
        text, as an ``array("I")``: for callers that need only the boundaries (the native
        engine then makes no Python object per token). The same numbers as summing the
        lengths of :meth:`__call__`'s tokens."""
        return dispatch(
            self._native,
            lambda native: _native_ends(native.offsets(text, utf8)),
            lambda: self._ends(text, utf8),
        )

    def _ends(self, text: str, utf8: bool) -> array[int]:
        """The Python reference of :meth:`ends`."""
        tokens = self(text)
        sizes = (len(t.encode("utf-8")) for t in tokens) if utf8 else map(len, tokens)
        return array("I", accumulate(sizes))

    def schema_for(self, ch: str) -> Schema | None:
        for s in self.schemas:
            if s.classify(ch) != OTHER:
                return s
        return None


def _native_ends(offsets: bytes) -> array[int]:
    out = array("I", offsets)
    if sys.byteorder == "big":
        out.byteswap()  # the native core writes little-endian
    return out


@cache
def get_syllabifier(script: str = "auto", leading_space: bool = False) -> Syllabifier:
    """The cached compiled :class:`Syllabifier` for a setting."""
    return Syllabifier(script, leading_space)


def syllabify(text: str, script: str = "auto", leading_space: bool = False) -> list[str]:
    """Split ``text`` into syllables, orphans, passthrough and whitespace tokens.

    >>> syllabify("ශ්‍රී ලංකාව")
    ['ශ්\u200dරී', ' ', 'ලං', 'කා', 'ව']
    >>> syllabify("ශ්‍රී ලංකාව", leading_space=True)
    ['ශ්\u200dරී', ' ලං', 'කා', 'ව']
    >>> syllabify("क्षत्रिय नमस्ते")
    ['क्ष', 'त्रि', 'य', ' ', 'न', 'म', 'स्ते']
    """
    return get_syllabifier(script, leading_space)(text)


def syllable_ends(
    text: str, script: str = "auto", leading_space: bool = False, utf8: bool = False
) -> array[int]:
    """The end of every token of :func:`syllabify` as one array of offsets (code points,
    or bytes of the UTF-8 text with ``utf8``), without a string per token.

    >>> list(syllable_ends("ශ්‍රී ලංකාව"))
    [5, 6, 8, 10, 11]
    >>> list(syllable_ends("කා a", utf8=True))
    [6, 7, 8]
    """
    return get_syllabifier(script, leading_space).ends(text, utf8)


def syllable_spans(text: str, script: str = "auto", leading_space: bool = False) -> list[Span]:
    """Like :func:`syllabify` but as ``(start, end, kind)`` character offsets."""
    return get_syllabifier(script, leading_space).spans(text)


# ============================================================================
# The table-driven DFA: trace for the UI, and an independent matcher for tests/benchmarks
# ============================================================================


def _dfa_longest(schema: Schema, text: str, pos: int) -> tuple[int, list[tuple[int, str, str]]]:
    """Run the DFA from ``pos``; return the end of the longest accepted prefix and the path.

    The path lists ``(end_of_symbol, class, state)`` for each symbol up to that end.
    """
    state = schema.dfa_start
    best_end = pos
    path: list[tuple[int, str, str]] = []
    best_path: list[tuple[int, str, str]] = []
    i = pos
    n = len(text)
    units = schema.units_longest_first
    while i < n:
        for u in units:
            if text.startswith(u.sequence, i):
                sym, cls = u.sequence, u.cls
                break
        else:
            sym, cls = text[i], schema.classify(text[i])
        nxt = schema.dfa[state].get(cls)
        if nxt is None:
            break
        state = nxt
        i += len(sym)
        path.append((i, cls, state))
        if state in schema.dfa_accept:
            best_end, best_path = i, list(path)
    return best_end, best_path


def _dfa_tokens(
    text: str, script: str, leading_space: bool, syl: Syllabifier | None = None
) -> list[tuple[int, int, Kind, Schema | None, list[tuple[int, str, str]]]]:
    """Segment with the DFA tables: (start, end, kind, schema, path) per token."""
    syl = syl or get_syllabifier(script, leading_space)
    out: list[tuple[int, int, Kind, Schema | None, list[tuple[int, str, str]]]] = []
    n = len(text)
    pos = 0
    while pos < n:
        ch = text[pos]
        start = pos
        if leading_space and ch in LS_WHITESPACE:
            run_end = pos
            while run_end < n and text[run_end] in LS_WHITESPACE:
                run_end += 1
            last_single = run_end - 1 if text[run_end - 1] == " " and run_end < n else run_end
            for k in range(pos, last_single):
                out.append((k, k + 1, "whitespace", None, []))
            if last_single == run_end:
                pos = run_end
                continue
            start, pos = last_single, last_single + 1  # the pending space joins the next token
            ch = text[pos]
        schema = syl.schema_for(ch)
        end, path = _dfa_longest(schema, text, pos) if schema else (pos, [])
        if end == pos:  # no accepting state: a single passthrough character
            end = pos + 1
            kind: Kind = "whitespace" if text[start:end].isspace() else "passthrough"
            out.append((start, end, kind, None, []))
        else:
            assert schema is not None
            kind = "orphan" if path[-1][2] in schema.dfa_orphan_states else "syllable"
            out.append((start, end, kind, schema, path))
        pos = end
    return out


def syllabify_dfa(text: str, script: str = "auto", leading_space: bool = False) -> list[str]:
    """The table-driven DFA matcher: same output as :func:`syllabify`, written independently."""
    return [text[s:e] for s, e, *_ in _dfa_tokens(text, script, leading_space)]


def trace(
    text: str,
    script: str = "auto",
    leading_space: bool = False,
    syllabifier: Syllabifier | None = None,
) -> list[CharTrace]:
    """Per-character class and DFA state, for showing how each syllable was recognised
    (with ``syllabifier``: by its schemas, e.g. one loaded from a file)."""
    out: list[CharTrace] = []
    tokens = _dfa_tokens(
        text, script, syllabifier.leading_space if syllabifier else leading_space, syllabifier
    )
    for t, (start, end, kind, schema, path) in enumerate(tokens):
        i = start
        if kind in ("whitespace",) and not path:
            for k in range(start, end):
                out.append(CharTrace(k, text[k], "W", "WHITESPACE", t, None))
            continue
        if end - start >= 2 and text[start] == " " and (schema or kind == "passthrough"):
            out.append(CharTrace(start, " ", "S", "LEADING_SPACE", t, None))
            i = start + 1
        if schema is None:
            for k in range(i, end):
                out.append(CharTrace(k, text[k], OTHER, "PASSTHROUGH", t, None))
            continue
        for sym_end, cls, state in path:
            for k in range(i, sym_end):
                out.append(CharTrace(k, text[k], cls, state, t, schema.name))
            i = sym_end
    return out

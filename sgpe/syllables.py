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
matched once and its tokens remembered. The schema's DFA table drives :func:`trace`
(per-character class and state for the UI); :func:`syllabify_dfa` gives its tokens, an
independent second definition (a table walk, not the regex) that the tests compare with
the regex on every script. The native core walks the same DFA table (``docs/algorithms.md``).

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
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache, cached_property, reduce
from itertools import accumulate, islice
from operator import iadd
from typing import Any, Literal, NamedTuple

from ._engine import dispatch, native_syllabifier
from .schema import OTHER, Schema, schema_key, schemas_for

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
        Which engine answers is ``SGPE_ENGINE``'s choice (sgpe/_engine.py); the differential
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
        self._span_pattern = span_pattern
        self._words: dict[str, tuple[str, ...]] = {}  # part -> tokens of " " + part
        self._heads: dict[str, list[str]] = {}  # part -> its tokens (a text's first part)
        # The native core's DFA over the same schema tables (sgpe/_engine.py), for the
        # built-in schemas under the native engine; None otherwise.
        self._native = native_syllabifier(script, leading_space, custom=not self._builtin)
        if schemas:
            _ = self._compiled  # a linguist's own grammar fails here, where it is given

    # The regexes are compiled on first use: under the native engine a whole training run
    # or a long encode may never match one in Python, and compiling the 12 scripts'
    # alternation costs ~50 ms of every process that builds a syllabifier.
    @cached_property
    def _compiled(self) -> re.Pattern[str]:
        # The reference: the grammar regex over the whole text. Everything faster below
        # must give exactly its tokens (tests/test_syllabify_fast.py compares them).
        return re.compile(self.pattern)

    @cached_property
    def _findall(self) -> Callable[[str], list[str]]:
        return self._compiled.findall

    @cached_property
    def _finditer(self) -> Callable[[str], Iterator[re.Match[str]]]:
        return re.compile(self._span_pattern).finditer

    @cached_property
    def _split_at_spaces(self) -> bool:
        # A plain space never sits inside a token (only at the start of one, with
        # leading_space), so the tokens of a text are those of its first space-delimited
        # part followed by those of " " + each later part. Words repeat (Zipf): each
        # distinct part is matched once and its tokens reused, so a text already seen
        # word by word costs a dictionary lookup per word.
        # (Not for a schema that claims the space, nor for a grammar that matches the empty
        # string: the regex's empty tokens then depend on where the text starts.)
        # (The pattern matches the empty string exactly when `syl|orph` does: its other
        # branches need a character; so the compiled pattern answers, with no third regex.)
        return not any(" " in s.code_points for s in self.schemas) and (
            self._compiled.fullmatch("") is None
        )

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
        """Match the space-delimited parts of many texts that are not known yet, each
        distinct part once, so that calling this syllabifier on each text afterwards costs
        a dictionary lookup per part (:meth:`sgpe.tokenizer.Tokenizer.encode_batch` is what
        calls this)."""
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
        findall = self._findall
        return [tuple(findall(" " + part)) for part in parts]

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


def syllabify(
    text: str, script: str = "auto", leading_space: bool = False, *, schema: Any = None
) -> list[str]:
    """Split ``text`` into syllables, orphans, passthrough and whitespace tokens.

    ``schema`` replaces ``script`` with a linguist's own grammar: a schema file's path, a
    parsed :class:`~sgpe.schema.Schema` or a schema document (a bad one raises
    :class:`~sgpe.schema.SchemaError`, which says what to fix).

    >>> syllabify("ශ්‍රී ලංකාව")
    ['ශ්\u200dරී', ' ', 'ලං', 'කා', 'ව']
    >>> syllabify("ශ්‍රී ලංකාව", leading_space=True)
    ['ශ්\u200dරී', ' ලං', 'කා', 'ව']
    >>> syllabify("क्षत्रिय नमस्ते")
    ['क्ष', 'त्रि', 'य', ' ', 'न', 'म', 'स्ते']
    """
    if schema is not None:
        if script != "auto":
            raise ValueError("give script or schema, not both")
        script = schema_key(schema)
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

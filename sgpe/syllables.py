"""Layer 1 (LinguisTrie): split text into syllables with one compiled regex per schema set.

The output is total and lossless: every character lands in exactly one token, so
``"".join(syllabify(t)) == t`` for every string. Each token is one of

* ``syllable``    a full syllable of the script's grammar (``C(HZ?C)*... | VM?`` for Sinhala),
* ``orphan``      a vowel sign, virama, modifier or nukta with no base (one symbol),
* ``passthrough`` any other single character (Latin, digits, punctuation, a bare ZWJ),
* ``whitespace``  a single whitespace character.

With ``leading_space=True`` the last plain space of a whitespace run is prefixed to the
token that follows it, as in the original SGPE; tabs, newlines and the other spaces of the run stay
single tokens. ``script="auto"`` uses every built-in schema at once: their syllables start
with disjoint characters, so one alternation routes each run of text to its own grammar.

Matching uses the schema's grammar regex (fast, C speed), once per distinct
space-delimited word: words repeat, so their tokens are reused from a bounded cache. The schema's DFA table drives
:func:`trace` (per-character class and state for the UI) and :func:`syllabify_dfa`, a
table-driven matcher kept as an independent second definition; the tests prove both give
identical output, and the benchmarks in ``bench/`` measure them (the regex is ~20x faster).

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
* The eight generated scripts (Bengali to Malayalam) follow one template grammar with
  per-script rules; ``docs/scripts.md`` lists them and checks them against HarfBuzz and
  Unicode grapheme clusters (``sgpe/oracles.py``).
* Devanagari (not in the original SGPE) follows WWHO's description: ``C N? (H Z? C N?)* (H (Z P?)?
  | P)? M* | V M*`` with Z = ZWJ or ZWNJ and M = candrabindu, anusvara, visarga, Vedic marks.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Literal, NamedTuple

from .schema import OTHER, Schema, schemas_for

Kind = Literal["syllable", "orphan", "passthrough", "whitespace"]
# As in the original SGPE, only these four characters take part in leading-space handling.
LS_WHITESPACE = " \t\n\r"
_CACHE_LIMIT = 200_000  # distinct parts remembered per syllabifier (then it starts afresh)


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
        """``schemas`` replaces the built-in ones (a linguist's own schema on the Grammar page)."""
        self.script = script
        self.leading_space = leading_space
        self.schemas: tuple[Schema, ...] = schemas or schemas_for(script)
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
        self._findall = re.compile(self.pattern).findall
        self._finditer = re.compile(span_pattern).finditer
        # Words repeat (Zipf): each distinct space-delimited part is matched once and its
        # tokens reused, which is what makes syllabify run at word-lookup speed.
        self._cache: dict[str, list[str]] = {}
        # Letter -> (its script's word characters, that script's own matcher).
        self._single: dict[str, tuple[frozenset[str], Callable[[str], list[str]]]] = {}
        if len(self.schemas) > 1 and schemas is None:
            for s in reversed(self.schemas):  # a joiner goes to the first script
                own = (s.word_chars | {" "}, get_syllabifier(s.name, leading_space)._findall)
                self._single.update(dict.fromkeys(s.word_chars, own))

    def _part(self, part: str) -> list[str]:
        """Tokens of one part of the text that holds no plain space (or starts with one)."""
        tokens = self._cache.get(part)
        if tokens is None and "\n" in part:
            # Across a line break: the lines' words are cached, not the rare pair.
            first, *rest = part.split("\n")
            tokens = list(self._part(first)) if first else []
            for line in rest:
                tokens.append("\n")
                if line:
                    tokens += self._part(line)
        elif tokens is None:
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            findall: Callable[[str], list[str]] = self._findall
            # A part in one script matches with that script's regex alone: same tokens (no
            # other schema's syllable or orphan can start on its characters), fewer tries.
            single = self._single.get(part[-1]) if part else None
            if single is not None and single[0].issuperset(part):
                findall = single[1]
            tokens = self._cache[part] = findall(part)
        return tokens

    def __call__(self, text: str) -> list[str]:
        parts = text.split(" ")
        out = list(self._part(parts[0]))
        extend, append, part = out.extend, out.append, self._part
        if self.leading_space:
            # The space before a part joins its first token unless the part is empty (the
            # next character is another space, or the end) or starts with \t \n \r.
            for p in parts[1:]:
                if p and p[0] not in "\t\n\r":
                    extend(part(" " + p))
                else:
                    append(" ")
                    if p:
                        extend(part(p))
        else:
            for p in parts[1:]:
                append(" ")
                if p:
                    extend(part(p))
        return out

    def spans(self, text: str) -> list[Span]:
        out: list[Span] = []
        for m in self._finditer(text):
            kind: Kind = m.lastgroup  # type: ignore[assignment]
            if kind == "passthrough" and m.group().isspace():
                kind = "whitespace"
            out.append(Span(m.start(), m.end(), kind))
        return out

    def schema_for(self, ch: str) -> Schema | None:
        for s in self.schemas:
            if s.classify(ch) != OTHER:
                return s
        return None


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

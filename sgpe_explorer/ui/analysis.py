"""The tables behind the app's pages, computed with :mod:`sgpe` and pandas.

Pure functions (no Streamlit), so the pages stay thin and these are easy to test:

* :func:`text_counts`, :func:`syllable_units`: the Syllables page;
* :func:`analyse_tokens`: one tokenizer on one text for the Compare page (token spans,
  broken syllable boundaries from :mod:`sgpe.metrics`, counts);
* :func:`flatten_trace`: the merge stepper (one global step list over all words);
* :func:`merges_table`: the Merges page (the Vocabulary page's tables are in
  :mod:`sgpe_explorer.ui.vocabulary`).

Long texts: counts always cover the whole text; the per-unit views cover a prefix of at
most ``limit`` characters that ends on a unit boundary (:func:`prefix_end`).
"""

from __future__ import annotations

import hashlib
import threading
import unicodedata
from collections import Counter, OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import regex

from sgpe import metrics
from sgpe.protocol import WordTrace
from sgpe.schema import CLASS_LETTERS, custom_schema, load_schema
from sgpe.syllables import Span, syllable_ends, syllable_spans, trace

from .render import TokenView, UnitView, char_name, code_points, token_title, visible

_GRAPHEME = regex.compile(r"\X")
CLASS_NAMES = {
    **CLASS_LETTERS,
    "O": "other (no script claims it)",
    "W": "whitespace",
    "S": "leading space",
}

# ============================================================================ syllables


def text_counts(text: str, spans: Sequence[Span]) -> dict[str, int]:
    """Characters, grapheme clusters (``\\X``), words and units of each kind."""
    kinds = Counter(s.kind for s in spans)
    return {
        "characters": len(text),
        "graphemes": sum(1 for _ in _GRAPHEME.finditer(text)),
        "syllables": kinds.get("syllable", 0),
        "words": len(text.split()),
        "units": len(spans),
        "orphan": kinds.get("orphan", 0),
        "passthrough": kinds.get("passthrough", 0),
        "whitespace": kinds.get("whitespace", 0),
    }


def prefix_end(spans: Sequence[Span], limit: int) -> int:
    """How many spans fit in the first ``limit`` characters (at least one, if any)."""
    n = 0
    for s in spans:
        if s.end > limit and n:
            break
        n += 1
    return n


def _schema_start(script: str | None) -> str:
    return load_schema(script).dfa_start if script else ""


def syllable_units(
    text: str, spans: Sequence[Span], script: str = "auto", leading_space: bool = False
) -> tuple[list[UnitView], list[dict[str, Any]]]:
    """Views (for the spans) and table rows (one per unit) of ``spans`` of ``text``.

    The per-character trace is computed for the text the spans cover only.
    """
    if not spans:
        return [], []
    end = spans[-1].end
    chars = trace(text[:end], script, leading_space)
    views: list[UnitView] = []
    rows: list[dict[str, Any]] = []
    k = 0
    for n, span in enumerate(spans):
        unit = text[span.start : span.end]
        own = []
        while k < len(chars) and chars[k].index < span.end:
            own.append(chars[k])
            k += 1
        script_name = next((c.script for c in own if c.script), None)
        classes = "".join(c.cls for c in own)
        path = _dfa_path(own, script_name)
        cp_lines = [f"U+{ord(c.char):04X}  {c.cls}  {char_name(c.char)}" for c in own]
        title = (
            f"{visible(unit)} — {span.kind}"
            + (f" ({script_name})" if script_name else "")
            + f", characters {span.start}–{span.end - 1}\n"
            + "\n".join(cp_lines)
            + (f"\nDFA: {path}" if path else "")
        )
        views.append(UnitView(unit, span.kind, title, classes, path))
        rows.append(
            {
                "#": n,
                "unit": unit,
                "shown": visible(unit),
                "kind": span.kind,
                "script": script_name or "",
                "start": span.start,
                "end": span.end,
                "code points": code_points(unit),
                "classes": classes,
                "DFA path": path,
            }
        )
    return views, rows


def _dfa_path(chars: Sequence[Any], script: str | None) -> str:
    """``START -C-> CLUSTER -H-> HAL ...`` for the characters of one unit."""
    if not script:
        return ""
    parts = [_schema_start(script)]
    last = None
    for c in chars:
        if c.cls in ("S", "W"):
            continue
        # Characters of one multi-code-point unit share a state: show the state once.
        if c.state == last and c.cls == "P":
            continue
        parts.append(f"-{c.cls}-> {c.state}")
        last = c.state
    return " ".join(parts)


def char_rows(unit: str, script: str = "auto", leading_space: bool = False) -> list[dict[str, Any]]:
    """One row per code point of a unit: character, code point, Unicode name, class, state."""
    rows = []
    for c in trace(unit, script, leading_space):
        rows.append(
            {
                "char": visible(c.char),
                "code point": f"U+{ord(c.char):04X}",
                "name": char_name(c.char),
                "class": c.cls,
                "class name": CLASS_NAMES.get(c.cls, c.cls),
                "DFA state": c.state,
                "script": c.script or "",
            }
        )
    return rows


# ============================================================================ coverage


def corpus_digest(lines: Sequence[str]) -> str:
    """What names a corpus in :func:`corpus_figures` (its lines' sha256)."""
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


#: The corpus figures kept per process (:func:`corpus_figures`), newest last.
_FIGURES: OrderedDict[tuple[str, str, str], dict[str, Any]] = OrderedDict()
_FIGURES_LOCK = threading.Lock()
_FIGURES_MAKING = threading.Lock()  # one evaluation at a time, as charts.kept builds
FIGURES_KEPT = 16
#: How many times :func:`corpus_figures` evaluated a corpus (tests/test_app_classroom.py).
FIGURES_MADE = [0]


def figures_kept(key: str, digest: str, script: str = "auto") -> bool:
    """Whether :func:`corpus_figures` has these figures already."""
    with _FIGURES_LOCK:
        return (key, digest, script) in _FIGURES


def corpus_figures(
    key: str, digest: str, tokenizer: Any, lines: Sequence[str], script: str = "auto"
) -> dict[str, Any]:
    """:func:`sgpe.metrics.evaluate` of one tokenizer (``key``, which changes with its
    vocabulary file) on the corpus ``digest`` names (:func:`corpus_digest`), kept for the
    process (the last :data:`FIGURES_KEPT`): Compare's corpus table.

    Kept here rather than in a page's Streamlit cache so that the server can make the
    default page's figures before its first visitor (``resources.prepare_server``): in a
    classroom, the first visitors' pages evaluated the shipped corpus in the middle of
    their rush (docs/app.md, section 11). One evaluation runs at a time, so visitors
    asking for the same figures at once wait for it. The caller gets its own copy."""
    name = (key, digest, script)
    with _FIGURES_LOCK:
        if name in _FIGURES:
            _FIGURES.move_to_end(name)
            return dict(_FIGURES[name])
    with _FIGURES_MAKING:
        with _FIGURES_LOCK:
            if name in _FIGURES:
                return dict(_FIGURES[name])
        figures = metrics.evaluate(tokenizer, list(lines), script=script)
        with _FIGURES_LOCK:
            FIGURES_MADE[0] += 1
            _FIGURES[name] = figures
            while len(_FIGURES) > FIGURES_KEPT:
                _FIGURES.popitem(last=False)
    return dict(figures)


def vocabulary_grammar(tokenizer: Any) -> str:
    """The ``script`` a page uses for a vocabulary's syllables: the vocabulary's own schema
    when it was trained with one (its key, sgpe.schema.register_schema), else ``"auto"``,
    as for every vocabulary of the built-in scripts."""
    script = getattr(tokenizer, "script", None)  # byte-level BPE has none
    return str(script) if script and custom_schema(script) is not None else "auto"


def syllable_coverage(tokenizer: Any, text: str) -> dict[str, int]:
    """How a tokenizer covers the syllables of ``text`` (units of the ``syllable`` kind):
    ``whole`` — exactly one token; ``joined`` — inside a token that holds whole syllables;
    ``parts`` — spelled by several tokens that each lie inside the syllable (learned parts);
    ``torn`` — cut by a token that reaches across the syllable's edge."""
    encoded = metrics.encode_for_metrics(tokenizer, text)
    raw = text.encode("utf-8")
    starts = {s for s, e in encoded.spans if s < e}
    # A token " X" (leading space or Metaspace) starts the syllable X after its space.
    starts |= {s + 1 for s in starts if s < len(raw) and raw[s] == 0x20}
    ends = {e for s, e in encoded.spans if s < e}
    # The syllables of the vocabulary's own schema, if it was trained with one.
    script = vocabulary_grammar(tokenizer)
    result = metrics.broken_boundaries(text, encoded.spans, script=script)
    torn_at = set(result.straddling_at)
    out = {"syllables": 0, "whole": 0, "joined": 0, "parts": 0, "torn": 0}
    offsets = [0]
    for ch in text:
        offsets.append(offsets[-1] + len(ch.encode("utf-8")))
    for span in syllable_spans(text, script):
        if span.kind != "syllable":
            continue
        out["syllables"] += 1
        lo, hi = offsets[span.start], offsets[span.end]
        inner = [p for p in result.positions if lo < p < hi]
        if any(p in torn_at for p in inner):
            out["torn"] += 1
        elif inner:
            out["parts"] += 1
        elif lo in starts and hi in ends:
            out["whole"] += 1
        else:
            out["joined"] += 1
    return out


# ============================================================================ tokens


@dataclass
class TokenAnalysis:
    """One tokenizer on one text."""

    name: str
    ids: list[int]
    spans: list[tuple[int, int]]
    views: list[TokenView]  # for the shown prefix only
    counts: dict[str, float] = field(default_factory=dict)


def _label_and_fallback(tokenizer: Any, token_id: int) -> tuple[str | None, bool]:
    """``[UNK]``-like label and whether the token is a fallback piece (SGPE only)."""
    if getattr(tokenizer, "model", "") != "sgpe":
        return None, False
    if token_id == tokenizer.unk_id:
        return "[UNK]", True
    return None, tokenizer.is_fallback_token(token_id)


def syllable_status(
    piece: bytes, start: int, end: int, broken: set[int], torn: set[int], script: str
) -> str:
    """What one token (bytes ``start:end`` of the text) does to the syllables: tears one,
    holds a part of one the vocabulary spells from parts, or keeps whole syllables."""
    if start in torn or end in torn:
        return "syllables: tears a syllable (a cut inside it, next to a token across its edge)"
    if start in broken or end in broken:
        return "syllables: a part of one syllable, spelled from its parts (the syllable is intact)"
    whole = sum(
        s.kind == "syllable"
        for s in syllable_spans(piece.decode("utf-8", errors="replace"), script)
    )
    if whole == 0:
        return "syllables: none (no script syllable in this token)"
    return f"syllables: {whole} whole syllable{'s' if whole != 1 else ''}, none broken"


def counted(n: int, one: str, many: str | None = None) -> str:
    """``n`` and its noun, in the singular for 1 ("1 torn syllable", "2 torn syllables").

    >>> counted(1, "torn syllable"), counted(1234, "token")
    ('1 torn syllable', '1,234 tokens')
    """
    return f"{n:,} {one if n == 1 else many or one + 's'}"


#: The names of the integrity figures (keys of :attr:`TokenAnalysis.counts`).
TORN = "torn syllables"
PARTS = "syllables spelled from their own parts"
INSIDE = "token boundaries inside syllables"


def torn_units(text: str, straddling_at: Sequence[int], script: str = "auto") -> int:
    """How many units (syllables) of ``text`` hold a straddling cut (byte offsets): each
    torn syllable counts once, however many of its cuts straddle."""
    if not straddling_at:
        return 0
    cuts = sorted(straddling_at)
    lo, torn = 0, 0
    k = 0
    for hi in syllable_ends(text, script, utf8=True):  # offsets only: no span objects
        while k < len(cuts) and cuts[k] <= lo:
            k += 1
        if k < len(cuts) and cuts[k] < hi:
            torn += 1
        lo = hi
    return torn


def analyse_tokens(
    name: str, tokenizer: Any, text: str, *, limit: int, script: str = "auto"
) -> TokenAnalysis:
    """Encode ``text`` with any tokenizer and find every token boundary inside a syllable.

    Counts cover all of ``text``; :attr:`TokenAnalysis.views` cover tokens that start in
    its first ``limit`` characters' bytes.
    """
    encoded = metrics.encode_for_metrics(tokenizer, text)
    data = text.encode("utf-8")
    result = metrics.broken_boundaries(text, encoded.spans, script=script)
    broken = set(result.positions)
    torn = set(result.straddling_at)
    byte_limit = len(text[:limit].encode("utf-8"))
    views: list[TokenView] = []
    fallback = 0
    sgpe_model = getattr(tokenizer, "model", "") == "sgpe"
    for token_id, (start, end) in zip(encoded.ids, encoded.spans):
        label, is_fallback = _label_and_fallback(tokenizer, token_id)
        hierarchical = sgpe_model and getattr(tokenizer, "mode", "paper") == "hierarchical"
        if sgpe_model and not hierarchical and (start in broken or end in broken):
            is_fallback = True  # a code-point piece of a syllable missing from the vocabulary
        fallback += is_fallback
        if start >= byte_limit and start > 0:
            continue
        piece = data[start:end]
        cut = start in broken
        part = cut and start not in torn
        status = syllable_status(piece, start, end, broken, torn, script)
        title = token_title(token_id, piece, cut=cut, label=label, part=part, status=status)
        if start == end and sgpe_model and getattr(tokenizer, "prepend_space", False):
            # The dummy space encode() puts before the text, alone in its token (the text
            # starts with a tab or newline): it has no characters of the text to show.
            label, title = (
                "␣",
                f"id {token_id}\nthe space encode() adds before the text (prepend_space)",
            )
        views.append(
            TokenView(
                token_id, piece, cut=cut, part=part, fallback=is_fallback, label=label, title=title
            )
        )
    n = len(encoded.ids)
    words = len(result.word_flags)
    # The integrity figures in the order the Compare page teaches them:
    # the rule first (torn syllables: SGPE's is always 0), then the budget (a syllable
    # spelled from its own parts is intact, it only costs tokens), then all cuts inside
    # syllables, the sum of both kinds, which is what a peer without the rule piles up.
    counts: dict[str, float] = {
        TORN: torn_units(text, result.straddling_at, script),
        PARTS: result.spelled_units,
        "tokens": n,
        "characters": len(text),
        "words": words,
        "TWR": n / words if words else 0.0,
        "chars/token": len(text) / n if n else 0.0,
        INSIDE: result.broken,
        "words with a cut syllable": result.words_with_broken,
        "UNK": encoded.unk,
        "fallback tokens": fallback,
    }
    return TokenAnalysis(name, list(encoded.ids), list(encoded.spans), views, counts)


# ============================================================================ merges


@dataclass(frozen=True)
class GlobalStep:
    """One merge of the whole text: which word, the pair, its rank, and the result."""

    word: int  # index of the word (pre-token) in the trace
    pair: tuple[str, str]
    rank: int
    tokens: tuple[str, ...]  # the whole text's tokens after this step
    new_index: int  # position of the merged token in ``tokens``
    # "part" (inside one syllable), "join" (whole syllables), "super" (whole syllables
    # across a space), "bytes"
    kind: str = "join"


def flatten_trace(traces: Sequence[WordTrace]) -> tuple[tuple[str, ...], list[GlobalStep]]:
    """The initial tokens of the whole text and one :class:`GlobalStep` per merge, words
    in text order (each word's merges in the order the encoder applies them)."""
    current = [list(t.initial) for t in traces]
    initial = tuple(tok for word in current for tok in word)
    steps: list[GlobalStep] = []
    offset = 0
    offsets = []
    for w in current:
        offsets.append(offset)
        offset += len(w)
    for wi, t in enumerate(traces):
        before = current[wi]
        for step in t.steps:
            after = list(step.tokens)
            pos = next((i for i, (a, b) in enumerate(zip(before, after)) if a != b), len(after) - 1)
            current[wi] = after
            start = sum(len(w) for w in current[:wi])
            steps.append(
                GlobalStep(
                    wi,
                    step.pair,
                    step.rank,
                    tuple(tok for word in current for tok in word),
                    start + pos,
                    step.kind,
                )
            )
            before = after
    return initial, steps


def merges_table(tokenizer: Any, counts: Sequence[int] | None) -> list[dict[str, Any]]:
    """Every learned merge in rank order: rank, left, right, merged token, training count,
    and its kind ("part" of one syllable, "join" of whole syllables, "bytes")."""
    rows = []
    kinds: Sequence[str]
    if getattr(tokenizer, "model", "") == "sgpe":
        pairs = [(a, b, a + b) for a, b in tokenizer.merges]
        hier = getattr(tokenizer, "_hier", None)
        kinds = hier.kinds if hier is not None else ["join"] * len(pairs)
    else:
        pairs = [
            (tokenizer.id_to_token(a), tokenizer.id_to_token(b), tokenizer.id_to_token(256 + r))
            for r, (a, b) in enumerate(tokenizer.merges)
        ]
        kinds = ["bytes"] * len(pairs)
    for rank, (a, b, m) in enumerate(pairs):
        rows.append(
            {
                "rank": rank,
                "left": a,
                "right": b,
                "merged": m,
                "count": counts[rank] if counts is not None and rank < len(counts) else None,
                # A join across a space (its right side starts a word) made a superword.
                "kind": "super" if kinds[rank] == "join" and b.startswith(" ") else kinds[rank],
            }
        )
    return rows


def distinct_syllables(text: str, script: str = "auto") -> list[str]:
    """The script syllables of ``text``, each once, in order of first appearance."""
    seen: dict[str, None] = {}
    for span in syllable_spans(text, script):
        if span.kind == "syllable":
            seen.setdefault(text[span.start : span.end], None)
    return list(seen)


def first_step_touching(steps: Sequence[GlobalStep], syllable: str) -> int | None:
    """Index of the first step whose merged token builds part of ``syllable`` (the token
    lies inside it) or joins it with its neighbours (the token contains it); else None."""
    for i, step in enumerate(steps):
        merged = (step.pair[0] + step.pair[1]).replace("\u00b7", " ")
        core = merged.strip()
        if core and (core in syllable or syllable in merged):
            return i
    return None


def _script_of(ch: str) -> str | None:
    """The Unicode script block name of a letter or mark ("SINHALA", "DEVANAGARI"...)."""
    if not (ch.isalpha() or unicodedata.category(ch).startswith("M")):
        return None
    name = unicodedata.name(ch, "")
    return name.split(" ", 1)[0] if name else None


def lines_by_script(lines: Sequence[str]) -> dict[str, list[str]]:
    """``{"all": lines}`` and the lines grouped by the script most of their letters are in
    (title case, e.g. "Sinhala", "Latin"; "other" for a line without letters), the groups
    ordered by size."""
    groups: dict[str, list[str]] = {}
    for line in lines:
        counts = Counter(s for s in map(_script_of, line) if s)
        script = counts.most_common(1)[0][0].title() if counts else "other"
        groups.setdefault(script, []).append(line)
    ordered = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    return {"all": list(lines), **dict(ordered)}

"""The Hugging Face ``tokenizer.json`` exporter itself: :mod:`sgpe.interop.hf` explains
the design and re-exports every public name here, with the tokenizer folder's functions.

It sits below :mod:`sgpe.interop.hf_folder`, which writes the folder around the file, so
the two modules import each other in one direction only.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._atomic import write_text_atomic
from ..pieces import get_word_splitter, span_regex
from ..protocol import BYTE_TOKEN, byte_token
from ..schema import own_letters, schemas_for
from ..syllables import Syllabifier, get_syllabifier
from ..tokenizer import Tokenizer
from .oniguruma import (
    UntranslatableRegex,
    class_body,
    lit,
    onig_from_python_re,
    onig_from_regex_module,
)

if TYPE_CHECKING:
    from ..baselines.bytebpe import ByteBPETokenizer

__all__ = [
    "MAX_RUN",
    "ExportError",
    "ParityReport",
    "check_parity",
    "load_hf",
    "save_hf",
    "to_hf",
    "to_hf_str",
]

# Replaces OOV units under oov_policy="unk"; the first candidate not in the vocabulary wins.
_SENTINELS = ("\uffff", "\ufffe", "\U0010ffff", "\U0010fffe", "\ufdd0")
#: Longest run of known units one regex match may cover (see the docstring of sgpe/interop/hf.py).
MAX_RUN = 50_000
# Characters no schema classifies; a unit followed by one of them must never grow.
_PROBES = ("a", "1", " ", "\t", "\n", "\u00a0", "\u200b", "\U0001f600", "[")
_INSTALL_HINT = "install it with pip install 'sgpe-explorer[hf]' (or pip install tokenizers)"


class ExportError(ValueError):
    """The vocabulary cannot be written as an exact ``tokenizer.json``; the message says why."""


# ============================================================================
# Public API
# ============================================================================


def to_hf(tokenizer: Tokenizer | ByteBPETokenizer, *, cls_sep: bool = False) -> dict[str, Any]:
    """The ``tokenizer.json`` document (a JSON-ready dict) for an SGPE or byte-level model.

    The Hugging Face tokenizer built from it gives exactly ``tokenizer.encode(text)`` for
    every string (see the docstring of sgpe/interop/hf.py for the one exception, literal special tokens).
    Raises :class:`ExportError` if the vocabulary breaks an assumption of the construction.

    ``cls_sep`` (SGPE only) adds the post-processor of the original SGPE export, BERT's
    ``TemplateProcessing``: ``[CLS] A [SEP]`` for one sequence and ``[CLS] A [SEP] B [SEP]``
    for a pair (type ids 0 and 1). Encoding with ``add_special_tokens=True`` (the default of ``tokenizers`` and
    ``transformers``) then wraps our ids; with ``add_special_tokens=False`` they are ours.
    Without it (the default) there is no post-processor, so both give exactly our ids.
    """
    if isinstance(tokenizer, Tokenizer):
        if tokenizer.mode == "hierarchical":
            document = _HierarchicalExport(tokenizer).document()
        else:
            document = _SgpeExport(tokenizer).document()
        if cls_sep:
            document["post_processor"] = _cls_sep_template(tokenizer)
        return document
    if cls_sep:
        raise ExportError("cls_sep: only SGPE vocabularies have [CLS] and [SEP] tokens")
    from ..baselines.bytebpe import ByteBPETokenizer

    if isinstance(tokenizer, ByteBPETokenizer):
        return _bytebpe_document(tokenizer)
    raise TypeError(
        f"to_hf expects an sgpe.Tokenizer or sgpe.baselines.bytebpe.ByteBPETokenizer, "
        f"not {type(tokenizer).__name__}"
    )


def to_hf_str(tokenizer: Tokenizer | ByteBPETokenizer, *, cls_sep: bool = False) -> str:
    """:func:`to_hf` as JSON text (UTF-8, compact, deterministic)."""
    document = to_hf(tokenizer, cls_sep=cls_sep)
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"))


def save_hf(
    tokenizer: Tokenizer | ByteBPETokenizer, path: str | Path, *, cls_sep: bool = False
) -> None:
    """Write ``tokenizer.json`` atomically; load it with ``tokenizers.Tokenizer.from_file``."""
    write_text_atomic(path, to_hf_str(tokenizer, cls_sep=cls_sep) + "\n")


def _cls_sep_template(tokenizer: Tokenizer) -> dict[str, Any]:
    """The original SGPE export's post-processor (its ``export_hf_tokenizer``):
    ``TemplateProcessing`` with ``[CLS] $A [SEP]`` and ``[CLS] $A [SEP] $B:1 [SEP]:1``, ids from the vocabulary."""
    ids = {}
    for name in ("[CLS]", "[SEP]"):
        token_id = tokenizer.token_to_id(name)
        if token_id is None:
            raise ExportError(f"cls_sep: the vocabulary has no {name} token")
        ids[name] = token_id

    def special(name: str, type_id: int) -> dict[str, Any]:
        return {"SpecialToken": {"id": name, "type_id": type_id}}

    def sequence(name: str, type_id: int) -> dict[str, Any]:
        return {"Sequence": {"id": name, "type_id": type_id}}

    return {
        "type": "TemplateProcessing",
        "single": [special("[CLS]", 0), sequence("A", 0), special("[SEP]", 0)],
        "pair": [
            special("[CLS]", 0),
            sequence("A", 0),
            special("[SEP]", 0),
            sequence("B", 1),
            special("[SEP]", 1),
        ],
        "special_tokens": {
            name: {"id": name, "ids": [token_id], "tokens": [name]}
            for name, token_id in ids.items()
        },
    }


def load_hf(source: str | Path | dict[str, Any] | Tokenizer | ByteBPETokenizer) -> Any:
    """A ``tokenizers.Tokenizer`` from a ``tokenizer.json`` path, a document, or a model."""
    try:
        from tokenizers import Tokenizer as HFTokenizer
    except ImportError as exc:
        raise ImportError(f"load_hf needs the 'tokenizers' package: {_INSTALL_HINT}") from exc
    if isinstance(source, (str, Path)):
        return HFTokenizer.from_file(str(source))
    document = source if isinstance(source, dict) else to_hf(source)
    return HFTokenizer.from_str(json.dumps(document, ensure_ascii=False))


@dataclass(frozen=True)
class ParityReport:
    """Result of :func:`check_parity`: lines compared and the mismatching ones."""

    lines: int
    mismatches: tuple[tuple[int, str, list[int], list[int]], ...]  # (index, text, ours, hf)

    @property
    def ok(self) -> bool:
        return not self.mismatches


def check_parity(
    tokenizer: Tokenizer | ByteBPETokenizer,
    texts: Iterable[str],
    hf: Any = None,
    *,
    limit: int = 20,
) -> ParityReport:
    """Encode ``texts`` with ``tokenizer`` and its export (or ``hf``) and compare the ids.

    Special-token strings in the text are encoded as text (``encode_special_tokens`` is
    switched on for the comparison). At most ``limit`` mismatches are kept; ``lines``
    counts every text compared.
    """
    hf = load_hf(tokenizer) if hf is None else hf
    batch = list(texts)
    before = hf.encode_special_tokens
    hf.encode_special_tokens = True
    try:
        got = [e.ids for e in hf.encode_batch(batch, add_special_tokens=False)]
    finally:
        hf.encode_special_tokens = before
    bad: list[tuple[int, str, list[int], list[int]]] = []
    for k, (text, theirs) in enumerate(zip(batch, got)):
        ours = tokenizer.encode(text)
        if ours != theirs and len(bad) < limit:
            bad.append((k, text, ours, theirs))
    return ParityReport(len(batch), tuple(bad))


# ============================================================================
# The document's parts
# ============================================================================


def _sequence(normalizers: list[dict[str, Any] | None]) -> dict[str, Any]:
    """One normalizer, or a Sequence of several (None entries dropped)."""
    present: list[dict[str, Any]] = []
    for n in normalizers:
        if n is not None and n.get("type") == "Sequence":
            present.extend(n["normalizers"])  # flat: one Sequence, not nested ones
        elif n is not None:
            present.append(n)
    return present[0] if len(present) == 1 else {"type": "Sequence", "normalizers": present}


def _split(pattern: str) -> dict[str, Any]:
    return {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False}


def _added_token(token_id: int, content: str) -> dict[str, Any]:
    return {
        "id": token_id,
        "content": content,
        "single_word": False,
        "lstrip": False,
        "rstrip": False,
        "normalized": False,
        "special": True,
    }


def _document(
    *,
    added: list[dict[str, Any]],
    normalizer: dict[str, Any] | None,
    pre_tokenizer: dict[str, Any],
    decoder: dict[str, Any],
    model: dict[str, Any],
) -> dict[str, Any]:
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": normalizer,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": None,
        "decoder": decoder,
        "model": model,
    }


# ============================================================================
# SGPE
# ============================================================================


def deep_lookahead_scripts(tok: Tokenizer | ByteBPETokenizer) -> list[str]:
    """The scripts of ``tok``'s vocabulary whose grammar may need three or more characters
    to tell where a syllable ends (Thai, :attr:`~sgpe.schema.Schema.needs_deep_lookahead`),
    which the export cannot follow: it raises :class:`ExportError` for such a vocabulary.
    For a caller that offers the export (the app) to say so before anyone asks for it. A
    byte-level vocabulary has no grammar: always ``[]``."""
    if not isinstance(tok, Tokenizer):
        return []
    letters = set("".join(tok.vocab))
    return [
        schema.title
        for schema in schemas_for(tok.script)
        if schema.needs_deep_lookahead and own_letters(schema, letters)
    ]


#: The scripts "auto" gained after 0.3. Every export of an "auto" vocabulary carries the
#: grammars of the others, as it always has; these only where they can change an id.
_ADDED_SINCE_0_3 = frozenset(("thai", "lao"))


def _export_syllabifier(tok: Tokenizer) -> Syllabifier:
    """The syllabifier whose grammars the export writes into ``tok``'s pre-tokenizer.

    An "auto" vocabulary with byte fallback spells a unit it lacks byte by byte, so the
    grammar of a script none of whose letters it holds changes no id: however that text is
    cut into units, the same bytes come out. The export leaves out such a grammar for the
    scripts added to "auto" since 0.3 (Thai and Lao), so that the ``tokenizer.json`` of
    every vocabulary of the twelve earlier scripts stays byte-identical; the twelve stay in
    every export, as before. With ``[UNK]`` (one per unknown unit) the units of every
    script count, and every grammar is written."""
    syllabifier = get_syllabifier(tok.script, tok.leading_space)
    if tok.script != "auto" or tok.oov_policy != "fallback":
        return syllabifier
    letters = set("".join(tok.vocab))
    every = syllabifier.schemas
    kept = tuple(s for s in every if s.name not in _ADDED_SINCE_0_3 or own_letters(s, letters))
    if len(kept) == len(every):
        return syllabifier
    return Syllabifier(tok.script, tok.leading_space, schemas=kept)


class _Trie:
    __slots__ = ("children", "cont")

    def __init__(self) -> None:
        self.children: dict[str, _Trie] = {}
        self.cont: str | None = None  # lookahead of a unit ending here (None: no unit ends)


class _SgpeExport:
    """Builds the ``tokenizer.json`` document of one SGPE :class:`Tokenizer`."""

    def __init__(self, tok: Tokenizer) -> None:
        self.tok = tok
        self.fallback = tok.oov_policy == "fallback"
        self.syllabifier = _export_syllabifier(tok)
        self._first_unit = re.compile(self.syllabifier.pattern).match
        specials = set(tok.special_tokens)
        # Single-character tokens: the characters a pre-token may start from without bytes.
        self.chars = {t for t in tok.vocab if len(t) == 1 and t not in specials}
        self.units = sorted(
            t
            for t in tok.vocab
            if t not in specials and not BYTE_TOKEN.fullmatch(t) and self._unit_len(t) == len(t)
        )
        self.alphabet = sorted(set().union(*(s.code_points for s in self.syllabifier.schemas)))
        self._groups = self._char_groups()
        self._pair_starts = self._two_character_starts()
        self._cont_cache: dict[str, str] = {}

    # ---------------------------------------------------------------- units
    def _unit_len(self, text: str) -> int:
        m = self._first_unit(text)
        return m.end() if m else 0

    def _char_groups(self) -> list[tuple[str, str]]:
        """The schema characters in groups the syllable regexes cannot tell apart:
        ``(representative, all characters of the group)``.

        Grammar regexes see a character only through its class, except inside the
        multi-code-point units of a schema (e.g. U+0DD9 U+0DCF), whose characters are kept
        apart. So one representative per group decides for the whole group.
        """
        schemas = self.syllabifier.schemas
        in_units = {ch for s in schemas for u in s.units for ch in u.sequence}
        groups: dict[tuple[str, ...], list[str]] = {}
        for c in self.alphabet:
            key = tuple(s.classify(c) for s in schemas) + ((c,) if c in in_units else ())
            groups.setdefault(key, []).append(c)
        return [(chars[0], "".join(chars)) for chars in groups.values()]

    def _two_character_starts(self) -> set[str]:
        """Group representatives that lead a schema's automaton into a state that does not
        accept (so only a further character decides whether the unit goes on)."""
        starts: set[str] = set()
        for schema in self.syllabifier.schemas:
            for edges in schema.dfa.values():
                for cls, state in edges.items():
                    if state not in schema.dfa_accept:
                        starts.update(rep for rep, _ in self._groups if schema.classify(rep) == cls)
        return starts

    def _cont(self, unit: str) -> str:
        """Lookahead that holds where ``unit`` ends: the next character does not extend it."""
        if unit == " " and self.tok.leading_space:
            return "(?![^ \\t\\n\\r])"  # a lone space unit: whitespace or the end follows
        self._check_lookahead(unit)
        n = len(unit)
        extend: list[str] = []
        for rep, chars in self._groups:
            k = self._unit_len(unit + rep)
            if k < n:
                raise ExportError(
                    f"the syllabifier reads {unit!r} as one unit but cuts it when {rep!r} "
                    "follows; the run regex assumes longest-match units"
                )
            if k > n:
                extend.append(chars)
        # A grammar may extend a unit only by two characters together (Sinhala touching
        # letters: ක is a whole unit before a ZWJ alone, but ක ZWJ ් is one unit), so
        # the lookahead also excludes those pairs.
        pairs = [
            f"[{class_body(chars)}][{class_body(chars2)}]"
            for rep, chars in self._groups
            if chars not in extend and rep in self._pair_starts
            for rep2, chars2 in self._groups
            if self._unit_len(unit + rep + rep2) > n
        ]
        for c in _PROBES:
            if self._unit_len(unit + c) != n:
                raise ExportError(
                    f"{unit!r} is extended by {c!r}, a character no schema classifies; "
                    "the run regex only looks ahead for schema characters"
                )
        looks = ([f"[{class_body(''.join(extend))}]"] if extend else []) + pairs
        return f"(?!{'|'.join(looks)})" if looks else ""

    def _check_lookahead(self, unit: str) -> None:
        """Raise if three or more characters may be needed to tell where ``unit`` ends: a
        grammar whose syllable passes through two states that do not accept (Thai: after
        เป only ลี่ย makes เปลี่ย one unit). The run regex looks two characters ahead, and
        the assembly merges of such a unit's prefixes (เป + ล) could join two units, so the
        export would not give our ids; it says so instead. Every state but the start
        accepts in the other schemas (or one step leads out of a state that does not, as
        Sinhala's touching letters), so they never raise."""
        body = unit.lstrip(" ")
        schema = self.syllabifier.schema_for(body[0]) if body else None
        if schema is None:
            return
        state = schema.dfa_start
        for _, cls in schema.symbols(body):
            state = schema.dfa.get(state, {}).get(cls, "")
        dfa, accept = schema.dfa, schema.dfa_accept
        if any(
            t2 not in accept and dfa[t2]
            for t1 in dfa.get(state, {}).values()
            if t1 not in accept
            for t2 in dfa[t1].values()
        ):
            raise ExportError(
                f"the {schema.name} grammar may need three or more characters after {unit!r} "
                "to tell where it ends; the Hugging Face export looks two ahead, so it cannot "
                f"give this vocabulary's ids (docs/scripts.md, {schema.title})"
            )

    def known_unit_regex(self, *, inside_piece: bool = False, exclude: Iterable[str] = ()) -> str:
        """``K``: one known unit at a unit boundary (a trie of the units, each ending in
        its lookahead). ``inside_piece`` leaves out units that start with a space, tab,
        CR or LF: those only start a piece; ``exclude`` leaves out these units.

        Oniguruma tries the branches of an alternation one by one and counts every failed
        branch against its retry limit, so a node with many children dispatches through
        a balanced tree of one-class lookaheads: about log2(children) failures per unit.
        """
        root = _Trie()
        excluded = set(exclude)
        for u in self.units:
            if (inside_piece and u[0] in " \t\n\r") or u in excluded:
                continue
            node = root
            for ch in u:
                node = node.children.setdefault(ch, _Trie())
            if u not in self._cont_cache:
                self._cont_cache[u] = self._cont(u)
            node.cont = self._cont_cache[u]

        def dispatch(branches: list[tuple[str, str]]) -> str:
            if len(branches) <= 4:
                return "|".join(lit(ch) + body for ch, body in branches)
            mid = len(branches) // 2
            low, high = branches[:mid], branches[mid:]
            return (
                f"(?=[{class_body(ch for ch, _ in low)}])(?:{dispatch(low)})|(?:{dispatch(high)})"
            )

        def emit(node: _Trie) -> str:
            branches = [(ch, emit(child)) for ch, child in sorted(node.children.items())]
            alts = [dispatch(branches)] if branches else []
            if node.cont is not None:
                alts.append(node.cont)
            if len(alts) == 1 and len(branches) <= 1:
                return alts[0]
            return "(?:" + "|".join(alts) + ")"

        if not root.children:
            return "(?!)"
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old, 10_000))
        try:
            return emit(root)
        finally:
            sys.setrecursionlimit(old)

    def cap_split(self) -> dict[str, Any]:
        """The piece cap (the docstring of sgpe/interop/hf.py): short pieces whole, long ones in chunks."""
        n = self.tok.max_piece_units
        unit = self.unit_regex(with_space=True)
        return _split(f"\\A(?>[\\s\\S]{{0,{n}}})\\z|(?:{unit}){{1,{n}}}")

    def piece_splits(self, splitter: Any) -> list[dict[str, Any]]:
        """The pieces ``Split`` and the cap ``Split`` (sgpe/interop/hf.py's docstring); for whitespace
        pieces, one ``Split`` that does both (one pass fewer over every pre-token).

        The one regex: a piece of at most ``N`` characters whole (``short``; it has at most
        ``N`` units), else a chunk of up to ``N`` units (``chunk``: units of the piece only,
        the first one taking the piece's space), else what the pieces regex matches when
        no word follows. A chunk ends mid-piece; from there ``short`` takes the rest if it
        has at most ``N`` characters (then it has at most ``N`` units, all of which
        ``(?:U){1,N}`` would take too), else ``chunk`` cuts again: the chunks of
        :meth:`sgpe.pieces.WordSplitter.cap`."""
        n = self.tok.max_piece_units
        if splitter.superwords:
            # Superword spans first, as the splitter's own regex has them: a span is one
            # pre-token (never cut: each of its words has at most N characters).
            spans = span_regex(splitter.script, n)
            plain = get_word_splitter(splitter.script, splitter.leading_space, splitter.mode, n)
            if n < 2:  # the cap would be a Split of its own, which would cut spans too
                raise ExportError("superwords with max_piece_units 1: no Hugging Face export")
            (split,) = self.piece_splits(plain)
            return [_split(onig_from_python_re(spans) + "|" + split["pattern"]["Regex"])]
        if splitter.mode != "whitespace" or n < 2:
            return [_split(onig_from_python_re(splitter.pattern)), self.cap_split()]
        unit = self.syllabifier.pattern
        word = "[^\\s]"
        if splitter.leading_space:
            short = f"(?:[ ]{word}{{1,{n - 1}}}|{word}{{1,{n}}})(?!{word})"
            start = f"(?=[ ]?{word})"
            rest = " ?[^ \\t\\n\\r]|[\\s\\S]"
        else:
            short = f"{word}{{1,{n}}}(?!{word})"
            start = f"(?={word})"
            rest = "[\\s\\S]"
        chunk = f"{start}(?:{unit})(?:(?={word})(?:{unit})){{0,{n - 1}}}"
        return [_split(onig_from_python_re(f"{short}|{chunk}|{rest}"))]

    def unit_regex(self, with_space: bool) -> str:
        """``U``: any one unit, as the syllabifier reads it (without a leading space)."""
        if with_space:
            return onig_from_python_re(self.syllabifier.pattern)
        syl = "|".join(s.syllable_regex for s in self.syllabifier.schemas)
        orph = "|".join(s.orphan_regex for s in self.syllabifier.schemas)
        return onig_from_python_re(f"(?:{syl})|(?:{orph})|[\\s\\S]")

    # ---------------------------------------------------------------- symbols
    def symbols(self, text: str) -> list[str]:
        """Initial BPE symbols of ``text`` in the file: characters, or bytes for a
        character that is not a single-character token (fallback policy only)."""
        if not self.fallback:
            return list(text)
        out: list[str] = []
        for ch in text:
            if ch in self.chars:
                out.append(ch)
            else:
                out.extend(byte_token(b) for b in ch.encode("utf-8"))
        return out

    def hf_string(self, token: str) -> str:
        """The file's string for one of our tokens (bytes spelled out where needed)."""
        if token in self.tok.special_tokens or BYTE_TOKEN.fullmatch(token):
            return token
        return "".join(self.symbols(token))

    # ---------------------------------------------------------------- assembly
    def assembly(self) -> tuple[list[tuple[str, str]], set[str]]:
        """Assembly merges (rank order) and the set ``T`` of unit prefixes (file strings)."""
        prefixes: set[tuple[str, ...]] = set()
        for u in self.units:
            sym = tuple(self.symbols(u))
            for k in range(2, len(sym) + 1):
                prefixes.add(sym[:k])
        merges: set[tuple[str, str]] = set()
        for t in prefixes:
            for j in range(1, len(t)):
                right = t[j:]
                if len(right) == 1 or right in prefixes:
                    merges.add(("".join(t[:j]), "".join(right)))
        # Any order is correct (confluence); this one is deterministic and short-first.
        ordered = sorted(merges, key=lambda m: (len(m[0]) + len(m[1]), m))
        return ordered, {"".join(p) for p in prefixes}

    def check_no_cross_unit_merge(self, prefix_strings: set[str]) -> set[str]:
        """The known units that must stand alone, outside runs; raise if an assembly merge
        could join the end of one known unit to the next in any other way.

        For every known unit ``u`` and every suffix ``a`` of it that a symbol can be (a unit
        prefix or one character), every character ``c`` with ``a + c`` a unit prefix that
        also starts a known unit must extend ``u`` in the syllabifier (so ``u`` followed by
        ``c`` is never two units of one run).
        """
        children: dict[str, set[str]] = {}
        for u in self.units:
            for k in range(1, len(u)):
                children.setdefault(u[:k], set()).add(u[k])
        # Only a known unit can follow inside a run: any other unit is a pre-token of its
        # own. A one-character known unit that no merge of ours uses and that starts no
        # longer unit may stand alone too, out of the runs: its token is the same either
        # way. (Sinhala: " ක" ZWJ ් ZWJ ව is one unit, so " ක" + ZWJ is an assembly
        # merge, and a lone ZWJ is a unit of its own.)
        units = set(self.units)
        starts = {u[0] for u in self.units}
        longer_starts = {u[0] for u in self.units if len(u) > 1}
        used = {side for merge in self.tok.merges for side in merge}
        alone: set[str] = set()
        for u in self.units:
            n = len(u)
            for i in range(n):
                for c in children.get(u[i:], ()):
                    if c in starts and self._unit_len(u + c) == n:
                        if c in units and c not in used and c not in longer_starts:
                            alone.add(c)
                            continue
                        raise ExportError(
                            f"assembly merges could join the unit {u!r} with a following unit "
                            f"starting with {c!r} (via {u[i:] + c!r}); this schema breaks the "
                            "syllable-assembly construction"
                        )
        return alone

    # ---------------------------------------------------------------- document
    def document(self) -> dict[str, Any]:
        tok = self.tok
        assembly, prefix_strings = self.assembly()
        alone = self.check_no_cross_unit_merge(prefix_strings)

        vocab: dict[str, int] = {}
        for token, i in sorted(tok.vocab.items(), key=lambda kv: kv[1]):
            s = self.hf_string(token)
            if s in vocab:
                raise ExportError(
                    f"tokens {token!r} (id {i}) and id {vocab[s]} have the same file string {s!r}"
                )
            vocab[s] = i
        ours = set(vocab)
        for s in sorted(prefix_strings - ours, key=lambda s: (len(s), s)):
            vocab[s] = len(vocab)
        for s in sorted({c for c in (a for m in assembly for a in m) if c not in vocab}):
            vocab[s] = len(vocab)  # single characters of units (unk policy only)
        if self.fallback:
            leaked = {s for s in vocab if len(s) == 1} - self.chars
            if leaked:
                raise ExportError(f"internal: extra single-character tokens {sorted(leaked)!r}")

        merges: list[list[str]] = []
        seen: set[tuple[str, str]] = set()
        for a, b in assembly:
            seen.add((a, b))
            merges.append([a, b])
        for a, b in tok.merges:
            pair = (self.hf_string(a), self.hf_string(b))
            if pair in seen:
                # Our encoder keeps the first rank of a repeated pair (HF would keep the last).
                continue
            seen.add(pair)
            merges.append([pair[0], pair[1]])

        known = self.known_unit_regex()
        in_runs = self.known_unit_regex(exclude=alone) if alone else known
        # At most MAX_RUN units per match keeps every match inside Oniguruma's retry limit.
        runs = f"(?:{in_runs}){{1,{MAX_RUN}}}|{self.unit_regex(with_space=False)}"
        splitter = get_word_splitter(tok.script, tok.leading_space, tok.pieces)
        pieces = _split(onig_from_python_re(splitter.pattern))
        normalizer: dict[str, Any] | None = None
        if self.fallback:
            # A pre-token that starts with a known unit is a run (keep it); any other is one
            # OOV unit (or one character): cut it into characters for byte fallback.
            pre = [
                pieces,
                self.cap_split(),
                _split(runs),
                _split(f"\\A(?={known})[\\s\\S]+|[\\s\\S]"),
            ]
        else:
            free = [s for s in _SENTINELS if s not in vocab]
            if len(free) < 2:
                raise ExportError("no sentinel character is free: all candidates are tokens")
            sentinel, at_start = free[0], free[1]
            # Two passes. An OOV unit with a leading space always starts a piece (a plain
            # space starts a unit, and only the first unit of a piece has one); it becomes
            # `at_start`, which the piece regex below treats as a piece start, so the
            # pieces (and the piece cap) stay where they were before its space was replaced.
            first = f"(?=[ ])(?!{known})(?:{self.unit_regex(with_space=True)})"
            # Then every other OOV unit: start where the last one ended (\G), at a space,
            # tab, CR or LF (always a unit boundary) or after `at_start`, skip the known
            # units of that piece, and match the next unit only if it is not known. A piece
            # never has whitespace inside, so every stretch of text is scanned once.
            inside = self.known_unit_regex(inside_piece=True)
            mark = lit(at_start)
            oov = (
                f"(?:\\G|(?=[ \\t\\n\\r])|(?<={mark}))(?>(?:{known})?(?:{inside}){{0,{MAX_RUN}}})"
                f"\\K(?!{known})(?!{mark})(?:{self.unit_regex(with_space=True)})"
            )
            normalizer = _sequence(
                [
                    {"type": "Replace", "pattern": {"Regex": first}, "content": at_start},
                    {"type": "Replace", "pattern": {"Regex": oov}, "content": sentinel},
                ]
            )
            word = splitter.word_regex(exclude=at_start)
            pieces = _split(
                onig_from_python_re(
                    f"{re.escape(at_start)}(?:{word})?|" + splitter.pattern_with(exclude=at_start)
                )
            )
            pre = [pieces, self.cap_split(), _split(runs)]

        decoders: list[dict[str, Any]] = []
        if self.fallback:
            # Characters spelled with bytes inside token strings: turn them back first.
            for ch in sorted({ch for u in self.units for ch in u if ch not in self.chars}):
                spelled = "".join(self.symbols(ch))
                clash = [t for t in tok.vocab if spelled in t and self.hf_string(t) == t]
                if clash:
                    raise ExportError(
                        f"the token {clash[0]!r} contains the text {spelled!r}, which the "
                        f"decoder must turn back into {ch!r}"
                    )
                decoders.append({"type": "Replace", "pattern": {"String": spelled}, "content": ch})
            decoders.append({"type": "ByteFallback"})
        decoders.append({"type": "Fuse"})
        if tok.prepend_space:
            # encode() adds one space before a non-empty text and decode() removes it:
            # HF's Prepend normalizer skips empty strings, Strip after Fuse drops one space.
            normalizer = _sequence([{"type": "Prepend", "prepend": " "}, normalizer])
            decoders.append({"type": "Strip", "content": " ", "start": 1, "stop": 0})

        return self.finish(vocab, merges, normalizer, pre, decoders)

    def finish(
        self,
        vocab: dict[str, int],
        merges: list[list[str]],
        normalizer: dict[str, Any] | None,
        pre: list[dict[str, Any]],
        decoders: list[dict[str, Any]],
    ) -> dict[str, Any]:
        """The document around a BPE model with this vocabulary's special tokens."""
        tok = self.tok
        model = {
            "type": "BPE",
            "dropout": None,
            "unk_token": "[UNK]" if "[UNK]" in tok.vocab else None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": self.fallback,
            "ignore_merges": False,
            "vocab": vocab,
            "merges": merges,
        }
        added = [_added_token(tok.vocab[t], t) for t in tok.special_tokens]
        return _document(
            added=added,
            normalizer=normalizer,
            pre_tokenizer={"type": "Sequence", "pretokenizers": pre},
            decoder={"type": "Sequence", "decoders": decoders},
            model=model,
        )


class _HierarchicalExport(_SgpeExport):
    """The ``tokenizer.json`` of a hierarchical vocabulary (``mode="hierarchical"``).

    Every token is built from characters by learned merges, so the file needs no assembly
    merges and no extra tokens: its vocabulary is ours, id for id. The encoder works in two
    phases per piece (:class:`sgpe.hierarchical.HierarchicalEncoder`); the file does the same
    with stock parts:

    1. **Pieces**, as for the paper mode.
    2. **Runs.** ``K`` now matches the *joinable* units that the part merges assemble into
       one token (:meth:`known_units`); a run of them is one pre-token, and every other unit
       (an orphan, a unit left in several parts, one with a character outside the
       vocabulary) is a pre-token of its own.
    3. **Merges.** The part merges come first (in their learned order), then the join
       merges. Inside a run the part merges assemble each unit separately: a part merge
       ``(a, b)`` whose ``b`` can begin a unit needs ``a`` to end in a virama or joiner (a
       conjunct) or to be the leading space, and after a joinable unit such a character
       never starts a new unit. Then the join merges act on whole units in rank order,
       exactly as the encoder's second phase. Characters outside the vocabulary fall back
       to byte tokens (``byte_fallback``) or ``[UNK]``, which no merge touches.
    """

    def __init__(self, tok: Tokenizer) -> None:
        super().__init__(tok)
        self.units = self.known_units()

    def known_units(self) -> list[str]:
        """Tokens that are one joinable unit and that the part merges rebuild from their
        characters (so a run of them merges exactly as the encoder's join phase)."""
        from ..hierarchical import joinable_span

        tok = self.tok
        hier = tok._hier
        assert hier is not None
        syll = hier.syll
        out = []
        for t, i in tok.vocab.items():
            if t in tok.special_tokens or BYTE_TOKEN.fullmatch(t):
                continue
            spans = syll.spans(t)
            if len(spans) != 1 or not joinable_span(syll, t, spans[0]):
                continue
            ids, _, joinable = hier.unit(t)
            if joinable and ids == [i]:
                out.append(t)
        return sorted(out)

    def document(self) -> dict[str, Any]:
        tok = self.tok
        hier = tok._hier
        assert hier is not None
        vocab = {t: i for t, i in sorted(tok.vocab.items(), key=lambda kv: kv[1])}
        merges = [[a, b] for (a, b), kind in zip(tok.merges, hier.kinds) if kind == "part"] + [
            [a, b] for (a, b), kind in zip(tok.merges, hier.kinds) if kind == "join"
        ]
        seen: set[tuple[str, str]] = set()
        unique = []
        for a, b in merges:
            if (a, b) not in seen:  # our encoder keeps the first rank of a repeated pair
                seen.add((a, b))
                unique.append([a, b])
        known = self.known_unit_regex()
        # In a superword span a run goes on across the spaces: the units with a leading
        # space are known units too, and no part merge reaches across a space (a part
        # merge's right side is never a unit's first character, which the space is).
        runs = f"(?:{known}){{1,{MAX_RUN}}}|{self.unit_regex(with_space=True)}"
        splitter = get_word_splitter(
            tok.script,
            tok.leading_space,
            tok.pieces,
            tok.max_piece_units,
            tok.superwords_from is not None,
        )
        pre = [*self.piece_splits(splitter), _split(runs)]
        normalizer: dict[str, Any] | None = None
        decoders: list[dict[str, Any]] = []
        if self.fallback:
            decoders.append({"type": "ByteFallback"})
        decoders.append({"type": "Fuse"})
        if tok.prepend_space:
            normalizer = {"type": "Prepend", "prepend": " "}
            decoders.append({"type": "Strip", "content": " ", "start": 1, "stop": 0})
        return self.finish(vocab, unique, normalizer, pre, decoders)


# ============================================================================
# Byte-level BPE
# ============================================================================


@cache
def bytes_to_unicode() -> tuple[str, ...]:
    """GPT-2's byte -> printable character table (what HF ``ByteLevel`` uses)."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    table: dict[int, int] = {b: b for b in keep}
    extra = 0
    for b in range(256):
        if b not in table:
            table[b] = 256 + extra
            extra += 1
    return tuple(chr(table[b]) for b in range(256))


def _bytebpe_document(tok: ByteBPETokenizer) -> dict[str, Any]:
    table = bytes_to_unicode()

    def show(data: bytes) -> str:
        return "".join(table[b] for b in data)

    strings = [show(b) for b in tok.token_bytes(list(range(tok.eot_id)))]
    vocab: dict[str, int] = {}
    for i, s in enumerate(strings):
        if s in vocab:
            raise ExportError(
                f"tokens {vocab[s]} and {i} have the same bytes {s!r}: a tokenizer.json maps "
                "each token string to one id, so this vocabulary cannot be exported exactly"
            )
        vocab[s] = i
    merges = [[strings[a], strings[b]] for a, b in tok.merges]
    model = {
        "type": "BPE",
        "dropout": None,
        "unk_token": None,
        "continuing_subword_prefix": None,
        "end_of_word_suffix": None,
        "fuse_unk": False,
        "byte_fallback": False,
        "ignore_merges": False,
        "vocab": vocab,
        "merges": merges,
    }
    byte_level = {
        "type": "ByteLevel",
        "add_prefix_space": False,
        "trim_offsets": True,
        "use_regex": False,
    }
    eot = next(iter(tok.special_tokens))
    try:
        split = onig_from_regex_module(tok.pattern)
    except UntranslatableRegex as err:
        raise ExportError(str(err)) from err
    return _document(
        added=[_added_token(tok.eot_id, eot)],
        normalizer=None,
        pre_tokenizer={
            "type": "Sequence",
            "pretokenizers": [_split(split), byte_level],
        },
        decoder={
            "type": "ByteLevel",
            "add_prefix_space": False,
            "trim_offsets": True,
            "use_regex": False,
        },
        model=model,
    )

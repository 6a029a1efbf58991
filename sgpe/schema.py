"""Script schemas: load and validate the per-script grammar data in ``sgpe/schemas/*.json``.

A schema is data, not code. It names the character classes of the paper (C consonant,
V independent vowel, P dependent vowel sign, H virama, Z joiner, M post-modifier, N nukta;
every other character is O), lists multi-code-point *units* (a decomposed vowel sign that
counts as one P), gives the syllable grammar as a regular expression over class letters,
and gives the same language as a DFA table (used for the per-character trace in the UI and
as a second, independently written definition: the tests check that the two agree).

This module only loads, validates and classifies. Matching lives in ``syllabify.py``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache, cached_property
from importlib import resources
from pathlib import Path
from typing import Any

from .protocol import TOO_DEEP

SCHEMA_FORMAT = "sgpe-schema"
SCHEMA_FORMAT_VERSION = 1
CLASS_LETTERS = {
    "C": "consonant",
    "V": "independent vowel",
    "P": "dependent vowel sign",
    "H": "virama",
    "Z": "joiner",
    "M": "post-modifier",
    "N": "nukta",
}
OTHER = "O"
BUILTIN_SCRIPTS = ("sinhala", "devanagari")

# What a grammar may contain besides class letters: grouping, alternation, quantifiers.
_GRAMMAR_TOKEN = re.compile(r"\(\?:|[A-Z]|[()|*+?]")


class SchemaError(ValueError):
    """A schema file is malformed; the message names the file, the key and the fix."""


@dataclass(frozen=True)
class Unit:
    """A multi-code-point sequence that counts as one class symbol (e.g. U+0DD9 U+0DCA = P)."""

    cls: str
    sequence: str
    equivalent: str  # the precomposed character it is canonically equivalent to


@dataclass(frozen=True)
class Schema:
    """One script's grammar. Build with :func:`load_schema` or :func:`parse_schema`."""

    name: str
    title: str
    description: str
    classes: Mapping[str, frozenset[str]]  # class letter -> characters
    class_labels: Mapping[str, str]
    units: tuple[Unit, ...]
    word_chars: frozenset[str]  # characters that belong to this script's words
    syllable_grammar: str  # regex over class letters
    orphan_grammar: str
    dfa_start: str
    dfa: Mapping[str, Mapping[str, str]]  # state -> class letter -> state
    dfa_accept: frozenset[str]
    dfa_orphan_states: frozenset[str]
    _char_class: dict[str, str] = field(default_factory=dict, repr=False, compare=False)

    def classify(self, ch: str) -> str:
        """Class letter of one character, ``"O"`` if the schema does not claim it."""
        return self._char_class.get(ch, OTHER)

    def class_regex(self, letter: str) -> str:
        """Regex source matching one symbol of a class: its units (longest first) or a char."""
        chars = self.classes[letter]
        alternatives = [re.escape(u.sequence) for u in self.units_longest_first if u.cls == letter]
        alternatives.append(char_set(chars))
        return alternatives[0] if len(alternatives) == 1 else "(?:" + "|".join(alternatives) + ")"

    def grammar_regex(self, grammar: str) -> str:
        """Expand a grammar over class letters into a regex over characters."""
        return "".join(
            self.class_regex(tok) if tok.isalpha() else tok
            for tok in _GRAMMAR_TOKEN.findall(grammar)
        )

    @property
    def syllable_regex(self) -> str:
        return self.grammar_regex(self.syllable_grammar)

    @property
    def orphan_regex(self) -> str:
        return self.grammar_regex(self.orphan_grammar)

    @cached_property
    def units_longest_first(self) -> tuple[Unit, ...]:
        """The units in the order a longest-match scan tries them."""
        return tuple(sorted(self.units, key=lambda u: (-len(u.sequence), u.sequence)))

    def symbols(self, text: str) -> list[tuple[str, str]]:
        """Split text into (symbol, class letter), units taking precedence over single chars."""
        out: list[tuple[str, str]] = []
        units = self.units_longest_first
        i = 0
        while i < len(text):
            for u in units:
                if text.startswith(u.sequence, i):
                    out.append((u.sequence, u.cls))
                    i += len(u.sequence)
                    break
            else:
                out.append((text[i], self.classify(text[i])))
                i += 1
        return out

    @property
    def code_points(self) -> frozenset[str]:
        """Every character some class of this schema claims."""
        return frozenset().union(*self.classes.values())


def code_point_ranges(chars: Iterable[str]) -> list[tuple[int, int]]:
    """The characters as sorted, merged ``(first, last)`` code-point ranges."""
    cps = sorted({ord(c) for c in chars})
    ranges: list[tuple[int, int]] = []
    for cp in cps:
        if ranges and ranges[-1][1] == cp - 1:
            ranges[-1] = (ranges[-1][0], cp)
        else:
            ranges.append((cp, cp))
    return ranges


def char_set(chars: Iterable[str]) -> str:
    """A compact regex character set for the given characters (ranges merged)."""
    parts = [
        _esc(lo) if lo == hi else f"{_esc(lo)}-{_esc(hi)}" for lo, hi in code_point_ranges(chars)
    ]
    return "[" + "".join(parts) + "]"


def _esc(cp: int) -> str:
    return f"\\u{cp:04x}" if cp <= 0xFFFF else f"\\U{cp:08x}"


# ============================================================================
# Loading and validation
# ============================================================================


def _parse_cp(value: Any, where: str) -> int:
    if not isinstance(value, str) or not re.fullmatch(r"[0-9A-Fa-f]{4,6}", value):
        raise SchemaError(f"{where}: expected a hex code point like '0D9A', got {value!r}")
    cp = int(value, 16)
    if cp > 0x10FFFF:
        raise SchemaError(f"{where}: code point {value} is beyond U+10FFFF")
    return cp


def _parse_ranges(value: Any, where: str) -> frozenset[str]:
    if not isinstance(value, list) or not value:
        raise SchemaError(f"{where}: expected a non-empty list of [first, last] hex pairs")
    chars: set[str] = set()
    for k, pair in enumerate(value):
        if not isinstance(pair, list) or len(pair) != 2:
            raise SchemaError(f"{where}[{k}]: expected [first, last], got {pair!r}")
        lo, hi = _parse_cp(pair[0], f"{where}[{k}][0]"), _parse_cp(pair[1], f"{where}[{k}][1]")
        if lo > hi:
            raise SchemaError(f"{where}[{k}]: first {pair[0]} is after last {pair[1]}")
        chars.update(chr(c) for c in range(lo, hi + 1))
    return frozenset(chars)


def _require(data: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    if key not in data:
        raise SchemaError(f"{where}: missing key {key!r}")
    value = data[key]
    if not isinstance(value, kind):
        raise SchemaError(f"{where}: key {key!r} must be a {kind.__name__}, got {value!r:.60}")
    return value


def _check_grammar(grammar: str, classes: Mapping[str, Any], where: str) -> None:
    tokens = _GRAMMAR_TOKEN.findall(grammar)
    if "".join(tokens) != grammar:
        bad = _GRAMMAR_TOKEN.sub("", grammar)
        raise SchemaError(
            f"{where}: grammar may use only class letters, '(?:', ')', '|', '*', '+', '?'; "
            f"found {bad!r}"
        )
    for tok in tokens:
        if tok.isalpha() and tok not in classes:
            raise SchemaError(
                f"{where}: grammar uses class {tok!r}, which 'classes' does not define"
            )
    try:
        re.compile(grammar)
    except re.error as err:
        raise SchemaError(f"{where}: grammar is not a valid regular expression: {err}") from None


def parse_schema(data: Any, source: str = "<schema>") -> Schema:
    """Validate a schema document (already parsed JSON) and build a :class:`Schema`."""
    if not isinstance(data, dict):
        raise SchemaError(f"{source}: a schema must be a JSON object")
    if data.get("format") != SCHEMA_FORMAT:
        raise SchemaError(f"{source}: key 'format' must be {SCHEMA_FORMAT!r}")
    if data.get("format_version") != SCHEMA_FORMAT_VERSION:
        raise SchemaError(
            f"{source}: key 'format_version' is {data.get('format_version')!r}; "
            f"this version of sgpe reads version {SCHEMA_FORMAT_VERSION}"
        )
    name = _require(data, "name", str, source)
    raw_classes = _require(data, "classes", dict, source)
    classes: dict[str, frozenset[str]] = {}
    labels: dict[str, str] = {}
    owner: dict[str, str] = {}
    for letter, spec in raw_classes.items():
        where = f"{source}: classes.{letter}"
        if letter not in CLASS_LETTERS:
            raise SchemaError(f"{where}: unknown class letter; use one of {''.join(CLASS_LETTERS)}")
        if not isinstance(spec, dict):
            raise SchemaError(f"{where}: expected an object with 'label' and 'ranges'")
        chars = _parse_ranges(spec.get("ranges"), f"{where}.ranges")
        for ch in chars:
            if ch in owner:
                raise SchemaError(
                    f"{where}: U+{ord(ch):04X} is already in class {owner[ch]}; classes must not overlap"
                )
            owner[ch] = letter
        classes[letter] = chars
        labels[letter] = str(spec.get("label", CLASS_LETTERS[letter]))
    units: list[Unit] = []
    for k, spec in enumerate(data.get("units", [])):
        where = f"{source}: units[{k}]"
        if not isinstance(spec, dict) or spec.get("class") not in classes:
            raise SchemaError(f"{where}: expected an object with a defined 'class'")
        seq = _require(spec, "sequence", list, where)
        text = "".join(chr(_parse_cp(v, f"{where}.sequence")) for v in seq)
        if len(text) < 2:
            raise SchemaError(f"{where}: a unit needs at least two code points")
        if owner.get(text[0]) != spec["class"]:
            raise SchemaError(f"{where}: a unit must start with a character of its own class")
        equivalent = chr(_parse_cp(spec.get("equivalent"), f"{where}.equivalent"))
        units.append(Unit(spec["class"], text, equivalent))
    grammar = _require(data, "grammar", dict, source)
    syllable = _require(grammar, "syllable", str, f"{source}: grammar")
    orphan = _require(grammar, "orphan", str, f"{source}: grammar")
    _check_grammar(syllable, classes, f"{source}: grammar.syllable")
    _check_grammar(orphan, classes, f"{source}: grammar.orphan")
    dfa = _require(data, "dfa", dict, source)
    transitions = _require(dfa, "transitions", dict, f"{source}: dfa")
    start = _require(dfa, "start", str, f"{source}: dfa")
    accept = frozenset(_require(dfa, "accept", list, f"{source}: dfa"))
    orphan_states = frozenset(dfa.get("orphan_states", []))
    if start not in transitions:
        raise SchemaError(f"{source}: dfa.start {start!r} is not a state in dfa.transitions")
    for state, edges in transitions.items():
        if not isinstance(edges, dict):
            raise SchemaError(f"{source}: dfa.transitions.{state} must be an object")
        for letter, target in edges.items():
            if letter not in classes:
                raise SchemaError(
                    f"{source}: dfa.transitions.{state} uses undefined class {letter!r}"
                )
            if target not in transitions:
                raise SchemaError(
                    f"{source}: dfa.transitions.{state}.{letter} goes to {target!r}, which is not a state"
                )
    for state in accept | orphan_states:
        if state not in transitions:
            raise SchemaError(f"{source}: dfa lists unknown state {state!r} as accepting/orphan")
    if start in accept:
        raise SchemaError(f"{source}: dfa.start must not accept (a syllable is never empty)")
    word_chars = _parse_ranges(_require(data, "word_chars", list, source), f"{source}: word_chars")
    missing = set(owner) - word_chars
    if missing:
        raise SchemaError(
            f"{source}: word_chars must contain every classified character; missing "
            + ", ".join(f"U+{ord(c):04X}" for c in sorted(missing)[:5])
        )
    schema = Schema(
        name=name,
        title=str(data.get("title", name.title())),
        description=str(data.get("description", "")),
        classes=classes,
        class_labels=labels,
        units=tuple(units),
        word_chars=word_chars,
        syllable_grammar=syllable,
        orphan_grammar=orphan,
        dfa_start=start,
        dfa={s: dict(e) for s, e in transitions.items()},
        dfa_accept=accept,
        dfa_orphan_states=orphan_states,
    )
    schema._char_class.update(owner)
    return schema


def load_schema_file(path: str | Path) -> Schema:
    """Load and validate a schema JSON file."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise SchemaError(
            f"{path}: not valid JSON (line {err.lineno}, column {err.colno}): {err.msg}"
        ) from None
    except RecursionError:
        raise SchemaError(f"{path}: {TOO_DEEP}") from None
    return parse_schema(data, str(path))


@cache
def load_schema(name: str) -> Schema:
    """A built-in schema by name: ``"sinhala"`` or ``"devanagari"``."""
    if name not in BUILTIN_SCRIPTS:
        raise ValueError(
            f"unknown script {name!r}; choose one of {', '.join(BUILTIN_SCRIPTS)} or 'auto'"
        )
    text = resources.files("sgpe.schemas").joinpath(f"{name}.json").read_text(encoding="utf-8")
    return parse_schema(json.loads(text), f"sgpe/schemas/{name}.json")


def schemas_for(script: str) -> tuple[Schema, ...]:
    """The schemas a ``script`` option selects: one script, or all of them for ``"auto"``."""
    if script == "auto":
        return tuple(load_schema(n) for n in BUILTIN_SCRIPTS)
    return (load_schema(script),)


def script_of(ch: str) -> str | None:
    """Name of the built-in schema whose words contain ``ch`` (joiners: the first one)."""
    for name in BUILTIN_SCRIPTS:
        if ch in load_schema(name).word_chars:
            return name
    return None

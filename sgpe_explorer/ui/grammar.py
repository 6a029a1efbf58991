"""The Grammar page's tables and diagram, and the notices about scripts on other pages.

Pure functions over a :class:`~sgpe.schema.Schema` (no Streamlit): the character classes
with every member, the units, the DFA as Graphviz DOT, a state-by-state trace of example
words, and the characters of scripts no schema knows.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from sgpe.schema import Schema, SchemaError, parse_schema_text, schemas_for
from sgpe.syllables import Span, Syllabifier, trace

from .render import UnitView, char_name, visible

# Words to trace per built-in script: each shows one of the script's rules (docs/scripts.md).
EXAMPLES = {
    "sinhala": "ශ්‍රී ලංකාව ප්‍රත්‍යක්ෂ",
    "devanagari": "क्षत्रिय स्त्री हँसी",
    "bengali": "অ্যাপ র্ক উৎসব কো",
    "gurmukhi": "ਪੱਕਾ ਪ੍ਰੇਮ ਸੰਤ ਨੋੁ",
    "gujarati": "સ્ત્રી ક્ષમા",
    "odia": "ଡ଼ାକ୍ତର ତ୍ୟାଗ କୋଣ",
    "tamil": "அம்மா க்ஷேத்திரம் ஸ்ரீலங்கா",
    "telugu": "కృష్ణ కై",
    "kannada": "ಕನ್ನಡ ಕ್\u200cಷ ಕ್\u200dಷ",
    "malayalam": "അവൻ ൎയ അതു് മലയാളം",
    "myanmar": "မြန်မာ သင်္ချိုင်း ကျောင်း",
    "khmer": "ខ្ញុំ ស្ត្រី ប៉ះ ធុរៈ",
    "thai": "เปลี่ยน กั้น เก็บ มือ ศาสตร์",
    "lao": "ເມືອງ ຫຼາຍ ນ້ຳ ໄປ",
}


def class_rows(schema: Schema, positions: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """One row per class: letter, label, size and every member with its code point."""
    rows = []
    for letter, chars in schema.classes.items():
        members = sorted(chars)
        where = Counter((positions or {}).get(f"{ord(c):04X}", "") for c in members)
        where.pop("", None)
        rows.append(
            {
                "class": letter,
                "label": schema.class_labels[letter],
                "size": len(members),
                "members": " ".join(f"{visible(c)} U+{ord(c):04X}" for c in members),
                "written (InPC)": ", ".join(f"{k} {v}" for k, v in sorted(where.items())),
            }
        )
    return rows


def unit_rows(schema: Schema) -> list[dict[str, str]]:
    """The multi-code-point units: what they count as and what they are equivalent to."""
    return [
        {
            "unit": visible(u.sequence),
            "code points": " ".join(f"U+{ord(c):04X}" for c in u.sequence),
            "class": u.cls,
            "same as": f"{u.equivalent} U+{ord(u.equivalent):04X}"
            if u.equivalent
            else "(ligature)",
        }
        for u in schema.units
    ]


def dfa_dot(schema: Schema) -> str:
    """The schema's DFA as Graphviz DOT: accepting states doubly circled, edges by class."""
    lines = [
        "digraph dfa {",
        '  rankdir=LR; bgcolor="transparent";',
        '  node [shape=circle, fontname="Helvetica", fontsize=10];',
        '  edge [fontname="Helvetica", fontsize=10];',
        '  start [shape=point, label=""];',
        f'  start -> "{schema.dfa_start}";',
    ]
    for state in schema.dfa:
        shape = "doublecircle" if state in schema.dfa_accept else "circle"
        colour = ', color="#b45309"' if state in schema.dfa_orphan_states else ""
        lines.append(f'  "{state}" [shape={shape}{colour}];')
    for state, edges in schema.dfa.items():
        by_target: dict[str, list[str]] = {}
        for letter, target in edges.items():
            by_target.setdefault(target, []).append(letter)
        for target, letters in by_target.items():
            lines.append(f'  "{state}" -> "{target}" [label="{",".join(letters)}"];')
    lines.append("}")
    return "\n".join(lines)


def trace_rows(text: str, syllabifier: Syllabifier) -> list[dict[str, Any]]:
    """Every character of ``text`` with its class and the DFA state after it."""
    return [
        {
            "syllable #": c.token,
            "char": visible(c.char),
            "code point": f"U+{ord(c.char):04X}",
            "name": char_name(c.char),
            "class": c.cls,
            "state": c.state,
        }
        for c in trace(text, syllabifier=syllabifier)
    ]


def read_schema(raw: bytes | str, source: str) -> Schema:
    """Parse and validate a schema a user gave; :class:`SchemaError` names what is wrong."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError as err:
        raise SchemaError(f"{source}: not UTF-8 text (byte {err.start})") from None
    return parse_schema_text(text, source)


def unknown_characters(text: str, spans: Sequence[Span]) -> list[tuple[str, str, int]]:
    """Letters and marks no schema claimed (shown as passthrough), by script name.

    Latin is left out: English words in the text are expected to pass through. Returns
    ``(script name, the distinct characters, how many there are)`` per script.
    """
    found: dict[str, Counter[str]] = {}
    for s in spans:
        if s.kind != "passthrough":
            continue
        ch = text[s.end - 1]
        if not unicodedata.category(ch).startswith(("L", "M")):
            continue
        script = char_name(ch).split(" ")[0].title()
        if script != "Latin":
            found.setdefault(script, Counter())[ch] += 1
    return [
        (script, "".join(sorted(chars)), sum(chars.values())) for script, chars in found.items()
    ]


def unit_views(text: str, syllabifier: Syllabifier) -> list[UnitView]:
    """The units of ``text`` under a syllabifier's schemas, with class letters and states as
    hover text (for comparing a loaded schema with a built-in one)."""
    chars = trace(text, syllabifier=syllabifier)
    views: list[UnitView] = []
    k = 0
    for s in syllabifier.spans(text):
        own = []
        while k < len(chars) and chars[k].index < s.end:
            own.append(chars[k])
            k += 1
        classes = "".join(c.cls for c in own)
        title = f"{visible(text[s.start : s.end])} — {s.kind}\n" + " ".join(
            f"{c.cls}→{c.state}" for c in own
        )
        views.append(UnitView(text[s.start : s.end], s.kind, title, classes))
    return views


def uncovered_scripts(text: str, vocab: Iterable[str]) -> list[str]:
    """Titles of the scripts used in ``text`` that no token of ``vocab`` is written in (an
    SGPE vocabulary then spells that text with byte tokens)."""
    letters = set().union(*map(set, vocab)) - {"\u200c", "\u200d"}
    used = set(text)
    return [
        s.title
        for s in schemas_for("auto")
        if (s.code_points - {"\u200c", "\u200d"}) & used and not s.code_points & letters
    ]


def script_shares(text: str) -> list[tuple[str, str, int]]:
    """The built-in scripts ``text`` is written in: ``(name, title, letters)``, most
    letters first (joiners, shared by several grammars, count for none)."""
    counts = Counter(text)
    shares = []
    for schema in schemas_for("auto"):
        n = sum(counts[c] for c in schema.code_points - {"\u200c", "\u200d"})
        if n:
            shares.append((schema.name, schema.title, n))
    return sorted(shares, key=lambda share: -share[2])


def scripts_line(text: str) -> str | None:
    """``"Sinhala (62% of its script letters), Devanagari (38%)"``, or None when ``text``
    has no letter of a built-in script."""
    shares = script_shares(text)
    total = sum(n for _, _, n in shares)
    if not total:
        return None
    parts = [f"{title} ({100 * n / total:.0f}%)" for _, title, n in shares]
    parts[0] = parts[0][:-2] + "% of its Abugida letters)"
    return ", ".join(parts)

"""Generate the Brahmic script schemas ``sgpe/schemas/<script>.json`` from Unicode data.

Rerun after changing a rule below: ``python scripts/gen_schemas.py`` (``--check`` only
compares, exit 1 if a committed file differs; ``tests/test_scripts.py`` runs that check).

Two layers, kept apart on purpose:

1. **Data** (``unicode_classes``): every assigned code point of a script's block is put in a
   class by its Indic_Syllabic_Category (ISC) as the ``regex`` module's bundled Unicode
   Character Database reports it (``ISC_TO_CLASS``); its Indic_Positional_Category (InPC)
   is recorded for the Grammar page. Two-part vowel signs become *units* from their
   canonical decompositions, so NFC and NFD text segment alike. Nothing here is typed by
   hand, and the generator refuses to run on another Unicode version than ``UNICODE``.
2. **Rules** (``SCRIPTS``, at the end): what the data does not say, per script, each with
   the reason and an example word.

Sinhala and Devanagari are not generated: their schemas are the hand-written ones the
project started with (``sgpe/schemas/sinhala.json``, ``devanagari.json``); Devanagari
also covers Hindi, Marathi and Nepali. Both go through the same oracle checks
(``tests/test_oracles.py``).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

import regex

# The Unicode version the committed schemas were generated from. regex does not expose its
# UCD version, so probe_unicode_version() finds it from characters each version added.
UNICODE = "17.0"
_PROBES = (("17.0", "\u0c5c"), ("16.0", "\u1c89"), ("15.1", "\u2ffc"), ("15.0", "\U0001f6dc"))

# ISC value -> class letter (sgpe/schema.py CLASS_LETTERS). An ISC value met in a block that
# is not listed here stops the generator: a new category must be decided on, not dropped.
ISC_TO_CLASS = {
    "Consonant": "C",
    # ੲ ੳ (Gurmukhi iri, ura) and ঀ carry vowel signs exactly like a consonant: ੳੁ.
    "Consonant_Placeholder": "C",
    "Vowel_Independent": "V",
    "Vowel_Dependent": "P",
    # Malayalam vertical/circular virama kill the vowel and never join a conjunct: they take
    # the vowel sign's place at the end of a syllable.
    "Pure_Killer": "P",
    "Virama": "H",
    "Nukta": "N",
    "Bindu": "M",
    "Visarga": "M",
    "Cantillation_Mark": "M",
    "Gemination_Mark": "M",  # Gurmukhi addak ੱ: written on the syllable before the doubled consonant
    "Syllable_Modifier": "M",
    # A letter that is a syllable by itself, never a base for signs: chillu (ൻ), khanda ta
    # (ৎ), Telugu/Kannada nakaara pollu, Tamil aytham (ஃ), Kannada jihvamuliya.
    "Consonant_Dead": "D",
    "Modifying_Letter": "D",
    "Consonant_With_Stacker": "D",
    "Consonant_Preceding_Repha": "R",  # Malayalam dot reph ൎ, written before its consonant
    "Consonant_Medial": "Y",  # Gurmukhi yakash ੵ, Myanmar medials ျ ြ ွ ှ
    # Myanmar U+1039 and Khmer coeng U+17D2: an always invisible virama that writes the next
    # consonant below (Khmer ខ្ញុំ, Myanmar က္ခ); a conjunct in the same syllable.
    "Invisible_Stacker": "H",
    "Tone_Mark": "M",  # Myanmar dot below ့ and the Karen/Shan tones: on the syllable
    # Khmer register shifters ៉ ៊ and robat ៌ are written on the consonant just before them
    # (ប៉ះ, ម៉្លេះ, ធម៌); HarfBuzz's Khmer model takes them right after that consonant,
    # the place a nukta has in the template.
    "Register_Shifter": "N",
    "Consonant_Succeeding_Repha": "N",
    # Khmer toandakhiat ៍ silences the consonant it sits on; HarfBuzz puts it with the signs
    # written above (nikahit ំ, bantoc ់) after the vowel sign.
    "Consonant_Killer": "M",
    # Not part of any syllable: passthrough characters (word characters for Avagraha).
    "Avagraha": None,
    "Number": None,
    "Other": None,
}
_ISC_VALUES = (*ISC_TO_CLASS, "Vowel", "Consonant_Final")
_INPC_VALUES = (
    "Right", "Left", "Top", "Bottom", "Left_And_Right", "Top_And_Right", "Top_And_Left",
    "Top_And_Left_And_Right", "Top_And_Bottom", "Top_And_Bottom_And_Left",
    "Top_And_Bottom_And_Right", "Bottom_And_Right", "Bottom_And_Left", "Overstruck",
    "Visual_Order_Left",
)  # fmt: skip
ZWJ, ZWNJ = 0x200D, 0x200C
LABELS = {
    "C": "consonant",
    "V": "independent vowel",
    "P": "dependent vowel sign",
    "H": "virama",
    "Z": "zero width joiner",
    "X": "zero width non-joiner",
    "M": "post-modifier (candrabindu, anusvara, visarga, ...)",
    "N": "nukta",
    "D": "standalone letter (dead consonant, chillu, ...)",
    "R": "preceding repha",
    "Y": "medial consonant sign",
    "K": "killer (Myanmar asat)",
    "L": "pre-base vowel (written before the consonant it follows)",
}


def probe_unicode_version() -> str:
    for version, ch in _PROBES:
        if regex.match(r"\p{Assigned}", ch):
            return version
    return "older than 15.0"


def _value(ch: str, prop: str, values: tuple[str, ...]) -> str:
    found = [v for v in values if regex.match(rf"\p{{{prop}={v}}}", ch)]
    return found[0] if found else ("Other" if prop == "InSC" else "NA")


@dataclass
class ScriptRules:
    """The hand-written part of one script's schema."""

    name: str
    title: str
    block: int  # first code point of the script's main Unicode block
    description: str
    conjuncts: bool = True  # consonants join through a virama into one syllable
    second_sign: str = ""  # "H": a virama may follow the vowel sign; "P": a second vowel sign
    # Multi-code-point sequences that count as one symbol, beyond the decompositions:
    # (class, code points, why).
    extra_units: list[tuple[str, tuple[int, ...], str]] = field(default_factory=list)
    end: int = 0  # last code point of the block; 0: a 128-code-point Indic block
    # Where a vowel sign's class follows its Indic_Positional_Category (Thai, Lao: a sign
    # above or below behaves otherwise than one after the consonant): InPC -> class.
    position_classes: dict[str, str] = field(default_factory=dict)
    # The orphan classes of a grammar of the script's own, in order ("" : the default).
    orphan: str = ""
    # Where the script reads an ISC value otherwise than ISC_TO_CLASS (None: passthrough).
    isc_classes: dict[str, str | None] = field(default_factory=dict)
    # Single code points whose class the rules decide: code point -> (class or None, why).
    char_classes: dict[int, tuple[str | None, str]] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)  # class labels of this script
    # A syllable grammar of the script's own (over class letters) instead of the Indic
    # template, for the scripts HarfBuzz shapes with a model of their own (Myanmar, Khmer);
    # its DFA table is built from it (dfa_from_grammar).
    syllable: str = ""
    # Every syllable seen in training becomes a token: the script's syllables are clusters
    # its writing never cuts (Thai's TCC). Written to the schema only when true.
    whole_syllables: bool = False

    @property
    def last(self) -> int:
        return self.end or self.block + 0x7F


def unicode_classes(rules: ScriptRules) -> tuple[dict[str, list[int]], dict[str, str], list[int]]:
    """(class -> code points, code point -> InPC for the marks, word characters) from the UCD."""
    classes: dict[str, list[int]] = {}
    positions: dict[str, str] = {}
    word: list[int] = []
    for cp in range(rules.block, rules.last + 1):
        ch = chr(cp)
        if not regex.match(r"\p{Assigned}", ch):
            continue
        isc = _value(ch, "InSC", _ISC_VALUES)
        if isc not in ISC_TO_CLASS:
            raise SystemExit(f"{rules.name}: U+{cp:04X} has ISC {isc}, which ISC_TO_CLASS lacks")
        inpc = _value(ch, "InPC", _INPC_VALUES)
        if cp in rules.char_classes:
            letter = rules.char_classes[cp][0]
        elif isc == "Vowel_Dependent" and inpc == "Visual_Order_Left":
            # Thai and Lao store these vowels before their consonant (the Unicode
            # Logical_Order_Exception): a unit starts with one (sgpe/schema.py's PRE_BASE).
            letter = "L"
        elif isc == "Vowel_Dependent" and inpc in rules.position_classes:
            letter = rules.position_classes[inpc]
        else:
            letter = rules.isc_classes.get(isc, ISC_TO_CLASS[isc])
        if letter is None:
            if isc == "Avagraha":
                word.append(cp)
            continue
        classes.setdefault(letter, []).append(cp)
        word.append(cp)
        if inpc != "NA":
            positions[f"{cp:04X}"] = inpc
    classes["Z"] = [ZWJ]
    classes["X"] = [ZWNJ]
    word += [ZWNJ, ZWJ]
    return classes, positions, sorted(word)


def decomposition_units(classes: dict[str, list[int]]) -> list[dict[str, object]]:
    """Every multi-character canonical spelling of a vowel or vowel sign, as one unit.

    Canonical decompositions never change once published (Unicode's normalization
    stability policy), so Python's own ``unicodedata`` gives the same answer as the pinned
    version for these characters.
    """
    units = []
    for letter in ("V", "P"):
        for cp in classes.get(letter, []):
            ch = chr(cp)
            spellings = set()
            one = unicodedata.decomposition(ch)
            if one and not one.startswith("<"):
                first = "".join(chr(int(x, 16)) for x in one.split())
                spellings.add(first)
                spellings.add(unicodedata.normalize("NFD", first))
            for seq in sorted(spellings):
                if len(seq) >= 2:
                    units.append(
                        {
                            "class": letter,
                            "sequence": [f"{ord(c):04X}" for c in seq],
                            "equivalent": f"{cp:04X}",
                        }
                    )
    return units


def grammar(
    rules: ScriptRules, classes: dict[str, list[int]]
) -> tuple[str, str, dict[str, object]]:
    """The syllable grammar, orphan grammar and DFA for one script.

    A base (consonant, or an independent vowel, which takes the same signs: Bengali অ্যা
    has a ya-phala on a vowel) with an optional ZWJ and nukta; conjuncts (virama, optional
    ZWJ, consonant) where the script writes them; then a medial sign with its vowel sign, or
    a final virama (with ZWJ or ZWNJ), or a vowel sign; then any number of modifiers. A
    virama followed by ZWNJ ends the syllable (both Unicode's GB9c and HarfBuzz break
    there: the writer asked for a visible virama, not a conjunct: Hindi-style क्‌ष).
    """
    has = set(classes)
    if rules.syllable:
        orphan = rules.orphan or "|".join(c for c in "PHNMYK" if c in has)
        return rules.syllable, orphan, dfa_from_grammar(rules.syllable, orphan.split("|"))
    base = "(?:RC|C|V)" if "R" in has else "(?:C|V)"
    nukta = "N?" if "N" in has else ""
    conj = f"(?:HZ?CZ?{nukta})*" if rules.conjuncts else ""
    medial = "YP?|" if "Y" in has else ""
    # A joiner after a finished syllable stays with it (ന്നു‌, ർ‍): both oracles attach it,
    # and it only asks how this syllable meets the next one.
    end = "(?:Z|X)?"
    sign = f"P{rules.second_sign}?" if rules.second_sign else "P"
    syllable = f"{base}Z?{nukta}{conj}(?:{medial}H(?:Z|X)?|{sign})?M*{end}"
    if "D" in has:
        syllable += f"|DM*{end}"
    orphan = "|".join(c for c in "PHNMY" if c in has)
    tail = {"H": "HALANT", "P": "VOWEL_SIGN", "M": "MODIFIER"}
    if "Y" in has:
        tail["Y"] = "MEDIAL"
    joiner = {"Z": "JOINER", "X": "JOINER"}
    t: dict[str, dict[str, str]] = {
        "START": {"C": "CONSONANT", "V": "VOWEL"},
        "CONSONANT": {"Z": "CONSONANT_ZWJ", "N": "NUKTA", **tail},
        "VOWEL": {"Z": "CONSONANT_ZWJ", "N": "NUKTA", **tail},
        "CONSONANT_ZWJ": {"N": "NUKTA", **tail},
        "NUKTA": dict(tail),
        "HALANT": {"Z": "HALANT_ZWJ", "X": "HALANT_ZWNJ", "M": "MODIFIER"},
        "HALANT_ZWJ": {"M": "MODIFIER", **joiner},
        "HALANT_ZWNJ": {"M": "MODIFIER", **joiner},
        "VOWEL_SIGN": {"M": "MODIFIER", **joiner},
        "MODIFIER": {"M": "MODIFIER", **joiner},
        "JOINER": {},
    }
    t["CONSONANT"]["X"] = t["VOWEL"]["X"] = "JOINER"
    t["CONSONANT_ZWJ"].update(joiner)
    t["NUKTA"].update(joiner)
    if rules.conjuncts:
        t["HALANT"]["C"] = "CONSONANT"
        t["HALANT_ZWJ"]["C"] = "CONSONANT"
    if rules.second_sign:
        t["VOWEL_SIGN"][rules.second_sign] = "SECOND_SIGN"
        t["SECOND_SIGN"] = {"M": "MODIFIER", **joiner}
    if "R" in has:
        t["START"]["R"] = "REPHA"
        t["REPHA"] = {"C": "CONSONANT"}
    if "Y" in has:
        t["MEDIAL"] = {"P": "VOWEL_SIGN", "M": "MODIFIER", **joiner}
    if "D" in has:
        t["START"]["D"] = "STANDALONE"
        t["STANDALONE"] = {"M": "MODIFIER", **joiner}
    for c in orphan.split("|"):
        t["START"][c] = "ORPHAN"
    t["ORPHAN"] = {}
    # A class the script does not have (Tamil has no nukta) has no edges.
    t = {state: {c: s for c, s in edges.items() if c in has} for state, edges in t.items()}
    reachable, todo = {"START"}, ["START"]
    while todo:
        for target in t[todo.pop()].values():
            if target not in reachable:
                reachable.add(target)
                todo.append(target)
    t = {state: edges for state, edges in t.items() if state in reachable}
    accept = [s for s in t if s not in ("START", "REPHA")]  # a repha alone is not a syllable
    dfa = {"start": "START", "transitions": t, "accept": accept, "orphan_states": ["ORPHAN"]}
    return syllable, orphan, dfa


# State names of a DFA built from a grammar: a state is named after the classes that lead
# into it, as the template's states are (CONSONANT, VOWEL_SIGN, ...).
STATE_NAMES = {
    "C": "CONSONANT",
    "V": "VOWEL",
    "P": "VOWEL_SIGN",
    "H": "VIRAMA",
    "Z": "ZWJ",
    "X": "ZWNJ",
    "M": "MODIFIER",
    "N": "NUKTA",
    "D": "STANDALONE",
    # In a grammar of a script's own, R is Thai's second pre-base class (โ ใ ไ); the
    # Indic template names its repha state itself (REPHA, above).
    "R": "PRE_BASE",
    "Y": "MEDIAL",
    "K": "KILLER",
    "L": "PRE_BASE_VOWEL",
}
_GRAMMAR_TOKEN = regex.compile(r"\(\?:|[A-Z]|[()|*+?]")


def _positions(grammar: str) -> tuple[list[str], set[int], set[int], dict[int, set[int]], bool]:
    """The Glushkov view of a grammar: (letter of each position, first, last, follow, nullable).

    A position is one class letter of the grammar text; ``follow[p]`` are the positions that
    may come right after ``p`` in a syllable.
    """
    tokens = _GRAMMAR_TOKEN.findall(grammar)
    if "".join(tokens) != grammar:
        raise SystemExit(f"gen_schemas: grammar {grammar!r} has characters beyond class letters")
    letters: list[str] = []
    follow: dict[int, set[int]] = {}
    at = 0

    def alternation() -> tuple[bool, set[int], set[int]]:
        nonlocal at
        nullable, first, last = sequence()
        while at < len(tokens) and tokens[at] == "|":
            at += 1
            n2, f2, l2 = sequence()
            nullable, first, last = nullable or n2, first | f2, last | l2
        return nullable, first, last

    def sequence() -> tuple[bool, set[int], set[int]]:
        nonlocal at
        nullable, first, last = True, set(), set()
        while at < len(tokens) and tokens[at] not in "|)":
            n2, f2, l2 = item()
            for p in last:
                follow[p] |= f2
            first = first | f2 if nullable else first
            last = last | l2 if n2 else l2
            nullable = nullable and n2
        return nullable, first, last

    def item() -> tuple[bool, set[int], set[int]]:
        nonlocal at
        token = tokens[at]
        at += 1
        if token == "(?:":
            nullable, first, last = alternation()
            at += 1  # the closing parenthesis
        else:
            letters.append(token)
            p = len(letters) - 1
            follow[p] = set()
            nullable, first, last = False, {p}, {p}
        while at < len(tokens) and tokens[at] in "*+?":
            if tokens[at] in "*+":
                for p in last:
                    follow[p] |= first
            nullable = nullable or tokens[at] in "*?"
            at += 1
        return nullable, first, last

    nullable, first, last = alternation()
    return letters, first, last, follow, nullable


def dfa_from_grammar(grammar: str, orphans: list[str]) -> dict[str, object]:
    """The minimal DFA of a syllable grammar, plus START -> ORPHAN on each orphan class.

    Subset construction over the grammar's positions, then Moore's partition refinement;
    states are named after the classes that lead into them. The tests check that this
    table and the grammar regex (Python's own engine) segment every string alike.
    """
    letters, first, last, follow, nullable = _positions(grammar)
    if nullable:
        raise SystemExit(f"gen_schemas: grammar {grammar!r} accepts the empty syllable")
    alphabet = sorted(set(letters), key="CVRNHZXKYPMDL".index)
    start: frozenset[int] = frozenset({-1})
    states: list[frozenset[int]] = [start]
    moves: dict[frozenset[int], dict[str, frozenset[int]]] = {}
    for state in states:  # grows while it is walked: breadth first
        after = first if state == start else set().union(*(follow[p] for p in state))
        moves[state] = {}
        for letter in alphabet:
            target = frozenset(q for q in after if letters[q] == letter)
            if target:
                moves[state][letter] = target
                if target not in moves and target not in states:
                    states.append(target)
    accepting = {s for s in states if s & last}
    # Moore: split blocks until every state of a block moves to the same blocks.
    block = {s: int(s in accepting) for s in states}
    while True:
        keys = {
            s: (block[s], tuple(block[moves[s][a]] if a in moves[s] else -1 for a in alphabet))
            for s in states
        }
        numbering: dict[tuple[int, tuple[int, ...]], int] = {}
        refined = {s: numbering.setdefault(keys[s], len(numbering)) for s in states}
        if len(numbering) == len(set(block.values())):
            break
        block = refined
    # One name per block, in breadth-first order from START.
    names: dict[int, str] = {block[start]: "START"}
    used = {"START", "ORPHAN"}
    for state in states:
        for target in moves[state].values():
            b = block[target]
            if b in names:
                continue
            into = sorted(
                {a for s in states for a, t in moves[s].items() if block[t] == b},
                key=alphabet.index,
            )
            name = "_OR_".join(STATE_NAMES[a] for a in into)
            k = 2
            while name in used:
                name, k = f"{'_OR_'.join(STATE_NAMES[a] for a in into)}_{k}", k + 1
            names[b] = name
            used.add(name)
    transitions: dict[str, dict[str, str]] = {}
    for state in states:
        name = names[block[state]]
        if name not in transitions:
            transitions[name] = {a: names[block[t]] for a, t in moves[state].items()}
    orphan_states = ["ORPHAN"]
    for letter in orphans:
        if letter in transitions["START"]:
            # A pre-base vowel starts a syllable, and alone (no consonant after it) it is an
            # orphan: the state it enters accepts as one, if nothing else leads there.
            target = transitions["START"][letter]
            into = [s for s, edges in transitions.items() for t in edges.values() if t == target]
            if letter not in ("L", "R") or len(into) != 1:
                raise SystemExit(
                    f"gen_schemas: class {letter} both starts a syllable and is orphan"
                )
            orphan_states.insert(0, target)
            continue
        transitions["START"][letter] = "ORPHAN"
    transitions["ORPHAN"] = {}
    accept = [n for n in transitions if n != "START" and n != "ORPHAN"]
    accept = [
        n for n in accept if n in orphan_states or any(names[block[s]] == n for s in accepting)
    ] + ["ORPHAN"]
    return {
        "start": "START",
        "transitions": transitions,
        "accept": accept,
        "orphan_states": orphan_states,
    }


def _ranges(cps: list[int]) -> list[list[str]]:
    out: list[list[int]] = []
    for cp in sorted(cps):
        if out and out[-1][1] == cp - 1:
            out[-1][1] = cp
        else:
            out.append([cp, cp])
    return [[f"{lo:04X}", f"{hi:04X}"] for lo, hi in out]


def build(rules: ScriptRules) -> dict[str, object]:
    classes, positions, word = unicode_classes(rules)
    units = decomposition_units(classes)
    for cls, seq, why in rules.extra_units:
        units.append({"class": cls, "sequence": [f"{c:04X}" for c in seq], "why": why})
    syllable, orphan, dfa = grammar(rules, classes)
    order = "CVPHZXMNDRYKL"
    whole = {"whole_syllables": True} if rules.whole_syllables else {}
    return {
        "format": "sgpe-schema",
        "format_version": 1,
        "name": rules.name,
        "title": rules.title,
        "description": rules.description,
        **whole,
        "generated": {
            "by": "scripts/gen_schemas.py",
            "unicode_version": UNICODE,
            "source": (
                # The Unicode version decides the content; the regex release that carries
                # its tables does not (a new release with the same tables changes nothing).
                f"Indic_Syllabic_Category and Indic_Positional_Category of Unicode {UNICODE} "
                f"(the regex module's tables); decompositions from unicodedata"
            ),
        },
        "word_chars": _ranges(word),
        "classes": {
            letter: {
                "label": rules.labels.get(letter, LABELS[letter]),
                "isc": sorted(
                    {
                        _value(chr(c), "InSC", _ISC_VALUES)
                        for c in classes[letter]
                        if c not in (ZWJ, ZWNJ)
                    }
                )
                or ["Joiner" if letter == "Z" else "Non_Joiner"],
                "ranges": _ranges(classes[letter]),
            }
            for letter in order
            if letter in classes
        },
        "positions": positions,
        "units": units,
        "grammar": {"syllable": syllable, "orphan": orphan},
        "dfa": dfa,
    }


def render(rules: ScriptRules) -> str:
    return json.dumps(build(rules), indent=1, ensure_ascii=False) + "\n"


# ============================================================================
# The hand-written rules, per script
# ============================================================================


def _thai_syllable() -> str:
    """The Thai grammar, spelled so that Python's regex (first alternative that matches)
    and the DFA (longest match) read every string alike: where a consonant may be the
    final of the syllable or the first of its silenced consonants (ศาสตร์), one
    alternative reads both, so no branch stops short of a longer match."""
    c = "(?:C|D)"  # a consonant; D is ย, the glide of เ–ีย
    silenced = f"{c}?{c}?{c}?V?K"  # the rest of up to three consonants silenced by ์
    tail = f"(?:K|{c}{silenced[len(c) + 1 :]})?"  # ์ alone, or 1-3 consonants + ์
    final_then_tail = f"(?:{c}(?:{silenced})?|K)?"  # [final] [tail]
    final_vowel_tail = f"(?:{c}(?:P{tail}|{silenced})?|P{tail}|K)?"  # [final] [ะ] [tail]
    return (
        f"{c}(?:N(?:M{c})?{tail}|H|YM?{final_then_tail}|VM?{tail}|M?P?M?{tail})"
        f"|L{c}(?:V{c}K{c}{tail}|{c}(?:VM?DP?|YM?{c}P?|M?PP|H{c}){tail}"
        f"|(?:N|H|V|Y)M?{final_vowel_tail}|M?P?P?{tail})"
        # โ ใ ไ (class R) take no vowel around the consonant beyond ะ (โต๊ะ) and no final
        # consonant (the TCC rule [เ-ไ]ctk): ไรก็ตาม is ไร ก็ ตา ม, not ไรก็ต า ม. A vowel
        # sign above or below is kept with the consonant it is written on (a \X cluster).
        f"|R{c}(?:(?:N|H|V|Y)M?{tail}|M?P?P?{tail})"
    )


SCRIPTS = [
    ScriptRules(
        "tamil",
        "Tamil",
        0x0B80,
        "Tamil syllables (uyirmei) from the Unicode data. Tamil writes no conjuncts: a pulli "
        "(virama) ends the syllable (அம்மா = அ ம் மா); only க்ஷ and ஸ்ர (in ஸ்ரீ) are one "
        "letter.",
        conjuncts=False,
        extra_units=[
            # க்ஷ (kṣa, as in க்ஷேத்திரம்) is a letter of its own in the Grantha set: one glyph.
            ("C", (0x0B95, 0x0BCD, 0x0BB7), "க்ஷ is one Grantha letter (க்ஷேத்திரம்)"),
            # ஸ்ரீ (śrī) is one ligature in every Tamil font; ஸ்ர takes the vowel sign ீ.
            ("C", (0x0BB8, 0x0BCD, 0x0BB0), "ஸ்ர in ஸ்ரீ is one ligature (ஸ்ரீலங்கா)"),
        ],
    ),
    ScriptRules(
        "bengali",
        "Bengali–Assamese",
        0x0980,
        "Bengali and Assamese syllables from the Unicode data: conjuncts through the hasanta "
        "(reph র্ক and ya-phala ক্য are conjuncts, and a ya-phala on a vowel, অ্যা, stays with "
        "it); khanda ta ৎ is a syllable by itself; Assamese ৰ ৱ are consonants.",
    ),
    ScriptRules(
        "gurmukhi",
        "Gurmukhi",
        0x0A00,
        "Gurmukhi (Punjabi) syllables from the Unicode data: subjoined ਰ ਵ ਹ are virama "
        "conjuncts (ਪ੍ਰ), yakash ੵ is a medial sign; addak ੱ, tippi ੰ and bindi ਂ are "
        "modifiers of the syllable they are written on (ਪੱਕਾ = ਪੱ ਕਾ); ੲ ੳ carry vowel signs; "
        "Gurbani spelling puts a second vowel sign on a letter (ਨੋੁ).",
        # Gurbani writes aunkar under hora on one letter (ਨੋੁ, ਸੋੁ): two vowel signs, one
        # syllable; HarfBuzz shapes it as one cluster without a dotted circle.
        second_sign="P",
    ),
    ScriptRules(
        "gujarati",
        "Gujarati",
        0x0A80,
        "Gujarati syllables from the Unicode data: conjuncts through the virama (ક્ષ, સ્ત્ર), "
        "nukta after a consonant, one vowel sign, then modifiers.",
    ),
    ScriptRules(
        "odia",
        "Odia",
        0x0B00,
        "Odia syllables from the Unicode data: conjuncts through the virama (କ୍ଷ, ଯ-phala "
        "ତ୍ୟ), nukta letters ଡ଼ ଢ଼, two-part vowel signs ୋ ୌ ୈ from their parts.",
    ),
    ScriptRules(
        "telugu",
        "Telugu",
        0x0C00,
        "Telugu syllables from the Unicode data: conjuncts through the virama (క్ష), ZWJ "
        "after a virama keeps the conjunct going, ZWNJ ends it with a visible virama; nukta "
        "after a consonant; ై from its parts; nakaara pollu is a syllable by itself.",
    ),
    ScriptRules(
        "kannada",
        "Kannada",
        0x0C80,
        "Kannada syllables from the Unicode data: conjuncts through the virama (ಕ್ಷ), ZWJ "
        "after a virama keeps the conjunct going, ZWNJ ends it with a visible virama (ಕ್‌); "
        "nukta after a consonant; ೀ ೇ ೈ ೊ ೋ from their parts.",
    ),
    ScriptRules(
        "malayalam",
        "Malayalam",
        0x0D00,
        "Malayalam syllables from the Unicode data: conjuncts through the chandrakkala "
        "(ക്ക); the atomic chillu letters (ൻ ർ ൽ ൾ ൺ) are syllables by themselves (അവൻ = "
        "അ വ ൻ); the dot reph ൎ goes with the consonant after it (ൎയ); ൊ ോ ൌ from their parts; "
        "the samvruthokaram ു് (അതു്) is one vowel sign plus chandrakkala.",
        # Older spelling writes the half-u (samvruthokaram) as u-sign + chandrakkala: അതു്.
        # The chandrakkala belongs to the syllable; HarfBuzz shapes തു് as one cluster.
        second_sign="H",
    ),
    ScriptRules(
        "myanmar",
        "Myanmar",
        0x1000,
        "Myanmar (Burmese) syllables from the Unicode data, in the order HarfBuzz's Myanmar "
        "model reads them: kinzi (င်္ written over the next consonant, သင်္ချိုင်း = သ "
        "င်္ချို င်း), a base with consonants stacked by the virama ္ (ဗုဒ္ဓ = ဗု ဒ္ဓ), an asat "
        "that kills a final consonant (မြန်မာ = မြ န် မာ), medials ျ ြ ွ ှ, at most two vowel "
        "signs (ော, ို), then anusvara, dot below, asat and visarga (ကျောင်း = ကျော င်း).",
        end=0x109F,
        # Myanmar asat ် kills the consonant it is written on (န် in မြန်မာ) and also stands
        # after a vowel or the dot below (တော်, င့်): it is not a vowel sign, so it gets a
        # class of its own, K, which the grammar allows where HarfBuzz does.
        isc_classes={"Pure_Killer": "K"},
        char_classes={
            # The UCD calls the full stop ။ a consonant placeholder; in text it ends a
            # sentence and carries no sign (HarfBuzz reads it as punctuation, like ၊).
            0x104B: (None, "the full stop ။ is punctuation"),
        },
        labels={"H": "virama (stacker: the next consonant is written below)"},
        # Medials are written in the order ျ ြ ွ ှ, each at most once (HarfBuzz's Myanmar
        # model): two or three of them are one medial symbol (လျှော့, ကျွန်), so a doubled
        # medial (ှ + ှ, a typo) is an orphan, not part of the syllable.
        extra_units=[
            ("Y", combo, "medials in their written order ျ ြ ွ ှ are one medial sign")
            for n in (2, 3, 4)
            for combo in itertools.combinations((0x103B, 0x103C, 0x103D, 0x103E), n)
        ],
        # CKH     kinzi: a killed consonant stacked over the base (င်္ဂ in အင်္ဂလိပ်); the UCD
        #         has no class for it, so any consonant + asat + virama may start a syllable.
        #         A kinzi with no base yet is kept whole, as a final virama is: so whether
        #         င် ends a syllable is decided by the one character after it (the Hugging
        #         Face export's run regex looks one character ahead).
        # (H(C|V))*  stacked consonants (ဒ္ဓ); a final H: a virama with nothing below yet.
        # Then one asat at most, as Burmese spells a syllable: on the base before any vowel
        # (န်, and န်ု, which HarfBuzz accepts too), or after the medial (ရှ်), the vowel
        # (တော်) or among the signs (င့် and င့်: real text writes both orders, HarfBuzz
        # reorders the second to the first). Y: a medial symbol; P?P?: one vowel or a
        # two-part one (ေ + ာ, ိ + ု); M*: anusvara, dot below, visarga, tones.
        syllable=(
            "(?:C(?:KH(?:(?:C|V)(?:H(?:C|V))*(?:H|KY?P?P?M*|Y?P?P?M*K?M*))?"
            "|(?:H(?:C|V))*(?:H|KY?P?P?M*|Y?P?P?M*K?M*))"
            "|V(?:H(?:C|V))*(?:H|KY?P?P?M*|Y?P?P?M*K?M*))(?:Z|X)?"
        ),
    ),
    ScriptRules(
        "khmer",
        "Khmer",
        0x1780,
        "Khmer syllables from the Unicode data, in the order HarfBuzz's Khmer model reads "
        "them: a consonant or independent vowel with its subscripts through the coeng ្ "
        "(ខ្ញុំ, ស្ត្រី), a register shifter or robat on any of them (ប៉ះ, ធម៌), one vowel "
        "sign, then the signs above and after (nikahit ំ, bantoc ់, reahmuk ះ, yuukaleapintu "
        "ៈ).",
        end=0x17FF,
        isc_classes={
            # Viriam ៑ kills the inherent vowel like toandakhiat ៍; HarfBuzz reads both with
            # the signs above the syllable, after its vowel sign.
            "Pure_Killer": "M",
        },
        char_classes={
            # Yuukaleapintu ៈ is a final sign like reahmuk ះ (ធុរៈ = ធុ រៈ, after a vowel
            # sign too); the UCD calls it a vowel sign, HarfBuzz reads it with reahmuk.
            0x17C8: ("M", "yuukaleapintu ៈ is a final sign like reahmuk"),
        },
        labels={
            "H": "coeng (the next consonant is written below)",
            "N": "sign on its consonant (register shifter, robat)",
        },
        # (Z?N)?  a register shifter or robat after its consonant (ប៉ះ, ម៉្លេះ, ម្ល៉ោះ).
        # (H(C|V)(Z?N)?)*  subscripts through the coeng (ស្ត្រី); a final H: a coeng with
        #         nothing below yet. P?M*  one vowel sign, then nikahit, bantoc, reahmuk ...
        syllable="(?:C|V)(?:Z?N)?(?:H(?:C|V)(?:Z?N)?)*(?:H|P?M*)(?:Z|X)?",
    ),
    ScriptRules(
        "thai",
        "Thai",
        0x0E00,
        "Thai syllables from the Unicode data, cut where the Thai Character Cluster rules "
        "(Theeramunkong et al. 2000, as PyThaiNLP's tcc implements them) allow a cut: a "
        "pre-base vowel เ แ โ ใ ไ goes with the consonant after it (เก, ไม่); vowel signs "
        "above and below, tone marks, ็ and ์ stay with their consonant; ึ ื, ั with a tone, "
        "เ–็ and เ–ิ take the final consonant (มือ, กั้น, เก็บ, เกิด), เ–ีย its ย (เปลี่ย|น); "
        "โ ใ ไ take no final (ไร|ก็|ตา|ม); consonants silenced by ์ go with the syllable "
        "before them (ศาสตร์ is one unit).",
        end=0x0E7F,
        # Vowel signs above and below end the cluster; those after it (ะ า ำ ๅ) stay P.
        position_classes={"Top": "V", "Bottom": "V"},
        isc_classes={
            # Thanthakhat ์ silences the consonants under it: the cluster keeps them (k of
            # the TCC rules), a class of its own.
            "Consonant_Killer": "K",
            # Phinthu ฺ and yamakkan ๎ are marks on their consonant, as tone marks are.
            "Pure_Killer": "M",
        },
        char_classes={
            0x0E31: ("N", "mai han-akat ั takes the final consonant when a tone follows (กั้น)"),
            0x0E47: ("H", "maitaikhu ็ after เ or แ takes the final consonant (เก็บ, เสร็จ)"),
            0x0E36: ("Y", "sara ue ึ takes the consonant after it (ถึง)"),
            0x0E37: ("Y", "sara uee ื takes the consonant after it (มือ)"),
            0x0E22: ("D", "yo yak ย is the glide of เ–ีย (เปลี่ยน = เปลี่ย น)"),
            # Only เ and แ open the long TCC patterns (เ–ีย, เ–ือ, เ–็, แ–็, เ–าะ); โ ใ ไ are
            # pre-base vowels of a class of their own so the grammar can tell them apart.
            0x0E42: ("R", "โ takes only ะ after its consonant (โต๊ะ)"),
            0x0E43: ("R", "ใ takes no vowel after its consonant"),
            0x0E44: ("R", "ไ takes no vowel after its consonant"),
        },
        labels={
            "D": "yo yak ย (a consonant; the glide of เ–ีย)",
            "P": "vowel sign after the consonant (ะ า ำ ๅ)",
            "V": "vowel sign above or below (ิ ี ุ ู)",
            "Y": "vowel sign ึ ื (a final consonant follows)",
            "N": "mai han-akat ั (short vowel above)",
            "H": "maitaikhu ็ (short vowel above)",
            "M": "tone mark, nikhahit ํ, phinthu ฺ, yamakkan ๎",
            "K": "thanthakhat ์ (silences the consonants under it)",
            "L": "pre-base vowel เ แ (written before its consonant)",
            "R": "pre-base vowel โ ใ ไ (written before its consonant; no final)",
        },
        orphan="L|R|P|V|Y|N|H|M|K",
        # c = (C|D). A consonant with: ั or ็ (and a tone + final: กั้น); ึ ื (+ final:
        # มือ); a vowel above or below and a tone (ที่); a tone and a vowel after (ค่า).
        # A pre-base vowel + consonant with: ิ + final + ์ + consonant (เวิร์ค); a second
        # consonant and ี + ย (เปลี่ย), ึ ื + final, า + ะ (เคราะ) or ็ + final (เสร็จ);
        # a vowel above + final (เกิด, เสีย, เก็บ); or a tone and า, ะ (เก่า, เกาะ).
        # Those patterns are เ's and แ's (L); โ ใ ไ (R) take a tone and ะ at most (โต๊ะ).
        # Then silenced consonants: ์ or up to three consonants (and a vowel) + ์ (ศาสตร์).
        syllable=_thai_syllable(),
        whole_syllables=True,
    ),
    ScriptRules(
        "lao",
        "Lao",
        0x0E80,
        "Lao syllables from the Unicode data: a pre-base vowel ເ ແ ໂ ໃ ໄ goes with the "
        "consonant after it (ເມືອງ = ເມື ອ ງ); the medials ຼ ຽ, vowel signs above and below, "
        "tone marks, niggahita ໍ and the cancellation mark ໌ stay with their consonant; a "
        "vowel sign after it (ະ າ ຳ) ends the syllable. Lao has no cluster rules of the "
        "standing of Thai's TCC, so a final consonant is a syllable of its own.",
        end=0x0EFF,
        position_classes={"Top": "V", "Bottom": "V"},
        isc_classes={"Pure_Killer": "M"},  # Pali virama ຺, a mark on its consonant
        char_classes={
            0x0ECC: ("K", "the cancellation mark ໌ silences the consonant it is written on"),
        },
        labels={
            "P": "vowel sign after the consonant (ະ າ ຳ)",
            "V": "vowel sign above or below",
            "Y": "medial (ຼ below, ຽ after)",
            "M": "tone mark, niggahita ໍ, Pali virama ຺",
            "K": "cancellation mark ໌",
            "L": "pre-base vowel (ເ ແ ໂ ໃ ໄ, written before its consonant)",
        },
        orphan="L|P|V|Y|M|K",
        # A mark after the vowel sign after the consonant stays too (\X keeps it: ພາ້ົ),
        # and a second such sign (ເ–າະ in ເກາະ is one vowel).
        syllable="L?C(?:Y|V|M|K)*(?:P(?:V|M|K)*(?:P(?:M|K)*)?)?",
        whole_syllables=True,
    ),
]


SCHEMA_DIR = Path(__file__).resolve().parents[1] / "sgpe" / "schemas"
MADE_WITH = Path(__file__).resolve().parents[1] / "tests" / "made_with.json"


def record_versions() -> None:
    """The content of a generated schema comes from the regex release's Unicode tables,
    and two releases of the same Unicode version can differ (regex 2026.11.19 gives Odia
    U+0B53 and U+0B54 categories that 2026.5.9 lacks): tests/made_with.json records the
    release the committed schemas were made with (docs/dependencies.md)."""
    data = json.loads(MADE_WITH.read_text(encoding="utf-8"))
    data["generated_schemas"]["made_with"] = {"regex": regex.__version__}
    MADE_WITH.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="compare only; exit 1 on a diff")
    parser.add_argument("--out", default=str(SCHEMA_DIR))
    args = parser.parse_args(argv)
    found = probe_unicode_version()
    if found != UNICODE:
        print(
            f"gen_schemas: the regex module has Unicode {found}, the schemas are pinned to "
            f"{UNICODE}; install the regex version named in the schemas or change UNICODE",
            file=sys.stderr,
        )
        return 2
    stale = []
    for rules in SCRIPTS:
        path = Path(args.out) / f"{rules.name}.json"
        text = render(rules)
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(str(path))
        else:
            path.write_text(text, encoding="utf-8")
    if not args.check and Path(args.out).resolve() == SCHEMA_DIR:
        record_versions()
    for path in stale:
        print(f"gen_schemas: {path} differs from the generator's output", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())

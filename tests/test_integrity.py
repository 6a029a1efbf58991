"""Structural integrity: every grammatical syllable stays whole, every SGPE token is whole syllables.

Two batteries:

1. **Exhaustive syllable battery.** Every combination of the families below, over every
   code point of the schema's classes (``sgpe/schemas/*.json``), must be exactly one
   syllable: ``syllabify(s) == [s]``, under the Python engine and (where it is built) the
   native one. The number of strings checked per family is asserted
   exactly (and equals the product of the class sizes), so a shrinking class or a skipped
   loop shows up as a failure. The 1,703 conjunct formations that the SGPE paper
   enumerates in an appendix are a subset of these families.

   * Sinhala: ``C`` = 45 code points (U+0D9A..U+0DC6; U+0DB2, U+0DBC, U+0DBE and U+0DBF are
     unassigned but inside the schema's range), ``P`` = 24 vowel-sign symbols (19 code
     points + 5 decomposed two-part signs), ``H`` al-lakuna, ``Z`` ZWJ, ``M`` = 2.
   * Devanagari: ``C`` = 53, ``N`` nukta, ``P`` = 25 (U+A8FF included), ``H`` halant, ``Z`` = ZWJ or ZWNJ
     (half forms), ``M`` = 55 (candrabindu, anusvara, visarga, Vedic marks).

   Conjuncts are checked with every *tail* the grammar allows after a cluster (vowel sign,
   terminal virama, virama + joiner (+ sign), then modifiers): the two-consonant stacks
   with every tail (Sinhala) or bare plus one tail each, taken in rotation so every tail
   occurs (Devanagari, whose 4,424 tails would make 37 M strings); the three-consonant
   stacks bare plus one rotating tail each. A few negative families check that what the
   grammar forbids is *not* glued on (a second vowel sign, a second virama).

2. **Vocabulary battery.** For every SGPE vocabulary trained here (on ``sample_data/``,
   text written for the project, with every leading-space / OOV-policy / piece setting;
   on the first 3,000 lines of ``../shared/corpora/{si,hi}_train.txt`` when present) and
   the shipped ``sample_data/vocab/sgpe_4k.json``, every token is whole syllables:

   *own units*: a base symbol's own units are ``[token]``; a merged token's are its left
   part's followed by its right part's (``merges`` in rank order). A token is **whole**
   when ``syllabify(token, script, leading_space)`` (the vocabulary's own settings)
   equals its own units: the syllabifier, run on the token's text alone, finds exactly
   the units the trainer glued, so no token boundary can ever fall inside one of them.
   Special tokens (``[PAD]`` ...) are excluded; byte tokens ``<0xNN>`` are the declared
   fallback and must be exactly the 256 of them, present only with ``oov_policy="fallback"``.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import pytest

import sgpe
from sgpe import syllabify
from sgpe._engine import native_syllabifier
from sgpe.metrics import broken_boundaries, encode_for_metrics
from sgpe.schema import load_schema
from sgpe.settings import SPECIAL_TOKENS
from sgpe.tokenizer import Tokenizer

REPO_ROOT = Path(__file__).resolve().parents[1]
SAMPLE_DATA = REPO_ROOT / "sample_data"
BYTE_TOKEN = re.compile(r"<0x[0-9A-F]{2}>")

# ============================================================================
# Class alphabets, read from the schemas
# ============================================================================


def _symbols(script: str, letter: str) -> list[str]:
    """Every symbol of a class: its code points, then its multi-code-point units."""
    schema = load_schema(script)
    singles = sorted(schema.classes[letter])
    units = sorted(u.sequence for u in schema.units if u.cls == letter)
    return singles + units


SI = {k: _symbols("sinhala", k) for k in "CVPHZM"}
HI = {k: _symbols("devanagari", k) for k in "CVPHZMN"}


def test_class_sizes():
    """The battery's counts below follow from these sizes; pin them."""
    assert {k: len(v) for k, v in SI.items()} == {"C": 45, "V": 18, "P": 24, "H": 1, "Z": 1, "M": 2}
    assert {k: len(v) for k, v in HI.items()} == {
        "C": 53,
        "V": 25,
        "P": 25,
        "H": 1,
        "Z": 2,
        "M": 55,
        "N": 1,
    }
    # The Sinhala ranges are contiguous and so include code points Unicode leaves unassigned.
    unassigned = sorted(
        f"{ord(c):04X}"
        for c in SI["C"] + SI["P"]
        if len(c) == 1 and unicodedata.category(c) == "Cn"
    )
    assert unassigned == ["0DB2", "0DBC", "0DBE", "0DBF", "0DD5", "0DD7"]
    assert all(unicodedata.category(c) != "Cn" for v in HI.values() for c in v)


def _alts(*parts: Sequence[str]) -> list[str]:
    """Concatenations of one choice from each part (an empty string is a valid choice)."""
    return ["".join(p) for p in itertools.product(*parts)]


# Everything the grammar allows after a complete consonant cluster (the "tail"), "" included.
# Sinhala: C(Z?HZ?C)*(Z?H(Z(P|H)?)?|P)?M?
SI_TAILS = _alts(
    [
        "",
        *SI["P"],
        *_alts(["", "\u200d"], ["\u0dca"]),
        *_alts(["", "\u200d"], ["\u0dca\u200d"]),
        *_alts(["", "\u200d"], ["\u0dca\u200d"], SI["P"]),
        *_alts(["", "\u200d"], ["\u0dca\u200d\u0dca"]),
    ],
    ["", *SI["M"]],
)
# Devanagari: CN?(HZ?CN?)*(H(ZP?)?|P)?M*  (one modifier here; M+M has its own family)
HI_TAILS = _alts(
    [
        "",
        *HI["P"],
        "\u094d",
        *_alts(["\u094d"], HI["Z"]),
        *_alts(["\u094d"], HI["Z"], HI["P"]),
    ],
    ["", *HI["M"]],
)


def test_tail_counts():
    assert len(SI_TAILS) == (1 + 24 + 2 * (1 + 1 + 24 + 1)) * 3 == 237
    assert len(HI_TAILS) == (1 + 25 + 1 + 2 + 50) * 56 == 4424


# ============================================================================
# Families: name -> (generator of strings, exact count)
# ============================================================================


def _product(*parts: Sequence[str]) -> Iterator[str]:
    for combo in itertools.product(*parts):
        yield "".join(combo)


def _with_rotating_tail(strings: Iterable[str], tails: Sequence[str]) -> Iterator[str]:
    """Each string bare, then with tail number ``i % len(tails)``: every tail is used,
    each with a different cluster, at twice (not len(tails) times) the cost."""
    nonempty = [t for t in tails if t]
    for i, s in enumerate(strings):
        yield s
        yield s + nonempty[i % len(nonempty)]


def _si_families() -> dict[str, tuple[Iterable[str], int]]:
    C, V, P, M = SI["C"], SI["V"], SI["P"], SI["M"]
    H, Z = ["\u0dca"], ["\u200d"]
    c, v, p, m = len(C), len(V), len(P), len(M)
    return {
        "V": (_product(V), v),
        "V+M": (_product(V, M), v * m),
        "C+P": (_product(C, P), c * p),
        "C+H": (_product(C, H), c),
        "C+M": (_product(C, M), c * m),
        "C+P+M": (_product(C, P, M), c * p * m),
        "C+H+M": (_product(C, H, M), c * m),
        "C+H+Z": (_product(C, H, Z), c),
        "C+H+Z+P": (_product(C, H, Z, P), c * p),
        "C+H+Z+H": (_product(C, H, Z, H), c),
        "C+H+Z+M": (_product(C, H, Z, M), c * m),
        "C+H+C (x every tail)": (_product(C, H, C, SI_TAILS), c * c * len(SI_TAILS)),
        "C+H+Z+C (x every tail)": (_product(C, H, Z, C, SI_TAILS), c * c * len(SI_TAILS)),
        # Touching letters: the ZWJ before the al-lakuna, alone and with a second ZWJ.
        "C+Z+H+C (x every tail)": (_product(C, Z, H, C, SI_TAILS), c * c * len(SI_TAILS)),
        "C+Z+H+Z+C (x every tail)": (_product(C, Z, H, Z, C, SI_TAILS), c * c * len(SI_TAILS)),
        "C+Z+H+C+Z+H+Z+C (+ rotating tail)": (
            _with_rotating_tail(_product(C, Z, H, C, Z, H, Z, C), SI_TAILS),
            2 * c**3,
        ),
        "C+H+C+H+C (+ rotating tail)": (
            _with_rotating_tail(_product(C, H, C, H, C), SI_TAILS),
            2 * c**3,
        ),
        "C+H+Z+C+H+Z+C (+ rotating tail)": (
            _with_rotating_tail(_product(C, H, Z, C, H, Z, C), SI_TAILS),
            2 * c**3,
        ),
        "C+H+Z+C+H+C (+ rotating tail)": (
            _with_rotating_tail(_product(C, H, Z, C, H, C), SI_TAILS),
            2 * c**3,
        ),
        "C+H+C+H+Z+C (+ rotating tail)": (
            _with_rotating_tail(_product(C, H, C, H, Z, C), SI_TAILS),
            2 * c**3,
        ),
    }


def _hi_families() -> dict[str, tuple[Iterable[str], int]]:
    C, V, P, M, Z = HI["C"], HI["V"], HI["P"], HI["M"], HI["Z"]
    H, N = ["\u094d"], ["\u093c"]
    c, v, p, m, z = len(C), len(V), len(P), len(M), len(Z)
    CN = _alts(C, ["", *N])  # a consonant with or without nukta
    return {
        "V": (_product(V), v),
        "V+M": (_product(V, M), v * m),
        "C+P": (_product(C, P), c * p),
        "C+H": (_product(C, H), c),
        "C+M": (_product(C, M), c * m),
        "C+P+M": (_product(C, P, M), c * p * m),
        "C+M+M": (_product(C, M, M), c * m * m),
        "C+N": (_product(C, N), c),
        "C+N+P": (_product(C, N, P), c * p),
        "C+N+H": (_product(C, N, H), c),
        "C+N+M": (_product(C, N, M), c * m),
        "C+N+P+M": (_product(C, N, P, M), c * p * m),
        "C+H+Z (half form)": (_product(C, H, Z), c * z),
        "C+H+Z+P": (_product(C, H, Z, P), c * z * p),
        "C+H+Z+M": (_product(C, H, Z, M), c * z * m),
        "C+N?+every tail": (_product(CN, HI_TAILS), 2 * c * len(HI_TAILS)),
        "C+H+C (+ rotating tail)": (_with_rotating_tail(_product(C, H, C), HI_TAILS), 2 * c * c),
        "C+H+Z+C (+ rotating tail)": (
            _with_rotating_tail(_product(C, H, Z, C), HI_TAILS),
            2 * c * z * c,
        ),
        "C+N+H+C+N (+ rotating tail)": (
            _with_rotating_tail(_product(C, N, H, C, N), HI_TAILS),
            2 * c * c,
        ),
        "C+H+C+H+C (+ rotating tail)": (
            _with_rotating_tail(_product(C, H, C, H, C), HI_TAILS),
            2 * c**3,
        ),
        "C+H+Z+C+H+Z+C (+ rotating tail)": (
            _with_rotating_tail(_product(C, H, Z, C, H, Z, C), HI_TAILS),
            2 * c**3 * z * z,
        ),
        "C+H+Z+C+H+C (+ rotating tail)": (
            _with_rotating_tail(_product(C, H, Z, C, H, C), HI_TAILS),
            2 * c**3 * z,
        ),
        "C+H+C+H+Z+C (+ rotating tail)": (
            _with_rotating_tail(_product(C, H, C, H, Z, C), HI_TAILS),
            2 * c**3 * z,
        ),
    }


# Exact number of strings checked per family (pinned: the battery must not shrink silently).
SI_COUNTS = {
    "V": 18,
    "V+M": 36,
    "C+P": 1_080,
    "C+H": 45,
    "C+M": 90,
    "C+P+M": 2_160,
    "C+H+M": 90,
    "C+H+Z": 45,
    "C+H+Z+P": 1_080,
    "C+H+Z+H": 45,
    "C+H+Z+M": 90,
    "C+H+C (x every tail)": 479_925,
    "C+H+Z+C (x every tail)": 479_925,
    "C+Z+H+C (x every tail)": 479_925,
    "C+Z+H+Z+C (x every tail)": 479_925,
    "C+Z+H+C+Z+H+Z+C (+ rotating tail)": 182_250,
    "C+H+C+H+C (+ rotating tail)": 182_250,
    "C+H+Z+C+H+Z+C (+ rotating tail)": 182_250,
    "C+H+Z+C+H+C (+ rotating tail)": 182_250,
    "C+H+C+H+Z+C (+ rotating tail)": 182_250,
}
SI_TOTAL = 2_835_729
HI_COUNTS = {
    "V": 25,
    "V+M": 1_375,
    "C+P": 1_325,
    "C+H": 53,
    "C+M": 2_915,
    "C+P+M": 72_875,
    "C+M+M": 160_325,
    "C+N": 53,
    "C+N+P": 1_325,
    "C+N+H": 53,
    "C+N+M": 2_915,
    "C+N+P+M": 72_875,
    "C+H+Z (half form)": 106,
    "C+H+Z+P": 2_650,
    "C+H+Z+M": 5_830,
    "C+N?+every tail": 468_944,
    "C+H+C (+ rotating tail)": 5_618,
    "C+H+Z+C (+ rotating tail)": 11_236,
    "C+N+H+C+N (+ rotating tail)": 5_618,
    "C+H+C+H+C (+ rotating tail)": 297_754,
    "C+H+Z+C+H+Z+C (+ rotating tail)": 1_191_016,
    "C+H+Z+C+H+C (+ rotating tail)": 595_508,
    "C+H+C+H+Z+C (+ rotating tail)": 595_508,
}
HI_TOTAL = 3_495_902


def _check_one_syllable(strings: Iterable[str], stride: int = 1) -> tuple[int, list[str]]:
    """Count the strings and collect (up to 5) that are not exactly one syllable, under
    both engines: ``syllabify`` answers these short strings with the Python engine (its
    word memory), and where the native core is built every string also goes through the
    native DFA, a chunk per call. With ``stride`` k, every string is counted and the
    native DFA sees every one, but the Python engine only every k-th (the 7 million calls
    of both scripts take 50 s; ``--runslow`` checks them all)."""
    n = 0
    bad: list[str] = []
    native = native_syllabifier("auto", False)
    chunk: list[str] = []

    def check_native() -> None:
        # The chunk as one text, a line break after each string: a line break is in no
        # schema's classes, so no syllable runs over it and every string gets the tokens it
        # gets alone. One call and one list instead of a list per string: a fifth of the
        # native DFA's time (25 -> 5 s for Devanagari). Where the tokens are not
        # [s, "\n"] for each s, the chunk goes string by string to name the culprits.
        assert native is not None
        tokens = native.syllabify("\n".join(chunk) + "\n")
        if tokens[0::2] != chunk or tokens[1::2] != ["\n"] * len(chunk):
            found = len(bad)
            for s, got in zip(chunk, native.syllabify_batch(chunk)):
                if got != [s] and len(bad) < 5:
                    bad.append(f"native: {s!r} -> {got!r}")
            if len(bad) == found < 5:
                bad.append("native: a chunk joined by line breaks is not one token per string")
        chunk.clear()

    for s in strings:
        n += 1
        # script="auto" (both schemas at once) is what the tokenizers use by default;
        # test_script_schema_alone_agrees samples the same families per script.
        if n % stride == 0 and syllabify(s) != [s] and len(bad) < 5:
            bad.append(f"{s!r} ({' '.join(f'U+{ord(ch):04X}' for ch in s)}) -> {syllabify(s)!r}")
        if native is not None:
            chunk.append(s)
            if len(chunk) >= 65_536:
                check_native()
    if native is not None and chunk:
        check_native()
    return n, bad


@pytest.mark.parametrize(
    ("script", "families", "counts", "total"),
    [
        pytest.param("sinhala", _si_families, SI_COUNTS, SI_TOTAL, id="sinhala"),
        pytest.param("devanagari", _hi_families, HI_COUNTS, HI_TOTAL, id="devanagari"),
    ],
)
def test_every_combination_is_one_syllable(script, families, counts, total, request):
    checked: dict[str, int] = {}
    failures: list[str] = []
    # The default suite stays under CI's 15 minutes: the Python engine checks every
    # string with --runslow, every fifth one otherwise (each family is spread over it).
    stride = 1 if request.config.getoption("--runslow") else 5
    for name, (strings, expected) in families().items():
        n, bad = _check_one_syllable(strings, stride)
        checked[name] = n
        assert n == expected, f"{script} {name}: enumerated {n}, expected {expected}"
        failures += [f"{name}: {b}" for b in bad]
    assert not failures, "\n".join(failures)
    assert checked == counts
    assert sum(checked.values()) == total


@pytest.mark.parametrize("script", ["sinhala", "devanagari"])
def test_script_schema_alone_agrees(script):
    """The battery runs with script="auto"; the script's own schema gives the same units."""
    fams = _si_families() if script == "sinhala" else _hi_families()
    for strings, _ in fams.values():
        for s in itertools.islice(strings, 0, None, 97):  # a spread sample of every family
            assert syllabify(s, script=script) == [s], s


# ---------------------------------------------------------------------------- negatives
# What the grammar forbids must *not* be glued on: the battery would pass for a
# syllabifier that returned the whole input as one token, these would not.


def test_a_second_vowel_sign_is_an_orphan():
    for c, p1, p2 in itertools.product(SI["C"], SI["P"][:19], SI["P"][:19]):
        s = c + p1 + p2
        if p1 + p2 in SI["P"]:  # the pair is itself a decomposed two-part sign
            continue
        assert syllabify(s) == [c + p1, p2], s
    for c, p1, p2 in itertools.product(HI["C"], HI["P"], HI["P"]):
        assert syllabify(c + p1 + p2) == [c + p1, p2]


def test_a_second_virama_or_modifier_after_sinhala_m_is_an_orphan():
    for c in SI["C"]:
        assert syllabify(c + "\u0dca\u0dca") == [c + "\u0dca", "\u0dca"]
        for m1, m2 in itertools.product(SI["M"], SI["M"]):
            assert syllabify(c + m1 + m2) == [c + m1, m2]  # Sinhala: M? (one modifier)
        assert syllabify(c + "\u0dca\u200d\u200d") == [c + "\u0dca\u200d", "\u200d"]


def test_independent_vowels_never_take_a_sign_or_a_virama():
    for v, p in itertools.product(SI["V"], SI["P"][:19]):
        assert syllabify(v + p) == [v, p]
    for v in SI["V"]:
        assert syllabify(v + "\u0dca") == [v, "\u0dca"]
    for v, p in itertools.product(HI["V"], HI["P"]):
        assert syllabify(v + p) == [v, p]


# ============================================================================
# Vocabulary battery: every SGPE token is whole syllables
# ============================================================================


def broken_tokens(tok: Tokenizer) -> list[str]:
    """Tokens that are not whole syllables (module docstring), with what went wrong.

    Checked as: every base symbol (a token no merge produces) is one unit, and every merge
    ``(a, b)`` satisfies ``units(a + b) == units(a) + units(b)``; by induction over the
    merge ranks each merged token then syllabifies to exactly its own units.
    """

    def units(t: str) -> list[str]:
        return syllabify(t, script=tok.script, leading_space=tok.leading_space)

    out: list[str] = []
    byte_tokens = {t for t in tok.vocab if BYTE_TOKEN.fullmatch(t)}
    if tok.oov_policy == "fallback":
        if len(byte_tokens) != 256:
            out.append(f"fallback vocabulary has {len(byte_tokens)} byte tokens, not 256")
    elif byte_tokens:
        out.append(f"oov_policy 'unk' vocabulary has byte tokens: {sorted(byte_tokens)[:3]}")
    merged = {a + b for a, b in tok.merges}
    for t in tok.vocab:
        if t in SPECIAL_TOKENS or t in byte_tokens or t in merged:
            continue
        if units(t) != [t]:
            out.append(f"base symbol {t!r} is several units: {units(t)!r}")
    for a, b in tok.merges:
        if a in byte_tokens or b in byte_tokens or a in SPECIAL_TOKENS or b in SPECIAL_TOKENS:
            out.append(f"merge {a!r} + {b!r} uses a fallback or special token")
        elif units(a + b) != units(a) + units(b):
            out.append(f"merge {a!r} + {b!r}: {a + b!r} syllabifies as {units(a + b)!r}")
    return out


def _sample_docs() -> list[str]:
    docs: list[str] = []
    for path in sorted(SAMPLE_DATA.glob("*.txt")):
        docs += path.read_text(encoding="utf-8").split("\n")[:-1]
    return docs


def _head(path: Path, n: int) -> list[str]:
    with open(path, encoding="utf-8", newline="") as f:
        return [line.rstrip("\n") for line in itertools.islice(f, n)]


@pytest.fixture(scope="module")
def sample_docs() -> list[str]:
    docs = _sample_docs()
    assert len(docs) > 500  # sample_data/*.txt: sinhala, hindi, mixed
    return docs


@pytest.mark.parametrize("pieces", ["whitespace", "script"])
@pytest.mark.parametrize("oov_policy", ["fallback", "unk"])
@pytest.mark.parametrize("leading_space", [True, False])
def test_sample_vocabularies_are_whole_syllables(sample_docs, leading_space, oov_policy, pieces):
    tok = sgpe.train(
        sample_docs,
        vocab_size=5000,
        prune_freq=1,
        leading_space=leading_space,
        oov_policy=oov_policy,
        pieces=pieces,
        mode="paper",
    )
    assert len(tok.merges) > 1000
    assert broken_tokens(tok) == []


def test_shipped_vocabulary_is_whole_syllables():
    tok = sgpe.load(SAMPLE_DATA / "vocab" / "sgpe_paper_4k.json")
    assert broken_tokens(tok) == []


def straddling_cuts(tok: Tokenizer, lines: Iterable[str]) -> tuple[int, int, int]:
    """(tokens, broken cuts, straddling cuts) of ``tok`` over ``lines`` (sgpe.metrics)."""
    tokens = broken = straddling = 0
    for line in lines:
        spans = encode_for_metrics(tok, line).spans
        result = broken_boundaries(line, spans)
        tokens += len(spans)
        broken += result.broken
        straddling += result.straddling
    return tokens, broken, straddling


@pytest.mark.parametrize("pieces", ["whitespace", "script"])
@pytest.mark.parametrize("oov_policy", ["fallback", "unk"])
@pytest.mark.parametrize("leading_space", [True, False])
def test_hierarchical_vocabularies_never_straddle(sample_docs, leading_space, oov_policy, pieces):
    """The hierarchical mode spells unlearned syllables from their parts (broken cuts) but
    no token ever reaches across a syllable edge (no straddling cut)."""
    tok = sgpe.train(
        sample_docs,
        vocab_size=3000,
        prune_freq=1,
        leading_space=leading_space,
        oov_policy=oov_policy,
        pieces=pieces,
    )
    assert tok.mode == "hierarchical" and len(tok.merges) > 1000
    held_out = [line[::-1] for line in sample_docs[::5]]  # unseen words, same characters
    tokens, broken, straddling = straddling_cuts(tok, sample_docs + held_out)
    assert tokens > 20_000 and broken > 0
    assert straddling == 0


def test_shipped_hierarchical_vocabulary_never_straddles(sample_docs):
    tok = sgpe.load(SAMPLE_DATA / "vocab" / "sgpe_4k.json")
    assert tok.mode == "hierarchical"
    assert straddling_cuts(tok, sample_docs)[2] == 0


@pytest.mark.parametrize("oov_policy", ["fallback", "unk"])
@pytest.mark.parametrize("lang", ["si", "hi"])
def test_corpus_vocabularies_are_whole_syllables(shared_corpora, lang, oov_policy):
    docs = _head(shared_corpora / f"{lang}_train.txt", 3000)
    tok = sgpe.train(docs, vocab_size=8000, oov_policy=oov_policy, mode="paper")
    assert len(tok.merges) > 3000
    assert broken_tokens(tok) == []
    hier = sgpe.train(docs, vocab_size=8000, oov_policy=oov_policy)
    dev = _head(shared_corpora / f"{lang}_dev.txt", 500)
    tokens, _broken, straddling = straddling_cuts(hier, dev)
    assert tokens > 5_000 and straddling == 0


def test_the_checker_catches_a_token_that_cuts_a_syllable(sample_docs):
    """A hand-made vocabulary with a merge that splits a conjunct is reported."""
    tok = sgpe.train(sample_docs[:50], vocab_size=700, prune_freq=1, oov_policy="unk", mode="paper")
    assert broken_tokens(tok) == []
    vocab = dict(tok.vocab)
    # "ක" and the orphan "්" are each one unit, but "ක්" is one syllable: gluing them as
    # two own units is exactly the breakage the battery must see.
    for t in ("ක", "\u0dca", "ක\u0dca"):
        vocab.setdefault(t, len(vocab))
    bad = Tokenizer(vocab, [*tok.merges, ("ක", "\u0dca")], oov_policy="unk", mode="paper")
    problems = broken_tokens(bad)
    assert problems == ["merge 'ක' + '්': 'ක්' syllabifies as ['ක්']"]


def test_encoding_known_text_never_cuts_a_unit(sample_docs):
    """With every syllable in the vocabulary (prune_freq=1), encoding the training text
    yields zero broken boundaries by sgpe.metrics' definition."""
    tok = sgpe.train(sample_docs, vocab_size=3000, prune_freq=1, mode="paper")
    broken = 0
    for line in sample_docs:
        spans = encode_for_metrics(tok, line).spans
        broken += broken_boundaries(line, spans).broken
    assert broken == 0


# ============================================================================
# Merge-prefix property (the compression bench derives smaller byte-level vocabularies)
# ============================================================================


def test_bytebpe_smaller_vocabulary_is_a_merge_prefix(sample_docs, tmp_path):
    """Training stops at a size but never chooses merges by it: the merges at a smaller
    size are the first merges of a larger one, so the benchmark trains once and slices."""
    from bench.peers import derive_bytebpe
    from sgpe.baselines.bytebpe import ByteBPETokenizer

    big = ByteBPETokenizer.train(sample_docs, 1500)
    big.save(tmp_path / "big.json")
    text = "\n".join(sample_docs[::7])
    for size in (300, 800, 1400):
        small = ByteBPETokenizer.train(sample_docs, size)
        assert small.merges == big.merges[: size - 257]
        derived_path = tmp_path / f"derived-{size}.json"
        derive_bytebpe(tmp_path / "big.json", size, derived_path)
        derived = sgpe.load(derived_path)
        assert derived.merges == small.merges
        assert derived.encode(text) == small.encode(text)


@pytest.mark.parametrize("mode", ["hierarchical", "paper"])
def test_sgpe_smaller_vocabulary_is_a_merge_prefix(sample_docs, mode):
    """The same holds for SGPE: its base vocabulary (kept syllables or characters, fallback
    symbols) does not depend on vocab_size, and the merge loop only stops earlier."""
    big = sgpe.train(sample_docs, vocab_size=5000, prune_freq=1, mode=mode)
    results = {a + b for a, b in big.merges}
    base = set(big.vocab) - results
    text = "\n".join(sample_docs[::7])
    for size in (3300, 4000, 4600):
        small = sgpe.train(sample_docs, vocab_size=size, prune_freq=1, mode=mode)
        k = len(small.merges)
        assert small.merges == big.merges[:k]
        assert set(small.vocab) == base | {a + b for a, b in big.merges[:k]}
        prefix = Tokenizer(
            {t: i for i, t in enumerate(sorted(small.vocab))},
            big.merges[:k],
            oov_policy="fallback",
            prepend_space=small.prepend_space,
            mode=mode,
        )
        assert prefix.tokenize(text) == small.tokenize(text)

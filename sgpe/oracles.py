"""Check the syllabifier against two oracles that know nothing about our schemas.

* **Unicode grapheme clusters** (``regex`` ``\\X``, UAX #29). Since Unicode 15.1 rule GB9c
  keeps a consonant + virama + consonant conjunct in one cluster in the scripts listed in
  ``GB9C_SCRIPTS``. A syllable boundary must never fall inside a ``\\X`` cluster, and in a
  GB9c script a syllable should not span two clusters.
* **HarfBuzz shaping** (``uharfbuzz`` with the Noto font of the script). A syllable shaped
  alone must not produce a dotted circle (U+25CC, the shaper's sign for a broken
  sequence), and no syllable boundary may fall inside a shaping cluster.

Plus one linguistic check: a syllable holds at most one vowel nucleus (an independent vowel
or a consonant that no virama kills).

``check_text`` returns counts and a few example syllables per kind of disagreement;
``tests/test_oracles.py`` runs it on each script's real text and ``docs/scripts.md``
explains every disagreement that remains. HarfBuzz is an optional dependency (extra
``oracles``); it is imported only when a shaping check runs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from itertools import pairwise
from pathlib import Path
from typing import Any

import regex

from .schema import char_set, load_schema
from .syllables import syllable_spans

# Scripts whose virama is an InCB=Linker in Unicode 15.1+ (UAX #29 GB9c).
GB9C_SCRIPTS = frozenset({"devanagari", "bengali", "gujarati", "odia", "telugu", "malayalam"})
NOTO_DIR = Path("/usr/share/fonts/truetype/noto")
FONT_NAMES = {"odia": "Oriya"}  # Noto calls Odia by its Unicode block name
DOTTED_CIRCLE = 0x25CC
CHECKS = (
    "dotted_circle",  # a syllable shaped alone shows a dotted circle
    "inside_shaping_cluster",  # a syllable boundary inside a HarfBuzz cluster
    "inside_grapheme",  # a syllable boundary inside an \X cluster
    "spans_graphemes",  # a syllable over two \X clusters (GB9c scripts)
    "two_nuclei",  # a syllable with two vowel nuclei
)
# Columns of the per-script table in docs/scripts.md.
COLUMNS = ("script", "chars", "syllables", "orphans", *CHECKS)


@dataclass
class OracleReport:
    """What the oracles said about one script's text."""

    script: str
    chars: int = 0
    syllables: int = 0
    orphans: int = 0
    counts: Counter[str] = field(default_factory=Counter)
    # check -> syllable (or "left|right" for a boundary) -> occurrences
    examples: dict[str, Counter[str]] = field(default_factory=dict)

    def add(self, check: str, example: str) -> None:
        self.counts[check] += 1
        self.examples.setdefault(check, Counter())[example] += 1

    def row(self) -> dict[str, Any]:
        return {
            "script": self.script,
            "chars": self.chars,
            "syllables": self.syllables,
            "orphans": self.orphans,
            **{c: self.counts[c] for c in CHECKS},
        }


#: What decides the oracle table besides our own code: ``\X`` comes from the ``regex``
#: release's Unicode tables, shaping from the HarfBuzz inside ``uharfbuzz`` and from the
#: fonts of Debian's ``fonts-noto-core``. tests/made_with.json records the versions the
#: documented table was made with.
ORACLE_DEPENDENCIES = ("regex", "uharfbuzz", "fonts-noto-core")


def dependency_versions(names: Iterable[str] = ORACLE_DEPENDENCIES) -> dict[str, str | None]:
    """The installed version of each dependency (``None`` when it is not installed): a PyPI
    distribution's own version, or a Debian package's version from ``dpkg-query``."""
    from importlib import metadata

    found: dict[str, str | None] = {}
    for name in names:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = _debian_version(name)
    return found


def _debian_version(package: str) -> str | None:
    import shutil
    import subprocess

    if shutil.which("dpkg-query") is None:
        return None
    done = subprocess.run(
        ["dpkg-query", "-W", "-f=${Status} ${Version}", package],
        capture_output=True,
        text=True,
        check=False,
    )
    status = done.stdout.split()
    if done.returncode != 0 or status[:3] != ["install", "ok", "installed"] or len(status) < 4:
        return None
    return status[3]


def font_path(script: str) -> Path:
    return NOTO_DIR / f"NotoSans{FONT_NAMES.get(script, script.title())}-Regular.ttf"


class Shaper:
    """HarfBuzz with one script's Noto font: cluster starts and dotted circles."""

    def __init__(self, script: str) -> None:
        import uharfbuzz as hb

        self._hb = hb
        path = font_path(script)
        if not path.exists():
            raise FileNotFoundError(f"{path}: install Debian's fonts-noto-core for {script}")
        self.font = hb.Font(hb.Face(hb.Blob.from_file_path(str(path))))
        self.dotted = self.font.get_nominal_glyph(DOTTED_CIRCLE)

    def _shape(self, text: str) -> Any:
        buf = self._hb.Buffer()
        buf.add_str(text)
        buf.guess_segment_properties()
        self._hb.shape(self.font, buf)
        return buf.glyph_infos

    def cluster_starts(self, text: str) -> set[int]:
        return {g.cluster for g in self._shape(text)}

    @cache  # noqa: B019 - one Shaper per script lives for the whole check
    def has_dotted_circle(self, syllable: str) -> bool:
        return any(g.codepoint == self.dotted for g in self._shape(syllable))


# Thai and Lao units are not Brahmic syllables: their class letters V, D name a vowel sign
# and ย, and a Thai cluster keeps its final consonant (กั้น), which the count below would
# read as a second nucleus. Their third oracle is the cluster rule itself (tcc_tears).
NO_NUCLEUS_CHECK = frozenset({"thai", "lao"})


def nuclei(script: str, syllable: str) -> int:
    """Vowel nuclei of a syllable: independent vowels and consonants no virama kills.

    A nukta or joiner between the letter and the virama does not change that (क़्‍); a
    Myanmar asat (class K) kills its consonant as a virama does (the kinzi င် of င်္ဂ).
    """
    classes = [cls for _, cls in load_schema(script).symbols(syllable)]
    count = 0
    for k, cls in enumerate(classes):
        if cls in ("C", "V"):
            after = [c for c in classes[k + 1 :] if c not in ("N", "Z")][:1]
            count += after not in (["H"], ["K"])
    return count


def check_text(script: str, lines: Iterable[str], shaping: bool = True) -> OracleReport:
    """Run every check on the runs of ``script`` in ``lines`` (other text is ignored)."""
    schema = load_schema(script)
    run = regex.compile(char_set(schema.word_chars) + "+")
    shaper = Shaper(script) if shaping else None
    report = OracleReport(script)
    for line in lines:
        for m in run.finditer(line):
            _check_run(m.group(), script, shaper, report)
    return report


def _check_run(text: str, script: str, shaper: Shaper | None, report: OracleReport) -> None:
    report.chars += len(text)
    spans = syllable_spans(text, script=script)
    # A boundary next to an orphan (a stray sign after a complete syllable: a typo such as a
    # doubled vowel sign) is counted once as an orphan, not as a disagreement: both oracles
    # attach the stray sign to the cluster before it, we keep it as its own token.
    inner = {b.start for a, b in pairwise(spans) if a.kind != "orphan" and b.kind != "orphan"}
    graphemes = [m.span() for m in regex.finditer(r"\X", text)]
    starts = {a for a, _ in graphemes}
    for b in sorted(inner - starts):
        report.add("inside_grapheme", _around(text, spans, b))
    if shaper is not None:
        for b in sorted(inner - shaper.cluster_starts(text)):
            report.add("inside_shaping_cluster", _around(text, spans, b))
    for s in spans:
        piece = text[s.start : s.end]
        if s.kind == "orphan":
            report.orphans += 1
            continue
        if s.kind != "syllable":
            continue
        report.syllables += 1
        if shaper is not None and shaper.has_dotted_circle(piece):
            report.add("dotted_circle", piece)
        if script not in NO_NUCLEUS_CHECK and nuclei(script, piece) > 1:
            report.add("two_nuclei", piece)
        if script in GB9C_SCRIPTS and any(s.start < a < s.end for a in starts):
            report.add("spans_graphemes", piece)


def _around(text: str, spans: list[Any], boundary: int) -> str:
    """The two tokens on either side of a boundary, as ``left|right``."""
    for k, s in enumerate(spans):
        if s.start == boundary:
            left = spans[k - 1]
            return f"{text[left.start : left.end]}|{text[s.start : s.end]}"
    return f"?|{text[boundary:]}"


# ============================================================================
# The real-text run behind docs/scripts.md
# ============================================================================

# Each script's real text, relative to the shared corpora folder (read in place, never
# copied). Devanagari is checked on Hindi, Marathi and Nepali.
CORPUS_FILES: dict[str, tuple[str, ...]] = {
    "sinhala": ("si_dev.txt",),
    "devanagari": ("hi_dev.txt", "multi/mr.txt", "multi/ne.txt"),
    "bengali": ("multi/bn.txt",),
    "gurmukhi": ("multi/pa.txt",),
    "gujarati": ("multi/gu.txt",),
    "odia": ("multi/or.txt",),
    "tamil": ("multi/ta.txt",),
    "telugu": ("multi/te.txt",),
    "kannada": ("multi/kn.txt",),
    "malayalam": ("multi/ml.txt",),
    "myanmar": ("multi/my.txt",),
    "khmer": ("multi/km.txt",),
    "thai": ("multi/th.txt",),
    "lao": ("multi/lo_words.txt",),
}
# The checks read the first CORPUS_CHARS characters of each file (whole lines), so the
# table in docs/scripts.md is checked by the test suite in well under a minute.
CORPUS_CHARS = 200_000


def corpus_lines(corpora: Path, script: str, limit: int | None = CORPUS_CHARS) -> list[str]:
    """The lines of a script's real text: the first ``limit`` characters of each file."""
    lines: list[str] = []
    for name in CORPUS_FILES[script]:
        text = (corpora / name).read_text(encoding="utf-8")
        if limit is not None and len(text) > limit:
            text = text[: text.rfind("\n", 0, limit) + 1]
        lines += text.splitlines()
    return lines


def markdown_table(reports: Iterable[OracleReport]) -> str:
    """The per-script table of docs/scripts.md."""
    out = ["| " + " | ".join(COLUMNS) + " |", "|---" + "|---:" * (len(COLUMNS) - 1) + "|"]
    for r in reports:
        row = r.row()
        out.append(
            "| " + " | ".join(f"{row[c]:,}" if c != "script" else row[c] for c in COLUMNS) + " |"
        )
    return "\n".join(out) + "\n"


def tcc_ends(text: str) -> set[int]:
    """The ends of the Thai Character Clusters of ``text`` (Theeramunkong et al. 2000), by
    PyThaiNLP's ``pythainlp.tokenize.tcc``, the implementation Thai NLP uses (a test
    dependency, imported only here)."""
    from pythainlp.tokenize.tcc import tcc_pos

    ends: set[int] = tcc_pos(text)
    return ends


def tcc_tears(text: str, ends: Iterable[int]) -> int:
    """How many of the token ``ends`` of ``text`` fall inside a Thai Character Cluster."""
    allowed = tcc_ends(text) | {0}
    return sum(1 for e in ends if e not in allowed)


def pre_base_ends(text: str, ends: Iterable[int]) -> int:
    """How many token ``ends`` of ``text`` leave a pre-base vowel at the end of a token,
    apart from the consonant it belongs to. A pre-base vowel is what the UCD says it is
    (Logical_Order_Exception: Thai เ แ โ ใ ไ, Lao ເ ແ ໂ ໃ ໄ), not what a schema classes
    it as: the Thai schema needs two classes for them (L and R)."""
    return sum(1 for e in ends if e > 0 and _PRE_BASE.match(text[e - 1]))


_PRE_BASE = regex.compile(r"\p{Logical_Order_Exception}")

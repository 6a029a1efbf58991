"""The text the benchmarks read, named once. It lives outside the repository, in
``../shared/corpora`` (or ``$SGPE_SHARED_CORPORA``), and is read in place: no bench copies
its sentences into the repository, and no results file holds any of them.

    si_train.txt, hi_train.txt        training text (Sinhala news, Hindi)
    si_dev.txt, hi_dev.txt            held-out text of the same sources
    mixed_dev.txt                     code-switched text (Latin + Sinhala + Devanagari)
    xgenre/                           one genre to train on, other genres to measure on
    multi/<lang>.txt                  real text of every other script with a schema
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = Path(os.environ.get("SGPE_SHARED_CORPORA") or ROOT.parent / "shared" / "corpora")

LANGS = {"si": "Sinhala", "hi": "Hindi"}
MIXED_DEV = "mixed_dev.txt"

#: Cross-genre splits: language -> (training file, files of other genres to measure on).
XGENRE = {
    "si": ("xgenre/si_train_news.txt", ("xgenre/si_test_legal.txt", "xgenre/si_test_prompts.txt")),
    "hi": ("xgenre/hi_train_stories.txt", ("xgenre/hi_test_reviews.txt",)),
}

#: Every language with real text and a schema: language -> (file, schema).
SCRIPTS = {
    language: (file, schema)
    for language, file, schema in map(
        str.split,
        """
        Sinhala     si_train.txt    sinhala
        Hindi       hi_train.txt    devanagari
        Marathi     multi/mr.txt    devanagari
        Nepali      multi/ne.txt    devanagari
        Bengali     multi/bn.txt    bengali
        Punjabi     multi/pa.txt    gurmukhi
        Gujarati    multi/gu.txt    gujarati
        Odia        multi/or.txt    odia
        Tamil       multi/ta.txt    tamil
        Telugu      multi/te.txt    telugu
        Kannada     multi/kn.txt    kannada
        Malayalam   multi/ml.txt    malayalam
        Burmese     multi/my.txt    myanmar
        Khmer       multi/km.txt    khmer
        """.strip().splitlines(),
    )
}


def train_file(lang: str) -> str:
    return f"{lang}_train.txt"


def dev_file(lang: str) -> str:
    return f"{lang}_dev.txt"


def every_file() -> list[str]:
    """Every file some bench reads by default, relative to the corpora folder."""
    names = [f(lang) for lang in LANGS for f in (train_file, dev_file)] + [MIXED_DEV]
    for train, tests in XGENRE.values():
        names += [train, *tests]
    names += [name for name, _ in SCRIPTS.values()]
    return list(dict.fromkeys(names))


def require(corpora: Path, *names: str) -> list[Path]:
    """The paths of `names` under `corpora`; exits with one clear line if any is missing."""
    paths = [corpora / name for name in names]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        where = (
            f"{corpora} does not exist"
            if not corpora.is_dir()
            else f"missing in {corpora}: {', '.join(missing)}"
        )
        raise SystemExit(
            f"corpora not found: {where}. The benchmarks read the shared corpora in place "
            f"(default {DEFAULT}); pass --corpora DIR or set SGPE_SHARED_CORPORA."
        )
    return paths


# ============================================================================
# Slices (written to a scratch folder, never into the repository)
# ============================================================================


def head_lines(src: Path, n: int, dest_dir: Path) -> Path:
    """The first `n` lines of `src`, as a file in `dest_dir`."""
    dest = dest_dir / f"{src.stem}.head{n}{src.suffix}"
    if not dest.exists():
        with open(src, encoding="utf-8", newline="") as f, open(dest, "w", encoding="utf-8") as g:
            for k, line in enumerate(f):
                if k >= n:
                    break
                g.write(line)
    return dest


def leading_fraction(src: Path, fraction: float, dest_dir: Path) -> tuple[Path, int]:
    """The shortest run of leading lines holding `fraction` of the file's characters (lines
    differ a lot in length, so a fraction of the lines would not be one of the text), as a
    file in `dest_dir`, and its number of lines."""
    with open(src, encoding="utf-8", newline="") as f:
        lines = f.readlines()
    target = fraction * sum(map(len, lines))
    total = n = 0
    while n < len(lines) and total < target:
        total += len(lines[n])
        n += 1
    dest = dest_dir / f"{src.stem}.first{n}{src.suffix}"
    if not dest.exists():
        dest.write_text("".join(lines[:n]), encoding="utf-8")
    return dest, n


def split_held_out(src: Path, max_bytes: int, dest_dir: Path) -> tuple[Path, list[str]]:
    """The first `max_bytes` of `src` (whole lines): the first 90% of its lines as a
    training file in `dest_dir`, and the last 10% as held-out lines."""
    lines: list[str] = []
    size = 0
    with open(src, encoding="utf-8") as f:
        for line in f:
            size += len(line.encode("utf-8"))
            if size > max_bytes:
                break
            lines.append(line.rstrip("\n"))
    cut = len(lines) * 9 // 10
    train = dest_dir / f"{src.stem}_train.txt"
    train.write_text("\n".join(lines[:cut]) + "\n", encoding="utf-8")
    return train, lines[cut:]

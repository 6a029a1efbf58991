"""The pre-tokenizer patterns of byte-level BPE (:mod:`sgpe.baselines.bytebpe`), in a module
of their own that imports nothing of sgpe: :mod:`sgpe.settings` checks a pattern with them,
and bytebpe imports the settings (tests/test_import_graph.py keeps the imports acyclic)."""

from __future__ import annotations

from functools import lru_cache

import regex

__all__ = ["SPLIT_PATTERNS", "compile_pattern", "resolve_pattern"]

#: Named pre-tokenizer patterns, copied verbatim from tiktoken's ``pat_str`` values.
#: ``o200k`` (GPT-4o) puts combining marks (``\p{M}``: Sinhala and Devanagari vowel signs,
#: viramas, anusvara) inside letter runs, so a word stays one chunk. ``cl100k`` (GPT-4) and
#: ``gpt2`` match letters with ``\p{L}`` only, so every vowel sign or virama breaks an
#: Indic word into several chunks that BPE can never merge back together.
SPLIT_PATTERNS: dict[str, str] = {
    "o200k": "|".join(
        [
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""\p{N}{1,3}""",
            r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
            r"""\s*[\r\n]+""",
            r"""\s+(?!\S)""",
            r"""\s+""",
        ]
    ),
    "cl100k": (
        r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+|"""
        r""" ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
    ),
    "gpt2": r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""",
}


@lru_cache(maxsize=32)
def compile_pattern(pattern: str) -> regex.Pattern[str]:
    try:
        return regex.compile(pattern)
    except regex.error as err:
        raise ValueError(f"invalid split pattern {pattern!r}: {err}") from None


def resolve_pattern(pattern: str) -> tuple[str, str | None]:
    """Return ``(pattern_string, pattern_name)`` for a pattern name or a pattern string."""
    if not isinstance(pattern, str):
        raise TypeError(f"pattern must be a str (a name or a regex), not {type(pattern).__name__}")
    if pattern in SPLIT_PATTERNS:
        return SPLIT_PATTERNS[pattern], pattern
    for name, known in SPLIT_PATTERNS.items():
        if known == pattern:
            return pattern, name
    return pattern, None

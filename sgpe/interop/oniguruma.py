"""Regex translation for the Hugging Face export: patterns that :mod:`sgpe` builds for
Python's ``re`` (pieces, syllables) and the byte-level baseline's ``regex`` pattern, as
Oniguruma (the engine of HF ``tokenizers``) reads them with the same matches.

:mod:`sgpe.interop.hf_export` uses it; it knows nothing of vocabularies.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from ..schema import code_point_ranges

__all__ = [
    "UntranslatableRegex",
    "class_body",
    "lit",
    "onig_from_python_re",
    "onig_from_regex_module",
]


class UntranslatableRegex(ValueError):
    """A construct of the pattern has no exact Oniguruma spelling; the message names it."""


@cache
def _python_whitespace() -> str:
    """Characters that Python's ``re`` matches with ``\\s`` (Oniguruma's set is smaller)."""
    return "".join(re.findall(r"\s", _every_character()))


@cache
def _every_character() -> str:
    """Every code point except the surrogates, in order."""
    return "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)


def class_body(chars: Iterable[str]) -> str:
    """Character-class body (no brackets) for a set of characters, ranges merged."""
    return "".join(
        f"\\x{{{lo:X}}}" if lo == hi else f"\\x{{{lo:X}}}-\\x{{{hi:X}}}"
        for lo, hi in code_point_ranges(chars)
    )


def lit(ch: str) -> str:
    """One character as an Oniguruma literal outside a class."""
    if ch.isalnum() and ord(ch) < 0x80:
        return ch
    if ord(ch) < 0x80 or not ch.isprintable() or ch.isspace():
        return f"\\x{{{ord(ch):X}}}"
    return ch


_PY_ESCAPE = re.compile(
    r"\\U([0-9a-fA-F]{8})|\\u([0-9a-fA-F]{4})|\\x([0-9a-fA-F]{2})|\\s|\\.|\[|\]|.", re.S
)


def onig_from_python_re(pattern: str) -> str:
    """Translate a pattern that :mod:`sgpe` builds for Python ``re`` to Oniguruma.

    Handles exactly what our piece and syllable patterns use: ``\\uXXXX`` / ``\\UXXXXXXXX``
    / ``\\xXX`` escapes, ``\\s`` (Python's set, spelled out) and ``[\\s\\S]`` (any character);
    every other escape is passed through (``\\t``, ``\\n``, ``\\r`` mean the same in both).
    """
    ws = class_body(_python_whitespace())
    out: list[str] = []
    depth = 0  # inside a character class?
    for m in _PY_ESCAPE.finditer(pattern.replace("[\\s\\S]", "\0ANY\0")):
        tok = m.group()
        if m.group(1) or m.group(2) or m.group(3):
            out.append(f"\\x{{{int(m.group(1) or m.group(2) or m.group(3), 16):X}}}")
        elif tok == "\\s":
            out.append(ws if depth else f"[{ws}]")
        elif tok == "[":
            depth += 1
            out.append(tok)
        elif tok == "]" and depth:
            depth -= 1
            out.append(tok)
        else:
            out.append(tok)
    return "".join(out).replace("\0ANY\0", "[\\s\\S]")


@cache
def _regex_class(expr: str) -> str:
    """Body of an explicit class for ``expr`` as the ``regex`` module reads it."""
    import regex

    return class_body(regex.findall(expr, _every_character()))


_REGEX_TOKEN = re.compile(
    r"\\[pP]\{[^}]*\}|\\[sS]|\\[dDwWbB]|\\.|\(\?i:|\(\?<?[=!>]|\(\?[a-zA-Z-]*[:)]|\(\?"
    r"|\{\d*,?\d*\}\+?|[][()$]|.",
    re.S,
)


def onig_from_regex_module(pattern: str) -> str:
    """Translate a byte-level split pattern (``regex`` module syntax) to Oniguruma.

    * ``\\p{..}``, ``\\s``/``\\S`` and letters inside ``(?i:..)`` become explicit character
      sets computed with the ``regex`` module itself (its Unicode version may be newer than
      Oniguruma's);
    * ``$`` becomes ``(?=\\n?\\z)`` (Python's meaning; Ruby's ``$`` is end-of-line);
    * a possessive interval ``X{n,m}+`` becomes ``(?>X{n,m})`` (in Ruby syntax ``{n,m}+``
      repeats the interval instead).

    Other constructs pass through unchanged; ``\\d``, ``\\w``, ``\\b`` and inline flags other
    than ``(?i:..)`` raise :class:`UntranslatableRegex`.
    """
    out: list[str] = []
    in_class = False
    class_start = 0
    groups: list[tuple[int, bool]] = []  # (index in out where the group starts, case-insensitive)
    last_atom = 0  # index in out where the most recent complete atom starts
    for m in _REGEX_TOKEN.finditer(pattern):
        tok = m.group()
        insensitive = any(flag for _, flag in groups)
        if in_class:
            if tok == "]":
                in_class = False
                out.append(tok)
                last_atom = class_start
            elif tok.startswith(("\\p", "\\P")) or tok in ("\\s", "\\S"):
                if tok == "\\S" or tok.startswith("\\P"):
                    raise UntranslatableRegex(f"cannot translate {tok!r} inside a character class")
                out.append(_regex_class(tok))
            elif tok in ("\\d", "\\D", "\\w", "\\W"):
                raise UntranslatableRegex(
                    f"cannot translate {tok!r} exactly; spell it with \\p{{..}}"
                )
            elif insensitive and (tok == "-" or tok.isalpha()):
                if tok == "-":
                    raise UntranslatableRegex("cannot translate a range inside (?i:..)")
                out.append(_regex_class(f"(?i:{tok})"))
            else:
                out.append(tok)
            continue
        if tok == "[":
            in_class, class_start = True, len(out)
            out.append(tok)
        elif tok.startswith(("\\p", "\\P")) or tok in ("\\s", "\\S"):
            last_atom = len(out)
            if tok == "\\S" or tok.startswith("\\P"):
                positive = "\\s" if tok == "\\S" else "\\p" + tok[2:]
                out.append(f"[^{_regex_class(positive)}]")
            else:
                out.append(f"[{_regex_class(tok)}]")
        elif tok in ("\\d", "\\D", "\\w", "\\W", "\\b", "\\B"):
            raise UntranslatableRegex(f"cannot translate {tok!r} exactly; spell it with \\p{{..}}")
        elif tok == "(?i:":
            groups.append((len(out), True))
            out.append("(?:")
        elif tok in ("(", "(?:") or tok in ("(?=", "(?!", "(?<=", "(?<!", "(?>"):
            groups.append((len(out), False))
            out.append(tok)
        elif tok.startswith("(?"):
            raise UntranslatableRegex(f"cannot translate the group opener {tok!r} exactly")
        elif tok == ")":
            start = groups.pop()[0] if groups else len(out)
            out.append(tok)
            last_atom = start
        elif tok == "$":
            last_atom = len(out)
            out.append("(?=\\n?\\z)")
        elif tok.startswith("{") and tok.endswith("}+"):
            atom = "".join(out[last_atom:])
            del out[last_atom:]
            out.append(f"(?>{atom}{tok[:-1]})")
        elif tok.startswith("{") or tok in ("*", "+", "?", "|"):
            out.append(tok)
        elif insensitive and tok.isalpha():
            last_atom = len(out)
            out.append(f"[{_regex_class(f'(?i:{tok})')}]")
        else:
            last_atom = len(out)
            out.append(tok)
    return "".join(out)

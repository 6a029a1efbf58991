"""The text files sgpe reads: the corpus file types, and lines split on ``"\\n"`` only, so
a ``"\\r"`` or a form feed stays inside its line as it does in every corpus reader of the
project (sgpe/corpus/readers.py). Apart from the readers, so that the command line (its
help text, its stdin lines) and the metrics need no corpus reader.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

#: The corpus file types sgpe reads (sgpe/corpus/readers.py).
SUPPORTED_SUFFIXES = (".txt", ".txt.gz", ".jsonl", ".csv", ".parquet")


def split_lines(text: str) -> list[str]:
    """Lines split on ``"\\n"`` only; the final newline ends the last line, it does not
    start a new one.

    >>> split_lines("a\\r\\nb\\n")
    ['a\\r', 'b']
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def read_lines(path: str | Path) -> Iterator[str]:
    """:func:`split_lines` of a UTF-8 text file, streamed in 1 MiB blocks."""
    with open(path, encoding="utf-8", newline="") as f:
        tail = ""
        while chunk := f.read(1 << 20):
            parts = (tail + chunk).split("\n")
            tail = parts.pop()
            yield from parts
        if tail:
            yield tail

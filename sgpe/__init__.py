"""This is the public API of sgpe: syllable-aware tokenization for Abugida scripts.

>>> from sgpe import syllabify, train, Tokenizer
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from .syllabify import syllabify, syllable_spans
from .tokenizer import Tokenizer, read_json
from .train import train

try:
    __version__ = version("sgpe-explorer")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+local"


def load(path: str | Path) -> Any:
    """Load any vocabulary file of this project: SGPE (``Tokenizer``) or byte-level BPE
    (``sgpe.bytebpe.ByteBPETokenizer``), chosen by the file's ``model`` key."""
    data = read_json(path)
    if isinstance(data, dict) and data.get("model") == "bytebpe":
        from .bytebpe import ByteBPETokenizer

        return ByteBPETokenizer.from_dict(data, source=str(path))
    return Tokenizer.from_dict(data, str(path))


__all__ = ["Tokenizer", "__version__", "load", "syllabify", "syllable_spans", "train"]

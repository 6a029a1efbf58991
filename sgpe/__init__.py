"""This is the public API of sgpe: syllable-aware tokenization for Abugida scripts.

>>> from sgpe import syllabify, train, Tokenizer
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from .syllabify import syllabify, syllable_spans
from .tokenizer import Tokenizer
from .train import train

try:
    __version__ = version("sgpe-explorer")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+local"

__all__ = ["Tokenizer", "__version__", "syllabify", "syllable_spans", "train"]

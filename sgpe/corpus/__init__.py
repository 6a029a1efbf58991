"""Reading corpora: every supported format streamed as documents, with errors that name the
file, the line and the problem (:mod:`sgpe.corpus.readers`)."""

from __future__ import annotations

from .readers import (
    CHUNK_CHARS,
    SUPPORTED_SUFFIXES,
    CorpusError,
    CorpusInfo,
    chunk_documents,
    corpus_format,
    iter_documents,
    read_corpus,
)

__all__ = [
    "CHUNK_CHARS",
    "SUPPORTED_SUFFIXES",
    "CorpusError",
    "CorpusInfo",
    "chunk_documents",
    "corpus_format",
    "iter_documents",
    "read_corpus",
]

"""Reading corpora: every supported format streamed in blocks, with errors that name the
file, the line and the problem (:mod:`sgpe.corpus.readers`); counting their pieces on all
cores or a Dask cluster (:mod:`sgpe.corpus.counting`)."""

from __future__ import annotations

from .._text import SUPPORTED_SUFFIXES
from .readers import (
    BLOCK_BYTES,
    CHUNK_CHARS,
    DEFAULT_MAX_LINE_BYTES,
    CorpusError,
    CorpusInfo,
    CorpusStream,
    chunk_documents,
    corpus_files,
    corpus_format,
    iter_documents,
    read_corpus,
)

__all__ = [
    "BLOCK_BYTES",
    "CHUNK_CHARS",
    "DEFAULT_MAX_LINE_BYTES",
    "SUPPORTED_SUFFIXES",
    "CorpusError",
    "CorpusInfo",
    "CorpusStream",
    "chunk_documents",
    "corpus_files",
    "corpus_format",
    "iter_documents",
    "read_corpus",
]

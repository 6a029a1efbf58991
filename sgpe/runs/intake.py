"""Corpus intake, of ``sgpe train`` and of the explorer's run manager: :func:`validate_corpus`
checks a corpus (a path or an upload) before a run is made of it (size, gzip expansion,
readable text, a script SGPE has grammars for) and sums it up as a :class:`CorpusSummary`.
"""

from __future__ import annotations

import gzip
import re
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from ..corpus.readers import (
    BLOCK_BYTES,
    CorpusError,
    TextBlocks,
    corpus_format,
    decode_segment,
    iter_documents,
)
from ..protocol import one_line
from ..schema import BUILTIN_SCRIPTS, SCRIPT_BLOCKS, load_schema

#: Upload size limit, the same as ``server.maxUploadSize = 200`` in .streamlit/config.toml.
DEFAULT_MAX_BYTES = 200 * 1024 * 1024
#: A ``.txt.gz`` may expand to at most this many times the upload limit.
GZIP_EXPANSION_LIMIT = 5
#: The scripts SGPE has grammars for, by title, with their main Unicode block.
SUPPORTED_SCRIPTS = {load_schema(n).title: SCRIPT_BLOCKS[n][0] for n in BUILTIN_SCRIPTS}
_SCRIPT_CHAR = re.compile(
    "|".join(f"[\\u{a:04x}-\\u{b:04x}]" for blocks in SCRIPT_BLOCKS.values() for a, b in blocks)
)


@dataclass(frozen=True)
class CorpusSummary:
    """What :func:`validate_corpus` found in an acceptable corpus."""

    name: str
    format: str
    bytes: int
    documents: int
    characters: int
    script_characters: int  # characters of a supported script (SUPPORTED_SCRIPTS)
    # True when only the start of a text file was read (validate_corpus(whole=False)):
    # documents and characters then count that start only.
    partial: bool = False


def _scripts_text() -> str:
    names = [f"{n} (U+{a:04X}–U+{b:04X})" for n, (a, b) in SUPPORTED_SCRIPTS.items()]
    return ", ".join(names[:-1]) + " or " + names[-1]


def size_text(n: int) -> str:
    """A byte count in megabytes, as the size messages write it."""
    return f"{n / (1024 * 1024):.1f} MB"


def validate_corpus(
    path: str | Path,
    *,
    name: str | None = None,
    max_bytes: int | None = DEFAULT_MAX_BYTES,
    require_script: bool = True,
    whole: bool = True,
) -> CorpusSummary:
    """Check that a corpus file can be trained on, reading all of it once.

    ``whole=False`` reads a ``.txt``/``.txt.gz`` file only until it has seen a line with
    text and a character of a supported script (usually its first block), for a caller
    that counts the file right after: counting reads every byte with the same reader and
    raises the same errors. Without either, it still reads the whole file.

    Raises :class:`~sgpe.corpus.CorpusError` naming the file (``name``, e.g. the upload's
    name, instead of ``path``), the line or row, and what to do, for: an unsupported type,
    a missing file, a file over ``max_bytes``, bytes that are not UTF-8, a malformed
    ``.jsonl``/``.csv``/``.parquet`` or one without a ``text`` field/column, a file
    without text, and (``require_script``) text without a character of a supported script.
    """
    path = Path(path)
    shown = name or str(path)

    def fail(message: str) -> CorpusError:
        return CorpusError(f"{shown}: {message}")

    fmt = corpus_format(Path(shown).name if name else path)  # CorpusError for other types
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise fail("file not found") from None
    if max_bytes is not None and size > max_bytes:
        raise fail(
            f"{size_text(size)} is over the size limit of {size_text(max_bytes)}; "
            "use a smaller sample of the corpus (e.g. its first 100,000 lines)"
        )
    if size == 0:
        raise fail("the file is empty (0 bytes); it needs text, e.g. one document per line")
    if fmt == ".txt.gz" and max_bytes is not None:
        _check_gzip(path, GZIP_EXPANSION_LIMIT * max_bytes, fail)
    partial = False
    try:
        if fmt in (".txt", ".txt.gz"):
            documents, characters, any_text, script_chars, partial = _text_file_counts(path, whole)
        else:
            documents, characters, any_text, script_chars = _document_counts(iter_documents(path))
    except CorpusError as err:
        text = str(err)
        raise CorpusError(text.replace(str(path), shown, 1) if name else text) from None
    unit = "lines" if fmt in (".txt", ".txt.gz") else "documents"
    if not any_text:
        if documents == 0:
            raise fail(f"no {unit} with text; it needs at least one non-blank document")
        raise fail(f"all {documents:,} {unit} are blank; it needs at least one with text")
    if require_script and script_chars == 0:
        raise fail(
            f"no character of a supported script in {documents:,} {unit}: SGPE learns "
            f"syllables of {_scripts_text()} text. Check that this is the right file "
            "(not transliterated or in another script)"
        )
    return CorpusSummary(
        Path(shown).name, fmt, size, documents, characters, script_chars, partial=partial
    )


def _document_counts(documents: Iterable[str]) -> tuple[int, int, bool, int]:
    """Documents, characters, whether any document has text, and the script characters
    of the first document that has one (what :class:`CorpusSummary` reports)."""
    count = characters = script_chars = 0
    any_text = False
    for doc in documents:
        count += 1
        characters += len(doc)
        if not any_text and doc.strip():
            any_text = True
        if script_chars == 0 and _SCRIPT_CHAR.search(doc):
            script_chars = len(_SCRIPT_CHAR.findall(doc))
    return count, characters, any_text, script_chars


def _text_file_counts(
    path: Path, whole: bool = True, block: int = BLOCK_BYTES
) -> tuple[int, int, bool, int, bool]:
    """:func:`_document_counts` of a ``.txt`` or ``.txt.gz`` file's lines, a segment at a
    time instead of a line at a time: the same numbers and errors
    (``tests/test_reliability.py`` compares them) without a Python step per line. The last
    value is true when it stopped early (``whole=False``: text and a script character seen).
    """
    count = characters = script_chars = 0
    any_text = False
    blocks = TextBlocks(path, cut_at_space=False, block=block, digest=False)
    for data, line, col in blocks:
        text = decode_segment(data, path, line, col)
        newlines = text.count("\n")
        # Segments end after a newline (only the file's last one may not): lines never
        # straddle two segments, and a final newline ends a line without starting one.
        count += newlines + (not text.endswith("\n"))
        characters += len(text) - newlines
        if not any_text and not text.isspace():
            any_text = True
        if script_chars == 0 and (m := _SCRIPT_CHAR.search(text)):
            start = text.rfind("\n", 0, m.start()) + 1
            end = text.find("\n", m.end())
            script_chars = len(_SCRIPT_CHAR.findall(text, start, len(text) if end < 0 else end))
        if not whole and any_text and script_chars:
            return count, characters, any_text, script_chars, True
    return count, characters, any_text, script_chars, False


def _check_gzip(path: Path, limit: int, fail: Callable[[str], CorpusError]) -> None:
    total = 0
    try:
        with gzip.open(path, "rb") as f:
            while block := f.read(1 << 20):
                total += len(block)
                if total > limit:
                    raise fail(
                        f"decompresses to more than {size_text(limit)}; use a smaller sample"
                    )
    except (OSError, EOFError, zlib.error) as err:  # zlib.error: damaged compressed data
        raise fail(
            f"not a readable gzip file ({one_line(err)}); compress it again with gzip"
        ) from None

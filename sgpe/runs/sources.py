"""A run's corpus, recorded by reference: where its files are and what their bytes were.

A run does not copy its corpus. ``config.json`` records the corpus as it was given (a
file, a directory or a glob pattern, :func:`sgpe.corpus.readers.corpus_files`), the list
of its files with their sizes and sha256 (:class:`CorpusFile`), and one content hash of
them all (:func:`manifest_sha256`). Before a run resumes, :func:`corpus_problem` compares
the files on disk with that list and names exactly what changed, because a resumed run
on other bytes would silently train something else than it started on.

A path in the list may be relative: it is then relative to the run directory (uploads
stored under the runs root are recorded as ``../uploads/<sha256><ext>``, so a runs root
moved as a whole keeps working).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._atomic import file_sha256
from ..corpus.readers import CorpusError, corpus_files

#: How a recorded problem ends: what the owner of the run can do about it.
FIX_MOVED = (
    "put it back, or resume with --corpus at its new place "
    "(python -m sgpe train --out RUN_DIR --resume --corpus PATH)"
)
FIX_CHANGED = "restore the original bytes, or start a new run on the corpus as it is now"


@dataclass(frozen=True)
class CorpusFile:
    """One file of a run's corpus as it was when the run started."""

    path: str  # absolute, or relative to the run directory
    bytes: int
    sha256: str

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "bytes": self.bytes, "sha256": self.sha256}

    @classmethod
    def from_dict(cls, data: Any, where: str) -> CorpusFile:
        if (
            not isinstance(data, dict)
            or type(data.get("path")) is not str
            or type(data.get("bytes")) is not int
            or type(data.get("sha256")) is not str
        ):
            raise ValueError(
                f"{where}: each entry of 'corpus_files' must be an object with 'path' (text), "
                f"'bytes' (integer) and 'sha256' (text), got {data!r}"
            )
        return cls(data["path"], data["bytes"], data["sha256"])


def manifest_sha256(files: Sequence[CorpusFile]) -> str:
    """The content hash of a corpus: for one file the sha256 of its bytes (the hash a
    corpus copy had, so the two layouts agree), for several the sha256 of their hashes
    one per line in corpus order (sorted paths), so the hash does not depend on where
    the files live."""
    if len(files) == 1:
        return files[0].sha256
    return hashlib.sha256("".join(f"{f.sha256}\n" for f in files).encode()).hexdigest()


def resolve(path: str, run_dir: Path) -> Path:
    """A recorded path as a path on disk (a relative one is relative to the run)."""
    p = Path(path)
    return p if p.is_absolute() else run_dir / p


def manifest(source: str | Path, *, relative_to: Path | None = None) -> list[CorpusFile]:
    """The files of ``source`` (file, directory or glob) with their sizes and sha256, in
    corpus order. Paths are absolute, or relative to ``relative_to`` when given.
    Raises :class:`~sgpe.corpus.CorpusError` when the source names no corpus file."""
    out = []
    for path in corpus_files(source):
        absolute = path.absolute()
        shown = str(absolute)
        if relative_to is not None:
            shown = _relative(absolute, relative_to.absolute())
        out.append(CorpusFile(shown, absolute.stat().st_size, file_sha256(absolute)))
    return out


def _relative(path: Path, base: Path) -> str:
    """``path`` relative to ``base`` (with ``..`` steps: both are in one runs root)."""
    return os.path.relpath(path, base)


def corpus_problem(source: str, files: Sequence[CorpusFile], run_dir: Path) -> str:
    """What differs between the recorded corpus and the files on disk now, as one line
    naming the file and the fix; ``""`` when every file is there with the same bytes.

    Cheap checks come first (missing files, sizes), then the hashes, file by file, so
    the message names the first file that differs."""
    recorded = {resolve(f.path, run_dir).absolute(): f for f in files}
    for path, f in recorded.items():
        if not path.is_file():
            return f"corpus file {path} is missing (recorded {f.bytes:,} bytes); {FIX_MOVED}"
    if source:
        try:
            now = {p.absolute() for p in corpus_files(resolve(source, run_dir))}
        except CorpusError:
            now = set(recorded)
        added = sorted(now - set(recorded))
        if added:
            more = f" and {len(added) - 1:,} more" if len(added) > 1 else ""
            return (
                f"corpus {source}: {len(added):,} file(s) added since the run started "
                f"({added[0]}{more}); remove them, or start a new run on the corpus as it is now"
            )
    for path, f in recorded.items():
        size = path.stat().st_size
        if size != f.bytes:
            return (
                f"corpus file {path} changed since the run started ({f.bytes:,} bytes then, "
                f"{size:,} now); {FIX_CHANGED}"
            )
    for path, f in recorded.items():
        sha = file_sha256(path)
        if sha != f.sha256:
            return (
                f"corpus file {path} changed since the run started (sha256 {f.sha256[:12]}… "
                f"then, {sha[:12]}… now, same size); {FIX_CHANGED}"
            )
    return ""

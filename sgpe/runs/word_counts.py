"""``word_counts.parquet`` (or ``.json``) of a run directory: the pieces and their counts,
written once after counting and read on resume.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .._atomic import atomic_write
from ..corpus.readers import CorpusInfo
from .files import (
    _canonical,
    _find_table,
    _have_pyarrow,
    _table_suffix,
    _Writes,
    decode_table,
    encode_table,
)


def read_word_counts(run_dir: Path, fingerprint: str) -> tuple[Counter[str], CorpusInfo]:
    """The saved piece counts and corpus identity; ``ValueError`` if missing, damaged or
    made with other settings."""
    path = _find_table(run_dir, "word_counts")
    if path is None:
        raise ValueError("no word_counts file")
    columns, meta = decode_table(path)
    if meta.get("fingerprint") != fingerprint:
        raise ValueError(f"{path} belongs to other settings or another corpus")
    pieces, counts = columns.get("piece"), columns.get("count")
    info = meta.get("corpus_info")
    if not (isinstance(pieces, list) and isinstance(counts, list) and len(pieces) == len(counts)):
        raise ValueError(f"{path}: columns 'piece' and 'count' are missing or differ in length")
    if not isinstance(info, dict) or meta.get("pieces") != len(pieces):
        raise ValueError(f"{path}: metadata is incomplete")
    # A damaged file can still decode (a flipped bit inside a count): the checksum written
    # with the table is what tells a true count from a changed one.
    if meta.get("sha256") != _counts_sha256(pieces, counts):
        raise ValueError(f"{path}: sha256 of its pieces and counts does not match (damaged)")
    try:
        return Counter(dict(zip(pieces, counts))), CorpusInfo(**info)
    except TypeError as err:
        raise ValueError(f"{path}: metadata 'corpus_info' is malformed ({err})") from None


def _counts_sha256(pieces: Sequence[Any], counts: Sequence[Any]) -> str:
    return hashlib.sha256(_canonical([list(pieces), list(counts)])).hexdigest()


def write_word_counts(
    run_dir: Path, counts: Mapping[str, int], info: CorpusInfo, fingerprint: str, writes: _Writes
) -> Path:
    parquet = _have_pyarrow()
    path = run_dir / f"word_counts{_table_suffix(parquet)}"
    pieces, values = list(counts), list(counts.values())
    meta = {
        "fingerprint": fingerprint,
        "corpus_info": dataclasses.asdict(info),
        "pieces": len(counts),
        "sha256": _counts_sha256(pieces, values),
    }
    data = encode_table({"piece": pieces, "count": values}, meta, parquet, strings=("piece",))
    writes.check(path)
    atomic_write(path, data)
    return path

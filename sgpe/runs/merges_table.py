"""The merges table of a run directory: ``merges/part-*`` (one part per checkpoint) while
a run works, ``merges.parquet`` (or ``.json``) when it is done; :func:`read_merges`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .constants import MERGE_PARTS
from .files import _find_table, decode_table, encode_table


def _merge_columns(
    merges: Sequence[tuple[str, str]], counts: Sequence[int], first: int, last: int
) -> dict[str, list[Any]]:
    """Rows ``first..last`` (1-based steps, inclusive) of the merges table."""
    rows = merges[first - 1 : last]
    return {
        "step": list(range(first, last + 1)),
        "left": [a for a, _ in rows],
        "right": [b for _, b in rows],
        "merged": [a + b for a, b in rows],
        "count": list(counts[first - 1 : last]),
    }


def encode_merges(
    merges: Sequence[tuple[str, str]], counts: Sequence[int], first: int, last: int, parquet: bool
) -> bytes:
    """Rows ``first..last`` of the merges table as a file's bytes (``encode_table``)."""
    columns = _merge_columns(merges, counts, first, last)
    return encode_table(columns, {}, parquet, strings=("left", "right", "merged"))


def _part_range(path: Path) -> tuple[int, int] | None:
    parts = path.stem.split("-")
    if len(parts) == 3 and parts[0] == "part" and parts[1].isdigit() and parts[2].isdigit():
        return int(parts[1]), int(parts[2])
    return None


def _parts(run_dir: Path) -> list[tuple[int, int, Path]]:
    folder = run_dir / MERGE_PARTS
    if not folder.is_dir():
        return []
    out = []
    for p in folder.iterdir():
        r = _part_range(p)
        if r is not None and p.suffix in (".parquet", ".json"):
            out.append((r[0], r[1], p))
    return sorted(out)


def read_merges(run_dir: str | Path) -> dict[str, list[Any]]:
    """The merges table of a run so far (columns step, left, right, merged, count): the
    final ``merges.parquet`` when done, else the part files written at checkpoints.
    A damaged file raises ``ValueError`` naming it."""
    run_dir = Path(run_dir)
    final = _find_table(run_dir, "merges")
    if final is not None:
        return _merge_table(final)
    out: dict[str, list[Any]] = {k: [] for k in MERGE_COLUMNS}
    expected = 1
    for first, last, path in _parts(run_dir):
        if first != expected:
            break  # a gap (a part being replaced during a resume): stop at what is contiguous
        columns = _merge_table(path)
        for k in out:
            out[k].extend(columns[k])
        expected = last + 1
    return out


def merges_stamp(run_dir: str | Path) -> tuple[tuple[str, int, int], ...]:
    """What :func:`read_merges` reads, stamped: the final table, else each part file, by
    path, mtime and size (empty: no merges written yet). The same stamp means the same
    table, so a reader that redraws a training run every second or two (the explorer's
    runs panel) decodes and draws it only when a checkpoint wrote a part."""
    run_dir = Path(run_dir)
    final = _find_table(run_dir, "merges")
    paths = [final] if final is not None else [path for _, _, path in _parts(run_dir)]
    found = []
    for path in paths:
        try:
            stat = path.stat()
        except OSError:  # replaced meanwhile: the next stamp sees the new one
            continue
        found.append((str(path), stat.st_mtime_ns, stat.st_size))
    return tuple(found)


MERGE_COLUMNS = ("step", "left", "right", "merged", "count")


def _merge_table(path: Path) -> dict[str, list[Any]]:
    columns, _ = decode_table(path)
    lengths = {len(v) for k, v in columns.items() if k in MERGE_COLUMNS and isinstance(v, list)}
    if not all(isinstance(columns.get(k), list) for k in MERGE_COLUMNS) or len(lengths) != 1:
        raise ValueError(
            f"{path}: expected columns {', '.join(MERGE_COLUMNS)} of equal length (damaged)"
        )
    return {k: columns[k] for k in MERGE_COLUMNS}

"""What the renderers share: the pages that hold the generated tables, and the formatting of numbers and sizes."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from ..peers import PEERS

ROOT = Path(__file__).resolve().parents[2]
#: The documentation pages that hold generated tables, each with the names of its blocks
#: (the keys of ``BLOCKS`` in ``bench/render/__init__.py``). Links in a block are relative
#: to ``docs/``.
PAGES: dict[Path, tuple[str, ...]] = {
    ROOT / "docs" / "performance.md": ("native", "speed"),
    ROOT / "docs" / "results.md": ("xgenre", "compression", "scripts", "scripts-speed"),
}


def _minutes(seconds: float) -> str:
    return "a few minutes" if math.isnan(seconds) else f"{seconds / 60:.1f} min"


def _size_label(n: int) -> str:
    return f"{n // 1000}k" if n % 1000 == 0 else f"{n:,}"


def _num(x: Any, fmt: str) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    return format(x, fmt)


def _in_order(keys: Any) -> list[str]:
    """The peers among `keys`, in the registry's order."""
    present = set(keys)
    return [k for k in PEERS if k in present]

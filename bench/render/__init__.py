"""Records to reports: every markdown table, chart and documentation section the
benchmarks publish, computed from the saved records in ``bench/results/`` and nothing else,
so ``python -m bench tables`` rewrites them without measuring.

The generated parts of the documentation stand between markers, ``<!-- bench:NAME -->`` and
``<!-- /bench:NAME -->``; ``BLOCKS`` says which records each one comes from, and ``PAGES``
which page of ``docs/`` holds it.

One module per bench renders its records (``xgenre.py``, ``compression.py``, ``speed.py``,
``native.py``, ``scripts.py``, ``meta.py``, ``pieces.py``); this one writes them and the
pages, and every public name of those modules is importable from here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from ..records import RESULTS, read_csv, read_json
from ._common import PAGES, ROOT
from .compression import (
    compression_headline,
    compression_html,
    compression_markdown,
    compression_readme,
    compression_svg,
    load_compression,
)
from .meta import meta_markdown
from .native import native_readme
from .pieces import pieces_markdown
from .scripts import scripts_markdown, scripts_speed_markdown, scripts_speed_table, scripts_table
from .speed import speed_markdown, speed_quality, speed_readme
from .xgenre import XGENRE_README, XGENRE_TESTS, XGENRE_TRAINS, xgenre_markdown, xgenre_readme

__all__ = [
    "BLOCKS",
    "PAGES",
    "REPORTS",
    "ROOT",
    "XGENRE_README",
    "XGENRE_TESTS",
    "XGENRE_TRAINS",
    "block",
    "blocks_in",
    "compression_headline",
    "compression_html",
    "compression_markdown",
    "compression_readme",
    "compression_svg",
    "load_compression",
    "meta_markdown",
    "native_readme",
    "pieces_markdown",
    "scripts_markdown",
    "scripts_speed_markdown",
    "scripts_speed_table",
    "scripts_table",
    "speed_markdown",
    "speed_quality",
    "speed_readme",
    "update_page",
    "write_reports",
    "xgenre_markdown",
    "xgenre_readme",
]


def _write(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def _speed_report(results: Path) -> None:
    rec = read_json(results / "speed.json")
    if isinstance(rec, list):  # written before the speed benches were merged: kept as it is
        raise FileNotFoundError("speed.json holds no records of python -m bench speed")
    _write(results / "speed.md", speed_markdown(rec))


def _compression_reports(results: Path, html_too: bool) -> None:
    df, meta = load_compression(results)
    _write(results / "compression.md", compression_markdown(df, meta))
    _write(results / "twr_vs_vocab.svg", compression_svg(df, meta["dev_names"]))
    if html_too:
        _write(results / "compression.html", compression_html(df, meta))


#: Each bench's reports, from the records in a results folder.
REPORTS: dict[str, Callable[[Path], None]] = {
    "xgenre": lambda d: _write(d / "xgenre.md", xgenre_markdown(read_csv(d / "xgenre.csv")) + "\n"),
    "compression": lambda d: _compression_reports(d, html_too=False),
    "speed": lambda d: _speed_report(d),
    "scripts": lambda d: _write(
        d / "scripts_compression.md", scripts_markdown(read_json(d / "scripts_compression.json"))
    ),
    "scripts-speed": lambda d: _write(
        d / "scripts_speed.md", scripts_speed_markdown(read_json(d / "scripts_speed.json"))
    ),
    "meta": lambda d: _write(d / "meta.md", meta_markdown(read_json(d / "meta.json"))),
    "pieces": lambda d: _write(d / "pieces.md", pieces_markdown(read_json(d / "pieces.json"))),
}

#: The documentation's generated blocks, from the records in a results folder.
BLOCKS: dict[str, Callable[[Path], str]] = {
    "scripts": lambda d: scripts_table(read_json(d / "scripts_compression.json")["rows"]),
    "scripts-speed": lambda d: scripts_speed_table(read_json(d / "scripts_speed.json")["rows"]),
    "xgenre": lambda d: xgenre_readme(read_csv(d / "xgenre.csv")),
    "compression": compression_readme,
    "speed": lambda d: speed_readme(read_json(d / "speed.json")),
    "native": lambda d: native_readme(
        read_json(d / "native.json"),
        read_json(d / "native_load.json") if (d / "native_load.json").exists() else None,
    ),
}


def write_reports(results: Path, names: list[str] | None = None, html: bool = False) -> list[str]:
    """Rewrite the reports of `names` (default: every bench with records in `results`);
    return the names written. ``html`` also rewrites the plotly page (its element ids are
    random, so it is left alone unless the compression bench ran)."""
    written = []
    for name, write in REPORTS.items():
        if names is not None and name not in names:
            continue
        try:
            if name == "compression":
                _compression_reports(results, html_too=html)
            else:
                write(results)
        except FileNotFoundError:
            if names is not None:
                raise
            continue
        written.append(name)
    return written


def _block_pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- bench:{re.escape(name)} -->\n)(.*?)(<!-- /bench:{re.escape(name)} -->)", re.S)  # fmt: skip


def block(text: str, name: str) -> str:
    """The generated block `name` of a page's text (without its markers)."""
    found = _block_pattern(name).search(text)
    if found is None:
        raise ValueError(f"the page has no block <!-- bench:{name} -->")
    return found.group(2)


def blocks_in(text: str) -> tuple[str, ...]:
    """The names of the generated blocks a page's text holds, in the order of ``BLOCKS``."""
    return tuple(name for name in BLOCKS if f"<!-- bench:{name} -->" in text)


def update_page(text: str, names: tuple[str, ...], results: Path = RESULTS) -> str:
    """`text` with the generated blocks `names` rendered anew from the records in
    `results`; each of them must be there."""
    for name in names:
        body = BLOCKS[name](results).rstrip("\n") + "\n"
        block(text, name)
        text = _block_pattern(name).sub(lambda m, body=body: m.group(1) + body + m.group(3), text)
    return text

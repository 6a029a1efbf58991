"""Downloads of one vocabulary (shipped or a run): the files someone takes away.

:func:`files` builds them (no Streamlit, so tests can load each one back) and
:func:`show` draws the buttons; the Vocabulary page shows them for the active vocabulary,
the Train page can call :func:`show` for a finished run. Every file name says what it is:
model, script, size and where it came from (``shipped`` or the run id).

* the Hugging Face tokenizer folder as one zip (:mod:`sgpe.interop.hf_folder`: what
  ``AutoTokenizer.from_pretrained`` loads once unzipped, and ``sgpe.load`` reads back);
* ``tokenizer.json`` -- Hugging Face ``tokenizers`` (:mod:`sgpe.interop.hf`, exact ids);
* ``vocab.json`` -- the vocabulary file as it is on disk;
* the merges -- CSV of rank, left, right, merged token and training count;
* the metrics report -- :func:`sgpe.metrics.evaluate` on each ``sample_data`` file, CSV and JSON;
* charts -- the merge curve and the report as PNG/SVG when ``kaleido`` is installed, else
  as self-contained HTML (plotly.js inside, opens offline in any browser).
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pandas as pd

from sgpe import metrics

from . import charts


@dataclass(frozen=True)
class Download:
    """One file, made only when asked for (a click), since some take seconds to make."""

    label: str
    file_name: str
    mime: str
    make: Callable[[], bytes]


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()[:40] or "x"


def stem(tok: Any, source: str) -> str:
    """``sgpe-sinhala-4000-shipped``: model, script, size, and ``shipped`` or the run id."""
    model = getattr(tok, "model", "sgpe")
    script = getattr(tok, "script", "bytes") if model == "sgpe" else "bytes"
    return f"{_slug(model)}-{_slug(str(script))}-{tok.vocab_size}-{_slug(source)}"


def merges_frame(tok: Any, counts: list[int] | None) -> pd.DataFrame:
    """Every learned merge in rank order with its training count (empty when unknown)."""
    if getattr(tok, "model", "") == "sgpe":
        pairs = [(a, b) for a, b in tok.merges]
    else:
        pairs = [(tok.id_to_token(a), tok.id_to_token(b)) for a, b in tok.merges]
    return pd.DataFrame(
        {
            "rank": range(len(pairs)),
            "left": [a for a, _ in pairs],
            "right": [b for _, b in pairs],
            "merged": [a + b for a, b in pairs],
            "count": counts if counts is not None and len(counts) == len(pairs) else None,
        }
    )


def report(tok: Any, texts: dict[str, Path]) -> pd.DataFrame:
    """``sgpe.metrics.evaluate`` of the tokenizer on each text file (one row per file)."""
    rows = [
        {"text": name, **metrics.evaluate(tok, metrics.read_lines(path))}
        for name, path in texts.items()
    ]
    return pd.DataFrame(rows)


def kaleido_available() -> bool:
    from importlib.util import find_spec

    return find_spec("kaleido") is not None


def figure_bytes(fig: Any, fmt: str) -> bytes:
    """A plotly figure as ``png``/``svg`` (needs kaleido) or self-contained ``html``."""
    if fmt == "html":
        return str(fig.to_html(include_plotlyjs=True, full_html=True)).encode("utf-8")
    return bytes(fig.to_image(format=fmt))


def _figure_files(make_fig: Callable[[], Any], name: str, title: str) -> list[Download]:
    formats = [("png", "image/png"), ("svg", "image/svg+xml")] if kaleido_available() else []
    formats.append(("html", "text/html"))
    return [
        Download(
            f"{title} ({fmt.upper()})",
            f"{name}.{fmt}",
            mime,
            lambda fmt=fmt: figure_bytes(make_fig(), fmt),  # type: ignore[misc]
        )
        for fmt, mime in formats
    ]


def folder_zip(files: dict[str, bytes], root: str) -> bytes:
    """A zip of ``files`` inside the folder ``root``, the same bytes for the same files (a
    fixed date, sorted names, mode 0644), so that downloading twice gives one file."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(files):
            info = zipfile.ZipInfo(f"{root}/{name}", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, files[name])
    return out.getvalue()


def _no_hf_export(tok: Any) -> list[str]:
    """The scripts whose grammar keeps an SGPE vocabulary from the HF export (Thai); a
    byte-level baseline has no grammar and always exports."""
    from sgpe.interop.hf_export import deep_lookahead_scripts

    return deep_lookahead_scripts(tok)


def files(
    tok: Any, vocab_path: Path, source: str, counts: list[int] | None, texts: dict[str, Path]
) -> list[Download]:
    """Every download of one vocabulary (see the module docstring), each made on demand."""
    from sgpe.interop.hf import to_hf_str
    from sgpe.interop.hf_folder import hf_folder_files

    base = stem(tok, source)
    table = cache(lambda: report(tok, texts))  # shared by the report files and its chart

    def merges_csv() -> bytes:
        return str(merges_frame(tok, counts).to_csv(index=False)).encode("utf-8")

    def report_json() -> bytes:
        records = table().to_dict("records")
        return json.dumps(records, ensure_ascii=False, indent=1).encode("utf-8")

    hf = [
        Download(
            "tokenizer folder (Hugging Face, zip)",
            f"{base}-hf.zip",
            "application/zip",
            lambda: folder_zip(hf_folder_files(tok), f"{base}-hf"),
        ),
        Download(
            "tokenizer.json (Hugging Face)",
            f"{base}-tokenizer.json",
            "application/json",
            lambda: to_hf_str(tok).encode("utf-8"),
        ),
    ]
    # The export cannot give a Thai vocabulary's ids yet (sgpe/interop/hf_export.py):
    # those buttons are left out, and show() says why.
    out = [] if _no_hf_export(tok) else hf
    out += [
        Download("vocab.json", f"{base}-vocab.json", "application/json", vocab_path.read_bytes),
        Download("merges (CSV)", f"{base}-merges.csv", "text/csv", merges_csv),
        Download(
            "metrics report (CSV)",
            f"{base}-report.csv",
            "text/csv",
            lambda: str(table().to_csv(index=False)).encode("utf-8"),
        ),
        Download("metrics report (JSON)", f"{base}-report.json", "application/json", report_json),
    ]
    if counts is not None and len(counts) == len(tok.merges):
        out += _figure_files(
            lambda: charts.merge_curve(
                range(1, len(counts) + 1), counts, "Training count per merge"
            ),
            f"{base}-merge-curve",
            "merge curve",
        )
    out += _figure_files(
        lambda: charts.corpus_bars(table().assign(tokenizer=table()["text"]), "twr", "sample_data"),
        f"{base}-report-twr",
        "report chart",
    )
    return out


def show(tok: Any, vocab_path: Path, source: str, counts: list[int] | None, key: str) -> None:
    """Download buttons for one vocabulary (a Streamlit component; ``key`` keeps the
    buttons of several vocabularies apart on one page)."""
    import streamlit as st

    from .resources import sample_files

    made = files(tok, vocab_path, source, counts, {p.name: p for p in sample_files()})
    blocked = _no_hf_export(tok)
    if blocked:
        st.caption(
            f"No Hugging Face export for this vocabulary: the {', '.join(blocked)} grammar "
            "decides where a syllable ends up to five characters ahead, and the export's "
            "pre-tokenizer looks two ahead, so it would not give these ids."
        )
    cols = st.columns(3)
    for i, d in enumerate(made):
        cols[i % 3].download_button(
            d.label,
            d.make,
            file_name=d.file_name,
            mime=d.mime,
            key=f"{key}_dl_{i}",
            on_click="ignore",
            width="stretch",
            help=f"{d.file_name} (made when you click)",
        )
    if not kaleido_available():
        st.caption(
            "Charts are self-contained HTML files (they open offline in a browser): PNG and "
            "SVG need the kaleido package, which is not installed here."
        )

"""Plotly figures for the app. Scatter/line traces use ``render_mode="svg"``: plotly
express switches to WebGL above 1000 points, which headless Chromium (``--disable-gpu``)
may not draw."""

from __future__ import annotations

import functools
import html
import textwrap
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

from .style import FONT_STACK

COLOURS = {
    "SGPE": "#2f6f8f",
    "Byte-level BPE": "#d97706",
    "o200k_base": "#7c3aed",
    "cl100k_base": "#059669",
}
_MORE_COLOURS = ("#be185d", "#4b5563", "#0891b2", "#65a30d", "#9333ea", "#b45309")


def colour(name: str, n: int = 0) -> str:
    """The colour of a tokenizer by its column title (others cycle through a palette)."""
    return COLOURS.get(name, _MORE_COLOURS[n % len(_MORE_COLOURS)])


_F = TypeVar("_F", bound=Callable[..., go.Figure])
KEPT_FIGURES = 64  # figures kept per builder (each a few KB of small tables' bars)


def kept(build: _F) -> _F:
    """``build`` with its figures kept for the same arguments (small DataFrames, strings):
    Plotly builds a figure in 50 to 150 ms of Python, and Compare drew the same two for
    every visitor of a classroom and on every rerun (python -m bench app, docs/app.md).
    The figure is shared: ``st.plotly_chart`` only reads it (``to_dict`` copies)."""
    figures: OrderedDict[tuple[Any, ...], go.Figure] = OrderedDict()
    lock = threading.Lock()
    # One figure built at a time: a classroom's visitors open Compare at once, and each
    # built the same figure while none was kept yet.
    building = threading.Lock()

    def key_of(value: Any) -> Any:
        if isinstance(value, pd.DataFrame):  # small tables: their exact text is the key
            return ("frame", value.to_csv(), tuple(map(str, value.dtypes)))
        return value

    @functools.wraps(build)
    def kept_build(*args: Any) -> go.Figure:
        key = tuple(key_of(a) for a in args)
        with lock:
            fig = figures.get(key)
            if fig is not None:
                figures.move_to_end(key)
                return fig
        with building:
            with lock:
                fig = figures.get(key)
            if fig is not None:
                return fig
            fig = build(*args)
            with lock:
                figures[key] = fig
                while len(figures) > KEPT_FIGURES:
                    figures.popitem(last=False)
        return fig

    return kept_build  # type: ignore[return-value]


METRIC_TITLES = {
    "straddling_per_1k": "cuts that tear a syllable per 1k tokens",
    "spelled_per_1k": "syllables spelled from their own parts per 1k tokens",
    "twr": "tokens per word (TWR)",
    "cpt": "characters per token",
    "broken_per_1k": "token boundaries inside syllables per 1k tokens",
    "tokens": "tokens",
}


def _layout(fig: go.Figure, height: int = 320) -> go.Figure:
    fig.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
        font={"family": FONT_STACK},  # a Noto face for each script (sgpe_explorer/ui/style.py)
    )
    _title_clear_of_toolbar(fig)
    return _zero_from_zero(fig)


#: Characters of a title line: a phone's chart (390 px less the page's padding) holds
#: about 40 of the title's 15 px Latin letters beside Plotly's toolbar.
TITLE_LINE_CHARS = 34
TITLE_LINE_PX = 20


def _title_clear_of_toolbar(fig: go.Figure) -> None:
    """Stand Plotly's toolbar (its "modebar", shown on hover or a tap) upright at the
    chart's right edge, and break the title into lines that fit a phone: at 390 px the
    toolbar, lying across the top, covered the titles of Vocabulary's and Compare's
    charts, and Compare's corpus title ran off the chart ("…on sinhala.tx"). Streamlit's
    chart theme places the title itself (a title's own position is not kept), so the
    toolbar moves instead."""
    fig.update_layout(modebar={"orientation": "v"})
    text = fig.layout.title.text
    if not text:
        return
    lines = textwrap.wrap(str(text), TITLE_LINE_CHARS, break_long_words=False) or [str(text)]
    fig.update_layout(
        title={"text": "<br>".join(lines), "font": {"size": 15}},
        margin={"t": TITLE_LINE_PX * len(lines) + 20},
    )


def _zero_from_zero(fig: go.Figure) -> go.Figure:
    """Give a y axis whose bars are all 0 the range 0 to 1: Plotly centres an all-zero
    axis on 0 (-1 to 1), which showed counts below zero ("0 torn syllables" for
    every tokenizer is the rule holding, not a negative figure)."""
    values: dict[str, list[float]] = {}
    for trace in fig.data:
        # Vertical bars only: a horizontal bar chart's y values are its categories.
        if trace.type != "bar" or trace.y is None or trace.orientation == "h":
            continue
        try:
            ys = [float(v) for v in trace.y if v is not None]
        except (TypeError, ValueError):  # categories, not counts
            continue
        values.setdefault("yaxis" + str(trace.yaxis or "y")[1:], []).extend(ys)
    for axis, ys in values.items():
        if ys and all(v == 0 for v in ys):
            fig.update_layout({axis: {"range": [0, 1], "dtick": 1}})
    return fig


#: Below this many, a count axis gets a tick at every whole number; Plotly's own choice
#: for a small range was 0.2 or 0.5 (half a torn syllable).
WHOLE_TICKS_UP_TO = 10


def count_axis(fig: go.Figure, axis: str, values: Sequence[float]) -> go.Figure:
    """Make ``axis`` ("yaxis", "yaxis2", "xaxis"...) of a figure of counts show whole
    numbers only, from 0."""
    top = max((float(v) for v in values), default=0.0)
    settings: dict[str, Any] = {"rangemode": "tozero", "tickformat": ",d"}
    if top <= WHOLE_TICKS_UP_TO:
        settings.update(tick0=0, dtick=1)
    fig.update_layout({axis: settings})
    return fig


def log_ticks(low: float, high: float) -> list[int]:
    """Where a log axis from ``low`` to ``high`` (both > 0) gets labelled ticks.

    Every power of ten over two decades or more; over less, 1, 2 and 5 of each decade,
    so that at least two labels show. Each is written out whole ("20", "1,000"): Plotly's
    own labels named the 2 and 5 of each decade without it ("5, 2, 100, 5, 2, 10").

    >>> log_ticks(1, 5000)
    [1, 10, 100, 1000]
    >>> log_ticks(3, 40)
    [2, 5, 10, 20, 50]
    """
    import math

    low, high = max(low, 1.0), max(high, 1.0)
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    steps = (1,) if math.log10(high / low) >= 2 else (1, 2, 5)
    ticks = [m * 10**e for e in range(first, last + 1) for m in steps]
    inside = [t for t in ticks if low / 1.5 <= t <= high * 1.5]
    return inside or [10**first]


def log_axis(fig: go.Figure, axis: str, values: Sequence[float], title: str) -> go.Figure:
    """A log ``axis`` labelled at :func:`log_ticks`, numbers in full."""
    positive = [float(v) for v in values if float(v) > 0]
    ticks = log_ticks(min(positive), max(positive)) if positive else [1, 10]
    fig.update_layout(
        {
            axis: {
                "type": "log",
                "title": title,
                "tickvals": ticks,
                "ticktext": [f"{t:,}" for t in ticks],
            }
        }
    )
    return fig


@kept
def corpus_bars(table: pd.DataFrame, metric: str, corpus: str) -> go.Figure:
    """One bar per tokenizer for one corpus-level metric."""
    fig = px.bar(
        table,
        x="tokenizer",
        y=metric,
        color="tokenizer",
        color_discrete_map=COLOURS,
        text_auto=".2f" if metric != "tokens" else True,
        title=f"{METRIC_TITLES.get(metric, metric)} on {html.escape(corpus)}",
    )
    fig.update_layout(showlegend=False, yaxis_title=None, xaxis_title=None)
    if metric in COUNT_METRICS:
        count_axis(fig, "yaxis", list(table[metric]))
    return _layout(fig)


#: Metrics that count things (whole numbers); the others are rates or means.
COUNT_METRICS = frozenset({"tokens", "roundtrip_fail", "straddling", "broken", "spelled_units"})


# The rule first (sgpe_explorer/ui/analysis.py: TORN; app_pages/compare.py says why), then the
# cost. Short titles: three subplot titles share a phone's 390 px.
SUMMARY_METRICS = (
    ("torn syllables", "torn<br>syllables", "{:,.0f}"),
    ("syllables spelled from their own parts", "spelled from<br>own parts", "{:,.0f}"),
    ("tokens", "tokens", "{:,.0f}"),
)


@kept
def compare_summary(summary: pd.DataFrame) -> go.Figure:
    """Torn syllables, syllables spelled from their own parts and tokens per tokenizer
    (index), as three small bar charts side by side: fewer is better in each."""
    from plotly.subplots import make_subplots

    names = [str(n) for n in summary.index]
    fig = make_subplots(
        rows=1, cols=len(SUMMARY_METRICS), subplot_titles=[t for _, t, _ in SUMMARY_METRICS]
    )
    bar_colours = [colour(n, i) for i, n in enumerate(names)]
    for col, (column, _title, fmt) in enumerate(SUMMARY_METRICS, start=1):
        values = [float(v) for v in summary[column]]
        fig.add_trace(
            go.Bar(
                x=[html.escape(n) for n in names],
                y=values,
                marker_color=bar_colours,
                text=[fmt.format(v) for v in values],
                textposition="auto",
                showlegend=False,
                name=column,
            ),
            row=1,
            col=col,
        )
        count_axis(fig, "yaxis" if col == 1 else f"yaxis{col}", values)
    fig.update_xaxes(tickangle=-30)
    fig = _layout(fig, 320)
    # Two-line titles, small, above the bars: they fit a third of a phone's width.
    fig.update_annotations(font_size=12)
    fig.update_layout(margin={"l": 10, "r": 10, "t": 56, "b": 10})
    return fig


def evaluate_bars(table: pd.DataFrame, metric: str, title: str) -> go.Figure:
    """One metric per script (x) and vocabulary (colour), grouped bars."""
    names = list(dict.fromkeys(str(n) for n in table["vocabulary"]))
    fig = px.bar(
        table.assign(vocabulary=table["vocabulary"].map(html.escape)),
        x="script",
        y=metric,
        color="vocabulary",
        barmode="group",
        color_discrete_map={html.escape(n): colour(n, i) for i, n in enumerate(names)},
        text_auto=".2f",
        title=title,
    )
    fig.update_layout(yaxis_title=None, xaxis_title=None, legend={"orientation": "h", "y": -0.2})
    if metric in COUNT_METRICS:
        count_axis(fig, "yaxis", list(table[metric]))
        fig.update_traces(texttemplate="%{y:,d}")
    return _layout(fig, 380)


def merge_curve(steps: Sequence[int], counts: Sequence[int], title: str) -> go.Figure:
    """Training count of each merge against its step (log y).

    One trace built with ``graph_objects``: ``plotly.express`` took ten times as long to
    build this line, and the Train page draws it again at each redraw of a training run's
    panel (docs/app.md, section 11, with how it was timed). A ``scatter`` trace is drawn in
    SVG, as the module says."""
    import numpy as np

    fig = go.Figure(
        [
            {  # a dict and NumPy arrays: Plotly checks a list's numbers one by one, twice
                "type": "scatter",
                "x": np.asarray(steps, dtype=np.int64),
                "y": np.asarray(counts, dtype=np.int64),
                "mode": "lines",
                "line": {"color": "#2f6f8f"},
                "hovertemplate": "merge step %{x:,}<br>pair count %{y:,}<extra></extra>",
            }
        ],
        layout={"title": {"text": html.escape(title)}, "xaxis": {"title": "merge step"}},
    )
    log_axis(fig, "yaxis", list(counts), "pair count (log scale)")
    return _layout(fig, 300)


def length_histogram(rows: pd.DataFrame, column: str, title: str) -> go.Figure:
    """Number of tokens per length (integer bins)."""
    data = rows[column].dropna().astype(int).value_counts().sort_index()
    frame = pd.DataFrame({column: data.index, "tokens": data.values})
    fig = px.bar(frame, x=column, y="tokens", title=title)
    fig.update_traces(marker_color="#2f6f8f")
    fig.update_layout(xaxis={"dtick": 1} if len(frame) <= 25 else {})
    count_axis(fig, "yaxis", list(frame["tokens"]))
    return _layout(fig, 300)


def zipf_plot(
    ranks: Sequence[int],
    freqs: Sequence[int],
    tokens: Sequence[str],
    slope: float | None,
    intercept: float | None,
    title: str,
) -> go.Figure:
    """Rank–frequency on log–log axes, with the fitted line."""
    import numpy as np

    # Plotly reads tags such as <a> in hover text: escape the tokens (they come from corpora).
    shown = [html.escape(t) for t in tokens]
    frame = pd.DataFrame({"rank": list(ranks), "frequency": list(freqs), "token": shown})
    fig = px.scatter(
        frame,
        x="rank",
        y="frequency",
        hover_data=["token"],
        log_x=True,
        log_y=True,
        title=title,
        render_mode="svg",
    )
    fig.update_traces(marker={"size": 5, "color": "#2f6f8f", "opacity": 0.7})
    if slope is not None and intercept is not None and len(ranks) >= 2:
        xs = np.array([ranks[0], ranks[-1]], dtype=float)
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=np.exp(intercept) * xs**slope,
                mode="lines",
                name=f"fit: slope {slope:.2f}",
                line={"color": "#c0262d", "dash": "dash"},
            )
        )
    fig.update_layout(legend={"orientation": "h", "y": -0.2})
    log_axis(fig, "xaxis", list(ranks), "rank (log scale)")
    log_axis(fig, "yaxis", list(freqs), "frequency (log scale)")
    return _layout(fig, 360)


def composition_bar(table: pd.DataFrame) -> go.Figure:
    """Tokens per kind (horizontal bars)."""
    fig = px.bar(table, x="tokens", y="kind", orientation="h", text="tokens", title="Composition")
    fig.update_traces(marker_color="#2f6f8f")
    fig.update_layout(
        yaxis={"categoryorder": "array", "categoryarray": list(table["kind"])[::-1]},
        yaxis_title=None,
    )
    count_axis(fig, "xaxis", list(table["tokens"]))
    return _layout(fig, 300)


def thin_ranks(n: int, keep: int = 600) -> list[int]:
    """Indices 0..n-1 thinned to about ``keep`` geometric samples (for big Zipf plots)."""
    if n <= keep:
        return list(range(n))
    import numpy as np

    idx = np.unique(np.geomspace(1, n, keep).astype(int) - 1)
    return [int(i) for i in idx]


def empty(title: str) -> Any:
    fig = go.Figure()
    fig.update_layout(title=title)
    return _layout(fig, 200)


def prepare(table: pd.DataFrame) -> None:
    """Build and serialise, then drop, the kinds of figure the pages draw, for one small
    ``table`` (``tokenizer``, ``tokens``): Plotly imports the code that checks each
    property the first time a figure sets it: about 0.4 CPU-s of a fresh process's first
    Compare run (AppTest, timed by hand, docs/app.md section 11). resources.prepare_server
    calls this before a server's first visitor. Nothing is kept."""
    import plotly.io as pio

    summary = table.set_index("tokenizer")
    for metric, _title, _fmt in SUMMARY_METRICS:
        summary[metric] = summary["tokens"]
    figures = [  # the builders themselves, not their kept figures (kept.__wrapped__)
        corpus_bars.__wrapped__(table, "tokens", "prepare"),  # type: ignore[attr-defined]
        compare_summary.__wrapped__(summary),  # type: ignore[attr-defined]
        merge_curve([1, 2], [2, 1], "prepare"),
    ]
    for fig in figures:
        pio.to_json(fig.to_dict(), validate=False)

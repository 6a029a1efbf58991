"""The in-domain compression bench's report, chart, plotly page and generated docs block
(``compression.csv``, ``compression_meta.json``)."""

from __future__ import annotations

import html
import math
import re
from pathlib import Path
from typing import Any

from ..corpora import LANGS
from ..peers import PEERS
from ..records import read_json
from ._common import ROOT, _in_order, _minutes, _num, _size_label


def load_compression(results: Path) -> tuple[Any, dict[str, Any]]:
    """The rows as a table (names and settings from the registry) and the run's record."""
    import pandas as pd

    df = pd.read_csv(results / "compression.csv")
    df["tokenizer"] = df["key"].map(lambda k: PEERS[k].label)
    df["settings"] = df["key"].map(lambda k: PEERS[k].settings)
    df["threads"] = df["key"].map(lambda k: PEERS[k].threads)
    return df, read_json(results / "compression_meta.json")


def _sizes(df: Any) -> list[int]:
    return sorted(int(s) for s in df["size"].dropna().unique())


def _at(df: Any, eval_name: str, size: int) -> Any:
    """Rows measured on `eval_name` at `size`, and the fixed encodings'."""
    return df[(df["eval"] == eval_name) & ((df["size"] == size) | (df["family"] == "fixed"))]


def _one(sub: Any, key: str) -> Any:
    return sub[sub["key"] == key].iloc[0]


def _cache_note(meta: dict[str, Any]) -> str:
    if not meta.get("cached"):
        return ""
    return (
        f" ({meta['cached']} of {meta['trained']} trained models from the cache; "
        f"about {_minutes(meta['from_scratch_s'])} from scratch)"
    )


def _table(df: Any) -> list[str]:
    head = (
        "| tokenizer | vocab | base | train s | peak MB | TWR | CPT | UNK % | round-trip fail % "
        "| broken / 1k tokens | words with broken % |"
    )
    out = [head, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in df.itertuples():
        if r.family == "fixed":
            train, peak = "pretrained", "—"
        elif r.derived:
            train, peak = f"({_size_label(int(r.trained_size))} run) †", "†"
        else:
            train, peak = _num(r.train_s, ".1f"), _num(r.train_peak_rss_mb, ".0f")
        name = f"**{r.tokenizer}**" if r.family == "sgpe" else r.tokenizer
        out.append(
            f"| {name} | {int(r.vocab_actual):,} | {_num(r.base_vocab, ',.0f')} | {train} | {peak} "
            f"| {r.twr:.3f} | {r.cpt:.3f} | {r.unk_pct:.3f} | {r.roundtrip_fail_pct:.2f} "
            f"| {r.broken_per_1k:.1f} | {r.words_with_broken_pct:.2f} |"
        )
    return out


def _corpus_line(df: Any, eval_name: str) -> str:
    r = df[df["eval"] == eval_name].iloc[0]
    return f"`{eval_name}`: {int(r.lines):,} lines, {int(r.chars):,} characters, {int(r.words):,} whitespace words"


def _sgpe_cut_note() -> str:
    """What SGPE's broken cuts are. The default (hierarchical) mode spells a syllable it has
    not learned whole from its own learned parts; a cut between two such parts is inside
    the syllable but no token reaches across its edge (sgpe.metrics counts those as
    straddling, and tests/test_integrity.py and the xgenre bench find none)."""
    return (
        "each one between two learned parts of a syllable the vocabulary has not learned "
        "whole: no SGPE token reaches across a syllable edge"
    )


def _findings(df: Any, dev: dict[str, str], size: int) -> list[str]:
    """Plain statements computed from the rows: who wins each metric at `size`."""
    out: list[str] = []
    for lang, name_of_file in dev.items():
        sub = _at(df, name_of_file, size)
        if sub.empty:
            continue
        sg = _one(sub, "sgpe-fallback")
        trained = sub[sub["family"] != "fixed"]
        by_twr = trained.sort_values("twr")
        lower = trained[trained["twr"] < sg.twr].sort_values("twr")
        name, at = LANGS.get(lang, lang), _size_label(size)
        if lower.empty:
            out.append(
                f"{name}, {at}: SGPE (fallback) has the lowest TWR of the trained "
                f"tokenizers ({sg.twr:.3f}); next is {by_twr.iloc[1].tokenizer} "
                f"({by_twr.iloc[1].twr:.3f})."
            )
        else:
            beats = ", ".join(
                f"{r.tokenizer} {r.twr:.3f} ({100 * (sg.twr / r.twr - 1):+.1f}% more tokens for SGPE)"
                for r in lower.itertuples()
            )
            out.append(
                f"{name}, {at}: lower TWR than SGPE (fallback, {sg.twr:.3f}): {beats}. "
                f"Best: {by_twr.iloc[0].tokenizer} ({by_twr.iloc[0].twr:.3f})."
            )
        zero = sorted(sub[sub["broken"] == 0]["tokenizer"])
        others = trained[trained["family"] != "sgpe"].sort_values("broken_per_1k").head(2)
        out.append(
            f"{name}, {at}: zero broken boundaries: {', '.join(zero) or 'none'}; "
            f"SGPE (fallback) {sg.broken_per_1k:.1f} per 1k tokens "
            f"({int(sg.broken):,} cuts, {_sgpe_cut_note()}); lowest other trained: "
            + ", ".join(f"{r.tokenizer} {r.broken_per_1k:.1f}" for r in others.itertuples())
            + "."
        )
        for r in sub[(sub["unk"] > 0)].itertuples():
            out.append(
                f"{name}, {at}: {r.tokenizer} loses text: UNK {r.unk_pct:.3f}% of tokens, "
                f"{int(r.roundtrip_fail)} of {int(r.lines):,} lines do not round-trip."
            )
        for r in sub[sub["vocab_actual"] < 0.99 * size].itertuples():
            if r.family != "fixed":
                reason = PEERS[r.key].stop_reason or "its trainer ran out of candidates"
                out.append(
                    f"{name}: {r.tokenizer} stopped at {int(r.vocab_actual):,} of {size:,} "
                    f"tokens: {reason}."
                )
    return out


def compression_headline(df: Any, dev: dict[str, str], size: int) -> list[str]:
    """One row per tokenizer: TWR, CPT, broken/1k and lossless per language at `size`."""
    langs = list(dev)
    head = " | ".join(
        f"{LANGS.get(lang, lang)} TWR | CPT | broken / 1k | round-trip fail %" for lang in langs
    )
    out = [f"| tokenizer | {head} |", "|---|" + "---:|---:|---:|---:|" * len(langs)]
    fixed_size = {"o200k_base": " (fixed, 200k)", "cl100k_base": " (fixed, 100k)"}
    for key in _in_order(df["key"]):
        cells = []
        for lang in langs:
            sub = df[(df["eval"] == dev[lang]) & (df["key"] == key)]
            if PEERS[key].family != "fixed":
                sub = sub[sub["size"] == size]
            if sub.empty:
                cells.append("— | — | — | —")
                continue
            r = sub.iloc[0]
            stopped = r.family != "fixed" and r.vocab_actual < 0.99 * size
            note = f" (stopped at {int(r.vocab_actual):,})" if stopped else ""
            cells.append(
                f"{r.twr:.3f}{note} | {r.cpt:.2f} | {r.broken_per_1k:.1f} | {r.roundtrip_fail_pct:.2f}"
            )
        name = PEERS[key].label + fixed_size.get(key, "")
        name = f"**{name}**" if PEERS[key].family == "sgpe" else name
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    return out


def compression_markdown(df: Any, meta: dict[str, Any]) -> str:
    dev, extra = meta["dev_names"], meta["extra_names"]
    sizes = _sizes(df)
    largest = max(sizes)
    lines = [
        "# Compression and integrity: SGPE against the tokenizers people use",
        "",
        f"Generated by `{meta['command']}` in {_minutes(meta['wall_s'])}{_cache_note(meta)} on {meta['machine']} "
        f"({meta['date']}). Versions: {meta['versions']}.",
        "",
        "Every tokenizer below (except the fixed tiktoken encodings) was trained by this run on "
        + " and ".join(f"`{v}`" for v in meta["train_names"].values())
        + ", each in its own process; *train s* and *peak MB* are that process's training time "
        "and its peak resident memory (`ru_maxrss`, interpreter and imports included, about "
        f"{meta['base_rss']:.0f} MB). Training times are single runs on a shared 2-core machine: "
        "compare orders of magnitude, and use `python -m bench speed` for speed (the CSV also "
        "has an `encode_mchars_per_s` column, measured with two evaluations side by side "
        "through each tokenizer's span-reporting call: indicative only). *base* = ids no merge "
        "produced: SGPE's syllables seen at least twice (+ 256 byte tokens and the schemas' "
        "code points with the fallback policy), 256 bytes for byte-level BPE, the character "
        "alphabet and specials for HF BPE; — where the library does not expose it.",
        "",
        "Metrics (`sgpe/metrics.py`): each line is encoded on its own; "
        "**TWR** = tokens / whitespace words; **CPT** = characters / token; **UNK %** = UNK ids / "
        "tokens; **round-trip fail %** = lines where `decode(encode(line)) != line`; **broken / 1k "
        "tokens** = token boundaries strictly inside a syllable (or inside a character) per 1,000 "
        "tokens; **words with broken %** = share of words containing such a boundary.",
        "",
        "† our byte-level BPE is trained once at the largest size; a smaller vocabulary is the "
        "prefix of its merges (exactly what training at that size gives: the trainer is greedy and "
        "deterministic, checked in `tests/test_integrity.py`), so its time and memory are the "
        "largest run's.",
        "",
        "## Headline: vocabulary " + _size_label(largest),
        "",
        *compression_headline(df, dev, largest),
        "",
        "## Findings (computed from the rows)",
        "",
        *[f"- {f}" for f in _findings(df, dev, largest)],
        "",
        *[f"- {f}" for f in _findings(df, dev, min(sizes)) if "TWR" in f],
        "",
        "Why: SGPE spends part of every vocabulary on its base symbols (each syllable seen at "
        "least twice, plus, with the fallback policy, 256 byte tokens and the schemas' code "
        "points), and it can only merge whole syllables. Character-level BPE and Unigram may "
        "also learn sub-syllable pieces (a consonant without its vowel sign, a virama on its own) "
        "that let them share suffixes across syllables: that is where they can win on TWR, and "
        "it is exactly what the broken-boundary columns count. SGPE's broken boundaries, with "
        "the fallback policy, come from syllables that are not in its vocabulary and are "
        "spelled with code-point or byte tokens (the run checks every cut: column "
        "`broken_in_vocab_units`); with the [UNK] policy there are none, but the "
        "text is lost (UNK %, round-trip failures). Byte-level tokenizers never lose text but "
        "cut inside characters.",
        "",
    ]
    for lang, name in dev.items():
        lines += [f"## {LANGS.get(lang, lang)}: `{name}`", "", _corpus_line(df, name), ""]
        for size in sizes:
            title = f"### {LANGS.get(lang, lang)}, vocabulary {_size_label(size)}"
            lines += [title, "", *_table(_at(df, name, size)), ""]
    for name in extra:
        lines += [
            f"## Extra text: `{name}` (vocabulary {_size_label(largest)})",
            "",
            _corpus_line(df, name),
            "",
        ]
        for lang in [*meta["train_names"], "-"]:
            sub = df[(df["eval"] == name) & (df["lang"] == lang)]
            if sub.empty:
                continue
            title = (
                f"models trained on `{meta['train_names'][lang]}`"
                if lang != "-"
                else "fixed encodings"
            )
            lines += [f"### {title}", "", *_table(sub), ""]
    lines += [
        "## Settings",
        "",
        "| tokenizer | settings | threads |",
        "|---|---|---|",
        *[
            f"| {p.label} | `{p.settings}` | {p.threads} |"
            for p in (PEERS[k] for k in _in_order(df["key"]))
        ],
        "",
        "All rows: `bench/results/compression.csv` (and `.parquet`). Charts: "
        "`bench/results/compression.html`.",
        "",
    ]
    return "\n".join(lines)


def _pct_fewer(a: float, b: float) -> str:
    """How many fewer tokens `a` needs than `b`, as a percentage of `b`."""
    return f"{100 * (1 - a / b):.0f}%"


def _summary(df: Any, dev: dict[str, str]) -> list[str]:
    """A few sentences for docs/results.md, with the numbers of this run (wins and losses)."""
    sizes = _sizes(df)
    largest, smallest = max(sizes), min(sizes)
    at_largest = {lang: _at(df, dev[lang], largest) for lang in dev}
    names = {lang: LANGS.get(lang, lang) for lang in dev}

    out: list[str] = []
    parts = []
    for lang, sub in at_largest.items():
        sg = _one(sub, "sgpe-fallback")
        peers = sub[sub["family"].isin(["peer", "ours"])].sort_values("twr")
        best = peers.iloc[0]
        if best.twr < sg.twr:
            lead = (
                f"{best.tokenizer} is the most compact peer (TWR {best.twr:.3f}); SGPE needs "
                f"{100 * (sg.twr / best.twr - 1):.1f}% more tokens ({sg.twr:.3f})"
            )
        else:
            lead = (
                f"SGPE is the most compact (TWR {sg.twr:.3f}; next {best.tokenizer} {best.twr:.3f})"
            )
        beaten = [r for r in peers.itertuples() if r.twr > sg.twr and r.key != "hf-bytelevel-gpt2"]
        fewer = [f"{r.tokenizer} (−{_pct_fewer(sg.twr, r.twr)})" for r in beaten[:3]]
        o200k = _one(sub, "o200k_base")
        fewer.append(f"tiktoken o200k_base (−{_pct_fewer(sg.twr, o200k.twr)})")
        listed = ", ".join(fewer[:-1]) + (" and " if len(fewer) > 1 else "") + fewer[-1]
        parts.append(f"**{names[lang]}**: {lead}, and fewer than {listed}.")
    out.append(f"Compression at {_size_label(largest)}: " + " ".join(parts))

    sg_b = [_one(sub, "sgpe-fallback").broken_per_1k for sub in at_largest.values()]
    peer_b = [
        r.broken_per_1k
        for sub in at_largest.values()
        for r in sub.itertuples()
        if r.family in ("peer", "ours") and r.key != "hf-bytelevel-gpt2"
    ]
    o_b = [_one(sub, "o200k_base").broken_per_1k for sub in at_largest.values()]
    out.append(
        "Integrity: SGPE (fallback) puts "
        + " / ".join(f"{b:.1f}" for b in sg_b)
        + " token boundaries per 1,000 tokens inside a syllable ("
        + " / ".join(names.values())
        + f"), {_sgpe_cut_note()}; the trained peers put "
        f"{min(peer_b):.0f}–{max(peer_b):.0f}, o200k_base "
        + " / ".join(f"{b:.0f}" for b in o_b)
        + "."
    )
    unk = [_one(sub, "sgpe-unk") for sub in at_largest.values()]
    out.append(
        'With `oov_policy="unk"` (the paper\'s choice) a character outside the vocabulary '
        "becomes `[UNK]` and the text is lost: "
        + " / ".join(f"{r.roundtrip_fail_pct:.1f}%" for r in unk)
        + " of dev lines do not decode back (UNK "
        + " / ".join(f"{r.unk_pct:.2f}%" for r in unk)
        + " of tokens); the fallback policy is lossless."
    )
    small = []
    for lang in dev:
        sub = _at(df, dev[lang], smallest)
        sg = _one(sub, "sgpe-fallback")
        best = sub[sub["family"] != "fixed"].sort_values("twr").iloc[0]
        if best.key != "sgpe-fallback":
            text = f"{names[lang]} TWR {sg.twr:.3f} vs {best.tokenizer} {best.twr:.3f}"
            if not math.isnan(sg.base_vocab):
                text += f", base vocabulary {int(sg.base_vocab):,} of {smallest:,} ids"
            small.append(text)
    if small:
        out.append(
            f"At {_size_label(smallest)} ("
            + "; ".join(small)
            + "). The lossless base (all of ASCII and 115 byte tokens) takes ids that plain BPE "
            "spends on merges, and SGPE never learns a stem that ends inside a syllable; on "
            "text of another genre see `bench/results/xgenre.md`."
        )
    return out


def _battery_line() -> list[str]:
    """The integrity battery's pinned counts, read from tests/test_integrity.py."""
    try:
        text = (ROOT / "tests" / "test_integrity.py").read_text(encoding="utf-8")
    except OSError:
        return []
    found = dict(re.findall(r"^(SI_TOTAL|HI_TOTAL) = ([\d_]+)$", text, re.M))
    if len(found) != 2:
        return []
    si, hi = (int(found[k].replace("_", "")) for k in ("SI_TOTAL", "HI_TOTAL"))
    return [
        f"- Structural integrity is a test, not only a report: `tests/test_integrity.py` checks "
        f"that each of {si:,} Sinhala and {hi:,} Devanagari consonant/conjunct/vowel-sign/"
        "modifier combinations (every consonant of the schema in every family; two- and "
        "three-consonant stacks with and without ZWJ/ZWNJ and nukta) is exactly one syllable, "
        "and that no token of the SGPE vocabularies it trains crosses a syllable edge (paper "
        "mode: every token is whole syllables; hierarchical mode: part of one syllable or "
        "whole syllables)."
    ]


def compression_readme(results: Path) -> str:
    """The in-domain section of docs/results.md: the headline table, the chart, the findings."""
    df, meta = load_compression(results)
    dev = meta["dev_names"]
    largest = max(_sizes(df))
    try:
        speed_meta = read_json(results / "speed.json")["meta"]
        speed = f"; `python -m bench speed` about {_minutes(speed_meta['wall_s'])}"
    except (OSError, KeyError, TypeError):
        speed = ""
    scratch = meta.get("from_scratch_s", meta["wall_s"])
    lines = [
        f"SGPE against the tokenizers people use, all trained on the same corpora "
        f"({' and '.join(f'`{v}`' for v in meta['train_names'].values())}) at the same vocabulary "
        f"size ({_size_label(largest)}), evaluated on held-out dev text (each line on its own). "
        "TWR = tokens per whitespace word (lower is better), CPT = characters per token, "
        "broken / 1k = token boundaries inside a syllable or a character per 1,000 tokens, "
        "round-trip fail = lines that do not decode back to themselves.",
        "",
        *compression_headline(df, dev, largest),
        "",
        "![TWR vs vocabulary size](../bench/results/twr_vs_vocab.svg)",
        "",
        *[f"- {f}" for f in _summary(df, dev)],
        *_battery_line(),
        "",
        "Every size (4k to 32k), UNK rates, training time and memory, and the mixed-script file: "
        "[`bench/results/compression.md`](../bench/results/compression.md); interactive charts: "
        "`bench/results/compression.html`; every row: `bench/results/compression.csv`. "
        f"Regenerate (about {_minutes(scratch)} from scratch on 2 cores{speed}, "
        "given `../shared/corpora`):",
        "",
        "```bash",
        "pip install -e '.[bench,app]'",
        "python -m bench compression",
        "python -m bench speed",
        "```",
    ]
    return "\n".join(lines)


# ---------------------------------------------------------------------------- charts


# Chart lines: the trained peers (the GPT-2-regex row and the fixed encodings are far off
# this scale; the tables have them).
def _chart_keys(df: Any) -> list[str]:
    keys = _in_order(df["key"])
    return [k for k in keys if PEERS[k].family != "fixed" and k != "hf-bytelevel-gpt2"]


def compression_svg(df: Any, dev: dict[str, str]) -> str:
    """A dependency-free SVG line chart of TWR vs vocabulary size (trained tokenizers)."""
    langs = list(dev)
    sizes = _sizes(df)
    keys = _chart_keys(df)
    pw, ph, ml, mt, mb, gap = 380, 300, 56, 40, 44, 40
    legend_w = 240
    width = ml + len(langs) * (pw + gap) + legend_w
    height = mt + ph + mb
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
    ]
    xs = [math.log(s) for s in sizes]
    for c, lang in enumerate(langs):
        x0 = ml + c * (pw + gap)
        sub = df[(df["eval"] == dev[lang]) & df["key"].isin(keys)]
        lo, hi = float(sub["twr"].min()), float(sub["twr"].max())
        pad = (hi - lo) * 0.08 or 0.05
        lo, hi = lo - pad, hi + pad

        def px(s: float, x0: float = x0) -> float:
            return x0 + (math.log(s) - xs[0]) / ((xs[-1] - xs[0]) or 1) * pw

        def py(v: float, lo: float = lo, hi: float = hi) -> float:
            return mt + (hi - v) / (hi - lo) * ph

        parts.append(
            f'<text x="{x0 + pw / 2}" y="{mt - 14}" text-anchor="middle" font-weight="bold">{LANGS.get(lang, lang)} ({dev[lang]}): tokens per word</text>'
        )
        parts.append(
            f'<rect x="{x0}" y="{mt}" width="{pw}" height="{ph}" fill="none" stroke="#999"/>'
        )
        step = 0.1 if hi - lo > 0.3 else 0.05
        v = math.ceil(lo / step) * step
        while v <= hi:
            parts.append(
                f'<line x1="{x0}" x2="{x0 + pw}" y1="{py(v):.1f}" y2="{py(v):.1f}" stroke="#eee"/>'
            )
            parts.append(f'<text x="{x0 - 6}" y="{py(v) + 4:.1f}" text-anchor="end">{v:.2f}</text>')
            v += step
        for s in sizes:
            parts.append(
                f'<text x="{px(s):.1f}" y="{mt + ph + 18}" text-anchor="middle">{_size_label(s)}</text>'
            )
        parts.append(
            f'<text x="{x0 + pw / 2}" y="{mt + ph + 36}" text-anchor="middle">vocabulary size</text>'
        )
        for key in keys:
            rows = sub[sub["key"] == key].sort_values("size")
            if rows.empty:
                continue
            color = PEERS[key].color
            pts = " ".join(f"{px(r.size):.1f},{py(r.twr):.1f}" for r in rows.itertuples())
            w = 3.5 if PEERS[key].family == "sgpe" else 2
            parts.append(
                f'<polyline points="{pts}" fill="none" stroke="{color}" stroke-width="{w}"'
                + (' stroke-dasharray="6 4"' if key == "bytebpe" else "")
                + "/>"
            )
            for r in rows.itertuples():
                parts.append(
                    f'<circle cx="{px(r.size):.1f}" cy="{py(r.twr):.1f}" r="3" fill="{color}"/>'
                )
    lx = ml + len(langs) * (pw + gap)
    for i, key in enumerate(keys):
        y = mt + 10 + i * 20
        parts.append(
            f'<line x1="{lx}" x2="{lx + 24}" y1="{y}" y2="{y}" stroke="{PEERS[key].color}" stroke-width="3"/>'
        )
        parts.append(f'<text x="{lx + 30}" y="{y + 4}">{html.escape(PEERS[key].label)}</text>')
    parts.append(
        f'<text x="{lx}" y="{mt + 10 + len(keys) * 20 + 10}" fill="#555">lower is better;</text>'
    )
    parts.append(
        f'<text x="{lx}" y="{mt + 10 + len(keys) * 20 + 26}" fill="#555">GPT-2 regex, o200k_base, cl100k_base: see table</text>'
    )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def compression_html(df: Any, meta: dict[str, Any]) -> str:
    """Interactive plotly charts (plotly.js from its CDN)."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    dev = meta["dev_names"]
    langs = list(dev)
    sizes = _sizes(df)
    largest = max(sizes)
    at_largest = {}
    for lang in langs:
        sub = _at(df, dev[lang], largest)
        at_largest[lang] = sub.assign(order=sub["key"].map(list(PEERS).index)).sort_values("order")

    def subplots(titles: list[str]) -> Any:
        return make_subplots(rows=1, cols=len(langs), subplot_titles=titles)

    figs = []
    fig = subplots([f"{LANGS.get(lang, lang)}: {dev[lang]}" for lang in langs])
    for c, lang in enumerate(langs, start=1):
        sub = df[df["eval"] == dev[lang]]
        for key in _chart_keys(df):
            rows = sub[sub["key"] == key].sort_values("size")
            if rows.empty:
                continue
            fig.add_trace(
                go.Scatter(
                    x=rows["size"], y=rows["twr"], mode="lines+markers", name=PEERS[key].label,
                    legendgroup=key, showlegend=c == 1,
                    line={"width": 4 if PEERS[key].family == "sgpe" else 2, "color": PEERS[key].color,
                          "dash": "dot" if key == "bytebpe" else "solid"},
                ),
                row=1, col=c,
            )  # fmt: skip
        fig.update_xaxes(
            type="log", tickvals=sizes, ticktext=[_size_label(s) for s in sizes],
            title="vocabulary size", row=1, col=c,
        )  # fmt: skip
        fig.update_yaxes(title="tokens per word (TWR)", row=1, col=c)
    fig.update_layout(
        title="Tokens per whitespace word vs vocabulary size, trained tokenizers (lower is better)",
        height=560,
    )
    figs.append(fig)

    # TWR at the largest size, every tokenizer (log scale: the token tax of fixed ones).
    titles = [f"{LANGS.get(lang, lang)}, vocabulary {_size_label(largest)}" for lang in langs]
    fig = subplots(titles)
    for c, sub in enumerate(at_largest.values(), start=1):
        fig.add_trace(
            go.Bar(x=sub["tokenizer"], y=sub["twr"], text=[f"{v:.2f}" for v in sub["twr"]],
                   marker_color=[PEERS[k].color for k in sub["key"]], showlegend=False),
            row=1, col=c,
        )  # fmt: skip
        fig.update_yaxes(type="log", title="tokens per word (TWR), log scale", row=1, col=c)
    fig.update_layout(
        title="Tokens per whitespace word, all tokenizers (lower is better)", height=560
    )
    figs.append(fig)

    fig = subplots(titles)
    for c, sub in enumerate(at_largest.values(), start=1):
        fig.add_trace(go.Bar(x=sub["tokenizer"], y=sub["broken_per_1k"], name="broken / 1k tokens", marker_color="#d62728",
                             showlegend=c == 1, text=[f"{v:.1f}" for v in sub["broken_per_1k"]]), row=1, col=c)  # fmt: skip
        fig.add_trace(go.Bar(x=sub["tokenizer"], y=sub["words_with_broken_pct"], name="words with a broken boundary, %",
                             marker_color="#ff7f0e", showlegend=c == 1,
                             text=[f"{v:.1f}" for v in sub["words_with_broken_pct"]]), row=1, col=c)  # fmt: skip
    fig.update_layout(title="Boundaries inside a syllable or a character (lower is better; SGPE cuts only inside out-of-vocabulary syllables)",
                      barmode="group", height=620)  # fmt: skip
    figs.append(fig)

    body = "\n".join(
        f.to_html(full_html=False, include_plotlyjs="cdn" if i == 0 else False)
        for i, f in enumerate(figs)
    )
    return (
        "<!doctype html><html><head><meta charset='utf-8'><title>SGPE compression benchmark</title></head>"
        "<body style='font-family: sans-serif; max-width: 1400px; margin: auto'>"
        "<h1>SGPE compression benchmark</h1>"
        f"<p>{html.escape(meta['command'])} &middot; {html.escape(meta['date'])} &middot; "
        "tables in <code>compression.md</code>, rows in <code>compression.csv</code>. "
        "Plotly is loaded from its CDN.</p>"
        f"{body}</body></html>"
    )

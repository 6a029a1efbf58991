"""Issue 6: SGPE against the tokenizers people use, trained on the same text, same sizes.

    python bench/compression.py                  # full run, writes bench/results/compression.*
    python bench/compression.py --quick          # small subset (head of each file), temp dir
    python bench/compression.py --text FILE ...  # also evaluate these text files

Trains on ``../shared/corpora/{si,hi}_train.txt`` at vocabulary sizes 4k, 8k, 16k and 32k
(``bench/_peers.py`` has every setting): SGPE with each OOV policy, our byte-level BPE,
Hugging Face ``tokenizers`` BPE with ``Metaspace`` and byte-level BPE with the o200k split
regex, HF byte-level with its default GPT-2 regex (at the largest size only: it cannot get
there on these scripts), SentencePiece BPE and Unigram; plus the fixed tiktoken
``o200k_base`` and ``cl100k_base``. Each training runs in its own process (its own time and
peak memory) and is cached in a temp dir keyed by corpus and code, so a re-run only
evaluates. Our byte-level BPE is trained once at the largest size; smaller sizes are its
merge prefixes (exact for a greedy deterministic trainer; tests/test_integrity.py checks).

Evaluates every model on its language's dev file, and the largest models on
``mixed_dev.txt`` and any ``--text`` file, with ``sgpe.metrics.evaluate`` (definitions
there and in ``shared/ANCHORS.md``). Writes ``compression.md`` (tables),
``compression.html`` (plotly charts), ``twr_vs_vocab.svg`` (the README chart),
``compression.csv`` and ``compression.parquet`` (every row) and ``README_section.md``.
Outputs hold numbers only, never corpus text.
"""

from __future__ import annotations

import argparse
import hashlib
import html
import json
import math
import os
import platform
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _peers
from _peers import FIXED, PEERS, ROOT, TRAINED

RESULTS = ROOT / "bench" / "results"
SIZES = (4000, 8000, 16000, 32000)
QUICK_SIZES = (4000, 8000)
QUICK_TRAIN_LINES = 4000
QUICK_EVAL_LINES = 400
LANGS = {"si": "Sinhala", "hi": "Hindi"}
ORDER = [
    "sgpe-fallback", "sgpe-unk", "hf-metaspace", "spm-bpe", "spm-unigram",
    "hf-bytelevel-o200k", "bytebpe", "hf-bytelevel-gpt2", "o200k_base", "cl100k_base",
]  # fmt: skip
COLORS = {
    "sgpe-fallback": "#d62728", "sgpe-unk": "#ff9896", "hf-metaspace": "#1f77b4",
    "spm-bpe": "#2ca02c", "spm-unigram": "#98df8a", "hf-bytelevel-o200k": "#9467bd",
    "bytebpe": "#c5b0d5", "hf-bytelevel-gpt2": "#7f7f7f", "o200k_base": "#8c564b",
    "cl100k_base": "#c49c94",
}  # fmt: skip
CHART_KEYS = [k for k in ORDER if PEERS[k].family != "fixed" and k != "hf-bytelevel-gpt2"]
STOP_REASONS = {
    "sgpe-fallback": "no pair of tokens occurs twice more (min_freq=2)",
    "sgpe-unk": "no pair of tokens occurs twice more (min_freq=2)",
    "hf-bytelevel-gpt2": "every pre-token is already a single token (the GPT-2 regex cuts "
    "words at every vowel sign and virama)",
    "spm-unigram": "the Unigram trainer found no more candidate pieces (hard_vocab_limit=False)",
}
METRICS = [
    "lines", "chars", "words", "tokens", "twr", "cpt", "unk", "unk_pct", "roundtrip_fail",
    "roundtrip_fail_pct", "broken", "broken_per_1k", "words_with_broken",
    "words_with_broken_pct", "encode_seconds", "inexact_lines",
]  # fmt: skip


# ============================================================================
# Training
# ============================================================================


def _head_file(src: Path, n: int, dest_dir: Path) -> Path:
    """The first `n` lines of `src`, written to the cache (never into the repository)."""
    dest = dest_dir / f"{src.stem}.head{n}{src.suffix}"
    if not dest.exists():
        with open(src, encoding="utf-8", newline="") as f, open(dest, "w", encoding="utf-8") as g:
            for k, line in enumerate(f):
                if k >= n:
                    break
                g.write(line)
    return dest


def train_all(
    train_files: dict[str, Path], sizes: tuple[int, ...], cache: Path, use_cache: bool, log
) -> list[dict[str, Any]]:
    """Train (or take from the cache) every model; return one record per (lang, key, size)."""
    largest = max(sizes)
    models: list[dict[str, Any]] = []
    for lang, corpus in train_files.items():
        corpus_sha = _peers.file_sha256(corpus)[:12]
        for key in TRAINED:
            peer = PEERS[key]
            fp = _peers.code_fingerprint(key)
            todo = [largest] if (peer.largest_only or peer.prefix_derived) else list(sizes)
            for size in todo:
                path = cache / f"{lang}-{key}-{size}-{corpus_sha}-{fp}{peer.suffix}"
                stats_path = path.with_name(path.name + ".stats.json")
                if use_cache and path.exists() and stats_path.exists():
                    stats = {**json.loads(stats_path.read_text()), "cached": True}
                    log(f"  cached   {lang} {key:20s} {size:>6}")
                else:
                    t0 = time.perf_counter()
                    stats = _peers.run_training(key, corpus, size, path)
                    stats["train_wall_s"] = time.perf_counter() - t0  # with process start-up
                    stats_path.write_text(json.dumps(stats))
                    stats["cached"] = False
                    log(
                        f"  trained  {lang} {key:20s} {size:>6}  {stats['train_s']:6.1f} s train,"
                        f" {stats['train_peak_rss_mb']:5.0f} MB peak, vocab {stats['vocab_actual']:,}"
                        f"  ({time.perf_counter() - t0:.1f} s with start-up)"
                    )
                models.append(
                    {"lang": lang, "key": key, "size": size, "path": str(path),
                     "trained_size": size, "derived": False, **stats}
                )  # fmt: skip
            if peer.prefix_derived:
                big = models[-1]
                for size in sorted(s for s in sizes if s < largest):
                    path = (
                        cache / f"{lang}-{key}-{size}-from{largest}-{corpus_sha}-{fp}{peer.suffix}"
                    )
                    actual = _peers.derive_bytebpe(Path(big["path"]), size, path)
                    models.append(
                        {**big, "size": size, "path": str(path), "derived": True,
                         "vocab_actual": actual}
                    )  # fmt: skip
    return models


# ============================================================================
# Evaluation (worker processes)
# ============================================================================


@lru_cache(maxsize=8)
def _load(key: str, path: str | None) -> Any:
    return _peers.load(key, Path(path) if path else None)


def evaluate_task(task: dict[str, Any]) -> dict[str, Any]:
    from sgpe.metrics import evaluate, read_lines

    tok = _load(task["key"], task.get("path"))
    lines = list(read_lines(task["eval_path"]))
    if task.get("limit"):
        lines = lines[: task["limit"]]
    metrics = evaluate(tok, lines)
    row = {k: v for k, v in task.items() if k not in ("path", "eval_path", "limit")}
    row.update({k: metrics[k] for k in METRICS})
    secs = metrics["encode_seconds"]
    row["encode_mchars_per_s"] = metrics["chars"] / secs / 1e6 if secs else 0.0
    if task["key"] in FIXED:
        row["vocab_actual"] = tok.n_vocab
    row["base_vocab"] = _base_vocab(task["key"], tok)
    row["broken_in_vocab_units"] = (
        _broken_in_vocab_units(tok, lines) if task["key"].startswith("sgpe") else None
    )
    return row


def _broken_in_vocab_units(tok: Any, lines: list[str]) -> int:
    """SGPE only: broken cuts that fall inside a unit the vocabulary has (bare or with its
    leading space). Should be 0: SGPE cuts only inside out-of-vocabulary syllables, which
    the fallback policy spells with code-point or byte tokens."""
    from bisect import bisect_right
    from itertools import accumulate

    from sgpe import syllabify
    from sgpe.metrics import adapter_for, broken_boundaries

    adapter = adapter_for(tok)
    count = 0
    for line in lines:
        result = broken_boundaries(line, adapter(line).spans)
        if not result.broken:
            continue
        units = syllabify(line)
        starts = [0, *accumulate(len(u.encode("utf-8")) for u in units)]
        for p in result.positions:
            unit = units[bisect_right(starts, p) - 1]
            count += unit in tok.vocab or " " + unit in tok.vocab
    return count


def _base_vocab(key: str, tok: Any) -> int | None:
    """Ids that are not the result of a merge: what a vocabulary spends before learning."""
    if key.startswith("sgpe"):
        results = {a + b for a, b in tok.merges}
        return sum(1 for t in tok.vocab if t not in results)
    if key == "bytebpe":
        return 256
    if key.startswith("hf-"):
        return int(tok.get_vocab_size() - len(json.loads(tok.to_str())["model"]["merges"]))
    return None


def build_tasks(
    models: list[dict[str, Any]], dev: dict[str, Path], extra: list[Path], limit: int | None
) -> list[dict[str, Any]]:
    largest = max(m["size"] for m in models)
    tasks: list[dict[str, Any]] = []
    for m in models:
        evals = [dev[m["lang"]]] + (extra if m["size"] == largest else [])
        for path in evals:
            tasks.append({**m, "eval": path.name, "eval_path": str(path), "limit": limit})
    for key in FIXED:
        for lang, path in dev.items():
            tasks.append({"lang": lang, "key": key, "eval": path.name, "eval_path": str(path), "limit": limit})  # fmt: skip
        for path in extra:
            tasks.append({"lang": "-", "key": key, "eval": path.name, "eval_path": str(path), "limit": limit})  # fmt: skip
    # Largest first, so the two workers finish together.
    tasks.sort(key=lambda t: -(t.get("size") or 10**6))
    return tasks


def finish_rows(rows: list[dict[str, Any]], train_names: dict[str, str]) -> Any:
    import pandas as pd

    for r in rows:
        peer = PEERS[r["key"]]
        r["tokenizer"] = peer.label
        r["family"] = peer.family
        r["threads"] = peer.threads
        r["settings"] = peer.settings
        r["train_corpus"] = (
            train_names.get(r["lang"], "pretrained") if peer.family != "fixed" else "pretrained"
        )
        r.setdefault("size", None)
    df = pd.DataFrame(rows)
    df["order"] = df["key"].map(ORDER.index)
    df = df.sort_values(["eval", "lang", "size", "order"], na_position="last", kind="stable")
    cols = [
        "lang", "eval", "key", "tokenizer", "family", "size", "vocab_actual", "derived",
        "base_vocab", "broken_in_vocab_units", "trained_size", "train_s", "train_peak_rss_mb", "train_base_rss_mb", *METRICS,
        "encode_mchars_per_s", "threads", "train_corpus", "settings",
    ]  # fmt: skip
    df = df[cols].reset_index(drop=True)
    return df


# ============================================================================
# Reports
# ============================================================================


def _num(x: Any, fmt: str) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    return format(x, fmt)


def _cache_note(meta: dict[str, Any]) -> str:
    if not meta.get("cached"):
        return ""
    return (
        f" ({meta['cached']} of {meta['trained']} trained models from the cache; "
        f"about {_minutes(meta['from_scratch_s'])} from scratch)"
    )


def _minutes(seconds: float) -> str:
    return "a few minutes" if math.isnan(seconds) else f"{seconds / 60:.1f} min"


def _size_label(n: int) -> str:
    return f"{n // 1000}k" if n % 1000 == 0 else f"{n:,}"


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
        base = _num(r.base_vocab, ",.0f")
        out.append(
            f"| {name} | {int(r.vocab_actual):,} | {base} | {train} | {peak} | {r.twr:.3f} "
            f"| {r.cpt:.3f} | {r.unk_pct:.3f} | {r.roundtrip_fail_pct:.2f} | {r.broken_per_1k:.1f} "
            f"| {r.words_with_broken_pct:.2f} |"
        )
    return out


def _corpus_line(df: Any, eval_name: str) -> str:
    r = df[df["eval"] == eval_name].iloc[0]
    return f"`{eval_name}`: {int(r.lines):,} lines, {int(r.chars):,} characters, {int(r.words):,} whitespace words"


def findings(df: Any, dev: dict[str, Path], size: int) -> list[str]:
    """Plain statements computed from the rows: who wins each metric at `size`."""
    out: list[str] = []
    for lang, path in dev.items():
        sub = df[(df["eval"] == path.name) & ((df["size"] == size) | (df["family"] == "fixed"))]
        if sub.empty:
            continue
        sgpe_row = sub[sub["key"] == "sgpe-fallback"].iloc[0]
        trained = sub[sub["family"] != "fixed"]
        best = trained.sort_values("twr").iloc[0]
        lower = trained[trained["twr"] < sgpe_row.twr].sort_values("twr")
        name = LANGS.get(lang, lang)
        if lower.empty:
            out.append(
                f"{name}, {_size_label(size)}: SGPE (fallback) has the lowest TWR of the trained "
                f"tokenizers ({sgpe_row.twr:.3f}); next is {trained.sort_values('twr').iloc[1].tokenizer} "
                f"({trained.sort_values('twr').iloc[1].twr:.3f})."
            )
        else:
            beats = ", ".join(
                f"{r.tokenizer} {r.twr:.3f} ({100 * (sgpe_row.twr / r.twr - 1):+.1f}% more tokens for SGPE)"
                for r in lower.itertuples()
            )
            out.append(
                f"{name}, {_size_label(size)}: lower TWR than SGPE (fallback, {sgpe_row.twr:.3f}): {beats}. "
                f"Best: {best.tokenizer} ({best.twr:.3f})."
            )
        zero = sorted(sub[sub["broken"] == 0]["tokenizer"])
        out.append(
            f"{name}, {_size_label(size)}: zero broken boundaries: {', '.join(zero) or 'none'}; "
            f"SGPE (fallback) {sgpe_row.broken_per_1k:.1f} per 1k tokens "
            f"({int(sgpe_row.broken):,} cuts, {_sgpe_cut_note([sgpe_row])}); "
            f"lowest other trained: "
            + ", ".join(
                f"{r.tokenizer} {r.broken_per_1k:.1f}"
                for r in trained[~trained["family"].isin(["sgpe"])]
                .sort_values("broken_per_1k")
                .head(2)
                .itertuples()
            )
            + "."
        )
        for r in sub[(sub["unk"] > 0)].itertuples():
            out.append(
                f"{name}, {_size_label(size)}: {r.tokenizer} loses text: UNK {r.unk_pct:.3f}% of tokens, "
                f"{int(r.roundtrip_fail)} of {int(r.lines):,} lines do not round-trip."
            )
        for r in sub[sub["vocab_actual"] < 0.99 * size].itertuples():
            if r.family != "fixed":
                out.append(
                    f"{name}: {r.tokenizer} stopped at {int(r.vocab_actual):,} of {size:,} "
                    f"tokens: {STOP_REASONS.get(r.key, 'its trainer ran out of candidates')}."
                )
    return out


def write_markdown(
    df: Any, out: Path, meta: dict[str, Any], dev: dict[str, Path], extra: list[Path]
) -> None:
    sizes = sorted(int(s) for s in df["size"].dropna().unique())
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
        "compare orders of magnitude, and use `bench/speed.py` for speed (the CSV also has an "
        "`encode_mchars_per_s` column, measured with two evaluations side by side through each "
        "tokenizer's span-reporting call: indicative only). *base* = ids no merge produced: "
        "SGPE's syllables seen at least twice (+ 256 byte tokens and the schemas' code points "
        "with the fallback policy), 256 bytes for byte-level BPE, the character alphabet and "
        "specials for HF BPE; — where the library does not expose it.",
        "",
        "Metrics (`sgpe/metrics.py`, as in `shared/ANCHORS.md`): each line is encoded on its own; "
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
        *headline_table(df, dev, largest),
        "",
        "## Findings (computed from the rows)",
        "",
        *[f"- {f}" for f in findings(df, dev, largest)],
        "",
        *[f"- {f}" for f in findings(df, dev, min(sizes)) if "TWR" in f],
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
    for lang, path in dev.items():
        lines += [f"## {LANGS.get(lang, lang)}: `{path.name}`", "", _corpus_line(df, path.name), ""]
        for size in sizes:
            sub = df[(df["eval"] == path.name) & ((df["size"] == size) | (df["family"] == "fixed"))]
            lines += [
                f"### {LANGS.get(lang, lang)}, vocabulary {_size_label(size)}",
                "",
                *_table(sub),
                "",
            ]
    for path in extra:
        lines += [
            f"## Extra text: `{path.name}` (vocabulary {_size_label(largest)})",
            "",
            _corpus_line(df, path.name),
            "",
        ]
        for lang in [*meta["train_names"], "-"]:
            sub = df[(df["eval"] == path.name) & (df["lang"] == lang)]
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
        *[f"| {p.label} | `{p.settings}` | {p.threads} |" for p in (PEERS[k] for k in ORDER)],
        "",
        "All rows: `bench/results/compression.csv` (and `.parquet`). Charts: "
        "`bench/results/compression.html`.",
        "",
    ]
    out.write_text("\n".join(lines), encoding="utf-8")


def headline_table(df: Any, dev: dict[str, Path], size: int) -> list[str]:
    """One row per tokenizer: TWR, CPT, broken/1k and lossless per language at `size`."""
    langs = list(dev)
    head = (
        "| tokenizer | "
        + " | ".join(
            f"{LANGS.get(lang, lang)} TWR | CPT | broken / 1k | round-trip fail %" for lang in langs
        )
        + " |"
    )
    out = [head, "|---|" + "---:|---:|---:|---:|" * len(langs)]
    for key in ORDER:
        cells = []
        for lang in langs:
            sub = df[(df["eval"] == dev[lang].name) & (df["key"] == key)]
            if PEERS[key].family != "fixed":
                sub = sub[sub["size"] == size]
            if sub.empty:
                cells.append("— | — | — | —")
                continue
            r = sub.iloc[0]
            vocab_note = (
                ""
                if r.family == "fixed" or r.vocab_actual >= 0.99 * size
                else f" (stopped at {int(r.vocab_actual):,})"
            )
            cells.append(
                f"{r.twr:.3f}{vocab_note} | {r.cpt:.2f} | {r.broken_per_1k:.1f} | {r.roundtrip_fail_pct:.2f}"
            )
        name = PEERS[key].label + (
            " (fixed, 200k)"
            if key == "o200k_base"
            else " (fixed, 100k)"
            if key == "cl100k_base"
            else ""
        )
        name = f"**{name}**" if PEERS[key].family == "sgpe" else name
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    return out


def write_html(df: Any, out: Path, dev: dict[str, Path], meta: dict[str, Any]) -> None:
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    langs = list(dev)
    sizes = sorted(int(s) for s in df["size"].dropna().unique())
    largest = max(sizes)
    figs = []

    # 1. TWR vs vocabulary size, trained tokenizers (the GPT-2-regex row and the fixed
    #    encodings are far off this scale: they get their own chart below).
    fig = make_subplots(
        rows=1,
        cols=len(langs),
        subplot_titles=[f"{LANGS.get(lang, lang)}: {dev[lang].name}" for lang in langs],
    )
    for c, lang in enumerate(langs, start=1):
        sub = df[df["eval"] == dev[lang].name]
        for key in CHART_KEYS:
            rows = sub[sub["key"] == key].sort_values("size")
            if rows.empty:
                continue
            fig.add_trace(
                go.Scatter(
                    x=rows["size"], y=rows["twr"], mode="lines+markers", name=PEERS[key].label,
                    legendgroup=key, showlegend=c == 1,
                    line={"width": 4 if PEERS[key].family == "sgpe" else 2, "color": COLORS[key],
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

    # 2. TWR at the largest size, every tokenizer (log scale: the token tax of fixed ones).
    fig = make_subplots(
        rows=1,
        cols=len(langs),
        subplot_titles=[
            f"{LANGS.get(lang, lang)}, vocabulary {_size_label(largest)}" for lang in langs
        ],
    )
    for c, lang in enumerate(langs, start=1):
        sub = df[
            (df["eval"] == dev[lang].name) & ((df["size"] == largest) | (df["family"] == "fixed"))
        ]
        sub = sub.assign(order=sub["key"].map(ORDER.index)).sort_values("order")
        fig.add_trace(
            go.Bar(x=sub["tokenizer"], y=sub["twr"], text=[f"{v:.2f}" for v in sub["twr"]],
                   marker_color=[COLORS.get(k, "#7f7f7f") for k in sub["key"]], showlegend=False),
            row=1, col=c,
        )  # fmt: skip
        fig.update_yaxes(type="log", title="tokens per word (TWR), log scale", row=1, col=c)
    fig.update_layout(
        title="Tokens per whitespace word, all tokenizers (lower is better)", height=560
    )
    figs.append(fig)

    fig = make_subplots(
        rows=1,
        cols=len(langs),
        subplot_titles=[
            f"{LANGS.get(lang, lang)}, vocabulary {_size_label(largest)}" for lang in langs
        ],
    )
    for c, lang in enumerate(langs, start=1):
        sub = df[
            (df["eval"] == dev[lang].name) & ((df["size"] == largest) | (df["family"] == "fixed"))
        ]
        sub = sub.assign(order=sub["key"].map(ORDER.index)).sort_values("order")
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
    page = (
        "<!doctype html><html><head><meta charset='utf-8'><title>SGPE compression benchmark</title></head>"
        "<body style='font-family: sans-serif; max-width: 1400px; margin: auto'>"
        "<h1>SGPE compression benchmark</h1>"
        f"<p>{html.escape(meta['command'])} &middot; {html.escape(meta['date'])} &middot; "
        "tables in <code>compression.md</code>, rows in <code>compression.csv</code>. "
        "Plotly is loaded from its CDN.</p>"
        f"{body}</body></html>"
    )
    out.write_text(page, encoding="utf-8")


def write_svg(df: Any, out: Path, dev: dict[str, Path]) -> None:
    """A dependency-free SVG line chart of TWR vs vocabulary size (trained tokenizers)."""
    langs = list(dev)
    sizes = sorted(int(s) for s in df["size"].dropna().unique())
    colors = COLORS
    keys = CHART_KEYS
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
        sub = df[(df["eval"] == dev[lang].name) & df["key"].isin(keys)]
        lo, hi = float(sub["twr"].min()), float(sub["twr"].max())
        pad = (hi - lo) * 0.08 or 0.05
        lo, hi = lo - pad, hi + pad

        def px(s: float, x0: float = x0) -> float:
            return x0 + (math.log(s) - xs[0]) / ((xs[-1] - xs[0]) or 1) * pw

        def py(v: float, lo: float = lo, hi: float = hi) -> float:
            return mt + (hi - v) / (hi - lo) * ph

        parts.append(
            f'<text x="{x0 + pw / 2}" y="{mt - 14}" text-anchor="middle" font-weight="bold">{LANGS.get(lang, lang)} ({dev[lang].name}): tokens per word</text>'
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
            pts = " ".join(f"{px(r.size):.1f},{py(r.twr):.1f}" for r in rows.itertuples())
            w = 3.5 if PEERS[key].family == "sgpe" else 2
            parts.append(
                f'<polyline points="{pts}" fill="none" stroke="{colors[key]}" stroke-width="{w}"'
                + (' stroke-dasharray="6 4"' if key == "bytebpe" else "")
                + "/>"
            )
            for r in rows.itertuples():
                parts.append(
                    f'<circle cx="{px(r.size):.1f}" cy="{py(r.twr):.1f}" r="3" fill="{colors[key]}"/>'
                )
    lx = ml + len(langs) * (pw + gap)
    for i, key in enumerate(keys):
        y = mt + 10 + i * 20
        parts.append(
            f'<line x1="{lx}" x2="{lx + 24}" y1="{y}" y2="{y}" stroke="{colors[key]}" stroke-width="3"/>'
        )
        parts.append(f'<text x="{lx + 30}" y="{y + 4}">{html.escape(PEERS[key].label)}</text>')
    parts.append(
        f'<text x="{lx}" y="{mt + 10 + len(keys) * 20 + 10}" fill="#555">lower is better;</text>'
    )
    parts.append(
        f'<text x="{lx}" y="{mt + 10 + len(keys) * 20 + 26}" fill="#555">GPT-2 regex, o200k_base, cl100k_base: see table</text>'
    )
    parts.append("</svg>")
    out.write_text("\n".join(parts) + "\n", encoding="utf-8")


def _sgpe_cut_note(sgpe_rows: list[Any]) -> str:
    """What SGPE's broken cuts are. The default (hierarchical) mode spells a syllable it has
    not learned whole from its own learned parts; a cut between two such parts is inside
    the syllable but no token reaches across its edge (sgpe.metrics counts those as
    straddling, and tests/test_integrity.py and bench/xgenre.py find none)."""
    del sgpe_rows
    return (
        "each one between two learned parts of a syllable the vocabulary has not learned "
        "whole: no SGPE token reaches across a syllable edge"
    )


def _pct_fewer(a: float, b: float) -> str:
    """How many fewer tokens `a` needs than `b`, as a percentage of `b`."""
    return f"{100 * (1 - a / b):.0f}%"


def summary(df: Any, dev: dict[str, Path]) -> list[str]:
    """A few sentences for the README, with the numbers of this run (wins and losses)."""
    sizes = sorted(int(s) for s in df["size"].dropna().unique())
    largest, smallest = max(sizes), min(sizes)

    def rows(lang: str, size: int) -> Any:
        sub = df[df["eval"] == dev[lang].name]
        return sub[(sub["size"] == size) | (sub["family"] == "fixed")]

    def one(sub: Any, key: str) -> Any:
        return sub[sub["key"] == key].iloc[0]

    out: list[str] = []
    parts = []
    for lang in dev:
        sub = rows(lang, largest)
        sg = one(sub, "sgpe-fallback")
        peers = sub[(sub["family"] == "peer") | (sub["family"] == "ours")].sort_values("twr")
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
        o200k = one(sub, "o200k_base")
        fewer = [f"{r.tokenizer} (−{_pct_fewer(sg.twr, r.twr)})" for r in beaten[:3]]
        fewer.append(f"tiktoken o200k_base (−{_pct_fewer(sg.twr, o200k.twr)})")
        listed = ", ".join(fewer[:-1]) + (" and " if len(fewer) > 1 else "") + fewer[-1]
        parts.append(f"**{LANGS.get(lang, lang)}**: {lead}, and fewer than {listed}.")
    out.append(f"Compression at {_size_label(largest)}: " + " ".join(parts))

    sg_b = [one(rows(lang, largest), "sgpe-fallback").broken_per_1k for lang in dev]
    peer_b = [
        r.broken_per_1k
        for lang in dev
        for r in rows(lang, largest).itertuples()
        if r.family in ("peer", "ours") and r.key != "hf-bytelevel-gpt2"
    ]
    o_b = [one(rows(lang, largest), "o200k_base").broken_per_1k for lang in dev]
    out.append(
        "Integrity: SGPE (fallback) puts "
        + " / ".join(f"{b:.1f}" for b in sg_b)
        + " token boundaries per 1,000 tokens inside a syllable ("
        + " / ".join(LANGS.get(lang, lang) for lang in dev)
        + f"), {_sgpe_cut_note([one(rows(lang, largest), 'sgpe-fallback') for lang in dev])}; "
        "the trained peers put "
        f"{min(peer_b):.0f}–{max(peer_b):.0f}, o200k_base "
        + " / ".join(f"{b:.0f}" for b in o_b)
        + "."
    )
    unk = [one(rows(lang, largest), "sgpe-unk") for lang in dev]
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
        sub = rows(lang, smallest)
        sg = one(sub, "sgpe-fallback")
        trained = sub[sub["family"] != "fixed"].sort_values("twr")
        best = trained.iloc[0]
        if best.key != "sgpe-fallback":
            small.append(
                f"{LANGS.get(lang, lang)} TWR {sg.twr:.3f} vs {best.tokenizer} {best.twr:.3f}, "
                f"base vocabulary {int(sg.base_vocab):,} of {smallest:,} ids"
                if not math.isnan(sg.base_vocab)
                else f"{LANGS.get(lang, lang)} TWR {sg.twr:.3f} vs {best.tokenizer} {best.twr:.3f}"
            )
    if small:
        out.append(
            f"At {_size_label(smallest)} ("
            + "; ".join(small)
            + "). The lossless base (all of ASCII and 115 byte tokens) takes ids that plain BPE "
            "spends on merges, and SGPE never learns a stem that ends inside a syllable; on "
            "text of another genre see `bench/results/xgenre.md`."
        )
    return out


def _speed_minutes(results: Path) -> str:
    """How long this folder's speed run took, if bench/speed.py has written one."""
    try:
        meta = json.loads((results / "speed.json").read_text())[-1]
        return f"; `bench/speed.py` about {_minutes(float(meta['wall_s']))}"
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        return ""


def _battery_line() -> list[str]:
    """The integrity battery's pinned counts, read from tests/test_integrity.py."""
    import re

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


def write_readme_section(df: Any, out: Path, dev: dict[str, Path], meta: dict[str, Any]) -> None:
    sizes = sorted(int(s) for s in df["size"].dropna().unique())
    largest = max(sizes)
    lines = [
        "## Results",
        "",
        f"SGPE against the tokenizers people use, all trained on the same corpora "
        f"({' and '.join(f'`{v}`' for v in meta['train_names'].values())}) at the same vocabulary "
        f"size ({_size_label(largest)}), evaluated on held-out dev text (each line on its own). "
        "TWR = tokens per whitespace word (lower is better), CPT = characters per token, "
        "broken / 1k = token boundaries inside a syllable or a character per 1,000 tokens, "
        "round-trip fail = lines that do not decode back to themselves.",
        "",
        *headline_table(df, dev, largest),
        "",
        "![TWR vs vocabulary size](bench/results/twr_vs_vocab.svg)",
        "",
        *[f"- {f}" for f in summary(df, dev)],
        *_battery_line(),
        "",
        "Every size (4k to 32k), UNK rates, training time and memory, and the mixed-script file: "
        "[`bench/results/compression.md`](bench/results/compression.md); interactive charts: "
        "`bench/results/compression.html`; every row: `bench/results/compression.csv`. "
        f"Regenerate (about {_minutes(meta.get('from_scratch_s', meta['wall_s']))} from scratch on 2 cores"
        f"{_speed_minutes(out.parent)}, "
        "given `../shared/corpora`):",
        "",
        "```bash",
        "pip install -e '.[bench,app]'",
        "python bench/compression.py",
        "python bench/speed.py",
        "```",
        "",
    ]
    out.write_text("\n".join(lines), encoding="utf-8")


# ============================================================================
# Main
# ============================================================================


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--corpora",
        type=Path,
        default=_peers.CORPORA,
        help="folder with {si,hi}_{train,dev}.txt (default: %(default)s)",
    )
    ap.add_argument(
        "--quick",
        action="store_true",
        help=f"train on the first {QUICK_TRAIN_LINES} lines at {QUICK_SIZES}, evaluate {QUICK_EVAL_LINES} lines; results in the cache dir",
    )
    ap.add_argument(
        "--text",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="also evaluate this UTF-8 text file (repeatable)",
    )
    ap.add_argument(
        "--sizes",
        type=lambda s: tuple(int(x) for x in s.split(",")),
        default=None,
        help="vocabulary sizes, comma-separated (default: 4000,8000,16000,32000)",
    )
    ap.add_argument(
        "--langs",
        default="si,hi",
        help="languages to train, comma-separated (default: %(default)s)",
    )
    ap.add_argument(
        "--out",
        type=Path,
        default=None,
        help="output folder (default: bench/results, or the cache dir with --quick)",
    )
    ap.add_argument(
        "--cache",
        type=Path,
        default=Path(tempfile.gettempdir()) / "sgpe-bench-cache",
        help="trained-model cache (default: %(default)s)",
    )
    ap.add_argument("--no-cache", action="store_true", help="retrain everything")
    ap.add_argument(
        "--report-only",
        action="store_true",
        help="rewrite the reports from the output folder's compression.csv (no training)",
    )
    ap.add_argument(
        "--jobs", type=int, default=2, help="evaluation worker processes (default: %(default)s)"
    )
    args = ap.parse_args(argv)

    started = time.perf_counter()

    def log(msg: str) -> None:
        print(f"[{time.perf_counter() - started:7.1f}s] {msg}", flush=True)

    corpora: Path = args.corpora
    langs = [x for x in args.langs.split(",") if x]
    missing = [
        corpora / f"{lang}_{part}.txt"
        for lang in langs
        for part in ("train", "dev")
        if not (corpora / f"{lang}_{part}.txt").exists()
    ]
    if missing:
        print(
            f"missing corpus files: {', '.join(map(str, missing))}; pass --corpora", file=sys.stderr
        )
        return 2
    sizes = args.sizes or (QUICK_SIZES if args.quick else SIZES)
    cache: Path = args.cache
    cache.mkdir(parents=True, exist_ok=True)
    train_files = {lang: corpora / f"{lang}_train.txt" for lang in langs}
    train_names = {lang: p.name for lang, p in train_files.items()}
    dev = {lang: corpora / f"{lang}_dev.txt" for lang in langs}
    extra = [p for p in [corpora / "mixed_dev.txt", *args.text] if p.exists()]
    for p in args.text:
        if not p.exists():
            print(f"--text {p}: file not found", file=sys.stderr)
            return 2
    limit = None
    if args.quick:
        heads = cache / "quick-corpora"
        heads.mkdir(exist_ok=True)
        train_files = {
            lang: _head_file(p, QUICK_TRAIN_LINES, heads) for lang, p in train_files.items()
        }
        train_names = {
            lang: f"{name} (first {QUICK_TRAIN_LINES:,} lines)"
            for lang, name in train_names.items()
        }
        limit = QUICK_EVAL_LINES
    out: Path = args.out or (cache / "quick-results" if args.quick else RESULTS)
    out.mkdir(parents=True, exist_ok=True)

    meta_path = cache / f"meta-{hashlib.sha256(str(out.resolve()).encode()).hexdigest()[:12]}.json"
    if args.report_only:
        import pandas as pd

        df = pd.read_csv(out / "compression.csv")
        for col in ("base_vocab", "broken_in_vocab_units"):  # a CSV from before they existed
            if col not in df:
                df[col] = float("nan")
        # Names and settings are presentation: refresh them from bench/_peers.py.
        df["tokenizer"] = df["key"].map(lambda k: PEERS[k].label)
        df["settings"] = df["key"].map(lambda k: PEERS[k].settings)
        df["threads"] = df["key"].map(lambda k: PEERS[k].threads)
        df.to_csv(out / "compression.csv", index=False)
        df.to_parquet(out / "compression.parquet", index=False)
        meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
        meta = {**_default_meta(train_names), **meta}
        log(f"report only: read {len(df)} rows from {out / 'compression.csv'}")
    else:
        log(
            f"training {len(TRAINED)} kinds x {len(sizes)} sizes x {len(langs)} languages (cache: {cache})"
        )
        models = train_all(train_files, tuple(sizes), cache, not args.no_cache, log)
        tasks = build_tasks(models, dev, extra, limit)
        log(f"evaluating {len(tasks)} (model, file) pairs with {args.jobs} workers")
        rows: list[dict[str, Any]] = []
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            for k, row in enumerate(pool.map(evaluate_task, tasks), start=1):
                rows.append(row)
                if k % 10 == 0 or k == len(tasks):
                    log(f"  {k}/{len(tasks)} evaluated")
        df = finish_rows(rows, train_names)
        cached = [m for m in models if m["cached"] and not m["derived"]]
        trained = [m for m in models if not m["derived"]]
        args_text = " ".join(argv if argv is not None else sys.argv[1:])
        base = df["train_base_rss_mb"].dropna()
        meta = {
            **_default_meta(train_names),
            "command": f"python bench/compression.py {args_text}".strip(),
            "wall_s": time.perf_counter() - started,
            "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "base_rss": float(base.median()) if len(base) else 0.0,
            "cached": len(cached),
            "trained": len(trained),
            "from_scratch_s": time.perf_counter()
            - started
            + sum(m.get("train_wall_s", m["train_s"] + 0.5) for m in cached),
        }
        meta_path.write_text(json.dumps(meta))
        df.to_csv(out / "compression.csv", index=False)
        try:
            df.to_parquet(out / "compression.parquet", index=False)
        except ImportError as err:  # pyarrow missing: the CSV holds the same rows
            log(f"parquet not written ({err})")
    write_markdown(df, out / "compression.md", meta, dev, extra)
    write_html(df, out / "compression.html", dev, meta)
    write_svg(df, out / "twr_vs_vocab.svg", dev)
    write_readme_section(df, out / "README_section.md", dev, meta)
    log(f"wrote {out}/compression.{{md,html,csv,parquet}}, twr_vs_vocab.svg, README_section.md")
    print("\n".join(headline_table(df, dev, max(sizes))))
    return 0


def _default_meta(train_names: dict[str, str]) -> dict[str, Any]:
    return {
        "command": "python bench/compression.py",
        "wall_s": float("nan"),
        "machine": f"{os.cpu_count()} CPUs, {platform.system()} {platform.machine()}",
        "date": "unknown date",
        "versions": ", ".join(f"{k} {v}" for k, v in _peers.versions().items()),
        "train_names": train_names,
        "base_rss": float("nan"),
    }


if __name__ == "__main__":
    sys.exit(main())

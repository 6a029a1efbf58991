"""SGPE against the tokenizers people use, trained on the same text at the same sizes.

Trains on ``si_train.txt`` and ``hi_train.txt`` at vocabulary sizes 4k, 8k, 16k and 32k
every peer of ``KEYS`` (settings in ``bench/peers.py``), plus the fixed tiktoken
``o200k_base`` and ``cl100k_base``. Each training runs in its own process (its own time
and peak memory) and is cached in a scratch folder keyed by corpus and code, so a re-run
only evaluates. Our byte-level BPE is trained once at the largest size; smaller sizes are
its merge prefixes (exact for a greedy deterministic trainer; tests/test_integrity.py
checks).

Evaluates every model on its language's dev file, and the largest models on
``mixed_dev.txt`` and any ``--text`` file, with ``sgpe.metrics.evaluate``. Writes
``compression.csv`` and ``compression.parquet`` (every row) and ``compression_meta.json``
(the run), then the reports: ``compression.md``, ``compression.html`` (plotly charts) and
``twr_vs_vocab.svg`` (the README chart). About 10 minutes from scratch on 2 cores.
Results hold numbers only, never corpus text.

    python -m bench compression                  # full run, writes bench/results/
    python -m bench compression --quick          # head of each file, results in the cache
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import Any

from . import corpora, records, render
from .peers import FIXED, PEERS, code_fingerprint, derive_bytebpe, file_sha256, run_training

HELP = "in-domain compression at 4k-32k against every peer"
# The peers of this bench, in the order of its tables.
KEYS = [
    "sgpe-fallback", "sgpe-unk", "hf-metaspace", "spm-bpe", "spm-unigram",
    "hf-bytelevel-o200k", "bytebpe", "hf-bytelevel-gpt2", "o200k_base", "cl100k_base",
]  # fmt: skip
TRAINED = [k for k in KEYS if k not in FIXED]
SIZES = (4000, 8000, 16000, 32000)
QUICK_SIZES = (4000, 8000)
QUICK_TRAIN_LINES = 4000
QUICK_EVAL_LINES = 400
METRICS = [
    "lines", "chars", "words", "tokens", "twr", "cpt", "unk", "unk_pct", "roundtrip_fail",
    "roundtrip_fail_pct", "broken", "broken_per_1k", "words_with_broken",
    "words_with_broken_pct", "encode_seconds", "inexact_lines",
]  # fmt: skip
COLUMNS = [
    "lang", "eval", "key", "tokenizer", "family", "size", "vocab_actual", "derived",
    "base_vocab", "broken_in_vocab_units", "trained_size", "train_s", "train_peak_rss_mb",
    "train_base_rss_mb", *METRICS, "encode_mchars_per_s", "threads", "train_corpus", "settings",
]  # fmt: skip


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument(
        "--quick",
        action="store_true",
        help=f"train on the first {QUICK_TRAIN_LINES} lines at {QUICK_SIZES}, evaluate "
        f"{QUICK_EVAL_LINES} lines; results in the cache folder",
    )
    ap.add_argument(
        "--text", type=Path, action="append", default=[], metavar="FILE",
        help="also evaluate this UTF-8 text file (repeatable)",
    )  # fmt: skip
    ap.add_argument(
        "--sizes",
        type=lambda s: tuple(int(x) for x in s.split(",")),
        default=None,
        help="vocabulary sizes, comma-separated (default: 4000,8000,16000,32000)",
    )
    ap.add_argument("--langs", default="si,hi", help="comma-separated (default: %(default)s)")
    ap.add_argument(
        "--cache",
        type=Path,
        default=Path(tempfile.gettempdir()) / "sgpe-bench-cache",
        help="trained-model cache (default: %(default)s)",
    )
    ap.add_argument("--no-cache", action="store_true", help="retrain everything")
    ap.add_argument("--jobs", type=int, default=2, help="evaluation worker processes")


# ============================================================================
# Training
# ============================================================================


def train_all(
    train_files: dict[str, Path], sizes: tuple[int, ...], cache: Path, use_cache: bool, log: Any
) -> list[dict[str, Any]]:
    """Train (or take from the cache) every model; return one record per (lang, key, size)."""
    largest = max(sizes)
    models: list[dict[str, Any]] = []
    for lang, corpus in train_files.items():
        corpus_sha = file_sha256(corpus)[:12]
        for key in TRAINED:
            peer = PEERS[key]
            fp = code_fingerprint(key)
            todo = [largest] if (peer.largest_only or peer.prefix_derived) else list(sizes)
            for size in todo:
                path = cache / f"{lang}-{key}-{size}-{corpus_sha}-{fp}{peer.suffix}"
                stats_path = path.with_name(path.name + ".stats.json")
                if use_cache and path.exists() and stats_path.exists():
                    stats = {**json.loads(stats_path.read_text()), "cached": True}
                    log(f"  cached   {lang} {key:20s} {size:>6}")
                else:
                    t0 = time.perf_counter()
                    stats = run_training(key, corpus, size, path)
                    stats["train_wall_s"] = time.perf_counter() - t0  # with process start-up
                    stats_path.write_text(json.dumps(stats))
                    stats["cached"] = False
                    log(
                        f"  trained  {lang} {key:20s} {size:>6}  {stats['train_s']:6.1f} s train,"
                        f" {stats['train_peak_rss_mb']:5.0f} MB peak, vocab {stats['vocab_actual']:,}"
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
                    actual = derive_bytebpe(Path(big["path"]), size, path)
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
    from .peers import load

    return load(key, Path(path) if path else None)


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
        _broken_in_vocab_units(tok, lines) if PEERS[task["key"]].kit == "sgpe" else None
    )
    return row


def _broken_in_vocab_units(tok: Any, lines: list[str]) -> int:
    """SGPE only: broken cuts that fall inside a unit the vocabulary has (bare or with its
    leading space). Should be 0: SGPE cuts only inside syllables it has not learned whole."""
    from bisect import bisect_right
    from itertools import accumulate

    from sgpe import syllabify
    from sgpe.adapters import as_tokenizer
    from sgpe.metrics import broken_boundaries

    measure = as_tokenizer(tok).measure
    count = 0
    for line in lines:
        result = broken_boundaries(line, measure(line).spans)
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
    kit = PEERS[key].kit
    if kit == "sgpe":
        results = {a + b for a, b in tok.merges}
        return sum(1 for t in tok.vocab if t not in results)
    if kit == "bytebpe":
        return 256
    if kit == "hf":
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
    for key in (k for k in KEYS if k in FIXED):
        for lang, path in [*dev.items(), *(("-", p) for p in extra)]:
            tasks.append({"lang": lang, "key": key, "eval": path.name, "eval_path": str(path), "limit": limit})  # fmt: skip
    # Largest first, so the two workers finish together.
    tasks.sort(key=lambda t: -(t.get("size") or 10**6))
    return tasks


def finish_rows(rows: list[dict[str, Any]], train_names: dict[str, str]) -> Any:
    """The rows as a table in report order, with each peer's description."""
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
    df["order"] = df["key"].map(KEYS.index)
    df = df.sort_values(["eval", "lang", "size", "order"], na_position="last", kind="stable")
    return df[COLUMNS].reset_index(drop=True)


# ============================================================================
# Main
# ============================================================================


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()

    def log(msg: str) -> None:
        print(f"[{time.perf_counter() - started:7.1f}s] {msg}", flush=True)

    langs = [x for x in args.langs.split(",") if x]
    names = [f(lang) for lang in langs for f in (corpora.train_file, corpora.dev_file)]
    paths = dict(zip(names, corpora.require(args.corpora, *names)))
    train_files = {lang: paths[corpora.train_file(lang)] for lang in langs}
    dev = {lang: paths[corpora.dev_file(lang)] for lang in langs}
    for p in args.text:
        if not p.is_file():
            raise SystemExit(f"--text {p}: file not found")
    mixed = args.corpora / corpora.MIXED_DEV
    extra = [p for p in [mixed, *args.text] if p.is_file()]
    sizes = args.sizes or (QUICK_SIZES if args.quick else SIZES)
    cache: Path = args.cache
    cache.mkdir(parents=True, exist_ok=True)
    train_names = {lang: p.name for lang, p in train_files.items()}
    limit = None
    out: Path = args.out
    if args.quick:
        heads = cache / "quick-corpora"
        heads.mkdir(exist_ok=True)
        train_files = {
            lang: corpora.head_lines(p, QUICK_TRAIN_LINES, heads) for lang, p in train_files.items()
        }
        train_names = {
            lang: f"{name} (first {QUICK_TRAIN_LINES:,} lines)"
            for lang, name in train_names.items()
        }
        limit = QUICK_EVAL_LINES
        out = cache / "quick-results"

    log(f"training {len(TRAINED)} kinds x {len(sizes)} sizes x {len(langs)} languages (cache: {cache})")  # fmt: skip
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
    base = df["train_base_rss_mb"].dropna()
    meta = records.run_meta(
        args.invocation,
        started,
        train_names=train_names,
        dev_names={lang: p.name for lang, p in dev.items()},
        extra_names=[p.name for p in extra],
        base_rss=float(base.median()) if len(base) else 0.0,
        cached=len(cached),
        trained=len([m for m in models if not m["derived"]]),
    )
    # A run that took models from the cache: how long it would take from scratch.
    meta["from_scratch_s"] = meta["wall_s"] + sum(
        m.get("train_wall_s", m["train_s"] + 0.5) for m in cached
    )
    out.mkdir(parents=True, exist_ok=True)
    records.write_json(out / "compression_meta.json", meta)
    df.to_csv(out / "compression.csv", index=False)
    try:
        df.to_parquet(out / "compression.parquet", index=False)
    except ImportError as err:  # pyarrow missing: the CSV holds the same rows
        log(f"parquet not written ({err})")
    render.write_reports(out, ["compression"], html=True)
    log(f"wrote {out}/compression.{{csv,parquet,md,html}}, twr_vs_vocab.svg")
    return 0

"""SGPE against HF BPE at an equal budget on every script with a schema.

For each language of ``corpora.SCRIPTS``, the first ``--mb``
MB of its file (whole lines, so the whole run stays under ten minutes on two cores) is
split into training text (the first 90% of its lines) and held-out text (the last 10%).
SGPE at the library's defaults and HF BPE with a Metaspace pre-tokenizer are trained, each
in its own process, at the same vocabulary sizes, and evaluated line by line on the
held-out text with ``sgpe.metrics.evaluate``: TWR, characters per token, token boundaries
inside a syllable of the script's schema per 1,000 tokens, round-trip failures. Writes
``scripts_compression.json`` and ``.md``.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

from . import corpora, records, render
from .peers import PEERS, load, run_training

HELP = "SGPE vs HF BPE at an equal budget on every script"
KEYS = ("sgpe-fallback", "hf-metaspace")
LABELS = {"sgpe-fallback": "SGPE", "hf-metaspace": "HF BPE (Metaspace)"}


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--mb", type=float, default=1.0, help="MB of each corpus to use")
    ap.add_argument("--sizes", type=int, nargs="+", default=[4000, 8000])


def measure(corpora_dir: Path, mb: float, sizes: list[int], work: Path) -> list[dict[str, Any]]:
    from sgpe.metrics import evaluate

    rows = []
    files = corpora.require(corpora_dir, *(name for name, _ in corpora.SCRIPTS.values()))
    for (language, (_, script)), path in zip(corpora.SCRIPTS.items(), files):
        train, held_out = corpora.split_held_out(path, int(mb * 1_000_000), work)
        for size in sizes:
            for key in KEYS:
                out = work / f"{train.stem}_{key}_{size}{PEERS[key].suffix}"
                t0 = time.perf_counter()
                trained = run_training(key, train, size, out)
                m = evaluate(load(key, out), held_out, script=script)
                rows.append(
                    {
                        "language": language,
                        "script": script,
                        "size": size,
                        "tokenizer": LABELS[key],
                        "vocab": trained["vocab_actual"],
                        "train_s": round(trained["train_s"], 2),
                        "twr": round(m["twr"], 3),
                        "cpt": round(m["cpt"], 2),
                        "broken_per_1k": round(m["broken_per_1k"], 1),
                        "roundtrip_fail_pct": round(m["roundtrip_fail_pct"], 2),
                        "held_out_lines": m["lines"],
                    }
                )
                print(f"{language} {size} {key}: {rows[-1]} ({time.perf_counter() - t0:.1f} s)")
    return rows


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        rows = measure(args.corpora, args.mb, args.sizes, Path(tmp))
    meta = records.run_meta(args.invocation, started, mb=args.mb)
    records.write_rows(args.out / "scripts_compression.json", rows, meta)
    render.write_reports(args.out, ["scripts"])
    print(render.scripts_table(rows))
    return 0

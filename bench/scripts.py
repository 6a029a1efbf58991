"""Every script with a schema: SGPE against HF BPE at an equal budget, and syllabify speed.

``python -m bench scripts``: for each language of ``corpora.SCRIPTS``, the first ``--mb``
MB of its file (whole lines, so the whole run stays under ten minutes on two cores) is
split into training text (the first 90% of its lines) and held-out text (the last 10%).
SGPE at the library's defaults and HF BPE with a Metaspace pre-tokenizer are trained, each
in its own process, at the same vocabulary sizes, and evaluated line by line on the
held-out text with ``sgpe.metrics.evaluate``: TWR, characters per token, token boundaries
inside a syllable of the script's schema per 1,000 tokens, round-trip failures. Writes
``scripts_compression.json`` and ``.md``.

``python -m bench scripts-speed``: for each schema, the whole of its real text (the oracle
checks' files, ``sgpe.oracles.CORPUS_FILES``) in one ``syllabify(text)`` call with
``script="auto"``, in M characters per second: a *first pass* with a fresh syllabifier
(every distinct word matched by the regex once), the *steady state* (the same text again,
every word known: what a tokenizer sees after its first megabytes) and the *regex only*
(the compiled grammar regex's ``findall``, no word cache). Best of ``--repeats`` runs (the
machine is shared; the best run is the least disturbed). Writes ``scripts_speed.json``
and ``.md``.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

from . import corpora, records, render
from .peers import PEERS, load, run_training, syllabifier

KEYS = ("sgpe-fallback", "hf-metaspace")
LABELS = {"sgpe-fallback": "SGPE", "hf-metaspace": "HF BPE (Metaspace)"}


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--mb", type=float, default=1.0, help="MB of each corpus to use")
    ap.add_argument("--sizes", type=int, nargs="+", default=[4000, 8000])


def add_speed_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--repeats", type=int, default=3)


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


def _best_rate(chars: int, runs: list[float]) -> float:
    return chars / min(runs) / 1e6


def measure_speed(text: str, repeats: int) -> dict[str, float]:
    first, steady, plain = [], [], []
    for _ in range(repeats):
        syl = syllabifier("auto")
        t0 = time.perf_counter()
        syl(text)
        first.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        syl(text)
        steady.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        syl._findall(text)
        plain.append(time.perf_counter() - t0)
    n = len(text)
    return {
        "first": _best_rate(n, first),
        "steady": _best_rate(n, steady),
        "regex": _best_rate(n, plain),
    }


def run_speed(args: argparse.Namespace) -> int:
    from sgpe.oracles import CORPUS_FILES, corpus_lines

    started = time.perf_counter()
    rows = []
    for script, names in CORPUS_FILES.items():
        corpora.require(args.corpora, *names)
        text = "\n".join(corpus_lines(args.corpora, script, limit=None)) + "\n"
        rows.append({"script": script, "chars": len(text), **measure_speed(text, args.repeats)})
        print(rows[-1], flush=True)
    meta = records.run_meta(args.invocation, started, repeats=args.repeats)
    records.write_rows(args.out / "scripts_speed.json", rows, meta)
    render.write_reports(args.out, ["scripts-speed"])
    print(render.scripts_speed_table(rows))
    return 0

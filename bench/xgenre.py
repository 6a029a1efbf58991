"""Compression on text of another genre than training: SGPE against plain BPE peers.

Every tokenizer is trained in this run on the same training file at the same vocabulary
size, then measured on held-out files of *other* genres (``xgenre/`` of the corpora:
Sinhala news → legal text and read-speech prompts; Hindi stories → product reviews).
About 25 minutes on 2 cores.

Peers (``bench/peers.py`` has their settings): SGPE at its defaults (``sgpe-fallback``)
and in the original paper mode; HF BPE with ``min_frequency=2``, without and with byte
fallback; SentencePiece BPE and Unigram with byte fallback (lossless, as SGPE).

Metrics are :func:`sgpe.metrics.evaluate`'s: TWR (tokens per whitespace word, lower is
better), broken cuts per 1,000 tokens (cuts strictly inside a syllable), of which
straddling (a token reaching across a syllable edge), round-trip failures and UNK. Writes
``bench/results/xgenre.csv`` (one row per peer, size and test file) and ``xgenre.md``, and
prints the table with the ratio SGPE / HF BPE. Deterministic except for the timings.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from . import corpora, records, render
from .peers import PEERS, read_lines, run_training

HELP = "compression on text of another genre (the README's headline)"
KEYS = ("sgpe-fallback", "sgpe-paper", "hf-bpe", "hf-bpe-bytes", "spm-bpe-bytes", "spm-unigram-bytes")  # fmt: skip
SIZES = (4000, 8000, 16000, 32000)


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument(
        "--langs", nargs="+", default=list(corpora.XGENRE), choices=list(corpora.XGENRE)
    )
    ap.add_argument("--sizes", nargs="+", type=int, default=list(SIZES))
    ap.add_argument("--peers", nargs="+", default=list(KEYS), choices=KEYS)


def measure(
    corpora_dir: Path, langs: list[str], sizes: list[int], peers: list[str]
) -> list[dict[str, Any]]:
    """One row per (language, size, peer, test file)."""
    from sgpe.metrics import evaluate

    from .peers import load

    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for lang in langs:
            train_name, tests = corpora.XGENRE[lang]
            corpus, *test_paths = corpora.require(corpora_dir, train_name, *tests)
            test_lines = {p.name: read_lines(p) for p in test_paths}
            for size in sizes:
                for peer in peers:
                    model = Path(tmp) / f"{lang}-{peer}-{size}{PEERS[peer].suffix}"
                    stats = run_training(peer, corpus, size, model)
                    tok = load(peer, model)
                    for test, lines in test_lines.items():
                        m = evaluate(tok, lines)
                        rows.append(
                            {"lang": lang, "train": corpus.name, "test": test, "size": size,
                             "peer": peer, "train_s": round(stats["train_s"], 2), **m}
                        )  # fmt: skip
                        print(
                            f"{lang} {size:>6} {peer:<18} {test:<22} TWR {m['twr']:.4f} "
                            f"broken/1k {m['broken_per_1k']:.1f} straddling/1k "
                            f"{m['straddling_per_1k']:.1f} rt {m['roundtrip_fail']} unk {m['unk']}",
                            flush=True,
                        )
    return rows


def run(args: argparse.Namespace) -> int:
    rows = measure(args.corpora, args.langs, args.sizes, args.peers)
    records.write_csv(args.out / "xgenre.csv", rows)
    render.write_reports(args.out, ["xgenre"])
    print()
    print(render.xgenre_markdown(rows))
    return 0

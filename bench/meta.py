"""The meta-vocabulary (o200k_base + SGPE) against o200k_base alone, on the dev files.

For each of ``mixed_dev.txt``, ``si_dev.txt`` and ``hi_dev.txt`` every line is encoded
without its newline: tokens over the file, TWR (tokens per whitespace word, lower is
better), CPT (characters per token), the share of the meta tokenizer's tokens that are
SGPE ids, and round trips (lines where ``decode(encode(line)) != line``: must be 0; the
command exits 1 otherwise).

The SGPE side is trained here (``--vocab-size``, default 32,000; fallback policy, so the
meta tokenizer is lossless): on ``si_train`` for ``si_dev``, on ``hi_train`` for ``hi_dev``
and on both for ``mixed_dev``; ``--vocab VOCAB_JSON`` uses one existing vocabulary for all
files instead. The meta vocabulary counts the unified id space (o200k's ids + SGPE's).
Writes ``bench/results/meta.json`` and ``meta.md``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from . import corpora, records, render
from .peers import load_encoding, meta_tokenizer, read_lines

HELP = "the meta-vocabulary (o200k_base + SGPE) vs o200k_base"
# Dev file -> the training files of its SGPE side.
DEV_FILES = {
    "mixed_dev": ("si_train", "hi_train"),
    "si_dev": ("si_train",),
    "hi_dev": ("hi_train",),
}


def add_arguments(ap: argparse.ArgumentParser) -> None:
    from sgpe.settings import TrainSettings

    ap.add_argument("--vocab", type=Path, help="use this SGPE vocab.json for every file")
    ap.add_argument(
        "--vocab-size",
        type=int,
        default=TrainSettings().vocab_size,
        help="SGPE vocabulary size",
    )


def _row(corpus: str, name: str, vocab: int, lines: list[str], ids: list[list[int]]) -> dict[str, Any]:  # fmt: skip
    words = sum(len(x.split()) for x in lines)
    chars = sum(map(len, lines))
    tokens = sum(map(len, ids))
    return {
        "corpus": corpus, "tokenizer": name, "vocab": vocab, "lines": len(lines),
        "words": words, "chars": chars, "tokens": tokens, "twr": tokens / max(words, 1),
        "cpt": chars / max(tokens, 1),
    }  # fmt: skip


def measure(corpora_dir: Path, vocab: Path | None, vocab_size: int) -> list[dict[str, Any]]:
    import sgpe

    cache: dict[tuple[str, ...], tuple[str, Any]] = {}

    def meta_for(train: tuple[str, ...]) -> tuple[str, Any]:
        if vocab is not None:
            train = ("--vocab",)
            if train not in cache:
                cache[train] = (f"meta ({vocab.name})", meta_tokenizer(sgpe.load(vocab), vocab))
        elif train not in cache:
            started = time.perf_counter()
            paths = corpora.require(corpora_dir, *(f"{name}.txt" for name in train))
            docs = [line for p in paths for line in read_lines(p)]
            tok = sgpe.train(docs, vocab_size=vocab_size)
            print(f"trained SGPE on {'+'.join(train)}: {tok} in {time.perf_counter() - started:.1f} s",
                  file=sys.stderr)  # fmt: skip
            name = f"o200k + SGPE {'+'.join(t.split('_')[0] for t in train)}"
            cache[train] = (name, meta_tokenizer(tok))
        return cache[train]

    enc = load_encoding("o200k_base")
    rows: list[dict[str, Any]] = []
    for corpus, train in DEV_FILES.items():
        (path,) = corpora.require(corpora_dir, f"{corpus}.txt")
        lines = read_lines(path)
        ids = [enc.encode_ordinary(line) for line in lines]
        fails = sum(enc.decode(i) != line for i, line in zip(ids, lines))
        rows.append({**_row(corpus, enc.name, enc.n_vocab, lines, ids), "sgpe_share": None,
                     "round_trip_failures": fails})  # fmt: skip
        name, meta = meta_for(train)
        ids = [meta.encode(line) for line in lines]
        fails = sum(meta.decode(i) != line for i, line in zip(ids, lines))
        row = _row(corpus, name, meta.vocab_size, lines, ids)
        sgpe_ids = sum(1 for i in (j for x in ids for j in x) if i >= meta.offset)
        row.update(sgpe_share=sgpe_ids / max(row["tokens"], 1), round_trip_failures=fails)
        rows.append(row)
    return rows


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    rows = measure(args.corpora, args.vocab, args.vocab_size)
    meta = records.run_meta(args.invocation, started, vocab_size=args.vocab_size)
    records.write_rows(args.out / "meta.json", rows, meta)
    render.write_reports(args.out, ["meta"])
    print(render.meta_markdown({"rows": rows, "meta": meta}))
    return 1 if any(r["round_trip_failures"] for r in rows) else 0

"""TWR at vocab 32,000 for the piece modes and the dummy space: why the defaults are what
they are.

Trains SGPE on ``si_train.txt`` and ``hi_train.txt`` three ways: with ``pieces="script"``
(script words, every other character a boundary token: the original SGPE's words), with
whitespace pieces but no dummy space (``prepend_space=False``), and at the defaults; and
measures tokens per whitespace word on the matching dev file (each line encoded on its
own). Writes ``bench/results/pieces.json`` and ``pieces.md``. About 2 minutes.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from . import corpora, records, render
from .peers import read_lines

HELP = "TWR of the piece modes and the dummy space"
OPTIONS: list[dict[str, Any]] = [{"pieces": "script"}, {"prepend_space": False}, {}]
VOCAB = 32_000


def add_arguments(ap: argparse.ArgumentParser) -> None:
    del ap  # no options of its own


def run(args: argparse.Namespace) -> int:
    import sgpe
    from sgpe.metrics import evaluate

    started = time.perf_counter()
    rows = []
    for lang in corpora.LANGS:
        train, dev = corpora.require(args.corpora, corpora.train_file(lang), corpora.dev_file(lang))
        lines = read_lines(dev)
        for options in OPTIONS:
            tok = sgpe.train(train, vocab_size=VOCAB, **options)
            rows.append({"lang": lang, "options": options, "twr": evaluate(tok, lines)["twr"]})
            print(f"{lang}  {options or 'defaults'!s:28s} TWR {rows[-1]['twr']:.3f}", flush=True)
    meta = records.run_meta(args.invocation, started, vocab=VOCAB)
    records.write_rows(args.out / "pieces.json", rows, meta)
    render.write_reports(args.out, ["pieces"])
    return 0

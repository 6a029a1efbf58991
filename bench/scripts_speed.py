"""Syllabification speed on every script's real text.

For each schema, the whole of its real text (the oracle checks' files,
``sgpe.oracles.CORPUS_FILES``) in one ``syllabify(text)`` call with ``script="auto"``, in
M characters per second, of the Python engine (the native core's figures are
``python -m bench native``'s): a *first pass* with a fresh syllabifier
(every distinct word matched by the regex once), the *steady state* (the same text again,
every word known: what a tokenizer sees after its first megabytes) and the *regex only*
(the compiled grammar regex's ``findall``, no word cache). Best of ``--repeats`` runs (the
machine is shared; the best run is the least disturbed). Writes ``scripts_speed.json``
and ``.md``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator
from pathlib import Path

from . import corpora, records, render
from .peers import syllabifier

HELP = "syllabify speed on every script's real text"


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--repeats", type=int, default=3)


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


def script_texts(root: Path) -> Iterator[tuple[str, str]]:
    """Each script and its whole real text (the oracles' corpus files), for the speed
    benches (this one and bench/native.py)."""
    from sgpe.oracles import CORPUS_FILES, corpus_lines

    for script, names in CORPUS_FILES.items():
        corpora.require(root, *names)
        yield script, "\n".join(corpus_lines(root, script, limit=None)) + "\n"


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    rows = []
    for script, text in script_texts(args.corpora):
        rows.append({"script": script, "chars": len(text), **measure_speed(text, args.repeats)})
        print(rows[-1], flush=True)
    meta = records.run_meta(args.invocation, started, repeats=args.repeats)
    records.write_rows(args.out / "scripts_speed.json", rows, meta)
    render.write_reports(args.out, ["scripts-speed"])
    print(render.scripts_speed_table(rows))
    return 0

"""Speed of the native core against the Python engine and peers, all in the same run.

For each schema's real text (the oracle checks' files, ``sgpe.oracles.CORPUS_FILES``), all
of it in one call, ``script="auto"``, in M characters per second, medians of
``--repeats`` runs, every engine and peer timed in the same run:

* ``native cold``: a fresh native syllabifier (``sgpe._native``), token strings out;
* ``native bounds``: the same DFA, token ends as a list of integers;
* ``native offsets``: token ends as one flat array (``offsets``: no Python object per token);
* ``native batch``: the text's lines through ``syllabify_batch`` (rayon, no GIL);
* ``python first``: the pure-Python engine's first pass (fresh word memory);
* ``python steady``: the same text again, every word known;
* ``hf metaspace`` / ``hf o200k split``: HF pre-tokenizers (``pre_tokenize_str``).

Then encoding ``si_dev.txt`` (its lines) with ``sample_data/vocab/sgpe_4k.json``, medians
of ``--repeats`` runs:

* **one thread, whole process**: each encoder in a fresh process of its own (as
  ``bench/speed.py`` runs them), the tools interleaved so that drifting load hits all alike:
  the import of the library, loading the tokenizer, and ``encode`` of every line one by
  one with empty caches, all timed (``whole``), and the encode loop alone (``encode``).
  SGPE under both engines (``SGPE_ENGINE``), tiktoken ``o200k_base`` (``encode_ordinary``);
* **batch**: ``encode_batch`` of all lines, a fresh tokenizer (cold caches) per run: the
  native encoder on a pool of one thread and of two (``TextEncoder.encode_batch(threads=)``,
  the same code), the Python engine's ``encode_batch``, and tiktoken's
  ``encode_ordinary_batch`` (its own threads); warm: the native call again, every piece cached.

Writes ``native.json`` and prints the tables, with the ratios the targets are stated in and
the machine's load average (the machine may be shared). Fails when the native core is not
built.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from . import corpora, records
from .peers import splitter

HELP = "syllabify speed of the native and Python engines, with HF pre-tokenizers"
COLUMNS = (
    "native cold",
    "native bounds",
    "native offsets",
    "native batch",
    "python first",
    "python steady",
    "hf metaspace",
    "hf o200k split",
)


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--repeats", type=int, default=5)


def _median_rate(chars: int, make: Callable[[], Callable[[], Any]], repeats: int) -> float:
    """M chars/s, median over runs; ``make`` builds a fresh callable outside the timing."""
    times = []
    for _ in range(repeats):
        work = make()
        t0 = time.perf_counter()
        work()
        times.append(time.perf_counter() - t0)
    return chars / statistics.median(times) / 1e6


def measure(text: str, repeats: int) -> dict[str, float]:
    from sgpe import engine
    from sgpe.syllables import Syllabifier

    module = engine.native_module()
    if module is None:
        raise SystemExit(f"bench native: {engine.describe()}")
    tables = [engine.schema_tables(s) for s in Syllabifier("auto", python_only=True).schemas]
    lines = text.splitlines(keepends=True)
    n = len(text)

    def fresh_native() -> Any:
        return module.Syllabifier(tables, False)

    def python_steady() -> Callable[[], Any]:
        syl = Syllabifier("auto", python_only=True)
        syl(text)
        return lambda: syl(text)

    metaspace, o200k = splitter("hf-metaspace"), splitter("hf-split-o200k")
    return {
        "native cold": _median_rate(n, lambda: partial(fresh_native().syllabify, text), repeats),
        "native bounds": _median_rate(n, lambda: partial(fresh_native().bounds, text), repeats),
        "native offsets": _median_rate(n, lambda: partial(fresh_native().offsets, text), repeats),
        "native batch": _median_rate(
            n, lambda: partial(fresh_native().syllabify_batch, lines), repeats
        ),
        "python first": _median_rate(
            n, lambda: partial(Syllabifier("auto", python_only=True), text), repeats
        ),
        "python steady": _median_rate(n, python_steady, repeats),
        "hf metaspace": _median_rate(n, lambda: lambda: metaspace(text), repeats),
        "hf o200k split": _median_rate(n, lambda: lambda: o200k(text), repeats),
    }


VOCAB = Path(__file__).resolve().parents[1] / "sample_data" / "vocab" / "sgpe_4k.json"
# One thread, whole process: the encoders, each run in a fresh process.
ONE_THREAD = ("sgpe native", "sgpe python", "tiktoken o200k")
BATCH = (
    "sgpe native 1 thread",
    "sgpe native 2 threads",
    "sgpe python",
    "sgpe native warm",
    "tiktoken o200k batch",
)


def job_encode(kind: str, text_path: str) -> dict[str, Any]:
    """The child-process side: import, load, encode each line of the file (cold caches)."""
    t0 = time.perf_counter()
    if kind == "tiktoken o200k":
        from .peers import load_encoding

        encode = load_encoding("o200k_base").encode_ordinary
    else:
        import sgpe

        encode = sgpe.Tokenizer.load(VOCAB).encode
    t1 = time.perf_counter()
    with open(text_path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    t2 = time.perf_counter()
    tokens = 0
    for line in lines:
        tokens += len(encode(line))
    t3 = time.perf_counter()
    return {"load": t1 - t0, "encode": t3 - t2, "tokens": tokens, "chars": sum(map(len, lines))}


def _child(kind: str, text: Path) -> dict[str, Any]:
    engine = {"sgpe native": "native", "sgpe python": "python"}.get(kind, "")
    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "SGPE_ENGINE": engine, "PYTHONHASHSEED": "0", "PYTHONPATH": root}
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "bench.native", "encode", kind, str(text)],
        capture_output=True, text=True, env=env, timeout=900,
    )  # fmt: skip
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"bench native: the {kind} child failed:\n{proc.stderr[-2000:]}")
    return {**json.loads(proc.stdout.strip().splitlines()[-1]), "process": wall}


def measure_one_thread(text: Path, repeats: int) -> dict[str, dict[str, float]]:
    """M chars/s of each encoder in its own process: ``whole`` (import + load + encode),
    ``encode`` (the loop alone), medians of ``repeats`` interleaved runs."""
    runs: dict[str, list[dict[str, Any]]] = {k: [] for k in ONE_THREAD}
    for _ in range(repeats):
        for kind in ONE_THREAD:
            runs[kind].append(_child(kind, text))
    out = {}
    for kind, rs in runs.items():
        n = rs[0]["chars"]
        out[kind] = {
            "whole": n / statistics.median(r["load"] + r["encode"] for r in rs) / 1e6,
            "encode": n / statistics.median(r["encode"] for r in rs) / 1e6,
            "load_s": statistics.median(r["load"] for r in rs),
            "tokens": rs[0]["tokens"],
        }
    return out


def measure_batch(lines: list[str], repeats: int) -> dict[str, float]:
    import sgpe
    from sgpe.engine import native_module

    from .peers import load_encoding

    if native_module() is None:
        raise SystemExit("bench native: the native core is not built")
    n = sum(map(len, lines))

    def native(threads: int) -> Callable[[], Any]:
        tok = sgpe.Tokenizer.load(VOCAB)
        return partial(tok._native_pieces.encode_batch, lines, tok.prepend_space, threads)

    def python() -> Callable[[], Any]:
        tok = sgpe.Tokenizer.load(VOCAB)
        tok._native_pieces = None  # the Python engine's path
        return partial(tok.encode_batch, lines)

    def warm() -> Callable[[], Any]:
        tok = sgpe.Tokenizer.load(VOCAB)
        tok.encode_batch(lines)
        return partial(tok._native_pieces.encode_batch, lines, tok.prepend_space, 1)

    enc = load_encoding("o200k_base")
    want = python()()
    assert native(2)() == want and native(1)() == want, "the engines disagree"
    return {
        "sgpe native 1 thread": _median_rate(n, partial(native, 1), repeats),
        "sgpe native 2 threads": _median_rate(n, partial(native, 2), repeats),
        "sgpe python": _median_rate(n, python, repeats),
        "sgpe native warm": _median_rate(n, warm, repeats),
        "tiktoken o200k batch": _median_rate(
            n, lambda: partial(enc.encode_ordinary_batch, lines), repeats
        ),
    }


def table(rows: list[dict[str, Any]]) -> str:
    out = [
        "| schema | characters | " + " | ".join(COLUMNS) + " |",
        "|---|---:|" + "---:|" * len(COLUMNS),
    ]
    for r in rows:
        cells = " | ".join(f"{r[c]:.1f}" for c in COLUMNS)
        out.append(f"| {r['script']} | {r['chars']:,} | {cells} |")
    return "\n".join(out)


def run(args: argparse.Namespace) -> int:
    from .scripts_speed import script_texts

    started = time.perf_counter()
    rows = []
    for script, text in script_texts(args.corpora):
        rows.append({"script": script, "chars": len(text), **measure(text, args.repeats)})
        print(rows[-1], flush=True)
    si_dev = args.corpora / "si_dev.txt"
    corpora.require(args.corpora, "si_dev.txt")
    load_before = os.getloadavg()
    one = measure_one_thread(si_dev, args.repeats)
    print(one, flush=True)
    batch = measure_batch(si_dev.read_text(encoding="utf-8").splitlines(), args.repeats)
    print(batch, flush=True)
    tik = one["tiktoken o200k"]
    ratios = {
        "one thread whole, sgpe native / tiktoken": one["sgpe native"]["whole"] / tik["whole"],
        "one thread encode, sgpe native / tiktoken": one["sgpe native"]["encode"] / tik["encode"],
        "one thread encode, sgpe native / sgpe python": one["sgpe native"]["encode"]
        / one["sgpe python"]["encode"],
        "batch, native 2 threads / 1 thread": batch["sgpe native 2 threads"]
        / batch["sgpe native 1 thread"],
    }
    load = {"before": load_before, "after": os.getloadavg()}
    meta = records.run_meta(
        args.invocation,
        started,
        repeats=args.repeats,
        encoding={"one_thread": one, "batch": batch, "ratios": ratios},
        load_average=load,
    )
    records.write_rows(args.out / "native.json", rows, meta)
    print(table(rows))
    print(f"\nM characters per second, medians of {args.repeats} runs.\n")
    print("| si_dev.txt, sgpe_4k.json, one thread, own process | whole | encode | load s |")
    print("|---|---:|---:|---:|")
    for name in ONE_THREAD:
        r = one[name]
        print(f"| {name} | {r['whole']:.2f} | {r['encode']:.2f} | {r['load_s']:.3f} |")
    print("\n| si_dev.txt, encode_batch | M chars/s |\n|---|---:|")
    for name in BATCH:
        print(f"| {name} | {batch[name]:.2f} |")
    print()
    for name, value in ratios.items():
        print(f"{name}: {value:.2f}x")
    print(f"load average (1, 5, 15 min) before {load['before']}, after {load['after']}")
    return 0


def main(argv: list[str]) -> int:
    """The child-process side: ``encode KIND TEXT`` (run by ``python -m bench native``)."""
    if len(argv) != 3 or argv[0] != "encode" or argv[1] not in ONE_THREAD:
        print("usage: python -m bench.native encode KIND TEXT (run by python -m bench native)")
        return 2
    print(json.dumps(job_encode(argv[1], argv[2])))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

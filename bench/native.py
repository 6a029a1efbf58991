"""Syllabification speed of both engines, with HF ``tokenizers`` pre-tokenizers as peers.

For each schema's real text (the oracle checks' files, ``sgpe.oracles.CORPUS_FILES``), all
of it in one call, ``script="auto"``, in M characters per second, medians of
``--repeats`` runs, every engine and peer timed in the same run:

* ``native cold``: a fresh native syllabifier (``sgpe._native``), token strings out;
* ``native bounds``: the same DFA, token ends as integers (no string per token);
* ``native batch``: the text's lines through ``syllabify_batch`` (rayon, no GIL);
* ``python first``: the pure-Python engine's first pass (fresh word memory);
* ``python steady``: the same text again, every word known;
* ``hf metaspace`` / ``hf o200k split``: HF pre-tokenizers (``pre_tokenize_str``).

Then encoding ``si_dev.txt`` (its lines) with ``sample_data/vocab/sgpe_4k.json``, medians
of ``--repeats`` runs, a fresh tokenizer (empty caches) for each cold run: SGPE's
``encode_batch`` with the native piece encoder (rayon over the machine's cores) and with the
Python engine, the same call again (warm: every piece cached), and tiktoken ``o200k_base``
(``encode_ordinary`` line by line on one thread, ``encode_ordinary_batch`` on its threads).

Then the training front end on ``si_train.txt`` (seconds, medians of ``--repeats`` runs):
counting its pieces (the native counter against the Python engine's one process and its
pool of 2, as :func:`sgpe.corpus.counting.count_pieces` would run them) and coding the
pieces into units (``corpus_units`` native and Python), with Hugging Face's whole BPE
training to 32k on the same file (Metaspace, ``tokenizers``) as the peer.

Writes ``native.json`` and prints the tables. Fails when the native core is not built.
"""

from __future__ import annotations

import argparse
import statistics
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


ENCODERS = (
    "sgpe native cold",
    "sgpe python cold",
    "sgpe warm",
    "tiktoken o200k one thread",
    "tiktoken o200k batch",
)


def measure_encoding(lines: list[str], repeats: int) -> dict[str, float]:
    import sgpe
    from sgpe.engine import native_module

    from .peers import load_encoding

    if native_module() is None:
        raise SystemExit("bench native: the native core is not built")
    vocab = Path(__file__).resolve().parents[1] / "sample_data" / "vocab" / "sgpe_4k.json"
    n = sum(map(len, lines))

    def fresh(native: bool) -> Callable[[], Any]:
        tok = sgpe.Tokenizer.load(vocab)
        if not native:
            tok._native_pieces = None  # the Python engine's path
        return partial(tok.encode_batch, lines)

    def warm() -> Callable[[], Any]:
        tok = sgpe.Tokenizer.load(vocab)
        tok.encode_batch(lines)
        return partial(tok.encode_batch, lines)

    enc = load_encoding("o200k_base")

    def one_by_one() -> None:
        for line in lines:
            enc.encode_ordinary(line)

    return {
        "sgpe native cold": _median_rate(n, partial(fresh, True), repeats),
        "sgpe python cold": _median_rate(n, partial(fresh, False), repeats),
        "sgpe warm": _median_rate(n, warm, repeats),
        "tiktoken o200k one thread": _median_rate(n, lambda: one_by_one, repeats),
        "tiktoken o200k batch": _median_rate(
            n, lambda: partial(enc.encode_ordinary_batch, lines), repeats
        ),
    }


def measure_front_end(corpus: Path, repeats: int) -> dict[str, float]:
    """Seconds (medians) of the training front end on ``corpus``, both engines."""
    import tempfile

    from sgpe.corpus.counting import count_jobs, count_jobs_native
    from sgpe.corpus.readers import CorpusStream
    from sgpe.hierarchical import corpus_units
    from sgpe.pieces import get_word_splitter

    splitter = get_word_splitter("auto", True)

    def count(workers: int) -> Any:
        stream = CorpusStream(corpus, prefix=" ")
        if workers:
            return count_jobs(stream.jobs(), splitter.pattern, " ", workers, serial_bytes=0)[0]
        native = splitter.native_counter(" ")
        assert native is not None
        return count_jobs_native(stream.jobs(), native, splitter.pattern, " ")[0]

    def seconds(work: Callable[[], Any]) -> float:
        runs = []
        for _ in range(repeats):
            t = time.perf_counter()
            work()
            runs.append(time.perf_counter() - t)
        return statistics.median(runs)

    counts = count(0)
    units = partial(corpus_units, counts, splitter.match_units, splitter.max_units)

    def hf_train() -> None:
        from tokenizers import Tokenizer, models, pre_tokenizers, trainers

        tok = Tokenizer(models.BPE(unk_token="[UNK]"))
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        trainer = trainers.BpeTrainer(
            vocab_size=32000, special_tokens=["[UNK]"], show_progress=False
        )
        tok.train([str(corpus)], trainer)
        with tempfile.TemporaryDirectory() as tmp:
            tok.save(str(Path(tmp) / "hf.json"))

    return {
        "count native": seconds(partial(count, 0)),
        "count python, 1 process": seconds(partial(count, 1)),
        "count python, pool of 2": seconds(partial(count, 2)),
        "corpus_units native": seconds(partial(units, native=splitter.native_units())),
        "corpus_units python": seconds(units),
        "HF BPE whole training (peer)": seconds(hf_train),
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
    encoding = measure_encoding(si_dev.read_text(encoding="utf-8").splitlines(), args.repeats)
    corpora.require(args.corpora, "si_train.txt")
    front = measure_front_end(args.corpora / "si_train.txt", args.repeats)
    meta = records.run_meta(
        args.invocation, started, repeats=args.repeats, encoding=encoding, front_end=front
    )
    records.write_rows(args.out / "native.json", rows, meta)
    print(table(rows))
    print(f"\nM characters per second, medians of {args.repeats} runs.\n")
    print("| si_dev.txt, sgpe_4k.json | M chars/s |\n|---|---:|")
    for name in ENCODERS:
        print(f"| {name} | {encoding[name]:.2f} |")
    print("\n| si_train.txt, training front end | seconds | x native |\n|---|---:|---:|")
    base = front["count native"]
    for name, sec in front.items():
        ref = front["corpus_units native"] if name.startswith("corpus_units") else base
        print(f"| {name} | {sec:.3f} | {sec / ref:.2f} |")
    return 0

"""Speed of the native core against the Python engine and peers, all in the same run.

For each schema's real text (the oracle checks' files, ``sgpe.oracles.CORPUS_FILES``), all
of it in one call, ``script="auto"``, in M characters per second, medians of
``--repeats`` runs, every engine and peer timed in the same run (a run times enough fresh
callables one after the other to last 20 ms, each still cold):

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
  the same code), the flat form on one thread and two (``Tokenizer.encode_batch_flat``:
  one array of ids and offsets, no Python object per id, no GIL taken), the Python
  engine's ``encode_batch``, and tiktoken's ``encode_ordinary_batch`` (its own threads);
  warm: the native call again, every piece cached. Beside the two 2/1 ratios, what the
  machine gives two threads at that moment (two independent native calls on two threads
  against one after the other: the ceiling of any 2/1 ratio on a shared machine) and the
  CPU seconds per wall second of the one-thread batch (about 1: one thread does all the
  work, the Python lists included).

Then training, whole processes as a user runs them on ``si_train.txt`` to ``--train-vocab``
tokens, medians of ``--train-repeats`` runs, the trainers' runs interleaved so that a busy
moment of the machine hits them alike: ``python -m sgpe train`` (the default hierarchical
mode), ``--mode paper`` and ``--model bytebpe``, each under ``SGPE_ENGINE=native`` and
``SGPE_ENGINE=python`` (the two engines' vocabularies must be byte-identical, or the bench
fails), and, each in a process of its own, HF ``tokenizers`` BPE with Metaspace and
byte-level BPE with the o200k split regex (``bench/peers.py``) and SentencePiece BPE (the
options of ``bench/peers.py``). ``--train-repeats 0`` skips it; ``--only train`` runs it
alone and prints it (no file written). Before any timing, ``sgpe`` and ``bench`` are
compiled to bytecode (:func:`compile_bytecode`), as an installed package is.

Then the training front end on ``si_train.txt`` (seconds, medians of ``--repeats`` runs):
counting its pieces (the native counter against the Python engine's one process and its
pool of 2, as :func:`sgpe.corpus.counting.count_pieces` would run them) and coding the
pieces into units (``corpus_units`` native and Python), with Hugging Face's whole BPE
training to 32k on the same file (Metaspace, ``tokenizers``) as the peer.

Then loading a 32k vocabulary against HF ``tokenizers`` on the same vocabulary, in
process and as a whole ``python -m sgpe encode`` process (``bench/load.py``; ``--only
load`` runs that section alone), written to ``native_load.json``.

Writes ``native.json`` and prints the tables, with the ratios the targets are stated in and
the machine's load average (the machine may be shared), then each target (training against
SentencePiece and HF, loading against HF, as docs/performance.md states them) with its ratio
and verdict. Fails when the native core is not
built.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import sgpe

from . import corpora, records
from .peers import _train_hf, splitter, syllabifier

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


TRAINERS = (
    "sgpe native",
    "sgpe python",
    "paper native",
    "paper python",
    "bytebpe native",
    "bytebpe python",
    "hf bpe metaspace",
    "hf byte-level o200k",
    "sentencepiece bpe",
)
# The peer each trainer is compared with (the same kind of model).
PEER = {"sgpe": "hf bpe metaspace", "paper": "hf bpe metaspace", "bytebpe": "hf byte-level o200k"}


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--train-repeats", type=int, default=3, help="0: no training rows")
    ap.add_argument("--train-vocab", type=int, default=32_000)
    ap.add_argument(
        "--only", choices=("load", "train"), default=None,
        help="load: only the load section (bench/load.py), written to native_load.json; "
        "train: only the training rows and their targets, printed (no file written)",
    )  # fmt: skip
    ap.add_argument(
        "--cache", type=Path, default=Path(tempfile.gettempdir()) / "sgpe-bench-cache",
        help="where the load section's 32k vocabulary is kept (default: %(default)s)",
    )  # fmt: skip


# A timing covers at least this long: a cold `offsets` of one script's text takes 2-3 ms,
# where a shared machine's hiccups moved single timings by a third.
MIN_TIMING_S = 0.02


def _median_rate(chars: int, make: Callable[[], Callable[[], Any]], repeats: int) -> float:
    """M chars/s, median over runs; ``make`` builds a fresh callable outside the timing.
    A run times ``k`` fresh callables one after the other (each still cold: its own
    syllabifier or tokenizer), ``k`` enough for :data:`MIN_TIMING_S` by a first untimed call."""
    probe = make()
    t0 = time.perf_counter()
    probe()
    k = max(1, math.ceil(MIN_TIMING_S / max(time.perf_counter() - t0, 1e-9)))
    times = []
    for _ in range(repeats):
        works = [make() for _ in range(k)]
        t0 = time.perf_counter()
        for work in works:
            work()
        times.append((time.perf_counter() - t0) / k)
    return chars / statistics.median(times) / 1e6


def _interleaved_rates(
    chars: int, makes: dict[str, Callable[[], Callable[[], Any]]], repeats: int
) -> dict[str, float]:
    """:func:`_median_rate` of each, their runs interleaved (one of each per round): the
    2/1 thread ratios of a shared machine then compare runs of the same moments, not one
    block of runs against a later one."""
    times: dict[str, list[float]] = {name: [] for name in makes}
    for _ in range(repeats):
        for name, make in makes.items():
            work = make()
            t0 = time.perf_counter()
            work()
            times[name].append(time.perf_counter() - t0)
    return {name: chars / statistics.median(t) / 1e6 for name, t in times.items()}


def measure(text: str, repeats: int) -> dict[str, float]:
    from sgpe import _engine as engine

    module = engine.native_module()
    if module is None:
        raise SystemExit(f"bench native: {engine.describe()}")
    tables = list(engine.builtin_tables("auto"))
    lines = text.splitlines(keepends=True)
    n = len(text)

    def fresh_native() -> Any:
        return module.Syllabifier(tables, False)

    def python_steady() -> Callable[[], Any]:
        syl = syllabifier()
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
        "python first": _median_rate(n, lambda: partial(syllabifier(), text), repeats),
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
    "sgpe native flat 1 thread",
    "sgpe native flat 2 threads",
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

        encode = sgpe.load(VOCAB).encode
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
    from sgpe._engine import native_module

    from .peers import load_encoding

    if native_module() is None:
        raise SystemExit("bench native: the native core is not built")
    n = sum(map(len, lines))

    def native(threads: int) -> Callable[[], Any]:
        tok = sgpe.load(VOCAB)
        return partial(tok._native_pieces.encode_batch, lines, tok.prepend_space, threads)

    def flat(threads: int) -> Callable[[], Any]:
        tok = sgpe.load(VOCAB)
        assert tok._native_pieces is not None  # built outside the timing, as in native()
        return partial(tok.encode_batch_flat, lines, num_threads=threads)

    def python() -> Callable[[], Any]:
        tok = sgpe.load(VOCAB)
        tok._native_pieces = None  # the Python engine's path
        return partial(tok.encode_batch, lines)

    def warm() -> Callable[[], Any]:
        tok = sgpe.load(VOCAB)
        tok.encode_batch(lines)
        return partial(tok._native_pieces.encode_batch, lines, tok.prepend_space, 1)

    enc = load_encoding("o200k_base")
    want = python()()
    assert native(2)() == want and native(1)() == want, "the engines disagree"
    ids, offsets = flat(2)()
    flat_want = [i for ids_of in want for i in ids_of]
    assert ids.tolist() == flat_want and flat(1)()[0] == ids, "the flat form disagrees"
    assert offsets[-1] == len(ids) and len(offsets) == len(lines) + 1
    threads = _interleaved_rates(
        n,
        {
            "sgpe native 1 thread": partial(native, 1),
            "sgpe native 2 threads": partial(native, 2),
            "sgpe native flat 1 thread": partial(flat, 1),
            "sgpe native flat 2 threads": partial(flat, 2),
        },
        repeats,
    )
    return {
        **threads,
        "sgpe python": _median_rate(n, python, repeats),
        "sgpe native warm": _median_rate(n, warm, repeats),
        "tiktoken o200k batch": _median_rate(
            n, lambda: partial(enc.encode_ordinary_batch, lines), repeats
        ),
    }


def measure_capacity(text: str, repeats: int) -> dict[str, float]:
    """What two threads of this machine give now: two independent native calls
    (``Syllabifier.offsets``, no GIL, no shared state) on two Python threads, against the
    same two calls one after the other (a ratio, median of ``repeats``), and the CPU
    seconds per wall second of ``encode_batch(threads=1)`` (about 1 when one thread
    does all the work). On a loaded machine the first is the ceiling of any 2/1 ratio."""
    import threading

    from sgpe import _engine as engine

    module = engine.native_module()
    syl = module.Syllabifier(list(engine.builtin_tables("auto")), False)

    def work() -> None:
        syl.offsets(text)

    ratios, busy = [], []
    lines = text.splitlines()
    for _ in range(repeats):
        t0 = time.perf_counter()
        work()
        work()
        serial = time.perf_counter() - t0
        threads = [threading.Thread(target=work) for _ in range(2)]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        ratios.append(serial / (time.perf_counter() - t0))
        tok = sgpe.load(VOCAB)
        c0, t0 = time.process_time(), time.perf_counter()
        tok._native_pieces.encode_batch(lines, tok.prepend_space, 1)
        busy.append((time.process_time() - c0) / (time.perf_counter() - t0))
    return {
        "two independent native calls, 2 threads / 1 thread": statistics.median(ratios),
        "encode_batch threads=1, CPU s per wall s": statistics.median(busy),
    }


def _train_command(name: str, corpus: Path, vocab_size: int, out: Path) -> list[str]:
    if name.startswith("hf"):
        pre = "metaspace" if "metaspace" in name else "bytelevel-o200k"
        code = (
            "import sys; from bench.peers import _train_hf; "
            "_train_hf(sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4])[1]()"
        )
        return [sys.executable, "-c", code, str(corpus), str(vocab_size), str(out / "hf.json"), pre]
    if name.startswith("sentencepiece"):
        code = (
            "import sys; from bench.peers import _train_spm; "
            "_train_spm(sys.argv[1], int(sys.argv[2]), sys.argv[3], 'bpe')"
        )
        return [sys.executable, "-c", code, str(corpus), str(vocab_size), str(out / "spm.model")]
    model = {"sgpe": [], "bytebpe": ["--model", "bytebpe"], "paper": ["--mode", "paper"]}
    return [
        *(sys.executable, "-m", "sgpe", "train", "--corpus", str(corpus), "--out", str(out)),
        *(*model[name.split()[0]], "--vocab-size", str(vocab_size)),
    ]


def compile_bytecode(root: Path) -> None:
    """Compile this checkout's modules (``sgpe``, ``bench``) into their ``__pycache__``, as
    pip does when it installs a package: a timed process then reads them compiled, as it
    reads the peers' modules from site-packages. Where ``PYTHONDONTWRITEBYTECODE`` is set
    (and nothing compiled them before), every ``python -m sgpe`` process would compile
    sgpe's modules from source, about 0.3 s of CPU that no installed copy pays."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", "sgpe", "bench"],
        env=env, cwd=root, check=True, capture_output=True,
    )  # fmt: skip


def measure_training(corpus: Path, vocab_size: int, repeats: int) -> dict[str, float]:
    """Seconds of each whole training process, medians of ``repeats`` runs, the trainers'
    runs interleaved; fails when an sgpe model's two engines give different vocabularies."""
    root = Path(__file__).resolve().parents[1]
    times: dict[str, list[float]] = {name: [] for name in TRAINERS}
    with tempfile.TemporaryDirectory(prefix="bench-native-") as tmp:
        for _ in range(repeats):
            for name in TRAINERS:
                out = Path(tmp) / name.replace(" ", "-")
                shutil.rmtree(out, ignore_errors=True)
                out.mkdir()
                env = dict(os.environ)
                env.pop("SGPE_ENGINE", None)
                if name.endswith(("native", "python")):
                    env["SGPE_ENGINE"] = name.split()[-1]
                t0 = time.perf_counter()
                done = subprocess.run(
                    _train_command(name, corpus, vocab_size, out),
                    env=env,
                    cwd=root,
                    capture_output=True,
                    text=True,
                )
                times[name].append(time.perf_counter() - t0)
                if done.returncode:
                    raise SystemExit(f"bench native: {name} failed:\n{done.stderr[-2000:]}")
            for model in PEER:
                vocabs = {
                    (Path(tmp) / f"{model}-{engine}" / "vocab.json").read_bytes()
                    for engine in ("native", "python")
                }
                if len(vocabs) != 1:
                    raise SystemExit(
                        f"bench native: the {model} vocabularies of the engines differ"
                    )
    seconds = {name: statistics.median(t) for name, t in times.items()}
    for name in TRAINERS:
        print(f"{name}: {seconds[name]:.2f} s", flush=True)
    return seconds


def measure_front_end(corpus: Path, repeats: int) -> dict[str, float]:
    """Seconds (medians) of the training front end on ``corpus``, both engines."""
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
        with tempfile.TemporaryDirectory() as tmp:
            _train_hf(str(corpus), 32000, str(Path(tmp) / "hf.json"), "metaspace")[1]()

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


def run_load(args: argparse.Namespace) -> dict[str, Any]:
    """The load section: measured, written to ``native_load.json``, printed, returned."""
    from .load import measure_load, print_load

    started = time.perf_counter()
    corpora.require(args.corpora, "si_train.txt")
    corpora.require(args.corpora, "si_dev.txt")
    before = os.getloadavg()
    load = measure_load(args.corpora, args.cache, args.repeats)
    meta = records.run_meta(
        args.invocation,
        started,
        repeats=args.repeats,
        load_average={"before": before, "after": os.getloadavg()},
        **{k: v for k, v in load.items() if k in ("vocab_size", "samples", "ratios")},
    )
    records.write_rows(args.out / "native_load.json", [load["seconds"]], meta)
    print_load(load)
    return load


def run(args: argparse.Namespace) -> int:
    from .scripts_speed import script_texts

    compile_bytecode(Path(__file__).resolve().parents[1])  # every timed process reads it
    if args.only == "load":
        print(load_targets(run_load(args)))
        return 0
    if args.only == "train":
        run_train(args)
        return 0
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
        "flat batch, 2 threads / 1 thread": batch["sgpe native flat 2 threads"]
        / batch["sgpe native flat 1 thread"],
    }
    capacity = measure_capacity(si_dev.read_text(encoding="utf-8"), args.repeats)
    print(capacity, flush=True)
    ratios.update(capacity)
    load: dict[str, Any] = {"before": load_before, "after": os.getloadavg()}
    corpora.require(args.corpora, "si_train.txt")
    front = measure_front_end(args.corpora / "si_train.txt", args.repeats)
    training: dict[str, float] = {}
    if args.train_repeats > 0:
        train_before = os.getloadavg()
        training = measure_training(
            args.corpora / "si_train.txt", args.train_vocab, args.train_repeats
        )
        load["training"] = {"before": train_before, "after": os.getloadavg()}
    meta = records.run_meta(
        args.invocation,
        started,
        repeats=args.repeats,
        encoding={"one_thread": one, "batch": batch, "ratios": ratios},
        load_average=load,
        front_end=front,
        training=training,
        train_vocab=args.train_vocab,
        train_repeats=args.train_repeats,
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
    print("\n| si_train.txt, training front end | seconds | x native |\n|---|---:|---:|")
    base = front["count native"]
    for name, sec in front.items():
        ref = front["corpus_units native"] if name.startswith("corpus_units") else base
        print(f"| {name} | {sec:.3f} | {sec / ref:.2f} |")
    if training:
        print_training(training, load["training"], args)
    load_result = run_load(args)
    print(load_targets(load_result))
    return 0


def print_training(training: dict[str, float], load: dict[str, Any], args: Any) -> None:
    print(
        f"\nTraining si_train.txt to {args.train_vocab:,} tokens, whole processes, "
        f"medians of {args.train_repeats} runs.\n"
    )
    print("| trainer | seconds | / its HF peer | python / native |\n|---|---:|---:|---:|")
    for name in TRAINERS:
        model, engine = name.split()[0], name.split()[-1]
        peer = training[PEER[model]] if model in PEER else None
        vs_peer = "" if peer is None else f"{training[name] / peer:.2f}"
        speedup = ""
        if engine == "native":
            speedup = f"{training[f'{model} python'] / training[name]:.2f}x"
        print(f"| {name} | {training[name]:.2f} | {vs_peer} | {speedup} |")
    print(training_targets(training, load))


def run_train(args: argparse.Namespace) -> None:
    """``--only train``: the training rows and their targets, printed."""
    corpora.require(args.corpora, "si_train.txt")
    before = os.getloadavg()
    training = measure_training(
        args.corpora / "si_train.txt", args.train_vocab, max(1, args.train_repeats)
    )
    print_training(training, {"before": before, "after": os.getloadavg()}, args)


# The targets (docs/performance.md): a whole `python -m sgpe train` process at most this many times the
# peer's in the same run, and loading a 32k vocabulary no slower than HF tokenizers.
TRAIN_TARGETS = {"sentencepiece bpe": 1.1, "hf bpe metaspace": 0.5}


def training_targets(training: dict[str, float], load: dict[str, Any]) -> str:
    """The training ratios the targets are stated in, each with its verdict."""
    lines = [
        "\nTargets, training (sgpe native, the default mode, against each peer in this run; "
        f"load average before {load['before'][0]:.1f}, after {load['after'][0]:.1f}):"
    ]
    for peer, most in TRAIN_TARGETS.items():
        ratio = training["sgpe native"] / training[peer]
        verdict = "met" if ratio <= most else "NOT met"
        lines.append(
            f"  sgpe native / {peer}: {training['sgpe native']:.2f} s / {training[peer]:.2f} s"
            f" = {ratio:.2f}x (target <= {most}x): {verdict}"
        )
    return "\n".join(lines)


def load_targets(load: dict[str, Any]) -> str:
    """The loading ratios (target: at most HF's time), each with its verdict."""
    s = load["seconds"]
    lines = ["\nTargets, loading a 32k vocabulary (sgpe native against HF tokenizers):"]
    for what, ours, hf in (
        ("load + first encode, in process", "sgpe native", "hf tokenizers"),
        ("whole process, encode one line", "sgpe native cli", "hf tokenizers process"),
    ):
        ratio = s[ours] / s[hf]
        verdict = "met" if ratio <= 1.0 else "NOT met"
        lines.append(f"  {what}: {ratio:.2f}x (target <= 1.0x): {verdict}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    """The child-process side: ``encode KIND TEXT`` (run by ``python -m bench native``)."""
    if len(argv) != 3 or argv[0] != "encode" or argv[1] not in ONE_THREAD:
        print("usage: python -m bench.native encode KIND TEXT (run by python -m bench native)")
        return 2
    print(json.dumps(job_encode(argv[1], argv[2])))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

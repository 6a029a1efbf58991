"""Loading a vocabulary, against HF ``tokenizers`` on the same vocabulary (the load section
of ``python -m bench native``; ``--only load`` runs it alone).

A 32k vocabulary trained on ``si_train.txt`` with superwords from 28,800 (``python -m sgpe
train``), and its ``tokenizer.json`` (``python -m sgpe export``), both cached under
``--cache`` by the corpus's hash and the package version. Every sample is a fresh process,
the tools interleaved so that drifting load hits all alike, medians of ``--repeats``:

* **load + first encode, in process**: after the imports (``from sgpe import Tokenizer``,
  ``from tokenizers import Tokenizer``), ``Tokenizer.load`` (sgpe, under
  each engine) or ``Tokenizer.from_file`` (HF) and the ``encode`` of the first line of
  ``si_dev.txt``, timed together inside the process;
* **whole process, one line**: ``python -m sgpe encode --vocab V`` with that line on stdin,
  against a ``python -c`` process that imports ``tokenizers``, loads the ``tokenizer.json``,
  encodes the line and prints its ids: start-up, imports, load, encode and output.

Each kind runs once untimed first (the files then sit in the page cache for every tool
alike); sgpe's bytecode is compiled before the bench starts (``bench/__main__.py``).
Writes ``native_load.json``; the README's native table shows its two rows.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import sgpe
from sgpe import __version__ as SGPE_VERSION
from sgpe._atomic import file_sha256

ROOT = Path(__file__).resolve().parents[1]
VOCAB_SIZE = 32_000
SUPERWORDS_FROM = 28_800
IN_PROCESS = ("sgpe native", "sgpe python", "hf tokenizers")
WHOLE = ("sgpe native cli", "sgpe python cli", "hf tokenizers process")
# The HF process of the whole-process rows: what `python -m sgpe encode` does, with HF.
HF_PROCESS = (
    "import sys, tokenizers; "
    "t = tokenizers.Tokenizer.from_file(sys.argv[1]); "
    "print(t.encode(sys.stdin.readline().rstrip('\\n')).ids)"
)


def vocabulary(corpora: Path, cache: Path) -> tuple[Path, Path]:
    """The 32k ``vocab.json`` and its ``tokenizer.json``, trained and exported once per
    corpus and package version."""
    corpus = corpora / "si_train.txt"
    folder = cache / f"load-si32k-{file_sha256(corpus)[:12]}-{SGPE_VERSION}"
    vocab, hf = folder / "vocab.json", folder / "tokenizer.json"
    if vocab.exists() and hf.exists():
        return vocab, hf
    folder.mkdir(parents=True, exist_ok=True)
    train = [sys.executable, "-m", "sgpe", "train", "--corpus", str(corpus)]
    train += ["--out", str(folder / "run"), "--vocab-size", str(VOCAB_SIZE)]
    train += ["--superwords-from", str(SUPERWORDS_FROM)]
    subprocess.run(train, check=True, capture_output=True, cwd=ROOT, env=_env(""))
    (folder / "run" / "vocab.json").replace(vocab)
    export = [sys.executable, "-m", "sgpe", "export", "--vocab", str(vocab), "--out", str(hf)]
    subprocess.run(export, check=True, capture_output=True, cwd=ROOT, env=_env(""))
    return vocab, hf


def _env(engine: str) -> dict[str, str]:
    return {**os.environ, "SGPE_ENGINE": engine, "PYTHONPATH": str(ROOT)}


def job_load(kind: str, path: str, text_path: str) -> float:
    """The child-process side of the in-process rows: seconds of load + first encode."""
    with open(text_path, encoding="utf-8") as f:
        line = f.readline().rstrip("\n")
    # The library's classes are imported before the clock starts, for both: sgpe's public
    # names import their modules on first use (sgpe/__init__.py), and that import is the
    # whole-process rows' business, as `import tokenizers` is.
    if kind == "hf tokenizers":
        from tokenizers import Tokenizer as HF

        t0 = time.perf_counter()
        HF.from_file(path).encode(line)
        return time.perf_counter() - t0

    t0 = time.perf_counter()
    sgpe.load(path).encode(line)
    return time.perf_counter() - t0


def _in_process(kind: str, vocab: Path, hf: Path, text: Path) -> float:
    path = hf if kind.startswith("hf") else vocab
    engine = kind.split()[-1] if kind.startswith("sgpe") else ""
    code = "import sys; from bench.load import job_load; print(job_load(*sys.argv[1:]))"
    proc = subprocess.run(
        [sys.executable, "-c", code, kind, str(path), str(text)],
        capture_output=True, text=True, env=_env(engine), cwd=ROOT, timeout=300,
    )  # fmt: skip
    if proc.returncode != 0:
        raise RuntimeError(f"bench load: the {kind} child failed:\n{proc.stderr[-2000:]}")
    return float(proc.stdout.strip().splitlines()[-1])


def _whole(kind: str, vocab: Path, hf: Path, line: bytes) -> tuple[float, str]:
    if kind.startswith("hf"):
        command, engine = [sys.executable, "-c", HF_PROCESS, str(hf)], ""
    else:
        command = [sys.executable, "-m", "sgpe", "encode", "--vocab", str(vocab)]
        engine = kind.split()[1]
    t0 = time.perf_counter()
    proc = subprocess.run(command, input=line, capture_output=True, env=_env(engine), cwd=ROOT)
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"bench load: {kind} failed:\n{proc.stderr[-2000:].decode()}")
    return seconds, proc.stdout.decode().strip()


def measure_load(corpora: Path, cache: Path, repeats: int) -> dict[str, Any]:
    """Medians (seconds) of every kind, and the ratios against HF."""
    vocab, hf = vocabulary(corpora, cache)
    text = corpora / "si_dev.txt"
    with open(text, "rb") as f:
        line = f.readline()
    samples: dict[str, list[float]] = {k: [] for k in IN_PROCESS + WHOLE}
    for timed in (False, *([True] * repeats)):
        for kind in IN_PROCESS:
            seconds = _in_process(kind, vocab, hf, text)
            if timed:
                samples[kind].append(seconds)
        ids = set()
        for kind in WHOLE:
            seconds, out = _whole(kind, vocab, hf, line)
            ids.add(out.replace(" ", ""))
            if timed:
                samples[kind].append(seconds)
        if len(ids) != 1:
            raise SystemExit(f"bench load: the processes' ids differ: {sorted(ids)}")
    medians = {k: statistics.median(v) for k, v in samples.items()}
    return {
        "vocab": str(vocab),
        "tokenizer_json": str(hf),
        "vocab_size": VOCAB_SIZE,
        "repeats": repeats,
        "seconds": medians,
        "samples": samples,
        "ratios": {
            "load + first encode, sgpe native / hf": medians["sgpe native"]
            / medians["hf tokenizers"],
            "whole process one line, sgpe native / hf": medians["sgpe native cli"]
            / medians["hf tokenizers process"],
        },
    }


def print_load(load: dict[str, Any]) -> None:
    s, n = load["seconds"], load["repeats"]
    print(f"\nLoading si32k vocab.json (32,000 tokens), medians of {n} runs, seconds.\n")
    print("| what | sgpe native | sgpe python | HF tokenizers | native / HF |")
    print("|---|---:|---:|---:|---:|")
    print(
        f"| load + first encode, in process | {s['sgpe native']:.3f} | {s['sgpe python']:.3f} "
        f"| {s['hf tokenizers']:.3f} | {s['sgpe native'] / s['hf tokenizers']:.2f} |"
    )
    print(
        f"| whole process, encode one line | {s['sgpe native cli']:.3f} | "
        f"{s['sgpe python cli']:.3f} | {s['hf tokenizers process']:.3f} | "
        f"{s['sgpe native cli'] / s['hf tokenizers process']:.2f} |"
    )


def main() -> None:
    """Print the result of ``job_load`` (the child side; for a quick look by hand)."""
    print(json.dumps(job_load(*sys.argv[1:4])))


if __name__ == "__main__":
    main()

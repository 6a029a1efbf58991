"""Speed and memory: SGPE against HF ``tokenizers``, SentencePiece and tiktoken, same run.

For each input (the leading lines of ``si_train.txt`` that hold 1/4, 1/2 and all of its
characters):

* **split**: ``sgpe.syllabify`` on the whole text against the Rust pre-tokenizers of HF
  ``tokenizers`` (``Metaspace``, and ``Split`` with tiktoken's o200k regex), and the
  table-driven DFA matcher we did not keep (on the first 100k characters);
* **train** at 32k: SGPE against HF BPE + Metaspace, HF byte-level BPE with the o200k
  regex and SentencePiece BPE (HF and SentencePiece use every core, SGPE one);
* **encode** the same text line by line on one thread with a cold cache (a freshly loaded
  tokenizer, trained on that text): SGPE against tiktoken ``o200k_base`` and the HF
  Metaspace model; each peer's batch call (multi-threaded) for reference, and SGPE again
  with a warm cache.

Then the largest input's models encode ``si_dev.txt`` (new text: fewer cache hits) the
same way, and their quality on it is measured (SGPE against SentencePiece BPE). Targets:
training time SGPE / HF Metaspace ≤ 1.5, SGPE's peak training memory ≤ 1 GB, cold-cache
encoding SGPE / tiktoken ≥ 0.5, ``syllabify`` ≥ 5 M characters per second.

Every measurement runs in its own process (its ``ru_maxrss`` is the peak memory, imports
included), repeated with the tools interleaved so that drifting load hits all alike;
reports give medians and ratios (SGPE / peer), which are what to compare on a shared
machine. Writes ``bench/results/speed.json`` and ``speed.md``. A few minutes.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from . import corpora, records, render
from .peers import (
    DFA_SAMPLE,
    PEERS,
    SPLITTERS,
    load_encoding,
    peak_rss_mb,
    read_lines,
    run_child,
    run_training,
    splitter,
)

HELP = "training, encoding, syllabify speed and memory vs peers"
FRACTIONS = (0.25, 0.5, 1.0)
QUICK_FRACTIONS = (0.02, 0.05)
TRAINERS = ("sgpe-fallback", "hf-metaspace", "hf-bytelevel-o200k", "spm-bpe")
ENCODERS = ("sgpe", "tiktoken", "hf-metaspace")
# Which trained model each encoder loads.
ENCODER_MODEL = {"sgpe": "sgpe-fallback", "hf-metaspace": "hf-metaspace"}
QUALITY = ("sgpe-fallback", "spm-bpe")
LANG = "si"


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument(
        "--fractions",
        type=lambda s: tuple(float(x) for x in s.split(",")),
        default=None,
        help="fractions of si_train's characters, taken as leading lines (default: 0.25,0.5,1)",
    )
    ap.add_argument("--repeats", type=int, default=3, help="runs per measurement, median reported")
    ap.add_argument("--vocab-size", type=int, default=32000)
    ap.add_argument(
        "--quick",
        action="store_true",
        help=f"fractions {QUICK_FRACTIONS}, 1 repeat, results in a scratch folder",
    )


# ============================================================================
# Jobs (each runs in a child process: python -m bench.speed split|encode ...)
# ============================================================================


def job_split(kind: str, text_path: str) -> dict[str, Any]:
    text = Path(text_path).read_text(encoding="utf-8")
    if kind == "sgpe-dfa":
        text = text[:DFA_SAMPLE]
    split = splitter(kind)
    base = peak_rss_mb()
    t0 = time.perf_counter()
    units = split(text)
    seconds = time.perf_counter() - t0
    return {
        "seconds": seconds,
        "chars": len(text),
        "units": len(units),
        "peak_mb": peak_rss_mb(),
        "base_mb": base,
    }


def job_encode(kind: str, model: str, text_path: str) -> dict[str, Any]:
    lines = read_lines(text_path)
    chars = sum(map(len, lines))
    batch: Any = None
    if kind == "sgpe":
        from .peers import load

        one = load("sgpe-fallback", Path(model)).encode  # fresh: empty cache
    elif kind == "tiktoken":
        enc = load_encoding("o200k_base")
        one, batch = enc.encode_ordinary, enc.encode_ordinary_batch
    else:
        from tokenizers import Tokenizer

        tk = Tokenizer.from_file(model)

        def one(line: str) -> list[int]:
            return tk.encode(line, add_special_tokens=False).ids  # type: ignore[no-any-return]

        def batch(lines: list[str]) -> list[Any]:
            return tk.encode_batch(lines, add_special_tokens=False)  # type: ignore[no-any-return]

    base = peak_rss_mb()
    tokens = 0
    t0 = time.perf_counter()
    for line in lines:
        tokens += len(one(line))
    seconds = time.perf_counter() - t0
    peak = peak_rss_mb()
    result = {"seconds": seconds, "batch_seconds": None, "warm_seconds": None}
    if batch is not None:
        t0 = time.perf_counter()
        batch(lines)
        result["batch_seconds"] = time.perf_counter() - t0
    else:  # SGPE: the same lines again, every piece now in its cache
        t0 = time.perf_counter()
        for line in lines:
            one(line)
        result["warm_seconds"] = time.perf_counter() - t0
    return {**result, "chars": chars, "tokens": tokens, "peak_mb": peak, "base_mb": base}


def _split(kind: str, text: Path) -> dict[str, Any]:
    return run_child("bench.speed", "split", kind, str(text))


def _encode(kind: str, models: dict[str, Path], text: Path) -> dict[str, Any]:
    model = models[ENCODER_MODEL[kind]] if kind in ENCODER_MODEL else Path("-")
    return run_child("bench.speed", "encode", kind, str(model), str(text))


# ============================================================================
# Driver
# ============================================================================


def measure(
    corpora_dir: Path, fractions: tuple[float, ...], repeats: int, vocab: int, log: Any
) -> dict[str, Any]:
    """Runs of every measurement, per input; then the dev file with the largest models."""
    from sgpe.metrics import evaluate

    from .peers import load

    corpus, dev_path = corpora.require(corpora_dir, corpora.train_file(LANG), corpora.dev_file(LANG))  # fmt: skip
    work = Path(tempfile.mkdtemp(prefix="sgpe-speed-"))
    sizes: list[dict[str, Any]] = []
    models: dict[str, Path] = {}
    for frac in fractions:
        text, n_lines = corpora.leading_fraction(corpus, frac, work)
        log(f"input {frac:g} of {corpus.name}: {n_lines:,} lines")
        res: dict[str, Any] = {"fraction": frac, "lines": n_lines}
        split: dict[str, list[Any]] = {}
        train: dict[str, list[Any]] = {}
        encode: dict[str, list[Any]] = {}
        for rep in range(repeats):
            for kind in SPLITTERS:
                split.setdefault(kind, []).append(_split(kind, text))
            for key in TRAINERS:
                models[key] = work / f"{key}-{frac:g}{PEERS[key].suffix}"
                train.setdefault(key, []).append(run_training(key, text, vocab, models[key]))
            for kind in ENCODERS:
                encode.setdefault(kind, []).append(_encode(kind, models, text))
            log(f"  repeat {rep + 1}/{repeats} done")
        res.update(chars=split["sgpe"][0]["chars"], split=split, train=train, encode=encode)
        sizes.append(res)

    dev_encode: dict[str, list[Any]] = {}
    for _ in range(repeats):
        for kind in ENCODERS:
            dev_encode.setdefault(kind, []).append(_encode(kind, models, dev_path))
    lines = read_lines(dev_path)
    quality = {}
    for key in QUALITY:
        m = evaluate(load(key, models[key]), lines)
        quality[key] = {k: m[k] for k in ("tokens", "twr", "cpt", "unk", "roundtrip_fail")}
    log(f"encoded {dev_path.name} with the largest input's models")
    dev = {"name": dev_path.name, "encode": dev_encode, "quality": quality}
    return {"sizes": sizes, "dev": dev, "corpus": corpus.name}


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()

    def log(msg: str) -> None:
        print(f"[{time.perf_counter() - started:7.1f}s] {msg}", flush=True)

    fractions = args.fractions or (QUICK_FRACTIONS if args.quick else FRACTIONS)
    repeats = 1 if args.quick else args.repeats
    out: Path = Path(tempfile.mkdtemp(prefix="sgpe-speed-quick-")) if args.quick else args.out
    rec = measure(args.corpora, fractions, repeats, args.vocab_size, log)
    meta = records.run_meta(
        args.invocation, started, repeats=repeats, vocab=args.vocab_size, corpus=rec.pop("corpus")
    )
    records.write_json(out / "speed.json", {"meta": meta, **rec})
    render.write_reports(out, ["speed"])
    print(render.speed_readme(records.read_json(out / "speed.json")))
    log(f"wrote {out / 'speed.json'} and speed.md")
    return 0


def main(argv: list[str]) -> int:
    """The child-process side: ``split KIND TEXT`` or ``encode KIND MODEL TEXT``."""
    import json

    jobs = {"split": job_split, "encode": job_encode}
    if not argv or argv[0] not in jobs:
        print("usage: python -m bench.speed split|encode ARGS (run by python -m bench speed)")
        return 2
    print(json.dumps(jobs[argv[0]](*argv[1:])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Issue 2 benchmark: SGPE speed and quality against peers measured in the same run.

    python bench/core_speed.py [--corpora ../shared/corpora] [--vocab-size 32000] [--repeats 3]

Prints medians and ratios (machines here are noisy; compare ratios, not seconds):
* training wall time on si_train.txt: SGPE vs Hugging Face ``tokenizers`` BPE with a
  Metaspace pre-tokenizer (target: ratio <= 1.5) and SentencePiece BPE; peak RSS of each
  training process (target for SGPE: <= 1 GB);
* encoding si_dev.txt line by line on one thread with a cold cache (a freshly loaded
  tokenizer): SGPE vs tiktoken o200k_base (target: ratio >= 0.5);
* ``syllabify`` characters per second on si_dev.txt (target: >= 5 M/s);
* TWR and characters per token on si_dev.txt: SGPE vs SentencePiece BPE trained on the
  same file at the same size, with SGPE's [UNK] count and round-trip failures.
Every training runs in its own process, so peak memory is that process's own.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def job_train(kind: str, corpus: str, vocab_size: int, out: str) -> dict:
    t0 = time.perf_counter()
    if kind == "sgpe":
        import sgpe

        tok = sgpe.train(corpus, vocab_size=vocab_size)
        seconds = time.perf_counter() - t0
        tok.save(out)
    elif kind == "hf-metaspace":
        from tokenizers import Tokenizer, models, pre_tokenizers, trainers

        tk = Tokenizer(models.BPE(unk_token="[UNK]"))
        tk.pre_tokenizer = pre_tokenizers.Metaspace()
        trainer = trainers.BpeTrainer(
            vocab_size=vocab_size, special_tokens=["[UNK]"], show_progress=False
        )
        tk.train([corpus], trainer)
        seconds = time.perf_counter() - t0
        tk.save(out)
    elif kind == "spm-bpe":
        import sentencepiece as spm

        spm.SentencePieceTrainer.train(
            input=corpus, model_prefix=out, vocab_size=vocab_size, model_type="bpe",
            character_coverage=1.0, normalization_rule_name="identity", num_threads=1,
            minloglevel=2, max_sentence_length=1_000_000,
        )  # fmt: skip
        seconds = time.perf_counter() - t0
    else:
        raise SystemExit(f"unknown job {kind}")
    return {"seconds": seconds, "peak_mb": _peak_mb()}


def run_job(*args: str) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--job", *args], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def encode_speed(encode, lines: list[str]) -> float:
    chars = sum(map(len, lines))
    t0 = time.perf_counter()
    for line in lines:
        encode(line)
    return chars / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--corpora", default=str(ROOT.parent / "shared" / "corpora"))
    ap.add_argument("--vocab-size", type=int, default=32000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--job", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.job:
        print(json.dumps(job_train(args.job[0], args.job[1], int(args.job[2]), args.job[3])))
        return

    corpora = Path(args.corpora)
    train_file, dev_file = str(corpora / "si_train.txt"), corpora / "si_dev.txt"
    lines = dev_file.read_text(encoding="utf-8").split("\n")[:-1]
    tmp = Path(tempfile.mkdtemp(prefix="sgpe-bench-"))
    vs = args.vocab_size

    print(f"# training on {train_file} at vocab {vs}, {args.repeats} runs each (median)")
    results: dict[str, list[dict]] = {}
    for _ in range(args.repeats):  # interleave the tools so drifting load hits all alike
        for kind in ("sgpe", "hf-metaspace", "spm-bpe"):
            out = str(tmp / (kind + (".json" if kind != "spm-bpe" else "")))
            results.setdefault(kind, []).append(run_job(kind, train_file, str(vs), out))
    med = {k: statistics.median(r["seconds"] for r in v) for k, v in results.items()}
    mem = {k: max(r["peak_mb"] for r in v) for k, v in results.items()}
    for k in med:
        runs = " / ".join(f"{r['seconds']:.2f}" for r in results[k])
        print(f"  {k:14s} median {med[k]:6.2f} s  (runs {runs})  peak RSS {mem[k]:6.0f} MB")
    train_ratio = med["sgpe"] / med["hf-metaspace"]
    print(f"  RATIO train time SGPE / HF Metaspace BPE = {train_ratio:.2f}  (target <= 1.5)")
    print(f"  RATIO train time SGPE / SentencePiece BPE = {med['sgpe'] / med['spm-bpe']:.2f}")
    print(f"  SGPE peak RSS {mem['sgpe']:.0f} MB (target <= 1024 MB)")

    import sentencepiece as spm

    import sgpe
    from sgpe._tiktoken import load_encoding

    print(
        f"\n# encoding {dev_file.name}: {len(lines)} lines, {sum(map(len, lines)):,} chars, one thread, cold cache"
    )
    enc = load_encoding("o200k_base")
    speeds: dict[str, list[float]] = {"sgpe": [], "tiktoken o200k_base": []}
    for _ in range(args.repeats):
        tok = sgpe.Tokenizer.load(tmp / "sgpe.json")  # fresh: empty cache
        speeds["sgpe"].append(encode_speed(tok.encode, lines))
        speeds["tiktoken o200k_base"].append(encode_speed(enc.encode_ordinary, lines))
    warm = encode_speed(tok.encode, lines)
    sp = {k: statistics.median(v) for k, v in speeds.items()}
    for k, v in sp.items():
        print(
            f"  {k:20s} {v / 1e6:6.2f} M chars/s  (runs {' / '.join(f'{x / 1e6:.2f}' for x in speeds[k])})"
        )
    print(f"  sgpe, warm cache     {warm / 1e6:6.2f} M chars/s")
    enc_ratio = sp["sgpe"] / sp["tiktoken o200k_base"]
    print(f"  RATIO encode SGPE (cold) / tiktoken = {enc_ratio:.2f}  (target >= 0.5)")

    text = "\n".join(lines)
    runs = []
    for _ in range(max(3, args.repeats)):
        t0 = time.perf_counter()
        sgpe.syllabify(text)
        runs.append(len(text) / (time.perf_counter() - t0))
    syl = statistics.median(runs)
    print(f"\n# syllabify: {syl / 1e6:.2f} M chars/s (target >= 5)")
    from sgpe.syllabify import syllabify_dfa

    sample = text[:100_000]
    t0 = time.perf_counter()
    syllabify_dfa(sample)
    dfa = len(sample) / (time.perf_counter() - t0)
    print(
        f"  table-driven DFA matcher (the alternative we measured and did not keep): "
        f"{dfa / 1e6:.2f} M chars/s, the compiled regex is {syl / dfa:.0f}x faster"
    )

    print(f"\n# quality on {dev_file.name} (each line encoded without its newline)")
    words = sum(len(line.split()) for line in lines)
    chars = sum(map(len, lines))
    ids = [tok.encode(line) for line in lines]
    n = sum(map(len, ids))
    unk = sum(i.count(tok.unk_id) for i in ids)
    fails = sum(tok.decode(i) != line for i, line in zip(ids, lines))
    print(
        f"  SGPE {vs:>6}: tokens {n:,}  TWR {n / words:.3f}  CPT {chars / n:.3f}  [UNK] {unk}  round-trip failures {fails}"
    )
    sp_model = spm.SentencePieceProcessor(model_file=str(tmp / "spm-bpe.model"))
    pieces = [sp_model.encode(line) for line in lines]
    m = sum(map(len, pieces))
    sfails = sum(sp_model.decode(p) != line for p, line in zip(pieces, lines))
    print(
        f"  SentencePiece BPE {vs}: tokens {m:,}  TWR {m / words:.3f}  CPT {chars / m:.3f}  round-trip failures {sfails}"
    )
    print("\n# summary ratios")
    print(
        f"  train SGPE/HF-Metaspace {train_ratio:.2f} (<= 1.5)   encode SGPE/tiktoken {enc_ratio:.2f} (>= 0.5)   syllabify {syl / 1e6:.2f} M/s (>= 5)"
    )


if __name__ == "__main__":
    main()

"""Equal-budget comparison on every script: SGPE against Hugging Face BPE at 4k and 8k.

    python bench/scripts_compression.py [--corpora ../shared/corpora] [--mb 1.0]
        [--sizes 4000 8000] [--out bench/results]

For each language with real text (``CORPUS`` below: every file of ../shared/corpora/multi
whose script has a schema, plus Sinhala and Hindi), the first ``--mb`` MB of the file (whole
lines, so the whole run stays under ten minutes on two cores) is split into training text
(the first 90% of its lines) and held-out text (the last 10%). SGPE is trained with
``sgpe.train`` at the library's defaults, whatever the training algorithm of the day is,
and HF ``tokenizers`` BPE with a Metaspace pre-tokenizer (``bench/_peers.py``), both in their
own process, at the same vocabulary sizes. Both are evaluated line by line on the held-out
text with ``sgpe.metrics.evaluate``: TWR (tokens per whitespace word, lower is better),
characters per token, token boundaries inside a syllable per 1,000 tokens (syllables of
the script's schema), and round-trip failures.

Writes ``scripts_compression.md`` (the README table) and ``scripts_compression.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

from _peers import CORPORA, load, run_training  # noqa: E402

from sgpe.metrics import evaluate  # noqa: E402

# language -> (file under the corpora folder, schema)
CORPUS = {
    "Sinhala": ("si_train.txt", "sinhala"),
    "Hindi": ("hi_train.txt", "devanagari"),
    "Marathi": ("multi/mr.txt", "devanagari"),
    "Nepali": ("multi/ne.txt", "devanagari"),
    "Bengali": ("multi/bn.txt", "bengali"),
    "Punjabi": ("multi/pa.txt", "gurmukhi"),
    "Gujarati": ("multi/gu.txt", "gujarati"),
    "Odia": ("multi/or.txt", "odia"),
    "Tamil": ("multi/ta.txt", "tamil"),
    "Telugu": ("multi/te.txt", "telugu"),
    "Kannada": ("multi/kn.txt", "kannada"),
    "Malayalam": ("multi/ml.txt", "malayalam"),
}
PEERS = {"sgpe-fallback": "SGPE", "hf-metaspace": "HF BPE (Metaspace)"}


def split_corpus(src: Path, max_bytes: int, work: Path) -> tuple[Path, list[str]]:
    """The training file (first 90% of the capped lines) and the held-out lines."""
    lines: list[str] = []
    size = 0
    with open(src, encoding="utf-8") as f:
        for line in f:
            size += len(line.encode("utf-8"))
            if size > max_bytes:
                break
            lines.append(line.rstrip("\n"))
    cut = len(lines) * 9 // 10
    train = work / f"{src.stem}_train.txt"
    train.write_text("\n".join(lines[:cut]) + "\n", encoding="utf-8")
    return train, lines[cut:]


def run(corpora: Path, mb: float, sizes: list[int], work: Path) -> list[dict[str, Any]]:
    rows = []
    for language, (name, script) in CORPUS.items():
        train, held_out = split_corpus(corpora / name, int(mb * 1_000_000), work)
        for size in sizes:
            for key, label in PEERS.items():
                out = work / f"{train.stem}_{key}_{size}.json"
                t0 = time.perf_counter()
                trained = run_training(key, train, size, out)
                m = evaluate(load(key, out), held_out, script=script)
                rows.append(
                    {
                        "language": language,
                        "script": script,
                        "size": size,
                        "tokenizer": label,
                        "vocab": trained["vocab_actual"],
                        "train_s": round(trained["train_s"], 2),
                        "twr": round(m["twr"], 3),
                        "cpt": round(m["cpt"], 2),
                        "broken_per_1k": round(m["broken_per_1k"], 1),
                        "roundtrip_fail_pct": round(m["roundtrip_fail_pct"], 2),
                        "held_out_lines": m["lines"],
                    }
                )
                print(f"{language} {size} {label}: {rows[-1]} ({time.perf_counter() - t0:.1f} s)")
    return rows


def markdown(rows: list[dict[str, Any]], sizes: list[int], mb: float) -> str:
    head = "| language (schema) |"
    rule = "|---|"
    for size in sizes:
        head += f" SGPE TWR {size // 1000}k | HF TWR {size // 1000}k | broken/1k SGPE / HF {size // 1000}k |"
        rule += "---:|---:|---:|"
    out = [head, rule]
    by = {(r["language"], r["size"], r["tokenizer"]): r for r in rows}
    for language, (_, script) in CORPUS.items():
        line = f"| {language} ({script}) |"
        for size in sizes:
            s, h = by[(language, size, "SGPE")], by[(language, size, "HF BPE (Metaspace)")]
            line += (
                f" {s['twr']:.3f} | {h['twr']:.3f} |"
                f" {s['broken_per_1k']:.1f} / {h['broken_per_1k']:.1f} |"
            )
        out.append(line)
    note = (
        f"\nFirst {mb:g} MB of each corpus (whole lines): 90% to train, the last 10% held out; "
        "TWR = tokens per whitespace word on the held-out lines (lower is better); broken/1k "
        "= token boundaries inside a syllable per 1,000 tokens. Generated by "
        "`python bench/scripts_compression.py`.\n"
    )
    return "\n".join(out) + "\n" + note


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpora", type=Path, default=CORPORA)
    parser.add_argument("--mb", type=float, default=1.0)
    parser.add_argument("--sizes", type=int, nargs="+", default=[4000, 8000])
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        rows = run(args.corpora, args.mb, args.sizes, Path(tmp))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "scripts_compression.json").write_text(
        json.dumps(rows, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )
    table = markdown(rows, args.sizes, args.mb)
    (args.out / "scripts_compression.md").write_text(table, encoding="utf-8")
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The WWHO meta-vocabulary (o200k_base + SGPE) against o200k_base alone, on the dev corpora.

For each of ``mixed_dev.txt``, ``si_dev.txt`` and ``hi_dev.txt`` (read in place from
``../shared/corpora``) every line is encoded without its newline, and the table shows:

* tokens — total over the file;
* TWR — tokens per whitespace word (``len(line.split())``), lower is better;
* CPT — characters per token, higher is better;
* SGPE% — share of the meta tokenizer's tokens that are SGPE ids;
* round trip — lines where ``decode(encode(line)) != line`` (must be 0).

The SGPE side is trained here (``--vocab-size``, default 32,000; fallback policy, so the
meta tokenizer is lossless): on ``si_train`` for ``si_dev``, on ``hi_train`` for ``hi_dev``
and on both for ``mixed_dev``. ``--vocab VOCAB_JSON`` uses one existing vocabulary for all
files instead. The meta "vocab" column counts the unified id space (200,019 o200k ids + SGPE).

    python bench/meta_bench.py                    # trains three vocabularies (~15 s)
    python bench/meta_bench.py --vocab runs/x/vocab.json --json results.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

import sgpe  # noqa: E402
from sgpe.meta import MetaTokenizer  # noqa: E402

DEV_FILES = {
    "mixed_dev": ("si_train", "hi_train"),
    "si_dev": ("si_train",),
    "hi_dev": ("hi_train",),
}


@dataclass
class Row:
    corpus: str
    tokenizer: str
    vocab: int
    lines: int
    words: int
    chars: int
    tokens: int
    sgpe_share: float | None
    round_trip_failures: int

    @property
    def twr(self) -> float:
        return self.tokens / max(self.words, 1)

    @property
    def cpt(self) -> float:
        return self.chars / max(self.tokens, 1)


def read_lines(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def measure_meta(corpus: str, name: str, meta: MetaTokenizer, lines: list[str]) -> Row:
    tokens = sgpe_tokens = failures = 0
    for line in lines:
        ids = meta.encode(line)
        tokens += len(ids)
        sgpe_tokens += sum(1 for i in ids if i >= meta.offset)
        failures += meta.decode(ids) != line
    return Row(
        corpus,
        name,
        meta.vocab_size,
        len(lines),
        sum(len(x.split()) for x in lines),
        sum(map(len, lines)),
        tokens,
        sgpe_tokens / max(tokens, 1),
        failures,
    )


def measure_tiktoken(corpus: str, meta: MetaTokenizer, lines: list[str]) -> Row:
    enc = meta.enc
    tokens = failures = 0
    for line in lines:
        ids = enc.encode_ordinary(line)
        tokens += len(ids)
        failures += enc.decode(ids) != line
    return Row(
        corpus,
        enc.name,
        enc.n_vocab,
        len(lines),
        sum(len(x.split()) for x in lines),
        sum(map(len, lines)),
        tokens,
        None,
        failures,
    )


def print_table(rows: list[Row]) -> None:
    head = (
        "corpus",
        "tokenizer",
        "vocab",
        "lines",
        "words",
        "chars",
        "tokens",
        "TWR",
        "CPT",
        "SGPE%",
        "round trip",
    )
    body = [
        (
            r.corpus,
            r.tokenizer,
            f"{r.vocab:,}",
            f"{r.lines:,}",
            f"{r.words:,}",
            f"{r.chars:,}",
            f"{r.tokens:,}",
            f"{r.twr:.3f}",
            f"{r.cpt:.3f}",
            "—" if r.sgpe_share is None else f"{100 * r.sgpe_share:.1f}",
            str(r.round_trip_failures),
        )
        for r in rows
    ]
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join("---" for _ in head) + "|")
    for cells in body:
        print("| " + " | ".join(cells) + " |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    parser.add_argument(
        "--corpora",
        type=Path,
        default=REPO_ROOT.parent / "shared" / "corpora",
        help="folder with the *_train.txt and *_dev.txt files",
    )
    parser.add_argument(
        "--vocab", type=Path, help="use this SGPE vocab.json for every file instead of training"
    )
    parser.add_argument(
        "--vocab-size",
        type=int,
        default=sgpe.TrainSettings().vocab_size,
        help="SGPE vocabulary size to train",
    )
    parser.add_argument(
        "--prune-freq",
        type=int,
        default=sgpe.TrainSettings().prune_freq,
        help="prune_freq for training",
    )
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    args = parser.parse_args(argv)
    if not args.corpora.is_dir():
        parser.error(f"corpora folder not found: {args.corpora}")

    cache: dict[tuple[str, ...], MetaTokenizer] = {}

    def meta_for(train: tuple[str, ...]) -> tuple[str, MetaTokenizer]:
        if args.vocab is not None:
            key: tuple[str, ...] = ("--vocab",)
            if key not in cache:
                cache[key] = MetaTokenizer(sgpe.load(args.vocab), vocab_path=args.vocab)
            return f"meta ({args.vocab.name})", cache[key]
        if train not in cache:
            started = time.perf_counter()
            docs = [line for name in train for line in read_lines(args.corpora / f"{name}.txt")]
            tok = sgpe.train(docs, vocab_size=args.vocab_size, prune_freq=args.prune_freq)
            print(
                f"trained SGPE on {'+'.join(train)}: {tok} in {time.perf_counter() - started:.1f} s",
                file=sys.stderr,
            )
            cache[train] = MetaTokenizer(tok)
        return f"o200k + SGPE {'+'.join(t.split('_')[0] for t in train)}", cache[train]

    rows: list[Row] = []
    for corpus, train in DEV_FILES.items():
        lines = read_lines(args.corpora / f"{corpus}.txt")
        name, meta = meta_for(train)
        rows.append(measure_tiktoken(corpus, meta, lines))
        rows.append(measure_meta(corpus, name, meta, lines))
    print_table(rows)
    if args.json is not None:
        payload = [asdict(r) | {"twr": r.twr, "cpt": r.cpt} for r in rows]
        args.json.write_text(
            json.dumps(payload, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
        )
    return 1 if any(r.round_trip_failures for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Superwords: SGPE with merges across spaces against SGPE without them and
plain HF BPE (with and without byte fallback), trained in this run on the same file at the
same size.

Splits:

* **cross-genre** (``xgenre/``): Sinhala news → legal text and read-speech prompts; Hindi
  stories → product reviews;
* **in-domain**: ``si_train.txt`` → ``si_dev.txt``, ``hi_train.txt`` → ``hi_dev.txt`` (the
  compression bench's split);
* **other scripts** (``multi/``, ``--multi``): the first 2 MB of each file, trained on its
  first 90% of lines and measured on the last 10%.

The transition is a fixed share of the size: ``sgpe-superwords`` from 3/4 and
``sgpe-superwords-90`` from 9/10 (``bench/peers.py``; docs/decisions.md says which is
recommended and why). ``--fractions`` trains shares of the size on *dev splits* of the
cross-genre training files, never on a test file: the same sources (trained on the first
90% of the lines, measured on the last 10%) and, for Sinhala, another source (trained on
the news articles, measured on the headlines).

Metrics are :func:`sgpe.metrics.evaluate`'s: tokens per whitespace word (TWR), torn
syllables (``straddling``: a token reaching across a syllable edge), lossy lines
(``roundtrip_fail``); and the share of the vocabulary that is superwords (tokens holding a
space after their first character). Writes ``superwords.csv`` and ``superwords.md``.

    python -m bench superwords                                   # si + hi, 8k-32k
    python -m bench superwords --multi ta bn mr --multi-sizes 8000 16000
"""

from __future__ import annotations

import argparse
import csv
import statistics
import tempfile
from pathlib import Path
from typing import Any

from . import corpora
from .peers import PEERS, load, read_lines, run_training

HELP = "superwords (merges across spaces) against SGPE and HF BPE"
KEYS = ("sgpe-fallback", "sgpe-superwords", "sgpe-superwords-90", "hf-bpe", "hf-bpe-bytes")
SUPER_KEYS = ("sgpe-superwords", "sgpe-superwords-90")
RATIO_TO = ("hf-bpe", "hf-bpe-bytes", "sgpe-fallback")
SHORT = {"sgpe-superwords": "super 3/4", "sgpe-superwords-90": "super 9/10",
         "hf-bpe": "HF BPE", "hf-bpe-bytes": "HF bytes", "sgpe-fallback": "SGPE"}  # fmt: skip
SIZES = (8000, 16000, 32000)
IN_DOMAIN = {"si": ("si_train.txt", ("si_dev.txt",)), "hi": ("hi_train.txt", ("hi_dev.txt",))}
MULTI = ("bn", "gu", "km", "kn", "ml", "mr", "my", "ne", "or", "pa", "ta", "te")
MULTI_BYTES = 2_000_000


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--langs", nargs="+", default=["si", "hi"], choices=["si", "hi"])
    ap.add_argument("--sizes", nargs="+", type=int, default=list(SIZES))
    ap.add_argument("--splits", nargs="*", default=["xgenre", "in-domain"],
                    choices=["xgenre", "in-domain"])  # fmt: skip
    ap.add_argument("--multi", nargs="*", default=[], choices=MULTI)
    ap.add_argument("--multi-sizes", nargs="+", type=int, default=[8000, 16000])
    ap.add_argument("--peers", nargs="+", default=list(KEYS), choices=KEYS)
    ap.add_argument("--add", nargs="*", type=Path, default=[],
                    help="superwords.csv files of earlier runs whose rows join this run's")  # fmt: skip
    ap.add_argument("--fractions", nargs="*", type=float, default=[],
                    help="transition shares to try on a dev split, at --sizes")  # fmt: skip


def superword_share(tok: Any) -> float | None:
    """The share of an SGPE vocabulary that is superwords (None for another kind)."""
    import sgpe

    if not isinstance(tok, sgpe.Tokenizer):
        return None
    return sum(" " in t[1:] for t in tok.vocab) / len(tok.vocab)


def _measure(
    rows: list[dict[str, Any]],
    split: str,
    lang: str,
    corpus: Path,
    tests: dict[str, list[str]],
    sizes: list[int],
    keys: tuple[str, ...],
    tmp: Path,
) -> None:
    from sgpe.metrics import evaluate

    for size in sizes:
        for key in keys:
            model = tmp / f"{split}-{lang}-{key}-{size}{PEERS[key].suffix}"
            stats = run_training(key, corpus, size, model)
            tok = load(key, model)
            share = superword_share(tok)
            for test, lines in tests.items():
                m = evaluate(tok, lines)
                row = {
                    "split": split, "lang": lang, "train": corpus.name, "test": test,
                    "size": size, "peer": key, "train_s": round(stats["train_s"], 2),
                    "twr": m["twr"], "tokens": m["tokens"], "words": m["words"],
                    "straddling": m["straddling"], "roundtrip_fail": m["roundtrip_fail"],
                    "superword_share": "" if share is None else round(share, 4),
                }  # fmt: skip
                rows.append(row)
                print(
                    f"{split:<9} {lang} {size:>6} {key:<16} {test:<22} TWR {m['twr']:.4f} "
                    f"torn {m['straddling']} lossy {m['roundtrip_fail']} "
                    f"superwords {row['superword_share']} ({stats['train_s']:.0f} s)",
                    flush=True,
                )


#: The other-source dev split of the Sinhala news file: its articles (S1, S2: lines of at
#: least this many bytes) for training, its headlines (S3: lines of at most HEADLINE_BYTES)
#: for measuring. Hindi's stories (BH, HDA) cannot be told apart by their lines.
ARTICLE_BYTES = 400
HEADLINE_BYTES = 160


def source_split(corpus: Path, tmp: Path) -> tuple[Path, list[str]]:
    """The articles of the Sinhala news file as a training file, and its headlines."""
    lines = read_lines(corpus)
    train = tmp / f"{corpus.stem}_articles.txt"
    articles = [x for x in lines if len(x.encode()) >= ARTICLE_BYTES]
    train.write_text("\n".join(articles) + "\n", encoding="utf-8")
    return train, [x for x in lines if 0 < len(x.encode()) <= HEADLINE_BYTES]


def _sweep(
    rows: list[dict[str, Any]],
    lang: str,
    corpus: Path,
    size: int,
    fractions: list[float],
    tmp: Path,
) -> None:
    """Transition shares on dev splits, never on a test file: the same sources (train on
    the first 90% of the training file's lines, measure on the last 10%) and, for
    Sinhala, another source (train on the news articles, measure on the headlines)."""
    import sgpe
    from sgpe.metrics import evaluate

    splits = [("same sources", *corpora.split_held_out(corpus, 1 << 40, tmp))]
    if lang == "si":
        splits.append(("other source", *source_split(corpus, tmp)))
    for what, train, dev in splits:
        for fraction in [*fractions, None]:
            start = None if fraction is None else round(size * fraction)
            tok = sgpe.train(str(train), vocab_size=size, superwords_from=start)
            m = evaluate(tok, dev)
            rows.append(
                {"split": "dev-sweep", "lang": lang, "train": train.name, "test": what,
                 "size": size, "peer": f"superwords t={fraction}" if fraction else "sgpe-fallback",
                 "train_s": "", "twr": m["twr"], "tokens": m["tokens"], "words": m["words"],
                 "straddling": m["straddling"], "roundtrip_fail": m["roundtrip_fail"],
                 "superword_share": round(superword_share(tok) or 0.0, 4)}
            )  # fmt: skip
            print(f"dev-sweep {lang} {what} {size} t={fraction} TWR {m['twr']:.4f}", flush=True)


def measure(args: argparse.Namespace) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        for lang in args.langs:
            for split in args.splits:
                train_name, test_names = (corpora.XGENRE if split == "xgenre" else IN_DOMAIN)[lang]
                corpus, *paths = corpora.require(args.corpora, train_name, *test_names)
                tests = {p.name: read_lines(p) for p in paths}
                _measure(rows, split, lang, corpus, tests, args.sizes, tuple(args.peers), tmp)
            if args.fractions:
                (corpus,) = corpora.require(args.corpora, corpora.XGENRE[lang][0])
                for size in args.sizes:
                    _sweep(rows, lang, corpus, size, args.fractions, tmp)
        for lang in args.multi:
            (src,) = corpora.require(args.corpora, f"multi/{lang}.txt")
            train, held = corpora.split_held_out(src, MULTI_BYTES, tmp)
            _measure(rows, "multi", lang, train, {f"{lang} last 10%": held}, args.multi_sizes,
                     tuple(args.peers), tmp)  # fmt: skip
    return rows


def report(rows: list[dict[str, Any]]) -> str:
    """Markdown: per split and test file, TWR by size and peer, the ratios of superwords
    to plain HF BPE (and to SGPE without superwords), torn syllables and lossy lines."""
    out = ["# Superwords", "",
           "Tokens per whitespace word (lower is better); `torn` is syllables torn by a token "
           "(straddling cuts), `lossy` lines that do not decode to themselves, `share` the "
           "superwords' share of the vocabulary. Written by `python -m bench superwords`.", ""]  # fmt: skip
    groups: dict[tuple[str, str, str, str], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["split"], r["lang"], r["train"], r["test"]), []).append(r)
    for (split, lang, train, test), rs in groups.items():
        if split == "dev-sweep":
            continue
        out += [f"**{split}, {lang}: trained on `{train}`, measured on `{test}`**", ""]
        supers = [k for k in SUPER_KEYS if any(r["peer"] == k for r in rs)]
        keys = [k for k in KEYS if any(r["peer"] == k for r in rs)]
        ratio_heads = [f"{SHORT[k]} / {SHORT[o]}" for k in supers for o in RATIO_TO]
        out += ["| size | " + " | ".join(keys + ratio_heads) + " | torn | lossy | share |",
                "|---:|" + "---:|" * (len(keys) + len(ratio_heads) + 3)]  # fmt: skip
        for size in sorted({r["size"] for r in rs}):
            by = {r["peer"]: r for r in rs if r["size"] == size}
            cells = [f"{by[k]['twr']:.3f}" if k in by else "" for k in keys]
            for k in supers:
                for o in RATIO_TO:
                    ok = k in by and o in by
                    cells.append(f"{by[k]['tokens'] / by[o]['tokens']:.3f}" if ok else "")
            mine = [by[k] for k in supers if k in by]
            # torn and lossy: the superword peers' (SGPE's is 0 by construction too)
            cells += [" / ".join(str(r["straddling"]) for r in mine),
                      " / ".join(str(r["roundtrip_fail"]) for r in mine),
                      " / ".join(f"{100 * float(r['superword_share']):.1f}%" for r in mine)]  # fmt: skip
            out.append(f"| {size:,} | " + " | ".join(cells) + " |")
        out.append("")
    sweep = [r for r in rows if r["split"] == "dev-sweep"]
    if sweep:
        out += ["**Transition on dev splits**: *same sources* trains on the first 90% of "
                "the cross-genre training file's lines and measures on the last 10%; *other "
                "source* trains on the Sinhala news articles and measures on the headlines.", "",
                "| lang | dev split | size | setting | TWR | share |",
                "|---|---|---:|---|---:|---:|"]  # fmt: skip
        for r in sweep:
            out.append(f"| {r['lang']} | {r['test']} | {r['size']:,} | {r['peer']} | "
                       f"{r['twr']:.4f} | {100 * float(r['superword_share']):.1f}% |")  # fmt: skip
        out.append("")
    multi = [r for r in rows if r["split"] == "multi"]
    for key in SUPER_KEYS:
        ratios = [
            sw["tokens"] / hf["tokens"]
            for sw in multi
            if sw["peer"] == key
            for hf in multi
            if hf["peer"] == "hf-bpe" and (hf["lang"], hf["size"]) == (sw["lang"], sw["size"])
        ]
        if ratios:
            out += [f"Other scripts, {SHORT[key]}: median / HF BPE "
                    f"{statistics.median(ratios):.3f} (from {min(ratios):.3f} to "
                    f"{max(ratios):.3f}) over {len(ratios)} (language, size) pairs.", ""]  # fmt: skip
    return "\n".join(out)


def run(args: argparse.Namespace) -> int:
    rows = []
    for path in args.add:
        with open(path, newline="", encoding="utf-8") as f:
            for r in csv.DictReader(f):
                for k in ("twr",):
                    r[k] = float(r[k])  # type: ignore[assignment]
                for k in ("size", "tokens", "words", "straddling", "roundtrip_fail"):
                    r[k] = int(r[k])  # type: ignore[assignment]
                rows.append(r)
    rows += measure(args)
    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "superwords.csv", "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    text = report(rows)
    (args.out / "superwords.md").write_text(text + "\n", encoding="utf-8")
    print()
    print(text)
    return 0

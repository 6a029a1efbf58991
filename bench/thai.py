"""Thai and Lao: their targets on real text, with the oracles named.

Thai (``multi/th.txt``, Thai government news, 299 articles): the articles whose title
names the Prime Minister (นายกรัฐมนตรี, นรม.) are held out, every other article trains
(:func:`split_by_topic`; the topics of the two parts differ, nothing is copied). SGPE at
the library's defaults and HF BPE with byte fallback (``hf-bpe-bytes`` of
``bench/peers.py``) are trained on the training part at the same vocabulary size, each in
its own process, ``--repeats`` times (the median time is reported), and encode the held-out
part line by line. Measured:

* tokens, and SGPE's tokens as a multiple of HF's (target: at most 1.02);
* **TCC tears per 1,000 tokens**: token boundaries inside a Thai Character Cluster, the
  oracle being PyThaiNLP's ``pythainlp.tokenize.tcc`` (Theeramunkong et al. 2000) (target:
  at most 5);
* lossy lines: a held-out line that does not decode back to itself (target: 0);
* training seconds, and SGPE's as a share of HF's (target: at most 0.5).

Lao (``multi/lo_words.txt``, 21,391 words of a spell-check dictionary): the syllables of
every word, against the oracle ``\\X`` (``regex``, Unicode grapheme clusters): no syllable
boundary inside a cluster, and no syllable that ends in a pre-base vowel (targets: 0, 0).

Writes ``thai.json`` to ``--out``; about a minute on two cores.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from itertools import accumulate
from pathlib import Path
from typing import Any

from . import records
from .peers import PEERS, load, read_lines, run_training

HELP = "Thai and Lao targets: TCC tears, tokens vs HF BPE, lossless, speed, Lao \\X"
THAI, LAO = "multi/th.txt", "multi/lo_words.txt"
KEYS = ("sgpe-fallback", "hf-bpe-bytes")
# An article starts with this line: the site, its news section, then the title.
ARTICLE = "รัฐบาลไทย-ข่าวทำเนียบรัฐบาล-"
# Held out: the articles about the Prime Minister's own doings (his title in full or short).
HELD_OUT_TOPIC = ("นายกรัฐมนตรี", "นรม.")


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--size", type=int, default=8000)
    ap.add_argument("--repeats", type=int, default=3, help="trainings per tokenizer")


def split_by_topic(lines: list[str]) -> tuple[list[str], list[str]]:
    """(training lines, held-out lines) of th.txt: whole articles, by their title's topic."""
    train: list[str] = []
    held: list[str] = []
    into = train
    for line in lines:
        if line.startswith(ARTICLE):
            title = line[len(ARTICLE) :]
            into = held if any(t in title for t in HELD_OUT_TOPIC) else train
        into.append(line)
    return train, held


def tcc_measure(tok: Any, lines: list[str]) -> dict[str, int]:
    """Tokens, token boundaries inside a TCC (PyThaiNLP) and lossy lines over ``lines``."""
    from sgpe.adapters import as_tokenizer
    from sgpe.oracles import tcc_ends

    measure = as_tokenizer(tok).measure
    tokens = tears = lossy = 0
    for line in lines:
        encoded = measure(line)
        tokens += len(encoded.ids)
        lossy += encoded.decoded != line
        # Spans are in bytes of the UTF-8 line; a cluster end is one in characters. A
        # boundary inside a character (a byte fallback token) is inside its cluster too.
        size = len(line.encode("utf-8"))
        char_at = dict(zip(accumulate((len(c.encode("utf-8")) for c in line), initial=0),
                           range(len(line) + 1)))  # fmt: skip
        allowed = tcc_ends(line)
        inner = {end for _, end in encoded.spans if 0 < end < size}
        tears += sum(char_at.get(end) not in allowed for end in inner)
    return {"tokens": tokens, "tcc_tears": tears, "lossy_lines": lossy}


def lao_measure(words: list[str]) -> dict[str, int]:
    """Syllables of the Lao words against ``\\X`` and the pre-base rule."""
    import regex

    from sgpe.oracles import pre_base_ends
    from sgpe.syllables import syllable_spans

    syllables = splits = pre_base = 0
    for word in words:
        spans = [s for s in syllable_spans(word, "lao") if s.kind == "syllable"]
        ends = [s.end for s in spans]
        syllables += len(spans)
        starts = {m.start() for m in regex.finditer(r"\X", word)} | {len(word)}
        splits += sum(e not in starts for e in ends)
        # (An orphan pre-base vowel, with no consonant after it, is no syllable: ເເ is a
        # misspelt ແ, as in three words of the list.)
        pre_base += pre_base_ends(word, ends)
    return {"words": len(words), "syllables": syllables, "inside_grapheme": splits,
            "ends_in_pre_base": pre_base}  # fmt: skip


def measure(corpora_dir: Path, size: int, repeats: int, work: Path) -> dict[str, Any]:
    from . import corpora

    thai, lao = corpora.require(corpora_dir, THAI, LAO)
    train, held = split_by_topic(read_lines(thai))
    train_file = work / "th_train.txt"
    train_file.write_text("\n".join(train) + "\n", encoding="utf-8")
    rows = []
    for key in KEYS:
        out = work / f"th_{key}_{size}{PEERS[key].suffix}"
        times = [run_training(key, train_file, size, out)["train_s"] for _ in range(repeats)]
        m = tcc_measure(load(key, out), held)
        rows.append({"peer": key, "label": PEERS[key].label, "size": size,
                     "train_s": round(statistics.median(times), 3),
                     "tcc_tears_per_1k": round(1000 * m["tcc_tears"] / m["tokens"], 2), **m})  # fmt: skip
        print(rows[-1], flush=True)
    sgpe_row, hf_row = rows
    return {
        "split": {
            "train_lines": len(train),
            "held_out_lines": len(held),
            "held_out_topic": " / ".join(HELD_OUT_TOPIC),
        },
        "thai": rows,
        "tokens_vs_hf": round(sgpe_row["tokens"] / hf_row["tokens"], 4),
        "train_time_vs_hf": round(sgpe_row["train_s"] / hf_row["train_s"], 3),
        "lao": lao_measure(read_lines(lao)),
    }


def report(result: dict[str, Any]) -> str:
    s, h = result["thai"]
    lao = result["lao"]
    split = result["split"]
    return "\n".join([
        f"Thai, {s['size']:,} vocabulary, trained on {split['train_lines']:,} lines of th.txt, "
        f"held out {split['held_out_lines']:,} lines (articles on {split['held_out_topic']})",
        "| tokenizer | tokens | TCC tears / 1k tokens (oracle: pythainlp tcc) | lossy lines "
        "| training s (median) |",
        "|---|---:|---:|---:|---:|",
        *(f"| {r['label']} | {r['tokens']:,} | {r['tcc_tears_per_1k']} | {r['lossy_lines']} "
          f"| {r['train_s']} |" for r in (s, h)),
        f"SGPE / HF BPE: tokens {result['tokens_vs_hf']}x (target <= 1.02), training time "
        f"{result['train_time_vs_hf']}x (target <= 0.5); TCC tears target <= 5 / 1k, lossy 0",
        f"Lao, {lao['words']:,} words, {lao['syllables']:,} syllables: boundaries inside a "
        f"\\X cluster (oracle: regex \\X) {lao['inside_grapheme']}, syllables ending in a "
        f"pre-base vowel {lao['ends_in_pre_base']} (targets 0, 0)",
    ])  # fmt: skip


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        result = measure(args.corpora, args.size, args.repeats, Path(tmp))
    meta = records.run_meta(args.invocation, started, size=args.size, repeats=args.repeats)
    records.write_rows(args.out / "thai.json", result["thai"], {**meta, **{
        k: v for k, v in result.items() if k != "thai"}})  # fmt: skip
    print(report(result))
    return 0

"""Compression on text of another genre than training: SGPE against plain BPE peers.

Every tokenizer is trained in this run on the same training file at the same vocabulary
size, then measured on held-out files of *other* genres (``../shared/corpora/xgenre/``:
Sinhala news → legal text and read-speech prompts; Hindi stories → product reviews).

    python bench/xgenre.py                       # si + hi, 4k 8k 16k 32k, all peers
    python bench/xgenre.py --sizes 4000 --langs si --peers sgpe hf-bpe

Peers:

* ``sgpe`` — our default, the hierarchical mode (``sgpe.train(file, vocab_size=N)``);
* ``sgpe-paper`` — the original SGPE mode (whole syllables as the base);
* ``hf-bpe`` — Hugging Face ``tokenizers`` BPE, ``Metaspace`` pre-tokenizer,
  ``min_frequency=2``, ``[UNK]``, trained with ``train_from_iterator`` on the lines without
  their newlines;
* ``hf-bpe-bytes`` — the same with byte fallback (``byte_fallback=True`` and the 256
  ``<0xNN>`` tokens in its vocabulary), so that, like ours, it loses nothing;
* ``spm-bpe`` / ``spm-unigram`` — SentencePiece, ``character_coverage=1.0``, identity
  normalisation, ``byte_fallback=True`` (lossless, as ours).

Metrics are :func:`sgpe.metrics.evaluate`'s: TWR (tokens per whitespace word, lower is
better), broken cuts per 1,000 tokens (cuts strictly inside a syllable), of which
straddling (a token reaching across a syllable edge) and spelled syllables per 1,000
tokens, round-trip failures and UNK. Writes ``bench/results/xgenre.{csv,md}`` and prints
the table with the ratio SGPE / HF BPE. Deterministic except for the timings.
"""

from __future__ import annotations

import argparse
import csv
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import sgpe  # noqa: E402
from sgpe.metrics import evaluate, read_lines  # noqa: E402

XGENRE = ROOT.parent / "shared" / "corpora" / "xgenre"
SPLITS = {
    "si": ("si_train_news.txt", ["si_test_legal.txt", "si_test_prompts.txt"]),
    "hi": ("hi_train_stories.txt", ["hi_test_reviews.txt"]),
}
PEERS = ("sgpe", "sgpe-paper", "hf-bpe", "hf-bpe-bytes", "spm-bpe", "spm-unigram")
RESULTS = ROOT / "bench" / "results"


def train(peer: str, corpus: Path, size: int, workdir: Path) -> tuple[Any, float]:
    """A trained tokenizer and its training time in seconds."""
    t0 = time.perf_counter()
    if peer == "sgpe":
        tok: Any = sgpe.train(corpus, vocab_size=size)
    elif peer == "sgpe-paper":
        tok = sgpe.train(corpus, vocab_size=size, mode="paper")
    elif peer in ("hf-bpe", "hf-bpe-bytes"):
        from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

        byte_fallback = peer == "hf-bpe-bytes"
        tok = Tokenizer(models.BPE(unk_token="[UNK]", byte_fallback=byte_fallback))
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        tok.decoder = decoders.Metaspace()
        specials = ["[UNK]"] + ([f"<0x{b:02X}>" for b in range(256)] if byte_fallback else [])
        trainer = trainers.BpeTrainer(
            vocab_size=size, min_frequency=2, special_tokens=specials, show_progress=False
        )
        tok.train_from_iterator(read_lines(corpus), trainer)
        if byte_fallback:
            tok.decoder = decoders.Sequence([decoders.ByteFallback(), decoders.Metaspace()])
    elif peer.startswith("spm-"):
        import sentencepiece as spm

        prefix = workdir / f"{peer}-{size}"
        spm.SentencePieceTrainer.train(
            input=str(corpus), model_prefix=str(prefix), vocab_size=size,
            model_type=peer[4:], character_coverage=1.0, byte_fallback=True,
            normalization_rule_name="identity", max_sentence_length=1_000_000,
            hard_vocab_limit=False, minloglevel=2, num_threads=1,
        )  # fmt: skip
        tok = spm.SentencePieceProcessor(model_file=str(prefix) + ".model")
    else:
        raise SystemExit(f"unknown peer {peer!r}; choose from {', '.join(PEERS)}")
    return tok, time.perf_counter() - t0


def run(langs: list[str], sizes: list[int], peers: list[str]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for lang in langs:
            train_name, tests = SPLITS[lang]
            corpus = XGENRE / train_name
            test_lines = {t: list(read_lines(XGENRE / t)) for t in tests}
            for size in sizes:
                for peer in peers:
                    tok, seconds = train(peer, corpus, size, Path(tmp))
                    for test, lines in test_lines.items():
                        m = evaluate(tok, lines)
                        row = {"lang": lang, "train": train_name, "test": test, "size": size,
                               "peer": peer, "train_s": round(seconds, 2), **m}  # fmt: skip
                        rows.append(row)
                        print(
                            f"{lang} {size:>6} {peer:<12} {test:<22} TWR {m['twr']:.4f} "
                            f"broken/1k {m['broken_per_1k']:.1f} straddling/1k "
                            f"{m['straddling_per_1k']:.1f} rt {m['roundtrip_fail']} unk {m['unk']}",
                            flush=True,
                        )
    return rows


def markdown(rows: list[dict[str, Any]]) -> str:
    """One table per test file: TWR of each peer and SGPE's ratio to HF BPE."""
    out = []
    keys = sorted({(r["lang"], r["test"]) for r in rows}, key=lambda k: (k[0] != "si", k))
    peers = [p for p in PEERS if any(r["peer"] == p for r in rows)]
    for lang, test in keys:
        sub = [r for r in rows if r["lang"] == lang and r["test"] == test]
        train_name = sub[0]["train"]
        out.append(f"**{lang}: trained on `{train_name}`, measured on `{test}`** — tokens per word")
        out.append("(broken cuts per 1k tokens / of which straddling a syllable edge)\n")
        out.append("| size | " + " | ".join(peers) + " | SGPE / HF BPE |")
        out.append("|---:|" + "---:|" * (len(peers) + 1))
        for size in sorted({r["size"] for r in sub}):
            cell = {r["peer"]: r for r in sub if r["size"] == size}
            cells = []
            for p in peers:
                r = cell.get(p)
                cells.append(
                    f"{r['twr']:.3f} ({r['broken_per_1k']:.0f}/{r['straddling_per_1k']:.0f})"
                    if r
                    else "—"
                )
            ratio = (
                f"{cell['sgpe']['twr'] / cell['hf-bpe']['twr']:.3f}"
                if "sgpe" in cell and "hf-bpe" in cell
                else "—"
            )
            out.append(f"| {size:,} | " + " | ".join(cells) + f" | {ratio} |")
        out.append("")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--langs", nargs="+", default=list(SPLITS), choices=list(SPLITS))
    ap.add_argument("--sizes", nargs="+", type=int, default=[4000, 8000, 16000, 32000])
    ap.add_argument("--peers", nargs="+", default=list(PEERS), choices=PEERS)
    ap.add_argument("--out", default=str(RESULTS / "xgenre"), help="path without suffix")
    args = ap.parse_args(argv)
    if not XGENRE.is_dir():
        raise SystemExit(f"{XGENRE}: the cross-genre corpora are needed (../shared/corpora)")
    rows = run(args.langs, args.sizes, args.peers)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out.with_suffix(".csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    table = markdown(rows)
    out.with_suffix(".md").write_text(table + "\n", encoding="utf-8")
    print()
    print(table)


if __name__ == "__main__":
    main()

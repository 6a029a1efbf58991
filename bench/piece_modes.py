"""TWR at vocab 32,000 for the piece modes and the dummy space (the defaults' rationale).

    python bench/piece_modes.py [--corpora ../shared/corpora]

Trains SGPE on si_train.txt and hi_train.txt with `pieces="script"` (seed 000's words),
whitespace pieces without the dummy space, and the defaults, and prints the tokens per
whitespace word on the matching dev file (each line encoded on its own). About 1 minute.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import sgpe  # noqa: E402
from sgpe.metrics import evaluate, read_lines  # noqa: E402

OPTIONS: list[dict[str, object]] = [{"pieces": "script"}, {"prepend_space": False}, {}]


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--corpora", type=Path, default=ROOT.parent / "shared" / "corpora")
    args = ap.parse_args()
    for lang in ("si", "hi"):
        dev = list(read_lines(args.corpora / f"{lang}_dev.txt"))
        for options in OPTIONS:
            tok = sgpe.train(args.corpora / f"{lang}_train.txt", vocab_size=32000, **options)  # type: ignore[arg-type]
            print(f"{lang}  {options or 'defaults'!s:28s} TWR {evaluate(tok, dev)['twr']:.3f}")


if __name__ == "__main__":
    main()

"""``python -m bench COMMAND``: run a benchmark, or rewrite the reports from saved results."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

# command -> (module, the function that runs it, the function that adds its options, help)
COMMANDS: dict[str, tuple[str, str, str, str]] = {
    "xgenre": ("xgenre", "run", "add_arguments",
               "compression on text of another genre (the README's headline)"),
    "compression": ("compression", "run", "add_arguments",
                    "in-domain compression at 4k-32k against every peer"),
    "speed": ("speed", "run", "add_arguments",
              "training, encoding, syllabify speed and memory vs peers"),
    "scripts": ("scripts", "run", "add_arguments",
                "SGPE vs HF BPE at an equal budget on every script"),
    "scripts-speed": ("scripts", "run_speed", "add_speed_arguments",
                      "syllabify speed on every script's real text"),
    "meta": ("meta", "run", "add_arguments",
             "the meta-vocabulary (o200k_base + SGPE) vs o200k_base"),
    "pieces": ("pieces", "run", "add_arguments",
               "TWR of the piece modes and the dummy space"),
    "oracles": ("oracles", "run", "add_arguments",
                "the syllabifier vs HarfBuzz and grapheme clusters"),
    "readme": ("__main__", "readme", "readme_arguments",
               "rewrite reports and README tables from bench/results"),
}  # fmt: skip


def readme_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument(
        "--check", action="store_true", help="change nothing; exit 1 if the README is stale"
    )
    ap.add_argument("--readme", type=Path, default=None, help="the README to rewrite")


def readme(args: argparse.Namespace) -> int:
    from .render import README, update_readme, write_reports

    path: Path = args.readme or README
    text = path.read_text(encoding="utf-8")
    new = update_readme(text, args.out)
    if args.check:
        if new != text:
            print(f"{path}: the generated tables differ from {args.out}; run python -m bench readme")  # fmt: skip
            return 1
        return 0
    written = write_reports(args.out)
    path.write_text(new, encoding="utf-8")
    print(f"rewrote {path} and the reports of {', '.join(written)} in {args.out}")
    return 0


def _function(module: str, name: str) -> Callable[..., Any]:
    mod = sys.modules[__name__] if module == "__main__" else importlib.import_module(f"bench.{module}")  # fmt: skip
    return getattr(mod, name)  # type: ignore[no-any-return]


def parser() -> argparse.ArgumentParser:
    from .corpora import DEFAULT
    from .records import RESULTS

    ap = argparse.ArgumentParser(
        prog="python -m bench",
        description="SGPE's benchmarks: peers measured in the same run, ratios and medians.",
    )
    sub = ap.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (module, _, add, help_line) in COMMANDS.items():
        doc = _function(module, add).__module__
        p = sub.add_parser(
            name,
            help=help_line,
            description=sys.modules[doc].__doc__,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        if name != "readme":
            p.add_argument(
                "--corpora",
                type=Path,
                default=DEFAULT,
                help="corpora folder (default: %(default)s)",
            )
        p.add_argument(
            "--out", type=Path, default=RESULTS, help="results folder (default: %(default)s)"
        )
        _function(module, add)(p)
    return ap


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser().parse_args(argv)
    args.invocation = " ".join(["python -m bench", *argv])
    module, run, _, _ = COMMANDS[args.command]
    return int(_function(module, run)(args))


if __name__ == "__main__":
    sys.exit(main())

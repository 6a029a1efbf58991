"""``python -m bench COMMAND``: run a benchmark, or rewrite the reports from saved results.

Each benchmark is a module of this package with ``HELP`` (its line in ``--help``),
``add_arguments(parser)`` and ``run(args)``; its command is its name with dashes.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path
from types import ModuleType

BENCHES = ["xgenre", "compression", "speed", "scripts", "scripts_speed", "meta", "pieces", "oracles", "scale", "long_pieces", "hf_folder", "superwords", "native", "app"]  # fmt: skip
HELP = "rewrite reports and README tables from bench/results"


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument(
        "--check", action="store_true", help="change nothing; exit 1 if the README is stale"
    )
    ap.add_argument("--readme", type=Path, default=None, help="the README to rewrite")


def run(args: argparse.Namespace) -> int:
    """The ``readme`` command: every report and README block from the saved records."""
    from .render import README, update_readme, write_reports

    path: Path = args.readme or README
    text = path.read_text(encoding="utf-8")
    new = update_readme(text, args.out)
    if args.check:
        if new != text:
            print(f"{path}: its tables differ from {args.out}; run python -m bench readme")
            return 1
        return 0
    written = write_reports(args.out)
    path.write_text(new, encoding="utf-8")
    print(f"rewrote {path} and the reports of {', '.join(written)} in {args.out}")
    return 0


def commands() -> dict[str, ModuleType]:
    """Command name -> the module that runs it."""
    found = {name.replace("_", "-"): importlib.import_module(f"bench.{name}") for name in BENCHES}
    return {**found, "readme": sys.modules[__name__]}


def parser() -> argparse.ArgumentParser:
    from .corpora import DEFAULT
    from .records import RESULTS

    ap = argparse.ArgumentParser(
        prog="python -m bench",
        description="SGPE's benchmarks: peers measured in the same run, ratios and medians.",
    )
    sub = ap.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, module in commands().items():
        p = sub.add_parser(
            name,
            help=module.HELP,
            description=module.__doc__,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        if name != "readme":
            p.add_argument("--corpora", type=Path, default=DEFAULT, help="default: %(default)s")
        p.add_argument("--out", type=Path, default=RESULTS, help="default: %(default)s")
        module.add_arguments(p)
    return ap


def compile_sgpe() -> None:
    """Write sgpe's bytecode before anything is timed, as ``pip install`` does for an
    installed copy and did for the peers' Python packages. A machine that sets
    ``PYTHONDONTWRITEBYTECODE`` (this one does) otherwise has every process a bench starts
    compile sgpe's sources again, a cost that no installed copy pays."""
    import compileall

    compileall.compile_dir(Path(__file__).resolve().parents[1] / "sgpe", quiet=1)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser().parse_args(argv)
    args.invocation = " ".join(["python -m bench", *argv])
    if args.command != "readme":
        compile_sgpe()
    return int(commands()[args.command].run(args))


if __name__ == "__main__":
    sys.exit(main())

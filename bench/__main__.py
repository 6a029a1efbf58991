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

BENCHES = ["xgenre", "compression", "speed", "scripts", "scripts_speed", "meta", "pieces", "oracles", "scale", "long_pieces", "hf_folder", "superwords", "native", "app", "thai"]  # fmt: skip
HELP = "rewrite reports and the docs' generated tables from bench/results"


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument(
        "--check", action="store_true", help="change nothing; exit 1 if a page is stale"
    )
    ap.add_argument(
        "--page", type=Path, default=None, help="one page to rewrite (default: every page)"
    )


def run(args: argparse.Namespace) -> int:
    """The ``tables`` command: every report and generated docs block from the saved records."""
    from .render import PAGES, blocks_in, update_page, write_reports

    if args.page is None:
        pages = dict(PAGES)
    else:
        text = args.page.read_text(encoding="utf-8")
        pages = {args.page: blocks_in(text)}
        if not pages[args.page]:
            print(f"{args.page}: has no <!-- bench:NAME --> block")
            return 1
    stale = []
    for path, names in pages.items():
        text = path.read_text(encoding="utf-8")
        new = update_page(text, names, args.out)
        if new == text:
            continue
        stale.append(path)
        if not args.check:
            path.write_text(new, encoding="utf-8")
    if args.check:
        for path in stale:
            print(f"{path}: its tables differ from {args.out}; run python -m bench tables")
        return 1 if stale else 0
    written = write_reports(args.out)
    changed = ", ".join(str(p) for p in stale) or "no page (unchanged)"
    print(f"rewrote {changed} and the reports of {', '.join(written)} in {args.out}")
    return 0


def commands() -> dict[str, ModuleType]:
    """Command name -> the module that runs it."""
    found = {name.replace("_", "-"): importlib.import_module(f"bench.{name}") for name in BENCHES}
    return {**found, "tables": sys.modules[__name__]}


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
        if name != "tables":
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
    if args.command != "tables":
        compile_sgpe()
    return int(commands()[args.command].run(args))


if __name__ == "__main__":
    sys.exit(main())

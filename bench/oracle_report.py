"""Run the oracle checks (sgpe/oracles.py) on every script's real text and print the table.

    python bench/oracle_report.py [--corpora ../shared/corpora] [--write-docs] [--examples N]

``--write-docs`` replaces the table in docs/scripts.md (between its ORACLE TABLE markers);
``tests/test_oracles.py`` checks that table against a fresh run. ``--examples`` prints the
most frequent syllables or boundaries behind each disagreement (for reading, not for the
docs: they come from the corpora, which the repository must not copy).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sgpe.oracles import CHECKS, check_text, corpus_lines, markdown_table  # noqa: E402
from sgpe.schema import BUILTIN_SCRIPTS  # noqa: E402

DOCS = ROOT / "docs" / "scripts.md"
BEGIN, END = "<!-- ORACLE TABLE BEGIN -->\n", "<!-- ORACLE TABLE END -->\n"


def replace_table(text: str, table: str) -> str:
    head, rest = text.split(BEGIN)
    _, tail = rest.split(END)
    return head + BEGIN + table + END + tail


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpora", type=Path, default=ROOT.parent / "shared" / "corpora")
    parser.add_argument("--write-docs", action="store_true")
    parser.add_argument("--examples", type=int, default=0)
    args = parser.parse_args()
    reports = []
    for script in BUILTIN_SCRIPTS:
        t0 = time.perf_counter()
        report = check_text(script, corpus_lines(args.corpora, script))
        reports.append(report)
        print(f"{script}: {time.perf_counter() - t0:.1f} s", file=sys.stderr)
        for check in CHECKS:
            for example, n in report.examples.get(check, Counter()).most_common(args.examples):
                print(f"    {check}: {example!r} x{n}", file=sys.stderr)
    table = markdown_table(reports)
    print(table)
    if args.write_docs:
        DOCS.write_text(replace_table(DOCS.read_text(encoding="utf-8"), table), encoding="utf-8")


if __name__ == "__main__":
    main()

"""The oracle checks (``sgpe/oracles.py``) on every script's real text: the table of
``docs/scripts.md``.

``--write-docs`` replaces that table (between its ORACLE TABLE markers); the tests
(``tests/test_oracles.py``) check it against a fresh run, under the dependency versions that
``--write-docs`` records in ``tests/made_with.json``. ``--examples N`` prints the most
frequent syllables or boundaries behind each disagreement, for reading only: they come
from the corpora, which the repository must not copy.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter

from .corpora import ROOT

HELP = "the syllabifier vs HarfBuzz and grapheme clusters"
DOCS = ROOT / "docs" / "scripts.md"
MADE_WITH = ROOT / "tests" / "made_with.json"
BEGIN, END = "<!-- ORACLE TABLE BEGIN -->\n", "<!-- ORACLE TABLE END -->\n"


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument(
        "--write-docs", action="store_true", help="rewrite the table in docs/scripts.md"
    )
    ap.add_argument("--examples", type=int, default=0, help="print N examples per disagreement")


def replace_table(text: str, table: str) -> str:
    head, rest = text.split(BEGIN)
    _, tail = rest.split(END)
    return head + BEGIN + table + END + tail


def run(args: argparse.Namespace) -> int:
    from sgpe.oracles import (
        CHECKS,
        CORPUS_FILES,
        check_text,
        corpus_lines,
        dependency_versions,
        markdown_table,
    )

    from .corpora import require

    reports = []
    for script, names in CORPUS_FILES.items():
        require(args.corpora, *names)
        t0 = time.perf_counter()
        report = check_text(script, corpus_lines(args.corpora, script))
        reports.append(report)
        print(f"{script}: {time.perf_counter() - t0:.1f} s", file=sys.stderr)
        for check in CHECKS:
            for example, n in report.examples.get(check, Counter()).most_common(args.examples):
                print(f"    {check}: {example!r} x{n}", file=sys.stderr)
    table = markdown_table(reports)
    print(table)
    versions = dependency_versions()
    print("made with " + ", ".join(f"{n} {v}" for n, v in versions.items()), file=sys.stderr)
    if args.write_docs:
        DOCS.write_text(replace_table(DOCS.read_text(encoding="utf-8"), table), encoding="utf-8")
        record_versions("oracle_table", versions)
    return 0


def record_versions(key: str, versions: dict[str, str | None]) -> None:
    """Write the versions an expectation was made with into tests/made_with.json, where
    tests/conftest.py compares them with what is installed."""
    missing = [name for name, version in versions.items() if version is None]
    if missing:
        raise SystemExit(f"cannot record the versions: {', '.join(missing)} not installed")
    data = json.loads(MADE_WITH.read_text(encoding="utf-8"))
    data[key]["made_with"] = versions
    MADE_WITH.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")

"""Every schema against two independent oracles on its script's real text.

The counts must equal the table in docs/scripts.md, where each remaining disagreement is
explained; and two checks must be zero everywhere: no syllable shaped alone shows a dotted
circle, and no syllable holds two vowel nuclei.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sgpe.oracles import COLUMNS, check_text, corpus_lines, font_path
from sgpe.schema import BUILTIN_SCRIPTS

DOCS = Path(__file__).resolve().parents[1] / "docs" / "scripts.md"


def _documented() -> dict[str, dict[str, str]]:
    text = DOCS.read_text(encoding="utf-8")
    table = text.split("<!-- ORACLE TABLE BEGIN -->\n")[1].split("<!-- ORACLE TABLE END -->")[0]
    rows = [line.strip("|").split("|") for line in table.strip().splitlines()[2:]]
    return {cells[0].strip(): dict(zip(COLUMNS, (c.strip() for c in cells))) for cells in rows}


@pytest.mark.made_with("oracle_table")
@pytest.mark.parametrize("script", BUILTIN_SCRIPTS)
def test_oracles_on_real_text(shared_corpora, script):
    pytest.importorskip("uharfbuzz", reason="the shaping oracle needs uharfbuzz (extra 'oracles')")
    if not font_path(script).exists():
        pytest.skip(f"{font_path(script)} missing: scripts/install_browser.sh installs it")
    report = check_text(script, corpus_lines(shared_corpora, script))
    row = report.row()
    assert row["dotted_circle"] == 0, report.examples["dotted_circle"].most_common(5)
    assert row["two_nuclei"] == 0, report.examples["two_nuclei"].most_common(5)
    assert row["syllables"] > 50_000  # the text really is in this script
    documented = _documented()[script]
    assert {c: f"{row[c]:,}" if c != "script" else row[c] for c in COLUMNS} == documented

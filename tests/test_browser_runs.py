"""The operator's runs in a browser: what a fresh visitor sees on the Train page of a
server whose runs folder holds runs made with `sgpe train`. The server, browser and tab
fixtures are tests/test_browser.py's (one app for the file).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import test_browser
from test_browser import REPO_ROOT, SCRIPT_RUN_TIMEOUT_MS, Tab, wait_for_app_idle

# tests/test_browser.py's fixtures: a module-scoped server and browser for this file too
runs_dir = test_browser.runs_dir
app_url = test_browser.app_url
browser = test_browser.browser
tab = test_browser.tab

pytestmark = pytest.mark.browser

SINHALA_TXT = REPO_ROOT / "sgpe" / "sample_data" / "sinhala.txt"

# What the closed sidebar menu shows of each option when it is chosen: the characters that
# fit the width of its box in its font (the rest is cut off).
VISIBLE_JS = """
([texts]) => {
  const box = document.querySelector('[data-testid=stSidebar] .st-key-side_tok input');
  const style = getComputedStyle(box);
  const ctx = document.createElement('canvas').getContext('2d');
  ctx.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
  const width = box.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  return texts.map(t => {
    let n = 0;
    while (n < t.length && ctx.measureText(t.slice(0, n + 1)).width <= width) { n++; }
    return t.slice(0, n);
  });
}
"""


def make_server_runs(root: Path, tmp: Path) -> None:
    """What the operator left in the runs folder: a run of their own name, three runs of
    one corpus started in the same minute, a folder that is not a run, a damaged run."""
    from sgpe.cli import main as cli

    for name in ("my-cli-run", "sinhala-a", "sinhala-b", "sinhala-c", "broken"):
        argv = ["train", "--corpus", str(SINHALA_TXT), "--vocab-size", "600", "--out"]
        assert cli([*argv, str(root / name)]) == 0
    (root / "notes").mkdir()
    (root / "broken" / "status.json").write_text('{"state": "do', encoding="utf-8")


def test_the_operators_runs_are_listed_read_only(tab: Tab, runs_dir: Path, tmp_path: Path) -> None:
    """A fresh browser listed the operator's runs as "Your runs (32)" with Delete, and one
    click deleted one; a CLI run named my-cli-run never appeared, and nothing said why; a
    run with a damaged status.json looked queued; the sidebar cut three runs into one
    "sinhala.txt, 600 tokens · SGPE hierarchic…"."""
    make_server_runs(runs_dir, tmp_path)
    page = tab.goto("train")
    main = page.get_by_test_id("stMain")
    main.get_by_text("Your runs (0)").wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
    main.get_by_text("Not listed: notes (not a run directory: it has no config.json).").wait_for(
        timeout=SCRIPT_RUN_TIMEOUT_MS
    )
    main.get_by_text("Run broken cannot be shown: status.json: not valid JSON").wait_for(
        timeout=SCRIPT_RUN_TIMEOUT_MS
    )
    assert main.get_by_text("queued: it starts on its own").count() == 0
    main.get_by_text("Clean up disk").click()
    clean = page.get_by_role("button", name="Delete 0 finished or failed run(s)")
    clean.wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
    assert clean.is_disabled()
    main.get_by_text("Runs started on the server (4, read-only)").click()
    use = page.locator(".st-key-use_my-cli-run button")
    use.wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
    wait_for_app_idle(page)
    for run in ("my-cli-run", "sinhala-a", "broken"):
        for action in ("delete", "cancel", "resume"):
            assert page.locator(f".st-key-{action}_{run}").count() == 0, (action, run)
    assert main.get_by_text("started on the server (read-only)").count() == 4
    assert (runs_dir / "my-cli-run" / "vocab.json").exists()

    menu = page.get_by_test_id("stSidebar").locator(".st-key-side_tok input")
    menu.click()
    options = page.get_by_role("option")
    options.first.wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
    texts: list[str] = options.all_inner_texts()
    page.keyboard.press("Escape")
    runs = [t for t in texts if t.startswith("sinhala.txt")]
    assert len(runs) == 4, texts  # my-cli-run and sinhala-a..c, all on sinhala.txt
    visible: list[Any] = page.evaluate(VISIBLE_JS, [runs])
    assert len(set(visible)) == 4, visible  # about 35 characters show in a 1400 px window
    tab.check_clean()
    tab.screenshot("train_operator_runs")

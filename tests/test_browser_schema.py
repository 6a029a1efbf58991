"""The app trains with the schema the Grammar page validated (the Train page's "Your own
schema", docs/scripts.md). The server, browser and tab fixtures are tests/test_browser.py's.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import test_browser
from test_browser import SCRIPT_RUN_TIMEOUT_MS, TRAIN_TIMEOUT_MS, Tab, wait_for_app_idle

# tests/test_browser.py's fixtures: a module-scoped server and browser for this file too
runs_dir = test_browser.runs_dir
app_url = test_browser.app_url
browser = test_browser.browser
tab = test_browser.tab

pytestmark = pytest.mark.browser

REPO_ROOT = Path(__file__).resolve().parents[1]


def test_the_train_page_trains_with_the_schema_the_grammar_page_validated(
    tab: Tab, runs_dir: Path
) -> None:
    """A linguist edits a schema on the Grammar page (a copy of Sinhala's under another
    name), the Train page offers it as "Your own schema", and the run it starts records
    the schema: its vocabulary has the merges of the built-in Sinhala script and is shown
    with its own grammar."""
    import sgpe
    from sgpe.gpe import GPETrainer
    from sgpe_explorer.runs.manager import RunManager

    document = json.loads((REPO_ROOT / "sgpe" / "schemas" / "sinhala.json").read_text("utf-8"))
    document["name"], document["title"] = "my_sinhala", "My Sinhala"
    page = tab.goto("grammar")
    main = page.get_by_test_id("stMain")
    page.get_by_role("tab", name="Your own schema").click()
    box = main.get_by_role("textbox", name="Schema", exact=True)
    box.fill(json.dumps(document, ensure_ascii=False, indent=1))
    box.press("Control+Enter")
    main.get_by_text("Valid schema 'my_sinhala'").wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
    wait_for_app_idle(page)

    # The same session (an in-app link, not a reload) opens the Train page.
    page.get_by_role("link", name="Train").click()
    page.get_by_role("heading", name="Train").first.wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
    wait_for_app_idle(page)
    main.get_by_text("Your own schema (my_sinhala, validated on the Grammar page)").click()
    main.get_by_text(
        re.compile(r"Script grammar: your own schema My Sinhala \(my_sinhala@")
    ).wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
    wait_for_app_idle(page)
    main.get_by_text("Also train the byte-level baseline").click()
    wait_for_app_idle(page)
    size = page.get_by_role("textbox", name="Vocabulary size", exact=True)
    size.fill("1000")
    size.press("Enter")
    wait_for_app_idle(page)
    page.get_by_role("button", name="Start training").click()
    main.get_by_text(re.compile(r"done · SGPE · ")).first.wait_for(timeout=TRAIN_TIMEOUT_MS)
    wait_for_app_idle(page)
    tab.check_clean()
    tab.screenshot("train_own_schema")

    (info,) = RunManager(runs_dir).list_runs()
    assert info.status.state == "done"
    settings = info.config.settings
    assert settings.schema == document and settings.script.startswith("my_sinhala@")
    vocab = json.loads((info.run.path / "vocab.json").read_text(encoding="utf-8"))
    assert vocab["schema"] == document and vocab["scripts"] == settings.script
    # The merges of the built-in script with the same settings on the same corpus.
    builtin = settings.replace(schema=None, script="sinhala")
    corpus = info.run.path / info.config.corpus_path
    same = GPETrainer(builtin).train(corpus if corpus.exists() else Path(info.config.corpus_path))
    assert [list(m) for m in same.merges] == vocab["merges"]
    assert sgpe.load(info.run.path / "vocab.json").script == settings.script

    # Used, the vocabulary's syllables are counted with its own grammar on Vocabulary.
    page.locator(f".st-key-use_{info.run.id} button").click()
    page.get_by_test_id("stSidebar").get_by_text(
        f"Active: {len(vocab['vocab']):,} tokens"
    ).wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
    wait_for_app_idle(page)
    page.get_by_role("link", name="Vocabulary").click()
    page.get_by_role("heading", name="Vocabulary").first.wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
    wait_for_app_idle(page)
    tab.check_clean()

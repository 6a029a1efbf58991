"""End-to-end checks of docs/app.md, section 8, that only a browser shows:
what the Train form's boxes send, and the link a fragment's buttons leave. The server,
browser and tab fixtures are tests/test_browser.py's.
"""

from __future__ import annotations

import re

import pytest
import test_browser
from test_browser import SCRIPT_RUN_TIMEOUT_MS, Tab, step_number, wait_for_app_idle

# tests/test_browser.py's fixtures: a module-scoped server and browser for this file too
runs_dir = test_browser.runs_dir
app_url = test_browser.app_url
browser = test_browser.browser
tab = test_browser.tab

pytestmark = pytest.mark.browser


def test_what_is_typed_in_the_train_form_reaches_the_page(tab: Tab) -> None:
    """A number box turned 99999999999999999999999 red and never sent it; the page
    warned about 32,000 and Start trained that; an emptied number box sent 0.
    Both now reach the page as typed."""
    page = tab.goto("train")
    main = page.get_by_test_id("stMain")
    size = page.get_by_label("Vocabulary size", exact=True)  # a number box before
    size.fill("99999999999999999999999")
    size.press("Enter")
    main.get_by_text("Vocabulary size must be at most 1,114,112").wait_for(
        timeout=SCRIPT_RUN_TIMEOUT_MS
    )
    wait_for_app_idle(page)
    assert page.get_by_role("button", name="Start training").is_disabled()
    assert main.get_by_text("32,000").count() == 0
    size.fill("2000")
    size.press("Enter")
    superwords = page.get_by_role("textbox", name="Superwords from (vocabulary size)", exact=True)
    superwords.fill("1500")
    superwords.press("Enter")
    page.wait_for_function(
        "() => location.search.includes('superwords_from=1500')", timeout=SCRIPT_RUN_TIMEOUT_MS
    )
    superwords.fill("")
    superwords.press("Enter")
    page.wait_for_function(
        "() => !location.search.includes('superwords_from')", timeout=SCRIPT_RUN_TIMEOUT_MS
    )
    wait_for_app_idle(page)
    assert main.locator("[data-testid=stAlertContentError]").count() == 0
    assert page.get_by_role("button", name="Start training").is_enabled()
    tab.check_clean()


def test_merges_next_and_previous_update_the_link(tab: Tab) -> None:
    """Next and Previous rerun only the stepper (a fragment), which left step= in
    the link as it was; a reload then went back. The stepper writes the link itself."""
    page = tab.goto("merges")
    assert step_number(page) == 0
    # Each click waits for the link of its own step: a second click sent while the first
    # one's rerun is still on its way can be dropped by a busy server (seen in CI).
    for step in (1, 2):
        page.get_by_role("button", name="Next ▶").click()
        page.wait_for_function(
            f"() => new URLSearchParams(location.search).get('step') === '{step}'",
            timeout=SCRIPT_RUN_TIMEOUT_MS,
        )
        wait_for_app_idle(page)
    page.get_by_role("button", name="◀ Previous").click()
    page.wait_for_function(
        "() => new URLSearchParams(location.search).get('step') === '1'",
        timeout=SCRIPT_RUN_TIMEOUT_MS,
    )
    wait_for_app_idle(page)
    assert re.search(r"[?&]step=1(&|$)", page.url)
    page.reload(wait_until="domcontentloaded")
    wait_for_app_idle(page)
    assert step_number(page) == 1
    tab.check_clean()

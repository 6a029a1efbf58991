"""End-to-end checks of what only a browser shows (docs/app.md, section 8a): a long
text survives a reload, an edit on Merges reaches the other pages, and the charts' tick
labels. The server, browser and tab fixtures are tests/test_browser.py's; the same checks
without a browser are in tests/test_app_state.py.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
import test_browser
from test_browser import Tab, set_text

# tests/test_browser.py's fixtures: a module-scoped server and browser for this file too
runs_dir = test_browser.runs_dir
app_url = test_browser.app_url
browser = test_browser.browser
tab = test_browser.tab

pytestmark = pytest.mark.browser

#: Longer than tests/test_browser.py's 30 s: a 76,926-character page on a shared two-core
#: machine (load 40 and more while several suites run) took longer to settle.
SCRIPT_RUN_TIMEOUT_MS = 120_000


def wait_for_app_idle(page: Any) -> None:
    """tests/test_browser.py's wait (connected, script not running, no skeleton), longer."""
    for selector in (
        "[data-testid=stApp][data-test-connection-state=CONNECTED]",
        "[data-testid=stApp][data-test-script-state=notRunning]",
    ):
        page.wait_for_selector(selector, timeout=SCRIPT_RUN_TIMEOUT_MS)
    page.wait_for_function(
        "() => document.querySelectorAll('[data-testid=stSkeleton]').length === 0",
        timeout=SCRIPT_RUN_TIMEOUT_MS,
    )


def goto(tab: Tab, path: str = "") -> Any:
    tab.page.goto(f"{tab.url}/{path}", wait_until="domcontentloaded", timeout=SCRIPT_RUN_TIMEOUT_MS)
    wait_for_app_idle(tab.page)
    return tab.page


def open_by_link(page: Any, name: str) -> None:
    page.get_by_test_id("stSidebar").get_by_role("link", name=name.title()).click()
    page.get_by_role("heading", name=name.title()).first.wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
    wait_for_app_idle(page)


LINE = "අද උදේ පාසලට යන විට මහ වැස්සක් ඇද හැලුණා.\n"
LONG = (LINE * (76_926 // len(LINE) + 1))[:76_926]


def paste(page: Any, text: str) -> None:
    """Put ``text`` into the page's text area at once, as a paste does, and commit it
    (Ctrl+Enter). Playwright's fill typed 76,926 characters too slowly for its timeout."""
    area = page.locator("textarea").first
    area.evaluate(
        "(el, v) => { const set = Object.getOwnPropertyDescriptor("
        "HTMLTextAreaElement.prototype, 'value').set; set.call(el, v);"
        " el.dispatchEvent(new Event('input', {bubbles: true})); }",
        text,
    )
    area.press("Control+Enter")


def area_value(page: Any) -> str:
    return str(page.locator("textarea").first.input_value())


def test_a_long_text_survives_a_reload_and_a_merges_edit_reaches_every_page(
    browser: Any, app_url: str
) -> None:
    """76,926 characters pasted came back as the 111-character sample after F5, and an
    edit of Merges' box was gone after a visit to Compare. Now: F5 and the page's own
    link bring the text back in this browser (not in another one), and the Merges edit
    is the text of Compare and of Merges when it is opened again."""
    tab, stranger = Tab(browser, app_url), Tab(browser, app_url)
    try:
        page = goto(tab)
        paste(page, LONG)
        page.wait_for_function(
            "() => location.search.includes('textid=')", timeout=SCRIPT_RUN_TIMEOUT_MS
        )
        wait_for_app_idle(page)
        link = page.url
        page.reload(wait_until="domcontentloaded", timeout=SCRIPT_RUN_TIMEOUT_MS)
        wait_for_app_idle(page)
        assert len(area_value(page)) == len(LONG) and area_value(page) == LONG
        page = goto(tab, link.split("/", 3)[3])  # the page's own link, typed again
        assert area_value(page) == LONG
        # Another browser (no owner cookie of the first) gets no text from the link.
        other = goto(stranger, link.split("/", 3)[3])
        assert area_value(other) != LONG
        other.get_by_text("does not keep for you").first.wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
        stranger.check_clean()

        open_by_link(page, "merges")
        assert area_value(page) == LONG[:400]
        set_text(page, "नमस्ते दुनिया")
        page.get_by_text(re.compile(r"^In all: SGPE goes from 1[34] characters")).first.wait_for(
            timeout=SCRIPT_RUN_TIMEOUT_MS
        )
        page.get_by_text("Your edit of the excerpt replaced the shared text of 76,926").wait_for(
            timeout=SCRIPT_RUN_TIMEOUT_MS
        )
        open_by_link(page, "compare")
        assert area_value(page) == "नमस्ते दुनिया"
        open_by_link(page, "merges")
        assert area_value(page) == "नमस्ते दुनिया"
        page.get_by_role("button", name="Bring back the 76,926 characters").click()
        page.wait_for_function(
            "() => document.querySelector('textarea').value.length === 400",
            timeout=SCRIPT_RUN_TIMEOUT_MS,
        )
        wait_for_app_idle(page)
        page.reload(wait_until="domcontentloaded", timeout=SCRIPT_RUN_TIMEOUT_MS)
        wait_for_app_idle(page)
        assert area_value(page) == LONG[:400]
        tab.check_clean()
    finally:
        tab.page.close()
        stranger.page.close()


def tick_labels(page: Any, chart: Any, axis: str) -> list[str]:
    """The tick labels of a Plotly chart's ``axis`` ("x" or "y"), left to right or
    bottom to top (as the eye reads the axis)."""
    boxes = chart.locator(f"g.{axis}tick text").evaluate_all(
        "els => els.map(e => { const r = e.getBoundingClientRect();"
        " return [e.textContent, r.x, r.y]; })"
    )
    order = sorted(boxes, key=lambda b: b[1] if axis == "x" else -b[2])
    return [str(b[0]) for b in order]


def numbers(labels: list[str]) -> list[float]:
    return [float(label.replace(",", "").replace("\u2212", "-")) for label in labels]


def test_count_charts_tick_whole_numbers_and_log_axes_read_in_order(tab: Tab) -> None:
    """Compare's counts of 0 and 1 ticked at 0.2 and 0.4; the Zipf plot's log axes read
    "5, 2, 100, 5, 2, 10". Each axis now reads as whole numbers in increasing order."""
    page = goto(
        tab, "compare?text=%E0%A4%95%E0%A5%8D%E0%A4%B7%E0%A4%A4%E0%A5%8D%E0%A4%B0%E0%A4%BF%E0%A4%AF"
    )
    chart = page.locator(".st-key-cmp_summary")
    chart.locator("g.ytick text").first.wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
    labels = tick_labels(page, chart, "y")
    assert labels and all(re.fullmatch(r"\d+", t) for t in labels), labels
    assert page.get_by_text("1 torn syllable ·").count() == 1  # the byte-level column
    assert page.get_by_text("1 torn syllables").count() == 0

    page = goto(tab, "vocabulary?vt=sinhala.txt")
    zipf = page.locator("[data-testid=stPlotlyChart]").filter(has_text="Rank–frequency")
    zipf.locator("g.xtick text").first.wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
    for axis in ("x", "y"):
        labels = tick_labels(page, zipf, axis)
        values = numbers(labels)
        assert len(values) >= 2 and values == sorted(set(values)), (axis, labels)
        assert all(v == int(v) for v in values), labels
    histograms = page.locator("[data-testid=stPlotlyChart]").filter(has_text="Token length")
    for i in range(histograms.count()):
        labels = tick_labels(page, histograms.nth(i), "y")
        assert all(re.fullmatch(r"[\d,]+", t) for t in labels), labels
    tab.check_clean()

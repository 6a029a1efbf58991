"""What only a browser shows of superwords, phones and placeholders: a superword chip
stays on one line and explains itself on hover; on a phone no table toolbar covers what
is above its table; the minimum-frequency placeholder fits its box.

The server, browser and readiness waits are those of tests/test_browser.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from test_browser import (  # noqa: F401  (fixtures)
    DEVICES,
    SCRIPT_RUN_TIMEOUT_MS,
    Tab,
    app_url,
    browser,
    runs_dir,
    wait_for_app_idle,
)

pytestmark = pytest.mark.browser

SRI_LANKA = "ශ්\u200dරී ලංකා"  # ශ්‍රී ලංකා, with its ZWJ written out


@pytest.fixture(scope="module")
def superword_run(runs_dir: Path) -> Any:
    """A finished run with superwords (from 1,000 tokens) on sample_data/sinhala.txt."""
    from sgpe import shipped
    from sgpe_explorer.runs.manager import RunManager, RunRequest

    manager = RunManager(runs_dir)
    run = manager.start(
        RunRequest(shipped.SAMPLE_DATA / "sinhala.txt", vocab_size=1500, superwords_from=1000)
    )
    assert manager.wait(run, timeout=60).state == "done"
    return run


def phone_tab(browser: Any, url: str) -> Tab:
    """A tab as a phone: 390 px wide, touch, nothing hovers."""
    tab = Tab(browser, url)
    tab.page.close()
    tab.page = browser.new_page(viewport=DEVICES["phone"], has_touch=True, is_mobile=True)
    tab.page.on("pageerror", lambda error: tab.errors.append(str(error)))
    return tab


@pytest.fixture
def phone(browser: Any, app_url: str) -> Iterator[Tab]:
    tab = phone_tab(browser, app_url)
    try:
        yield tab
    finally:
        tab.page.close()


@pytest.mark.parametrize("device", list(DEVICES))
def test_a_superword_chip_stays_whole_and_says_what_it_is(
    browser: Any,
    app_url: str,
    superword_run: Any,
    device: str,
) -> None:
    """A superword holds a space, and its chip wrapped at it, looking like two
    tokens. In four narrow columns (desktop) and on a phone, every superword chip is on
    one line; its hover title names it."""
    text = " ".join([f"{SRI_LANKA} රජය", "ලංකා"] * 12)
    tab = Tab(browser, app_url)
    tab.page.set_viewport_size(DEVICES[device])
    try:
        page = tab.goto(
            f"compare?tok={superword_run.id}&text={quote(text)}"
            "&cmp=sgpe,base,o200k_base,cl100k_base"
        )
        boxes = page.locator("div.sgpe-tokens")
        boxes.nth(3).wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
        chips = page.locator('div.sgpe-tokens[data-tokenizer="SGPE"] span.tok.super')
        assert chips.count() == 12
        lines = chips.evaluate_all("els => els.map(e => e.getClientRects().length)")
        assert lines == [1] * 12
        texts = chips.evaluate_all("els => els.map(e => e.textContent)")
        assert [t.strip() for t in texts] == [SRI_LANKA] * 12  # with its leading space
        title = str(chips.first.get_attribute("title"))
        assert "superword: whole syllables of 2 words in one token" in title
        chips.first.click()  # a tap shows the same details
        shown = chips.first.evaluate("e => getComputedStyle(e, '::after').content")
        assert "superword" in shown
        assert page.get_by_text("marks a superword").first.is_visible()
        tab.check_clean()
        tab.screenshot(f"words_superwords_{device}")
    finally:
        tab.page.close()


def _overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def test_on_a_phone_no_table_toolbar_covers_what_is_above(phone: Tab) -> None:
    """On a phone a table's toolbar (always shown where nothing hovers) covered
    the tick labels of Compare's third chart, and Grammar's tab bar."""
    page = phone.goto(f"compare?text={quote(SRI_LANKA)}")
    chart = page.locator(".st-key-cmp_summary")
    chart.locator("g.annotation").first.wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
    toolbar = page.get_by_test_id("stElementToolbar").first
    chart_box, toolbar_box = chart.bounding_box(), toolbar.bounding_box()
    assert chart_box is not None and toolbar_box is not None
    assert toolbar_box["height"] > 0 and not _overlap(chart_box, toolbar_box), (
        chart_box,
        toolbar_box,
    )
    phone.check_clean()

    page = phone.goto("grammar")
    tabs = page.get_by_role("tablist").first
    tabs.wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
    toolbar = page.get_by_test_id("stElementToolbar").first
    toolbar.wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
    tabs_box, toolbar_box = tabs.bounding_box(), toolbar.bounding_box()
    assert tabs_box is not None and toolbar_box is not None
    assert not _overlap(tabs_box, toolbar_box), (tabs_box, toolbar_box)
    phone.check_clean()


@pytest.mark.parametrize("device", list(DEVICES))
def test_the_min_frequency_placeholder_fits_its_box(
    browser: Any,
    app_url: str,
    device: str,
) -> None:
    """The empty minimum-frequency box's placeholder ("empty: 1, the hierarchical
    mode's default") was cut off. Measured in the box's own font, it fits inside the
    box's padding, for both modes."""
    tab = Tab(browser, app_url)
    tab.page.set_viewport_size(DEVICES[device])
    try:
        page = tab.goto("train")
        for mode in ("hierarchical", "paper"):
            if mode == "paper":
                page.get_by_test_id("stRadio").filter(has_text="paper").get_by_text(
                    "paper", exact=True
                ).click()
                wait_for_app_idle(page)
            box = page.locator(".st-key-train_min_freq input")
            box.wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
            # The mode's rerun may still be on its way when the app first looks idle.
            page.wait_for_function(
                "m => document.querySelector('.st-key-train_min_freq input')"
                "?.placeholder.startsWith(m)",
                arg=f"{mode} default: ",
                timeout=SCRIPT_RUN_TIMEOUT_MS,
            )
            placeholder, needed, room = box.evaluate(
                """el => {
                  const cs = getComputedStyle(el);
                  const ctx = document.createElement('canvas').getContext('2d');
                  ctx.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
                  const room = el.clientWidth - parseFloat(cs.paddingLeft)
                    - parseFloat(cs.paddingRight);
                  return [el.placeholder, ctx.measureText(el.placeholder).width, room];
                }"""
            )
            assert needed <= room, (device, placeholder, needed, room)
            assert placeholder.startswith(f"{mode} default: ")
        tab.check_clean()
    finally:
        tab.page.close()

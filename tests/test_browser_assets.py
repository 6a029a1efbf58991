"""What a browser fetches and what a phone shows of the charts:

* a page load and a page's own link (``/compare``) fetch nothing from another host (the
  favicon came from a third-party font host) and get no 404 (the frontend asked for two
  files relative to ``/compare/``);
* a large upload's size check runs in a worker process that logs no warning and exits
  when it is done (it stayed, at about 189 MB, logging "No runtime found");
* on a phone (390 px) Plotly's toolbar covers no chart title on Vocabulary and Compare,
  and no title is cut at the chart's edge.

The server, browser and readiness waits are those of tests/test_browser.py.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import pytest
from test_browser import (  # noqa: F401  (fixtures)
    ARTIFACTS,
    CORPUS_LINES,
    DEVICES,
    SCRIPT_RUN_TIMEOUT_MS,
    SERVERS,
    VIEWPORT,
    Tab,
    app_url,
    browser,
    runs_dir,
    wait_for_app_idle,
)

pytestmark = pytest.mark.browser


def _record(page: Any) -> tuple[list[str], list[str]]:
    """Every request the page makes, and every answer of 400 or more (or a failure)."""
    requests: list[str] = []
    bad: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.on("response", lambda r: bad.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.on("requestfailed", lambda r: bad.append(f"failed {r.url}: {r.failure}"))
    return requests, bad


@pytest.mark.parametrize("path", ["", "compare", "vocabulary"])
def test_a_page_load_stays_on_the_app_host_without_404s(
    browser: Any, app_url: str, path: str
) -> None:
    """Every request of a page load (its link typed in) and of a page opened from the
    sidebar goes to the app's own host and is answered; the favicon is the app's."""
    page = browser.new_page(viewport=VIEWPORT)
    requests, bad = _record(page)
    try:
        page.goto(f"{app_url}/{path}", wait_until="domcontentloaded")
        wait_for_app_idle(page)
        page.get_by_test_id("stSidebarNav").get_by_role("link", name="Grammar").click()
        page.get_by_role("heading", name="Grammar").first.wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
        wait_for_app_idle(page)
        time.sleep(3.0)  # the favicon, and the chart code fetched once the page is idle
        host = urlsplit(app_url).netloc
        elsewhere = sorted(
            {u for u in requests if not u.startswith("data:") and urlsplit(u).netloc != host}
        )
        assert elsewhere == [], elsewhere
        assert bad == [], bad
        icon = page.locator("link[rel='shortcut icon']").get_attribute("href") or ""
        assert icon.startswith("data:") or urlsplit(icon).netloc in ("", host), icon
    finally:
        page.close()


def test_a_large_upload_is_checked_by_a_quiet_worker_that_exits(
    browser: Any, app_url: str, tmp_path: Path
) -> None:
    """A corpus above 1 MB is read in a worker process (sgpe_explorer/ui/train_form.py).
    The worker imported the app's main script, logged "No runtime found" and then
    stayed alive (about 189 MB) after its check."""
    import psutil

    corpus = tmp_path / "large_sinhala.txt"
    line = " ".join(CORPUS_LINES)
    corpus.write_text("\n".join(f"{line} {i}" for i in range(1200)) + "\n", encoding="utf-8")
    assert corpus.stat().st_size > 1_000_000
    server = psutil.Process(SERVERS[app_url].pid)
    log = ARTIFACTS / "streamlit.log"
    start = log.stat().st_size
    tab = Tab(browser, app_url)
    try:
        page = tab.goto("train")
        page.get_by_text("upload a file").click()
        page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(corpus))
        page.get_by_text("This corpus with these settings").first.wait_for(timeout=60_000)
        wait_for_app_idle(page)
        deadline = time.monotonic() + 20
        while server.children(recursive=True) and time.monotonic() < deadline:
            time.sleep(0.25)
        assert server.children(recursive=True) == []
        added = log.read_bytes()[start:].decode("utf-8", errors="replace")
        assert "No runtime found" not in added, added[-2000:]
        assert "WARNING" not in added, added[-2000:]
        tab.check_clean()
    finally:
        tab.page.close()


def _box(locator: Any) -> dict[str, float]:
    box = locator.bounding_box()
    assert box is not None
    return dict(box)


def _overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def assert_titles_clear(page: Any, charts: Any) -> int:
    """No chart's modebar box overlaps its title, and every title lies inside its chart;
    the number of titled charts checked."""
    checked = 0
    for i in range(charts.count()):
        chart = charts.nth(i)
        chart.scroll_into_view_if_needed()
        chart.hover()  # the modebar shows on hover (a tap on a phone)
        title = chart.locator("g.infolayer g.g-gtitle text.gtitle")
        if title.count() == 0:
            continue
        frame = _box(chart.locator(".main-svg").first)
        text_box = _box(title.first)
        # Plotly's buttons (".modebar"; its container is a zero-height strip), and
        # Streamlit's own toolbar of the element (full screen), shown with them.
        for bar in (chart.locator(".modebar"), page.get_by_test_id("stElementToolbar")):
            for k in range(bar.count()):
                box = bar.nth(k).bounding_box()
                if box is None or box["width"] == 0 or box["height"] == 0:
                    continue
                assert not _overlap(box, text_box), (i, title.first.text_content(), box, text_box)
        assert text_box["x"] >= frame["x"] - 0.5, (i, title.first.text_content(), text_box, frame)
        assert text_box["x"] + text_box["width"] <= frame["x"] + frame["width"] + 0.5, (
            i,
            title.first.text_content(),
            text_box,
            frame,
        )
        checked += 1
    return checked


@pytest.mark.parametrize("name", ["compare", "vocabulary"])
def test_on_a_phone_no_plotly_toolbar_covers_a_chart_title(
    browser: Any, app_url: str, name: str
) -> None:
    """At 390 px Plotly's toolbar covered the titles of Vocabulary's and Compare's
    charts, and Compare's corpus chart title was cut ("…on sinhala.tx")."""
    page = browser.new_page(viewport=DEVICES["phone"], has_touch=True, is_mobile=True)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        path = f"compare?text={quote('ශ්‍රී ලංකාව')}" if name == "compare" else name
        page.goto(f"{app_url}/{path}", wait_until="domcontentloaded")
        wait_for_app_idle(page)
        charts = page.locator("[data-testid=stPlotlyChart]")
        charts.first.wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
        page.locator("[data-testid=stPlotlyChart] text.gtitle").first.wait_for(
            timeout=SCRIPT_RUN_TIMEOUT_MS
        )
        wait_for_app_idle(page)
        assert assert_titles_clear(page, charts) >= (1 if name == "compare" else 3)
        page.screenshot(path=str(ARTIFACTS / f"assets_titles_{name}_phone.png"), full_page=True)
        assert errors == []
    finally:
        page.close()

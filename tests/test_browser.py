"""End-to-end: start the Streamlit app, drive it in headless Chromium, look at every page.

Chromium is Debian's (/usr/bin/chromium, installed by scripts/install_browser.sh); Playwright
only drives it, because `playwright install` cannot download browsers on our machines.
The server and readiness waits follow streamlit/streamlit's own `e2e_playwright/conftest.py`.

What it checks: every page renders without an exception or a JavaScript error (a screenshot
of each goes to tests/artifacts/, which is gitignored); pasted Sinhala text becomes one
``span.syl`` per syllable with its hover title; user text is escaped (no dialog, no
injected element); a corpus uploaded on the Train page trains in the background, and the
finished run becomes the active tokenizer. Runs go to a temporary ``SGPE_RUNS_DIR``.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.app import free_port, healthy

pytestmark = pytest.mark.browser

REPO_ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = REPO_ROOT / "tests" / "artifacts"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-quic",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
]
SERVER_START_TIMEOUT_S = 60
SCRIPT_RUN_TIMEOUT_MS = 30_000
TRAIN_TIMEOUT_MS = 60_000
# Tall enough that a screenshot holds a whole page (Streamlit scrolls inside its own
# container, so Playwright's full_page cannot extend it).
VIEWPORT = {"width": 1400, "height": 2200}

# Compare first: the first request after the server starts is then a deep link to a page
# other than the main one, which must get the frame (sgpe_explorer/app/main.py: its sidebar)
# all the same.
PAGES = {
    "compare": "compare",
    "syllables": "",
    "merges": "merges",
    "evaluate": "evaluate",
    "train": "train",
    "vocabulary": "vocabulary",
    "grammar": "grammar",
}

ZWJ = "\u200d"
SINHALA_PHRASE = f"ශ්{ZWJ}රී ලංකාව"  # ශ්‍රී ලංකාව, with its ZWJ written out
SINHALA_SYLLABLES = [f"ශ්{ZWJ}රී", " ", "ලං", "කා", "ව"]  # leading_space=False
XSS = "<script>alert(1)</script><img src=x onerror=alert(1)> ශ්\u200dරී"

# A small corpus written for this test (20 everyday sentences, three times over).
CORPUS_LINES = [
    "මම අද උදේ පාසලට ගියෙමි.",
    "අපේ ගමේ ලස්සන ගඟක් ගලා බසී.",
    f"ශ්{ZWJ}රී ලංකාව ඉන්දියන් සාගරයේ පිහිටි දිවයිනකි.",
    "මගේ අම්මා රසවත් කෑම උයයි.",
    f"ළමයින් පිට්ටනියේ ක්{ZWJ}රිකට් ක්{ZWJ}රීඩා කරති.",
    "ගුරුතුමා පන්තියට අලුත් පාඩමක් කියා දුන්නේය.",
    "වැස්ස නිසා පාර තෙත් වී තිබුණි.",
    "අපි හෙට කොළඹ නගරයට යමු.",
    "පොත් කියවීම දැනුම වැඩි කරයි.",
    "කුරුල්ලෝ ගස් මත ගී ගයති.",
    f"මගේ මිතුරා විද්{ZWJ}යාව හදාරයි.",
    "සතියේ අවසානයේ අපි මුහුදු වෙරළට යන්නෙමු.",
    "ගොවියා කුඹුරේ වී වගා කරයි.",
    "අලුත් අවුරුද්දට අපි කැවුම් හා කොකිස් හදමු.",
    f"රෝහලේ වෛද්{ZWJ}යවරු රෝගීන්ට ප්{ZWJ}රතිකාර කරති.",
    "පුස්තකාලයේ බොහෝ පොත් ඇත.",
    f"ශ්{ZWJ}රී ලංකාවේ තේ ලෝක ප්{ZWJ}රසිද්ධය.",
    f"අපේ පාසලේ ක්{ZWJ}රීඩා උළෙල ලබන සතියේ පැවැත්වේ.",
    f"මම සෑම දිනකම උදේ ව්{ZWJ}යායාම කරමි.",
    "නුවර ඇසළ පෙරහැර ඉතා අලංකාරය.",
]


@pytest.fixture(scope="module")
def runs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The app's runs root for this test module (never the repository's runs/)."""
    return tmp_path_factory.mktemp("runs")


#: The server behind app_url: url -> process, for tests that measure it.
SERVERS: dict[str, subprocess.Popen[bytes]] = {}


@pytest.fixture(scope="module")
def app_url(runs_dir: Path) -> Iterator[str]:
    """Run `sgpe app` (what a user runs) on a free port; yield its URL once
    /_stcore/health says ok."""
    pytest.importorskip("streamlit", reason="streamlit not installed: pip install -e '.[app]'")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    command = [
        sys.executable, "-m", "sgpe", "app",
        "--server.port", str(port),
        "--server.address", "127.0.0.1",
    ]  # fmt: skip
    env = {**os.environ, "SGPE_RUNS_DIR": str(runs_dir)}
    log_path = ARTIFACTS / "streamlit.log"
    with log_path.open("wb") as log:
        server = subprocess.Popen(
            command,
            cwd=REPO_ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
        )
        try:
            deadline = time.monotonic() + SERVER_START_TIMEOUT_S
            while not healthy(url):
                if server.poll() is not None:
                    pytest.fail(f"streamlit exited with {server.returncode}; see {log_path}")
                if time.monotonic() > deadline:
                    pytest.fail(
                        f"streamlit not healthy after {SERVER_START_TIMEOUT_S}s; see {log_path}"
                    )
                time.sleep(0.25)
            SERVERS[url] = server
            yield url
        finally:
            SERVERS.pop(url, None)
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
            _stop_trainers(runs_dir)


def _stop_trainers(runs_dir: Path) -> None:
    """Cancel any trainer a failed test left running (they run in their own sessions)."""
    try:
        from sgpe_explorer.runs.manager import RunManager
    except ImportError:
        return
    manager = RunManager(runs_dir)
    for info in manager.list_runs():
        if info.status.alive:
            manager.cancel(info.run.id, wait=5.0)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium driven by Playwright (no browser download)."""
    if not CHROMIUM.exists():
        message = f"{CHROMIUM} not found: run scripts/install_browser.sh (Debian's chromium)"
        if os.environ.get("CI"):  # in CI the browser test must run, not quietly skip
            pytest.fail(message)
        pytest.skip(message)
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright not installed: pip install -e '.[dev]'"
    )
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield chromium
        finally:
            chromium.close()


class Tab:
    """A browser tab on the app that records JavaScript errors and dialogs."""

    def __init__(self, browser: Any, url: str) -> None:
        self.url = url
        self.page = browser.new_page(viewport=VIEWPORT)
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))

        def on_dialog(dialog: Any) -> None:
            self.dialogs.append(dialog.message)
            dialog.dismiss()

        self.page.on("dialog", on_dialog)

    def goto(self, path: str = "") -> Any:
        self.page.goto(f"{self.url}/{path}", wait_until="domcontentloaded")
        wait_for_app_idle(self.page)
        return self.page

    def check_clean(self) -> None:
        assert not self.errors, self.errors
        assert not self.dialogs, self.dialogs
        assert self.page.locator("[data-testid=stException]").count() == 0

    def screenshot(self, name: str) -> None:
        time.sleep(0.3)  # let charts finish their transitions
        self.page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


@pytest.fixture
def tab(browser: Any, app_url: str) -> Iterator[Tab]:
    t = Tab(browser, app_url)
    try:
        yield t
    finally:
        t.page.close()


def wait_for_app_idle(page: Any) -> None:
    """Wait until the app is connected and its script has finished running.

    `stApp` carries `data-test-connection-state` (CONNECTED once the websocket is up) and
    `data-test-script-state` ("initial" before the first run, then running → notRunning),
    as in Streamlit 1.67's frontend and streamlit/streamlit's e2e conftest.
    """
    page.wait_for_selector("[data-testid=stApp]", timeout=SCRIPT_RUN_TIMEOUT_MS)
    page.wait_for_selector(
        "[data-testid=stApp][data-test-connection-state=CONNECTED]",
        timeout=SCRIPT_RUN_TIMEOUT_MS,
    )
    page.wait_for_selector(
        "[data-testid=stApp][data-test-script-state=notRunning]", timeout=SCRIPT_RUN_TIMEOUT_MS
    )
    page.wait_for_function(
        "() => document.querySelectorAll('[data-testid=stSkeleton]').length === 0",
        timeout=SCRIPT_RUN_TIMEOUT_MS,
    )


def set_text(page: Any, text: str) -> None:
    """Replace the page's text area content and commit it (Ctrl+Enter)."""
    area = page.locator("textarea").first
    area.fill(text)
    area.press("Control+Enter")


def syllable_texts(page: Any) -> list[str]:
    # textContent (not innerText) so that a span holding only a space keeps it.
    return list(
        page.locator("div.sgpe-syllables span.syl").evaluate_all(
            "els => els.map(e => e.textContent)"
        )
    )


# ============================================================================ tests


@pytest.fixture(scope="module")
def nav_tab(browser: Any, app_url: str) -> Iterator[Tab]:
    """One tab for the page tour: the first page by its link, the rest via the sidebar."""
    t = Tab(browser, app_url)
    try:
        yield t
    finally:
        t.page.close()


@pytest.mark.parametrize("name", list(PAGES))
def test_every_page_renders(nav_tab: Tab, name: str) -> None:
    tab = nav_tab
    if tab.page.url == "about:blank":
        page = tab.goto(PAGES[name])
    else:
        page = tab.page
        page.get_by_test_id("stSidebar").get_by_role("link", name=name.title()).click()
        page.get_by_role("heading", name=name.title()).first.wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
        wait_for_app_idle(page)
        assert page.url.rstrip("/").endswith(PAGES[name]) if PAGES[name] else True
    # Streamlit sets the document title when the page's script has run; a page that does
    # more work on its first run (Train reads its corpus) can still show the URL's name.
    page.wait_for_function(
        "titles => titles.includes(document.title)",
        arg=["SGPE Explorer", name.title()],
        timeout=SCRIPT_RUN_TIMEOUT_MS,
    )
    assert page.get_by_role("heading", name=name.title()).first.is_visible()
    sidebar = page.get_by_test_id("stSidebar")
    assert sidebar.get_by_text("Tokenizer (SGPE)").is_visible()  # the frame ran
    assert sidebar.get_by_role("link", name="Vocabulary").is_visible()
    tab.check_clean()
    tab.screenshot(name)


def test_pasted_sinhala_becomes_syllable_spans(tab: Tab) -> None:
    from sgpe import syllabify

    page = tab.goto()
    assert page.locator("textarea").first.input_value().startswith(SINHALA_PHRASE)
    text = SINHALA_PHRASE + " क्षत्रिय\tx\n"
    set_text(page, text)
    page.wait_for_function(
        "n => document.querySelectorAll('div.sgpe-syllables span.syl').length === n",
        arg=len(syllabify(text)),
        timeout=SCRIPT_RUN_TIMEOUT_MS,
    )
    wait_for_app_idle(page)
    shown = syllable_texts(page)
    assert shown == syllabify(text)
    assert shown[: len(SINHALA_SYLLABLES)] == SINHALA_SYLLABLES
    # The conjunct with its ZWJ is one span, not split after the joiner as `\X` would.
    first = page.locator("div.sgpe-syllables span.syl").first
    assert first.evaluate("e => e.children.length") == 0  # no markup inside a syllable
    # Hover information survives the HTML sanitizer.
    title = first.get_attribute("title") or ""
    assert "U+200D  Z  ZERO WIDTH JOINER" in title and "DFA: START" in title
    assert first.get_attribute("data-kind") == "syllable"
    # The shareable link carries the text.
    assert "text=" in page.url

    page.get_by_text("Show invisible characters").first.click()
    page.wait_for_selector("div.sgpe-syllables.inv", timeout=SCRIPT_RUN_TIMEOUT_MS)
    wait_for_app_idle(page)
    marker = first.evaluate("e => getComputedStyle(e, '::after').content")
    assert marker == '"◌්ZWJ"'
    assert syllable_texts(page) == syllabify(text)  # markers are not text
    tab.check_clean()
    tab.screenshot("syllables_invisible")


@pytest.mark.parametrize("name", ["syllables", "compare"])
def test_user_text_is_escaped(tab: Tab, name: str) -> None:
    page = tab.goto(PAGES[name])
    set_text(page, XSS)
    page.wait_for_function(
        "() => [...document.querySelectorAll('.sgpe-box')]"
        ".some(b => b.textContent.includes('<script>'))",
        timeout=SCRIPT_RUN_TIMEOUT_MS,
    )
    wait_for_app_idle(page)
    assert page.locator(".sgpe-box img, .sgpe-box script").count() == 0
    assert page.locator("img[src=x]").count() == 0
    tab.check_clean()  # also: no alert() dialog


def test_train_on_an_uploaded_corpus_and_use_it(tab: Tab, runs_dir: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "tiny_sinhala.txt"
    corpus.write_text("\n".join(CORPUS_LINES * 3) + "\n", encoding="utf-8")
    page = tab.goto("train")
    page.get_by_text("upload a file").click()
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(corpus))
    page.get_by_text("tiny_sinhala.txt").first.wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
    page.get_by_role("textbox", name="Vocabulary size", exact=True).fill("1000")
    page.get_by_role("button", name="Start training").click()

    # The polling fragment shows the runs; both finish in a few seconds.
    for model in ("SGPE", "byte-level BPE"):
        page.get_by_text(re.compile(rf"done · {model} · ")).first.wait_for(timeout=TRAIN_TIMEOUT_MS)
    wait_for_app_idle(page)
    import sgpe
    from sgpe_explorer.runs.manager import RunManager

    infos = RunManager(runs_dir).list_runs()
    assert {i.config.model: i.status.state for i in infos} == {"sgpe": "done", "bytebpe": "done"}
    sgpe_run = next(i for i in infos if i.config.model == "sgpe")
    assert sgpe_run.config.corpus_name == "tiny_sinhala.txt"
    assert page.locator("[data-testid=stPlotlyChart]").count() >= 1  # the merge curve
    tab.screenshot("train_done")

    trained = sgpe.load(sgpe_run.run.path / "vocab.json")
    page.locator(f".st-key-use_{sgpe_run.run.id} button").click()
    sidebar = page.get_by_test_id("stSidebar")
    sidebar.get_by_text(f"Active: {trained.vocab_size:,} tokens").wait_for(
        timeout=SCRIPT_RUN_TIMEOUT_MS
    )
    wait_for_app_idle(page)
    chosen = sidebar.locator(".st-key-side_tok input").input_value()
    # the name and start first, then the size the run reached (this small corpus stops
    # below 1,000)
    assert chosen.startswith("tiny_sinhala.txt · "), chosen
    assert f" · {trained.vocab_size:,} tokens · " in chosen, chosen
    assert "tok=" + sgpe_run.run.id in page.url
    tab.check_clean()
    tab.screenshot("train")

    # The trained vocabulary is now the one every page uses.
    page.get_by_role("link", name="Compare").click()
    page.get_by_role("heading", name="Compare").wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
    wait_for_app_idle(page)
    main = page.get_by_test_id("stMain")
    label = re.escape(f"tiny_sinhala.txt, {trained.vocab_size:,} ")
    assert main.get_by_text(re.compile(label)).first.is_visible()
    tab.check_clean()
    tab.screenshot("compare_trained")


def test_train_form_explains_sizes_and_keeps_other_sessions_runs(tab: Tab, runs_dir: Path) -> None:
    """The Train form checks the size against the corpus before anything starts, and a run
    another browser session made can be used but not deleted."""
    from sgpe_explorer.runs.manager import RunManager, RunRequest

    text = "\n".join(["ශ්\u200dරී ලංකාව ලස්සන රටකි."] * 20).encode("utf-8")
    manager = RunManager(runs_dir)
    theirs = manager.start(RunRequest(text, name="theirs.txt", vocab_size=400, owner="someone"))
    assert manager.wait(theirs, timeout=60).state == "done"
    before = sorted(runs_dir.iterdir())
    page = tab.goto("train")
    main = page.get_by_test_id("stMain")
    main.get_by_text("Other visitors' finished vocabularies").first.click()
    main.get_by_text("another visitor's run (read-only)").first.wait_for(
        timeout=SCRIPT_RUN_TIMEOUT_MS
    )
    # Another run of the module's other tests may draw first: wait for this one's button.
    use = page.locator(f".st-key-use_{theirs.id} button")
    use.wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
    assert use.is_visible()
    assert page.locator(f".st-key-delete_{theirs.id}").count() == 0

    size = page.get_by_role("textbox", name="Vocabulary size", exact=True)
    # 0 reaches the page (no browser-side minimum), which says so and
    # keeps Start off; it used to turn red and Start trained at the previous size.
    size.fill("0")
    size.press("Enter")
    main.get_by_text("Vocabulary size must be an integer above 5, got 0.").wait_for(
        timeout=SCRIPT_RUN_TIMEOUT_MS
    )
    wait_for_app_idle(page)
    assert page.get_by_role("button", name="Start training").is_disabled()
    size.fill("100")
    size.press("Enter")
    main.get_by_text("is below the smallest size").first.wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
    wait_for_app_idle(page)
    assert page.get_by_role("button", name="Start training").is_disabled()
    assert sorted(runs_dir.iterdir()) == before  # checking the form started nothing
    tab.check_clean()
    tab.screenshot("train_form_checks")


def test_artifacts_dir_is_ignored() -> None:
    """Screenshots and logs must never be committed."""
    assert "tests/artifacts/" in (REPO_ROOT / ".gitignore").read_text().splitlines()


# ============================================================================ more scripts

SCRIPTS_TEXT = "அம்மா க்ஷேத்திரம் ஸ்ரீலங்கா অ্যাপ উৎসব কো"  # Tamil and Bengali words
DEVICES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


@pytest.mark.parametrize("device", list(DEVICES))
def test_tamil_and_bengali_on_syllables_compare_and_grammar(
    browser: Any, app_url: str, device: str
) -> None:
    from urllib.parse import quote

    from sgpe import syllabify

    tab = Tab(browser, app_url)
    tab.page.set_viewport_size(DEVICES[device])
    try:
        page = tab.goto(f"?text={quote(SCRIPTS_TEXT)}")
        page.wait_for_function(
            "n => document.querySelectorAll('div.sgpe-syllables span.syl').length === n",
            arg=len(syllabify(SCRIPTS_TEXT)),
            timeout=SCRIPT_RUN_TIMEOUT_MS,
        )
        assert syllable_texts(page) == syllabify(SCRIPTS_TEXT)
        assert page.get_by_text("Scripts with a grammar:").first.is_visible()
        tab.check_clean()
        tab.screenshot(f"scripts_syllables_{device}")

        page = tab.goto(f"compare?text={quote(SCRIPTS_TEXT)}&cmp=sgpe,base,o200k_base")
        boxes = page.locator("div.sgpe-tokens")
        boxes.first.wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
        boxes.nth(2).wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
        assert boxes.count() == 3  # SGPE, byte-level BPE, o200k_base
        tab.check_clean()
        tab.screenshot(f"scripts_compare_{device}")

        for script in ("tamil", "bengali"):
            page = tab.goto(f"grammar?gs={script}")
            page.get_by_role("heading", name="Grammar").first.wait_for(
                timeout=SCRIPT_RUN_TIMEOUT_MS
            )
            assert page.get_by_text("Character classes").first.is_visible()
            page.get_by_role("tab", name="Grammar and automaton").click()
            page.locator("[data-testid=stGraphVizChart] svg").first.wait_for(
                timeout=SCRIPT_RUN_TIMEOUT_MS
            )
            assert page.locator("[data-testid=stGraphVizChart] svg g.node").count() >= 8
            page.locator("[data-testid=stGraphVizChart]").first.screenshot(
                path=str(ARTIFACTS / f"scripts_automaton_{script}_{device}.png")
            )
            tab.check_clean()
            tab.screenshot(f"scripts_grammar_{script}_{device}")
    finally:
        tab.page.close()


# ============================================================================ explorer


def device_tab(browser: Any, app_url: str, device: str) -> Tab:
    tab = Tab(browser, app_url)
    tab.page.set_viewport_size(DEVICES[device])
    return tab


def assert_fits_the_phone(page: Any) -> None:
    """At 390 px: the sidebar is closed and the page does not scroll sideways."""
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= DEVICES["phone"]["width"], width
    box = page.get_by_test_id("stSidebar").bounding_box()
    assert box is None or box["x"] + box["width"] <= 1 or box["width"] <= 1, box


@pytest.mark.parametrize("device", list(DEVICES))
def test_compare_columns_and_token_details(browser: Any, app_url: str, device: str) -> None:
    from urllib.parse import quote

    import sgpe
    from sgpe import shipped

    text = SINHALA_PHRASE + "\nක"
    tab = device_tab(browser, app_url, device)
    try:
        page = tab.goto(f"compare?text={quote(text)}&ids=1")
        boxes = page.locator("div.sgpe-tokens")
        boxes.nth(1).wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
        assert boxes.count() == 2
        names = [boxes.nth(i).get_attribute("data-tokenizer") for i in range(2)]
        assert names == ["SGPE", "Byte-level BPE"]
        first, second = boxes.nth(0).bounding_box(), boxes.nth(1).bounding_box()
        assert first is not None and second is not None
        if device == "desktop":  # true columns: side by side, same top
            assert abs(first["y"] - second["y"]) < 4 and second["x"] > first["x"] + first["width"]
        else:  # stacked: one under the other
            assert second["y"] > first["y"] + first["height"]
            assert abs(first["x"] - second["x"]) < 4
            assert_fits_the_phone(page)
        tok = sgpe.load(shipped.DEFAULT_SGPE)
        spans = boxes.nth(0).locator("span.tok")
        ids = [int(i) for i in spans.evaluate_all("els => els.map(e => e.dataset.id)")]
        assert ids == tok.encode(text)
        # Tap (or click) a token: its details appear next to it.
        spans.nth(0).click()
        shown = spans.nth(0).evaluate("e => getComputedStyle(e, '::after').content")
        assert shown.startswith(f'"id {ids[0]}') and "syllables: 1 whole syllable" in shown
        # The newline token's id is drawn before the line break, not after it.
        nl = boxes.nth(0).locator("span.tok.nl")
        assert nl.count() == 1
        assert nl.evaluate("e => getComputedStyle(e, '::after').content") == "none"
        assert nl.evaluate("e => getComputedStyle(e, '::before').content") == (
            f'"{nl.get_attribute("data-id")}"'
        )
        assert page.locator("[data-testid=stPlotlyChart]").count() >= 1  # the summary chart
        tab.check_clean()
        tab.screenshot(f"compare_columns_{device}")
    finally:
        tab.page.close()


DEEP = "[" * 100_000 + "]" * 100_000


def sidebar_text(page: Any) -> str:
    return str(page.get_by_test_id("stSidebar").inner_text())


def test_damaged_files_are_messages_not_tracebacks(
    browser: Any, app_url: str, runs_dir: Path, tmp_path: Path
) -> None:
    """A damaged vocab.json reached by ?tok=, a damaged merges file and a deeply nested
    JSONL line each give a message naming the file and the problem, never a traceback."""
    import shutil

    from sgpe import shipped
    from sgpe_explorer.runs.manager import RunManager, RunRequest

    manager = RunManager(runs_dir)
    run = manager.start(RunRequest(shipped.SAMPLE_DATA / "sinhala.txt", vocab_size=600))
    tab = Tab(browser, app_url)
    try:
        assert manager.wait(run, timeout=60).state == "done"
        vocab = run.path / "vocab.json"
        vocab.write_text(DEEP, encoding="utf-8")
        for path in ("compare", "merges"):
            page = tab.goto(f"{path}?tok={run.id}")
            page.get_by_test_id("stSidebar").get_by_text(f"Run {run.id} cannot be used").wait_for(
                timeout=SCRIPT_RUN_TIMEOUT_MS
            )
            # A visitor is shown the file's name, never the server's path
            # (sgpe_explorer/ui/owner.py).
            assert "vocab.json: JSON nested too deeply to read" in sidebar_text(page)
            assert str(vocab.parent) not in sidebar_text(page)
            tab.check_clean()
        tab.screenshot("damaged_vocab")

        vocab.write_text(
            (shipped.DEFAULT_SGPE.read_text(encoding="utf-8")).replace('"merge_counts"', '"x"'),
            encoding="utf-8",
        )  # a good vocabulary without counts: the merges file is read for them
        (run.path / "merges.parquet").write_bytes(b"not parquet")
        page = tab.goto(f"merges?tok={run.id}")
        page.get_by_role("heading", name="Merges").first.wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
        assert "cannot be used" not in sidebar_text(page)
        tab.check_clean()
        # The merge curve is drawn for the visitor's own runs: make the run this browser's
        # (a run without an owner is read-only, in its own section; docs/app.md).
        import hashlib
        import json

        owner = hashlib.sha256(f"sgpe-owner:{owner_cookie(page)}".encode()).hexdigest()[:32]
        (run.path / "owner.json").write_text(json.dumps({"owner": owner}), encoding="utf-8")
        page = tab.goto(f"train?tok={run.id}")
        page.get_by_text("The merge curve cannot be shown").first.wait_for(
            timeout=SCRIPT_RUN_TIMEOUT_MS
        )
        assert "not a readable parquet file" in page.get_by_test_id("stMain").inner_text()
        tab.check_clean()
        tab.screenshot("damaged_merges")

        deep = tmp_path / "deep.jsonl"
        deep.write_text(DEEP + "\n", encoding="utf-8")
        page.get_by_text("upload a file").click()
        page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(deep))
        page.get_by_text("deep.jsonl").first.wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
        # The form reads the corpus before anything is submitted: the message is there at
        # once, and Start stays disabled.
        page.get_by_text("JSON nested too deeply to read").first.wait_for(
            timeout=SCRIPT_RUN_TIMEOUT_MS
        )
        assert "deep.jsonl: line 1" in page.get_by_test_id("stMain").inner_text()
        assert page.get_by_role("button", name="Start training").is_disabled()
        tab.check_clean()
        tab.screenshot("damaged_jsonl")
    finally:
        tab.page.close()
        if manager.status(run.id).alive:
            manager.cancel(run.id, wait=5.0)
        shutil.rmtree(run.path, ignore_errors=True)


def step_number(page: Any) -> int:
    caption = page.get_by_text(re.compile(r"^Step \d+ of \d+")).first.inner_text()
    found = re.match(r"Step (\d+) of", caption)
    assert found, caption
    return int(found.group(1))


@pytest.mark.parametrize("device", list(DEVICES))
def test_merges_play_and_one_text_across_pages(browser: Any, app_url: str, device: str) -> None:
    """Play advances the stepper on its own and Pause stops it; the text typed on
    Syllables is the text of Merges and Compare."""
    tab = device_tab(browser, app_url, device)
    try:
        page = tab.goto()
        set_text(page, "ලංකාව ලස්සන")
        page.wait_for_function(
            "() => location.search.includes('text=')", timeout=SCRIPT_RUN_TIMEOUT_MS
        )
        wait_for_app_idle(page)
        url = page.url.split("?", 1)[1]
        page = tab.goto(f"merges?{url}")
        assert page.locator("textarea").first.input_value() == "ලංකාව ලස්සන"
        assert step_number(page) == 0
        page.locator(".st-key-mrg_speed").get_by_role("slider").focus()
        page.keyboard.press("End")  # the fastest speed
        wait_for_app_idle(page)
        page.get_by_role("button", name="▶ Play").click()
        page.wait_for_function(
            "() => /^Step [3-9]\\d* of|^Step \\d\\d+ of/m.test(document.body.innerText)",
            timeout=SCRIPT_RUN_TIMEOUT_MS,
        )
        page.get_by_role("button", name="⏸ Pause").click()
        page.get_by_role("button", name="▶ Play").wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
        wait_for_app_idle(page)
        paused_at = step_number(page)
        assert paused_at >= 3
        time.sleep(1.0)
        assert step_number(page) == paused_at  # paused: no further steps
        # SGPE and BPE side by side on every device, so Play is watched on both at once
        # (on a phone they were stacked).
        sides = page.locator(".st-key-mrg_sides [data-testid=stColumn]")
        assert sides.count() == 2
        left, right = sides.nth(0).bounding_box(), sides.nth(1).bounding_box()
        assert left is not None and right is not None
        assert abs(left["y"] - right["y"]) < 4 and right["x"] >= left["x"] + left["width"]
        if device == "phone":
            assert_fits_the_phone(page)
        tab.check_clean()
        tab.screenshot(f"merges_play_{device}")
        page = tab.goto(f"compare?{url}")
        assert page.locator("textarea").first.input_value() == "ලංකාව ලස්සන"
        tab.check_clean()
    finally:
        tab.page.close()


@pytest.mark.parametrize("name", list(PAGES))
def test_every_page_fits_a_phone(browser: Any, app_url: str, name: str) -> None:
    """390 x 844: the sidebar starts closed, no page scrolls sideways, and a page chosen
    in the opened sidebar closes it (it stayed open over 300 of 390 px)."""
    tab = device_tab(browser, app_url, "phone")
    try:
        page = tab.goto(PAGES[name])
        page.get_by_role("heading", name=name.title()).first.wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
        wait_for_app_idle(page)
        assert_fits_the_phone(page)
        other = "grammar" if name != "grammar" else "syllables"
        for target in (other, name):
            page.get_by_test_id("stExpandSidebarButton").click()
            sidebar = page.get_by_test_id("stSidebar")
            sidebar.get_by_role("link", name=target.title()).click()
            page.get_by_role("heading", name=target.title()).first.wait_for(
                timeout=SCRIPT_RUN_TIMEOUT_MS
            )
            wait_for_app_idle(page)
            page.wait_for_function(
                "() => document.querySelector('[data-testid=stSidebar]')"
                ".getBoundingClientRect().right <= 1",
                timeout=5_000,
            )
            assert_fits_the_phone(page)
        tab.check_clean()
        tab.screenshot(f"phone_{name}")
    finally:
        tab.page.close()


def test_downloads_load_and_evaluate_exports_csv(tab: Tab, tmp_path: Path) -> None:
    """The Vocabulary page's tokenizer.json loads in HF tokenizers with the exact ids;
    the Evaluate page's table downloads as a CSV with the same rows."""
    import pandas as pd
    from tokenizers import Tokenizer as HFTokenizer

    import sgpe
    from sgpe import shipped

    page = tab.goto("vocabulary")
    button = page.get_by_role("button", name="tokenizer.json (Hugging Face)")
    button.wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
    with page.expect_download(timeout=SCRIPT_RUN_TIMEOUT_MS) as info:
        button.click()
    download = info.value
    assert download.suggested_filename == "sgpe-auto-4000-shipped-tokenizer.json"
    saved = tmp_path / download.suggested_filename
    download.save_as(saved)
    hf = HFTokenizer.from_file(str(saved))
    tok = sgpe.load(shipped.DEFAULT_SGPE)
    for line in shipped.sample_documents()[:50]:
        assert hf.encode(line, add_special_tokens=False).ids == list(tok.encode(line))
    tab.check_clean()
    tab.screenshot("vocabulary_downloads")

    page = tab.goto("evaluate?et=mixed.txt")
    page.locator("[data-testid=stPlotlyChart]").first.wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
    button = page.get_by_role("button", name="Download the table (CSV)")
    with page.expect_download(timeout=SCRIPT_RUN_TIMEOUT_MS) as info:
        button.click()
    saved = tmp_path / info.value.suggested_filename
    info.value.save_as(saved)
    table = pd.read_csv(saved)
    assert list(dict.fromkeys(table["vocabulary"])) == ["SGPE", "Byte-level BPE", "o200k_base"]
    sgpe_all = table[(table["vocabulary"] == "SGPE") & (table["script"] == "all")].iloc[0]
    from sgpe import metrics

    expected = metrics.evaluate(tok, metrics.read_lines(shipped.SAMPLE_DATA / "mixed.txt"))
    assert int(sgpe_all["tokens"]) == expected["tokens"]
    tab.check_clean()
    tab.screenshot("evaluate")


# ============================================================================ visitors


def owner_cookie(page: Any) -> str:
    """The owner key the app stored in this browser (sgpe_explorer/ui/owner.py)."""
    values = [c["value"] for c in page.context.cookies() if c["name"] == "sgpe_owner"]
    assert len(values) == 1, page.context.cookies()
    return str(values[0])


def test_two_visitors_each_own_their_runs_across_reloads(
    browser: Any, app_url: str, runs_dir: Path
) -> None:
    """Visitor A starts a run; visitor B (another browser) gets
    no Cancel, Resume or Delete for it, and A's run finishes untouched. B may use A's
    finished vocabulary, read-only. A reloads, and restarts the browser (a new context
    with A's cookies): the run is still A's, with Delete. The owner key is in A's cookie
    only: not in the run directory, the server log or the URL."""
    import hashlib
    import signal

    from sgpe_explorer.runs.manager import RunManager, RunRequest

    manager = RunManager(runs_dir)
    # A stopped trainer of a third visitor holds the one training slot, so A's run stays
    # queued (alive for B to see) until the test lets the blocker go on.
    blocker = manager.start(
        RunRequest(REPO_ROOT / "sample_data" / "sinhala.txt", vocab_size=9000, owner="third")
    )
    deadline = time.monotonic() + 30
    while (pid := manager.status(blocker).pid) is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert pid is not None and manager.status(blocker).alive
    os.killpg(pid, signal.SIGSTOP)
    a, b = Tab(browser, app_url), Tab(browser, app_url)
    restarted: Any = None
    try:
        page_a = a.goto("train")
        before = {i.run.id for i in manager.list_runs()}
        page_a.get_by_text("Also train the byte-level baseline").click()
        wait_for_app_idle(page_a)
        page_a.get_by_role("button", name="Start training").click()
        page_a.get_by_text(re.compile(r"Started run ")).first.wait_for(
            timeout=SCRIPT_RUN_TIMEOUT_MS
        )
        wait_for_app_idle(page_a)
        (mine,) = [i for i in manager.list_runs() if i.run.id not in before]
        run_id = mine.run.id
        key = owner_cookie(page_a)
        assert mine.owner == hashlib.sha256(f"sgpe-owner:{key}".encode()).hexdigest()[:32]
        assert manager.status(run_id).state == "queued"
        assert page_a.locator(f".st-key-cancel_{run_id} button").is_visible()

        page_b = b.goto("train")
        assert owner_cookie(page_b) != key
        for label in ("cancel", "resume", "delete", "use"):
            assert page_b.locator(f".st-key-{label}_{run_id}").count() == 0, label
        assert run_id not in page_b.get_by_test_id("stMain").inner_text()
        assert manager.status(run_id).state == "queued"  # B saw it while it was alive
        b.check_clean()

        os.killpg(pid, signal.SIGCONT)
        assert manager.wait(blocker, timeout=120).state == "done"
        assert manager.wait(run_id, timeout=120).state == "done"

        page_b.reload(wait_until="domcontentloaded")
        wait_for_app_idle(page_b)
        main_b = page_b.get_by_test_id("stMain")
        main_b.get_by_text("Other visitors' finished vocabularies").first.click()
        use = page_b.locator(f".st-key-use_{run_id} button")
        use.wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
        for label in ("cancel", "resume", "delete"):
            assert page_b.locator(f".st-key-{label}_{run_id}").count() == 0, label
        use.click()  # read-only use: B's pages switch, A's run is unchanged
        page_b.wait_for_url(re.compile(f"tok={run_id}"), timeout=SCRIPT_RUN_TIMEOUT_MS)
        wait_for_app_idle(page_b)
        assert manager.status(run_id).state == "done" and mine.run.path.exists()
        b.check_clean()

        page_a.reload(wait_until="domcontentloaded")
        wait_for_app_idle(page_a)
        assert owner_cookie(page_a) == key
        page_a.locator(f".st-key-delete_{run_id} button").wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
        a.check_clean()

        # A browser restart: a new browser context that has A's stored cookies.
        restarted = browser.new_context(
            storage_state=page_a.context.storage_state(), viewport=VIEWPORT
        )
        page_r = restarted.new_page()
        page_r.goto(f"{app_url}/train", wait_until="domcontentloaded")
        wait_for_app_idle(page_r)
        page_r.locator(f".st-key-delete_{run_id} button").wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
        assert owner_cookie(page_r) == key

        for path in mine.run.path.rglob("*"):
            if path.is_file():
                assert key.encode() not in path.read_bytes(), path
        assert key not in (ARTIFACTS / "streamlit.log").read_text(errors="replace")
        assert key not in page_a.url and key not in page_b.url
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGCONT)
        if restarted is not None:
            restarted.close()
        a.page.close()
        b.page.close()


# ============================================================================ journeys


def no_error_element(page: Any) -> None:
    errors = page.locator("[data-testid=stException], [data-testid=stAlertContentError]")
    assert errors.count() == 0, errors.all_inner_texts()


def open_by_link(page: Any, name: str) -> None:
    page.get_by_test_id("stSidebar").get_by_role("link", name=name.title()).click()
    page.get_by_role("heading", name=name.title()).first.wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
    wait_for_app_idle(page)


def test_every_page_opened_left_opened_again_and_reloaded(tab: Tab) -> None:
    """Compare crashed on every return ("Multiselect has 9 options
    selected but max_selections is set to 4") and Evaluate's choice came back empty.
    Each page: open it, go to another page, come back, reload -- never an error element,
    and Compare and Evaluate keep their choices."""
    page = tab.goto("")
    for name in PAGES:
        other = "grammar" if name != "grammar" else "syllables"
        open_by_link(page, name)
        no_error_element(page)
        open_by_link(page, other)
        open_by_link(page, name)
        no_error_element(page)
        if name in ("compare", "evaluate"):
            chips = page.locator("[data-testid=stMultiSelectTagsContainer] [data-tag]")
            assert chips.count() >= 2, name
            assert page.get_by_text("Pick at least one vocabulary").count() == 0
        page.reload(wait_until="domcontentloaded")
        wait_for_app_idle(page)
        page.get_by_role("heading", name=name.title()).first.wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
        no_error_element(page)
    tab.check_clean()


# ============================================================================ fonts


def font_file(family: str) -> tuple[str, str]:
    """The family fontconfig gives for ``family`` and its regular face's file."""
    out = subprocess.run(
        ["fc-match", "-f", "%{family}|%{file}", f"{family}:style=Regular"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found, path = out.split("|", 1)
    return found.split(",")[0], path


def notdef_count(path: str, text: str) -> int:
    """How many .notdef glyphs (glyph 0, a tofu box) HarfBuzz shapes ``text`` into."""
    import uharfbuzz as hb

    font = hb.Font(hb.Face(hb.Blob.from_file_path(path)))
    buf = hb.Buffer()
    buf.add_str(text)
    buf.guess_segment_properties()
    hb.shape(font, buf, {})
    return sum(1 for info in buf.glyph_infos if info.codepoint == 0)


def test_each_script_renders_with_its_noto_face(tab: Tab) -> None:
    """Tamil showed tofu boxes (the font stack had no Tamil face). The
    Syllables page shows each of the 14 scripts' sample words; Chromium reports the face
    it rendered each syllable with (DevTools CSS.getPlatformFontsForNode), which must be
    that script's Noto face named in the CSS, and HarfBuzz shaping the syllable with that
    face's file gives no .notdef glyph."""
    from urllib.parse import quote

    from sgpe.schema import load_schema
    from sgpe_explorer.ui import grammar, style

    pytest.importorskip("uharfbuzz", reason="uharfbuzz not installed: pip install -e '.[dev]'")
    classes = {
        name: {c for chars in load_schema(name).classes.values() for c in chars}
        for name in style.SCRIPT_FACES
    }
    # letters of one script only (joiners and the like belong to several grammars)
    letters = {
        name: {c for c in chars if all(c not in o for n, o in classes.items() if n != name)}
        for name, chars in classes.items()
    }
    text = "\n".join(grammar.EXAMPLES[name] for name in style.SCRIPT_FACES)
    page = tab.goto(f"?text={quote(text)}")
    page.locator("div.sgpe-syllables span.syl").first.wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
    nodes = cdp.send(
        "DOM.querySelectorAll", {"nodeId": root, "selector": "div.sgpe-syllables span.syl"}
    )["nodeIds"]
    seen: dict[str, set[str]] = {name: set() for name in style.SCRIPT_FACES}
    files = {name: font_file(faces[0]) for name, faces in style.SCRIPT_FACES.items()}
    for name, (family, _path) in files.items():
        assert family in style.SCRIPT_FACES[name], (name, family)  # installed, not a stand-in
        assert f'"{family}"' in style.FONT_STACK
    latin = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": root})["fonts"]
    for node in nodes:
        described = cdp.send("DOM.describeNode", {"nodeId": node, "depth": 1})["node"]
        chars = "".join(child.get("nodeValue", "") for child in described.get("children", []))
        script = next((n for n, ls in letters.items() if any(c in ls for c in chars)), None)
        if script is None:
            continue  # a space or a newline
        fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
        families = {f["familyName"] for f in fonts}
        assert families & set(style.SCRIPT_FACES[script]), (script, chars, families)
        others = families - set(style.SCRIPT_FACES[script])
        # A zero-width joiner or non-joiner may come from the first face of the stack
        # (Streamlit's Latin face): it draws nothing, it is no tofu.
        assert not others or (
            set(chars) & {"\u200c", "\u200d"} and all(f.startswith("SourceSans") for f in others)
        ), (script, chars, families, latin)
        assert notdef_count(files[script][1], chars) == 0, (script, chars)
        seen[script] |= families
    assert all(seen.values()), seen  # every script was on the page and was checked
    tab.check_clean()
    tab.screenshot("scripts_fonts")


@pytest.mark.parametrize("device", list(DEVICES))
def test_hex_chips_stay_inside_their_column(browser: Any, app_url: str, device: str) -> None:
    """The hex chips of cl100k_base (bytes that are not a whole character) ran
    past the column's edge and were clipped, a token's chips and its id split over two
    lines. Four columns of a Sinhala text with ids: every token of chips is on one line,
    inside its box's content."""
    from urllib.parse import quote

    text = " ".join(CORPUS_LINES[:6])
    tab = device_tab(browser, app_url, device)
    try:
        page = tab.goto(f"compare?text={quote(text)}&cmp=sgpe,base,cl100k_base,o200k_base&ids=1")
        boxes = page.locator("div.sgpe-tokens")
        boxes.nth(3).wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
        outside = page.evaluate(
            """() => {
              const bad = [];
              for (const box of document.querySelectorAll('div.sgpe-tokens')) {
                const edge = box.getBoundingClientRect();
                const right = edge.right - parseFloat(getComputedStyle(box).paddingRight);
                for (const tok of box.querySelectorAll('span.tok')) {
                  if (!tok.querySelector('.b')) continue;
                  const lines = tok.getClientRects().length;
                  const r = tok.getBoundingClientRect();
                  if (lines !== 1 || r.right > right + 0.5) {
                    bad.push([box.dataset.tokenizer, tok.textContent, lines, r.right, right]);
                  }
                }
              }
              return bad;
            }"""
        )
        chips = page.locator("div.sgpe-tokens span.tok .b").count()
        assert chips > 50  # cl100k spells much of Sinhala in bytes
        assert outside == []
        if device == "phone":
            assert_fits_the_phone(page)
        tab.check_clean()
    finally:
        tab.page.close()


def test_a_tap_shows_a_syllable_and_compare_titles_stay_apart(browser: Any, app_url: str) -> None:
    """On a phone: a tapped syllable shows its details (there was only a
    hover title); the three small charts on Compare keep their titles apart and have no
    toolbar over them."""
    from urllib.parse import quote

    tab = device_tab(browser, app_url, "phone")
    try:
        page = tab.goto(f"?text={quote(SINHALA_PHRASE)}")
        unit = page.locator("div.sgpe-syllables span.syl").first
        unit.wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
        unit.click()  # a tap on a phone focuses it the same way
        shown = unit.evaluate("el => getComputedStyle(el, '::after').content")
        assert "U+0DC1" in shown and el_focused(page, unit), shown
        page = tab.goto(f"compare?text={quote(SINHALA_PHRASE)}")
        chart = page.locator(".st-key-cmp_summary")
        chart.locator("g.annotation").first.wait_for(timeout=SCRIPT_RUN_TIMEOUT_MS)
        boxes = [b for b in (a.bounding_box() for a in chart.locator("g.annotation").all()) if b]
        assert len(boxes) == 3
        for i, a in enumerate(boxes):
            for b in boxes[i + 1 :]:
                apart = a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
                assert apart, (a, b)
        assert chart.locator(".modebar").count() == 0
        assert_fits_the_phone(page)
        tab.check_clean()
    finally:
        tab.page.close()


def el_focused(page: Any, locator: Any) -> bool:
    return bool(locator.evaluate("el => document.activeElement === el"))


def test_an_idle_visitor_leaves_the_server_log_quiet(tab: Tab) -> None:
    """A served app watches no files (`sgpe app`'s settings, sgpe_explorer/app/launch.py;
    tests/test_launch.py checks Streamlit takes them): before, Streamlit's watcher walked
    every folder of the checkout, .venv/ too, overflowed inotify and rescanned while any
    visitor was connected, writing ~22 lines a second to the server log."""
    page = tab.goto(PAGES["syllables"])
    wait_for_app_idle(page)
    log = ARTIFACTS / "streamlit.log"
    before = log.stat().st_size
    time.sleep(5.0)
    added = log.read_bytes()[before:].decode("utf-8", errors="replace")
    assert added == "", added[:2000]

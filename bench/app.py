"""The app's speed budgets: page times with many runs, and a classroom.

    python -m bench app [--runs 50] [--owners 10] [--repeats 3] [--visitors 20]
        [--only pages,classroom,memory] [--cache DIR] [--profile FILE] [--cpu-log FILE]

* **runs**: ``--runs`` real finished runs of ``--owners`` visitors (owner keys drawn from
  the visitor's number, so the same on every machine), trained by the run manager on
  ``sgpe/sample_data/`` at small sizes, SGPE and byte-level BPE in turn; kept in
  ``--cache`` and trained again only when missing or incomplete.
* **pages** (AppTest, each measurement in a fresh process, so every "first" is a fresh
  server's): the visitor who owns ``runs / owners`` of the runs opens the app (Syllables),
  then goes to Train, Vocabulary or Compare; the seconds of that script run, and of the
  page drawn again. Train is also measured in a runs directory holding only the visitor's
  own runs, so its cost against others' runs is seen apart. In Chromium, the same
  visitor (its owner cookie set) opens the app and, ``THINK_S`` later, clicks the page in
  the sidebar; then Syllables and the page again. AppTest times the server's
  script run (what the visitor waits for before the browser draws), not the browser.
  Budgets: Train <= 1.5 s, Vocabulary first visit <= 2 s, first Compare <= 2 s.
* **classroom** (a real server, ``sgpe app`` on loopback, and Debian's Chromium driven by
  Playwright, one browser context per visitor): ``--visitors`` visitors at once open
  Compare, paste about 20,000 characters, then open Train and start one small run
  (without the baseline). Reported: errors, whether every visitor saw the same token
  counts, the median and p95 of each step's seconds, every run finished, and the
  server's CPU seconds per visitor (the Streamlit process only; its trainers apart).
* **memory** (bench/app_memory.py): the server's RSS after a tour of 43 runs, 7 pages,
  two visitors and one 16 MB upload checked; budget 500 MB.

``--profile FILE`` runs the classroom's server under cProfile (bench/app_profile.py);
``--cpu-log FILE`` runs one classroom with the server logging each script run's and each
thread's CPU (bench/app_cpu.py, no profiler) and prints them per visitor.
Medians of ``--repeats``; the load average (``os.getloadavg``) is printed beside each
table, since the machine is shared. Writes ``app.json`` and ``app.md`` in ``--out``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .records import run_meta, write_json

HELP = "the app: page times with 50 runs of 10 visitors, and a classroom"
ROOT = Path(__file__).resolve().parents[1]
MAIN = ROOT / "sgpe_explorer" / "app" / "main.py"
SAMPLES = ("sinhala.txt", "hindi.txt", "mixed.txt")
# Sizes the sample files allow (mixed.txt stops near 2,000): each run takes seconds.
SIZES = {"sgpe": (2000, 3000, 4000), "bytebpe": (1000, 2000, 3000)}
BUDGETS = {"train": 1.5, "vocabulary": 2.0, "compare": 2.0}
PAGE_FILES = {"train": "train.py", "vocabulary": "vocabulary.py", "compare": "compare.py"}
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-quic", "--no-first-run", "--disable-component-update",
                 "--disable-sync"]  # fmt: skip
CLASSROOM_TEXT_CHARS = 20_000
STEP_TIMEOUT_MS = 180_000  # one visitor's step, under a whole classroom on two cores
RUNS_TIMEOUT_S = 900.0
# The server's CPU seconds per classroom visitor (pages): the budget (docs/app.md, section 11).
CLASSROOM_BUDGET_CPU_S = 0.6  # every classroom run finished (they queue: one trains at a time)


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--runs", type=int, default=50, help="finished runs in the runs directory")
    ap.add_argument("--owners", type=int, default=10, help="visitors who own them")
    ap.add_argument("--repeats", type=int, default=3, help="measurements per page (median)")
    ap.add_argument("--visitors", type=int, default=20, help="visitors of the classroom")
    ap.add_argument(
        "--only", default="pages,classroom,memory", help="parts: pages, classroom, memory"
    )
    ap.add_argument("--label", default="", help="a name for this measurement (e.g. before)")
    ap.add_argument(
        "--step-timeout",
        type=float,
        default=STEP_TIMEOUT_MS / 1000,
        help="seconds one visitor's step may take (default: %(default)s; more on a busy machine)",
    )
    ap.add_argument(
        "--no-wait-runs",
        dest="wait_runs",
        action="store_false",
        help="classroom: do not wait for the visitors' runs to end (their CPU is the "
        "trainers', not the server's)",
    )
    ap.add_argument(
        "--profile",
        type=Path,
        default=None,
        help="the classroom's server under cProfile (bench/app_profile.py) into this file; "
        "its CPU figures are then the profiler's, not the budget's",
    )
    ap.add_argument(
        "--cpu-log",
        type=Path,
        default=None,
        help="one classroom, its server logging each script run's and each thread's CPU "
        "(bench/app_cpu.py) into this file, summed per visitor at the end",
    )
    ap.add_argument(
        "--cache",
        type=Path,
        default=Path(tempfile.gettempdir()) / "sgpe-bench-app",
        help="the trained runs, kept between runs of the bench (default: %(default)s)",
    )


# ============================================================================ runs


def owner_key(visitor: int) -> str:
    """Visitor ``visitor``'s owner key (32 hex digits, as sgpe_explorer/ui/owner.py draws them)."""
    return hashlib.sha256(f"bench-visitor-{visitor}".encode()).hexdigest()[:32]


def owner_digest(key: str) -> str:
    """What a run records for the owner key ``key`` (sgpe_explorer/ui/owner.py, owner_id)."""
    from sgpe_explorer.ui.owner import digest

    return digest(key)


def plan(runs: int, owners: int) -> list[dict[str, Any]]:
    """The runs to train: owner, model, corpus and size of each, in order."""
    out = []
    for i in range(runs):
        k = i // owners  # the visitor's k-th run: SGPE and byte-level in turn
        model = "sgpe" if k % 2 == 0 else "bytebpe"
        out.append(
            {
                "visitor": i % owners,
                "model": model,
                "corpus": SAMPLES[k % len(SAMPLES)],
                "vocab_size": SIZES[model][i % len(SIZES[model])],
            }
        )
    return out


def build_runs(cache: Path, runs: int, owners: int, log: Any = print) -> Path:
    """A runs directory with ``runs`` finished runs of ``owners`` visitors (cached)."""
    from sgpe import shipped
    from sgpe_explorer.runs.manager import RunManager, RunRequest

    root = cache / f"runs-{runs}x{owners}"
    planned = plan(runs, owners)
    manager = RunManager(root, max_running=2)
    infos = manager.list_runs()
    done = all(i.status.state == "done" for i in infos)
    if len(infos) == runs and done and _read_plan(cache, root) == planned:
        return root
    if root.exists():
        shutil.rmtree(root)
    log(f"training {runs} runs of {owners} visitors into {root} (kept for later runs)…")
    started = time.perf_counter()
    made = []
    for k, item in enumerate(planned):
        made.append(
            manager.start(
                RunRequest(
                    shipped.SAMPLE_DATA / item["corpus"],
                    model=item["model"],
                    vocab_size=item["vocab_size"],
                    owner=owner_digest(owner_key(item["visitor"])),
                    label=f"visitor {item['visitor']} run {k}",
                )
            )
        )
    for run in made:
        status = manager.wait(run, timeout=600)
        if status.state != "done":
            raise SystemExit(f"bench app: run {run.id} ended {status.state}: {status.message}")
    log(f"  {runs} runs trained in {time.perf_counter() - started:.0f} s")
    write_json(cache / f"{root.name}.plan.json", planned)
    return root


def _read_plan(cache: Path, root: Path) -> Any:
    try:
        return json.loads((cache / f"{root.name}.plan.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def own_runs_only(root: Path, visitor: int, work: Path) -> Path:
    """A copy of ``root`` holding only ``visitor``'s runs."""
    from sgpe_explorer.runs.manager import RunManager

    me = owner_digest(owner_key(visitor))
    out = work / f"own-{visitor}"
    out.mkdir(parents=True)
    for info in RunManager(root).list_runs():
        if info.owner == me:
            shutil.copytree(info.run.path, out / info.run.id)
    return out


# ============================================================================ pages


def measure_page(page: str, runs_dir: str, key: str) -> dict[str, float]:
    """In this (fresh) process: open the app, go to ``page``, draw it again; seconds."""
    os.environ["SGPE_RUNS_DIR"] = runs_dir
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(MAIN), default_timeout=300)
    at.session_state["owner_key"] = key
    t0 = time.perf_counter()
    at.run()
    t1 = time.perf_counter()
    at.switch_page(f"app_pages/{PAGE_FILES[page]}").run()
    t2 = time.perf_counter()
    at.run()
    t3 = time.perf_counter()
    if at.exception:
        raise SystemExit(f"{page}: {[e.value for e in at.exception]}")
    return {"open_s": t1 - t0, "first_s": t2 - t1, "again_s": t3 - t2}


def _child(page: str, runs_dir: Path, key: str) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "bench.app", "--child", page, str(runs_dir), key],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=900,
    )
    if done.returncode != 0:
        raise SystemExit(f"bench app: measuring {page} failed:\n{done.stderr[-3000:]}")
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"{one:.1f}/{five:.1f}"


PAGE_TITLES = {"train": "Train", "vocabulary": "Vocabulary", "compare": "Compare"}
# A visitor reads a page before clicking the next (and the browser is then idle).
THINK_S = 3.0
# What the visitor waits for on each page before the whole script has run: Compare's
# token columns (the corpus table below them comes later); elsewhere the whole page.
PAGE_MARKERS = {"compare": ".st-key-cmp_columns [data-testid=stHtml]"}


@contextlib.contextmanager
def serve(
    runs_dir: Path, log_path: Path, profile: Path | None = None, cpu_log: Path | None = None
) -> Iterator[tuple[str, Any]]:
    """``sgpe app`` on a free loopback port over ``runs_dir``: its URL and psutil process.
    With ``profile``, the server runs under cProfile (bench/app_profile.py) into that file;
    with ``cpu_log``, it logs its CPU into that one (bench/app_cpu.py)."""
    import psutil

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "SGPE_RUNS_DIR": str(runs_dir),
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}  # fmt: skip
    start = ["-m", "sgpe", "app"]
    if profile is not None:
        start = ["-m", "bench.app_profile", str(profile)]
    elif cpu_log is not None:
        start = ["-m", "bench.app_cpu", str(cpu_log)]
    command = [sys.executable, *start, "--server.port", str(port), "--server.address", "127.0.0.1"]
    with log_path.open("ab") as log_file:
        server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log_file,
                                  stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)  # fmt: skip
        try:
            deadline = time.monotonic() + 120
            while not healthy(url):
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"bench app: the server did not start; see {log_path}")
                time.sleep(0.25)
            yield url, psutil.Process(server.pid)
        finally:
            server.terminate()
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


def _idle_sync(page: Any) -> None:
    app = "[data-testid=stApp]"
    page.wait_for_selector(f"{app}[data-test-connection-state=CONNECTED]", timeout=STEP_TIMEOUT_MS)  # fmt: skip
    page.wait_for_selector(f"{app}[data-test-script-state=notRunning]", timeout=STEP_TIMEOUT_MS)  # fmt: skip
    page.wait_for_function(
        "() => document.querySelectorAll('[data-testid=stSkeleton]').length === 0",
        timeout=STEP_TIMEOUT_MS,
    )


def browse_page(chromium: Any, url: str, page_name: str, key: str) -> dict[str, float]:
    """A fresh visitor (owner cookie ``key``) opens the app, then ``page_name`` from the
    sidebar; again after a visit to Syllables. Seconds until drawn (and to its marker)."""
    context = chromium.new_context(viewport={"width": 1400, "height": 1600})
    context.add_cookies([{"name": "sgpe_owner", "value": key, "url": url}])
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        t = time.perf_counter()
        page.goto(url, wait_until="domcontentloaded", timeout=STEP_TIMEOUT_MS)
        page.get_by_role("heading", name="Syllables").first.wait_for(timeout=STEP_TIMEOUT_MS)
        _idle_sync(page)
        out = {"b_open_s": time.perf_counter() - t}
        nav = page.get_by_test_id("stSidebarNav")
        for visit in ("first", "again"):
            if visit == "again":
                nav.get_by_role("link", name="Syllables").click()
                page.get_by_role("heading", name="Syllables").first.wait_for(timeout=STEP_TIMEOUT_MS)  # fmt: skip
                _idle_sync(page)
            time.sleep(THINK_S)
            t = time.perf_counter()
            nav.get_by_role("link", name=PAGE_TITLES[page_name]).click()
            page.get_by_role("heading", name=PAGE_TITLES[page_name]).first.wait_for(timeout=STEP_TIMEOUT_MS)  # fmt: skip
            marker = PAGE_MARKERS.get(page_name)
            if marker:
                page.locator(marker).first.wait_for(timeout=STEP_TIMEOUT_MS)
                out[f"b_{visit}_marker_s"] = time.perf_counter() - t
            _idle_sync(page)
            out[f"b_{visit}_s"] = time.perf_counter() - t
        if page.locator("[data-testid=stException]").count() or errors:
            raise SystemExit(f"bench app: {page_name} showed an error: {errors}")
        return out
    finally:
        context.close()


def bench_pages(root: Path, args: argparse.Namespace, work: Path) -> list[dict[str, Any]]:
    from playwright.sync_api import sync_playwright

    visitor = 0
    key = owner_key(visitor)
    own = own_runs_only(root, visitor, work)
    n_own = len([p for p in own.iterdir() if p.is_dir()])
    cases = [
        ("train", root, f"{args.runs} runs ({n_own} own)"),
        ("train", own, f"{n_own} own runs only"),
        ("vocabulary", root, f"{args.runs} runs"),
        ("compare", root, f"{args.runs} runs"),
    ]
    rows = []
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)  # fmt: skip
        try:
            for page, runs_dir, where in cases:
                samples, loads = [], []
                for _ in range(args.repeats):
                    loads.append(os.getloadavg()[0])
                    sample = dict(_child(page, runs_dir, key))
                    with serve(runs_dir, work / "streamlit.log") as (url, _proc):
                        sample.update(browse_page(chromium, url, page, key))
                    samples.append(sample)
                row: dict[str, Any] = {"page": page, "runs": where, "repeats": args.repeats}
                for name in samples[0]:
                    row[name] = statistics.median(s[name] for s in samples)
                row["load"] = statistics.median(loads)
                rows.append(row)
                print(_page_line(row), flush=True)
        finally:
            chromium.close()
    return rows


def _waited(row: dict[str, Any], visit: str) -> float:
    """What the budget is checked on: the browser's seconds until the page (Compare: its
    tokens) is drawn."""
    return float(row.get(f"b_{visit}_marker_s", row[f"b_{visit}_s"]))


def _met(row: dict[str, Any]) -> bool:
    return max(_waited(row, "first"), _waited(row, "again")) <= BUDGETS[row["page"]]


def _page_line(row: dict[str, Any]) -> str:
    tokens = (
        f" (tokens {row['b_first_marker_s']:.2f} / {row['b_again_marker_s']:.2f})"
        if "b_first_marker_s" in row
        else ""
    )
    return (
        f"{row['page']:>10} | {row['runs']:>20} | browser: open {row['b_open_s']:5.2f}, "
        f"first {row['b_first_s']:5.2f}, again {row['b_again_s']:5.2f}{tokens} | "
        f"script (AppTest): first {row['first_s']:5.2f}, again {row['again_s']:5.2f} | "
        f"budget {BUDGETS[row['page']]:.1f} s {'met' if _met(row) else 'missed'} | "
        f"load {row['load']:.1f}"
    )


# ============================================================================ classroom


def free_port() -> int:
    """A free loopback port for an app server (tests/test_browser.py starts its servers
    with it too)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def healthy(url: str) -> bool:
    """Whether the Streamlit server at ``url`` answers its health check."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback, no proxy
    try:
        with opener.open(f"{url}/_stcore/health", timeout=2) as response:
            return bool(response.read().decode().strip() == "ok")
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return False


def classroom_text() -> str:
    """About 20,000 characters of the sample files (every visitor pastes the same)."""
    from sgpe import shipped

    text = (shipped.SAMPLE_DATA / "sinhala.txt").read_text(encoding="utf-8")
    return text[:CLASSROOM_TEXT_CHARS]


async def _idle(page: Any) -> None:
    """Until the app is connected and its script has finished (tests/test_browser.py)."""
    app = "[data-testid=stApp]"
    await page.wait_for_selector(f"{app}[data-test-connection-state=CONNECTED]", timeout=STEP_TIMEOUT_MS)  # fmt: skip
    await page.wait_for_selector(f"{app}[data-test-script-state=notRunning]", timeout=STEP_TIMEOUT_MS)  # fmt: skip
    await page.wait_for_function(
        "() => document.querySelectorAll('[data-testid=stSkeleton]').length === 0",
        timeout=STEP_TIMEOUT_MS,
    )


async def _visitor(browser: Any, url: str, n: int, text: str, go: asyncio.Event) -> dict[str, Any]:
    context = await browser.new_context(viewport={"width": 1400, "height": 1600})
    # Filling 20,000 characters took over Playwright's 30 s default in 7 of 20 contexts
    # when the machine's load was 35: every action gets the step's bound.
    context.set_default_timeout(STEP_TIMEOUT_MS)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    out: dict[str, Any] = {"visitor": n, "errors": errors}
    try:
        await go.wait()
        t = time.perf_counter()
        await page.goto(f"{url}/compare", wait_until="domcontentloaded", timeout=STEP_TIMEOUT_MS)
        await page.get_by_role("heading", name="Compare").wait_for(timeout=STEP_TIMEOUT_MS)
        await _idle(page)
        out["open_s"] = time.perf_counter() - t
        area = page.locator("textarea").first
        await area.fill(text)
        columns = page.locator(".st-key-cmp_columns").first
        old = await columns.inner_text()
        t = time.perf_counter()
        await area.press("Control+Enter")
        # Drawn when the token columns show the new text and the script has ended.
        await page.wait_for_function(
            "(old) => { const c = document.querySelector('.st-key-cmp_columns');"
            " return c !== null && c.innerText !== old; }",
            arg=old,
            timeout=STEP_TIMEOUT_MS,
        )
        await _idle(page)
        out["compare_s"] = time.perf_counter() - t
        out["tokens"] = await page.locator("[data-testid=stMain] .st-key-cmp_columns").inner_text()
        t = time.perf_counter()
        await page.goto(
            f"{url}/train?baseline=0&vocab_size=500&name=classroom%20{n}",
            wait_until="domcontentloaded",
            timeout=STEP_TIMEOUT_MS,
        )
        await page.get_by_role("heading", name="Train").wait_for(timeout=STEP_TIMEOUT_MS)
        await _idle(page)
        out["train_open_s"] = time.perf_counter() - t
        t = time.perf_counter()
        await page.get_by_role("button", name="Start training").click()
        await page.get_by_text("Started run").first.wait_for(timeout=STEP_TIMEOUT_MS)
        out["start_s"] = time.perf_counter() - t
        if await page.locator("[data-testid=stException]").count():
            errors.append("an exception element on the page")
        if await page.locator("[data-testid=stMain] [data-testid=stAlertContentError]").count():
            errors.append(await page.locator("[data-testid=stAlertContentError]").first.inner_text())  # fmt: skip
    except Exception as err:  # a timeout or a missing element: this visitor's error
        errors.append(f"{type(err).__name__}: {str(err).splitlines()[0]}")
    finally:
        await context.close()
    return out


async def _classroom(url: str, visitors: int, text: str) -> list[dict[str, Any]]:
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            go = asyncio.Event()
            tasks = [asyncio.create_task(_visitor(browser, url, n, text, go)) for n in range(visitors)]  # fmt: skip
            await asyncio.sleep(2.0)  # every context created before anyone opens the app
            go.set()
            return list(await asyncio.gather(*tasks))
        finally:
            await browser.close()


def _p95(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(0.95 * (len(xs) - 1)))]


def _main_thread_cpu(proc: Any) -> float:
    """CPU seconds of the server's main thread: Streamlit's server loop (Starlette
    and uvicorn: requests, websockets); the rest of the process's time is its script runs."""
    return sum(t.user_time + t.system_time for t in proc.threads() if t.id == proc.pid)


def _classroom_once(root: Path, args: argparse.Namespace, work: Path) -> dict[str, Any]:
    """One classroom on a fresh server over a fresh copy of the runs."""
    from sgpe_explorer.runs.manager import RunManager

    runs_dir = Path(tempfile.mkdtemp(prefix="classroom-runs-", dir=work))
    shutil.rmtree(runs_dir)
    shutil.copytree(root, runs_dir)
    manager = RunManager(runs_dir)
    before = {i.run.id for i in manager.list_runs()}
    cpu_log = getattr(args, "cpu_log", None)
    with serve(runs_dir, work / "streamlit.log", getattr(args, "profile", None), cpu_log) as (
        url,
        proc,
    ):
        if cpu_log is not None:
            proc.send_signal(signal.SIGUSR1)  # bench/app_cpu.py: the window starts
        # cpu0 is also what the server spent before it answered (its start and what it
        # prepares for every page, resources.prepare_server): shown beside the per-visitor
        # figure, not in it.
        cpu0, main0 = sum(proc.cpu_times()[:2]), _main_thread_cpu(proc)
        load_before = os.getloadavg()[0]
        t0 = time.perf_counter()
        visits = asyncio.run(_classroom(url, args.visitors, classroom_text()))
        pages_s = time.perf_counter() - t0
        cpu_pages = sum(proc.cpu_times()[:2]) - cpu0
        main_pages = _main_thread_cpu(proc) - main0
        if cpu_log is not None:
            proc.send_signal(signal.SIGUSR1)  # and ends with the pages
        load_after = os.getloadavg()[0]
        deadline = time.monotonic() + (RUNS_TIMEOUT_S if args.wait_runs else 0.0)
        while True:  # the runs queue behind each other: wait for the last (bounded)
            new = [i for i in manager.list_runs() if i.run.id not in before]
            if all(i.status.state in ("done", "failed", "cancelled") for i in new):
                break
            if time.monotonic() > deadline:
                break
            time.sleep(1.0)
        runs_s = time.perf_counter() - t0
        cpu_all = sum(proc.cpu_times()[:2]) - cpu0
    for info in manager.list_runs():  # with --no-wait-runs: none trains on behind us
        if info.status.alive:
            manager.cancel(info.run.id, wait=5.0)
    states = [i.status.state for i in new]
    return {
        "visits": visits,
        "runs_started": len(new),
        "runs_done": states.count("done"),
        "run_states": sorted(set(states)),
        "pages_wall_s": pages_s,
        "runs_wall_s": runs_s,
        "cpu_start": cpu0,
        "cpu_pages": cpu_pages / args.visitors,
        "cpu_main_thread": main_pages / args.visitors,
        "cpu_all": cpu_all / args.visitors,
        "load": f"{load_before:.1f} -> {load_after:.1f}",
    }


def bench_classroom(root: Path, args: argparse.Namespace, work: Path) -> dict[str, Any]:
    """``--repeats`` classrooms; the server's CPU seconds per visitor are their median."""
    if not CHROMIUM.exists():
        raise SystemExit(f"bench app: {CHROMIUM} not found (scripts/install_browser.sh)")
    global STEP_TIMEOUT_MS
    STEP_TIMEOUT_MS = round(1000 * getattr(args, "step_timeout", STEP_TIMEOUT_MS / 1000))
    one = getattr(args, "profile", None) or getattr(args, "cpu_log", None)
    repeats = 1 if one else args.repeats
    if getattr(args, "cpu_log", None) is not None:
        args.cpu_log.unlink(missing_ok=True)  # the log of this classroom only
    rounds = [_classroom_once(root, args, work) for _ in range(repeats)]
    visits = [v for r in rounds for v in r["visits"]]
    errors = [e for v in visits for e in v["errors"]]
    counts = {v.get("tokens") for v in visits if "tokens" in v}
    steps = {}
    for step in ("open_s", "compare_s", "train_open_s", "start_s"):
        xs = [v[step] for v in visits if step in v]
        steps[step] = {"n": len(xs), "median": statistics.median(xs) if xs else None,
                       "p95": _p95(xs) if xs else None}  # fmt: skip
    result = {
        "visitors": args.visitors,
        "repeats": repeats,
        "errors": errors,
        "same_tokens": len(counts) == 1,
        "runs_started": sum(r["runs_started"] for r in rounds),
        "runs_done": sum(r["runs_done"] for r in rounds),
        "run_states": sorted({s for r in rounds for s in r["run_states"]}),
        "steps": steps,
        "pages_wall_s": statistics.median(r["pages_wall_s"] for r in rounds),
        "runs_wall_s": statistics.median(r["runs_wall_s"] for r in rounds),
        "server_cpu_s_per_visitor_pages": statistics.median(r["cpu_pages"] for r in rounds),
        "server_cpu_s_per_visitor_all": statistics.median(r["cpu_all"] for r in rounds),
        "server_start_cpu_s": statistics.median(r["cpu_start"] for r in rounds),
        "cpu_pages_each": [round(r["cpu_pages"], 3) for r in rounds],
        "server_cpu_s_per_visitor_main_thread": statistics.median(
            r["cpu_main_thread"] for r in rounds
        ),
        "budget_cpu_s": CLASSROOM_BUDGET_CPU_S,
        "load": ", ".join(r["load"] for r in rounds),
    }
    print(f"\n== classroom: {args.visitors} visitors, one server, Chromium contexts; "
          f"seconds (medians of {repeats} classrooms)")  # fmt: skip
    for step, s in steps.items():
        if s["n"]:
            print(f"{step:>13}: median {s['median']:6.2f} | p95 {s['p95']:6.2f} | n {s['n']}")
    print(_classroom_line(result))
    if getattr(args, "cpu_log", None) is not None:
        from .app_cpu import summary

        print(f"\n== the server's CPU ({args.cpu_log})\n")
        print(summary(args.cpu_log, args.visitors))
    if getattr(args, "profile", None):
        from .app_profile import top

        print(f"\n== the server's profile ({args.profile}), by cumulative seconds\n")
        print(top(str(args.profile)))
    return result


def _classroom_line(c: dict[str, Any]) -> str:
    """The classroom's figures in one line (the terminal and app.md)."""
    met = "met" if c["server_cpu_s_per_visitor_pages"] <= CLASSROOM_BUDGET_CPU_S else "missed"
    return (
        f"errors {len(c['errors'])}{': ' + '; '.join(c['errors'][:5]) if c['errors'] else ''} | "
        f"same tokens on every page: {c['same_tokens']} | runs done {c['runs_done']} of "
        f"{c['runs_started']} ({c['runs_wall_s']:.0f} s) | server CPU per visitor "
        f"{c['server_cpu_s_per_visitor_pages']:.2f} s (pages; each classroom "
        f"{c.get('cpu_pages_each', [])}; budget {CLASSROOM_BUDGET_CPU_S} s {met}; of it the "
        f"main thread, the server loop: {c.get('server_cpu_s_per_visitor_main_thread', float('nan')):.2f}"
        " s), "
        f"{c['server_cpu_s_per_visitor_all']:.2f} s (until every run ended)"
        + (
            f" | server start {c['server_start_cpu_s']:.2f} CPU-s, before the first visitor"
            if "server_start_cpu_s" in c
            else ""
        )
        + f" | load {c['load']}"
    )


# ============================================================================ report


def render(record: dict[str, Any]) -> str:
    """``app.md``: every labelled measurement, pages then classroom."""
    out = ["# The app's speed budgets (python -m bench app)", ""]
    for label, rec in record.items():
        meta = rec["meta"]
        out += [f"## {label}", "", f"`{meta['command']}`, {meta['date']}, {meta['machine']}.", ""]
        if rec.get("pages"):
            out += [
                "Seconds until drawn in Chromium (a fresh server for each measurement; Compare: "
                "until its token columns), and the script run alone (AppTest, a fresh process).",
                "",
                "| page | runs directory | open app | page, first visit | page, again "
                "| script: first | script: again | budget | load |",
                "|---|---|---:|---:|---:|---:|---:|---|---:|",
            ]
            for r in rec["pages"]:
                ok = "met" if _met(r) else "missed"
                out.append(
                    f"| {r['page']} | {r['runs']} | {r['b_open_s']:.2f} | {_waited(r, 'first'):.2f} "
                    f"| {_waited(r, 'again'):.2f} | {r['first_s']:.2f} | {r['again_s']:.2f} "
                    f"| ≤ {BUDGETS[r['page']]} s: {ok} | {r['load']:.1f} |"
                )
            out.append("")
        c = rec.get("classroom")
        if c:
            out += [f"Classroom: {c['visitors']} visitors, errors {len(c['errors'])}; medians of "
                    f"{c.get('repeats', 1)} classrooms: {_classroom_line(c)}.", "",
                    "| step | median (s) | p95 (s) |", "|---|---:|---:|"]  # fmt: skip
            for step, s in c["steps"].items():
                if s["n"]:
                    out.append(f"| {step} | {s['median']:.2f} | {s['p95']:.2f} |")
            out.append("")
        if rec.get("memory"):
            from .app_memory import memory_line

            out += [memory_line(rec["memory"]).strip().removeprefix("== "), ""]
    return "\n".join(out)


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    parts = {p.strip() for p in args.only.split(",") if p.strip()}
    root = build_runs(args.cache, args.runs, args.owners)
    rec: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="sgpe-bench-app-") as tmp:
        work = Path(tmp)
        if "pages" in parts:
            print(f"\n== pages: seconds of the script run (AppTest, fresh process each; medians of {args.repeats}); load 1/5 min {load()}")  # fmt: skip
            rec["pages"] = bench_pages(root, args, work)
        if "classroom" in parts:
            rec["classroom"] = bench_classroom(root, args, work)
        if "memory" in parts:
            from .app_memory import bench_memory

            rec["memory"] = bench_memory(root, args, work)
    rec["meta"] = run_meta(getattr(args, "invocation", "python -m bench app"), started)
    path = Path(args.out) / "app.json"
    record = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    record.setdefault(args.label or "latest", {}).update(rec)  # --only keeps the other part
    write_json(path, record)
    (Path(args.out) / "app.md").write_text(render(record) + "\n", encoding="utf-8")
    print(f"\nwrote {path} and app.md")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        print(json.dumps(measure_page(sys.argv[2], sys.argv[3], sys.argv[4])))
    else:
        raise SystemExit("python -m bench app: see python -m bench app --help")

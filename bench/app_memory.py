"""The app's memory after a tour: ``python -m bench app --only memory``.

A visitor tour, on a real server (``sgpe app`` on loopback) and Debian's Chromium:

* ``TOUR_RUNS`` finished runs in the runs folder (the first of the bench's cached runs);
* two visitors, each in their own browser context with their own owner cookie; the second
  picks one of the runs as its SGPE vocabulary (``?tok=``), so the server holds two;
* each opens the 7 pages from the sidebar, one after the other;
* the first uploads a ``UPLOAD_MB`` MB corpus on Train, and waits for its size check
  (done in a worker process, sgpe_explorer/ui/train_form.py).

Reported: the server's RSS (the Streamlit process alone) after the tour, its peak over
the tour, and the processes still running under it once the size check is done: that
worker must have exited (it stayed, at about 189 MB, before). Budget: ``BUDGET_MB``.
"""

from __future__ import annotations

import os
import shutil
import statistics
import time
from pathlib import Path
from typing import Any

TOUR_RUNS = 43
UPLOAD_MB = 16
BUDGET_MB = 500.0
PAGES = ("Syllables", "Compare", "Merges", "Evaluate", "Train", "Grammar", "Vocabulary")
STEP_TIMEOUT_MS = 180_000


def tour_runs(root: Path, work: Path) -> tuple[Path, str]:
    """A runs folder of :data:`TOUR_RUNS` of the bench's runs, and one SGPE run's id."""
    out = work / "memory-runs"
    out.mkdir()
    chosen = sorted(p for p in root.iterdir() if p.is_dir())[:TOUR_RUNS]
    for run in chosen:
        shutil.copytree(run, out / run.name)
    from sgpe_explorer.runs.manager import RunManager

    sgpe_run = next(i.run.id for i in RunManager(out).list_runs() if i.config.model == "sgpe")
    return out, sgpe_run


def upload_file(work: Path) -> Path:
    """About :data:`UPLOAD_MB` MB of real text: the sample files, over and over."""
    from sgpe import shipped

    text = "".join(
        (shipped.SAMPLE_DATA / name).read_text(encoding="utf-8")
        for name in ("sinhala.txt", "hindi.txt", "mixed.txt")
    )
    data = text.encode("utf-8")
    path = work / "upload_corpus.txt"
    with path.open("wb") as out:
        for _ in range(UPLOAD_MB * 1_000_000 // len(data) + 1):
            out.write(data)
    return path


def _idle(page: Any) -> None:
    app = "[data-testid=stApp]"
    page.wait_for_selector(f"{app}[data-test-connection-state=CONNECTED]", timeout=STEP_TIMEOUT_MS)  # fmt: skip
    page.wait_for_selector(f"{app}[data-test-script-state=notRunning]", timeout=STEP_TIMEOUT_MS)  # fmt: skip
    page.wait_for_function(
        "() => document.querySelectorAll('[data-testid=stSkeleton]').length === 0",
        timeout=STEP_TIMEOUT_MS,
    )


def visit(chromium: Any, url: str, key: str, query: str, upload: Path | None, proc: Any,
          peak: list[float]) -> list[str]:  # fmt: skip
    """One visitor's tour of the 7 pages (the upload on Train); the errors seen."""
    context = chromium.new_context(viewport={"width": 1400, "height": 1600})
    context.add_cookies([{"name": "sgpe_owner", "value": key, "url": url}])
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{url}/{query}", wait_until="domcontentloaded", timeout=STEP_TIMEOUT_MS)
        page.get_by_role("heading", name="Syllables").first.wait_for(timeout=STEP_TIMEOUT_MS)
        _idle(page)
        nav = page.get_by_test_id("stSidebarNav")
        for name in PAGES:
            nav.get_by_role("link", name=name).click()
            page.get_by_role("heading", name=name).first.wait_for(timeout=STEP_TIMEOUT_MS)
            _idle(page)
            peak.append(proc.memory_info().rss / 1e6)
            if name == "Train" and upload is not None:
                page.get_by_text("upload a file").click()
                page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(upload))
                page.get_by_text(upload.name).first.wait_for(timeout=STEP_TIMEOUT_MS)
                # The size check is done when the page names the corpus's documents.
                page.get_by_text("This corpus with these settings").first.wait_for(
                    timeout=STEP_TIMEOUT_MS
                )
                _idle(page)
                peak.append(proc.memory_info().rss / 1e6)
        if page.locator("[data-testid=stException]").count():
            errors.append("an exception element on the page")
    finally:
        context.close()
    return errors


def bench_memory(root: Path, args: Any, work: Path) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    from .app import CHROMIUM, CHROMIUM_ARGS, owner_key, serve

    runs_dir, sgpe_run = tour_runs(root, work)
    upload = upload_file(work)
    samples: list[dict[str, Any]] = []
    for _ in range(args.repeats):
        load = os.getloadavg()[0]
        peak: list[float] = []
        with serve(runs_dir, work / "streamlit.log") as (url, proc), sync_playwright() as pw:
            chromium = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)  # fmt: skip
            try:
                errors = visit(chromium, url, owner_key(0), "", upload, proc, peak)
                errors += visit(chromium, url, owner_key(1), f"?tok={sgpe_run}", None, proc, peak)
            finally:
                chromium.close()
            # The server and every process under it (a size check still running) now.
            family = [proc, *proc.children(recursive=True)]
            with_children = sum(p.memory_info().rss for p in family if p.is_running()) / 1e6
            deadline = time.monotonic() + 60
            while True:  # the size check's worker exits when it is done
                workers = [p for p in proc.children(recursive=True) if p.is_running()]
                if not workers or time.monotonic() > deadline:
                    break
                time.sleep(0.5)
            rss = proc.memory_info().rss / 1e6
            samples.append({
                "rss_mb": rss, "peak_mb": max([rss, *peak]), "errors": errors, "load": load,
                "with_children_mb": with_children,
                "workers_left": [" ".join(p.cmdline()[:4]) for p in workers],
            })  # fmt: skip
    row = {
        "runs": len([p for p in runs_dir.iterdir() if p.is_dir()]),
        "upload_mb": UPLOAD_MB,
        "repeats": args.repeats,
        "rss_mb": statistics.median(s["rss_mb"] for s in samples),
        "peak_mb": statistics.median(s["peak_mb"] for s in samples),
        "rss_mb_each": [round(s["rss_mb"]) for s in samples],
        "with_children_mb": statistics.median(s["with_children_mb"] for s in samples),
        "workers_left": sorted({w for s in samples for w in s["workers_left"]}),
        "errors": [e for s in samples for e in s["errors"]],
        "load": statistics.median(s["load"] for s in samples),
        "budget_mb": BUDGET_MB,
    }
    print(memory_line(row), flush=True)
    return row


def memory_line(row: dict[str, Any]) -> str:
    met = "met" if row["rss_mb"] <= row["budget_mb"] else "missed"
    return (
        f"\n== memory: {row['runs']} runs, 7 pages, two visitors, a {row['upload_mb']} MB upload "
        f"checked | server RSS after the tour {row['rss_mb']:.0f} MB (each: "
        f"{row['rss_mb_each']}; peak {row['peak_mb']:.0f} MB; with the processes under it "
        f"at the tour's end {row.get('with_children_mb', float('nan')):.0f} MB) | budget "
        f"{row['budget_mb']:.0f} MB "
        f"{met} | processes left under the server: {row['workers_left'] or 'none'} | errors "
        f"{len(row['errors'])}{': ' + '; '.join(row['errors'][:3]) if row['errors'] else ''} "
        f"| load {row['load']:.1f}"
    )

"""The app's server with a CPU log: each script run's CPU and each thread's, by name.

    python -m bench.app_cpu LOG [streamlit flags...]

Runs what ``sgpe app`` runs (``sgpe_explorer.app.serve`` with the app's settings), as
bench/app_profile.py does, but without a profiler: the figures are the real ones. It
appends to ``LOG``, one JSON object a line:

* ``{"event": "run", ...}`` after each script run: its thread's CPU seconds
  (``time.thread_time``), whether it was a fragment's own run, its page's hash and its
  session's id;
* ``{"event": "exit", ...}`` as each thread ends: its name and CPU seconds;
* ``{"event": "snap", ...}`` on SIGUSR1: every live thread's name and CPU seconds (read
  with ``time.pthread_getcpuclockid``).

``python -m bench app --cpu-log LOG`` signals the server when a classroom starts and
when its pages are done, and prints :func:`summary`: the script runs by kind, and each
group of threads' CPU between the two signals (docs/app.md, section 11). Linux only.
"""

from __future__ import annotations

import gc
import json
import re
import signal
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

_lock = threading.Lock()


def _write(log: str, record: dict[str, Any]) -> None:
    line = json.dumps({**record, "time": time.time()}) + "\n"
    with _lock, open(log, "a", encoding="utf-8") as out:
        out.write(line)


def _thread_cpu(thread: threading.Thread) -> float | None:
    try:
        clock = time.pthread_getcpuclockid(thread.ident or 0)
        return time.clock_gettime(clock)
    except (OSError, OverflowError):  # the thread ended meanwhile
        return None


#: CPU seconds of the garbage collector's passes so far, by generation, and their count.
_gc_cpu = [0.0, 0.0, 0.0]
_gc_passes = [0, 0, 0]
_gc_start = threading.local()


def _gc_timed(phase: str, info: dict[str, Any]) -> None:
    """A ``gc.callbacks`` hook: each pass's CPU seconds, in whichever thread it ran."""
    if phase == "start":
        _gc_start.t = time.thread_time()
    elif (t := getattr(_gc_start, "t", None)) is not None:
        generation = int(info.get("generation", 2))
        _gc_cpu[generation] += time.thread_time() - t
        _gc_passes[generation] += 1


def snapshot(log: str) -> None:
    """Every live thread's CPU seconds, and the garbage collector's, as one ``snap`` line."""
    threads = [
        {"ident": t.native_id, "name": t.name, "cpu": cpu}
        for t in threading.enumerate()
        if (cpu := _thread_cpu(t)) is not None
    ]
    _write(log, {"event": "snap", "threads": threads, "gc_cpu": list(_gc_cpu),
                 "gc_passes": list(_gc_passes)})  # fmt: skip


def install(log: str) -> None:
    """The hooks: each thread's CPU at its end, and a snapshot on SIGUSR1."""
    run = threading.Thread.run

    def logged_run(self: threading.Thread) -> None:
        try:
            run(self)
        finally:
            _write(log, {"event": "exit", "ident": threading.get_native_id(), "name": self.name,
                         "cpu": time.thread_time()})  # fmt: skip

    threading.Thread.run = logged_run  # type: ignore[method-assign]
    gc.callbacks.append(_gc_timed)
    signal.signal(signal.SIGUSR1, lambda *_: snapshot(log))


def install_script_runs(log: str) -> None:
    """Each script run's CPU (Streamlit's ScriptRunner: one thread per run, or one run
    after another in the same thread)."""
    from streamlit.navigation.page import Page
    from streamlit.runtime.scriptrunner import script_runner

    run_script = script_runner.ScriptRunner._run_script
    run_page = Page.run
    pages = threading.local()  # the page scripts a script run has executed so far

    def counted_page(self: Any) -> None:
        pages.n = getattr(pages, "n", 0) + 1
        run_page(self)

    def logged(self: Any, rerun_data: Any, *a: Any, **k: Any) -> Any:
        start = time.thread_time()
        pages.n = 0
        try:
            return run_script(self, rerun_data, *a, **k)
        finally:
            cpu = time.thread_time() - start
            # A fragment's run that asks for the whole page (st.rerun(scope="app")) goes
            # on in the same call: "pages" is then 1.
            _write(log, {"event": "run", "cpu": cpu, "page": _page(self),
                         "fragment": bool(getattr(rerun_data, "fragment_id_queue", None)),
                         "pages": pages.n,
                         "session": str(getattr(self, "_session_id", ""))})  # fmt: skip

    Page.run = counted_page  # type: ignore[method-assign]
    script_runner.ScriptRunner._run_script = logged  # type: ignore[method-assign]


def _page(runner: Any) -> str:
    """The page the run drew (its title in the app's navigation), or "?"."""
    try:
        pages = runner._pages_manager
        info = pages.get_pages().get(pages.current_page_script_hash) or {}
        return str(info.get("page_name") or "?")
    except Exception:  # another Streamlit: the runs are still counted
        return "?"


def main(log: str, args: list[str]) -> None:
    from sgpe_explorer.app import launch, serve

    install(log)
    install_script_runs(log)
    command = launch.streamlit_command(args)
    sys.argv = ["serve", *command[3:]]  # drop "python -m sgpe_explorer.app.serve"
    serve.main()


def _group(name: str) -> str:
    """A thread's group: its name without the numbers Python and pools add."""
    return re.sub(r"[-_ ]?\d+(_\d+)?(\s*\(.*\))?$", "", name) or name


def window(records: list[dict[str, Any]]) -> tuple[dict[str, float], list[dict[str, Any]]]:
    """Each thread group's CPU seconds between the log's first two snapshots, and the
    script runs that ended between them."""
    snaps = [r for r in records if r["event"] == "snap"]
    if len(snaps) < 2:
        raise ValueError("the log has fewer than two snapshots (SIGUSR1)")
    first, last = snaps[0], snaps[1]
    begin = {t["ident"]: t["cpu"] for t in first["threads"]}
    end = {t["ident"]: (t["name"], t["cpu"]) for t in last["threads"]}
    # A thread that ended in the window: its CPU at its end. Threads are told apart by
    # their system ids, which Linux does not give again soon (Python's idents are reused
    # at once, and lost most script runs' threads).
    for r in records:
        if r["event"] == "exit" and first["time"] <= r["time"] <= last["time"]:
            end.setdefault(r["ident"], (r["name"], r["cpu"]))
    groups: dict[str, float] = defaultdict(float)
    for ident, (name, cpu) in end.items():
        groups[_group(name)] += cpu - begin.get(ident, 0.0)
    runs = [
        r for r in records if r["event"] == "run" and first["time"] <= r["time"] <= last["time"]
    ]
    return dict(groups), runs


def gc_window(records: list[dict[str, Any]]) -> list[tuple[int, float]]:
    """The garbage collector's passes and CPU seconds by generation between the first two
    snapshots (a log without them: none)."""
    snaps = [r for r in records if r["event"] == "snap" and "gc_cpu" in r]
    if len(snaps) < 2:
        return []
    a, b = snaps[0], snaps[1]
    return [(b["gc_passes"][g] - a["gc_passes"][g], b["gc_cpu"][g] - a["gc_cpu"][g]) for g in range(3)]  # fmt: skip


def summary(path: Path, visitors: int) -> str:
    """The log at ``path`` as a table: CPU seconds per visitor, by thread group and by
    kind of script run, between the first two snapshots."""
    import statistics

    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    groups, runs = window(records)
    lines = [f"CPU seconds per visitor ({visitors} visitors), between the two signals:", ""]
    lines += ["| threads | CPU-s per visitor |", "|---|---:|"]
    for name, cpu in sorted(groups.items(), key=lambda kv: -kv[1]):
        if cpu >= 0.0005 * visitors:
            lines.append(f"| {name} | {cpu / visitors:.3f} |")
    lines.append(f"| all | {sum(groups.values()) / visitors:.3f} |")
    kinds: dict[tuple[str, str], list[float]] = defaultdict(list)
    for r in runs:
        if not r["fragment"]:
            kind = "whole page"
        else:
            kind = "fragment, then its whole page" if r.get("pages") else "fragment"
        kinds[(kind, r["page"])].append(r["cpu"])
    lines += ["", "| script run (page) | runs | median CPU-s | CPU-s per visitor |",
              "|---|---:|---:|---:|"]  # fmt: skip
    for (kind, page), cpus in sorted(kinds.items(), key=lambda kv: -sum(kv[1])):
        lines.append(
            f"| {kind} ({page}) | {len(cpus)} | {statistics.median(cpus):.3f} | "
            f"{sum(cpus) / visitors:.3f} |"
        )
    passes = gc_window(records)
    if passes:  # inside the threads' figures above, wherever each pass ran
        lines += ["", "| garbage collector (within the above) | passes | CPU-s per visitor |",
                  "|---|---:|---:|"]  # fmt: skip
        for generation, (n, cpu) in enumerate(passes):
            lines.append(f"| generation {generation} | {n} | {cpu / visitors:.3f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])

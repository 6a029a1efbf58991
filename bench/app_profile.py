"""The app's server under cProfile: where a classroom's server CPU goes.

    python -m bench.app_profile OUT.prof [streamlit flags...]

Runs what ``sgpe app`` runs (``sgpe_explorer.app.serve run sgpe_explorer/app/main.py``
with the app's settings, sgpe_explorer/app/launch.py) in this process, with one profiler on each script
run (Streamlit's ScriptRunner thread: the pages' Python) and one on the main thread
(Streamlit's server loop; it runs on uvloop, whose C loop the profiler sees only in
part: ``python -m bench app`` measures that thread's CPU share with psutil instead).
cProfile follows one thread only, so each script run gets its own, and the lot is merged
into ``OUT.prof`` when the server stops (SIGTERM, as ``python -m bench app --profile``
stops it). Each profiler counts its thread's CPU seconds (``time.thread_time``), not the
wall clock: with twenty visitors on two cores, wall seconds mostly measured waiting for
the GIL and for locks. The profiler slows Python down: its seconds show where the time
goes, not how much; the bench's CPU figures are measured without it.
"""

from __future__ import annotations

import atexit
import cProfile
import pstats
import sys
import threading
import time
from typing import Any


def main(out: str, args: list[str]) -> None:
    from streamlit.runtime.scriptrunner import script_runner

    from sgpe_explorer.app import launch, serve

    done: list[cProfile.Profile] = []
    lock = threading.Lock()
    run_script = script_runner.ScriptRunner._run_script

    def profiled(self: Any, *a: Any, **k: Any) -> Any:
        profile = cProfile.Profile(time.thread_time)
        profile.enable()
        try:
            return run_script(self, *a, **k)
        finally:
            profile.disable()
            with lock:
                done.append(profile)

    script_runner.ScriptRunner._run_script = profiled  # type: ignore[method-assign]
    server = cProfile.Profile(time.thread_time)

    def dump() -> None:
        server.disable()
        stats = pstats.Stats(server)
        with lock:
            for profile in done:
                stats.add(profile)
        stats.dump_stats(out)

    atexit.register(dump)
    command = launch.streamlit_command(args)
    # What `sgpe app` runs: sgpe_explorer.app.serve (its index.html and its kept, gzipped
    # bundles) with the app's flags; without it the profile measured Streamlit serving
    # every bundle uncompressed from disk, which the app no longer does.
    sys.argv = ["serve", *command[3:]]  # drop "python -m sgpe_explorer.app.serve"
    server.enable()
    serve.main()


def top(path: str, n: int = 25) -> str:
    """The ``n`` functions with the most cumulative seconds in the profile at ``path``."""
    import io

    buf = io.StringIO()
    pstats.Stats(path, stream=buf).sort_stats("cumulative").print_stats(n)
    return buf.getvalue()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])

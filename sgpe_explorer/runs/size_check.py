"""The size check of a large upload in a process of its own, which exits when done.

    python -m sgpe_explorer.runs.size_check < request

:func:`check` sends the upload's name and settings (one JSON line) and its bytes to
``python -m sgpe_explorer.runs.size_check`` and reads back one JSON line: the
:class:`~sgpe_explorer.runs.sizes.SizeRange` or the problem. The app runs it from a
thread (sgpe_explorer/ui/train_form.py), so reading a 16 MB upload (seconds of
pure-Python CPU) holds neither the server's GIL nor its pages.

A plain child process, not multiprocessing's "spawn": that re-imports the server's main
script in the child (Streamlit makes the app's ``main.py`` the ``__main__`` module),
which imported Streamlit and the whole app (about 189 MB), logged "No runtime found,
using MemoryCacheStorageManager" for each cached function, and a pool kept that process
alive after its check. This one imports only :mod:`sgpe` and the size module.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from typing import Any

from .sizes import SizeRange, upload_size_range

TIMEOUT_S = 600.0  # a check of the largest upload allowed takes well under this


def check(data: bytes, name: str, settings: dict[str, Any]) -> SizeRange | str:
    """:func:`~sgpe_explorer.runs.sizes.upload_size_range` of ``data``, computed in a
    child process; a RuntimeError if that process fails."""
    header = json.dumps({"name": name, "settings": settings}).encode("utf-8") + b"\n"
    done = subprocess.run(
        [sys.executable, "-m", "sgpe_explorer.runs.size_check"],
        input=header + data,
        capture_output=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    if done.returncode != 0:
        last = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
        raise RuntimeError(f"the size check stopped with exit code {done.returncode}: {last[0]}")
    answer = json.loads(done.stdout.decode("utf-8"))
    if "problem" in answer:
        return str(answer["problem"])
    return SizeRange(**answer["range"])


def main() -> int:
    """Read a request on stdin and write the answer on stdout (see :func:`check`)."""
    raw = sys.stdin.buffer.read()
    header, _, data = raw.partition(b"\n")
    request = json.loads(header.decode("utf-8"))
    found = upload_size_range(data, str(request["name"]), dict(request["settings"]))
    if isinstance(found, str):
        answer: dict[str, Any] = {"problem": found}
    else:
        answer = {"range": dataclasses.asdict(found)}
    sys.stdout.write(json.dumps(answer) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

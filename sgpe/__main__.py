"""``python -m sgpe``: the command line of :mod:`sgpe.cli`."""

from __future__ import annotations

import os
import sys

from .cli import main


def _exit_now(code: int) -> None:
    """End a ``train`` process once its output is flushed, without Python's teardown.

    Every file of the run is written, synced and closed by then (the status last), and
    no thread is left that still works. The teardown would free every object and module
    one by one, pyarrow's and numpy's included (the word counts' table loads them): about
    0.1 s of a 1.5 s run, longer than anything the run does after its vocabulary is
    written (``python -m bench native``, the training row). ``main`` called in a process
    of the caller's own (the tests, the explorer) exits as usual."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return  # a closed or broken stream: the usual exit reports it as Python does
    os._exit(code)


if __name__ == "__main__":
    code = main()
    if sys.argv[1:2] == ["train"]:
        _exit_now(code)
    raise SystemExit(code)

"""``python -m sgpe``: the command line of :mod:`sgpe.cli`."""

from __future__ import annotations

from .cli import run

if __name__ == "__main__":
    run()

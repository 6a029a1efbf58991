"""``python -m sgpe``: the command line of :mod:`sgpe.cli`."""

from __future__ import annotations

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())

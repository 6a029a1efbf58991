"""The installed package's version (kept out of ``sgpe/__init__.py`` so that modules
below the package's top can read it without importing the package)."""

from __future__ import annotations

from functools import cache


@cache
def package_version() -> str:
    """The version of the installed distribution, read from its metadata on first use
    (importing importlib.metadata is a noticeable share of starting the command line)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("sgpe-explorer")
    except PackageNotFoundError:  # running from a source tree that is not installed
        return "0.0.0+local"

"""``sgpe app``'s Streamlit: ``streamlit run`` with an ``index.html`` that names the server.

    python -m sgpe_explorer.app.serve run <main.py> [streamlit flags...]

A page's own link (``/compare``) made Streamlit's frontend look for the server under the
page's path first: ``/compare/_stcore/health`` and ``/compare/_stcore/host-config``, two
404s on every such load, before it tried ``/``. The frontend skips that search
when ``window.__streamlit.BACKEND_BASE_URL`` is set before its code runs, and Streamlit
has no setting for it. So this module serves Streamlit's own static folder with one file
changed: a copy of ``index.html`` whose first script sets it to the page's origin and the
server's ``server.baseUrlPath``. Every other file is a symbolic link to Streamlit's
(its static file handler follows them). Anything else is ``streamlit run`` itself
(:func:`streamlit.web.cli.main`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

MARK = "<!-- sgpe: window.__streamlit -->"


def base_script(base_url_path: str) -> str:
    """The ``<script>`` that tells the frontend where the server is."""
    base = "/" + base_url_path.strip("/") if base_url_path.strip("/") else ""
    return (
        f"{MARK}<script>window.__streamlit=Object.assign({{}},window.__streamlit,"
        f"{{BACKEND_BASE_URL:window.location.origin+{json.dumps(base)}}});</script>"
    )


def static_dir(source: Path, base_url_path: str, cache: Path | None = None) -> Path:
    """A folder like ``source`` (Streamlit's static files) whose ``index.html`` names
    the server (:func:`base_script`); made once per Streamlit version and base path."""
    index = (source / "index.html").read_text(encoding="utf-8")
    script = base_script(base_url_path)
    if "<head>" not in index:  # a Streamlit whose page we do not know: serve it as is
        return source
    digest = hashlib.sha256((str(source) + index + script).encode("utf-8")).hexdigest()[:16]
    cache = cache or Path(tempfile.gettempdir()) / f"sgpe-explorer-static-{os.getuid()}"
    out = cache / digest
    if (out / "index.html").is_file():
        return out
    cache.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="making-", dir=cache))
    try:
        for entry in source.iterdir():
            if entry.name != "index.html":
                (work / entry.name).symlink_to(entry)
        (work / "index.html").write_text(
            index.replace("<head>", "<head>\n    " + script, 1), encoding="utf-8"
        )
        with contextlib.suppress(OSError):  # another server made it meanwhile
            work.rename(out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return out if (out / "index.html").is_file() else source


def main() -> None:
    """``streamlit`` with its arguments from the command line, serving :func:`static_dir`."""
    from streamlit import config, file_util
    from streamlit.web import cli

    streamlit_static = Path(file_util.get_static_dir())

    def ours() -> str:
        # Asked when the server starts, once the command line's settings are loaded.
        base = str(config.get_option("server.baseUrlPath") or "")
        return str(static_dir(streamlit_static, base))

    file_util.get_static_dir = ours
    sys.argv = ["streamlit", *sys.argv[1:]]
    cli.main()


if __name__ == "__main__":
    main()

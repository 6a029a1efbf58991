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

A first page load fetches about 140 of those files, 9.6 MB of JavaScript that Streamlit
sends uncompressed (it does not compress at its origin: compressing on every request
costs more than it saves). Sending them was most of a classroom visitor's server-loop
time (docs/app.md, section 11). :class:`GzipStatic` compresses each bundle once, keeps
the result, and sends it to every browser that accepts gzip: a quarter of the bytes,
in one write; :class:`KeptFirst` sends a kept bundle before the request enters
Starlette's middleware and router.
"""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import gzip
import hashlib
import json
import os
import shutil
import stat
import sys
import tempfile
import threading
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path, PurePosixPath
from typing import Any

from sgpe.runs import atomic_write

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
    cache = cache or _own_cache()
    if cache is None:
        return source
    out = cache / digest
    if (out / "index.html").is_file():
        return out
    try:
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
    except OSError:  # e.g. no symbolic links for this user (Windows): Streamlit's own folder
        return source
    return out if (out / "index.html").is_file() else source


def _own_cache() -> Path | None:
    """The folder :func:`static_dir` makes its folders in: one per user under the system's
    temporary folder, or None when it is not this user's alone. The server sends what is
    there (an ``index.html``, the compressed bundles) to every visitor, so a folder
    another user made, or could write to, is not used."""
    user = str(os.getuid()) if hasattr(os, "getuid") else getpass.getuser()
    cache = Path(tempfile.gettempdir()) / f"sgpe-explorer-static-{user}"
    try:
        cache.mkdir(mode=0o700, exist_ok=True)
        info = cache.lstat()
    except OSError:
        return None
    if hasattr(os, "getuid") and (
        not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022
    ):
        return None
    return cache


_Scope = MutableMapping[str, Any]
_Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
_Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
_App = Callable[[_Scope, _Receive, _Send], Awaitable[None]]
# The bundles' types: text is sent compressed; fonts and images are compressed already.
COMPRESSED_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
                    ".svg": "image/svg+xml", ".json": "application/json"}  # fmt: skip
RAW_TYPES = {".woff2": "font/woff2", ".woff": "font/woff", ".png": "image/png",
             ".gif": "image/gif", ".ttf": "font/ttf"}  # fmt: skip
# Streamlit's own header for its content-hashed bundles (starlette_static_routes.py).
IMMUTABLE = b"public, immutable, max-age=31536000"


class GzipStatic:
    """Streamlit's static file handler ``inner`` over ``directory``, with the bundles under
    ``static/`` sent from memory: read once per server process and kept (a few MB in all),
    text gzip-compressed once for every browser that accepts gzip. Anything else (other
    paths, unknown types, a conditional, ranged or uncompressed request) goes to ``inner``
    unchanged."""

    def __init__(self, inner: _App, directory: str | Path, gz_cache: Path | None = None) -> None:
        self.inner = inner
        self.root = Path(directory) / "static"
        # Where compressed bundles are kept between server processes (None: nowhere).
        self.gz_cache = gz_cache
        self.compressions = 0  # bundles compressed by this process (tests/test_app_serve.py)
        # path under static/ -> (content type, body, compressed): only files that exist
        # under the folder, so what is kept is bounded by Streamlit's own folder.
        self.kept: dict[str, tuple[bytes, bytes, bool]] = {}
        self.reads = 0  # files read (and compressed) so far (tests/test_app_serve.py)
        self._lock = threading.Lock()
        # path -> the one load under way. A classroom's first page loads ask for the same
        # 140 bundles at once: each asker waited for its own compression of every bundle,
        # twenty times the work (docs/app.md, section 11). Touched by the event loop only.
        self._loading: dict[str, asyncio.Future[tuple[bytes, bytes, bool] | None]] = {}

    @staticmethod
    def _relative(scope: _Scope) -> str | None:
        """The path under ``static/`` that a GET or HEAD asks for (None: another request)."""
        if scope.get("type") != "http" or scope.get("method") not in ("GET", "HEAD"):
            return None
        path, root = str(scope.get("path", "")), str(scope.get("root_path", ""))
        if root and path.startswith(root):
            path = path[len(root) :]
        return path[len("/static/") :] if path.startswith("/static/") else None

    def _load(self, relative: str) -> tuple[bytes, bytes, bool] | None:
        """Read (and compress) the bundle at ``relative`` once; None: not one we send."""
        parts = relative.split("/")
        suffix = PurePosixPath(parts[-1]).suffix
        entry: tuple[bytes, bytes, bool] | None = None
        safe = "\\" not in relative and all(p and not p.startswith(".") for p in parts)
        if safe and (suffix in COMPRESSED_TYPES or suffix in RAW_TYPES):
            file = self.root.joinpath(*parts)
            if file.is_file() and suffix in COMPRESSED_TYPES:
                entry = (COMPRESSED_TYPES[suffix].encode(), self._compressed(file, parts), True)
            elif file.is_file():
                entry = (RAW_TYPES[suffix].encode(), file.read_bytes(), False)
        if entry is not None:
            with self._lock:
                self.kept[relative] = entry
                self.reads += 1
        return entry

    def _compressed(self, file: Path, parts: list[str]) -> bytes:
        """``file`` gzip-compressed: from :attr:`gz_cache` when an earlier server process
        compressed the same file (its size and mtime in the name), else compressed now
        and kept there. About 0.5 CPU-s for a first page's bundles, which each new server
        process paid again during its first visitors' page loads (docs/app.md, section 11)."""
        info = file.stat()
        kept = None
        if self.gz_cache is not None:
            kept = self.gz_cache.joinpath(
                *parts[:-1], f"{parts[-1]}.{info.st_size}-{info.st_mtime_ns}.gz"
            )
            with contextlib.suppress(OSError):
                return kept.read_bytes()
        data = gzip.compress(file.read_bytes(), compresslevel=6, mtime=0)
        with self._lock:
            self.compressions += 1
        if kept is not None:
            with contextlib.suppress(OSError):  # a read-only cache: compressed again next time
                kept.parent.mkdir(parents=True, exist_ok=True)
                atomic_write(kept, data, sync=False)
        return data

    async def _load_once(self, relative: str) -> tuple[bytes, bytes, bool] | None:
        """:meth:`_load` in a worker thread (the loop goes on meanwhile), once for every
        request that asks for ``relative`` while it runs."""
        loading = self._loading.get(relative)
        if loading is None:
            import anyio.to_thread

            loading = asyncio.ensure_future(anyio.to_thread.run_sync(self._load, relative))
            self._loading[relative] = loading

            def finished(done: asyncio.Future[Any]) -> None:
                if self._loading.get(relative) is done:
                    del self._loading[relative]

            loading.add_done_callback(finished)
        # shield: a browser that goes away cancels its own wait, not the others' load.
        return await asyncio.shield(loading)

    @staticmethod
    def _headers(scope: _Scope) -> dict[bytes, bytes] | None:
        """The request's headers, or None when Streamlit's handler must answer it (a
        ranged or conditional request: it answers 206 and 304)."""
        headers = {k.lower(): v for k, v in scope.get("headers", [])}
        if any(h in headers for h in (b"range", b"if-none-match", b"if-modified-since")):
            return None
        return headers

    @staticmethod
    async def _send(
        scope: _Scope, send: _Send, entry: tuple[bytes, bytes, bool], headers: dict[bytes, bytes]
    ) -> bool:
        """Send ``entry``; False (nothing sent) when the browser does not take gzip."""
        content_type, body, compressed = entry
        if compressed and b"gzip" not in headers.get(b"accept-encoding", b""):
            return False
        out = [(b"content-type", content_type), (b"cache-control", IMMUTABLE),
               (b"content-length", str(len(body)).encode())]  # fmt: skip
        if compressed:
            out += [(b"content-encoding", b"gzip"), (b"vary", b"Accept-Encoding")]
        await send({"type": "http.response.start", "status": 200, "headers": out})
        head = scope["method"] == "HEAD"
        await send({"type": "http.response.body", "body": b"" if head else body})
        return True

    async def __call__(self, scope: _Scope, receive: _Receive, send: _Send) -> None:
        relative = self._relative(scope)
        headers = None if relative is None else self._headers(scope)
        if relative is None or headers is None:
            await self.inner(scope, receive, send)
            return
        entry = self.kept.get(relative)
        if entry is None:
            entry = await self._load_once(relative)
        if entry is None or not await self._send(scope, send, entry, headers):
            await self.inner(scope, receive, send)

    async def answer_kept(self, scope: _Scope, path: str, send: _Send) -> bool:
        """Send the kept bundle at ``path`` (the request's path without the server's base
        path) when there is one to send, or one being read; False: nothing was sent
        (:class:`KeptFirst`)."""
        if not path.startswith("/static/"):
            return False
        relative = path[len("/static/") :]
        loading = self._loading.get(relative)
        if relative not in self.kept and loading is None:
            return False
        headers = self._headers(scope)
        if headers is None:
            return False
        # Being read for an earlier ask, which went through every layer: a classroom's
        # browsers ask for each bundle at once, and all but the first wait for it here.
        entry = self.kept.get(relative)
        if entry is None and loading is not None:
            entry = await asyncio.shield(loading)
        return entry is not None and await self._send(scope, send, entry, headers)


class KeptFirst:
    """The server's whole application ``app``, with the bundles :class:`GzipStatic` already
    keeps sent before any of it.

    A first page load asks for about 140 bundles, and each request went through Starlette's
    error and exception layers, Streamlit's path checks, sessions and gzip middleware, and
    its router's dozen routes before :class:`GzipStatic` answered it: about half of the
    server loop's time for a classroom visitor (docs/app.md, section 11). A kept bundle
    is a file that :meth:`GzipStatic._load` has read under Streamlit's static folder, by
    a path made only of plain names, so those layers have nothing to check or add for it.
    Any other request, and the first ask for each bundle, goes through all of them; asks
    that come while that first one is read wait for it here."""

    def __init__(self, app: _App, static: GzipStatic, base_url_path: str) -> None:
        self.app = app
        self.static = static
        base = base_url_path.strip("/")
        self.base = f"/{base}" if base else ""

    async def __call__(self, scope: _Scope, receive: _Receive, send: _Send) -> None:
        if scope.get("type") == "http" and scope.get("method") in ("GET", "HEAD"):
            path = str(scope.get("path", ""))
            if path.startswith(self.base + "/static/") and await self.static.answer_kept(
                scope, path[len(self.base) :], send
            ):
                return
        await self.app(scope, receive, send)


def gz_cache(directory: Path) -> Path | None:
    """Where the bundles of ``directory`` are kept compressed: beside it, when it is a
    folder :func:`static_dir` made (never inside Streamlit's own)."""
    try:
        made = MARK in (directory / "index.html").read_text(encoding="utf-8")
    except OSError:
        return None
    return directory.with_name(directory.name + "-gz") if made else None


def install_gzip_static() -> bool:
    """Wrap each static file handler Streamlit makes in :class:`GzipStatic`, and the
    application it serves in :class:`KeptFirst` (False: this Streamlit makes them
    elsewhere, and its own handler serves everything as before)."""
    try:
        from streamlit.web.server.starlette import starlette_server as server
        from streamlit.web.server.starlette import starlette_static_routes as routes
    except ImportError:
        return False
    make = getattr(routes, "create_streamlit_static_handler", None)
    make_app = getattr(server, "create_starlette_app", None)
    if make is None or make_app is None:
        return False
    made: list[GzipStatic] = []

    def wrapped(directory: str, base_url: str | None) -> Any:
        static = GzipStatic(make(directory, base_url), directory, gz_cache(Path(directory)))
        made.append(static)
        return static

    def whole(runtime: Any) -> Any:
        made.clear()
        app = make_app(runtime)
        if len(made) != 1:  # not one static folder as we know it: the app as it is
            return app
        from streamlit import config

        return KeptFirst(app, made[0], str(config.get_option("server.baseUrlPath") or ""))

    routes.create_streamlit_static_handler = wrapped
    server.create_starlette_app = whole  # type: ignore[attr-defined]  # the name its server calls
    return True


def watch_no_config() -> bool:
    """Streamlit polls each ``config.toml`` it could read (the user's and the folder's)
    five times a second from its own threads, whatever ``server.fileWatcherType`` says.
    A served app watches no files (sgpe_explorer/app/launch.py): with that setting at
    "none" the polling is not started, and an edited config.toml takes effect at the next
    start. Any other setting keeps Streamlit's watchers. In a classroom the polling
    threads took 0.03-0.06 CPU-s per visitor (docs/app.md, section 11). False: this
    Streamlit starts its watchers elsewhere, and they run as before."""
    try:
        from streamlit.web import bootstrap
    except ImportError:
        return False
    install = getattr(bootstrap, "_install_config_watchers", None)
    if install is None:
        return False

    def when_watched(flag_options: dict[str, Any]) -> None:
        from streamlit import config

        if config.get_option("server.fileWatcherType") != "none":
            install(flag_options)

    bootstrap._install_config_watchers = when_watched
    return True


#: Streamlit's loggers that warn about a cache or a spinner used before its server runs
#: ("No runtime found", "missing ScriptRunContext"): :func:`prepare` does both on purpose.
_BEFORE_RUNTIME = (
    "streamlit.runtime.caching.cache_data_api",
    "streamlit.runtime.scriptrunner_utils.script_run_context",
)


def prepare() -> None:
    """:func:`sgpe_explorer.ui.resources.prepare_server`, before the server listens, with
    Streamlit's warnings about doing so left out of the log (the caches and spinners
    find the runtime when a page first calls them)."""
    import logging

    import streamlit  # noqa: F401  # its loggers exist, and keep the levels set here

    loggers = [logging.getLogger(name) for name in _BEFORE_RUNTIME]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.ERROR)
    try:
        # The pages' helpers and their libraries, imported here: resources may not
        # import them (tests/test_import_graph.py, no cycles).
        from sgpe_explorer.ui import analysis, downloads, resources, train_form, vocabulary  # noqa: F401

        resources.prepare_server()
    finally:
        for logger, level in zip(loggers, levels):
            logger.setLevel(level)


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
    install_gzip_static()
    watch_no_config()
    prepare()
    sys.argv = ["streamlit", *sys.argv[1:]]
    cli.main()


if __name__ == "__main__":
    main()

"""`sgpe app`'s static files (sgpe_explorer/app/serve.py, GzipStatic): Streamlit's
bundles are sent from memory, text gzip-compressed once, to a browser that accepts gzip;
everything else is Streamlit's own handler's answer. Driven through the ASGI interface of
Streamlit's real static handler over its real static folder (docs/app.md, section 11)."""

from __future__ import annotations

import asyncio
import gzip
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("streamlit")

from streamlit import file_util
from streamlit.web.server.starlette import starlette_static_routes as routes

from sgpe_explorer.app import serve

GZIP = [("accept-encoding", "gzip, deflate, br")]


def call(
    app: Any, path: str, headers: list[tuple[str, str]] = GZIP
) -> tuple[int, dict[str, str], bytes]:
    return asyncio.run(acall(app, path, headers))


async def acall(
    app: Any, path: str, headers: list[tuple[str, str]] = GZIP
) -> tuple[int, dict[str, str], bytes]:
    scope = {"type": "http", "method": "GET", "path": path, "raw_path": path.encode(),
             "root_path": "", "query_string": b"", "scheme": "http", "http_version": "1.1",
             "server": ("127.0.0.1", 80), "client": ("127.0.0.1", 5000),
             "headers": [(k.encode(), v.encode()) for k, v in headers]}  # fmt: skip
    sent: list[dict[str, Any]] = []

    asked: list[int] = []

    async def receive() -> dict[str, Any]:
        # The request once; then, as a real client that stays, nothing until the
        # response is sent (Starlette listens for a disconnect meanwhile).
        asked.append(1)
        if len(asked) > 1:
            await asyncio.Event().wait()
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Any) -> None:
        sent.append(dict(message))

    await app(scope, receive, send)
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], {k.decode().lower(): v.decode() for k, v in start["headers"]}, body


@pytest.fixture(scope="module")
def static(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = Path(file_util.get_static_dir())
    return serve.static_dir(source, "", cache=tmp_path_factory.mktemp("static"))


def handler(static: Path) -> serve.GzipStatic:
    return serve.GzipStatic(routes.create_streamlit_static_handler(str(static), None), static)


def test_a_bundle_is_sent_gzipped_and_compressed_once(static: Path) -> None:
    app = handler(static)
    js = sorted((static / "static" / "js").glob("*.js"), key=lambda p: -p.stat().st_size)[0]
    path = f"/static/js/{js.name}"
    status, headers, body = call(app, path)
    assert status == 200
    assert headers["content-encoding"] == "gzip"
    assert headers["content-type"].startswith("text/javascript")
    assert headers["cache-control"] == "public, immutable, max-age=31536000"
    assert gzip.decompress(body) == js.read_bytes()
    assert len(body) < js.stat().st_size / 2
    assert app.reads == 1
    again = call(app, path)
    assert again == (status, headers, body)
    assert app.reads == 1  # kept: not read nor compressed again
    # A browser that does not take gzip gets Streamlit's own answer: the file as it is.
    status, headers, body = call(app, path, [])
    assert status == 200 and "content-encoding" not in headers
    assert body == js.read_bytes()


def test_a_bundle_asked_for_by_many_at_once_is_compressed_once(static: Path) -> None:
    """A classroom's first page loads: twenty browsers ask for the same bundles at the same
    moment, and each bundle is read and compressed once, not once per browser."""
    app = handler(static)
    js = sorted((static / "static" / "js").glob("*.js"), key=lambda p: -p.stat().st_size)[:2]
    paths = [f"/static/js/{p.name}" for p in js] * 20

    async def everyone() -> list[tuple[int, dict[str, str], bytes]]:
        return list(await asyncio.gather(*(acall(app, p) for p in paths)))

    answers = asyncio.run(everyone())
    assert app.reads == 2
    for path, (status, headers, body) in zip(paths, answers, strict=True):
        assert status == 200 and headers["content-encoding"] == "gzip"
        assert gzip.decompress(body) == (static / path.lstrip("/")).read_bytes()
    assert app._loading == {}


def test_a_new_server_process_takes_the_compressed_bundles_an_earlier_one_kept(
    static: Path,
) -> None:
    """Bundles compressed once are kept beside the folder static_dir made, keyed by each
    file's size and mtime; a handler over Streamlit's own folder keeps nothing."""
    js = sorted((static / "static" / "js").glob("*.js"), key=lambda p: -p.stat().st_size)[0]
    path = f"/static/js/{js.name}"
    cache = serve.gz_cache(static)
    assert cache == static.with_name(static.name + "-gz")
    assert serve.gz_cache(Path(file_util.get_static_dir())) is None
    make = routes.create_streamlit_static_handler
    first = serve.GzipStatic(make(str(static), None), static, cache)
    answer = call(first, path)
    assert first.compressions == 1 and gzip.decompress(answer[2]) == js.read_bytes()
    (kept,) = (cache / "js").glob(f"{js.name}.*.gz")
    stat = js.stat()
    assert kept.name == f"{js.name}.{stat.st_size}-{stat.st_mtime_ns}.gz"
    second = serve.GzipStatic(make(str(static), None), static, cache)
    assert call(second, path) == answer and second.compressions == 0 and second.reads == 1


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX owners and modes")
def test_a_static_folder_another_user_could_write_is_not_served(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What static_dir makes is sent to every visitor: it is made in a folder of this
    user's alone, never in one someone else made or can write to."""
    source = Path(file_util.get_static_dir())
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    made = serve.static_dir(source, "")
    assert made.parent == tmp_path / f"sgpe-explorer-static-{os.getuid()}"
    assert made.parent.stat().st_mode & 0o077 == 0
    assert marked(made)
    shared = tmp_path / "shared"
    shared.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(shared))
    open_to_all = shared / f"sgpe-explorer-static-{os.getuid()}"
    open_to_all.mkdir()
    open_to_all.chmod(0o777)
    assert serve.static_dir(source, "") == source  # Streamlit's own folder, as it is
    assert list(open_to_all.iterdir()) == []


def marked(folder: Path) -> bool:
    return serve.MARK in (folder / "index.html").read_text(encoding="utf-8")


def test_fonts_are_sent_from_memory_as_they_are(static: Path) -> None:
    app = handler(static)
    font = sorted((static / "static" / "media").glob("*.woff2"))[0]
    status, headers, body = call(app, f"/static/media/{font.name}")
    assert (status, headers["content-type"], body) == (200, "font/woff2", font.read_bytes())
    assert "content-encoding" not in headers
    assert app.reads == 1


def test_other_requests_get_streamlits_answer_and_nothing_is_kept(static: Path) -> None:
    app = handler(static)
    inner = routes.create_streamlit_static_handler(str(static), None)
    for path in ["/static/js/no-such-bundle.js", "/static/../index.html",
                 "/static/js/.hidden.js", "/", "/compare", "/manifest.json"]:  # fmt: skip
        assert call(app, path) == call(inner, path), path
    assert app.reads == 0 and app.kept == {}
    # A conditional request is Streamlit's too (its handler answers 304).
    js = sorted((static / "static" / "js").glob("*.js"))[0]
    _, headers, _ = call(inner, f"/static/js/{js.name}")
    status, _, body = call(
        app, f"/static/js/{js.name}", [*GZIP, ("if-none-match", headers["etag"])]
    )
    assert (status, body) == (304, b"")
    assert app.reads == 0


def test_a_kept_bundle_is_sent_before_the_application(static: Path) -> None:
    """KeptFirst: a bundle GzipStatic keeps is sent without entering the application (its
    middleware and router); everything else, and the first ask, goes through it."""
    gz = handler(static)
    entered: list[str] = []

    async def application(scope: Any, receive: Any, send: Any) -> None:
        entered.append(scope["path"])
        await gz(scope, receive, send)

    app = serve.KeptFirst(application, gz, "")
    js = sorted((static / "static" / "js").glob("*.js"), key=lambda p: -p.stat().st_size)[0]
    path = f"/static/js/{js.name}"
    first = call(app, path)
    assert entered == [path] and gz.reads == 1  # the first ask: through the application
    assert call(app, path) == first and entered == [path]  # kept: sent before it
    status, headers, body = first
    assert (status, headers["content-encoding"]) == (200, "gzip")
    assert gzip.decompress(body) == js.read_bytes()
    # Through the application: no gzip, a conditional request, another path.
    assert call(app, path, [])[2] == js.read_bytes()
    call(app, path, [*GZIP, ("if-none-match", '"x"')])
    call(app, "/compare")
    assert entered == [path, path, path, "/compare"]
    # Asks that come while the first is read wait for it, not through the application.
    other = sorted((static / "static" / "js").glob("*.js"))[1]
    many = f"/static/js/{other.name}"

    async def classroom() -> list[tuple[int, dict[str, str], bytes]]:
        return list(await asyncio.gather(*(acall(app, many) for _ in range(20))))

    answers = asyncio.run(classroom())
    assert entered[-1:] == [many] and entered.count(many) == 1 and gz.reads == 2
    assert {gzip.decompress(a[2]) for a in answers} == {other.read_bytes()}
    entered.remove(many)
    # Under a base path only its own bundles are sent first.
    based = serve.KeptFirst(application, gz, "/class/")
    assert call(based, f"/class{path}") == first and len(entered) == 4
    call(based, path)
    assert entered[-1] == path


def test_the_server_is_built_with_it(static: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`sgpe app` (serve.main) wraps the handler Streamlit mounts for its static folder,
    and the application its server serves."""
    from starlette.applications import Starlette
    from streamlit.web.server.starlette import starlette_server

    monkeypatch.setattr(routes, "create_streamlit_static_handler", routes.create_streamlit_static_handler)  # fmt: skip
    monkeypatch.setattr(file_util, "get_static_dir", lambda: str(static))

    def app_with_static(runtime: Any) -> Starlette:  # its static part, as Streamlit builds it
        return Starlette(routes=routes.create_streamlit_static_assets_routes(None))

    monkeypatch.setattr(starlette_server, "create_starlette_app", app_with_static)
    assert serve.install_gzip_static()
    app = starlette_server.create_starlette_app(None)
    assert isinstance(app, serve.KeptFirst)
    (mount,) = app.app.routes
    assert getattr(mount, "app", None) is app.static
    js = sorted((static / "static" / "js").glob("*.js"))[0]
    status, _, body = call(app, f"/static/js/{js.name}")
    assert (status, gzip.decompress(body)) == (200, js.read_bytes()) and app.static.reads == 1


@pytest.mark.parametrize("watcher", ["none", "poll"])
def test_config_files_are_polled_only_when_files_are_watched(
    watcher: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Streamlit 1.67 polls each config.toml five times a second, whatever
    server.fileWatcherType says; `sgpe app` (fileWatcherType "none") starts no polling,
    and any other setting keeps Streamlit's watchers (its own install, called as it is)."""
    from streamlit import config
    from streamlit.testing.v1.util import patch_config_options
    from streamlit.web import bootstrap

    watched: list[str] = []
    monkeypatch.setattr(bootstrap, "_install_config_watchers", bootstrap._install_config_watchers)
    # What Streamlit's install calls for each file: recorded, so no thread polls after the test.
    monkeypatch.setattr(bootstrap, "watch_file", lambda path, *a, **k: watched.append(path))
    assert serve.watch_no_config()
    with patch_config_options({"server.fileWatcherType": watcher}):
        bootstrap._install_config_watchers({})
    expected = config.get_config_files("config.toml") if watcher != "none" else []
    assert watched == expected and (watcher == "none" or len(watched) == 2)


@pytest.mark.skipif(os.name == "nt", reason="uvloop has no Windows build (pyproject.toml)")
def test_the_server_loop_and_its_http_parser_are_the_compiled_ones() -> None:
    """The extra `app` installs uvloop and httptools, and the server takes them: its
    event loop from Streamlit's bootstrap (uvloop's when it can be made, Streamlit
    1.67), its HTTP parser from uvicorn's "auto". In pure Python, the loop's own work and
    the parsing of ~140 bundle requests a page load were much of a classroom visitor's
    server loop (docs/app.md, section 11)."""
    import uvloop
    from streamlit.web import bootstrap
    from uvicorn.config import Config

    factory = bootstrap._get_uvloop_loop_factory()
    assert factory is not None
    loop = factory()
    try:
        assert isinstance(loop, uvloop.Loop)
    finally:
        loop.close()
    config = Config(app=lambda scope, receive, send: None, http="auto")
    config.load()
    assert config.http_protocol_class.__module__ == "uvicorn.protocols.http.httptools_impl"

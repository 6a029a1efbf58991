"""Files written whole: a reader (or a ``kill -9``) sees the old file or the new one, never
half a file (:func:`atomic_write`, :func:`write_text_atomic`); :func:`write_folder_atomic`
does the same for a directory of files; :func:`file_sha256` checks a file whole.
"""

from __future__ import annotations

import contextlib
import errno
import os
import threading
from pathlib import Path


def atomic_write(
    path: str | Path, data: bytes, *, keep_previous: Path | None = None, sync: bool = True
) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the new one.

    The temp file sits next to the target (``.<name>.<pid>.<thread>.<random>.tmp``, so a
    run directory can tell a dead writer's leftovers from its own) and is created with
    mode 0644 under the umask, like any new file. With ``keep_previous`` the old file is
    kept there too (see :func:`_keep_as`); the new file is complete and synced before
    anything is renamed, so at every moment ``path`` holds the old file or the new one. Errors name ``path``, never the temp file.
    """
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a directory; give a file path", str(path))
    tmp = path.with_name(
        f".{path.name}.{os.getpid()}.{threading.get_ident()}.{os.urandom(3).hex()}.tmp"
    )
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except OSError as err:
        raise OSError(err.errno, f"cannot write here: {err.strerror}", str(path)) from None
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if sync:
                os.fsync(fd)
        finally:
            os.close(fd)
        if keep_previous is not None and path.exists():
            _keep_as(path, keep_previous)
        os.replace(tmp, path)
    except BaseException as err:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(err, OSError) and err.filename != str(path):  # e.g. ENOSPC mid-write
            raise OSError(err.errno, err.strerror, str(path)) from err
        raise


def _keep_as(path: Path, keep: Path) -> None:
    """Give the current ``path`` the name ``keep`` as well, without ever leaving ``path``
    missing: a hard link under a temp name, renamed over ``keep``. A reader (or a resume
    after a kill) then always finds ``path``, old or new. Where the file system has no hard
    links the old file is moved instead, and ``path`` is missing only until the next rename.
    """
    link = keep.with_name(f".{keep.name}.{os.getpid()}.{os.urandom(3).hex()}.tmp")
    try:
        os.link(path, link)
    except OSError:
        os.replace(path, keep)
        return
    try:
        os.replace(link, keep)
    finally:
        # Where ``keep`` already names the same file (a write killed before its last
        # rename), the rename does nothing and leaves ``link``: remove that extra name.
        with contextlib.suppress(OSError):
            os.unlink(link)


def write_text_atomic(path: str | Path, text: str) -> None:
    """:func:`atomic_write` of UTF-8 text (newlines written as they are)."""
    atomic_write(path, text.encode("utf-8"))


def write_folder_atomic(path: str | Path, files: dict[str, bytes]) -> None:
    """Write a directory of ``files`` (name -> bytes) so that readers see the old
    directory or the new one, never a half-written one.

    The files go into a temp directory next to ``path`` (``.<name>.<pid>.<random>.tmp``,
    created under the umask like any new directory), each synced, and the directory is
    renamed into place. An existing ``path`` (empty, or one the caller decided may be
    replaced) is first renamed aside and removed after the new one is in place; between
    the two renames ``path`` briefly does not exist. On any error the temp directory is
    removed and ``path`` is as it was.
    """
    import shutil

    path = Path(path)
    for name in files:
        if not name or "/" in name or "\\" in name or name in (".", ".."):
            raise ValueError(f"{name!r}: a folder file name must be a plain name")
    parent = path.parent
    tag = f"{os.getpid()}.{os.urandom(3).hex()}"
    tmp = parent / f".{path.name}.{tag}.tmp"
    try:
        os.mkdir(tmp, 0o777)
    except OSError as err:
        raise OSError(err.errno, f"cannot write here: {err.strerror}", str(path)) from None
    old = parent / f".{path.name}.{tag}.old"
    try:
        for name, data in sorted(files.items()):
            atomic_write(tmp / name, data)
        if path.exists():
            os.replace(path, old)
            try:
                os.replace(tmp, path)
            except BaseException:
                os.replace(old, path)
                raise
            shutil.rmtree(old)
        else:
            os.replace(tmp, path)
    except BaseException as err:
        with contextlib.suppress(OSError):
            shutil.rmtree(tmp)
        if isinstance(err, OSError) and err.filename not in (str(path), None):
            raise OSError(err.errno, err.strerror, str(path)) from err
        raise


def file_sha256(path: str | Path) -> str:
    """Hex sha256 of a file's bytes, read in 1 MiB blocks."""
    import hashlib  # here: loading OpenSSL is a share of starting every command

    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()

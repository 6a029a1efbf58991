"""What a run directory needs from the operating system and gets differently on each: an
exclusive lock of a file taken without waiting (:func:`try_lock`), and whether a process
exists (:func:`process_exists`).

Each system's module is imported inside the function that uses it (``fcntl`` exists only
on POSIX systems, ``msvcrt`` only on Windows), so importing the library and ``sgpe train``
work on both (tests/test_import_graph.py and tests/test_cli.py check it).
"""

from __future__ import annotations

import os
import sys


def try_lock(fd: int) -> bool | None:
    """Take an exclusive lock of the open file ``fd`` if no other open file holds one
    (True), else leave it (False); never waits. Closing ``fd`` releases the lock, and a
    process that dies releases its locks with it.

    POSIX: ``flock(2)`` of the whole file. Windows: ``msvcrt.locking`` of the file's first
    byte, the same byte for every caller (a lock may lie beyond the end of the file, so an
    empty lock file will do). None where the system has neither (nothing is locked): a
    reader then goes by the trainer's pid and heartbeat alone, the rule of
    :func:`~sgpe.runs.status.read_status` for a run without a lock file.
    """
    try:
        import fcntl
    except ImportError:
        if sys.platform == "win32":
            import msvcrt

            os.lseek(fd, 0, os.SEEK_SET)  # locking() locks from the current position
            try:
                msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            except OSError:  # held by another open file (EACCES or EDEADLOCK)
                return False
            return True
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def unlock(fd: int) -> None:
    """Release the lock :func:`try_lock` took on ``fd``. Windows asks for this before the
    file is closed (it releases a closed file's locks only eventually); on POSIX, closing
    does it at once, and this only makes the release explicit."""
    try:
        import fcntl
    except ImportError:
        if sys.platform == "win32":
            import msvcrt

            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        return
    fcntl.flock(fd, fcntl.LOCK_UN)


def process_exists(pid: int) -> bool:
    """Whether a process ``pid`` exists (a zombie too: see :func:`sgpe.runs.status.pid_alive`).

    POSIX: ``kill(pid, 0)``, which sends nothing. Not on Windows: there ``os.kill`` calls
    ``TerminateProcess`` for any signal but the two console events, so ``os.kill(pid, 0)``
    would end the process it asks about. Windows is asked instead whether the process is
    still running (``OpenProcess``, then ``GetExitCodeProcess`` = ``STILL_ACTIVE``).
    """
    if sys.platform == "win32":
        import ctypes

        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
        query_limited_information = 0x1000
        still_active = 259
        handle = kernel32.OpenProcess(query_limited_information, False, pid)
        if not handle:
            # ERROR_ACCESS_DENIED: it exists, but belongs to someone we may not ask
            return ctypes.get_last_error() == 5
        try:
            code = ctypes.c_ulong()
            if not kernel32.GetExitCodeProcess(handle, ctypes.byref(code)):
                return True  # it exists; whether it still runs is unknown
            return code.value == still_active
        finally:
            kernel32.CloseHandle(handle)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, but belongs to another user
    return True

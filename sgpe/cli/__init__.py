"""The command line: ``python -m sgpe {syllabify,train,count,encode,decode,eval,export}``.

The commands and their flags are a stable contract (scripts and benchmarks call them);
``docs/architecture.md`` lists them with the files they read and write.

Text goes through stdin/stdout as UTF-8 whatever the locale. Input lines are split on
``\\n`` only (a trailing ``\\r`` is part of the line); each input line gives one output
line. Errors are one line on stderr, ``sgpe: error: ...``, with exit code 2 for bad usage
or bad input and 1 for anything else; set ``SGPE_DEBUG=1`` to see the traceback of an
unexpected error.

``train`` writes a run directory (see :mod:`sgpe.runs`) and reports progress on stderr: a
progress bar when stderr is a terminal, else a log line every 2 seconds. This module only
parses arguments and moves text; the work is done by the library.

The package holds one module per group of commands: ``commands.py`` (the text commands),
``train.py`` (``count`` and ``train``), ``parser.py`` (every command's flags) and
``_common.py`` (what they share); ``main`` is here.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from ._common import UsageError
from .parser import COMMANDS, _shipped_by_name, build_parser, launch_app

__all__ = ["UsageError", "build_parser", "main", "run"]


def run() -> NoReturn:
    """The ``sgpe`` command (the installed script and ``python -m sgpe``): :func:`main`, then
    exit with its code.

    ``train`` ends once its output is flushed, without Python's teardown. Every file of the
    run is written, synced and closed by then (the status last), and no thread is left that
    still works; the teardown would free every object and module one by one, pyarrow's and
    numpy's included (the word counts' table loads them): about 0.1 s of a 1.5 s run,
    longer than anything the run does after its vocabulary is written. ``main`` called in
    a process of the caller's own (the tests, the explorer) returns as usual."""
    code = main()
    if sys.argv[1:2] == ["train"]:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):
            raise SystemExit(code) from None  # a closed or broken stream: Python reports it
        os._exit(code)
    raise SystemExit(code)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code (0 success, 2 usage/input, 1 failure)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["app"] and not {"-h", "--help"} & set(args_list[1:]):
        return launch_app(args_list[1:])
    parser = build_parser(args_list[0] if args_list[:1] and args_list[0] in COMMANDS else None)
    try:
        args = parser.parse_args(args_list)
    except SystemExit as stop:  # --help, --version, or an argparse usage error
        return stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 2)
    try:
        _shipped_by_name(args)
        return int(args.func(args))
    except UsageError as err:
        return _error(str(err), 2)
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except (FileNotFoundError, IsADirectoryError, PermissionError) as err:
        return _error(f"{err.filename}: {err.strerror}" if err.filename else str(err), 2)
    except OSError as err:
        return _error(str(err), 1)
    except Exception as err:
        if isinstance(err, _input_errors()):
            return _error(str(err), 2)
        if os.environ.get("SGPE_DEBUG"):
            raise
        return _error(
            f"internal error: {type(err).__name__}: {err} (set SGPE_DEBUG=1 for details)", 1
        )


def _input_errors() -> tuple[type[Exception], ...]:
    """The errors of bad input that only loaded modules raise: CorpusError when the corpus
    readers are loaded, RunError when the run modules are. Commands that never read a
    corpus or touch a run do not import them (a share of starting every command)."""
    found: list[type[Exception]] = []
    for module_name, name in (
        ("sgpe.corpus.readers", "CorpusError"),
        ("sgpe.runs.constants", "RunError"),
    ):
        module = sys.modules.get(module_name)
        if module is not None:
            found.append(getattr(module, name))
    return tuple(found)


def _error(message: str, code: int) -> int:
    print(f"sgpe: error: {message}", file=sys.stderr)
    return code

"""What every command shares: the one-line usage error, stdin and stdout as UTF-8 lines,
and the vocabulary a command reads (``--vocab`` or ``--meta``)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, NoReturn

from .._text import split_lines


class UsageError(Exception):
    """Bad arguments or bad input: reported as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    """argparse with our one-line error format (subcommand parsers inherit it)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"sgpe: error: {message} (see: {self.prog} --help)\n")


# ============================================================================ I/O helpers


def _stdin_bytes() -> IO[bytes]:
    stream = sys.stdin
    buffer = getattr(stream, "buffer", None)
    if buffer is not None:
        return buffer  # type: ignore[no-any-return]
    import io

    return io.BytesIO(stream.read().encode("utf-8"))


def _stdout_bytes() -> IO[bytes]:
    sys.stdout.flush()
    buffer: IO[bytes] | None = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        raise RuntimeError("stdout has no binary buffer")
    return buffer


def _input_lines() -> Iterator[tuple[int, str]]:
    """(line number, text) for each line of stdin, split on ``\\n`` only, strict UTF-8."""
    for number, raw in enumerate(_stdin_bytes(), start=1):
        if raw.endswith(b"\n"):
            raw = raw[:-1]
        try:
            yield number, raw.decode("utf-8")
        except UnicodeDecodeError as err:
            raise UsageError(
                f"stdin line {number}, byte {err.start + 1}: not valid UTF-8 ({err.reason}); "
                "the input must be UTF-8 text"
            ) from None


def _emit_lines(lines: Iterator[str]) -> int:
    out = _stdout_bytes()
    for line in lines:
        out.write(line.encode("utf-8") + b"\n")
    out.flush()
    return 0


def _json_line(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _load_vocab(path: str) -> Any:
    from .. import load

    try:
        return load(path)
    except ValueError as err:
        raise UsageError(str(err)) from None


def _load_tokenizer(args: argparse.Namespace) -> Any:
    """The tokenizer of --vocab, or the meta-vocabulary of --meta."""
    if getattr(args, "meta", None):
        from ..interop.meta import MetaTokenizer

        try:
            return MetaTokenizer.load(args.meta)
        except (ValueError, ImportError) as err:
            raise UsageError(str(err)) from None
    return _load_vocab(args.vocab)


def _vocab_file(path: str) -> str:
    """The vocabulary file behind --vocab: the file itself, or a tokenizer folder's
    sgpe_vocab.json (for commands that hash or reopen the file, not only load it)."""
    from ..interop.hf_folder import vocabulary_file

    try:
        return str(vocabulary_file(path))
    except ValueError as err:
        raise UsageError(str(err)) from None


def _read_text_lines(path: Path) -> list[str]:
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise UsageError(f"{path}: line {line}: not valid UTF-8 ({err.reason})") from None
    return split_lines(text)

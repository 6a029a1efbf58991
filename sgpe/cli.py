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
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, NoReturn

from ._files import parse_json, split_lines
from .corpus import SUPPORTED_SUFFIXES, CorpusError, iter_documents
from .interop.hf_folder import ROLES as _ROLES  # one --ROLE flag each
from .settings import (
    ENCODE_HELP,
    choices,
    cli_flag,
    count_fields,
    default,
    default_text,
    info,
    settings_fields,
)


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
    from . import load

    try:
        return load(path)
    except ValueError as err:
        raise UsageError(str(err)) from None


def _load_tokenizer(args: argparse.Namespace) -> Any:
    """The tokenizer of --vocab, or the meta-vocabulary of --meta."""
    if getattr(args, "meta", None):
        from .interop.meta import MetaTokenizer

        try:
            return MetaTokenizer.load(args.meta)
        except (ValueError, ImportError) as err:
            raise UsageError(str(err)) from None
    return _load_vocab(args.vocab)


# ============================================================================ commands


def _cmd_syllabify(args: argparse.Namespace) -> int:
    from .syllables import get_syllabifier

    try:
        split = get_syllabifier(args.script, args.leading_space)
    except ValueError as err:
        raise UsageError(str(err)) from None
    return _emit_lines(_json_line(split(line)) for _, line in _input_lines())


#: The counting options batch encoding takes (it reads a corpus the same way).
ENCODE_OPTIONS = ("workers", "backend", "scheduler")


def _cmd_encode(args: argparse.Namespace) -> int:
    if args.corpus is not None or args.out is not None:
        return _encode_corpus(args)
    for flag in ENCODE_OPTIONS:
        if getattr(args, flag) is not None:
            raise UsageError(f"--{flag}: only with --corpus and --out")
    if args.resume:
        raise UsageError("--resume: only with --corpus and --out")
    tok = _load_tokenizer(args)
    encode: Callable[[str], list[Any]] = tok.tokenize if args.tokens else tok.encode
    return _emit_lines(_json_line(encode(line)) for _, line in _input_lines())


def _encode_corpus(args: argparse.Namespace) -> int:
    """``encode --corpus C --out F``: the whole corpus to a token-id file, on all cores."""
    from .corpus.encoding import encode_corpus, is_per_file, manifest_path

    if args.corpus is None or args.out is None:
        raise UsageError("batch encoding needs both --corpus and --out")
    if args.meta or args.tokens:
        raise UsageError("--meta and --tokens: only for stdin encoding, not with --corpus")
    options = _count_options(args, _encode_fields())
    args.vocab = _vocab_file(args.vocab)  # a tokenizer folder: its checked sgpe_vocab.json
    tok = _load_vocab(args.vocab)  # a bad vocab.json is a usage error before any work starts
    stderr = sys.stderr
    tty = stderr.isatty()
    last = [0.0]

    def progress(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] < (0.1 if tty else 2.0) and done < total:
            return
        last[0] = now
        share = f"{min(done / total, 1.0):4.0%} " if total else ""
        line = f"encoding: {share}{done / 1e6:,.1f} of {total / 1e6:,.1f} MB"
        stderr.write(f"\r{line}" if tty else f"{time.strftime('%Y-%m-%d %H:%M:%S')} {line}\n")
        stderr.flush()

    docs, tokens = encode_corpus(
        args.vocab,
        args.corpus,
        args.out,
        workers=options.workers,
        backend=options.backend,
        scheduler=options.scheduler,
        progress=progress,
        tokenizer=tok,
        resume=args.resume,
    )
    if tty:
        stderr.write("\n")
    where = f"outputs listed in {manifest_path(args.out)}" if is_per_file(args.out) else args.out
    docs_text = f"{docs:,} document{'' if docs == 1 else 's'}"
    tokens_text = f"{tokens:,} token{'' if tokens == 1 else 's'}"
    print(f"sgpe: encoded {docs_text} into {tokens_text}: {where}", file=stderr)
    return 0


def _cmd_decode(args: argparse.Namespace) -> int:
    tok = _load_tokenizer(args)

    def decoded() -> Iterator[str]:
        for number, line in _input_lines():
            ids = parse_json(
                line,
                f"stdin line {number}",
                hint="each line must be a JSON list of token ids such as [12, 7]",
                one_line=True,
                error=UsageError,
            )
            if not isinstance(ids, list) or not all(type(i) is int for i in ids):
                raise UsageError(
                    f"stdin line {number}: expected a JSON list of integer token ids, got "
                    f"{line[:60]!r}"
                )
            try:
                yield tok.decode(ids)
            except ValueError as err:
                raise UsageError(f"stdin line {number}: {err}") from None

    return _emit_lines(decoded())


def _cmd_eval(args: argparse.Namespace) -> int:
    try:
        from .metrics import evaluate
    except ImportError as err:
        raise RuntimeError(f"eval needs sgpe.metrics, which cannot be imported: {err}") from None
    tok = _load_vocab(args.vocab)
    path = Path(args.text)
    if not path.exists():
        raise UsageError(f"{path}: file not found")
    if path.name.lower().endswith(SUPPORTED_SUFFIXES):
        lines: Iterator[str] = iter_documents(path)
    else:
        lines = iter(_read_text_lines(path))
    result = evaluate(tok, lines, script=args.script)
    out = _stdout_bytes()
    out.write((json.dumps(result, ensure_ascii=False, indent=2) + "\n").encode("utf-8"))
    out.flush()
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    fmt = _export_format(args)
    folder_flags = [
        flag
        for flag, given in [
            ("--special-tokens", args.special_tokens is not None),
            ("--model-max-length", args.model_max_length is not None),
            *((f"--{role.replace('_', '-')}", getattr(args, role) is not None) for role in _ROLES),
        ]
        if given
    ]
    if folder_flags and fmt != "hf-folder":
        raise UsageError(
            f"{folder_flags[0]}: only for a tokenizer folder (--format hf-folder, or an --out "
            "that ends with / or is a directory)"
        )
    tok = _load_vocab(args.vocab)
    if args.cls_sep and fmt == "meta":
        raise UsageError(
            "--cls-sep: only for --format hf or hf-folder (a tokenizer.json post-processor)"
        )
    if fmt == "meta":
        if getattr(tok, "model", None) != "sgpe":
            raise UsageError("--format meta needs an SGPE vocab.json")
        from .interop.meta import MetaTokenizer

        try:
            MetaTokenizer(tok, args.encoding, vocab_path=_vocab_file(args.vocab)).save(args.out)
        except ImportError as err:
            raise UsageError(str(err)) from None
        return 0
    from .interop.hf import ExportError, check_parity, load_hf, save_hf, save_hf_folder

    tokenizer_json = Path(args.out)
    try:
        if fmt == "hf-folder":
            overrides = {
                role: (None if value.lower() == "none" else value)
                for role in _ROLES
                if (value := getattr(args, role)) is not None
            }
            save_hf_folder(
                tok,
                args.out,
                special_tokens=args.special_tokens or "auto",
                overrides=overrides,
                model_max_length=args.model_max_length,
                cls_sep=args.cls_sep,
            )
            tokenizer_json = Path(args.out) / "tokenizer.json"
        else:
            save_hf(tok, args.out, cls_sep=args.cls_sep)
    except (ExportError, ImportError) as err:
        raise UsageError(str(err)) from None
    except ValueError as err:  # a directory that is not empty and not ours, or a file
        raise UsageError(str(err)) from None
    if args.check:
        lines = _read_text_lines(Path(args.check))
        report = check_parity(tok, lines, load_hf(tokenizer_json))
        print(f"parity: {report.lines} lines, {len(report.mismatches)} mismatches", file=sys.stderr)
        return 0 if report.ok else 1
    return 0


def _export_format(args: argparse.Namespace) -> str:
    """--format, or what --out says: a directory (an existing one, or a path ending with
    a slash) is a tokenizer folder, anything else one tokenizer.json."""
    out = str(args.out)
    is_dir = out.endswith(("/", os.sep)) or Path(out).is_dir()
    if args.format is None:
        return "hf-folder" if is_dir else "hf"
    if args.format == "hf" and is_dir:
        raise UsageError(
            f"--format hf writes one tokenizer.json file, but --out {out} is a directory: use "
            "--format hf-folder for a tokenizer folder, or give a file name"
        )
    return str(args.format)


def _vocab_file(path: str) -> str:
    """The vocabulary file behind --vocab: the file itself, or a tokenizer folder's
    sgpe_vocab.json (for commands that hash or reopen the file, not only load it)."""
    from .interop.hf_folder import vocabulary_file

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


# ---------------------------------------------------------------------------- train


class _ProgressBar:
    """A one-line progress bar on a terminal, redrawn at most 10 times a second, and always
    for the first and the last merge (a run of a few hundred merges takes milliseconds: it
    still shows its bar)."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream
        self.shown = False
        self.last = 0.0
        self.phase = ""

    def note(self, message: str) -> None:
        self._clear()
        self.stream.write(f"{message}\n")
        self.stream.flush()

    def progress(self, phase: str, step: int, target: int, rate: float | None) -> None:
        now = time.monotonic()
        steady = phase == "merging" and self.phase == phase and step < target
        if steady and now - self.last < 0.1:
            return
        self.last = now
        self.phase = phase
        width = max(20, shutil.get_terminal_size((80, 20)).columns - 1)
        if phase != "merging" or target <= 0:
            line = f"{phase}..."
        else:
            frac = min(1.0, step / target)
            tail = f" {frac:4.0%} {step:,}/{target:,} merges" + _rate_eta(step, target, rate)
            bar_width = max(10, min(40, width - len(tail) - 2))
            filled = int(frac * bar_width)
            line = "[" + "#" * filled + "." * (bar_width - filled) + "]" + tail
        self.stream.write("\r" + line[:width].ljust(width))
        self.stream.flush()
        self.shown = True

    def _clear(self) -> None:
        if self.shown:
            width = max(20, shutil.get_terminal_size((80, 20)).columns - 1)
            self.stream.write("\r" + " " * width + "\r")
            self.shown = False

    def close(self) -> None:
        self._clear()
        self.stream.flush()


class _ProgressLog:
    """Progress as timestamped log lines (stderr is a file or a pipe): one every 2 s."""

    def __init__(self, stream: IO[str], every: float = 2.0) -> None:
        self.stream = stream
        self.every = every
        self.last = time.monotonic()

    def _write(self, message: str) -> None:
        self.stream.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {message}\n")
        self.stream.flush()

    def note(self, message: str) -> None:
        self._write(message)
        self.last = time.monotonic()

    def progress(self, phase: str, step: int, target: int, rate: float | None) -> None:
        now = time.monotonic()
        if phase != "merging" or now - self.last < self.every:
            return
        self.last = now
        share = f" ({step / target:.0%})" if target > 0 else ""
        self._write(f"merging: {step:,}/{target:,} merges{share}" + _rate_eta(step, target, rate))

    def close(self) -> None:
        self.stream.flush()


def _rate_eta(step: int, target: int, rate: float | None) -> str:
    if not rate:
        return ""
    eta = max(0.0, (target - step) / rate)
    return f", {rate:,.0f} merges/s, ETA {eta:,.0f} s"


def _setting_dest(f: Any) -> str:
    """The argparse destination of a setting's flag (``--oov`` -> ``oov``)."""

    flag = cli_flag(f)
    return flag[2:].replace("-", "_")


def _given_settings(
    args: argparse.Namespace, fields: Sequence[Any] | None = None
) -> dict[str, Any]:
    """The settings given on the command line, as field values (absent flags left out);
    ``fields`` (default: every field of TrainSettings and RunMechanics) are the ones the
    command has flags for."""

    given: dict[str, Any] = {}
    for f in settings_fields() if fields is None else fields:
        value = getattr(args, _setting_dest(f))
        if value is None or (value is False and _is_switch(f)):
            continue
        given[f.name] = (not value) if _is_switch(f) else value
    if getattr(args, "vocab_size", None) is not None:
        given["vocab_size"] = args.vocab_size
    return given


def _is_switch(f: Any) -> bool:

    return cli_flag(f).startswith("--no-")


def _config_from_args(args: argparse.Namespace) -> Any:
    from .runs import RunConfig

    given = _given_settings(args)
    model = given.get("model", default("model"))
    wrong = [
        cli_flag(f) for f in settings_fields() if f.name in given and model not in info(f).models
    ]
    if wrong:
        only = " or ".join(m for m in ("sgpe", "bytebpe") if m != model)
        raise UsageError(f"{', '.join(wrong)}: only for --model {only}")
    try:
        return RunConfig(**given)
    except ValueError as err:
        raise UsageError(str(err)) from None


def _check_resume_flags(args: argparse.Namespace, config: Any) -> None:
    """With --resume the run's config.json rules; a flag that contradicts it is an error."""
    given = _given_settings(args)
    for f in settings_fields():
        if f.name not in given or given[f.name] == getattr(config, f.name):
            continue
        flag = cli_flag(f)
        if _is_switch(f):
            raise UsageError(
                f"{flag} differs from the run's config.json ({f.name.replace('_', ' ')} on)"
            )
        raise UsageError(
            f"{flag} {given[f.name]} differs from the run's config.json "
            f"({getattr(config, f.name)}); a resumed run keeps its settings: omit the flag, or "
            "start a new run with another --out"
        )
    counting = _given_settings(args, count_fields())
    for f in count_fields():  # they never change the vocabulary, but the run records them
        if f.name in counting and counting[f.name] != getattr(config.counting, f.name):
            raise UsageError(
                f"{cli_flag(f)} {counting[f.name]} differs from the run's config.json "
                f"({getattr(config.counting, f.name)}); a resumed run counts as it was started: "
                "omit the flag, or start a new run with another --out"
            )


#: The settings ``count`` takes: how pieces are cut (they decide the counts) and how the
#: corpus is read and counted (they never change the counts).
# superwords_from: with it, count keeps each superword span as one key (sgpe/pieces.py),
# which train --word-counts --superwords-from needs.
PIECE_SETTINGS = (
    "script", "pieces", "leading_space", "prepend_space", "max_piece_units", "superwords_from",
)  # fmt: skip


def _count_options(args: argparse.Namespace, fields: Sequence[Any]) -> Any:
    """The :class:`~sgpe.settings.CountOptions` given on the command line (``fields``: the
    ones the command has flags for)."""
    from .settings import CountOptions

    names = {f.name for f in fields}
    try:
        return CountOptions(
            **{k: v for k, v in _given_settings(args, fields).items() if k in names}
        )
    except ValueError as err:
        raise UsageError(str(err)) from None


def _piece_settings(args: argparse.Namespace) -> Any:
    """The :class:`~sgpe.settings.TrainSettings` that decide how ``count`` cuts pieces."""
    from .settings import MAX_VOCAB_SIZE, TrainSettings

    # Counting never looks at the vocabulary size; the largest lets any --superwords-from
    # through (train checks it against its --vocab-size).
    try:
        return TrainSettings(**_given_settings(args, _piece_fields()), vocab_size=MAX_VOCAB_SIZE)
    except ValueError as err:
        raise UsageError(str(err)) from None


def _piece_fields() -> list[Any]:
    return [f for f in settings_fields() if f.name in PIECE_SETTINGS]


def _encode_fields() -> list[Any]:
    return [f for f in count_fields() if f.name in ENCODE_OPTIONS]


def _cmd_count(args: argparse.Namespace) -> int:
    """``count``: piece counts of a corpus (all cores or a Dask cluster) to a parquet file
    that ``train --word-counts`` reads."""
    from .corpus.counting import count_pieces, write_counts_table

    if not args.out.lower().endswith(".parquet"):
        raise UsageError(f"--out {args.out}: the counts file must end in .parquet")
    counts, info = count_pieces(
        args.corpus, _piece_settings(args), _count_options(args, count_fields())
    )
    write_counts_table(args.out, counts, info)
    print(
        f"sgpe: {len(counts):,} unique pieces of {info.documents:,} documents: {args.out}",
        file=sys.stderr,
    )
    return 0


def _train_from_counts(args: argparse.Namespace) -> int:
    """``train --word-counts FILE``: the merge phase alone, on counts made by any engine;
    writes RUN_DIR/vocab.json (no checkpoints: counting was the long part)."""
    from .corpus.counting import read_counts_table
    from .gpe import GPETrainer, ProgressEvent

    if args.corpus is not None or args.resume:
        raise UsageError("--word-counts replaces --corpus and cannot be resumed; give one of them")
    if args.vocab_size is None:
        raise UsageError("train needs --vocab-size")
    if (args.model or "sgpe") != "sgpe":
        raise UsageError("--word-counts: only for --model sgpe")
    config = _config_from_args(args)
    try:
        config.validate()
        settings = config.train_settings()
    except ValueError as err:
        raise UsageError(str(err)) from None
    out = Path(args.out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UsageError(f"{out} is not empty; choose a new --out")
    counts, info = read_counts_table(args.word_counts)
    spans = any(" " in p[1:] for p in counts)  # sgpe.pieces.is_span, at C speed
    if spans != (settings.superwords_from is not None):
        raise UsageError(
            f"{args.word_counts}: "
            + (
                "counted with superword spans: train it with --superwords-from N"
                if spans
                else "has no superword spans: count the corpus with --superwords-from N"
            )
        )
    trainer = GPETrainer(settings)
    trainer.corpus_info = info
    stderr = sys.stderr
    display: _ProgressBar | _ProgressLog = (
        _ProgressBar(stderr) if stderr.isatty() else _ProgressLog(stderr)
    )

    def progress(event: ProgressEvent) -> None:
        rate = event.step / event.elapsed if event.elapsed > 0 else None
        display.progress("merging", event.step, event.target, rate)

    try:
        display.note(f"training on {len(counts):,} piece counts from {args.word_counts}")
        tok = trainer.fit(counts, progress=progress)
    except ValueError as err:
        raise UsageError(str(err)) from None
    finally:
        display.close()
    out.mkdir(parents=True, exist_ok=True)
    tok.save(out / "vocab.json")
    print(f"sgpe: {tok.vocab_size:,} tokens: {out / 'vocab.json'}", file=stderr)
    return 0


def _cmd_train(args: argparse.Namespace) -> int:
    from .runs import create_run, read_config, relocate_corpus, train_run
    from .runs.manager import validate_corpus
    from .schema import BUILTIN_SCRIPTS

    if args.word_counts is not None:
        return _train_from_counts(args)
    out = Path(args.out)
    existed = True
    partly_checked: Path | None = None  # a text corpus whose start alone was checked
    if args.resume:
        config = read_config(out)
        _check_resume_flags(args, config)
        if args.corpus is not None:  # the corpus moved: same bytes, new place
            relocate_corpus(out, config, args.corpus)
    else:
        if args.corpus is None or args.vocab_size is None:
            missing = [
                f
                for f, v in (("--corpus", args.corpus), ("--vocab-size", args.vocab_size))
                if v is None
            ]
            raise UsageError(f"train needs {' and '.join(missing)} (or --resume to continue a run)")
        if out.exists() and (not out.is_dir() or any(out.iterdir())):
            raise UsageError(
                f"{out} is not empty; use --resume to continue the run in it, or choose a new --out"
            )
        config = _config_from_args(args).replace(counting=_count_options(args, count_fields()))
        corpus = Path(args.corpus)
        if corpus.is_file():  # a directory or glob is checked file by file as it is counted
            # Only the start of a text file: counting reads the rest with the same reader
            # and the same errors, and a run that fails there is removed below.
            summary = validate_corpus(corpus, max_bytes=None, require_script=False, whole=False)
            if summary.partial:
                partly_checked = corpus
            if summary.script_characters == 0:
                print(
                    f"sgpe: warning: {corpus.name} has no character of a script SGPE has a "
                    f"schema for ({', '.join(BUILTIN_SCRIPTS)}); it will learn merges of "
                    "other characters only",
                    file=sys.stderr,
                )
        existed = out.exists()
        create_run(out, config, args.corpus)
    stderr = sys.stderr
    display: _ProgressBar | _ProgressLog = (
        _ProgressBar(stderr) if stderr.isatty() else _ProgressLog(stderr)
    )
    try:
        result = train_run(out, resume=args.resume, display=display, corpus_checked=not args.resume)
    finally:
        display.close()
    if partly_checked is not None and result.state == "failed" and result.exit_code == 2:
        _undo_bad_corpus_run(out, existed, partly_checked)
    if result.state == "failed":
        print(f"sgpe: error: {result.message}", file=sys.stderr)
    elif result.unchanged:
        print(f"sgpe: {result.message}", file=sys.stderr)
    return result.exit_code


def _undo_bad_corpus_run(out: Path, existed: bool, corpus: Path) -> None:
    """A new run whose text file turned out bad past the part checked before it started
    (a bad byte deep in the file) is removed again and the file's error raised, exactly
    as if the whole file had been checked first: nothing to resume, and the same --out
    works once the file is fixed. Other input failures (a counting limit) keep the run,
    whose record says what went wrong."""
    from .runs.format import _find_table
    from .runs.manager import validate_corpus

    if _find_table(out, "word_counts") is not None:
        return
    try:
        validate_corpus(corpus, max_bytes=None, require_script=False)
    except CorpusError:
        if existed:
            for child in out.iterdir():
                shutil.rmtree(child) if child.is_dir() else child.unlink()
        else:
            shutil.rmtree(out)
        raise


# ============================================================================ parser


class _VersionAction(argparse.Action):
    """``--version``: reads the installed version only when asked (see sgpe/__init__.py)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(
            option_strings, dest, nargs=0, default=argparse.SUPPRESS,
            help="show program's version number and exit",
        )  # fmt: skip

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        from . import __version__
        from .engine import describe

        # The engine line says once where the native core is missing (sgpe/engine.py).
        print(f"sgpe {__version__}, {describe()}")
        parser.exit()


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows an option's default only when there is one to show: not for an option with
    no default (None) or a switch that is off. (The settings' flags default to None and
    say their defaults themselves: :func:`_add_setting_flags`.)"""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if action.default in (None, False):
            return text
        return super()._get_help_string(action)


VOCAB_HELP = (
    "vocab.json (sgpe or bytebpe), a tokenizer folder sgpe exported, or the name of a "
    "shipped vocabulary (sgpe-4k, sgpe-paper-4k, bytebpe-4k)"
)


def _shipped_by_name(args: argparse.Namespace) -> None:
    """--vocab NAME of a shipped vocabulary means its file, from any working directory; a
    file or folder of that name in the working directory comes first (sgpe.load's rule)."""
    from . import shipped

    vocab = getattr(args, "vocab", None)
    if isinstance(vocab, str) and vocab in shipped.VOCABULARIES and not Path(vocab).exists():
        args.vocab = str(shipped.path_of(vocab))


def _cmd_app(args: argparse.Namespace) -> int:
    from .app.launch import launch

    return launch(args.streamlit_args)


def build_parser() -> argparse.ArgumentParser:
    defaults = _HelpFormatter
    parser = _Parser(
        prog="sgpe",
        description="Syllable-aware tokenization (SGPE) for Sinhala, Devanagari and the Brahmic scripts.",
        epilog="Text is read and written as UTF-8; lines are split on \\n only.",
    )
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser(
        "syllabify",
        formatter_class=defaults,
        help="stdin lines -> JSON lists of syllables",
        description="Split each stdin line into syllables; print one JSON list per line.",
    )
    p.add_argument(
        "--script",
        choices=choices("script"),
        default=default("script"),
        help="grammar to use; auto picks one per character run",
    )
    p.add_argument(
        "--leading-space",
        action="store_true",
        help="attach the last plain space before a syllable to it, as the original SGPE did",
    )
    p.set_defaults(func=_cmd_syllabify)

    p = sub.add_parser(
        "app",
        formatter_class=defaults,
        help="open the SGPE Explorer (Streamlit; needs the extra 'app')",
        description="Start the SGPE Explorer with Streamlit on the shipped sample data. "
        "Every further argument goes to `streamlit run` (e.g. --server.port 8600). "
        "Training runs are kept in $SGPE_RUNS_DIR, else runs/ in a checkout, else a per-user "
        "data directory; the command names it once.",
    )
    # Streamlit's options start with "--", which argparse would take for its own: main()
    # hands everything after `app` to Streamlit untouched; this entry serves --help.
    p.set_defaults(func=_cmd_app, streamlit_args=[])

    p = sub.add_parser(
        "train",
        help="train a vocabulary into a run directory",
        description=(
            "Train an SGPE (or byte-level BPE) vocabulary. Writes RUN_DIR: config.json "
            "(settings, counting options, the corpus's paths and sha256; the corpus is not "
            "copied), word_counts.parquet, status.json, checkpoint.json, merges.parquet, "
            "vocab.json, train.log. SIGTERM or Ctrl-C stops after the current merge with a "
            "checkpoint; --resume checks the corpus and continues byte-identically."
        ),
    )
    p.add_argument(
        "--corpus",
        metavar="CORPUS",
        help=f"corpus file ({', '.join(SUPPORTED_SUFFIXES)}), directory or glob, read in place "
        "(RUN_DIR records its paths and sha256); with --resume: the run's corpus in a new place",
    )
    p.add_argument(
        "--out",
        metavar="RUN_DIR",
        required=True,
        help="run directory (new or empty; with --resume: an existing run)",
    )
    _add_setting_flags(p)
    _add_setting_flags(p, count_fields())
    p.add_argument(
        "--resume",
        action="store_true",
        help="continue the run in RUN_DIR from its newest valid checkpoint",
    )
    p.add_argument(
        "--word-counts", metavar="FILE",
        help="train on piece counts instead of a corpus: a parquet file or directory with "
        "columns piece (string) and count (integer), from `sgpe count` or any engine "
        "(docs/large_corpora.md); writes RUN_DIR/vocab.json",
    )  # fmt: skip
    p.set_defaults(func=_cmd_train)

    p = sub.add_parser(
        "count",
        formatter_class=defaults,
        help="piece counts of a corpus -> parquet (all cores or a Dask cluster)",
        description="Count the pieces of a corpus (file, directory or glob of .txt/.txt.gz/"
        ".jsonl/.csv/.parquet files) on all cores or a dask.distributed cluster into a "
        "parquet file that `train --word-counts` reads.",
    )
    p.add_argument("--corpus", metavar="CORPUS", required=True, help="file, directory or glob")
    p.add_argument("--out", metavar="FILE", required=True, help="counts file to write (.parquet)")
    _add_setting_flags(p, _piece_fields())
    _add_setting_flags(p, count_fields())
    p.set_defaults(func=_cmd_count)

    p = sub.add_parser(
        "encode",
        formatter_class=defaults,
        help="stdin lines -> JSON lists of token ids",
        description="Encode each stdin line; print one JSON list of ids (or tokens) per line.",
    )
    _vocab_or_meta(p)
    p.add_argument("--tokens", action="store_true", help="print token strings instead of ids")
    p.add_argument(
        "--corpus", metavar="CORPUS",
        help="encode this corpus (file, directory or glob; every document) instead of stdin",
    )  # fmt: skip
    p.add_argument(
        "--out", metavar="FILE",
        help="with --corpus: ids.parquet (a row of ids per document) or ids.npy (all ids, "
        "and FILE.offsets.npy with where each document starts); a name with {stem} or "
        "{index} (ids/{stem}.npy) writes one output per corpus file and a manifest.json "
        "next to them",
    )  # fmt: skip
    _add_setting_flags(p, _encode_fields(), "with --corpus: ", ENCODE_HELP)
    p.add_argument(
        "--resume", action="store_true",
        help="with --corpus and one output per corpus file: keep the outputs an interrupted "
        "run finished (when neither their corpus file nor the vocabulary changed since) "
        "and encode the other files",
    )  # fmt: skip
    p.set_defaults(func=_cmd_encode)

    p = sub.add_parser(
        "decode",
        formatter_class=defaults,
        help="stdin JSON id lists -> text lines",
        description="Decode each stdin line (a JSON list of token ids) to a line of text.",
    )
    _vocab_or_meta(p)
    p.set_defaults(func=_cmd_decode)

    p = sub.add_parser(
        "eval",
        formatter_class=defaults,
        help="metrics of a vocabulary on a text file (JSON)",
        description="Tokens, TWR, characters per token, UNK rate, round-trip failures, "
        "broken syllable boundaries of VOCAB on FILE (one line per document).",
    )
    p.add_argument(
        "--vocab", metavar="VOCAB", required=True,
        help=VOCAB_HELP,
    )  # fmt: skip
    p.add_argument("--text", metavar="FILE", required=True, help="evaluation text")
    p.add_argument(
        "--script",
        choices=choices("script"),
        default=default("script"),
        help="grammar used to find syllable boundaries",
    )
    p.set_defaults(func=_cmd_eval)

    p = sub.add_parser(
        "export",
        formatter_class=defaults,
        help="vocab.json -> Hugging Face tokenizer folder or tokenizer.json (or meta_config.json)",
        description="Write a Hugging Face tokenizer that gives exactly the ids of VOCAB (sgpe "
        "or bytebpe): with an --out that ends with / (or is a directory), a tokenizer folder "
        "that transformers.AutoTokenizer.from_pretrained loads (tokenizer.json, "
        "tokenizer_config.json, special_tokens_map.json, README.md, and sgpe_config.json + "
        "sgpe_vocab.json so that sgpe reads it back); else one tokenizer.json that "
        "tokenizers.Tokenizer.from_file loads. With --format meta, write the meta_config.json "
        "of the o200k_base + SGPE meta-vocabulary.",
    )
    p.add_argument(
        "--vocab", metavar="VOCAB", required=True,
        help=VOCAB_HELP,
    )  # fmt: skip
    p.add_argument(
        "--out", metavar="PATH", required=True,
        help="DIR/ for a tokenizer folder; a file for tokenizer.json (or meta_config.json)",
    )  # fmt: skip
    p.add_argument(
        "--format", choices=("hf", "hf-folder", "meta"), default=None,
        help="hf-folder: tokenizer folder; hf: tokenizer.json; meta: meta_config.json sidecar "
        "(default: hf-folder when --out ends with / or is a directory, else hf)",
    )  # fmt: skip
    p.add_argument(
        "--encoding", choices=("o200k_base", "cl100k_base"), default="o200k_base",
        help="tiktoken encoding for --format meta",
    )  # fmt: skip
    p.add_argument(
        "--check", metavar="FILE",
        help="also encode every line of FILE both ways; exit 1 on any difference (needs tokenizers)",
    )  # fmt: skip
    p.add_argument(
        "--cls-sep", action="store_true",
        help="add the original SGPE export's post-processor: [CLS] A [SEP] (pairs: [CLS] A [SEP] B [SEP]) when "
        "encoding with special tokens (SGPE only; --check compares without them)",
    )  # fmt: skip
    p.add_argument(
        "--special-tokens", choices=("auto", "masked", "causal"), default=None,
        help="folder: which special tokens fill Hugging Face's roles. masked: [UNK] [PAD] "
        "[CLS] [SEP] [MASK] as unk/pad/cls/sep/mask_token; causal: [UNK], [PAD], and [CLS] "
        "[SEP] as bos/eos_token; byte-level: <|endoftext|> as unk/pad/bos/eos_token "
        "(default: auto, masked for SGPE and causal for byte-level)",
    )  # fmt: skip
    for role in _ROLES:
        p.add_argument(
            f"--{role.replace('_', '-')}", metavar="TOKEN", default=None,
            help=f"folder: the special token of VOCAB that is {role} (none: no {role})",
        )  # fmt: skip
    p.add_argument(
        "--model-max-length", type=int, metavar="N", default=None,
        help="folder: model_max_length of tokenizer_config.json (default: unset, and "
        "transformers then uses int(1e30), so truncation=True cuts nothing)",
    )  # fmt: skip
    p.set_defaults(func=_cmd_export)
    return parser


def _add_setting_flags(
    p: argparse.ArgumentParser,
    fields: Sequence[Any] | None = None,
    when_given: str = "",
    helps: Mapping[str, str] | None = None,
) -> None:
    """One flag per field (default: of TrainSettings and RunMechanics, sgpe/settings.py),
    with its help and default from there (``helps`` words a field's help for this command).
    The flags default to None so that a resume can tell which ones were given."""

    for f in settings_fields() if fields is None else fields:
        meta = info(f)
        flag = cli_flag(f)
        text = (helps or {}).get(f.name, meta.help)
        only = f"{' and '.join(meta.models)}: " if len(meta.models) == 1 else when_given
        if _is_switch(f):
            p.add_argument(flag, action="store_true", help=f"{only}do not {text}")
            continue
        kind = type(f.default) if f.default is not None else (str if "str" in str(f.type) else int)
        if meta.cli_required:
            text += " (required for a new run)"
        elif "(default:" not in text:  # a help that says its default in words keeps them
            text += f" (default: {default_text(f.name)})"
        options: dict[str, Any] = {"help": only + text}
        if choices(f.name):
            options["choices"] = choices(f.name)
        elif kind in (int, float):
            options["type"] = kind
        if meta.metavar:
            options["metavar"] = meta.metavar
        p.add_argument(flag, **options)


def _vocab_or_meta(p: argparse.ArgumentParser) -> None:
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--vocab", metavar="VOCAB",
        help=VOCAB_HELP,
    )  # fmt: skip
    source.add_argument(
        "--meta", metavar="META_CONFIG",
        help="meta_config.json: o200k_base ids + SGPE ids (python -m sgpe export --format meta)",
    )  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code (0 success, 2 usage/input, 1 failure)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["app"] and not {"-h", "--help"} & set(args_list[1:]):
        from .app.launch import launch

        return launch(args_list[1:])
    parser = build_parser()
    try:
        args = parser.parse_args(args_list)
    except SystemExit as stop:  # --help, --version, or an argparse usage error
        return stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 2)
    try:
        _shipped_by_name(args)
        return int(args.func(args))
    except (UsageError, CorpusError) as err:
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
        if isinstance(err, _run_errors()):
            return _error(str(err), 2)
        if os.environ.get("SGPE_DEBUG"):
            raise
        return _error(
            f"internal error: {type(err).__name__}: {err} (set SGPE_DEBUG=1 for details)", 1
        )


def _run_errors() -> tuple[type[Exception], ...]:
    """RunError when the run modules are loaded (only they raise it): commands that never
    touch a run do not import them (a share of starting every command)."""
    format_module = sys.modules.get("sgpe.runs.format")
    if format_module is None:
        return ()
    run_error: type[Exception] = format_module.RunError
    return (run_error,)


def _error(message: str, code: int) -> int:
    print(f"sgpe: error: {message}", file=sys.stderr)
    return code

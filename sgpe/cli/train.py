"""The commands that learn: ``count`` and ``train``, their settings from the flags (one
per field of :mod:`sgpe.settings`) and the progress they report on stderr."""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from ..settings import (
    cli_flag,
    count_fields,
    default,
    info,
    settings_fields,
)
from ._common import UsageError


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
        import shutil  # here: commands without a progress bar do not load it

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
            import shutil

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
    from ..runs import RunConfig

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
    if "schema" in given:
        _check_resume_schema(given.pop("schema"), config)
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


def _check_resume_schema(path: str, config: Any) -> None:
    """``--resume --schema FILE``: the file must hold the schema the run recorded."""
    from ..schema import SchemaError, resolve_schema, schema_document

    try:
        document = schema_document(resolve_schema(path))
    except SchemaError as err:
        raise UsageError(str(err)) from None
    if document != config.schema:
        raise UsageError(
            f"--schema {path} differs from the schema the run's config.json records; a "
            "resumed run keeps its schema: omit the flag, or start a new run with another --out"
        )


#: The counting options batch encoding takes (it reads a corpus the same way).
ENCODE_OPTIONS = ("workers", "backend", "scheduler")


#: The settings ``count`` takes: how pieces are cut (they decide the counts) and how the
#: corpus is read and counted (they never change the counts).
# superwords_from: with it, count keeps each superword span as one key (sgpe/pieces.py),
# which train --word-counts --superwords-from needs.
PIECE_SETTINGS = (
    "script", "schema", "pieces", "leading_space", "prepend_space", "max_piece_units",
    "superwords_from",
)  # fmt: skip


def _count_options(args: argparse.Namespace, fields: Sequence[Any]) -> Any:
    """The :class:`~sgpe.settings.CountOptions` given on the command line (``fields``: the
    ones the command has flags for)."""
    from ..settings import CountOptions

    names = {f.name for f in fields}
    try:
        return CountOptions(
            **{k: v for k, v in _given_settings(args, fields).items() if k in names}
        )
    except ValueError as err:
        raise UsageError(str(err)) from None


def _piece_settings(args: argparse.Namespace) -> Any:
    """The :class:`~sgpe.settings.TrainSettings` that decide how ``count`` cuts pieces."""
    from ..settings import MAX_VOCAB_SIZE, TrainSettings

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
    from ..corpus.counting import count_pieces, write_counts_table

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
    from ..corpus.counting import read_counts_table
    from ..gpe import GPETrainer, ProgressEvent

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
    from ..runs import create_run, read_config, relocate_corpus, train_run
    from ..runs.intake import validate_corpus
    from ..schema import BUILTIN_SCRIPTS

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
            if summary.script_characters == 0 and config.schema is None:
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
    # No cyclic garbage collection while the run works: it makes tens of thousands of
    # tuples (the merges, the pieces' counts) and no cycles worth finding, and the
    # collections that so many new objects set off cost the main thread about 0.05 s
    # of a 1.5 s run (python -m bench native, the training row).
    collecting = gc.isenabled()
    gc.disable()
    try:
        result = train_run(out, resume=args.resume, display=display, corpus_checked=not args.resume)
    finally:
        if collecting:
            gc.enable()
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
    import shutil

    from ..corpus import CorpusError
    from ..runs.files import _find_table
    from ..runs.intake import validate_corpus

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

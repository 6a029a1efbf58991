"""The commands that read and write text: ``syllabify``, ``encode``, ``decode``, ``eval``
and ``export``."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .._json import parse_json
from .._text import SUPPORTED_SUFFIXES
from ..interop.hf_folder import ROLES as _ROLES  # one --ROLE flag each
from ._common import (
    UsageError,
    _emit_lines,
    _input_lines,
    _json_line,
    _load_tokenizer,
    _load_vocab,
    _read_text_lines,
    _stdout_bytes,
    _vocab_file,
)
from .train import ENCODE_OPTIONS, _count_options, _encode_fields


def _cmd_syllabify(args: argparse.Namespace) -> int:
    from ..syllables import get_syllabifier

    try:
        split = get_syllabifier(_grammar(args), args.leading_space)
    except ValueError as err:
        raise UsageError(str(err)) from None
    return _emit_lines(_json_line(split(line)) for _, line in _input_lines())


def _grammar(args: argparse.Namespace, vocabulary_script: str = "auto") -> str:
    """The ``script`` of ``--script`` or ``--schema FILE`` (the schema's key: a bad file is
    a usage error that says what to fix); neither: ``vocabulary_script``."""
    if args.schema is not None:
        from ..schema import SchemaError, schema_key

        try:
            return schema_key(args.schema)
        except SchemaError as err:
            raise UsageError(str(err)) from None
    return str(args.script) if args.script is not None else vocabulary_script


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
    from ..corpus.encoding import encode_corpus, is_per_file, manifest_path

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
        from ..metrics import evaluate
    except ImportError as err:
        raise RuntimeError(f"eval needs sgpe.metrics, which cannot be imported: {err}") from None
    tok = _load_vocab(args.vocab)
    from ..schema import custom_schema

    # A vocabulary of its own schema finds boundaries by it; any other, by every script.
    own = getattr(tok, "script", None)  # byte-level BPE has none
    script = _grammar(args, own) if own and custom_schema(own) else _grammar(args)
    path = Path(args.text)
    if not path.exists():
        raise UsageError(f"{path}: file not found")
    if path.name.lower().endswith(SUPPORTED_SUFFIXES):
        from ..corpus import iter_documents

        lines: Iterator[str] = iter_documents(path)
    else:
        lines = iter(_read_text_lines(path))
    result = evaluate(tok, lines, script=script)
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
        from ..interop.meta import MetaTokenizer

        try:
            MetaTokenizer(tok, args.encoding, vocab_path=_vocab_file(args.vocab)).save(args.out)
        except ImportError as err:
            raise UsageError(str(err)) from None
        return 0
    from ..interop.hf import ExportError, check_parity, load_hf, save_hf, save_hf_folder

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

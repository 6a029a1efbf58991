"""The flags of every command (:func:`build_parser`): the one place a command gets its
parser and its ``_cmd_*`` function."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .._text import SUPPORTED_SUFFIXES
from ..interop.hf_folder import ROLES as _ROLES  # one --ROLE flag each
from ..settings import (
    ENCODE_HELP,
    choices,
    cli_flag,
    count_fields,
    default,
    default_text,
    info,
    settings_fields,
)
from ._common import _Parser
from .commands import _cmd_decode, _cmd_encode, _cmd_eval, _cmd_export, _cmd_syllabify
from .train import _cmd_count, _cmd_train, _encode_fields, _is_switch, _piece_fields


class _VersionAction(argparse.Action):
    """``--version``: reads the installed version only when asked (see sgpe/__init__.py)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(
            option_strings, dest, nargs=0, default=argparse.SUPPRESS,
            help="show program's version number and exit",
        )  # fmt: skip

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        from .. import __version__
        from .._engine import describe

        # The engine line says once where the native core is missing (sgpe/_engine.py).
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
    from .. import shipped

    vocab = getattr(args, "vocab", None)
    if isinstance(vocab, str) and vocab in shipped.VOCABULARIES and not Path(vocab).exists():
        args.vocab = str(shipped.path_of(vocab))


#: The help of ``--schema`` where it stands beside ``--script`` (train and count take theirs
#: from the setting, sgpe/settings.py).
SCHEMA_HELP = "a schema JSON file (a linguist's own grammar, docs/scripts.md) instead of --script"


#: What ``sgpe app`` says where the explorer is not installed (double quotes: the one spelling
#: that works in the shells of every system, Windows' cmd included).
APP_MISSING = 'sgpe: error: the explorer is not installed: pip install "sgpe-explorer[app]"'


def launch_app(args: Sequence[str]) -> int:
    """``sgpe app``: start the explorer, a package of its own (``sgpe_explorer``), where it is
    installed; else one line saying what to install, exit code 2. The only import of the
    explorer in the library, made here when the command runs (tests/test_import_graph.py)."""
    try:
        from sgpe_explorer.app.launch import launch
    except ImportError:
        print(APP_MISSING, file=sys.stderr)
        return 2
    return launch(args)


def _cmd_app(args: argparse.Namespace) -> int:
    return launch_app(args.streamlit_args)


#: Every command, in the order ``--help`` lists them.
COMMANDS = ("syllabify", "app", "train", "count", "encode", "decode", "eval", "export")


class _Unbuilt:
    """The parser of a command the command line does not run: its flags are not built
    (every call on it does nothing), as building all commands' flags is a share of
    starting any one of them."""

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: self


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; with ``command`` (one of :data:`COMMANDS`), only that
    command's flags are built (``main`` passes the command it was given)."""
    defaults = _HelpFormatter
    parser = _Parser(
        prog="sgpe",
        description="Syllable-aware tokenization (SGPE) for Sinhala, Devanagari and the Brahmic scripts.",
        epilog="Text is read and written as UTF-8; lines are split on \\n only.",
    )
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command_parser(name: str, **kwargs: Any) -> Any:
        if command in (None, name):
            return sub.add_parser(name, **kwargs)
        return _Unbuilt()

    p = command_parser(
        "syllabify",
        formatter_class=defaults,
        help="stdin lines -> JSON lists of syllables",
        description="Split each stdin line into syllables; print one JSON list per line.",
    )
    grammar = p.add_mutually_exclusive_group()
    grammar.add_argument(
        "--script",
        choices=choices("script"),
        default=default("script"),
        help="grammar to use; auto picks one per character run",
    )
    grammar.add_argument("--schema", metavar="FILE", help=SCHEMA_HELP)
    p.add_argument(
        "--leading-space",
        action="store_true",
        help="attach the last plain space before a syllable to it, as the original SGPE did",
    )
    p.set_defaults(func=_cmd_syllabify)

    p = command_parser(
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

    p = command_parser(
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

    p = command_parser(
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

    p = command_parser(
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

    p = command_parser(
        "decode",
        formatter_class=defaults,
        help="stdin JSON id lists -> text lines",
        description="Decode each stdin line (a JSON list of token ids) to a line of text.",
    )
    _vocab_or_meta(p)
    p.set_defaults(func=_cmd_decode)

    p = command_parser(
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
    grammar = p.add_mutually_exclusive_group()
    grammar.add_argument(
        "--script",
        choices=choices("script"),
        default=None,
        help="grammar used to find syllable boundaries (default: the schema the vocabulary "
        "records, if it was trained with its own; else auto)",
    )
    grammar.add_argument("--schema", metavar="FILE", help=SCHEMA_HELP)
    p.set_defaults(func=_cmd_eval)

    p = command_parser(
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

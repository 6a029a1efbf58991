"""Loading what :func:`sgpe.load` loads: a vocabulary file of this project, or a tokenizer
folder that ``python -m sgpe export`` wrote (its checks, and the vocabulary inside).

This module sits below :mod:`sgpe.tokenizer`, so it does not import that module: the
caller hands in the SGPE tokenizer class, which makes an SGPE vocabulary (a byte-level one
is a :class:`sgpe.baselines.bytebpe.ByteBPETokenizer`). :func:`sgpe.load` is the one public
way to load; the readers here are its parts. :mod:`sgpe.interop.hf_folder` writes the
folders and re-exports the names here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from .._engine import native_vocab_file
from .._json import parse_json, read_json
from ..settings import UNRECORDED

FOLDER_FORMAT = "sgpe-hf-folder"
FOLDER_FORMAT_VERSION = 1
CONFIG_FILE = "sgpe_config.json"
VOCAB_FILE = "sgpe_vocab.json"
#: The files whose bytes fix the ids: read_folder checks them against sgpe_config.json.
_CHECKED = ("tokenizer.json", VOCAB_FILE)


class Loads(Protocol):
    """What the SGPE tokenizer class offers here: ``Tokenizer._from_dict``, which makes a
    tokenizer of a parsed file, or of the native reader's file and the other keys."""

    model: str

    def _from_dict(self, data: Any, source: str = ..., *, file: Any = ...) -> Any: ...


def load_vocabulary_file(path: str | Path, sgpe_class: Loads) -> Any:
    """A vocabulary file of this project, as :func:`sgpe.load` loads a file: SGPE, read by
    the native core where it answers (``sgpe._engine.native_vocab_file``: it declines under
    the Python engine, for a file it does not accept, whose errors the Python reader then
    words, and for another model's file), else parsed here and made with
    ``sgpe_class._from_dict``; or byte-level BPE, by the file's ``model`` key."""
    file = native_vocab_file(path)
    if file is not None:
        header = parse_json(file.header, path)
        if header.get("model", UNRECORDED["model"]) == sgpe_class.model:
            return sgpe_class._from_dict(header, str(path), file=file)
    data = read_json(path)
    if isinstance(data, dict) and data.get("model") == "bytebpe":
        from ..baselines.bytebpe import ByteBPETokenizer

        return ByteBPETokenizer._from_dict(data, source=str(path))
    return sgpe_class._from_dict(data, str(path))


def _sha256(data: bytes) -> str:
    import hashlib  # here: loading OpenSSL is a share of loading any vocabulary file

    return hashlib.sha256(data).hexdigest()


def read_folder(path: str | Path, sgpe_class: Loads) -> Any:
    """The vocabulary of a folder ``save_hf_folder`` wrote (its ``sgpe_vocab.json``): an
    SGPE one loaded with ``sgpe_class``, or a :class:`ByteBPETokenizer`.

    Raises ``ValueError`` with a one-line message for a folder sgpe did not write, one
    re-saved by transformers (``save_pretrained`` keeps only Hugging Face's files), a newer
    folder format, or a ``tokenizer.json``/``sgpe_vocab.json`` changed after the export.
    """
    folder = Path(path)
    if not folder.is_dir():
        raise ValueError(f"{folder}: not a directory; give a tokenizer folder or a vocab.json")
    config_path = folder / CONFIG_FILE
    if not config_path.is_file():
        raise ValueError(_not_ours(folder))
    config = read_json(config_path)
    if not isinstance(config, dict) or config.get("format") != FOLDER_FORMAT:
        raise ValueError(
            f"{config_path}: key 'format' must be {FOLDER_FORMAT!r}; this file was not written "
            f"by sgpe: export the vocabulary again with python -m sgpe export --out {folder}/"
        )
    version = config.get("format_version")
    if type(version) is not int or version != FOLDER_FORMAT_VERSION:
        raise ValueError(
            f"{config_path}: key 'format_version' is {version!r}; this version of sgpe reads "
            f"format_version {FOLDER_FORMAT_VERSION} (upgrade sgpe, or export the folder again)"
        )
    recorded = config.get("files")
    if not isinstance(recorded, dict):
        raise ValueError(f"{config_path}: key 'files' must map file names to sha256 digests")
    for name in _CHECKED:
        file = folder / name
        if not file.is_file():
            raise ValueError(
                f"{file}: missing; the folder is incomplete: export it again with "
                f"python -m sgpe export --out {folder}/"
            )
        digest = _sha256(file.read_bytes())
        if digest != recorded.get(name):
            raise ValueError(
                f"{file}: changed since sgpe wrote the folder (sha256 {digest[:12]}..., "
                f"{CONFIG_FILE} records {str(recorded.get(name))[:12]}...), so its ids may "
                "no longer be sgpe's; export the folder again from its vocabulary"
            )
    tok: Any = load_vocabulary_file(folder / VOCAB_FILE, sgpe_class)
    if tok.model != config.get("model"):
        raise ValueError(
            f"{config_path}: key 'model' is {config.get('model')!r} but {VOCAB_FILE} holds a "
            f"{tok.model} vocabulary; export the folder again"
        )
    return tok


def _not_ours(folder: Path) -> str:
    """Why a folder without sgpe_config.json cannot be read, and what to do instead."""
    fix = (
        "sgpe reads the folders python -m sgpe export --out DIR/ writes (they carry "
        f"{CONFIG_FILE} and the vocabulary as {VOCAB_FILE}): export again, or pass the "
        "vocab.json"
    )
    origin = None
    config = folder / "tokenizer_config.json"
    if config.is_file():
        try:
            data = read_json(config)
        except ValueError:
            data = None
        if isinstance(data, dict) and isinstance(data.get("sgpe"), dict):
            origin = data["sgpe"]
    if origin is not None:
        sha = str(origin.get("vocabulary_sha256", "?"))
        return (
            f"{folder}: no {CONFIG_FILE}; its tokenizer_config.json names an SGPE vocabulary "
            f"(sha256 {sha[:12]}...), so this folder was probably re-saved by transformers "
            f"(save_pretrained keeps only Hugging Face's files); {fix}"
        )
    if (folder / "tokenizer.json").is_file():
        return f"{folder}: a Hugging Face tokenizer folder that sgpe did not write (no {CONFIG_FILE}); {fix}"
    return f"{folder}: not a tokenizer folder (no {CONFIG_FILE}, no tokenizer.json); {fix}"

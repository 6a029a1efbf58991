"""A Hugging Face tokenizer folder: what ``AutoTokenizer.from_pretrained(DIR)`` loads, and
what sgpe reads back.

>>> import sgpe
>>> from sgpe.shipped import DEFAULT_SGPE
>>> sorted(hf_folder_files(sgpe.load(DEFAULT_SGPE)))  # what save_hf_folder(tok, "DIR") writes
['README.md', 'sgpe_config.json', 'sgpe_vocab.json', 'special_tokens_map.json', 'tokenizer.json', 'tokenizer_config.json']

:func:`save_hf_folder` writes these files all at once (a temp directory renamed into place, so a reader never sees half a
folder):

* ``tokenizer.json``: the exact-parity file of :func:`sgpe.interop.hf.to_hf`;
* ``tokenizer_config.json``: ``tokenizer_class`` ``PreTrainedTokenizerFast``, the special
  token roles (``unk_token``, ``pad_token``, ...), ``model_max_length`` when given,
  ``clean_up_tokenization_spaces: false`` (so ``decode`` gives back the text exactly) and an
  ``sgpe`` key naming the vocabulary (``save_pretrained`` keeps it);
* ``special_tokens_map.json``: the roles again, where transformers 4.x looks for them;
* ``sgpe_vocab.json``: the vocabulary itself, byte for byte as sgpe saves it;
* ``sgpe_config.json``: the machine-readable provenance (format, sgpe version, the
  vocabulary's settings and training record, the roles, and the sha256 of each file);
* ``README.md``: a short model card.

:func:`load_hf_folder` (and so :func:`sgpe.load` and every
``--vocab`` of the command line) reads such a folder back from ``sgpe_vocab.json``, after
checking that ``sgpe_config.json`` is ours and that ``tokenizer.json`` and
``sgpe_vocab.json`` are the files it records. It refuses any other folder with a message
that says what is missing and how to get a folder it reads.

Special tokens. Hugging Face roles map to the vocabulary's *own* special tokens, never to
new ones: a new token would get an id sgpe does not have, and a role given to an ordinary
token would make Hugging Face cut that token out of the text before the BPE runs, so the
ids would no longer be sgpe's. The presets (:data:`PRESETS`):

* ``masked`` (the default for SGPE): ``[UNK] [PAD] [CLS] [SEP] [MASK]`` as ``unk_token``,
  ``pad_token``, ``cls_token``, ``sep_token``, ``mask_token``, as BERT names them;
* ``causal``: ``[UNK]``, ``[PAD]``, and ``[CLS]``/``[SEP]`` as ``bos_token``/``eos_token``
  (an SGPE vocabulary has no ``<s>``/``</s>``; these are the tokens that begin and end a
  sequence in its own ``--cls-sep`` template). For the byte-level baseline (the default
  there, and its only preset) every role is ``<|endoftext|>``, as in GPT-2, and so is
  ``pad_token``, which GPT-2 lacks and padding needs.

Each role can be overridden with another special token of the vocabulary, or with
``None`` (the role is left unset).

Does not: add tokens, or add a post-processor unless ``cls_sep`` asks for the
``[CLS] A [SEP]`` template (then ``add_special_tokens=True``, the transformers default, wraps
sgpe's ids). Without it ``tokenizer(text)`` gives exactly ``sgpe``'s ids.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._atomic import write_folder_atomic
from .._engine import json_bytes
from .._json import BYTE_LEVEL_LAYOUT, dumps_json, read_json
from .._version import package_version
from ..tokenizer import Tokenizer
from .folder_reader import (
    CONFIG_FILE,
    FOLDER_FORMAT,
    FOLDER_FORMAT_VERSION,
    VOCAB_FILE,
    _sha256,
    read_folder,
)

if TYPE_CHECKING:
    from ..baselines.bytebpe import ByteBPETokenizer

__all__ = [
    "CONFIG_FILE",
    "FOLDER_FORMAT",
    "PRESETS",
    "ROLES",
    "VOCAB_FILE",
    "hf_folder_files",
    "load_hf_folder",
    "save_hf_folder",
    "special_token_roles",
    "vocabulary_file",
]

#: Every file a folder holds; a folder with other files is not replaced.
FILES = (
    "README.md",
    CONFIG_FILE,
    VOCAB_FILE,
    "special_tokens_map.json",
    "tokenizer.json",
    "tokenizer_config.json",
)

#: Hugging Face's special-token roles, in the order the files list them.
ROLES = (
    "unk_token",
    "pad_token",
    "bos_token",
    "eos_token",
    "cls_token",
    "sep_token",
    "mask_token",
)
#: preset -> role -> token, for SGPE vocabularies (see the module docstring).
PRESETS: Mapping[str, Mapping[str, str]] = {
    "masked": {
        "unk_token": "[UNK]",
        "pad_token": "[PAD]",
        "cls_token": "[CLS]",
        "sep_token": "[SEP]",
        "mask_token": "[MASK]",
    },
    "causal": {
        "unk_token": "[UNK]",
        "pad_token": "[PAD]",
        "bos_token": "[CLS]",
        "eos_token": "[SEP]",
    },
}
_BYTE_ROLES = ("unk_token", "pad_token", "bos_token", "eos_token")
_TRANSFORMERS_NO_LENGTH = (
    "not set: transformers then uses int(1e30) (VERY_LARGE_INTEGER), so truncation=True "
    "without max_length cuts nothing"
)


# ============================================================================
# Special tokens
# ============================================================================


def special_token_roles(
    tokenizer: Tokenizer | ByteBPETokenizer,
    preset: str = "auto",
    overrides: Mapping[str, str | None] | None = None,
) -> dict[str, str]:
    """Role -> token of the vocabulary for a preset (``auto``, ``masked``, ``causal``) with
    per-role ``overrides`` (a token, or None to leave the role unset).

    Raises :class:`sgpe.interop.hf.ExportError` for an unknown preset or role, a preset the
    vocabulary lacks tokens for, or a token that is not one of its special tokens.
    """
    from .hf_export import ExportError

    specials = list(tokenizer.special_tokens)
    is_sgpe = isinstance(tokenizer, Tokenizer)
    if preset not in ("auto", *PRESETS):
        raise ExportError(f"special tokens preset {preset!r}: choose auto, masked or causal")
    unknown = sorted(set(overrides or {}) - set(ROLES))
    if unknown:
        raise ExportError(
            f"unknown special token role {unknown[0]!r}; the roles are {', '.join(ROLES)}"
        )
    if is_sgpe:
        chosen = dict(PRESETS["masked" if preset == "auto" else preset])
    elif preset == "masked":
        raise ExportError(
            "special tokens preset 'masked': the byte-level vocabulary has one special token, "
            f"{specials[0]}, and no [MASK]; use the causal preset (its default)"
        )
    else:
        chosen = {role: specials[0] for role in _BYTE_ROLES}
    for role, token in (overrides or {}).items():
        if token is None:
            chosen.pop(role, None)
        else:
            chosen[role] = token
    flag_of = {role: f"--{role.replace('_', '-')}" for role in ROLES}
    for role, token in chosen.items():
        if token not in specials:
            given = role in (overrides or {})
            where = "given" if given else f"of the {preset} preset"
            raise ExportError(
                f"{role} ({flag_of[role]}) {token!r} {where} is not a special token of this "
                f"vocabulary ({', '.join(specials)}); a role must be one of them, so that "
                f"the ids stay sgpe's: choose one, or 'none' to leave {role} unset"
            )
    return {role: chosen[role] for role in ROLES if role in chosen}


# ============================================================================
# Writing
# ============================================================================


def hf_folder_files(
    tokenizer: Tokenizer | ByteBPETokenizer,
    *,
    special_tokens: str = "auto",
    overrides: Mapping[str, str | None] | None = None,
    model_max_length: int | None = None,
    cls_sep: bool = False,
) -> dict[str, bytes]:
    """File name -> bytes of the folder :func:`save_hf_folder` writes (the app zips them).

    Identical arguments give identical bytes: nothing in them depends on the time or place.
    """
    from .hf_export import ExportError, to_hf_str

    __version__ = package_version()

    if model_max_length is not None and (type(model_max_length) is not int or model_max_length < 1):
        raise ExportError(f"model_max_length must be a positive integer, not {model_max_length!r}")
    roles = special_token_roles(tokenizer, special_tokens, overrides)
    vocab_bytes = _vocabulary_bytes(tokenizer)
    tokenizer_json = (to_hf_str(tokenizer, cls_sep=cls_sep) + "\n").encode("utf-8")
    vocab_sha = _sha256(vocab_bytes)
    origin = {
        "version": __version__,
        "model": tokenizer.model,
        "vocabulary_sha256": vocab_sha,
        "config": CONFIG_FILE,
    }
    config: dict[str, Any] = {"tokenizer_class": "PreTrainedTokenizerFast"}
    if model_max_length is not None:
        config["model_max_length"] = model_max_length
    # transformers' default (True in 4.x) would remove spaces before punctuation on decode.
    config["clean_up_tokenization_spaces"] = False
    config.update(roles)
    config["sgpe"] = origin
    files: dict[str, bytes] = {
        "tokenizer.json": tokenizer_json,
        "tokenizer_config.json": _json_bytes(config),
        "special_tokens_map.json": _json_bytes(roles),
        VOCAB_FILE: vocab_bytes,
    }
    ids = {role: _token_id(tokenizer, token) for role, token in roles.items()}
    provenance: dict[str, Any] = {
        "format": FOLDER_FORMAT,
        "format_version": FOLDER_FORMAT_VERSION,
        "sgpe_version": __version__,
        "model": tokenizer.model,
        "vocabulary": {"file": VOCAB_FILE, "sha256": vocab_sha},
        "settings": _settings(tokenizer),
        "training": dict(tokenizer.training),
        "special_tokens": {
            "preset": _preset_name(tokenizer, special_tokens),
            "roles": roles,
            "ids": ids,
        },
        "model_max_length": model_max_length,
        "cls_sep": cls_sep,
    }
    files["README.md"] = _model_card(tokenizer, provenance).encode("utf-8")
    provenance["files"] = {name: _sha256(data) for name, data in sorted(files.items())}
    files[CONFIG_FILE] = dumps_json(provenance).encode("utf-8")
    if sorted(files) != sorted(FILES):  # an internal invariant: FILES lists what is written
        raise ExportError(f"internal error: the folder's files {sorted(files)} are not {FILES}")
    return files


def save_hf_folder(
    tokenizer: Tokenizer | ByteBPETokenizer,
    path: str | Path,
    *,
    special_tokens: str = "auto",
    overrides: Mapping[str, str | None] | None = None,
    model_max_length: int | None = None,
    cls_sep: bool = False,
) -> Path:
    """Write the tokenizer folder at ``path`` (see the module docstring); return its path.

    ``path`` must be new (missing parents are created), empty, or a folder this function
    wrote before (it is replaced whole); anything else raises ``ValueError`` and leaves the disk as it was.
    """
    files = hf_folder_files(
        tokenizer,
        special_tokens=special_tokens,
        overrides=overrides,
        model_max_length=model_max_length,
        cls_sep=cls_sep,
    )
    target = Path(path)
    _check_replaceable(target)
    # Like transformers' save_pretrained, a missing parent directory is created.
    target.parent.mkdir(parents=True, exist_ok=True)
    write_folder_atomic(target, files)
    return target


def _check_replaceable(target: Path) -> None:
    if not target.exists():
        return
    if not target.is_dir():
        raise ValueError(
            f"{target}: exists and is not a directory; give a new or empty directory for the "
            "tokenizer folder (or a file name ending in .json for a lone tokenizer.json)"
        )
    present = sorted(p.name for p in target.iterdir())
    if not present:
        return
    foreign = [name for name in present if name not in FILES]
    if foreign or CONFIG_FILE not in present or not _is_our_config(target / CONFIG_FILE):
        shown = ", ".join(foreign[:3] or present[:3])
        raise ValueError(
            f"{target}: not empty and not a tokenizer folder sgpe wrote (it holds {shown}); "
            "sgpe replaces only its own folders: choose a new or empty directory"
        )


def _is_our_config(path: Path) -> bool:
    try:
        data = read_json(path)
    except ValueError:
        return False
    return isinstance(data, dict) and data.get("format") == FOLDER_FORMAT


def _vocabulary_bytes(tokenizer: Tokenizer | ByteBPETokenizer) -> bytes:
    """The vocabulary file as the model's own ``save`` writes it."""
    if isinstance(tokenizer, Tokenizer):
        return json_bytes(tokenizer.to_dict())
    return json_bytes(tokenizer.to_dict(), layout=BYTE_LEVEL_LAYOUT)


def _settings(tokenizer: Tokenizer | ByteBPETokenizer) -> dict[str, Any]:
    if isinstance(tokenizer, Tokenizer):
        return {
            "mode": tokenizer.mode,
            "scripts": tokenizer.script,
            "pieces": tokenizer.pieces,
            "leading_space": tokenizer.leading_space,
            "prepend_space": tokenizer.prepend_space,
            "oov_policy": tokenizer.oov_policy,
            "prune_freq": tokenizer.prune_freq,
            "min_freq": tokenizer.min_freq,
            "max_piece_units": tokenizer.max_piece_units,
            "vocab_size": tokenizer.vocab_size,
            "num_merges": len(tokenizer.merges),
            "special_tokens": list(tokenizer.special_tokens),
        }
    return {
        "pattern_name": tokenizer.pattern_name,
        "pattern": tokenizer.pattern,
        "vocab_size": tokenizer.vocab_size,
        "num_merges": tokenizer.num_merges,
        "special_tokens": list(tokenizer.special_tokens),
    }


def _preset_name(tokenizer: Tokenizer | ByteBPETokenizer, preset: str) -> str:
    if preset != "auto":
        return preset
    return "masked" if isinstance(tokenizer, Tokenizer) else "causal"


def _token_id(tokenizer: Tokenizer | ByteBPETokenizer, token: str) -> int:
    return tokenizer.special_tokens[token]  # special_token_roles checked it is one


def _json_bytes(data: Mapping[str, Any]) -> bytes:
    return (json.dumps(data, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


# ============================================================================
# The model card
# ============================================================================


def _model_card(tokenizer: Tokenizer | ByteBPETokenizer, provenance: Mapping[str, Any]) -> str:
    """README.md: what the folder is, what made it, and how to load it."""
    settings = provenance["settings"]
    training = provenance["training"]
    special = provenance["special_tokens"]
    shown: tuple[str, ...]
    if isinstance(tokenizer, Tokenizer):
        title = f"SGPE tokenizer ({settings['scripts']}, {settings['vocab_size']:,} tokens)"
        model = f"SGPE, syllable-aware BPE, mode {settings['mode']}"
        scripts = settings["scripts"]
        if scripts == "auto":
            scripts = "auto (each run of characters gets its script's schema)"
        shown = (
            "pieces", "leading_space", "prepend_space", "oov_policy", "prune_freq", "min_freq",
            "max_piece_units",
        )  # fmt: skip
    else:
        title = f"Byte-level BPE tokenizer ({settings['vocab_size']:,} tokens)"
        model = "byte-level BPE (the baseline of sgpe/baselines/bytebpe.py)"
        scripts = "any (bytes)"
        shown = ("pattern_name",)
    sha = training.get("sha256") if isinstance(training, dict) else None
    corpus = training.get("corpus") if isinstance(training, dict) else None
    lines = training.get("lines") if isinstance(training, dict) else None
    corpus_text = corpus if corpus else "unknown (the vocabulary does not record it)"
    if lines is not None:
        corpus_text += f" ({lines:,} lines)"
    roles = ", ".join(
        f"{role} `{token}` (id {special['ids'][role]})" for role, token in special["roles"].items()
    )
    length = provenance["model_max_length"]
    rows = [
        ("Model", model),
        ("Script(s)", scripts),
        ("Vocabulary size", f"{settings['vocab_size']:,} ({settings['num_merges']:,} merges)"),
        ("Settings", ", ".join(f"{k} {json.dumps(settings[k])}" for k in shown)),
        ("Training corpus", corpus_text),
        ("Corpus sha256", f"`{sha}`" if sha else "unknown (the vocabulary does not record it)"),
        ("Vocabulary sha256", f"`{provenance['vocabulary']['sha256']}` ({VOCAB_FILE})"),
        ("Special tokens", f"{roles or 'none'} (preset {special['preset']})"),
        ("model_max_length", str(length) if length is not None else _TRANSFORMERS_NO_LENGTH),
        ("Post-processor", "[CLS] A [SEP]" if provenance["cls_sep"] else "none: ids are sgpe's"),
        ("Exported by", f"sgpe-explorer {provenance['sgpe_version']}"),
    ]
    table = "\n".join(f"| {k} | {v} |" for k, v in rows)
    return f"""# {title}

A Hugging Face tokenizer folder written by `python -m sgpe export` (sgpe-explorer).
`tokenizer.json` gives exactly the token ids of the vocabulary in `{VOCAB_FILE}`.

| | |
|---|---|
{table}

## Load

```python
from transformers import AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("path/to/this/folder")
batch = tokenizer(["first text", "a second, longer text"], padding=True)
```

With sgpe: `sgpe.load("path/to/this/folder")`, or `python -m sgpe encode --vocab path/to/this/folder`.

## Notes

* Hugging Face finds special tokens (`{"`, `".join(tokenizer.special_tokens)}`) in the raw
  text before tokenizing; sgpe treats such text as ordinary characters. For exact ids on
  text that contains them, load with `AutoTokenizer.from_pretrained(path, split_special_tokens=True)`.
* `{CONFIG_FILE}` records the settings, the training record and the sha256 of every file;
  sgpe reads the folder back only while `tokenizer.json` and `{VOCAB_FILE}` match it.
"""


# ============================================================================
# Reading
# ============================================================================


def load_hf_folder(path: str | Path) -> Tokenizer | ByteBPETokenizer:
    """The vocabulary of a folder :func:`save_hf_folder` wrote (its ``sgpe_vocab.json``).

    Raises ``ValueError`` with a one-line message for a folder sgpe did not write, one
    re-saved by transformers (``save_pretrained`` keeps only Hugging Face's files), a newer
    folder format, or a ``tokenizer.json``/``sgpe_vocab.json`` changed after the export.
    The checks are :func:`sgpe.interop.folder_reader.read_folder`'s.
    """
    tok: Tokenizer | ByteBPETokenizer = read_folder(path, Tokenizer)
    return tok


def vocabulary_file(path: str | Path) -> Path:
    """The vocabulary file of ``path``: ``path`` itself, or a folder's checked
    ``sgpe_vocab.json`` (for commands that hash or reopen the file, not only load it)."""
    folder = Path(path)
    if not folder.is_dir():
        return folder
    load_hf_folder(folder)
    return folder / VOCAB_FILE

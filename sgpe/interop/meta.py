"""The WWHO meta-vocabulary: o200k_base for Latin and other text, SGPE for Sinhala and
Devanagari, in one id space: the design of WWHO, the code-switching tokenizer that
accompanies the original SGPE (``docs/decisions.md`` says where we follow it and where not).

>>> import sgpe
>>> from sgpe.shipped import DEFAULT_SGPE
>>> meta = MetaTokenizer(sgpe.load(DEFAULT_SGPE))
>>> ids = meta.encode("ශ්‍රී ලංකා is an island")
>>> ids  # SGPE ids from 200,019 on, o200k_base ids below
[200320, 200670, 382, 448, 18149]
>>> meta.decode(ids) == "ශ්‍රී ලංකා is an island"
True

**Router.** Text is cut into segments: a maximal run of characters of the scripts the
SGPE vocabulary covers (the Sinhala block U+0D80..U+0DFF; Devanagari U+0900..U+097F, its
Extended block U+A8E0..U+A8FF and the Vedic Extensions U+1CD0..U+1CFF; the dandas
U+0964/U+0965 for either script) goes to SGPE, everything else (Latin, digits,
punctuation, spaces, emoji, code) to tiktoken. ZWJ and ZWNJ continue whatever segment they
follow, so a conjunct stays in SGPE and an emoji sequence in tiktoken.
With a superword vocabulary (``superwords_from``) a segment goes on across single spaces
between such runs, so SGPE can join its words. **Trailing-space absorption:** when a tiktoken segment ends with a space and an SGPE
segment follows, that one space moves to the SGPE segment, which is then encoded with its
leading space (``" ලංකා"``), as GPT-2 style tokenizers attach a space to the next word.

**Ids.** ``[0, n_tiktoken)`` are tiktoken's ids unchanged (o200k_base: ``n_vocab`` =
200,019, including its special tokens); ``[n_tiktoken, n_tiktoken + n_sgpe)`` are SGPE ids
plus the offset ``n_tiktoken``. ``decode`` turns a mixed id stream back into text by
concatenating the bytes of every token and decoding once, so a character split across
tokens is never lost; with an SGPE vocabulary trained with ``oov_policy="fallback"``,
``decode(encode(text)) == text`` for every string.

**Files.** ``meta_config.json`` is a small sidecar that names the tiktoken encoding, the
offset and the SGPE ``vocab.json`` (path relative to the sidecar, with its sha256), so
:meth:`MetaTokenizer.load` rebuilds the same id space or says what changed.

Does not: train anything (o200k_base is fixed; train the SGPE side with :func:`sgpe.gpe`),
or parse tiktoken special tokens from text (``<|endoftext|>`` is encoded as text).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from .._json import read_json, write_json_atomic
from ..baselines.tiktoken_offline import EncodingName
from ..protocol import TokenId, display_bytes
from ..schema import SCRIPT_BLOCKS, code_point_ranges, custom_schema, schemas_for
from ..tokenizer import Tokenizer
from .folder_reader import load_vocabulary_file

if TYPE_CHECKING:
    import tiktoken

__all__ = [
    "CONFIG_NAME",
    "MetaTokenizer",
    "Segment",
    "read_meta_config",
]

CONFIG_FORMAT = "sgpe-meta"
CONFIG_FORMAT_VERSION = 1
CONFIG_NAME = "meta_config.json"

DANDAS = "\u0964\u0965"  # end sentences in both scripts: never break an Indic segment
JOINERS = "\u200c\u200d"  # ZWNJ, ZWJ: continue the segment they follow

SegmentKind = Literal["sgpe", "tiktoken"]


@dataclass(frozen=True)
class Segment:
    """One routed piece of text. ``text`` excludes an absorbed leading space."""

    text: str
    kind: SegmentKind
    leading_space: bool = False  # an absorbed space belongs in front of ``text``

    @property
    def source(self) -> str:
        """The exact input text this segment covers."""
        return " " + self.text if self.leading_space else self.text


def _range_class(ranges: Sequence[tuple[int, int]], extra: str) -> str:
    parts = [f"\\u{lo:04x}-\\u{hi:04x}" for lo, hi in ranges]
    parts += [f"\\u{ord(c):04x}" for c in extra]
    return "[" + "".join(parts) + "]"


class MetaTokenizer:
    """Code-switching tokenizer over o200k_base (or cl100k_base) and an SGPE vocabulary."""

    model = "meta"

    def __init__(
        self,
        sgpe: Tokenizer,
        encoding: EncodingName = "o200k_base",
        *,
        absorb_space: bool = True,
        vocab_path: str | Path | None = None,
    ) -> None:
        from ..baselines.tiktoken_offline import ENCODING_NAMES, load_encoding

        if encoding not in ENCODING_NAMES:
            raise ValueError(
                f"unknown encoding {encoding!r}: expected one of {', '.join(ENCODING_NAMES)}"
            )
        if not isinstance(sgpe, Tokenizer):
            raise TypeError(f"sgpe must be an sgpe.Tokenizer, not {type(sgpe).__name__}")
        self.sgpe = sgpe
        self.encoding_name = encoding
        self.enc: tiktoken.Encoding = load_encoding(encoding)
        self.offset: int = self.enc.n_vocab
        # Absorbing a space only helps an SGPE vocabulary with leading-space syllables.
        self.absorb_space = absorb_space and sgpe.leading_space
        self.vocab_path = Path(vocab_path) if vocab_path is not None else None
        # Only the scripts the SGPE vocabulary knows go to SGPE: a vocabulary trained on
        # Sinhala would spell Tamil in byte tokens, where o200k_base does better.
        letters = set().union(*map(set, sgpe.vocab)) - set(JOINERS)
        known = [s for s in schemas_for(sgpe.script) if s.code_points & letters]
        self.scripts = tuple(s.name for s in known)
        ranges = [r for name in self.scripts for r in SCRIPT_BLOCKS.get(name, ())]
        if custom_schema(sgpe.script) is not None:
            # A linguist's own schema has no block here: its own characters go to SGPE.
            ranges = code_point_ranges(set().union(*(s.code_points for s in known)) - set(JOINERS))
        indic = _range_class(ranges, DANDAS)
        run = f"{indic}[{indic[1:-1]}{JOINERS}]*"
        if sgpe.superwords_from is not None:
            # Superwords join whole syllables across one space: the words of the covered
            # scripts with single spaces between them stay one SGPE segment, so SGPE sees
            # its spans (sgpe/pieces.py) as its own encode() does.
            run = f"{run}(?: {run})*"
        self._indic_run = re.compile(run)

    # ==================================================================== properties
    @property
    def vocab_size(self) -> int:
        """Size of the unified id space: tiktoken's ``n_vocab`` + the SGPE vocabulary."""
        return self.offset + self.sgpe.vocab_size

    def is_sgpe_id(self, token_id: TokenId) -> bool:
        self._check_id(token_id)
        return token_id >= self.offset

    def _check_id(self, token_id: object) -> None:
        if isinstance(token_id, bool) or not isinstance(token_id, int):
            raise ValueError(f"invalid token id: {token_id!r} (ids are integers)")
        if not 0 <= token_id < self.vocab_size:
            raise ValueError(
                f"invalid token id: {token_id} (this meta-vocabulary has ids 0..{self.vocab_size - 1}: "
                f"{self.encoding_name} below {self.offset}, SGPE from {self.offset})"
            )

    # ==================================================================== routing
    def segment(self, text: str) -> list[Segment]:
        """Route ``text`` into tiktoken and SGPE segments (trailing-space absorption applied).

        ``"".join(s.source for s in segment(text)) == text``.
        """
        out: list[Segment] = []
        pos = 0
        for m in self._indic_run.finditer(text):
            start, end = m.span()
            gap = text[pos:start]
            leading = False
            if self.absorb_space and gap.endswith(" "):
                gap, leading = gap[:-1], True
            if gap:
                out.append(Segment(gap, "tiktoken"))
            out.append(Segment(m.group(), "sgpe", leading))
            pos = end
        if pos < len(text):
            out.append(Segment(text[pos:], "tiktoken"))
        return out

    # ==================================================================== encoding
    def encode(self, text: str) -> list[TokenId]:
        """Unified ids of ``text``; tiktoken special-token strings are encoded as text."""
        ids: list[int] = []
        for _, seg_ids in self.encode_segments(text):
            ids.extend(seg_ids)
        return ids

    def encode_segments(self, text: str) -> list[tuple[Segment, list[TokenId]]]:
        """Each routed segment with its unified ids (for displays and statistics)."""
        offset = self.offset
        out: list[tuple[Segment, list[TokenId]]] = []
        for k, seg in enumerate(self.segment(text)):
            if seg.kind == "tiktoken":
                out.append((seg, self.enc.encode_ordinary(seg.text)))
            else:
                # Only an SGPE segment that starts the text gets SGPE's dummy space (if the
                # vocabulary has prepend_space); decode() removes it again.
                ids = self.sgpe.encode(seg.source, prepend_space=self.sgpe.prepend_space and k == 0)
                out.append((seg, [i + offset for i in ids]))
        return out

    def tokenize(self, text: str) -> list[str]:
        """Display strings of ``encode(text)``; a tiktoken token that is not whole UTF-8
        shows its bytes as ``<0xNN>``."""
        return [self.id_to_token(i) for i in self.encode(text)]

    # ==================================================================== decoding
    def token_bytes(self, ids: Sequence[TokenId]) -> list[bytes]:
        """The bytes of each token; raises ``ValueError`` for an id outside the space."""
        out: list[bytes] = []
        for i in ids:
            self._check_id(i)
            if i >= self.offset:
                out.append(self.sgpe.token_bytes([i - self.offset])[0])
            else:
                try:
                    out.append(self.enc.decode_single_token_bytes(i))
                except KeyError:
                    raise ValueError(
                        f"invalid token id: {i} is unused in {self.encoding_name} "
                        "(the encoding has gaps below its n_vocab)"
                    ) from None
        return out

    def decode_bytes(self, ids: Sequence[TokenId]) -> bytes:
        return b"".join(self.token_bytes(ids))

    def decode(self, ids: Sequence[TokenId]) -> str:
        """Text of a mixed id stream: all token bytes concatenated, decoded as UTF-8
        (bytes that are not valid UTF-8 become U+FFFD). When the stream starts with an SGPE
        id of a vocabulary with ``prepend_space``, the space encode() added is removed."""
        text = self.decode_bytes(ids).decode("utf-8", errors="replace")
        if ids and ids[0] >= self.offset and self.sgpe.prepend_space and text.startswith(" "):
            text = text[1:]
        return text

    def id_to_token(self, token_id: TokenId) -> str:
        """Display string of one id (SGPE token string, or tiktoken bytes shown as text)."""
        self._check_id(token_id)
        if token_id >= self.offset:
            token = self.sgpe.id_to_token(token_id - self.offset)
            assert token is not None  # _check_id: an id of the SGPE vocabulary
            return token
        return display_bytes(self.token_bytes([token_id])[0])

    # ==================================================================== files
    def config(self, vocab_file: str, vocab_sha256: str) -> dict[str, Any]:
        """The ``meta_config.json`` document for this tokenizer."""
        ranges = [r for name in self.scripts for r in SCRIPT_BLOCKS.get(name, ())]
        return {
            "format": CONFIG_FORMAT,
            "format_version": CONFIG_FORMAT_VERSION,
            "tiktoken_encoding": self.encoding_name,
            "tiktoken_n_vocab": self.offset,
            "sgpe_offset": self.offset,
            "sgpe_vocab": vocab_file,
            "sgpe_vocab_sha256": vocab_sha256,
            "sgpe_vocab_size": self.sgpe.vocab_size,
            "total_vocab_size": self.vocab_size,
            "router": {
                "sgpe_scripts": list(self.scripts),
                "sgpe_ranges": [[f"{lo:04X}", f"{hi:04X}"] for lo, hi in ranges],
                "sgpe_extra": [f"{ord(c):04X}" for c in DANDAS],
                "joiners": [f"{ord(c):04X}" for c in JOINERS],
                "absorb_trailing_space": self.absorb_space,
            },
        }

    def save(self, config_path: str | Path, *, vocab_path: str | Path | None = None) -> Path:
        """Write ``meta_config.json`` (and the SGPE vocabulary if it has no file yet).

        The sidecar names the vocabulary by a path relative to its own directory. With
        ``vocab_path`` the SGPE vocabulary is (re)written there; otherwise the file it was
        loaded from is used, or ``vocab.json`` next to the sidecar is written.
        Returns the path of the vocabulary file.
        """
        config_path = Path(config_path)
        if vocab_path is not None:
            target = Path(vocab_path)
            self.sgpe.save(target)
        elif self.vocab_path is not None and self.vocab_path.is_file():
            target = self.vocab_path
        else:
            target = config_path.with_name("vocab.json")
            self.sgpe.save(target)
        rel = os.path.relpath(target.resolve(), config_path.resolve().parent)
        document = self.config(Path(rel).as_posix(), _sha256(target))
        write_json_atomic(config_path, document)
        self.vocab_path = target
        return target

    @classmethod
    def load(cls, path: str | Path) -> MetaTokenizer:
        """Load from a ``meta_config.json`` (or a directory holding one)."""
        path = Path(path)
        if path.is_dir():
            path = path / CONFIG_NAME
        data = read_meta_config(path)
        vocab_file = (path.parent / data["sgpe_vocab"]).resolve()
        if not vocab_file.is_file():
            raise ValueError(f"{path}: key 'sgpe_vocab': {vocab_file} does not exist")
        digest = _sha256(vocab_file)
        if digest != data["sgpe_vocab_sha256"]:
            raise ValueError(
                f"{path}: key 'sgpe_vocab_sha256': {vocab_file.name} has changed since the config "
                f"was written (sha256 {digest[:12]}…, expected {data['sgpe_vocab_sha256'][:12]}…); "
                "ids would not match; write the config again with MetaTokenizer.save"
            )
        sgpe = load_vocabulary_file(vocab_file, Tokenizer)
        if not isinstance(sgpe, Tokenizer):
            raise ValueError(
                f"{path}: key 'sgpe_vocab': {vocab_file.name} holds a {sgpe.model} vocabulary; "
                "a meta-vocabulary needs an SGPE one"
            )
        meta = cls(
            sgpe,
            data["tiktoken_encoding"],
            absorb_space=bool(data["router"].get("absorb_trailing_space", True)),
            vocab_path=vocab_file,
        )
        if meta.offset != data["sgpe_offset"] or meta.offset != data["tiktoken_n_vocab"]:
            raise ValueError(
                f"{path}: key 'sgpe_offset' is {data['sgpe_offset']}, but "
                f"{data['tiktoken_encoding']} has n_vocab {meta.offset}"
            )
        if meta.sgpe.vocab_size != data["sgpe_vocab_size"]:
            raise ValueError(
                f"{path}: key 'sgpe_vocab_size' is {data['sgpe_vocab_size']}, the vocabulary has "
                f"{meta.sgpe.vocab_size}"
            )
        return meta

    def __repr__(self) -> str:
        return (
            f"MetaTokenizer({self.encoding_name}: ids 0..{self.offset - 1}, "
            f"SGPE: ids {self.offset}..{self.vocab_size - 1}, scripts={self.scripts})"
        )


def read_meta_config(path: str | Path) -> dict[str, Any]:
    """Read and check a ``meta_config.json``; errors name the file and the key."""
    data = read_json(path)
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a meta config must be a JSON object")
    if data.get("format") != CONFIG_FORMAT:
        raise ValueError(
            f"{path}: key 'format' must be {CONFIG_FORMAT!r}; is this a meta_config.json?"
        )
    if data.get("format_version") != CONFIG_FORMAT_VERSION:
        raise ValueError(
            f"{path}: key 'format_version' is {data.get('format_version')!r}; this version of "
            f"sgpe reads format_version {CONFIG_FORMAT_VERSION}"
        )
    kinds: dict[str, type | tuple[type, ...]] = {
        "tiktoken_encoding": str,
        "tiktoken_n_vocab": int,
        "sgpe_offset": int,
        "sgpe_vocab": str,
        "sgpe_vocab_sha256": str,
        "sgpe_vocab_size": int,
        "router": dict,
    }
    for key, kind in kinds.items():
        if key not in data:
            raise ValueError(f"{path}: missing key {key!r}")
        if not isinstance(data[key], kind) or isinstance(data[key], bool):
            raise ValueError(f"{path}: key {key!r} has the wrong type ({data[key]!r:.40})")
    return data


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()

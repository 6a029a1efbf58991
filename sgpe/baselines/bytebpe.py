"""Byte-level BPE: the baseline that SGPE is compared against.

A `ByteBPETokenizer` splits text into chunks with a regular expression (the pre-tokenizer),
turns each chunk into its UTF-8 bytes, and applies learned merges of adjacent tokens inside
each chunk. This is the GPT-2 / tiktoken / minbpe design:

* 256 base tokens, one per byte value, so every string is encodable and decoding is
  lossless: ``decode(encode(text)) == text`` for any text.
* Merge ``i`` (rank ``i``) creates token id ``256 + i``. Encoding applies the merge with
  the lowest rank first, leftmost first on ties.
* ``<|endoftext|>`` is the only special token. It is reserved *after* training at id
  ``256 + number_of_merges``; during training and in `encode` the literal is ordinary text,
  and only `encode_with_special` maps it to its id. A requested ``vocab_size`` counts it,
  so a tokenizer trained for N ids has at most N ids (``vocab_size - 257`` merges).
* No pair ever crosses a chunk boundary, neither in training nor in encoding.

Training rule (the same in the slow reference in the tests): at each step the adjacent
pair with the highest count wins, ties go to the smallest pair ``(left_id, right_id)``,
and the merge is applied to every chunk left to right without overlaps (``x x x`` with
merge ``(x, x)`` becomes ``xx x``). Training is deterministic: the same texts and
arguments give the same merges and a byte-identical saved file.

>>> tok = ByteBPETokenizer.train(["ab ab ab"], vocab_size=259, pattern="gpt2")
>>> tok.merges, tok.vocab_size
(((97, 98), (32, 256)), 259)
>>> tok.tokenize("ab ab")
['ab', ' ab']
>>> tok.decode(tok.encode("ab abc"))
'ab abc'

Does not: normalize text (no NFC, no case folding), add other special tokens, or export
to Hugging Face `tokenizer.json`.
"""

from __future__ import annotations

import time
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import regex

from sgpe._engine import dispatch, json_bytes, native_bytebpe_trainer, run_in_batches
from sgpe.settings import MAX_VOCAB_SIZE, default, default_min_freq

from .._atomic import atomic_write
from .._json import BYTE_LEVEL_LAYOUT
from .._surrogates import names_lone_surrogate
from .._vocab_keys import merge_counts_of
from ..bpe import BpeTrainer, ResumeMismatch, bpe
from ..protocol import (
    FORMAT_NAME,
    MergeStep,
    Pair,
    TokenId,
    WordTrace,
    check_num_threads,
    display_bytes,
    flat_ids,
    is_token_id,
)
from ..spans import Encoded, measure_by_token_bytes, spans_from_token_bytes
from .patterns import SPLIT_PATTERNS
from .patterns import compile_pattern as _compile
from .patterns import resolve_pattern as _resolve_pattern

if TYPE_CHECKING:
    from sgpe._engine import BpeTrainer as NativeBpeTrainer

__all__ = [
    "DEFAULT_PATTERN",
    "END_OF_TEXT",
    "FORMAT_VERSION",
    "SPLIT_PATTERNS",
    "ByteBPETokenizer",
    "MergeCallback",
    "ProgressCallback",
]

# ============================================================================ constants

DEFAULT_PATTERN: str = default("pattern")  # declared with the other settings

END_OF_TEXT = "<|endoftext|>"
FORMAT_VERSION = 1
MODEL_NAME = "bytebpe"

_BYTE_TOKENS = 256
# Token ids are stored as code points of a str during training and encoding (see
# `_learn_merges`), so an id must be a valid code point (the limit all settings share).
_MAX_VOCAB_SIZE = MAX_VOCAB_SIZE
# Encoded chunks remembered by `encode`; the cache is emptied when it reaches this size.
_CACHE_SIZE = 65536

#: ``progress(step, (left, right), count, elapsed_seconds)``, called once per merge:
#: ``step`` counts merges learned so far (1 for the first), ``left``/``right`` are the
#: display strings of the merged tokens, ``count`` is the pair's frequency.
ProgressCallback = Callable[[int, tuple[str, str], int, float], None]
#: ``on_merge(step, left_id, right_id, count)``: the same event with token ids (what a
#: checkpoint records; display strings cannot be mapped back to ids).
MergeCallback = Callable[[int, int, int, int], None]


# ============================================================================ pre-tokenizer


def _split(compiled: regex.Pattern[str], text: str) -> list[str]:
    """Split `text` into chunks; the chunks always concatenate back to `text`.

    The named patterns cover every character. A custom pattern may not: the text between
    two matches then becomes a chunk of its own instead of being dropped.
    """
    if compiled.groups == 0:
        chunks: list[str] = compiled.findall(text)
        if sum(map(len, chunks)) == len(text):
            return chunks
    chunks = []
    end = 0
    for match in compiled.finditer(text):
        start = match.start()
        if start > end:
            chunks.append(text[end:start])
        if match.end() > start:
            chunks.append(match.group())
        end = match.end()
    if end < len(text):
        chunks.append(text[end:])
    return chunks


def _byte_string(chunk: str) -> str:
    """The chunk's UTF-8 bytes as a str of code points 0..255 (one char per byte token)."""
    return chunk.encode("utf-8").decode("latin-1")


# ============================================================================ training


def _learn_merges(
    trainer: NativeBpeTrainer | BpeTrainer,
    num_merges: int,
    min_freq: int,
    on_merge: MergeCallback,
    replay: Sequence[Pair],
) -> list[Pair]:
    """Learn up to `num_merges` merges with the BPE loop the paper mode uses too (the
    native core's ``BpeTrainer``, or its Python twin in sgpe/bpe.py), over the chunks as
    bytes. Merge ``i`` always makes the new token ``256 + i``, even when its bytes equal
    an earlier token's. ``on_merge(step, left_id, right_id, count)`` is called after each
    merge, replayed ones included; the loop runs in batches
    (`sgpe._engine.run_in_batches`), so a signal handler or a progress display waits at
    most one batch.

    ``replay``: merges already learned (a checkpoint). They are applied first without
    searching the heap, so training continues exactly as if it had never stopped. A
    replayed pair that does not occur at least ``min_freq`` times raises
    :class:`sgpe.bpe.ResumeMismatch`.
    """
    if len(replay) > num_merges:
        raise ResumeMismatch(f"{len(replay)} merges to resume from, but only {num_merges} wanted")
    merges: list[Pair] = []
    for left_id, right_id in replay:
        applied, count, _ = trainer.replay(left_id, right_id, max(min_freq, 1))
        if not applied:
            raise ResumeMismatch(
                f"merge {len(merges) + 1} {(left_id, right_id)} to resume from occurs "
                f"{count} times in this corpus"
            )
        merges.append((left_id, right_id))
        on_merge(len(merges), left_id, right_id, count)
    target = _BYTE_TOKENS + num_merges  # merge i makes id 256 + i

    def step(most: int, seconds: float) -> bool:
        batch, finished, error = trainer.learn(target, min_freq, most, seconds)
        for left_id, right_id, count, _ in batch:
            merges.append((left_id, right_id))
            on_merge(len(merges), left_id, right_id, count)
        if error is not None:
            raise error
        return finished

    run_in_batches(step)
    return merges


# ============================================================================ tokenizer


class ByteBPETokenizer:
    """Byte-level BPE tokenizer with a regex pre-tokenizer (tiktoken/minbpe style).

    Build one with `train` or load a saved one with :func:`sgpe.load`; the constructor
    takes learned merges directly. `vocab_size` counts every id: 256 bytes + merges +
    ``<|endoftext|>``. It meets :class:`sgpe.protocol.TokenizerProtocol`.
    """

    model = MODEL_NAME
    name = model  # the tokenizer contract's label is the file's model

    def __init__(
        self,
        merges: Sequence[Pair] = (),
        pattern: str = DEFAULT_PATTERN,
        *,
        training: Mapping[str, Any] | None = None,
        merge_counts: Sequence[int] | None = None,
    ) -> None:
        """Make a tokenizer from merges in rank order (merge ``i`` creates id ``256 + i``).

        `pattern` is a key of `SPLIT_PATTERNS` or a regex string (for the `regex` package).
        `training` is optional JSON-serializable metadata that `save` writes as given.
        `merge_counts` (aligned with `merges`) is how often each pair occurred when the
        trainer chose it; None when unknown.
        """
        self._pattern, self._pattern_name = _resolve_pattern(pattern)
        self._compiled = _compile(self._pattern)
        checked = _check_merges(merges, "merges")
        self._merges: tuple[Pair, ...] = tuple(checked)
        self.training: dict[str, Any] = dict(training or {})
        self.merge_counts: list[int] | None = (
            None if merge_counts is None else [int(c) for c in merge_counts]
        )
        if self.merge_counts is not None and len(self.merge_counts) != len(self._merges):
            raise ValueError(
                f"merge_counts has {len(self.merge_counts)} entries but there are "
                f"{len(self._merges)} merges; they must be aligned"
            )

        token_bytes = [bytes([b]) for b in range(_BYTE_TOKENS)]
        for left, right in self._merges:
            token_bytes.append(token_bytes[left] + token_bytes[right])
        self._eot_id = len(token_bytes)
        token_bytes.append(END_OF_TEXT.encode("utf-8"))
        self._token_bytes = token_bytes
        # The encoder's table (sgpe.bpe.bpe): (left, right) -> (rank, the id it makes).
        self._ranks: dict[Pair, tuple[int, TokenId]] = {
            pair: (rank, _BYTE_TOKENS + rank) for rank, pair in enumerate(self._merges)
        }
        self._cache: dict[str, list[TokenId]] = {}

    # ------------------------------------------------------------------------ training

    @classmethod
    def train(
        cls,
        texts: Iterable[str],
        vocab_size: int,
        *,
        pattern: str = DEFAULT_PATTERN,
        min_freq: int | None = None,
        progress: ProgressCallback | None = None,
        on_merge: MergeCallback | None = None,
        resume_merges: Sequence[Pair] = (),
    ) -> ByteBPETokenizer:
        """Learn a byte-level BPE vocabulary from `texts`.

        `vocab_size` is the number of token ids to aim for: the 256 byte tokens, up to
        ``vocab_size - 257`` merges, and ``<|endoftext|>``, reserved after training at id
        ``256 + len(merges)``. So the trained tokenizer's `vocab_size` property is
        ``256 + len(merges) + 1``, exactly the requested size unless training stops early,
        without error, when no pair occurs at least `min_freq` times (by default, see
        ``sgpe.settings.MIN_FREQ_DEFAULTS``: when every
        chunk is a single token).

        `progress` is called after every merge (see `ProgressCallback`); throttle inside
        the callback (e.g. act on every 100th step) if updating a UI is expensive.
        `on_merge` gets the same event with token ids. `resume_merges` (the merges of a
        checkpoint of the same training) are replayed before training continues; the
        result is the same as an uninterrupted run's.

        >>> tok = ByteBPETokenizer.train(["ab\\nab\\nab\\nab\\nab"], vocab_size=300)
        >>> tok.merges, tok.vocab_size
        (((97, 98),), 258)
        """
        if isinstance(texts, (str, bytes)):
            raise TypeError(
                "texts must be an iterable of strings, not a single "
                f"{type(texts).__name__}; wrap one text in a list: [text]"
            )
        if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
            raise TypeError(f"vocab_size must be an int, not {type(vocab_size).__name__}")
        if vocab_size < _BYTE_TOKENS + 1:
            raise ValueError(
                "vocab_size must be at least 257 (a token for every byte and <|endoftext|>); "
                f"got {vocab_size}"
            )
        if vocab_size > _MAX_VOCAB_SIZE:
            raise ValueError(f"vocab_size must be at most {_MAX_VOCAB_SIZE}; got {vocab_size}")
        if min_freq is None:
            min_freq = default_min_freq("", MODEL_NAME)
        if isinstance(min_freq, bool) or not isinstance(min_freq, int) or min_freq < 1:
            raise ValueError(f"min_freq must be an int >= 1; got {min_freq!r}")
        pattern_string, _ = _resolve_pattern(pattern)
        compiled = _compile(pattern_string)

        chunk_counts: Counter[str] = Counter()
        for position, text in enumerate(texts):
            if not isinstance(text, str):
                raise TypeError(
                    f"texts[{position}] is a {type(text).__name__}; every text must be a str"
                )
            chunk_counts.update(_split(compiled, text))
        native = native_bytebpe_trainer(chunk_counts)

        callback = on_merge
        if progress is not None:
            token_bytes = [bytes([b]) for b in range(_BYTE_TOKENS)]
            started = time.perf_counter()
            show = progress

            def callback(step: int, left: int, right: int, count: int) -> None:
                token_bytes.append(token_bytes[left] + token_bytes[right])
                shown = (display_bytes(token_bytes[left]), display_bytes(token_bytes[right]))
                if on_merge is not None:
                    on_merge(step, left, right, count)
                show(step, shown, count, time.perf_counter() - started)

        counts: list[int] = []  # replayed merges report their counts too

        def record(step: int, left: int, right: int, count: int) -> None:
            counts.append(count)
            if callback is not None:
                callback(step, left, right, count)

        num_merges = vocab_size - _BYTE_TOKENS - 1

        def python_twin() -> NativeBpeTrainer | BpeTrainer:
            return BpeTrainer.of_chunks(list(chunk_counts), list(chunk_counts.values()))

        trainer = dispatch(native, lambda n: n, python_twin, surrogate_fallback=False)
        replay = _check_merges(list(resume_merges), "resume_merges")
        merges = _learn_merges(trainer, num_merges, min_freq, record, replay)
        unique_chunks = trainer.unique_words
        training = {
            "requested_vocab_size": vocab_size,
            "min_freq": min_freq,
            "chunks": sum(chunk_counts.values()),
            "unique_chunks": unique_chunks,
        }
        return cls(merges, pattern_string, training=training, merge_counts=counts)

    # ------------------------------------------------------------------------ properties

    @property
    def vocab_size(self) -> int:
        """Number of token ids: 256 bytes + merges + 1 special (``<|endoftext|>``)."""
        return len(self._token_bytes)

    @property
    def merges(self) -> tuple[Pair, ...]:
        """Learned merges in rank order; merge ``i`` creates token id ``256 + i``."""
        return self._merges

    @property
    def num_merges(self) -> int:
        return len(self._merges)

    @property
    def pattern(self) -> str:
        """The split regex in use (the full pattern string, also for named patterns)."""
        return self._pattern

    @property
    def pattern_name(self) -> str | None:
        """Key of `SPLIT_PATTERNS` when the pattern is a named one, else None."""
        return self._pattern_name

    @property
    def eot_id(self) -> TokenId:
        """Id of ``<|endoftext|>``: ``256 + num_merges``."""
        return self._eot_id

    @property
    def special_tokens(self) -> dict[str, TokenId]:
        """``{"<|endoftext|>": eot_id}`` (a new dict each call)."""
        return {END_OF_TEXT: self._eot_id}

    @cached_property
    def _display_ids(self) -> dict[str, TokenId]:
        """Display string (`id_to_token`) -> id, in id order. Display strings can collide
        (text "<0xE0>" vs the byte 0xE0): the lowest id is kept."""
        vocab: dict[str, TokenId] = {}
        for token_id, data in enumerate(self._token_bytes):
            vocab.setdefault(display_bytes(data), token_id)
        return vocab

    def get_vocab(self) -> dict[str, TokenId]:
        """Display string -> id, a copy (see `_display_ids` for the one case where two ids
        share a display string)."""
        return dict(self._display_ids)

    def token_to_id(self, token: str) -> TokenId | None:
        """The id whose display string (`id_to_token`) is ``token``; None if there is none."""
        return self._display_ids.get(token)

    def __repr__(self) -> str:
        shown = self._pattern_name or "custom"
        return f"ByteBPETokenizer(vocab_size={self.vocab_size}, pattern={shown!r})"

    # ------------------------------------------------------------------------ encoding

    def split(self, text: str) -> list[str]:
        """Pre-tokenize: the regex chunks of `text`, in order, concatenating to `text`."""
        return _split(self._compiled, text)

    @names_lone_surrogate
    def encode(self, text: str) -> list[TokenId]:
        """Token ids of `text`; ``<|endoftext|>`` in the text is encoded as ordinary text.

        A lone surrogate, which has no UTF-8, raises a ValueError naming its position
        (``sgpe._surrogates.LoneSurrogateError``).
        """
        ids: list[TokenId] = []
        cache = self._cache
        for chunk in _split(self._compiled, text):
            chunk_ids = cache.get(chunk)
            if chunk_ids is None:
                chunk_ids = self._encode_chunk(chunk)
                if len(cache) >= _CACHE_SIZE:
                    cache.clear()
                cache[chunk] = chunk_ids
            ids.extend(chunk_ids)
        return ids

    @names_lone_surrogate
    def encode_batch(
        self, texts: Sequence[str], *, num_threads: int | None = None
    ) -> list[list[TokenId]]:
        """``[self.encode(t) for t in texts]``. The byte-level encoder runs in Python, which
        one thread runs at a time, so ``num_threads`` is checked and then unused."""
        check_num_threads(num_threads)
        return list(map(self.encode, texts))

    def encode_batch_flat(
        self, texts: Sequence[str], *, num_threads: int | None = None
    ) -> tuple[array[int], array[int]]:
        """:meth:`encode_batch` as two flat arrays, as :meth:`sgpe.Tokenizer.encode_batch_flat`
        gives them: ``ids`` (``array("I")``), every text's ids one after the other, and
        ``offsets`` (``array("q")``, one more entry than ``texts``): text ``k``'s ids are
        ``ids[offsets[k]:offsets[k + 1]]``."""
        return flat_ids(self.encode_batch(texts, num_threads=num_threads))

    def encode_with_spans(self, text: str) -> tuple[list[TokenId], list[tuple[int, int]]]:
        """Ids and each token's span in the UTF-8 bytes of ``text``, as
        :meth:`sgpe.Tokenizer.encode_with_spans` gives them (a token may cut a character:
        its span is its own bytes).

        >>> ByteBPETokenizer([(97, 98)]).encode_with_spans("abc")
        ([256, 99], [(0, 2), (2, 3)])
        """
        ids = self.encode(text)
        return ids, spans_from_token_bytes(self.token_bytes(ids))

    @names_lone_surrogate
    def encode_with_special(self, text: str) -> list[TokenId]:
        """Like `encode`, but each literal ``<|endoftext|>`` becomes `eot_id`. Specific to
        this model (tiktoken's convention: the document separator may stand in the text);
        an SGPE vocabulary's special tokens are never read from text, a post-processor
        adds them (docs/decisions.md)."""
        ids: list[TokenId] = []
        for position, part in enumerate(text.split(END_OF_TEXT)):
            if position:
                ids.append(self._eot_id)
            ids.extend(self.encode(part))
        return ids

    def _encode_chunk(self, chunk: str) -> list[TokenId]:
        # The same merge rule as SGPE's encoders: lowest rank first, leftmost on ties.
        return bpe(list(chunk.encode("utf-8")), self._ranks)

    # ------------------------------------------------------------------------ decoding

    def measure(self, text: str) -> Encoded:
        """Ids and their byte spans as the metrics read them (the tokenizer contract)."""
        started = time.perf_counter()
        ids = self.encode(text)
        seconds = time.perf_counter() - started
        return measure_by_token_bytes(text, ids, seconds, self.token_bytes, self.decode)

    def token_bytes(self, ids: Sequence[TokenId]) -> list[bytes]:
        """The bytes of each token; raises ValueError for an id outside the vocabulary."""
        table = self._token_bytes
        try:
            if ids and min(ids) < 0:
                raise IndexError
            return [table[token_id] for token_id in ids]
        except (IndexError, TypeError):
            for token_id in ids:
                self._check_id(token_id)
            raise

    def decode_bytes(self, ids: Sequence[TokenId]) -> bytes:
        """The exact bytes of `ids` (may end inside a character)."""
        return b"".join(self.token_bytes(ids))

    def decode(self, ids: Sequence[TokenId]) -> str:
        """Text of `ids`. Bytes that are not valid UTF-8 (e.g. a sequence cut inside a
        character) become U+FFFD; use `decode_bytes` to get them exactly.

        >>> tok = ByteBPETokenizer()
        >>> tok.decode(tok.encode("ශ්‍රී"))
        'ශ්‍රී'
        """
        return self.decode_bytes(ids).decode("utf-8", errors="replace")

    def id_to_token(self, token_id: TokenId) -> str | None:
        """Display form of one token: its text, with non-UTF-8 bytes shown as ``<0xNN>``;
        None for an id that is not in the vocabulary."""
        if not is_token_id(token_id, len(self._token_bytes)):
            return None
        return display_bytes(self._token_bytes[token_id])

    def tokenize(self, text: str) -> list[str]:
        """Display form of each token of ``encode(text)``.

        >>> ByteBPETokenizer().tokenize("අ")
        ['<0xE0>', '<0xB6>', '<0x85>']
        """
        table = self._token_bytes
        return [display_bytes(table[token_id]) for token_id in self.encode(text)]

    def _check_id(self, token_id: object) -> None:
        if not is_token_id(token_id, len(self._token_bytes)):
            raise ValueError(
                f"invalid token id: {token_id!r} "
                f"(vocabulary has ids 0..{len(self._token_bytes) - 1})"
            )

    # ------------------------------------------------------------------------ tracing

    def merge_trace(self, text: str) -> list[WordTrace]:
        """Every merge applied to each chunk of `text`, for the step-by-step view.

        One `MergeStep` merges one adjacent pair: the lowest-rank pair present, leftmost
        first. A merge that matches twice in a chunk gives two steps with the same rank.
        ``rank`` is the merge's index (its new token id minus 256).
        """
        traces: list[WordTrace] = []
        shown: dict[TokenId, str] = {}

        def show(token_id: TokenId) -> str:
            if token_id not in shown:
                shown[token_id] = display_bytes(self._token_bytes[token_id])
            return shown[token_id]

        for chunk in _split(self._compiled, text):
            if not chunk:
                continue
            tokens = [ord(s) for s in _byte_string(chunk)]
            initial = tuple(show(t) for t in tokens)
            steps: list[MergeStep] = []
            while len(tokens) > 1:
                best_rank = -1
                best_position = -1
                for position in range(len(tokens) - 1):
                    found = self._ranks.get((tokens[position], tokens[position + 1]))
                    if found is not None and (best_rank < 0 or found[1] < best_rank):
                        best_rank, best_position = found[1], position
                if best_rank < 0:
                    break
                pair = (show(tokens[best_position]), show(tokens[best_position + 1]))
                tokens[best_position : best_position + 2] = [best_rank]
                steps.append(
                    MergeStep(
                        pair=pair,
                        rank=best_rank - _BYTE_TOKENS,
                        tokens=tuple(show(t) for t in tokens),
                        kind="bytes",
                    )
                )
            traces.append(WordTrace(word=chunk, initial=initial, steps=tuple(steps)))
        return traces

    # ------------------------------------------------------------------------ files

    def to_dict(self, training: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The model as the JSON-ready dict that `save` writes (see `save` for the keys)."""
        # The map is informational; `_from_dict` rebuilds from `merges`.
        vocab = dict(self._display_ids)
        return {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "model": MODEL_NAME,
            "pattern": self._pattern,
            "pattern_name": self._pattern_name,
            "vocab_size": self.vocab_size,
            "num_merges": len(self._merges),
            "merges": [[left, right] for left, right in self._merges],
            **({"merge_counts": list(self.merge_counts)} if self.merge_counts is not None else {}),
            "special_tokens": self.special_tokens,
            "vocab": vocab,
            "training": dict(self.training if training is None else training),
        }

    def save(self, path: str | Path, *, training: Mapping[str, Any] | None = None) -> None:
        """Write the model as UTF-8 JSON, atomically (temp file + rename).

        Keys: ``format`` ("sgpe-vocab"), ``format_version`` (1), ``model`` ("bytebpe"),
        ``pattern``, ``pattern_name`` (or null), ``vocab_size``, ``num_merges``,
        ``merges`` (``[left_id, right_id]`` in rank order), ``merge_counts`` (when known:
        each merge's pair count in training), ``special_tokens``, ``vocab``
        (display string -> id, informational only) and ``training`` (metadata: the
        `training` argument if given, else `self.training`). Identical models give
        byte-identical files.
        """
        atomic_write(path, json_bytes(self.to_dict(training), layout=BYTE_LEVEL_LAYOUT))

    @classmethod
    def _from_dict(cls, data: Mapping[str, Any], *, source: str = "<dict>") -> ByteBPETokenizer:
        """Rebuild a tokenizer from `to_dict` output, checking every key it relies on (what
        :func:`sgpe.load` does with a byte-level file)."""
        if not isinstance(data, Mapping):
            raise ValueError(f"{source}: expected a JSON object, got {type(data).__name__}")

        def fail(key: str, problem: str) -> ValueError:
            return ValueError(f"{source}: key {key!r} {problem}")

        if data.get("format") != FORMAT_NAME:
            raise fail("format", f"is {data.get('format')!r}; expected {FORMAT_NAME!r}")
        version = data.get("format_version")
        if isinstance(version, bool) or version != FORMAT_VERSION:
            raise fail(
                "format_version",
                f"is {version!r}; this version of sgpe reads format_version {FORMAT_VERSION}",
            )
        if data.get("model") != MODEL_NAME:
            raise fail(
                "model",
                f"is {data.get('model')!r}, not {MODEL_NAME!r}; load this file with the "
                "tokenizer class of that model",
            )
        pattern = data.get("pattern")
        if not isinstance(pattern, str):
            raise fail("pattern", f"must be a regex string, not {pattern!r}")
        try:
            _compile(pattern)
        except ValueError as err:
            raise fail("pattern", f"does not compile: {err}") from None
        merges = _check_merges(data.get("merges"), "merges", source)
        count = data.get("num_merges", len(merges))
        if count != len(merges):
            raise fail("num_merges", f"is {count!r} but 'merges' has {len(merges)} entries")
        eot_id = _BYTE_TOKENS + len(merges)
        size = data.get("vocab_size", eot_id + 1)
        if size != eot_id + 1:
            raise fail(
                "vocab_size", f"is {size!r}; 256 bytes + {len(merges)} merges + 1 = {eot_id + 1}"
            )
        specials = data.get("special_tokens", {END_OF_TEXT: eot_id})
        if specials != {END_OF_TEXT: eot_id}:
            raise fail("special_tokens", f"is {specials!r}; expected {{{END_OF_TEXT!r}: {eot_id}}}")
        training = data.get("training", {})
        if not isinstance(training, Mapping):
            raise fail("training", f"must be an object, not {type(training).__name__}")
        counts = merge_counts_of(data, source)
        if counts is not None and len(counts) != len(merges):
            raise fail("merge_counts", f"has {len(counts)} entries but 'merges' has {len(merges)}")
        return cls(merges, pattern, training=training, merge_counts=counts)


# ============================================================================ helpers


def _check_merges(merges: object, key: str, source: str | None = None) -> list[Pair]:
    """Validate merges in rank order: each ``[left, right]`` uses only earlier ids."""
    where = f"{source}: key {key!r}" if source else key
    if not isinstance(merges, (list, tuple)):
        raise ValueError(f"{where} must be a list of [left_id, right_id] pairs")
    checked: list[Pair] = []
    seen: dict[Pair, int] = {}
    for rank, merge in enumerate(merges):
        limit = _BYTE_TOKENS + rank
        if (
            not isinstance(merge, (list, tuple))
            or len(merge) != 2
            or not all(isinstance(t, int) and not isinstance(t, bool) for t in merge)
            or not all(0 <= t < limit for t in merge)
        ):
            raise ValueError(
                f"{where}: entry {rank} is {merge!r}; each merge must be [left_id, right_id] "
                f"with ids in 0..{limit - 1} (bytes and tokens made by earlier merges)"
            )
        pair = (merge[0], merge[1])
        if pair in seen:
            raise ValueError(f"{where}: entry {rank} repeats the pair of entry {seen[pair]}")
        seen[pair] = rank
        checked.append(pair)
    if _BYTE_TOKENS + len(checked) > _MAX_VOCAB_SIZE:
        raise ValueError(f"{where}: too many merges ({len(checked)})")
    return checked

"""The SGPE tokenizer: ``vocab.json`` in and out, encode, decode, tokenize, merge trace.

Encoding (the original SGPE encoder, plus a lossless fallback; ``docs/algorithms.md``):

1. split the text into pieces (:mod:`sgpe.pieces`) and each piece into syllables;
2. map syllables to ids. A syllable missing from the vocabulary is a merge barrier:
   with ``oov_policy="fallback"`` a missing ``" X"`` becomes ``" "`` + ``"X"``, a missing
   syllable is spelled with code-point tokens, and any other character with its UTF-8
   byte tokens ``<0xNN>``; with ``"unk"`` it becomes ``[UNK]`` as in the paper;
3. inside each run of known syllables apply the merges by rank: repeatedly merge the
   leftmost occurrence of the lowest-ranked adjacent pair, as the original encoder does
   (:func:`sgpe.bpe.bpe`, which the hierarchical encoder uses too; long runs use
   a heap over a linked list instead of rescanning).

Results are cached per piece. ``decode`` concatenates token bytes, so with ``fallback``
``decode(encode(x)) == x`` for every string. Special tokens are never parsed from text:
the literal string ``[UNK]`` in the input is ordinary text.
"""

from __future__ import annotations

import sys
import time
from array import array
from collections.abc import Mapping, Sequence
from functools import cached_property
from itertools import chain
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, cast

from ._atomic import atomic_write
from ._engine import dispatch, json_bytes, native_file_encoder, native_text_encoder
from ._surrogates import lone_surrogate_error, names_lone_surrogate
from ._vocab_keys import (
    json_kind,
    merge_counts_of,
    optional_key,
    optional_str,
    recorded_script,
    required_key,
    schema_record,
)
from .bpe import bpe
from .hierarchical import HierarchicalEncoder
from .pieces import get_word_splitter, span_letters
from .protocol import (
    BYTE_TOKEN,
    FORMAT_NAME,
    MergeStep,
    TokenId,
    WordTrace,
    byte_token,
    check_num_threads,
    flat_ids,
    is_token_id,
)
from .settings import (
    MAX_PIECE_UNITS,
    ORIGINAL_TRAINER,
    SPECIAL_TOKENS,
    UNRECORDED,
    default,
    default_min_freq,
)
from .spans import Encoded

if TYPE_CHECKING:
    from ._engine import TextEncoder, VocabFile
    from .hierarchical import MergeKind

FORMAT_VERSION = 1
REFERENCE_VERSION = "sgpe_v1.0.0"  # the original trainer's; kept so its encoder reads our files
_PIECE_CACHE_LIMIT = 500_000  # pieces whose ids are remembered (then the cache starts afresh)


# Byte tokens a hierarchical vocabulary carries for its lossless fallback: every ASCII
# character is a token of its own, so only the bytes of multi-byte UTF-8 sequences are
# needed (continuation bytes 80..BF and lead bytes C2..F4; C0, C1 and F5..FF never occur).
FALLBACK_BYTES = tuple(range(0x80, 0xC0)) + tuple(range(0xC2, 0xF5))


def _flat_arrays(buffers: tuple[bytes, bytes] | None) -> tuple[array[int], array[int]] | None:
    """The native flat form's buffers (little-endian uint32 ids, uint64 offsets) as the
    arrays of :meth:`Tokenizer.encode_batch_flat`; None (an id of -1) stays None."""
    if buffers is None:
        return None
    ids, offsets = array("I", buffers[0]), array("q", buffers[1])
    if sys.byteorder == "big":  # the native core writes little-endian
        ids.byteswap()
        offsets.byteswap()
    return ids, offsets


class Tokenizer:
    """A trained SGPE vocabulary. Create with :func:`sgpe.train` or :func:`sgpe.load`."""

    model = "sgpe"
    name = model  # the tokenizer contract's label is the file's model

    def __init__(
        self,
        vocab: dict[str, int],
        merges: Sequence[tuple[str, str]],
        *,
        leading_space: bool = default("leading_space"),
        script: str = default("script"),
        pieces: str = default("pieces"),
        prepend_space: bool | None = None,
        oov_policy: str = default("oov_policy"),
        prune_freq: int = default("prune_freq"),
        min_freq: int | None = None,
        special_tokens: Sequence[str] = SPECIAL_TOKENS,
        training: dict[str, Any] | None = None,
        source: str = "<vocab>",
        mode: str = default("mode"),
        merge_kinds: Sequence[MergeKind] | None = None,
        merge_counts: Sequence[int] | None = None,
        max_piece_units: int = default("max_piece_units"),
        superwords_from: int | None = None,
        _file: VocabFile | None = None,
        _trained: bool = False,
    ) -> None:
        """The defaults are :func:`sgpe.train`'s (sgpe/settings.py ``TrainSettings``), so
        ``Tokenizer(vocab, merges)`` encodes as a vocabulary ``train`` would have written with
        those merges; ``prepend_space`` and ``min_freq`` left as None take train's rule (same
        as ``leading_space``; the mode's default). A file that does not record a setting
        means something else (the original SGPE's behaviour, ``UNRECORDED``):
        :meth:`_from_dict` passes that explicitly."""
        file = _file  # private: only _from_dict passes the native reader's file
        if prepend_space is None:
            prepend_space = leading_space
        if min_freq is None:
            min_freq = default_min_freq(mode)
        #: The native reader's file (:func:`sgpe.load`), its ``vocab`` and ``merges`` read and
        #: checked: ``vocab`` and ``merges`` are then not read (pass empty ones), the
        #: native encoder is built from the file, and the Python tables (``vocab``,
        #: ``merges``, ``_id_to_token``) are made from it when first used.
        self._file = file
        if file is None:
            self._vocab = dict(vocab)
        #: The vocabulary size from which the trainer let merges join whole syllables
        #: across a space (superwords), or None. With it, text is cut into superword spans
        #: and pieces (:func:`sgpe.pieces.span_regex`) and merges apply across a span.
        self.superwords_from = superwords_from
        self.max_piece_units = max_piece_units
        self.mode = mode
        if file is None:
            self.merges = [(m[0], m[1]) for m in merges]
        self.leading_space = leading_space
        self.script = script
        self.pieces = pieces
        self.prepend_space = prepend_space and leading_space
        self.oov_policy = oov_policy
        self.prune_freq = prune_freq
        self.min_freq = min_freq
        self._special = tuple(special_tokens)
        self.training = dict(training or {})
        #: How often each merge's pair occurred when the trainer chose it (aligned with
        #: ``merges``), so the app can show it without retraining; None when unknown
        #: (a file written before the trainer recorded it).
        self.merge_counts: list[int] | None = (
            None
            if merge_counts is None
            else list(merge_counts)
            if file is not None  # _from_dict checked them: exact ints
            else [int(c) for c in merge_counts]
        )
        # The tokens the checks and the fallback look up: the file's own answers for a file
        # (its vocab dict is not made yet), else the vocab itself.
        known: Mapping[str, int] = self._vocab if file is None else file.lookup(self._looked_up())
        self._check(source, known, merges_made=_trained)
        if file is None:
            self._id_to_token = [""] * len(self._vocab)
            for tok, i in self._vocab.items():
                self._id_to_token[i] = tok
        self.unk_id = known.get("[UNK]", -1)
        self._special_ids = {t: known[t] for t in self._special}  # _check: all known
        self._byte_ids = (
            [known.get(byte_token(b), -1) for b in range(256)] if oov_policy == "fallback" else []
        )
        self._splitter = get_word_splitter(
            script, leading_space, pieces, max_piece_units, superwords_from is not None
        )
        self._units = self._splitter.units
        self._pieces = self._splitter.pieces
        self._cache: dict[str, list[int]] = {}
        self._span_cache: dict[str, tuple[list[int], list[int]]] = {}
        # The encoding tables (_token_bytes, _ranks, _hier, _native_pieces) are built when
        # first used: a trainer that only saves its vocabulary never needs them.
        self._merge_kinds = None if merge_kinds is None else list(merge_kinds)

    def _looked_up(self) -> list[str]:
        """Every token ``__init__`` and ``_check`` look up."""
        return [
            *self._special,
            *map(chr, range(128)),
            *map(byte_token, range(256)),
            "[UNK]",
        ]

    @cached_property
    def _tables(self) -> tuple[dict[str, int], list[str], list[tuple[str, str]]]:
        """``vocab``, ``_id_to_token`` and ``merges`` of the native reader's file."""
        assert self._file is not None, "set by __init__ unless there is a file"
        return self._file.tables()

    @cached_property
    def _vocab(self) -> dict[str, int]:
        """Token -> id (a file the native reader read makes it when first read)."""
        return self._tables[0]

    @property
    def vocab(self) -> Mapping[str, int]:
        """Token -> id, read-only (a view of the table :meth:`encode` reads; :meth:`get_vocab`
        gives a copy to change)."""
        return MappingProxyType(self._vocab)

    @cached_property
    def merges(self) -> list[tuple[str, str]]:
        """The merges in rank order, each a (left, right) pair of tokens."""
        return self._tables[2]

    @cached_property
    def _id_to_token(self) -> list[str]:
        return self._tables[1]

    @cached_property
    def _token_bytes(self) -> list[bytes]:
        return [_bytes_of(t) for t in self._id_to_token]

    @cached_property
    def _ranks(self) -> dict[tuple[int, int], tuple[int, int]]:
        """(left id, right id) -> (rank, merged id) of each pair's first merge."""
        ranks: dict[tuple[int, int], tuple[int, int]] = {}
        for rank, (a, b) in enumerate(self.merges):
            key = (self._vocab[a], self._vocab[b])
            ranks.setdefault(key, (rank, self._vocab[a + b]))
        return ranks

    @cached_property
    def _hier(self) -> HierarchicalEncoder | None:
        """The hierarchical mode's encoder (None in the paper mode)."""
        if self.mode != "hierarchical":
            return None
        return HierarchicalEncoder(
            self._vocab,
            self.merges,
            self.script,
            self.leading_space,
            self._spell_char,
            self._merge_kinds,
        )

    @cached_property
    def _native_pieces(self) -> TextEncoder | None:
        """Its native twin (sgpe/_engine.py), or None: encode and encode_batch go there whole
        (pieces, piece cache and merges in Rust), and new pieces of the Python paths too.
        A loaded file's encoder is built from the native reader's file: the Python tables
        (``_hier``, ``_ranks``) are then made only for the Python paths that read them."""
        spans = span_letters(self.script) if self.superwords_from is not None else []
        if self._file is not None:
            return native_file_encoder(
                self._file,
                self.script,
                self.leading_space,
                self.pieces,
                self.max_piece_units,
                spans,
                self._byte_ids,
                self.unk_id,
                paper=self.mode != "hierarchical",
            )
        hier = self._hier
        return native_text_encoder(
            self.script,
            self.leading_space,
            self.pieces,
            self.max_piece_units,
            spans,
            self._vocab,
            self._byte_ids,
            self.unk_id,
            hier.part_ranks if hier is not None else self._ranks,
            hier.join_ranks if hier is not None else {},
            paper=hier is None,
        )

    def _check(self, source: str, known: Mapping[str, int], merges_made: bool = False) -> None:
        """What a vocabulary must be; ``known`` answers for the tokens of :meth:`_looked_up`
        (the native reader's file checked its ids and merges itself, native/src/vocab_file.rs).

        ``merges_made``: the trainer (sgpe/gpe.py, the private ``_trained``) built these ids
        and merges itself, every merge's parts and result a token by construction, so their
        two walks are skipped: about 45 ms of a 2 s `sgpe train` at 32k. A file read back
        (the reload and differential tests read every trained vocabulary) is checked whole."""
        n = len(self._vocab) if self._file is None else len(self._file)
        checked = self._file is not None or merges_made
        if not checked and sorted(self._vocab.values()) != list(range(n)):
            raise ValueError(f"{source}: key 'vocab': ids must be exactly 0..{n - 1}, each once")
        # At C speed first (a trained 32k vocabulary: 17 ms a loop); the loop below only
        # runs to say which entry is wrong.
        wrong = not checked and not all(
            map(self._vocab.__contains__, chain(*zip(*self.merges), map("".join, self.merges)))
        )
        for k, (a, b) in enumerate(self.merges if wrong else ()):
            for part in (a, b, a + b):
                if part not in self._vocab:
                    raise ValueError(
                        f"{source}: key 'merges', entry {k}: token {part!r} is not in the vocabulary"
                    )
        merges = len(self.merges) if self._file is None else self._file.merge_count
        if self.merge_counts is not None and len(self.merge_counts) != merges:
            raise ValueError(
                f"{source}: key 'merge_counts' has {len(self.merge_counts)} entries but key "
                f"'merges' has {merges}; they must be aligned (or leave merge_counts out)"
            )
        for t in self._special:
            if t not in known:
                raise ValueError(f"{source}: key 'special_tokens': {t!r} is not in the vocabulary")
        if self.oov_policy not in ("fallback", "unk"):
            raise ValueError(f"{source}: key 'oov_policy' must be 'fallback' or 'unk'")
        if self.mode not in ("hierarchical", "paper"):
            raise ValueError(f"{source}: key 'mode' must be 'hierarchical' or 'paper'")
        if self.mode == "hierarchical":
            missing = [repr(chr(c)) for c in range(128) if chr(c) not in known]
            if self.oov_policy == "fallback":
                missing += [byte_token(b) for b in FALLBACK_BYTES if byte_token(b) not in known]
            if missing:
                raise ValueError(
                    f"{source}: key 'vocab': a hierarchical vocabulary needs every ASCII "
                    f"character (and, with oov_policy 'fallback', the byte tokens <0x80>..<0xBF>, "
                    f"<0xC2>..<0xF4>); missing {', '.join(missing[:4])}"
                )
        elif self.oov_policy == "fallback":
            missing = [byte_token(b) for b in range(256) if byte_token(b) not in known]
            if " " not in known:
                missing.insert(0, "' '")
            if missing:
                raise ValueError(
                    f"{source}: key 'vocab': oov_policy 'fallback' needs the space and all 256 "
                    f"byte tokens; missing {', '.join(missing[:4])}"
                )
        elif "[UNK]" not in known:
            raise ValueError(f"{source}: oov_policy 'unk' needs an '[UNK]' token")

    # ==================================================================== properties
    @property
    def vocab_size(self) -> int:
        return len(self._vocab)

    @property
    def special_tokens(self) -> dict[str, TokenId]:
        """Each special token and its id, in the file's order (a new dict each call). They
        are never parsed from text: the literal ``[UNK]`` in a text is ordinary text."""
        return dict(self._special_ids)

    def get_vocab(self) -> dict[str, TokenId]:
        """Token -> id: a copy, which the caller may change freely."""
        return dict(self._vocab)

    def id_to_token(self, token_id: TokenId) -> str | None:
        """The token of ``token_id``; None for an id that is not in the vocabulary."""
        if not is_token_id(token_id, len(self._id_to_token)):
            return None
        return self._id_to_token[token_id]

    def token_to_id(self, token: str) -> TokenId | None:
        """The id of ``token``; None for a token that is not in the vocabulary."""
        return self._vocab.get(token)

    def _check_id(self, token_id: object) -> None:
        if not is_token_id(token_id, len(self._id_to_token)):
            raise ValueError(
                f"invalid token id: {token_id!r} (this vocabulary has ids 0..{len(self._id_to_token) - 1})"
            )

    def is_fallback_token(self, token_id: TokenId) -> bool:
        """True for ``<0xNN>`` byte tokens."""
        return bool(BYTE_TOKEN.fullmatch(self._id_to_token[token_id]))

    # ==================================================================== encoding
    def encode(self, text: str, *, prepend_space: bool | None = None) -> list[TokenId]:
        """Token ids of ``text``; a lone surrogate (no UTF-8) raises a ValueError naming it.
        With the vocabulary's ``prepend_space`` (the default for new vocabularies) a
        non-empty text is encoded as ``" " + text``; :meth:`decode` removes that space.
        Pass ``prepend_space=False`` to encode a fragment of a longer text as it stands.
        The native engine encodes in Rust (``sgpe._engine.native_text_encoder``), alike."""
        pre = self.prepend_space if prepend_space is None else prepend_space
        try:
            return dispatch(
                self._native_pieces,
                lambda native: native.encode(text, pre),
                lambda: self._encode(text, pre),
            )
        except UnicodeEncodeError as err:  # a lone surrogate: named (sgpe/_surrogates.py)
            raise lone_surrogate_error(text, err) from None

    def _encode(self, text: str, pre: bool) -> list[TokenId]:
        """The Python reference of :meth:`encode`."""
        if text and pre:
            text = " " + text
        out: list[int] = []
        extend = out.extend
        cache = self._cache
        get = cache.get
        for piece in self._pieces(text):
            ids = get(piece)
            if ids is None:
                ids = self._encode_piece(piece)
                if len(cache) >= _PIECE_CACHE_LIMIT:
                    cache.clear()
                cache[piece] = ids
            extend(ids)
        return out

    @names_lone_surrogate
    def encode_batch(
        self,
        texts: Sequence[str],
        *,
        num_threads: int | None = None,
        prepend_space: bool | None = None,
    ) -> list[list[TokenId]]:
        """``[self.encode(t) for t in texts]``, faster on many texts. Under the native
        engine the whole batch runs in Rust on ``num_threads`` threads (default: all cores)
        without the GIL. Otherwise (``num_threads`` checked, then unused) the pieces of the batch that are not cached yet are syllabified
        together (see :meth:`sgpe.syllables.Syllabifier.learn`) and encoded once each, and
        each text's ids are put together from the cache at C speed (no Python code per
        piece)."""
        pre = self.prepend_space if prepend_space is None else prepend_space
        check_num_threads(num_threads)
        if not isinstance(texts, (list, tuple)):
            texts = list(texts)  # any iterable, read once: both paths take the list
        return dispatch(
            self._native_pieces,
            lambda native: native.encode_batch(texts, pre, num_threads),
            lambda: self._encode_batch(texts, pre),
        )

    def _encode_batch(self, texts: Sequence[str], pre: bool) -> list[list[TokenId]]:
        """The Python reference of :meth:`encode_batch`."""
        split = self._pieces
        pieces_of = [split(" " + t) if t and pre else split(t) for t in texts]
        cache = self._cache
        distinct = set(chain.from_iterable(pieces_of))
        new = distinct.difference(cache)  # each piece looked up in the dict at C speed
        if new:
            if len(cache) + len(new) > _PIECE_CACHE_LIMIT:
                cache.clear()  # as encode() does when full; this batch's pieces come back
                new = distinct
            cache.update(zip(new, self._encode_new_pieces(list(new))))
        get = cache.__getitem__
        return [list(chain.from_iterable(map(get, pieces))) for pieces in pieces_of]

    @names_lone_surrogate
    def encode_batch_flat(
        self,
        texts: Sequence[str],
        *,
        prepend_space: bool | None = None,
        num_threads: int | None = None,
    ) -> tuple[array[int], array[int]]:
        """:meth:`encode_batch` as two flat arrays, with no Python object per id: ``ids``
        (``array("I")``, uint32), every text's ids one after the other, and ``offsets``
        (``array("q")``, int64, one more entry than ``texts``): text ``k``'s ids are
        ``ids[offsets[k]:offsets[k + 1]]``. Both are buffers: ``ids.tobytes()`` for a
        file, ``numpy.frombuffer(ids, numpy.uint32)`` for an array without a copy.

        Under the native engine the batch, the copy into ``ids`` included, runs in Rust on
        ``num_threads`` threads (default: all cores) without the GIL, which it takes only to
        read the texts and to make the two arrays from their bytes; the Python engine
        (``num_threads`` unused) and a text with a lone surrogate give the arrays of
        :meth:`encode_batch`'s lists, and raise what it raises."""
        pre = self.prepend_space if prepend_space is None else prepend_space
        check_num_threads(num_threads)
        if not isinstance(texts, (list, tuple)):
            texts = list(texts)  # any iterable, read once: both paths take the list
        return dispatch(
            self._native_pieces,
            lambda native: _flat_arrays(native.encode_batch_flat(texts, pre, num_threads)),
            lambda: self._encode_batch_flat(texts, pre),
        )

    def _encode_batch_flat(self, texts: Sequence[str], pre: bool) -> tuple[array[int], array[int]]:
        """The Python reference of :meth:`encode_batch_flat`."""
        return flat_ids(self._encode_batch(texts, pre))

    def _encode_new_pieces(self, pieces: list[str]) -> list[list[int]]:
        """The ids of pieces not cached yet: natively on all cores where Rust can take them,
        else (no native encoder, a lone surrogate) syllabified together, one by one."""
        return dispatch(
            self._native_pieces,
            lambda native: native.encode_pieces(pieces),
            lambda: self._encode_pieces(pieces),
        )

    def _encode_pieces(self, pieces: list[str]) -> list[list[int]]:
        self._splitter.learn_units(pieces)
        return list(map(self._encode_piece, pieces))

    def tokenize(self, text: str) -> list[str]:
        """Token strings of ``text`` (byte tokens as ``<0xNN>``; with ``prepend_space`` the
        first token carries the added space)."""
        names = self._id_to_token
        return [names[i] for i in self.encode(text)]

    def measure(self, text: str) -> Encoded:
        """:meth:`encode_with_spans` as the metrics read it (the tokenizer contract)."""
        started = time.perf_counter()
        ids, spans = self.encode_with_spans(text)
        seconds = time.perf_counter() - started
        unk = ids.count(self.unk_id) if self.unk_id >= 0 else 0
        return Encoded(ids, spans, unk, self.decode(ids), exact=True, seconds=seconds)

    @names_lone_surrogate
    def encode_with_spans(self, text: str) -> tuple[list[TokenId], list[tuple[int, int]]]:
        """Ids and each token's span in the UTF-8 bytes of ``text`` (an ``[UNK]`` spans
        the syllable it replaced, a byte token one byte)."""
        ids: list[int] = []
        spans: list[tuple[int, int]] = []
        pos = 0
        shift = 0
        if text and self.prepend_space:  # spans of " " + text, shifted back onto text
            text, shift = " " + text, 1
        cache = self._span_cache
        for piece in self._pieces(text):
            hit = cache.get(piece)
            if hit is None:
                hit = self._encode_piece_with_lengths(piece)
                if len(cache) >= _PIECE_CACHE_LIMIT:
                    cache.clear()
                cache[piece] = hit
            piece_ids, lengths = hit
            ids.extend(piece_ids)
            for length in lengths:
                spans.append((max(pos - shift, 0), pos + length - shift))
                pos += length
        return ids, spans

    def _encode_piece(self, piece: str) -> list[int]:
        if self._hier is not None:
            return self._hier.ids_of_piece(piece)
        get = self._vocab.get
        found = [get(u) for u in self._units(piece)]
        if None in found:  # an out-of-vocabulary syllable: the general path
            return self._encode_piece_with_lengths(piece)[0]
        ids = cast("list[int]", found)
        return bpe(ids, self._ranks)

    def _encode_piece_with_lengths(self, piece: str) -> tuple[list[int], list[int]]:
        if self._hier is not None:
            return self._hier.encode_piece(piece)
        ids: list[int] = []
        lengths: list[int] = []
        vocab = self._vocab
        for seg, is_run in self._segments(piece):
            if is_run:
                merged = bpe([vocab[u] for u in seg], self._ranks)
                ids.extend(merged)
                lengths.extend(len(self._token_bytes[i]) for i in merged)
            else:
                more_ids, more_lengths = self._spell(seg[0])
                ids.extend(more_ids)
                lengths.extend(more_lengths)
        return ids, lengths

    def _segments(self, piece: str) -> list[tuple[list[str], bool]]:
        """Split a piece's units into runs of known units (True) and single OOV units (False)."""
        out: list[tuple[list[str], bool]] = []
        run: list[str] = []
        vocab = self._vocab
        for u in self._units(piece):
            if u in vocab:
                run.append(u)
                continue
            if self._byte_ids and len(u) > 1 and u[0] == " ":
                # A missing " X": the space on its own, then X as a normal syllable.
                if run:
                    out.append((run, True))
                    run = []
                out.append(([" "], True))
                u = u[1:]
                if u in vocab:
                    run.append(u)
                    continue
            if run:
                out.append((run, True))
                run = []
            out.append(([u], False))
        if run:
            out.append((run, True))
        return out

    # ==================================================================== decoding
    def decode(self, ids: Sequence[TokenId]) -> str:
        """Text of token ids: token bytes concatenated and decoded as UTF-8.

        Raises ``ValueError`` naming the first id that is not in the vocabulary. With
        ``prepend_space`` one leading space (the one :meth:`encode` added) is removed;
        :meth:`decode_bytes` and :meth:`token_bytes` give the tokens' bytes as they are.
        """
        text = self.decode_bytes(ids).decode("utf-8", errors="replace")
        if self.prepend_space and text.startswith(" "):
            text = text[1:]  # the space encode() added
        return text

    def decode_bytes(self, ids: Sequence[TokenId]) -> bytes:
        table = self._token_bytes
        try:
            # A negative id would index from the end of the table: rejected, as HF
            # tokenizers and SentencePiece reject it (min() runs in C, once per call).
            if ids and min(ids) < 0:
                raise IndexError
            return b"".join([table[i] for i in ids])
        except (IndexError, TypeError):
            for i in ids:
                self._check_id(i)
            raise

    def token_bytes(self, ids: Sequence[TokenId]) -> list[bytes]:
        for i in ids:
            self._check_id(i)
        return [self._token_bytes[i] for i in ids]

    # ==================================================================== merge trace
    def merge_trace(self, text: str) -> list[WordTrace]:
        """For each piece of ``text``: its initial tokens and every merge applied, in order
        (with ``prepend_space`` the first piece shows the added space)."""
        names = self._id_to_token
        out: list[WordTrace] = []
        if text and self.prepend_space:
            text = " " + text  # what encode() sees
        if self._hier is not None:
            return [self._trace_hierarchical(piece) for piece in self._pieces(text)]
        for piece in self._pieces(text):
            # (ids, mergeable): runs of known syllables merge; fallback spellings never do.
            parts: list[tuple[list[int], bool]] = []
            for seg, is_run in self._segments(piece):
                if is_run:
                    parts.append(([self._vocab[u] for u in seg], True))
                else:
                    parts.append((list(self._spell(seg[0])[0]), False))
            initial = _names(names, parts)
            steps: list[MergeStep] = []
            while True:
                best: tuple[int, int, int, int] | None = None  # rank, merged id, part, index
                for pi, (ids, mergeable) in enumerate(parts):
                    for i in range(len(ids) - 1 if mergeable else 0):
                        r = self._ranks.get((ids[i], ids[i + 1]))
                        if r is not None and (best is None or r[0] < best[0]):
                            best = (r[0], r[1], pi, i)
                if best is None:
                    break
                rank, merged, pi, i = best
                ids = parts[pi][0]
                pair = (names[ids[i]], names[ids[i + 1]])
                ids[i : i + 2] = [merged]
                steps.append(MergeStep(pair, rank, _names(names, parts)))
            out.append(WordTrace(piece, initial, tuple(steps)))
        return out

    def _trace_hierarchical(self, piece: str) -> WordTrace:
        """Both phases of :class:`sgpe.hierarchical.HierarchicalEncoder` step by step: part
        merges inside the units (lowest rank first, across the piece), then join merges
        between whole units. The final tokens equal :meth:`encode`.

        With superwords a "piece" may be a span of several words; the join phase then runs
        over the whole span in one rank order (as training learned it), and a step that
        joins across a space is labelled ``"super"``: the superword phase. Every join merge
        ranked before the first superword merge lies inside one word, so the steps labelled
        ``"join"`` up to it are the words' own joins."""
        assert self._hier is not None
        hier = self._hier
        names = self._id_to_token
        syll = hier.syll
        spans = syll.spans(piece)
        units: list[list[int]] = []
        for sp in spans:
            ids: list[int] = []
            for ch in piece[sp.start : sp.end]:
                i = self._vocab.get(ch)
                ids.extend([i] if i is not None else self._spell_char(ch))
            units.append(ids)
        initial = tuple(names[i] for u in units for i in u)
        steps: list[MergeStep] = []
        part = hier.part_ranks
        while True:
            best: tuple[tuple[int, int], int, int] | None = None  # (rank, id), unit, index
            for k, ids in enumerate(units):
                for i in range(len(ids) - 1):
                    r = part.get((ids[i], ids[i + 1]))
                    if r is not None and (best is None or r < best[0]):
                        best = (r, k, i)
            if best is None:
                break
            (rank, merged), k, i = best
            ids = units[k]
            pair = (names[ids[i]], names[ids[i + 1]])
            ids[i : i + 2] = [merged]
            steps.append(MergeStep(pair, rank, tuple(names[j] for u in units for j in u), "part"))
        # Join phase: a node is a whole unit that is one known token, or a barrier.
        nodes: list[tuple[list[int], bool]] = []
        for sp, ids in zip(spans, units):
            nodes.append((ids, hier.unit(piece[sp.start : sp.end])[2]))
        join = hier.join_ranks
        while True:
            jbest: tuple[tuple[int, int], int] | None = None
            for k in range(len(nodes) - 1):
                (a, ja), (b, jb) = nodes[k], nodes[k + 1]
                if ja and jb:
                    r = join.get((a[0], b[0]))
                    if r is not None and (jbest is None or r < jbest[0]):
                        jbest = (r, k)
            if jbest is None:
                break
            (rank, merged), k = jbest
            pair = (names[nodes[k][0][0]], names[nodes[k + 1][0][0]])
            nodes[k : k + 2] = [([merged], True)]
            tokens = tuple(names[j] for ids, _ in nodes for j in ids)
            # A join whose right side starts a word (its leading space) crosses a space:
            # a superword step, the third phase of a superword span's trace.
            kind = "super" if pair[1].startswith(" ") else "join"
            steps.append(MergeStep(pair, rank, tokens, kind))
        return WordTrace(piece, initial, tuple(steps))

    def _spell_char(self, ch: str) -> list[int]:
        """A character that is not a token (hierarchical mode): its UTF-8 byte tokens, or
        one ``[UNK]``."""
        if not self._byte_ids:
            return [self.unk_id]
        return [self._byte_ids[b] for b in ch.encode("utf-8")]

    def _spell(self, unit: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """An OOV unit: ``[UNK]``, or code-point tokens and UTF-8 byte tokens (fallback)."""
        if not self._byte_ids:
            return (self.unk_id,), (len(unit.encode("utf-8")),)
        ids: list[int] = []
        lengths: list[int] = []
        for ch in unit:
            j = self._vocab.get(ch)
            if j is not None:
                ids.append(j)
                lengths.append(len(ch.encode("utf-8")))
            else:
                for byte in ch.encode("utf-8"):
                    ids.append(self._byte_ids[byte])
                    lengths.append(1)
        return tuple(ids), tuple(lengths)

    # ==================================================================== files
    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "model": self.model,
            "version": REFERENCE_VERSION,
            "vocab_size": self.vocab_size,
            "special_tokens": list(self._special),
            "num_merges": len(self.merges),
            "prune_freq": self.prune_freq,
            "min_freq": self.min_freq,
            "leading_space": self.leading_space,
            "scripts": self.script,
            **schema_record(self.script),  # a linguist's own schema, whole (else nothing)
            "pieces": self.pieces,
            "prepend_space": self.prepend_space,
            "oov_policy": self.oov_policy,
            **({"mode": self.mode} if self.mode != UNRECORDED["mode"] else {}),
            # Written only when it differs from the default, so that files made before the
            # cap existed (and the shipped vocabularies) keep their bytes.
            **(
                {"max_piece_units": self.max_piece_units}
                if self.max_piece_units != MAX_PIECE_UNITS
                else {}
            ),
            # Written only when set: vocabularies without superwords keep their bytes.
            **(
                {"superwords_from": self.superwords_from}
                if self.superwords_from is not None
                else {}
            ),
            "training": self.training,
            "merges": [list(m) for m in self.merges],
            **({"merge_counts": list(self.merge_counts)} if self.merge_counts is not None else {}),
            # By id: _id_to_token holds every id 0..n-1 once (_check), so no sort.
            "vocab": {t: self._vocab[t] for t in self._id_to_token},
        }

    def save(self, path: str | Path) -> None:
        """Write ``vocab.json`` atomically (temp file + ``os.replace``)."""
        atomic_write(path, json_bytes(self.to_dict()))

    @classmethod
    def _from_dict(
        cls, data: Any, source: str = "<vocab>", *, file: VocabFile | None = None
    ) -> Tokenizer:
        """The tokenizer of a parsed ``vocab.json``; a malformed one raises ``ValueError``
        naming the key. With ``file`` (the native reader's:
        :func:`sgpe.interop.folder_reader.load_vocabulary_file`), ``data`` holds the other
        keys and the file's ``vocab`` and ``merges`` are taken as read and checked. Users
        load with :func:`sgpe.load`."""
        if not isinstance(data, dict):
            raise ValueError(f"{source}: a vocabulary file must hold a JSON object")
        if "format" not in data and str(data.get("version", "")).startswith("sgpe_v1"):
            # A vocabulary written by the original SGPE trainer (no ``format`` key; Sinhala only).
            data = {
                **data,
                "format": FORMAT_NAME,
                "format_version": FORMAT_VERSION,
                **ORIGINAL_TRAINER,
            }
        if data.get("format") != FORMAT_NAME:
            raise ValueError(
                f"{source}: key 'format' must be {FORMAT_NAME!r}; is this an SGPE vocab.json?"
            )
        if type(data.get("format_version")) is not int or data["format_version"] != FORMAT_VERSION:
            raise ValueError(
                f"{source}: key 'format_version' is {data.get('format_version')!r}; this version of "
                f"sgpe reads format_version {FORMAT_VERSION}"
            )
        if data.get("model", UNRECORDED["model"]) != "sgpe":
            raise ValueError(
                f"{source}: key 'model' is {data.get('model')!r}; load vocabularies with "
                "sgpe.load, which picks the right class"
            )
        if file is not None:
            vocab, merges = {}, []  # the file's own, made when first read (see __init__)
        else:
            vocab = required_key(data, "vocab", dict, source)
            if not all(isinstance(k, str) and type(v) is int for k, v in vocab.items()):
                raise ValueError(f"{source}: key 'vocab' must map token strings to integer ids")
            merges = required_key(data, "merges", list, source)
            for k, m in enumerate(merges):
                if not (isinstance(m, list) and len(m) == 2 and all(isinstance(x, str) for x in m)):
                    raise ValueError(
                        f"{source}: key 'merges', entry {k}: expected [left, right] strings, "
                        f"got {m!r:.80}"
                    )
            merges = [(a, b) for a, b in merges]
        special = required_key(data, "special_tokens", list, source)
        if not all(isinstance(t, str) for t in special):
            raise ValueError(f"{source}: key 'special_tokens' must be a list of strings")
        training = data.get("training") or {}
        if not isinstance(training, dict):
            raise ValueError(
                f"{source}: key 'training' must be an object, not {json_kind(training)}"
            )
        try:
            tok = cls(
                vocab=vocab,
                merges=merges,
                leading_space=required_key(data, "leading_space", bool, source),
                script=recorded_script(data, UNRECORDED["script"], source),
                pieces=optional_str(data, "pieces", UNRECORDED["pieces"], source),
                prepend_space=optional_key(
                    data, "prepend_space", bool, UNRECORDED["prepend_space"], source
                ),
                oov_policy=optional_str(data, "oov_policy", UNRECORDED["oov_policy"], source),
                prune_freq=optional_key(data, "prune_freq", int, UNRECORDED["prune_freq"], source),
                min_freq=optional_key(data, "min_freq", int, UNRECORDED["min_freq"], source),
                special_tokens=special,
                training=training,
                source=source,
                mode=optional_str(data, "mode", UNRECORDED["mode"], source),
                merge_counts=merge_counts_of(data, source),
                max_piece_units=optional_key(data, "max_piece_units", int, MAX_PIECE_UNITS, source),
                superwords_from=optional_key(data, "superwords_from", int, None, source),
                _file=file,
            )
        except ValueError as err:
            if str(err).startswith(source):
                raise
            # The word splitter rejects an unknown script or piece mode without a file name.
            raise ValueError(f"{source}: {err}") from None
        n = len(vocab) if file is None else len(file)
        size = data.get("vocab_size", n)
        if type(size) is not int or size != n:
            raise ValueError(
                f"{source}: key 'vocab_size' is {size!r} but key 'vocab' holds {n} "
                "tokens; set vocab_size to the number of tokens"
            )
        return tok

    def __repr__(self) -> str:
        return (
            f"Tokenizer(vocab_size={self.vocab_size}, merges={len(self.merges)}, "
            f"mode={self.mode!r}, script={self.script!r}, leading_space={self.leading_space}, "
            f"oov={self.oov_policy!r})"
        )


def _names(names: list[str], parts: list[tuple[list[int], bool]]) -> tuple[str, ...]:
    return tuple(names[i] for ids, _ in parts for i in ids)


def _bytes_of(token: str) -> bytes:
    m = BYTE_TOKEN.fullmatch(token)
    return bytes([int(m.group(1), 16)]) if m else token.encode("utf-8")

"""Layer 2 (GPE): learn BPE merges over whole syllables, only inside pieces (words).

:class:`GPETrainer` trains both modes (settings, counting, checkpoints, exact resume); the
default mode's merge engine is :mod:`sgpe.hierarchical`. The pipeline below is the paper
mode's (``mode="paper"``): the original SGPE trainer with the changes listed in
``docs/decisions.md``.

1. **Count** pieces of the corpus with one regex (:mod:`sgpe.pieces`), at C speed.
2. **Syllabify** each unique piece once; count unit (syllable) frequencies.
3. **Prune** units seen fewer than ``prune_freq`` times: they become merge barriers
   (the paper's UNK sentinel) and, with the ``fallback`` OOV policy, are spelled with
   code-point or byte tokens when encoding. Pieces are cut at barriers into *segments*.
4. **Symbol table**: kept units get ids by descending frequency, then by string, so ids
   do not depend on corpus order; fallback symbols follow; merged symbols are appended.
5. **Merge loop**: the pair with the highest count wins; ties go to the smallest pair of
   ids (``min`` over ``(-count, pair)``). This rule is the same in :mod:`sgpe._reference`.
   Pair counts are kept incrementally: an inverted index ``pair_to_words`` finds the
   segments a merge touches, only their neighbouring pairs change, and a max-heap with
   lazy refresh (a popped entry whose count is stale is re-pushed with the current
   count) yields the best pair. Each merge visits only segments that contain it.
6. Stop when the vocabulary (special tokens included) reaches ``vocab_size`` or the best
   count is below ``min_freq``.

The trainer never reads or writes files itself except through :mod:`sgpe.corpus`;
checkpoints are handed to a callback, and a run resumes by replaying a merge list
(which rebuilds exactly the state an uninterrupted run had at that step).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._driver import Learned, MergeLoop, run_merges
from ._engine import dispatch, native_paper_trainer
from .bpe import BpeTrainer
from .corpus import CorpusInfo
from .corpus.counting import count_pieces
from .hierarchical import (
    MergeKind,
    build_state,
    code_spans,
    corpus_units,
    merge_engine,
    merge_kind,
    paused_gc,
    split_spans,
)
from .hierarchical.whole import completion_plan, whole_syllable_letters, whole_units
from .pieces import get_word_splitter
from .protocol import byte_token
from .schema import schemas_for
from .settings import (
    COUNT_FIELDS,
    MODES,
    SPECIAL_TOKENS,
    TRAIN_FIELDS,
    CountOptions,
    Mode,
    OOVPolicy,
    TrainKeywords,
    TrainSettings,
    default_min_freq,
)
from .syllables import get_syllabifier
from .tokenizer import FALLBACK_BYTES, Tokenizer

if TYPE_CHECKING:
    # Only for the checker: typing.Unpack is 3.11+, and the annotation is never evaluated.
    from typing_extensions import Unpack

    from ._engine import BpeTrainer as NativeBpeTrainer
    from .baselines.bytebpe import ByteBPETokenizer
    from .hierarchical import (
        CorpusUnits,
        HierarchicalEngine,
        HierarchicalState,
        NativeHierarchicalEngine,
    )
    from .syllables import Syllabifier

# With the fallback policy the base vocabulary also spells ASCII (printable, tab, newline,
# carriage return) with character tokens rather than bytes; the space is needed anyway for
# the " X" -> " " + "X" rule.
FALLBACK_ASCII = frozenset(chr(c) for c in range(0x20, 0x7F)) | {"\t", "\n", "\r"}


@dataclass(frozen=True)
class ProgressEvent:
    """One merge of the training loop, as reported to the progress callback."""

    step: int  # merges done so far (1-based after the first merge)
    target: int  # merges needed to reach vocab_size (an upper bound: min_freq may stop earlier)
    pair: tuple[str, str]
    count: int
    elapsed: float  # seconds since the merge loop started


ProgressFn = Callable[[ProgressEvent], None]


@dataclass(frozen=True)
class ProgressBatch:
    """Consecutive merges of the training loop, reported together to ``progress_batch``
    (at most every few thousand merges or a tenth of a second, and at each checkpoint and
    the end): for a caller whose work per report would cost more than a merge."""

    first_step: int  # the step of the first merge in the batch (1-based)
    target: int  # as ProgressEvent.target
    pairs: list[tuple[str, str]]
    counts: list[int]
    elapsed: float  # seconds since the merge loop started, at the batch's last merge


ProgressBatchFn = Callable[[ProgressBatch], None]
CheckpointFn = Callable[[int, list[tuple[str, str]]], None]


@dataclass
class _State:
    """Merge-loop state. A segment is a ``str`` whose characters are symbol ids
    (``chr(id)``): a merge is then ``str.replace`` (non-overlapping, left to right, at C
    speed), a pair is a 2-character string, and comparing pair strings compares
    ``(left_id, right_id)``, so the tie-break is unchanged."""

    symbols: list[str]
    symbol_id: dict[str, int]
    words: list[str]
    counts: list[int]
    merges: list[tuple[int, int]] = field(default_factory=list)


class GPETrainer:
    """The GPE trainer, in phases so a caller can persist the counts between them.

    >>> tok = GPETrainer(TrainSettings(vocab_size=800, prune_freq=1)).train(["ශ්‍රී ලංකා ශ්‍රී ලංකා"])
    >>> tok.tokenize("ශ්‍රී ලංකා")  # the first token carries the dummy space (prepend_space)
    [' ශ්\u200dරී', ' ලංකා']
    """

    def __init__(self, settings: TrainSettings, counting: CountOptions | None = None) -> None:
        if settings.model != "sgpe":
            raise ValueError(
                f"GPETrainer trains SGPE vocabularies, not model {settings.model!r}; train "
                "the byte-level baseline with sgpe.train(corpus, model='bytebpe', ...)"
            )
        self.settings = settings
        self.counting = counting or CountOptions()
        self.splitter = get_word_splitter(
            settings.script, settings.leading_space, settings.pieces, settings.max_piece_units
        )
        self.corpus_info: CorpusInfo | None = None
        # After fit: how many of the merges the loop learned (and ``progress`` reported)
        # the tokenizer keeps, when whole syllables replaced the rest with merges of their
        # own (sgpe/hierarchical/whole.py); None when the loop's merges are the
        # tokenizer's. A run's record (sgpe/runs/worker.py) follows it.
        self.loop_merges_kept: int | None = None

    # ---------------------------------------------------------------- phase 1
    def count(self, corpus: str | Path | Iterable[str], *, capped: bool = True) -> Counter[str]:
        """Count the pieces of a corpus: a file, a directory or glob of files, or an iterable
        of documents, streamed (memory grows with the unique pieces, not the corpus) and
        counted on all cores or a Dask cluster (:func:`sgpe.corpus.counting.count_pieces`).
        The counts are the same whichever way they were made. Pieces of more than
        ``max_piece_units`` units are cut, unless ``capped=False``: :meth:`fit` cuts them
        too, while it syllabifies them, which saves counting a pass over them."""
        counts, info = count_pieces(corpus, self.settings, self.counting, capped=capped)
        self.corpus_info = info
        return counts

    # ---------------------------------------------------------------- phase 2
    def _prepare(self, piece_counts: Counter[str]) -> tuple[_State, Counter[str]]:
        s = self.settings
        plain = [p for p in piece_counts if "\n" not in p]
        piece_units = dict(zip(plain, self.splitter.units_of_many(plain)))
        for p in piece_counts:
            if "\n" in p:
                piece_units[p] = self.splitter.units(p)
        unit_freq: Counter[str] = Counter()
        for p, c in piece_counts.items():
            for u in piece_units[p]:
                unit_freq[u] += c
        kept = {u for u, f in unit_freq.items() if f >= s.prune_freq}
        if s.pieces == "script":
            # The original keeps every boundary token (a piece with no script letter: Latin,
            # digits, punctuation), however rare; only syllables are pruned.
            word_chars = frozenset().union(*(sch.word_chars for sch in schemas_for(s.script)))
            kept |= {u for u in unit_freq if not word_chars.intersection(u)}
        if s.oov_policy == "fallback":
            # A syllable kept with its leading space is kept bare too: inside a word it would
            # otherwise be spelled with code points (cutting the syllable), and a missing
            # " X" is encoded as " " + "X". The original (and so the "unk" policy) does not.
            kept |= {u[1:] for u in kept if len(u) > 1 and u[0] == " "}
        symbols = sorted(kept, key=lambda u: (-unit_freq[u], u))
        if s.oov_policy == "fallback":
            # Code-point fallbacks for Sinhala and Devanagari (as the paper mode always had,
            # so its vocabularies stay as they were) and for the other scripts only when the
            # corpus is written in them: with 14 schemas under "auto", a Sinhala corpus must
            # not spend its budget on Tamil letters (unseen text still round-trips in bytes).
            seen = set().union(*map(set, unit_freq))
            extra = sorted(
                set().union(
                    *(
                        sch.code_points
                        for sch in schemas_for(s.script)
                        if sch.name in ("sinhala", "devanagari")
                        or (sch.code_points - {"\u200c", "\u200d"}) & seen  # joiners are shared
                    )
                )
                | FALLBACK_ASCII
            )
            extra += [byte_token(b) for b in range(256)]
            symbols += [x for x in extra if x not in kept]
        symbol_id = {u: i for i, u in enumerate(symbols)}
        char_of = {u: chr(i) for u, i in symbol_id.items() if u in kept}
        segments: Counter[str] = Counter()
        pruned: Counter[str] = Counter()
        for p, c in piece_counts.items():
            run: list[str] = []
            for u in piece_units[p]:
                ch = char_of.get(u)
                if ch is None:
                    pruned[u] += c
                    if run:
                        segments["".join(run)] += c
                        run = []
                else:
                    run.append(ch)
            if run:
                segments["".join(run)] += c
        # Sorted, so that nothing downstream depends on the corpus order.
        ordered = sorted(segments.items())
        state = _State(
            symbols=symbols,
            symbol_id=symbol_id,
            words=[w for w, _ in ordered],
            counts=[c for _, c in ordered],
        )
        return state, pruned

    # ---------------------------------------------------------------- phase 3
    def fit(
        self,
        piece_counts: Counter[str],
        *,
        progress: ProgressFn | None = None,
        checkpoint_every: int = 0,
        on_checkpoint: CheckpointFn | None = None,
        resume_merges: Sequence[tuple[str, str]] = (),
        progress_batch: ProgressBatchFn | None = None,
    ) -> Tokenizer:
        """Learn the merges from piece counts and return the trained :class:`Tokenizer`.
        Pieces of more than ``max_piece_units`` units are cut here (counts from
        :meth:`count` are cut already; counts made elsewhere need not be).
        ``progress`` is called once per merge, ``progress_batch`` once per batch of merges
        (:class:`ProgressBatch`); each sees every merge, in order."""
        s = self.settings
        learn = partial(
            self._learn,
            progress=progress,
            progress_batch=progress_batch,
            checkpoint_every=checkpoint_every,
            on_checkpoint=on_checkpoint,
        )
        if s.hierarchical:
            with paused_gc():
                return self._fit_units(piece_counts, learn, resume_merges)
        if piece_counts and max(map(len, piece_counts)) > self.splitter.max_units:
            piece_counts = self.splitter.cap_counts(Counter(piece_counts))
        state, pruned = self._prepare(piece_counts)
        target_symbols = s.vocab_size - len(SPECIAL_TOKENS)
        if len(state.symbols) > target_symbols:
            what = "syllables and characters of the corpus"
            if s.oov_policy == "fallback":
                what += ", the schemas' code points and the 115 byte tokens that no code point spells, for the fallback"
            raise ValueError(
                f"vocab_size={s.vocab_size} is smaller than the base vocabulary: "
                f"{len(SPECIAL_TOKENS)} special tokens + {len(state.symbols)} symbols ({what}). "
                f"Use vocab_size >= {len(state.symbols) + len(SPECIAL_TOKENS)}, or raise "
                "prune_freq to drop rare syllables."
            )

        def python_twin() -> NativeBpeTrainer | BpeTrainer:
            return BpeTrainer(state.symbols, state.words, state.counts)

        trainer = dispatch(
            native_paper_trainer(state.symbols, state.words, state.counts),
            lambda native: native,
            python_twin,
        )
        engine = _PaperLoop(state, trainer)
        learn(engine, target_symbols, resume_merges)
        return self._build_tokenizer(state, pruned, engine.merge_counts, engine.usage())

    def train(
        self,
        corpus: str | Path | Iterable[str],
        *,
        progress: ProgressFn | None = None,
        checkpoint_every: int = 0,
        on_checkpoint: CheckpointFn | None = None,
        resume_merges: Sequence[tuple[str, str]] = (),
    ) -> Tokenizer:
        """Count, prepare and fit in one call. The long pieces are cut by :meth:`fit`,
        which syllabifies them anyway."""
        counts = self.count(corpus, capped=False)
        return self.fit(
            counts,
            progress=progress,
            checkpoint_every=checkpoint_every,
            on_checkpoint=on_checkpoint,
            resume_merges=resume_merges,
        )

    # ---------------------------------------------------------------- hierarchical
    def base_alphabet(
        self, piece_counts: Counter[str], char_counts: Counter[str] | None = None
    ) -> list[str]:
        """The hierarchical base symbols: characters of the corpus seen at least
        ``prune_freq`` times, all of ASCII, and (fallback) the byte tokens that spell any
        other character. Sorted, so the corpus order does not matter. ``char_counts``, when
        the caller has them (the trainer gets them from the unit counts), saves a walk over
        the pieces."""
        s = self.settings
        if char_counts is None:
            char_counts = Counter()
            for p, c in piece_counts.items():
                if c == 1:
                    char_counts.update(p)  # most pieces occur once: count them at C speed
                else:
                    for ch in p:
                        char_counts[ch] += c
        # ASCII is always in: a missing ASCII character would cost a byte token anyway.
        chars = {chr(i) for i in range(128)}
        chars |= {ch for ch, c in char_counts.items() if c >= s.prune_freq}
        base = sorted(chars)
        if s.oov_policy == "fallback":
            base += [byte_token(b) for b in FALLBACK_BYTES]
        return base

    def _learn(
        self,
        engine: MergeLoop,
        target_symbols: int,
        resume: Sequence[tuple[str, ...]],
        *,
        progress: ProgressFn | None,
        progress_batch: ProgressBatchFn | None,
        checkpoint_every: int,
        on_checkpoint: CheckpointFn | None,
    ) -> None:
        """Run either mode's merge loop (in either engine) with the caller's callbacks."""
        each = batch = None
        if progress is not None:
            on_each = progress

            def each(step: int, target: int, pair: tuple[str, str], count: int, t: float) -> None:
                on_each(ProgressEvent(step, target, pair, count, t))

        if progress_batch is not None:
            on_batch = progress_batch

            def batch(
                first: int, target: int, pairs: list[tuple[str, str]], counts: list[int], t: float
            ) -> None:
                on_batch(ProgressBatch(first, target, pairs, counts, t))

        run_merges(
            engine,
            target_symbols=target_symbols,
            min_freq=self.settings.min_count,
            resume=resume,
            progress=each,
            progress_batch=batch,
            checkpoint_every=checkpoint_every,
            on_checkpoint=on_checkpoint,
        )

    def _fit_units(
        self,
        piece_counts: Counter[str],
        learn: Callable[[MergeLoop, int, Sequence[tuple[str, ...]]], None],
        resume_merges: Sequence[tuple[str, str]],
    ) -> Tokenizer:
        s = self.settings
        self.loop_merges_kept = None
        span_counts: Counter[str] = Counter()
        if s.superwords_from is not None:
            # The table counts superword spans as one key each: their words are counted as
            # pieces for the merges before the transition, the spans for those after it.
            piece_counts, span_counts = split_spans(piece_counts, self.splitter.raw_pieces)
        syll = get_syllabifier(s.script, s.leading_space)
        units = corpus_units(
            piece_counts,
            self.splitter.match_units,
            self.splitter.max_units,
            native=self.splitter.native_units(),
        )
        char_counts = units.char_counts()
        base = self.base_alphabet(piece_counts, char_counts)
        target_symbols = s.vocab_size - len(SPECIAL_TOKENS)
        if len(base) > target_symbols:
            raise ValueError(
                f"vocab_size={s.vocab_size} is smaller than the base vocabulary: "
                f"{len(SPECIAL_TOKENS)} special tokens + {len(base)} symbols (the corpus's "
                "characters, ASCII and byte tokens). "
                f"Use vocab_size >= {len(base) + len(SPECIAL_TOKENS)}, or raise prune_freq to "
                "drop rare characters."
            )
        # The letters of Thai and Lao in this corpus (none for the twelve scripts of 0.3:
        # their runs take the path they always took).
        whole = whole_syllable_letters(s.script).intersection(char_counts)
        engine, state = self._unit_engine(units, span_counts, base, syll)
        if not whole:
            del units, span_counts  # the state holds its own copy of the words
        learn(engine, target_symbols, [(a, b, merge_kind(a, b, syll)) for a, b in resume_merges])
        learned = engine.merge_list()
        if whole:
            # Every syllable of theirs seen becomes a token (sgpe/hierarchical/whole.py).
            # The plan asks the kind of the same few pairs for every prefix it tries.
            kind = cache(partial(merge_kind, syll=syll))
            plan = completion_plan(
                whole_units(state, base, whole), learned, base, target_symbols, kind
            )
            if plan is not None:
                keep, extra = plan
                self.loop_merges_kept = keep
                del engine, state
                engine, state = self._unit_engine(units, span_counts, base, syll)
                # Replayed, not learned: every merge is applied whatever its count.
                run_merges(engine, target_symbols=0, min_freq=1, resume=learned[:keep] + extra)
                learned = engine.merge_list()
            del units
        freq = engine.usage()
        symbols = state.symbols
        merge_counts = engine.merge_counts
        # The pair counts, index and words are done with: let them go before the tokenizer
        # is built, so they and its tables are not in memory at once (the trainer's peak).
        del engine, state
        order = sorted(range(len(symbols)), key=lambda i: (freq[i] == 0, -freq[i], i))
        vocab = {t: i for i, t in enumerate(SPECIAL_TOKENS)}
        for i in order:
            vocab.setdefault(symbols[i], len(vocab))
        merges = [(a, b) for a, b, _ in learned]
        return self._tokenizer(vocab, merges, [k for _, _, k in learned], merge_counts)

    def _unit_engine(
        self,
        units: CorpusUnits,
        span_counts: Counter[str],
        base: list[str],
        syll: Syllabifier,
    ) -> tuple[HierarchicalEngine | NativeHierarchicalEngine, HierarchicalState]:
        """The hierarchical merge loop over the corpus's units, before any merge, and its
        state."""
        s = self.settings
        spans = None
        if span_counts:
            assert s.superwords_from is not None
            spans = code_spans(
                units,
                span_counts,
                self.splitter.match_units,
                s.superwords_from - len(SPECIAL_TOKENS),
            )
        state = build_state(units, base, s.script, s.leading_space)
        return merge_engine(state, syll, s.script, s.leading_space, spans), state

    # ---------------------------------------------------------------- output
    def _tokenizer(
        self,
        vocab: dict[str, int],
        merges: list[tuple[str, str]],
        kinds: list[MergeKind] | None = None,
        counts: list[int] | None = None,
    ) -> Tokenizer:
        s = self.settings
        info = self.corpus_info
        training = {
            "corpus": info.name if info else None,
            "sha256": info.sha256 if info else None,
            "lines": info.documents if info else None,
        }
        return Tokenizer(
            vocab=vocab,
            merges=merges,
            **s.vocab_metadata(),
            training=training,
            merge_kinds=kinds,
            merge_counts=counts,
            max_piece_units=s.max_piece_units,
            _trained=True,
        )

    def _build_tokenizer(
        self, state: _State, pruned: Counter[str], counts: list[int], freq: list[int]
    ) -> Tokenizer:
        """``freq``: how often each symbol occurs in the merged segments."""
        s = self.settings
        if s.oov_policy == "fallback":
            for u, c in pruned.items():
                for piece in _spell(u, state.symbol_id):
                    freq[state.symbol_id[piece]] += c
        order = sorted(range(len(state.symbols)), key=lambda i: (freq[i] == 0, -freq[i], i))
        vocab = {t: i for i, t in enumerate(SPECIAL_TOKENS)}
        for i in order:
            vocab.setdefault(state.symbols[i], len(vocab))
        merges = [(state.symbols[a], state.symbols[b]) for a, b in state.merges]
        return self._tokenizer(vocab, merges, counts=counts)


def _spell(unit: str, symbol_id: dict[str, int]) -> list[str]:
    """The fallback spelling of a unit: code points in the vocabulary, else UTF-8 bytes."""
    out: list[str] = []
    for ch in unit:
        if ch in symbol_id:
            out.append(ch)
        else:
            out.extend(byte_token(b) for b in ch.encode("utf-8"))
    return out


# ============================================================================
# The incremental merge engine
# ============================================================================


class _PaperLoop:
    """The paper mode's merge loop over the segments, with the interface of
    :class:`sgpe._driver.MergeLoop`: plain BPE (``BpeTrainer``: the native core's, or its
    Python twin in sgpe/bpe.py), a merge's symbol being the concatenation of the pair's
    strings (an existing id when that string is a symbol already). The state's symbols,
    symbol ids and merges are kept up to date here; its segments stay as prepared (the
    trainer holds the merged ones, and `usage` counts them)."""

    def __init__(self, state: _State, trainer: NativeBpeTrainer | BpeTrainer) -> None:
        self.st = state
        self.trainer = trainer
        self.merge_counts: list[int] = []  # the pair count of each merge when it was chosen
        self._started: float | None = None

    @property
    def symbols(self) -> list[str]:
        return self.st.symbols

    def usage(self) -> list[int]:
        return self.trainer.usage()

    def _record(self, left: int, right: int, count: int, merged: int) -> None:
        st = self.st
        st.merges.append((left, right))
        self.merge_counts.append(count)
        if merged == len(st.symbols):
            symbol = st.symbols[left] + st.symbols[right]
            st.symbols.append(symbol)
            st.symbol_id[symbol] = merged

    def replay(self, merges: Sequence[tuple[str, ...]], min_freq: int) -> tuple[int, int] | None:
        # The same updates as the original run, the pair taken from the list.
        st = self.st
        for k, (left, right) in enumerate(merges):
            left_id, right_id = st.symbol_id.get(left), st.symbol_id.get(right)
            if left_id is None or right_id is None:
                return k, 0
            applied, count, merged = self.trainer.replay(left_id, right_id, min_freq)
            if not applied:
                return k, count
            self._record(left_id, right_id, count, merged)
        if merges:
            self.trainer.rebuild_heap()
        return None

    def learn(
        self, target_symbols: int, min_freq: int, most: int, seconds: float
    ) -> tuple[list[Learned], bool, Exception | None]:
        called = time.perf_counter()
        if self._started is None:
            self._started = called
        batch, finished, error = self.trainer.learn(target_symbols, min_freq, most, seconds)
        # Every merge of the batch is timed at its end: the native core does not time each.
        elapsed = time.perf_counter() - self._started
        for left, right, count, merged in batch:
            self._record(left, right, count, merged)
        return [(a, b, c, elapsed) for a, b, c, _ in batch], finished, error


def train(
    corpus: str | Path | Iterable[str],
    *,
    progress: ProgressFn | None = None,
    **settings: Unpack[TrainKeywords],
) -> Tokenizer | ByteBPETokenizer:
    """Train an SGPE tokenizer on a corpus file (.txt/.jsonl/.csv/.parquet) or documents.

    The keyword arguments are the fields of :class:`sgpe.settings.TrainSettings`
    (``vocab_size``, ``mode``, ``prune_freq``, ``min_freq``, ``leading_space``,
    ``prepend_space``, ``oov_policy``, ``script``, ``pieces``), with its defaults.
    ``vocab_size`` counts everything: the 5 special tokens, the base symbols (syllables,
    and with ``oov_policy="fallback"`` the schemas' code points and the 115 byte tokens of
    :data:`sgpe.tokenizer.FALLBACK_BYTES`, the bytes valid UTF-8 has beyond ASCII) and
    the merged tokens.

    ``model="bytebpe"`` trains the byte-level baseline instead, as ``python -m sgpe train
    --model bytebpe`` does (a :class:`sgpe.baselines.bytebpe.ByteBPETokenizer`: its
    settings are ``vocab_size``, ``pattern`` and ``min_freq``). Either result meets
    :class:`sgpe.protocol.TokenizerProtocol`.

    >>> train(["ab ab ab"], model="bytebpe", vocab_size=258, pattern="gpt2").tokenize("ab")
    ['ab']
    """
    unknown = sorted(set(settings) - TRAIN_FIELDS - COUNT_FIELDS)
    if unknown:
        raise TypeError(
            f"train() got an unknown setting {', '.join(map(repr, unknown))}; the settings "
            f"are the fields of TrainSettings and CountOptions: "
            f"{', '.join(sorted(TRAIN_FIELDS | COUNT_FIELDS))}"
        )
    given: dict[str, Any] = dict(settings)
    counting = CountOptions(**{k: v for k, v in given.items() if k in COUNT_FIELDS})
    trained = TrainSettings(**{k: v for k, v in given.items() if k in TRAIN_FIELDS})
    if trained.model == "bytebpe":
        return _train_bytebpe(corpus, trained, counting, progress)
    return GPETrainer(trained, counting).train(corpus, progress=progress)


def _train_bytebpe(
    corpus: str | Path | Iterable[str],
    settings: TrainSettings,
    counting: CountOptions,
    progress: ProgressFn | None,
) -> ByteBPETokenizer:
    """``train(model="bytebpe")``: the baseline trained on the corpus's documents as the
    command line's run trains it (sgpe/runs/worker.py, ``_train_bytebpe``), each merge
    reported to ``progress`` as a :class:`ProgressEvent`."""
    from .baselines.bytebpe import ByteBPETokenizer
    from .corpus.readers import corpus_files, iter_documents

    documents: Iterable[str]
    if isinstance(corpus, (str, Path)):
        files = corpus_files(corpus)
        documents = (
            doc
            for file in files
            for doc in iter_documents(file, max_line_bytes=counting.max_line_bytes)
        )
    else:
        documents = corpus
    report = None
    if progress is not None:
        target = settings.vocab_size - 257  # the ids that are not a byte or <|endoftext|>
        on_progress = progress

        def report(step: int, pair: tuple[str, str], count: int, elapsed: float) -> None:
            on_progress(ProgressEvent(step, target, pair, count, elapsed))

    return ByteBPETokenizer.train(
        documents,
        settings.vocab_size,
        pattern=settings.pattern,
        min_freq=settings.min_count,
        progress=report,
    )


__all__ = [
    "FALLBACK_ASCII",
    "MODES",
    "CheckpointFn",
    "GPETrainer",
    "Mode",
    "OOVPolicy",
    "ProgressEvent",
    "ProgressFn",
    "TrainSettings",
    "default_min_freq",
    "train",
]

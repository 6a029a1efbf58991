"""The one driver of the trainers' merge loops: replay a checkpoint, learn until the
vocabulary is full or no pair is frequent enough, and report progress and checkpoints.

Both modes' loops (the paper mode's in sgpe/gpe.py, the hierarchical mode's in
sgpe/hierarchical/engine.py), in either engine, offer one small interface,
:class:`MergeLoop`: the native core's, which the Python loops offer too. The Python loop
and the native one then differ only in how they merge; which one runs is decided by
sgpe/_engine.py (:func:`sgpe._engine.dispatch`), never here.

The loop learns in batches (``sgpe._engine.run_in_batches``; a checkpoint step always ends
one), so a progress display or a signal handler waits at most one batch; without a
progress callback it learns in one batch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from ._engine import run_in_batches
from .bpe import ResumeMismatch

# A learned merge as a loop hands it back: left id, right id, its pair count, and the
# seconds since the loop started learning.
Learned = tuple[int, int, int, float]
# (step, target, pair, count, seconds): one merge.
ProgressHook = Callable[[int, int, tuple[str, str], int, float], None]
# (first step, target, pairs, counts, seconds at the last of them): consecutive merges.
BatchHook = Callable[[int, int, list[tuple[str, str]], list[int], float], None]
# (step, every merge so far as a pair of strings)
CheckpointHook = Callable[[int, list[tuple[str, str]]], None]


class MergeLoop(Protocol):
    """A merge loop over a corpus's prepared words, in either engine."""

    @property
    def symbols(self) -> list[str]:
        """The symbol table (ids are indexes), grown by every merge that makes a symbol."""
        ...

    @property
    def merge_counts(self) -> list[int]:
        """The pair count of every merge so far (replayed ones included) when it was made."""
        ...

    def replay(self, merges: Sequence[tuple[str, ...]], min_freq: int) -> tuple[int, int] | None:
        """Apply a checkpoint's merges (``(left, right)`` strings, and the kind in the
        hierarchical mode) as the run that saved it did: None, or the index of the first
        that occurs fewer than ``min_freq`` times here (nothing after it is applied) and
        its count."""
        ...

    def learn(
        self, target_symbols: int, min_freq: int, most: int, seconds: float
    ) -> tuple[list[Learned], bool, Exception | None]:
        """Learn at most ``most`` merges, for about ``seconds`` at most: the best pair
        first, while there are fewer than ``target_symbols`` symbols and the best pair
        occurs at least ``min_freq`` times. Gives the merges, whether the loop is done,
        and the error that stopped it after them (a vocabulary too large), or None."""
        ...

    def usage(self) -> list[int]:
        """How often each symbol is used in the final segmentation of the corpus."""
        ...


def resume_mismatch(n: int, merge: tuple[str, ...], count: int) -> str:
    """The message of a checkpoint's merge ``n`` (from 0) that the corpus has only
    ``count`` times: both engines and both modes say it alike."""
    shown = ", ".join(map(repr, merge))
    return (
        f"checkpoint merge {n + 1} ({shown}) has count {count} in this corpus; the "
        "checkpoint belongs to another corpus or other settings"
    )


def run_merges(
    loop: MergeLoop,
    *,
    target_symbols: int,
    min_freq: int,
    resume: Sequence[tuple[str, ...]] = (),
    progress: ProgressHook | None = None,
    progress_batch: BatchHook | None = None,
    checkpoint_every: int = 0,
    on_checkpoint: CheckpointHook | None = None,
) -> None:
    """Train ``loop``: replay ``resume`` (a :class:`sgpe.bpe.ResumeMismatch` where a merge
    does not fit), then learn until ``target_symbols`` symbols or until the best pair
    occurs fewer than ``min_freq`` times. ``progress`` sees every learned merge in order,
    ``progress_batch`` the same merges a batch at a time; their target is the merges that
    fill the vocabulary in all (replayed ones included: an upper bound, as ``min_freq`` may
    stop earlier). ``on_checkpoint`` gets every merge so far at each step that is a
    multiple of ``checkpoint_every``, after the progress of that step."""
    symbols = loop.symbols
    target = max(0, target_symbols - len(symbols))
    bad = loop.replay(resume, min_freq)
    if bad is not None:
        n, count = bad
        raise ResumeMismatch(resume_mismatch(n, tuple(resume[n]), count))
    every = checkpoint_every if on_checkpoint is not None else 0
    report = progress is not None or progress_batch is not None
    # The merges so far as strings, kept only for the checkpoints.
    merged: list[tuple[str, str]] = [(m[0], m[1]) for m in resume] if every else []
    step = len(resume)

    def one_batch(most: int, seconds: float) -> bool:
        nonlocal step
        if every:  # a checkpoint step ends a batch: the checkpoint sees that step's state
            most = min(most, every - step % every)
        made, done, error = loop.learn(target_symbols, min_freq, most, seconds)
        first = step + 1
        step += len(made)
        if report or every:
            pairs = [(symbols[a], symbols[b]) for a, b, _, _ in made]
            if progress is not None:
                for k, ((_, _, count, elapsed), pair) in enumerate(zip(made, pairs), first):
                    progress(k, target, pair, count, elapsed)
            if progress_batch is not None and made:
                counts = [count for _, _, count, _ in made]
                progress_batch(first, target, pairs, counts, made[-1][3])
            if every:
                merged.extend(pairs)
                if made and step % every == 0:
                    assert on_checkpoint is not None
                    on_checkpoint(step, list(merged))
        if error is not None:
            raise error
        return done

    run_in_batches(one_batch, report=report)

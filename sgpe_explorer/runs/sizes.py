"""The vocabulary sizes a corpus allows for some settings: :class:`SizeRange`,
:func:`size_range` (a corpus path) and :func:`upload_size_range` (an upload's bytes).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sgpe.corpus.readers import iter_documents
from sgpe.runs.intake import validate_corpus
from sgpe.settings import MAX_VOCAB_SIZE, TrainSettings


@dataclass(frozen=True)
class SizeRange:
    """The vocabulary sizes a corpus allows for some settings (:func:`size_range`)."""

    documents: int
    base: int  # base symbols (the alphabet the merges start from)
    smallest: int  # base + special tokens: a smaller vocab_size cannot be trained
    largest: int  # where training stops when asked for more: no pair left to merge
    min_freq: int  # the settings' min_freq, which decides where that is

    def problem(self, vocab_size: int) -> str:
        """Why ``vocab_size`` does not fit this corpus ("" if it does)."""
        if vocab_size < self.smallest:
            return (
                f"{vocab_size:,} is below the smallest size for this corpus and these "
                f"settings: {self.smallest:,} (the {self.base:,} base symbols and the special "
                "tokens are always in); choose at least that, or raise the prune frequency"
            )
        if vocab_size > self.largest:
            when = (
                "no pair of tokens is left to merge"
                if self.min_freq <= 1
                else f"no pair of tokens occurs {self.min_freq:,} times or more (min_freq)"
            )
            return (
                f"{vocab_size:,} is more than this corpus can give: training stops at "
                f"{self.largest:,} tokens, when {when}; choose at most {self.largest:,}, or "
                "a larger corpus"
            )
        return ""


def size_range(corpus: str | Path, settings: TrainSettings) -> SizeRange:
    """The smallest and the largest ``vocab_size`` that ``settings`` (its ``vocab_size``
    aside) can train on ``corpus``.

    The largest is where a run asked for more stops (``stop_reason`` of its status): the
    trainer runs until no pair occurs ``min_freq`` times, on the counts it made, so it is
    exact, not a bound (on the shipped sinhala.txt at the default settings, 6,039; a bound
    of 9,218 said before made a form that promised what the run never reached). Training
    to the end is fast next to the count (well under a second for the sample files, a
    tenth of a second per MB of text with the native core); the app runs it on a large
    upload in a worker process (sgpe_explorer/ui/train_form.py, corpus_range)."""
    from sgpe.gpe import GPETrainer
    from sgpe.settings import SPECIAL_TOKENS

    everything = settings.replace(vocab_size=MAX_VOCAB_SIZE)
    if settings.model == "bytebpe":
        from sgpe.baselines.bytebpe import ByteBPETokenizer
        from sgpe.corpus.readers import corpus_files

        documents = 0

        def each_document() -> Iterator[str]:
            nonlocal documents
            for file in corpus_files(Path(corpus)):  # as the run's trainer reads it
                for doc in iter_documents(file):
                    documents += 1
                    yield doc

        full = ByteBPETokenizer.train(
            each_document(),
            MAX_VOCAB_SIZE,
            pattern=settings.pattern,
            min_freq=settings.min_count,
        )
        return SizeRange(documents, 256, 257, full.vocab_size, settings.min_count)
    trainer = GPETrainer(everything)
    counts = trainer.count(Path(corpus))
    documents = trainer.corpus_info.documents if trainer.corpus_info else 0
    if settings.hierarchical:
        n_base = len(trainer.base_alphabet(counts))
    else:
        state, _ = trainer._prepare(counts)
        n_base = len(state.symbols)
    largest = trainer.fit(counts).vocab_size
    smallest = n_base + len(SPECIAL_TOKENS)
    return SizeRange(documents, n_base, smallest, largest, settings.min_count)


def upload_size_range(data: bytes, name: str, settings: dict[str, Any]) -> SizeRange | str:
    """:func:`size_range` of an upload's bytes (its format by ``name``), or what is wrong
    with it as one line (the temporary file's path replaced by ``name``).

    A plain function of picklable arguments, so that the app can run it in a worker
    process: reading a 16 MB upload takes seconds of CPU, which in the server's own
    process slowed every page (see sgpe_explorer/ui/train_form.py, corpus_range)."""
    import tempfile

    from sgpe.corpus import CorpusError, corpus_format

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / ("corpus" + corpus_format(name))
        try:
            path.write_bytes(data)
            validate_corpus(path, name=name, max_bytes=None)
            return size_range(path, TrainSettings(**settings))
        except (CorpusError, ValueError) as err:
            return str(err).replace(str(path), name)

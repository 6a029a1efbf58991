"""The vocabularies shipped with the project, trained from ``sample_data/`` (text written
for this project), so the app and the examples work on a fresh install with no set-up.

The sample corpora and vocabularies are package data (``sgpe/sample_data/``; a checkout's
top-level ``sample_data`` is a link to it), so they are there wherever the package is
installed. Each vocabulary has a name that :func:`sgpe.load` and the CLI's ``--vocab`` take
from any working directory (:data:`VOCABULARIES`, :func:`path_of`)::

    >>> sorted(VOCABULARIES)
    ['bytebpe-4k', 'sgpe-4k', 'sgpe-paper-4k']

``python -m sgpe.shipped`` rebuilds them; the tests check the shipped files are
byte-identical to a rebuild (training is deterministic).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._text import split_lines

if TYPE_CHECKING:
    from .settings import TrainSettings

SAMPLE_DATA = Path(__file__).resolve().parent / "sample_data"
SAMPLE_FILES = ("sinhala.txt", "hindi.txt", "mixed.txt")
DEFAULT_VOCAB_SIZE = 4000
DEFAULT_SGPE = SAMPLE_DATA / "vocab" / "sgpe_4k.json"
# The same corpus and size in the original SGPE mode (whole syllables as the base): kept so
# a test proves that mode still gives the vocabulary it gave before the hierarchical mode.
PAPER_SGPE = SAMPLE_DATA / "vocab" / "sgpe_paper_4k.json"
DEFAULT_BYTEBPE = SAMPLE_DATA / "vocab" / "bytebpe_4k.json"


def _settings() -> dict[str, TrainSettings]:
    """The settings of the three, from the one settings type. The sample files are small
    (a few thousand lines), so prune_freq=1 keeps every character they have. Made on first
    use (``SGPE_SETTINGS`` ...): the byte-level one compiles its pre-tokenizer, which
    ``--vocab sgpe-4k`` does not need."""
    from .settings import TrainSettings

    return {
        "SGPE_SETTINGS": TrainSettings(vocab_size=DEFAULT_VOCAB_SIZE, prune_freq=1),
        "PAPER_SETTINGS": TrainSettings(vocab_size=DEFAULT_VOCAB_SIZE, prune_freq=1, mode="paper"),
        "BYTEBPE_SETTINGS": TrainSettings(model="bytebpe", vocab_size=DEFAULT_VOCAB_SIZE),
    }


def __getattr__(name: str) -> Any:
    if name in ("SGPE_SETTINGS", "PAPER_SETTINGS", "BYTEBPE_SETTINGS"):
        made = _settings()
        globals().update(made)
        return made[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class Shipped:
    """One shipped vocabulary: its file and what it is."""

    name: str
    path: Path
    description: str


# Name -> vocabulary, in the order the README lists them.
VOCABULARIES: dict[str, Shipped] = {
    v.name: v
    for v in (
        Shipped("sgpe-4k", DEFAULT_SGPE, "SGPE, hierarchical mode (the default), 4,000 tokens"),
        Shipped("sgpe-paper-4k", PAPER_SGPE, "SGPE, paper mode (the original SGPE), 4,000 tokens"),
        Shipped("bytebpe-4k", DEFAULT_BYTEBPE, "byte-level BPE (GPT-style), 4,000 tokens"),
    )
}


def path_of(name: str) -> Path:
    """The file of the shipped vocabulary called *name* (a key of :data:`VOCABULARIES`).

    >>> path_of("sgpe-4k").name
    'sgpe_4k.json'
    """
    try:
        return VOCABULARIES[name].path
    except KeyError:
        raise KeyError(
            f"no shipped vocabulary is called {name!r}: the shipped ones are "
            + ", ".join(VOCABULARIES)
        ) from None


def sample_documents() -> list[str]:
    """All lines of the sample files, in a fixed order."""
    docs: list[str] = []
    for name in SAMPLE_FILES:
        docs += split_lines((SAMPLE_DATA / name).read_text(encoding="utf-8"))
    return docs


def build(out_dir: Path | None = None) -> tuple[Path, Path, Path]:
    """Train the shipped vocabularies and write them; return their paths."""
    from .baselines.bytebpe import ByteBPETokenizer
    from .gpe import GPETrainer

    out_dir = out_dir or DEFAULT_SGPE.parent
    out_dir.mkdir(parents=True, exist_ok=True)
    docs = sample_documents()
    corpus = "sample_data: " + ", ".join(SAMPLE_FILES)
    settings = _settings()
    tok = GPETrainer(settings["SGPE_SETTINGS"]).train(docs)
    tok.training["corpus"] = corpus
    sgpe_path = out_dir / DEFAULT_SGPE.name
    tok.save(sgpe_path)
    paper = GPETrainer(settings["PAPER_SETTINGS"]).train(docs)
    paper.training["corpus"] = corpus
    paper_path = out_dir / PAPER_SGPE.name
    paper.save(paper_path)
    b = settings["BYTEBPE_SETTINGS"]
    byte = ByteBPETokenizer.train(docs, b.vocab_size, pattern=b.pattern, min_freq=b.min_count)
    byte_path = out_dir / DEFAULT_BYTEBPE.name
    byte.save(byte_path, training={"corpus": corpus})
    return sgpe_path, byte_path, paper_path


if __name__ == "__main__":
    for path in build():
        print(f"wrote {path}")

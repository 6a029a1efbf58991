"""The tokenizer's encoding tables are built when first used (``Tokenizer._token_bytes``,
``_ranks``, ``_hier``, ``_native_pieces``): a trainer that only saves its vocabulary never
builds them, and whichever method comes first, every method gives the same results as a
tokenizer loaded from the saved file (which recomputes the merge kinds the trainer
passed), on the native and the Python paths."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import BOTH_ENGINES

import sgpe
from sgpe._engine import engine as running_engine
from sgpe.gpe import GPETrainer
from sgpe.settings import CountOptions, TrainSettings
from sgpe.tokenizer import Tokenizer

TABLES = ("_token_bytes", "_ranks", "_hier", "_native_pieces")


@pytest.fixture(scope="module", params=["hierarchical", "paper"])
def trained(
    request: pytest.FixtureRequest, shared_corpora: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Tokenizer, Path, list[str]]:
    trainer = GPETrainer(TrainSettings(vocab_size=2500, mode=request.param), CountOptions())
    tok = trainer.train(shared_corpora / "si_dev.txt")
    path = tmp_path_factory.mktemp("lazy") / "vocab.json"
    tok.save(path)
    lines = (shared_corpora / "si_dev.txt").read_text(encoding="utf-8").splitlines()[:300]
    lines += [(shared_corpora / "mixed_dev.txt").read_text(encoding="utf-8")[:3000], "", "x😀ශ"]
    return tok, path, lines


def test_training_and_saving_build_no_encoding_table(
    trained: tuple[Tokenizer, Path, list[str]],
) -> None:
    tok, path, lines = trained
    assert [t for t in TABLES if t in vars(tok)] == []
    loaded = sgpe.load(path)
    assert loaded.to_dict() == tok.to_dict()
    assert [tok.encode(line) for line in lines] == [loaded.encode(line) for line in lines]
    # Built on first use: the native encoder under the native engine, none under Python.
    assert (tok._native_pieces is not None) == (running_engine() == "native")


@pytest.mark.parametrize("engine", BOTH_ENGINES)
@pytest.mark.parametrize("first", ["encode", "encode_batch", "tokenize", "decode", "merge_trace"])
def test_any_first_use_gives_the_encodings_of_the_loaded_file(
    trained: tuple[Tokenizer, Path, list[str]],
    engine: str,
    first: str,
) -> None:
    _, path, lines = trained
    reference = sgpe.load(path)
    want = [reference.encode(line) for line in lines]
    text = "\n".join(lines)

    tok = sgpe.load(path)
    assert [t for t in TABLES if t in vars(tok)] == []
    if engine == "python":
        tok._native_pieces = None  # the Python engine's paths (the engine is read once)
    if first == "encode_batch":
        assert tok.encode_batch(lines) == want
    elif first == "tokenize":
        assert tok.tokenize(text) == reference.tokenize(text)
    elif first == "decode":
        assert tok.decode(want[0]) == lines[0]
    elif first == "merge_trace":
        assert tok.merge_trace(lines[1]) == reference.merge_trace(lines[1])
    assert [tok.encode(line) for line in lines] == want
    assert [tok.decode(ids) for ids in want] == lines
    assert tok.encode_with_spans(text) == reference.encode_with_spans(text)

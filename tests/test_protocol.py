"""One tokenizer protocol (sgpe/protocol.py, ``TokenizerProtocol``): every model
``sgpe.load`` returns meets all of it, under both engines, on the shipped vocabularies and
the real text of sgpe/sample_data."""

from __future__ import annotations

from array import array
from itertools import accumulate, pairwise
from pathlib import Path

import pytest
from conftest import BOTH_ENGINES, engine_set_to

import sgpe
from sgpe.baselines.bytebpe import ByteBPETokenizer
from sgpe.protocol import TokenizerProtocol

SAMPLES = Path(sgpe.__file__).parent / "sample_data"


def _texts() -> list[str]:
    """Every non-empty line of the sample texts (Sinhala, Hindi, mixed)."""
    lines: list[str] = []
    for name in ("sinhala.txt", "hindi.txt", "mixed.txt"):
        lines += [
            line for line in (SAMPLES / name).read_text(encoding="utf-8").splitlines() if line
        ]
    return lines


@pytest.mark.parametrize("engine", BOTH_ENGINES)
@pytest.mark.parametrize(
    ("name", "cls", "specials"),
    [
        ("sgpe-4k", sgpe.Tokenizer, {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "[MASK]": 4}),
        ("bytebpe-4k", ByteBPETokenizer, {"<|endoftext|>": 3999}),
    ],
)
def test_every_loaded_model_meets_the_whole_protocol(
    tmp_path: Path, engine: str, name: str, cls: type, specials: dict[str, int]
) -> None:
    with engine_set_to(engine):
        assert sgpe.engine() == engine
        tok = sgpe.load(name)
        assert type(tok) is cls and isinstance(tok, TokenizerProtocol)
        texts = _texts()
        assert len(texts) > 10

        # encode / decode: a round trip on real text; tokenize spells encode's ids.
        ids = [tok.encode(t) for t in texts]
        assert [tok.decode(i) for i in ids] == texts
        assert all(tok.tokenize(t) == [tok.id_to_token(i) for i in e] for t, e in zip(texts, ids))

        # encode_batch with tiktoken's keyword: the same ids as encode, text by text.
        assert tok.encode_batch(texts, num_threads=2) == ids
        assert tok.encode_batch(texts) == ids
        assert tok.encode_batch(texts, num_threads=1) == ids
        assert tok.encode_batch([]) == []
        for bad in (0, -1, True, 1.5):
            with pytest.raises(ValueError, match="num_threads must be at least 1"):
                tok.encode_batch(texts[:1], num_threads=bad)

        # token_to_id / id_to_token: inverse on every id; None for what is not there.
        vocab = tok.get_vocab()
        assert tok.vocab_size == len(vocab) == 4000
        assert sorted(vocab.values()) == list(range(tok.vocab_size))
        assert all(tok.id_to_token(i) == t and tok.token_to_id(t) == i for t, i in vocab.items())
        assert tok.token_to_id("no such token") is None
        assert tok.id_to_token(10**9) is None
        assert tok.id_to_token(-1) is None
        assert tok.id_to_token(tok.vocab_size) is None

        # get_vocab is a copy: changing it changes nothing in the tokenizer.
        vocab["no such token"] = 10**6
        del vocab[next(iter(vocab))]
        assert tok.vocab_size == 4000 and len(tok.get_vocab()) == 4000
        assert "no such token" not in tok.get_vocab()
        assert tok.token_to_id("no such token") is None

        # special_tokens: token -> id, a copy as well.
        assert tok.special_tokens == specials
        tok.special_tokens.clear()
        assert tok.special_tokens == specials
        assert all(tok.token_to_id(t) == i for t, i in specials.items())

        # save, then sgpe.load: the same class, the same bytes, the same ids.
        path = tmp_path / f"{name}.json"
        tok.save(path)
        again = sgpe.load(path)
        assert type(again) is cls
        assert path.read_bytes() == sgpe.shipped.path_of(name).read_bytes()
        assert again.encode_batch(texts, num_threads=2) == ids


def test_the_sgpe_tokenizer_vocab_is_read_only() -> None:
    """``Tokenizer.vocab`` is a view: adding a token to it fails instead of changing
    ``vocab_size`` behind the tokenizer's back."""
    tok = sgpe.load("sgpe-4k")
    assert isinstance(tok, sgpe.Tokenizer)
    with pytest.raises(TypeError):
        tok.vocab["no such token"] = 10**6  # type: ignore[index]
    assert tok.vocab_size == 4000 and dict(tok.vocab) == tok.get_vocab()


def test_the_other_entry_points_are_private() -> None:
    """``sgpe.load`` is the one way to load (CHANGELOG 0.3.0)."""
    for cls in (sgpe.Tokenizer, ByteBPETokenizer):
        for name in ("load", "load_file", "from_dict"):
            assert not hasattr(cls, name), f"{cls.__name__}.{name}"


@pytest.mark.parametrize("engine", BOTH_ENGINES)
@pytest.mark.parametrize("name", ["sgpe-4k", "bytebpe-4k"])
def test_both_models_offer_the_flat_batch_and_the_spans(engine: str, name: str) -> None:
    """``encode_batch_flat`` and ``encode_with_spans`` are on both models, beyond the
    protocol (docs/decisions.md): the flat batch holds encode_batch's ids, and the spans
    cut the text's UTF-8 bytes into one piece per id, in order."""
    with engine_set_to(engine):
        tok = sgpe.load(name)
        texts = _texts()
        lists = tok.encode_batch(texts)
        ids, offsets = tok.encode_batch_flat(texts, num_threads=2)
        assert (ids.typecode, offsets.typecode) == ("I", "q")
        assert [list(ids[a:b]) for a, b in pairwise(offsets)] == lists
        assert list(offsets) == [0, *accumulate(map(len, lists))]
        assert tok.encode_batch_flat([]) == (array("I"), array("q", [0]))
        for text, want in zip(texts, lists):
            got, spans = tok.encode_with_spans(text)
            data = text.encode("utf-8")
            assert got == want and len(spans) == len(got)
            assert spans[0][0] == 0 and spans[-1][1] == len(data)
            assert all(a[1] == b[0] for a, b in pairwise(spans))

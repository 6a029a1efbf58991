"""The shipped default vocabularies are reproducible and usable."""

from __future__ import annotations

import json
from pathlib import Path

import sgpe
from sgpe.shipped import DEFAULT_BYTEBPE, DEFAULT_SGPE, PAPER_SGPE, build, sample_documents


def test_shipped_vocabularies_are_byte_identical_to_a_rebuild(tmp_path):
    """The shipped files are exactly what the trainers make (see also the next test)."""
    sgpe_path, byte_path, paper_path = build(tmp_path)
    assert sgpe_path.read_bytes() == DEFAULT_SGPE.read_bytes()
    assert byte_path.read_bytes() == DEFAULT_BYTEBPE.read_bytes()
    assert paper_path.read_bytes() == PAPER_SGPE.read_bytes()
    assert sgpe.load(DEFAULT_SGPE).mode == "hierarchical"
    assert sgpe.load(PAPER_SGPE).mode == "paper"


def test_default_vocabularies_round_trip_the_sample_data():
    tok, byte = sgpe.load(DEFAULT_SGPE), sgpe.load(DEFAULT_BYTEBPE)
    assert tok.model == "sgpe" and byte.model == "bytebpe"
    assert tok.vocab_size == 4000
    for line in sample_documents():
        assert tok.decode(tok.encode(line)) == line
        assert byte.decode(byte.encode(line)) == line


def test_paper_mode_reproduces_the_first_release():
    """tests/data/sgpe_4k_v0.1.0.json is the default vocabulary of release 0.1.0, made before
    the hierarchical mode existed. The paper mode rebuilds it from the same sample data;
    the one difference is the Devanagari schema's fix: U+A8FF (vowel sign AY) is now a
    vowel sign, so it joined the fallback code points and took the id of the last merge."""
    old = json.loads((Path(__file__).parent / "data" / "sgpe_4k_v0.1.0.json").read_text("utf-8"))
    new = json.loads(PAPER_SGPE.read_text(encoding="utf-8"))
    assert [tuple(m) for m in new["merges"]] == [tuple(m) for m in old["merges"][:-1]]
    last = "".join(old["merges"][-1])
    assert set(new["vocab"]) == (set(old["vocab"]) - {last}) | {"\ua8ff"}
    same_keys = {k for k in old if k not in ("vocab", "merges", "num_merges", "training")}
    assert {k: new[k] for k in same_keys} == {k: old[k] for k in same_keys}


def test_shipped_vocabularies_carry_the_training_count_of_each_merge():
    """merge_counts is what the trainers report for each merge as they learn it."""
    from sgpe.baselines.bytebpe import ByteBPETokenizer
    from sgpe.gpe import train

    docs = sample_documents()
    reported: list[int] = []
    train(docs, vocab_size=4000, prune_freq=1, progress=lambda e: reported.append(e.count))
    tok = sgpe.load(DEFAULT_SGPE)
    assert tok.merge_counts == reported and len(reported) == len(tok.merges)
    assert reported[0] >= reported[-1] >= tok.min_freq
    byte_reported: list[int] = []
    ByteBPETokenizer.train(docs, 4000, progress=lambda s, p, c, e: byte_reported.append(c))
    byte = sgpe.load(DEFAULT_BYTEBPE)
    assert byte.merge_counts == byte_reported and len(byte_reported) == len(byte.merges)


def test_a_vocabulary_without_merge_counts_still_loads(tmp_path):
    old = sgpe.load(Path(__file__).parent / "data" / "sgpe_4k_v0.1.0.json")
    assert old.merge_counts is None and "merge_counts" not in old.to_dict()
    data = json.loads(DEFAULT_SGPE.read_text(encoding="utf-8"))
    del data["merge_counts"]
    assert sgpe.Tokenizer._from_dict(data).merge_counts is None
    byte = json.loads(DEFAULT_BYTEBPE.read_text(encoding="utf-8"))
    del byte["merge_counts"]
    from sgpe.baselines.bytebpe import ByteBPETokenizer

    assert ByteBPETokenizer._from_dict(byte).merge_counts is None


def test_damaged_merge_counts_are_a_one_line_error():
    import pytest

    from sgpe.baselines.bytebpe import ByteBPETokenizer

    data = json.loads(DEFAULT_SGPE.read_text(encoding="utf-8"))
    with pytest.raises(ValueError, match=r"^f: key 'merge_counts' has 2 entries but key 'merges'"):
        sgpe.Tokenizer._from_dict({**data, "merge_counts": [1, 2]}, "f")
    with pytest.raises(ValueError, match=r"^f: key 'merge_counts' must be a list of non-neg"):
        sgpe.Tokenizer._from_dict({**data, "merge_counts": ["1"]}, "f")
    byte = json.loads(DEFAULT_BYTEBPE.read_text(encoding="utf-8"))
    with pytest.raises(ValueError, match=r"^f: key 'merge_counts' has 1 entries but 'merges'"):
        ByteBPETokenizer._from_dict({**byte, "merge_counts": [1]}, source="f")

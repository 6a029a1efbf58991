"""The shipped default vocabularies are reproducible and usable."""

from __future__ import annotations

import sgpe
from sgpe.defaults import DEFAULT_BYTEBPE, DEFAULT_SGPE, PAPER_SGPE, build, sample_documents


def test_shipped_vocabularies_are_byte_identical_to_a_rebuild(tmp_path):
    """Also the proof that the paper mode is unchanged: sgpe_paper_4k.json is the file the
    project shipped as its default before the hierarchical mode existed (git history of
    sample_data/vocab/sgpe_4k.json), and the paper mode rebuilds it byte for byte."""
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

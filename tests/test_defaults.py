"""The shipped default vocabularies are reproducible and usable."""

from __future__ import annotations

import sgpe
from sgpe.defaults import DEFAULT_BYTEBPE, DEFAULT_SGPE, build, sample_documents


def test_shipped_vocabularies_are_byte_identical_to_a_rebuild(tmp_path):
    sgpe_path, byte_path = build(tmp_path)
    assert sgpe_path.read_bytes() == DEFAULT_SGPE.read_bytes()
    assert byte_path.read_bytes() == DEFAULT_BYTEBPE.read_bytes()


def test_default_vocabularies_round_trip_the_sample_data():
    tok, byte = sgpe.load(DEFAULT_SGPE), sgpe.load(DEFAULT_BYTEBPE)
    assert tok.model == "sgpe" and byte.model == "bytebpe"
    assert tok.vocab_size == 4000
    for line in sample_documents():
        assert tok.decode(tok.encode(line)) == line
        assert byte.decode(byte.encode(line)) == line

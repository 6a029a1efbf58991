"""Thai and Lao on real text: the Thai units against PyThaiNLP's Thai Character Clusters,
the Lao syllables against ``\\X`` and the pre-base rule, the targets of ``python -m bench
thai``, and the Hugging Face export, which refuses what it cannot follow.

The counts are exact: a change of grammar that tears one more cluster fails here.
"""

from __future__ import annotations

import pytest

from bench.thai import lao_measure, split_by_topic, tcc_measure
from sgpe.syllables import syllable_ends

TH, LO = "multi/th.txt", "multi/lo_words.txt"


def _lines(shared_corpora, name: str) -> list[str]:
    from bench.peers import read_lines

    return read_lines(shared_corpora / name)


@pytest.mark.made_with("thai_clusters")
def test_thai_units_keep_the_character_clusters(shared_corpora):
    """Of 545,008 Thai units on th.txt, 54 end inside a Thai Character Cluster, all in
    อย่างไรก็ตาม: ไร + ก็ต, where the grammar cannot tell ไ from เ (เสร็จ is one cluster,
    so is เ + two consonants + ็ + final)."""
    pytest.importorskip("pythainlp", reason="the TCC oracle is PyThaiNLP (extra 'oracles')")
    from sgpe.oracles import tcc_ends

    units = tears = 0
    for line in _lines(shared_corpora, TH):
        allowed = tcc_ends(line) | {0}
        ends = list(syllable_ends(line, "thai"))
        units += len(ends)
        tears += sum(e not in allowed for e in ends)
    assert (units, tears) == (545_008, 54)


def test_lao_syllables_keep_graphemes_and_pre_base_vowels(shared_corpora):
    """No Lao syllable ends inside a ``\\X`` cluster, and none ends in a pre-base vowel (a
    pre-base vowel with no consonant after it, a misspelling, is an orphan)."""
    words = _lines(shared_corpora, LO)
    assert lao_measure(words) == {
        "words": 21_391,
        "syllables": 74_282,
        "inside_grapheme": 0,
        "ends_in_pre_base": 0,
    }


def test_the_thai_split_is_by_topic(shared_corpora):
    train, held = split_by_topic(_lines(shared_corpora, TH))
    assert (len(train), len(held)) == (2_597, 563)
    assert not set(train) & set(held) - {""}


@pytest.mark.slow
@pytest.mark.made_with("thai_clusters")
def test_thai_8k_on_held_out_topics(shared_corpora, tmp_path):
    """The 8k vocabulary of the bench, on the held-out articles: lossless, at most 1.02x
    the tokens of HF BPE with byte fallback. The cluster tears are those of syllables that
    training never assembled (448, 12.7 per 1,000 tokens; 13 of them come from the grammar):
    above the target of 5, and guarded here so that a change shows."""
    pytest.importorskip("pythainlp", reason="the TCC oracle is PyThaiNLP (extra 'oracles')")
    pytest.importorskip("tokenizers")
    from bench.peers import load, run_training

    train, held = split_by_topic(_lines(shared_corpora, TH))
    corpus = tmp_path / "train.txt"
    corpus.write_text("\n".join(train) + "\n", encoding="utf-8")
    measured = {}
    for key in ("sgpe-fallback", "hf-bpe-bytes"):
        run_training(key, corpus, 8000, tmp_path / f"{key}.json")
        measured[key] = tcc_measure(load(key, tmp_path / f"{key}.json"), held)
    ours = measured["sgpe-fallback"]
    assert ours == {"tokens": 35_247, "tcc_tears": 448, "lossy_lines": 0}
    assert ours["tokens"] <= 1.02 * measured["hf-bpe-bytes"]["tokens"]


def test_the_hf_export_refuses_a_thai_vocabulary(tmp_path):
    """The export's pre-tokenizer looks two characters ahead; Thai may need five
    (เป + ลี่ย), so the export says so instead of giving other ids; the app leaves its
    buttons out (sgpe_explorer/ui/downloads.py)."""
    import sgpe
    from sgpe.interop.hf import ExportError, to_hf
    from sgpe.interop.hf_export import deep_lookahead_scripts

    corpus = tmp_path / "th.txt"
    corpus.write_text("เปลี่ยนแปลง กั้น เก็บ มือ ถึง\n" * 3 + "ลา ไป มา\n", encoding="utf-8")
    tok = sgpe.train(corpus, vocab_size=300, script="thai")
    assert deep_lookahead_scripts(tok) == ["Thai"]
    with pytest.raises(ExportError, match="three or more characters"):
        to_hf(tok)
    lao = tmp_path / "lo.txt"
    lao.write_text("ເມືອງ ຫຼາຍ ນ້ຳ ໄປ\n" * 3, encoding="utf-8")
    assert deep_lookahead_scripts(sgpe.train(lao, vocab_size=300, script="lao")) == []
    # The shipped vocabularies (auto, no Thai letter) export: their ZWJ and ZWNJ, which the
    # Thai grammar classes too, do not make them Thai.
    from sgpe import shipped

    assert deep_lookahead_scripts(sgpe.load(shipped.DEFAULT_SGPE)) == []

"""Training, encoding, the merge trace, HF export parity, metrics and the meta-vocabulary
on real Tamil, Bengali, Malayalam, Burmese and Khmer text (with Sinhala), one ``script="auto"``
vocabulary."""

from __future__ import annotations

import bisect
import itertools
from collections import Counter
from pathlib import Path

import pytest

import sgpe
from sgpe.metrics import broken_boundaries, evaluate

FILES = {
    "tamil": "multi/ta.txt",
    "bengali": "multi/bn.txt",
    "malayalam": "multi/ml.txt",
    "myanmar": "multi/my.txt",
    "khmer": "multi/km.txt",
}
TRAIN_LINES, HELD_OUT = 800, 150


def _lines(corpora: Path, name: str, start: int, n: int) -> list[str]:
    with open(corpora / name, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in itertools.islice(f, start, start + n)]


@pytest.fixture(scope="module")
def data(shared_corpora: Path) -> dict[str, tuple[list[str], list[str]]]:
    files = {**FILES, "sinhala": "si_dev.txt"}
    return {
        script: (
            _lines(shared_corpora, f, 0, TRAIN_LINES),
            _lines(shared_corpora, f, TRAIN_LINES, HELD_OUT),
        )
        for script, f in files.items()
    }


@pytest.fixture(scope="module")
def tok(data: dict[str, tuple[list[str], list[str]]]) -> sgpe.Tokenizer:
    docs = [line for train, _ in data.values() for line in train]
    return sgpe.train(docs, vocab_size=6000)


@pytest.mark.parametrize("script", [*FILES, "sinhala"])
def test_round_trip_and_no_cut_straddles_a_syllable(tok, data, script):
    """Every held-out line round-trips, and every broken boundary the metrics count is a cut
    between two parts of one syllable (the hierarchical mode spells a syllable it has not
    learned whole from its parts): no token reaches across a syllable edge."""
    _, held_out = data[script]
    m = evaluate(tok, held_out, script=script)
    assert m["roundtrip_fail"] == 0 and m["unk"] == 0
    assert m["straddling"] == 0
    broken = 0
    for line in held_out:
        assert tok.decode(tok.encode(line)) == line
        _, spans = tok.encode_with_spans(line)
        result = broken_boundaries(line, spans, script=script)
        assert result.straddling == 0, line
        broken += result.broken
        units = sgpe.syllabify(line, script)
        ends = list(itertools.accumulate(len(u.encode("utf-8")) for u in units))
        for cut in result.positions:
            unit = units[bisect.bisect_right(ends, cut)]
            # A syllable cut by the tokens is never one token of this line.
            pieces = tok.tokenize(unit)
            assert len(pieces) > 1 or unit not in tok.vocab, (unit, line)
    assert broken == m["broken"]


def test_merge_trace_builds_words_from_whole_syllables(tok, data):
    for script in FILES:
        train, _ = data[script]
        word = Counter(w for line in train for w in line.split()).most_common(1)[0][0]
        (trace,) = [t for t in tok.merge_trace(word) if t.word.strip()]
        syllable_cuts = set(
            itertools.accumulate(len(u) for u in sgpe.syllabify(trace.word, leading_space=True))
        )
        cuts = set(itertools.accumulate(len(t) for t in trace.initial))
        assert syllable_cuts <= cuts  # initial tokens: syllables, or code points of one
        assert "".join(trace.final) == trace.word
        for step in trace.steps:  # a merge only removes a cut
            step_cuts = set(itertools.accumulate(len(t) for t in step.tokens))
            assert step_cuts <= cuts
            cuts = step_cuts
        assert len(trace.steps) >= 1


@pytest.mark.parametrize("script", FILES)
def test_hugging_face_export_gives_the_same_ids(tok, data, script):
    pytest.importorskip("tokenizers")
    from sgpe.interop.hf import check_parity

    report = check_parity(tok, data[script][1])
    assert report.lines == HELD_OUT and report.ok, report.mismatches[:3]


def test_meta_vocabulary_routes_every_trained_script_to_sgpe(tok, data):
    pytest.importorskip("tiktoken")
    from sgpe.interop.meta import MetaTokenizer
    from sgpe.schema import BUILTIN_SCRIPTS, load_schema

    seen = set("".join(line for train, _ in data.values() for line in train))
    trained = {
        n for n in BUILTIN_SCRIPTS if load_schema(n).code_points & seen - {"\u200c", "\u200d"}
    }
    assert {"sinhala", "bengali", "tamil", "malayalam", "myanmar", "khmer"} <= trained
    assert "kannada" not in trained
    meta = MetaTokenizer(tok)
    assert set(meta.scripts) == trained
    text = "அம்மா and বাংলা, ශ්‍රී ലങ്ക ಕನ್ನಡ"
    assert meta.decode(meta.encode(text)) == text
    segments = [(seg.text, seg.kind) for seg, _ in meta.encode_segments(text)]
    assert ("அம்மா", "sgpe") in segments and ("ലങ്ക", "sgpe") in segments
    assert segments[-1][0].endswith(" ಕನ್ನಡ") and segments[-1][1] == "tiktoken"  # no Kannada

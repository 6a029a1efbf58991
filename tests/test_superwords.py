"""Superwords (``superwords_from``, docs/algorithms.md): merges of whole syllables across a
space inside spans of one script's words, after a transition. Exact behaviour on real text:
off or late means byte-identical to training without them; the merges before the
transition are those without them; the encoder reproduces the trainer's segmentation of its
corpus token for token; no torn syllable, no lossy line; the trace's final tokens are the
encoding; exact resume across the transition; serial = parallel counting."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import sgpe
from sgpe.bpe import ResumeMismatch
from sgpe.corpus.counting import count_jobs
from sgpe.corpus.readers import CorpusStream
from sgpe.gpe import GPETrainer, TrainSettings
from sgpe.hierarchical import HierarchicalEngine, NativeHierarchicalEngine
from sgpe.metrics import evaluate
from sgpe.pieces import MAX_SUPERWORD_WORDS, get_word_splitter, is_span, span_regex


def _lines(path: Path, n: int, skip: int = 0) -> list[str]:
    with open(path, encoding="utf-8") as f:
        out = [line.rstrip("\n") for _, line in zip(range(skip + n), f)]
    return out[skip:]


@pytest.fixture(scope="module")
def si_docs(shared_corpora: Path) -> list[str]:
    return _lines(shared_corpora / "xgenre" / "si_train_news.txt", 1500)


@pytest.fixture(scope="module")
def hi_docs(shared_corpora: Path) -> list[str]:
    return _lines(shared_corpora / "xgenre" / "hi_train_stories.txt", 4000)


@pytest.fixture(scope="module")
def si_sw(si_docs: list[str]) -> sgpe.Tokenizer:
    """3,000 tokens, superwords from 2,500, on the news lines (shared: training is the
    slow part of these tests)."""
    return sgpe.train(si_docs, vocab_size=3000, superwords_from=2500)


def _file(tok: sgpe.Tokenizer) -> dict[str, Any]:
    return {k: v for k, v in tok.to_dict().items() if k != "superwords_from"}


def test_spans_are_runs_of_whole_words_of_one_script() -> None:
    split = get_word_splitter("auto", True, "whitespace", 128, True).pieces
    text = " ශ්‍රී ලංකා රජය, ඒ අනුව 2024 වසරේ  දී ඇති බව\nනව ලංකා abc ලංකා नमस्ते दुनिया"
    assert split(text) == [
        " ශ්‍රී ලංකා", " රජය,", " ඒ අනුව", " 2024", " වසරේ", " ", " දී ඇති බව", "\n",
        "නව ලංකා", " abc", " ලංකා", " नमस्ते दुनिया",
    ]  # fmt: skip
    # Outside spans the pieces are exactly those without superwords.
    plain = get_word_splitter("auto", True, "whitespace", 128).pieces
    assert [p for s in split(text) for p in plain(s)] == plain(text)
    assert is_span(" ඒ අනුව") and not is_span(" අනුව") and not is_span(" ")
    # A word of more than max_units characters ends a span (it may be cut).
    assert "{1,4}" in span_regex("sinhala", 4)


def test_off_or_late_superwords_change_nothing(si_docs: list[str], si_sw: sgpe.Tokenizer) -> None:
    """None is today's training; a transition at or above the size would never happen,
    so it is refused (it trained the vocabulary of None without a word); and a transition
    at t learns, before it, exactly the merges of a vocabulary of size t."""
    base = sgpe.train(si_docs, vocab_size=3000)
    assert "superwords_from" not in base.to_dict()
    with pytest.raises(ValueError, match=r"superwords_from must be below vocab_size \(3,000\)"):
        sgpe.train(si_docs, vocab_size=3000, superwords_from=3000)
    small = sgpe.train(si_docs, vocab_size=2500)
    sw = si_sw
    n = len(small.merges)
    assert sw.merges[:n] == small.merges
    crossing = [m for m in sw.merges if m[1].startswith(" ")]
    assert crossing and sw.merges.index(crossing[0]) == n  # the best pair is across a space
    assert not [m for m in small.merges if m[1].startswith(" ")]
    assert sw.vocab_size == 3000


def test_superword_tokens_are_whole_syllables_of_at_most_four_words(
    si_docs: list[str],
) -> None:
    from sgpe.syllables import get_syllabifier

    tok = sgpe.train(si_docs, vocab_size=3000, superwords_from=2000)
    syll = get_syllabifier("auto", True)
    supers = [t for t in tok.vocab if is_span(t)]
    assert len(supers) > 150
    assert max(len(t.split()) for t in supers) == MAX_SUPERWORD_WORDS
    # The first superword learned from these news lines: "that it is" (ඇති බව).
    first = next(a + b for a, b in tok.merges if b.startswith(" "))
    assert first == " ඇති බව"
    for t in supers:
        # whole syllables: the token's units are its words' own units, every one a
        # syllable (none cut at a space, none an orphan mark)
        spans = syll.spans(t)
        assert all(s.kind == "syllable" for s in spans), t
        words = [" " + w for w in t.split(" ") if w]
        if not t.startswith(" "):
            words[0] = words[0][1:]
        assert [t[s.start : s.end] for s in spans] == [u for w in words for u in syll(w)]


def _usage_and_tok(
    docs: list[str], monkeypatch: pytest.MonkeyPatch, **settings: Any
) -> tuple[Counter[str], sgpe.Tokenizer]:
    """The trainer's own segmentation of its corpus (the engine's final words, by token)
    and the trained tokenizer."""
    seen: list[Counter[str]] = []
    # Whichever engine trains (the native merge loop under the native engine).
    for engine in (HierarchicalEngine, NativeHierarchicalEngine):

        def observed(self: Any, usage: Any = engine.usage) -> list[int]:
            freq: list[int] = usage(self)
            seen.append(Counter({self.st.symbols[i]: f for i, f in enumerate(freq) if f}))
            return freq

        monkeypatch.setattr(engine, "usage", observed)
    tok = sgpe.train(docs, **settings)
    return seen[0], tok


@pytest.mark.parametrize("lang", ["si", "hi"])
def test_encoding_the_corpus_gives_the_trainers_segmentation(
    lang: str, si_docs: list[str], hi_docs: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every token's count in the encoded training corpus equals its count in the merge
    loop's final words: the encoder (spans, one rank order across spaces) reproduces
    training exactly. Byte tokens spell characters the base alphabet left out; the trainer
    keeps those as barriers, so they are not compared."""
    docs = si_docs if lang == "si" else hi_docs
    trained, tok = _usage_and_tok(docs, monkeypatch, vocab_size=4000, superwords_from=3000)
    encoded: Counter[str] = Counter()
    for ids in tok.encode_batch(docs):
        encoded.update(tok.id_to_token(i) for i in ids)
    encoded = Counter({t: c for t, c in encoded.items() if not tok.is_fallback_token(tok.vocab[t])})
    # The trainer counts each document with its line break; encode() takes one alone.
    assert trained.pop("\n") == len(docs)
    assert sum(c for t, c in trained.items() if is_span(t)) > 1000
    assert encoded == trained


def test_no_torn_syllable_no_lossy_line_and_fewer_tokens_in_domain(
    si_docs: list[str], shared_corpora: Path
) -> None:
    held_out = _lines(shared_corpora / "xgenre" / "si_train_news.txt", 400, skip=1500)
    base = sgpe.train(si_docs, vocab_size=4000)
    sw = sgpe.train(si_docs, vocab_size=4000, superwords_from=3000)
    m_base, m_sw = evaluate(base, held_out), evaluate(sw, held_out)
    assert m_sw["straddling"] == 0 and m_sw["roundtrip_fail"] == 0
    assert m_sw["tokens"] < m_base["tokens"]
    # The metrics see a superword token as whole syllables: no broken cut at all.
    phrase = "ශ්‍රී ලංකා"
    assert sw.tokenize(phrase) == [" ශ්\u200dරී ලංකා"]
    m = evaluate(sw, [phrase])
    assert (m["tokens"], m["broken"], m["straddling"], m["roundtrip_fail"]) == (1, 0, 0, 0)


def test_trace_has_a_superword_phase_and_ends_in_the_encoding(
    si_docs: list[str], si_sw: sgpe.Tokenizer
) -> None:
    tok = si_sw
    for line in [*si_docs[:200], "ශ්‍රී ලංකා, ඇති බව 2024 abc ඒ අනුව"]:
        trace = tok.merge_trace(line)
        assert [t for w in trace for t in w.final] == tok.tokenize(line)
    trace = tok.merge_trace("ශ්‍රී ලංකා රජය")
    assert [w.word for w in trace] == [" ශ්\u200dරී ලංකා රජය"]
    kinds = [s.kind for s in trace[0].steps]
    assert "super" in kinds and kinds.index("part") < kinds.index("super")
    # The superword steps join a token to one that starts a word (its leading space).
    assert all(s.pair[1].startswith(" ") for s in trace[0].steps if s.kind == "super")


def test_vocab_file_keeps_the_setting(
    si_docs: list[str], si_sw: sgpe.Tokenizer, tmp_path: Path
) -> None:
    tok = si_sw
    tok.save(tmp_path / "v.json")
    again = sgpe.load(tmp_path / "v.json")
    assert again.superwords_from == 2500
    for line in si_docs[:50]:
        assert again.encode(line) == tok.encode(line)


def test_resume_across_the_transition_is_exact(si_docs: list[str]) -> None:
    settings = TrainSettings(vocab_size=2600, superwords_from=2200)
    saved: list[list[tuple[str, str]]] = []
    counts = GPETrainer(settings).count(si_docs)
    full = GPETrainer(settings).fit(
        counts, checkpoint_every=700, on_checkpoint=lambda s, m: saved.append(list(m))
    )
    assert len(saved) == 3  # before, across and after the transition (at about 1,900 merges)
    for ckpt in saved:
        resumed = GPETrainer(settings).fit(counts, resume_merges=ckpt)
        assert resumed.to_dict() == full.to_dict()
    # A checkpoint with superword merges does not fit a run without superwords.
    plain = TrainSettings(vocab_size=2600)
    with pytest.raises(ResumeMismatch, match="has count 0"):
        GPETrainer(plain).fit(GPETrainer(plain).count(si_docs), resume_merges=saved[-1])


def test_parallel_counting_equals_serial(shared_corpora: Path) -> None:
    settings = TrainSettings(vocab_size=3000, superwords_from=2000)
    splitter = get_word_splitter("auto", True, "whitespace", 128, True)
    path = shared_corpora / "si_dev.txt"
    results = []
    for workers in (1, 2):
        stream = CorpusStream(path, prefix=" ", block=100_000)
        counts, _, _ = count_jobs(stream.jobs(), splitter.pattern, " ", workers, serial_bytes=0)
        results.append(list(counts.items()))
    assert results[0] == results[1]
    assert sum(1 for k, _ in results[0] if is_span(k)) > 5_000
    serial = GPETrainer(settings).count(path)
    assert list(serial.items()) == results[0]


def test_text_without_spaces_trains_as_without_superwords(shared_corpora: Path) -> None:
    docs = ["".join(line.split()) for line in _lines(shared_corpora / "si_dev.txt", 300)]
    a = sgpe.train(docs, vocab_size=2000)
    b = sgpe.train(docs, vocab_size=2000, superwords_from=1000)
    assert _file(a) == _file(b)


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="superwords_from must be a vocabulary size"):
        TrainSettings(superwords_from=3)
    with pytest.raises(ValueError, match="needs mode 'hierarchical'"):
        TrainSettings(mode="paper", superwords_from=4000)
    with pytest.raises(ValueError, match="needs mode 'hierarchical'"):
        TrainSettings(pieces="script", superwords_from=4000)


def test_hf_export_has_exact_id_parity(
    si_docs: list[str], hi_docs: list[str], shared_corpora: Path
) -> None:
    """The file's first Split has the span alternatives before the pieces; a run of known
    units goes on across the spaces of a span; the BPE model ranks superword merges with
    the other joins. Same ids on real text of both scripts and on random text."""
    import random

    pytest.importorskip("tokenizers")
    from sgpe.interop.hf import check_parity, load_hf
    from sgpe.schema import schemas_for

    tok = sgpe.train(si_docs[:1000] + hi_docs[:1500], vocab_size=4000, superwords_from=3000)
    assert sum(1 for t in tok.vocab if is_span(t)) > 200
    hf = load_hf(tok)
    for name in ("si_dev.txt", "hi_dev.txt", "mixed_dev.txt"):
        lines = (shared_corpora / name).read_text(encoding="utf-8").split("\n")[:1500]
        report = check_parity(tok, lines, hf)
        assert report.ok, report.mismatches[:2]
    rng = random.Random(11)
    alphabet = sorted(set().union(*(s.code_points for s in schemas_for("auto"))))
    extra = [" ", " ", "a", "1", ",", "\u200d", "\u200c", "\n", "\t", "😀", "ා", "ං", "्"]
    texts = [
        "".join(rng.choice(alphabet + extra * 8) for _ in range(rng.randint(1, 14)))
        for _ in range(10_000)
    ]
    words = [w for d in si_docs[:300] + hi_docs[:300] for w in d.split()]
    texts += [" ".join(rng.choice(words) for _ in range(rng.randint(2, 8))) for _ in range(3000)]
    report = check_parity(tok, texts, hf)
    assert report.lines == 13_000 and report.ok, report.mismatches[:2]
    assert len(tok.encode("ශ්‍රී ලංකා")) == 1 == len(hf.encode("ශ්‍රී ලංකා").ids)


def test_count_then_train_from_counts_with_spans(shared_corpora: Path, tmp_path: Path) -> None:
    """``count --superwords-from`` keeps the spans; ``train --word-counts`` on it equals
    training on the corpus, and a table and a setting that disagree are a usage error."""
    pytest.importorskip("pyarrow")
    import contextlib
    import io

    from sgpe.cli import main

    si_dev = shared_corpora / "si_dev.txt"

    def run(*argv: str) -> tuple[int, str]:
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            return main(list(argv)), err.getvalue()

    table = str(tmp_path / "c.parquet")
    assert (
        run("count", "--corpus", str(si_dev), "--out", table, "--superwords-from", "1200")[0] == 0
    )
    code, _ = run(
        "train", "--word-counts", table, "--vocab-size", "1500", "--superwords-from", "1200",
        "--out", str(tmp_path / "run"),
    )  # fmt: skip
    assert code == 0
    direct = sgpe.train(si_dev, vocab_size=1500, superwords_from=1200)
    assert sgpe.load(tmp_path / "run" / "vocab.json").to_dict() == direct.to_dict()
    code, err = run(
        "train", "--word-counts", table, "--vocab-size", "1500", "--out", str(tmp_path / "x")
    )
    assert code != 0 and "train it with --superwords-from" in err


def test_dask_counts_equal_local_counts(shared_corpora: Path, tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    from sgpe.corpus.counting import count_pieces
    from sgpe.settings import CountOptions

    lines = (shared_corpora / "si_dev.txt").read_text(encoding="utf-8").split("\n")[:2000]
    shards = tmp_path / "shards"
    shards.mkdir()
    for k in range(2):
        part = lines[k * 1000 : (k + 1) * 1000]
        (shards / f"part-{k}.txt").write_text("\n".join(part) + "\n", encoding="utf-8")
    settings = TrainSettings(vocab_size=2000, superwords_from=1500)
    local, _ = count_pieces(shards, settings, CountOptions(workers=1))
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        counts, _ = count_pieces(
            shards, settings, CountOptions(backend="dask", scheduler=cluster.scheduler_address)
        )
    assert list(counts.items()) == list(local.items())
    assert sum(1 for k in counts if is_span(k)) > 1000


def test_the_app_marks_superword_tokens(si_docs: list[str], si_sw: sgpe.Tokenizer) -> None:
    """Vocabulary: kind "superword"; Merges: kind "super"; Compare and the merge stepper:
    the token's class ``super`` (an overline in sgpe_explorer/ui/style.py)."""
    pytest.importorskip("streamlit")
    from sgpe_explorer.ui import render
    from sgpe_explorer.ui.analysis import merges_table
    from sgpe_explorer.ui.vocabulary import vocab_table

    tok = si_sw
    kinds = {r["token"]: r["kind"] for r in vocab_table(tok)}
    assert kinds[" ශ්\u200dරී ලංකා"] == "superword" and kinds[" ලංකා"] == "multi-syllable"
    assert sum(k == "superword" for k in kinds.values()) == sum(map(is_span, tok.vocab))
    rows = merges_table(tok, tok.merge_counts)
    supers = [r for r in rows if r["kind"] == "super"]
    assert supers and all(r["right"].startswith(" ") for r in supers)
    assert all(not r["right"].startswith(" ") for r in rows if r["kind"] == "join")
    ids = tok.encode("ශ්‍රී ලංකා රජය")
    views = [render.TokenView(i, tok.token_bytes([i])[0]) for i in ids]
    html = render.tokens_html(views)
    assert html.count('class="tok c0 super"') == 1
    step = render.step_tokens_html([" ශ්\u200dරී ලංකා", " රජය"], 0, "super")
    assert 'class="tok new super"' in step


def test_meta_vocabulary_keeps_a_superword_span_in_sgpe(
    si_docs: list[str], si_sw: sgpe.Tokenizer
) -> None:
    from sgpe.interop.meta import MetaTokenizer

    tok = si_sw
    meta = MetaTokenizer(tok)
    text = "ශ්‍රී ලංකා රජය is an island ඒ අනුව, 2024"
    segments = meta.segment(text)
    assert [s.source for s in segments if s.kind == "sgpe"] == ["ශ්‍රී ලංකා රජය", " ඒ අනුව"]
    assert meta.tokenize(text)[0] == tok.tokenize("ශ්‍රී ලංකා රජය")[0] == " ශ්\u200dරී ලංකා"
    assert meta.decode(meta.encode(text)) == text
    # Without superwords the router keeps each word apart, as before.
    plain = MetaTokenizer(sgpe.train(si_docs, vocab_size=2500))
    assert [s.source for s in plain.segment(text) if s.kind == "sgpe"][:2] == ["ශ්‍රී", " ලංකා"]


@pytest.mark.parametrize(
    "lang",
    [
        "km",
        "my",
        pytest.param("ta", marks=pytest.mark.slow),
        pytest.param("ml", marks=pytest.mark.slow),
    ],
)
def test_other_scripts_train_lossless_with_exact_export(shared_corpora: Path, lang: str) -> None:
    """Superwords on the first 80% of up to 2,500 lines of a multi/ language: no torn
    syllable and no lossy line on the rest, and the HF export agrees."""
    pytest.importorskip("tokenizers")
    from sgpe.interop.hf import check_parity, load_hf

    lines = _lines(shared_corpora / "multi" / f"{lang}.txt", 2500)
    cut = len(lines) * 4 // 5
    train, held_out = lines[:cut], lines[cut:]
    tok = sgpe.train(train, vocab_size=2500, superwords_from=2000)
    assert any(is_span(t) for t in tok.vocab)
    m = evaluate(tok, held_out)
    assert m["straddling"] == 0 and m["roundtrip_fail"] == 0 and m["tokens"] > 1000
    report = check_parity(tok, held_out, load_hf(tok))
    assert report.ok, report.mismatches[:1]

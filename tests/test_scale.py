"""Large corpora: streaming intake, parallel and Dask counting, the piece cap, limits.

Evidence: the piece counts of a real corpus (``si_dev.txt``, read in place) are the same
``Counter``, key order included, whether the file is read whole, in blocks of a few
hundred bytes, in any of the five formats, as a directory of shards, as a generator, on a
pool of processes or on a Dask ``LocalCluster`` of two workers; the vocabularies trained
from them are byte-identical. Long pieces are cut the same way by the trainer, the
encoder, the merge trace and the exported ``tokenizer.json``. Limits stop with one clear
error.
"""

from __future__ import annotations

import gzip
import json
import os
from collections import Counter
from pathlib import Path

import pytest

import sgpe
from sgpe.corpus import CorpusError, CorpusStream, corpus_files, iter_documents, read_corpus
from sgpe.corpus.counting import count_files_dask, count_jobs, count_pieces
from sgpe.gpe import GPETrainer
from sgpe.pieces import get_word_splitter
from sgpe.settings import MAX_PIECE_UNITS, CountOptions, TrainSettings

SETTINGS = TrainSettings(vocab_size=2000)


def whole_file_counts(text: str, settings: TrainSettings = SETTINGS) -> Counter[str]:
    """The definition: every line prefixed, the whole text split at once."""
    splitter = get_word_splitter(
        settings.script, settings.leading_space, settings.pieces, settings.max_piece_units
    )
    lines = text.split("\n")
    prefixed = "\n".join(" " + x if x and settings.prepend_space else x for x in lines)
    return Counter(splitter.pieces(prefixed))


def stream_counts(source, *, block: int, workers: int = 1, **kw) -> tuple[Counter[str], object]:
    splitter = get_word_splitter("auto", True, "whitespace")
    stream = CorpusStream(source, prefix=" ", block=block, **kw)
    counts, chars, text = count_jobs(stream.jobs(), splitter.pattern, " ", workers, serial_bytes=0)
    return splitter.cap_counts(counts), stream.finish(chars, text)


@pytest.fixture(scope="module")
def si_dev(shared_corpora: Path) -> Path:
    return shared_corpora / "si_dev.txt"


@pytest.fixture(scope="module")
def expected(si_dev: Path) -> Counter[str]:
    return whole_file_counts(si_dev.read_text(encoding="utf-8"))


def items(c: Counter[str]) -> list[tuple[str, int]]:
    return list(c.items())  # order included: the files written from counts depend on it


# ============================================================================ streaming


@pytest.mark.parametrize("block", [97, 4096, 1 << 22])
def test_streaming_counts_equal_whole_file_counts(si_dev, expected, block):
    counts, info = stream_counts(si_dev, block=block)
    assert items(counts) == items(expected)
    text = si_dev.read_text(encoding="utf-8")
    assert info.documents == 2540 and info.characters == len(text)
    assert info.name == "si_dev.txt"
    assert info.sha256 == "98c330b408a2c32de8e660514689fd121d43000082e088867794ae7702a4979b"


def test_every_format_and_a_generator_give_the_same_counts(si_dev, expected, tmp_path):
    pa = pytest.importorskip("pyarrow")
    import csv

    import pyarrow.parquet as pq

    lines = si_dev.read_text(encoding="utf-8").split("\n")[:-1]
    with gzip.open(tmp_path / "c.txt.gz", "wt", encoding="utf-8", newline="") as f:
        f.write("\n".join(lines) + "\n")
    (tmp_path / "c.jsonl").write_text(
        "".join(json.dumps({"text": x}, ensure_ascii=False) + "\n" for x in lines),
        encoding="utf-8",
    )
    with open(tmp_path / "c.csv", "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "text"])
        w.writerows([k, x] for k, x in enumerate(lines))
    pq.write_table(pa.table({"text": lines}), tmp_path / "c.parquet", row_group_size=500)
    by_docs = None
    for name in ("c.txt.gz", "c.jsonl", "c.csv", "c.parquet"):
        counts, info = stream_counts(tmp_path / name, block=1000)
        assert items(counts) == items(expected), name
        assert info.documents == len(lines)
        if name != "c.txt.gz":  # the identity of documents, whatever file held them
            assert by_docs in (None, info.sha256)
            by_docs = info.sha256
    counts, info = stream_counts((x for x in lines), block=1000)
    assert items(counts) == items(expected)
    assert info.sha256 == by_docs


def test_directory_glob_and_shards_equal_one_file(si_dev, expected, tmp_path):
    lines = si_dev.read_text(encoding="utf-8").split("\n")[:-1]
    shards = tmp_path / "shards"
    (shards / "b").mkdir(parents=True)
    (shards / "a.txt").write_text("\n".join(lines[:1000]) + "\n", encoding="utf-8")
    (shards / "b" / "b.jsonl").write_text(
        "".join(json.dumps({"text": x}) + "\n" for x in lines[1000:2000]), encoding="utf-8"
    )
    (shards / "c.txt").write_text("\n".join(lines[2000:]) + "\n", encoding="utf-8")
    (shards / "notes.md").write_text("not a corpus", encoding="utf-8")
    files = corpus_files(shards)
    assert [p.name for p in files] == ["a.txt", "b.jsonl", "c.txt"]
    counts, info = stream_counts(shards, block=5000)
    assert items(counts) == items(expected)
    assert info.documents == len(lines) and info.name == str(shards)
    glob_counts, glob_info = stream_counts(str(shards / "**" / "*.*[tl]"), block=5000)
    assert items(glob_counts) == items(expected)
    assert glob_info.sha256 == info.sha256
    with pytest.raises(CorpusError, match="no file matches"):
        corpus_files(str(tmp_path / "nothing" / "*.txt"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(CorpusError, match="holds no corpus file"):
        corpus_files(tmp_path / "empty")


def test_long_lines_are_cut_before_spaces_only(tmp_path):
    """A line far longer than a block is counted in segments that end before a space; the
    prefix goes only before real line starts."""
    words = ["ශ්‍රී", "ලංකාව", "x", "ab,", "  ", "\t", "දී"]
    line = " ".join(words[k % len(words)] for k in range(5000))
    text = f"{line}\n\nකෙටි\n{line}"
    path = tmp_path / "long.txt"
    path.write_text(text, encoding="utf-8")
    counts, info = stream_counts(path, block=64)
    assert items(counts) == items(whole_file_counts(text))
    assert info.documents == 4 and info.characters == len(text)


def test_read_corpus_chunks_concatenate_to_the_prefixed_text(si_dev):
    chunks, info = read_corpus(si_dev, prefix=" ")
    text = si_dev.read_text(encoding="utf-8")
    assert "".join(chunks) == "\n".join(" " + x if x else x for x in text.split("\n"))
    assert info.documents == 2540


# ============================================================================ limits


def test_line_without_break_or_space_over_the_limit_is_a_clear_error(tmp_path):
    path = tmp_path / "oneword.txt"
    path.write_text("ok line\n" * 2 + "ක" * 50_000 + "\n", encoding="utf-8")
    with pytest.raises(CorpusError) as err:
        stream_counts(path, block=4096, max_line_bytes=100_000)
    message = str(err.value)
    assert message.startswith(f"{path}: line 3: more than 100,000 bytes without a line break")
    assert "--max-line-bytes" in message
    counts, _ = stream_counts(path, block=4096, max_line_bytes=200_000)  # under it: counted
    assert counts[" ok"] == 2


def test_jsonl_line_over_the_limit_and_decompressed_size_limit(tmp_path):
    path = tmp_path / "big.jsonl"
    path.write_text(json.dumps({"text": "a b " * 10_000}) + "\n", encoding="utf-8")
    with pytest.raises(
        CorpusError, match=r"big.jsonl: line 1: more than 1,000 bytes without a line break \("
    ):
        list(iter_documents(path, max_line_bytes=1000))
    gz = tmp_path / "bomb.txt.gz"
    with gzip.open(gz, "wb") as f:
        f.write(b"ab cd\n" * 1_000_000)  # 6 MB of text in a few KB
    assert gz.stat().st_size < 100_000
    with pytest.raises(
        CorpusError, match=r"more than 1,000,000 bytes after decompression \(max_corpus_bytes\)"
    ):
        stream_counts(gz, block=1 << 16, max_bytes=1_000_000)


def test_limits_are_validated():
    with pytest.raises(ValueError, match="max_line_bytes must be a positive"):
        CountOptions(max_line_bytes=0)
    with pytest.raises(ValueError, match="workers must be at least 1"):
        CountOptions(workers=0)
    with pytest.raises(ValueError, match="backend must be one of local, dask"):
        CountOptions(backend="spark")
    with pytest.raises(ValueError, match="max_piece_units must be an integer from 1 to 50000"):
        TrainSettings(max_piece_units=0)


def test_undecodable_bytes_name_line_and_byte_across_segments(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_bytes(("ශ්‍රී ලංකා " * 100).encode() + b"\nok\nab cd \xff\n")
    with pytest.raises(CorpusError, match=r"bad.txt: line 3, byte 7: not valid UTF-8"):
        stream_counts(path, block=10)


# ============================================================================ all cores


def test_parallel_counts_equal_serial_counts_and_vocabulary(si_dev, expected):
    serial, info = stream_counts(si_dev, block=50_000, workers=1)
    parallel, pinfo = stream_counts(si_dev, block=50_000, workers=2)
    assert items(parallel) == items(serial) == items(expected)
    assert pinfo == info
    a = GPETrainer(SETTINGS).fit(serial).to_dict()
    b = GPETrainer(SETTINGS).fit(parallel).to_dict()
    assert json.dumps(a, ensure_ascii=False) == json.dumps(b, ensure_ascii=False)


def test_workers_that_hand_their_counts_over_early_give_the_same_counts(si_dev, expected):
    """Workers flush every 300 distinct pieces (the default is a million): same counts, same
    order, as one process."""
    splitter = get_word_splitter("auto", True, "whitespace")
    stream = CorpusStream(si_dev, prefix=" ", block=20_000)
    counts, _, _ = count_jobs(
        stream.jobs(), splitter.pattern, " ", 2, serial_bytes=0, flush_pieces=300
    )
    assert items(splitter.cap_counts(counts)) == items(expected)


def test_count_pieces_uses_the_settings_workers(si_dev, expected):
    counts, info = count_pieces(si_dev, SETTINGS, CountOptions(workers=2))
    assert items(counts) == items(expected)
    assert info.documents == 2540


# ============================================================================ Dask


def test_dask_local_cluster_counts_equal_local_counts(si_dev, expected, tmp_path):
    distributed = pytest.importorskip("distributed")
    lines = si_dev.read_text(encoding="utf-8").split("\n")[:-1]
    shards = tmp_path / "shards"
    shards.mkdir()
    for k in range(4):
        part = lines[k * 700 : (k + 1) * 700]
        (shards / f"part-{k}.txt").write_text("\n".join(part) + "\n", encoding="utf-8")
    local, local_info = count_pieces(shards, SETTINGS, CountOptions())
    splitter = get_word_splitter("auto", True, "whitespace")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        assert len(cluster.workers) >= 2
        counts, info = count_files_dask(
            corpus_files(shards), splitter.pattern, " ", scheduler=cluster.scheduler_address,
            name=str(shards),
        )  # fmt: skip
    counts = splitter.cap_counts(counts)
    assert items(counts) == items(local) == items(expected)
    assert info == local_info
    a = GPETrainer(SETTINGS).fit(local).to_dict()
    b = GPETrainer(SETTINGS).fit(counts).to_dict()
    assert a == b


def test_dask_backend_needs_files():
    with pytest.raises(CorpusError, match="the dask backend counts files"):
        count_pieces(["ශ්‍රී ලංකා"], SETTINGS, CountOptions(backend="dask"))


# ============================================================================ the piece cap


def test_long_pieces_are_cut_into_chunks_of_whole_syllables():
    splitter = get_word_splitter("auto", True, "whitespace", 4)
    text = " ශ්‍රීලංකාවේප්‍රජාතාන්ත්‍රිකසමාජවාදී ab"
    pieces = splitter.pieces(text)
    units = sgpe.syllabify(" ශ්‍රීලංකාවේප්‍රජාතාන්ත්‍රිකසමාජවාදී", leading_space=True)
    assert pieces[:-1] == ["".join(units[i : i + 4]) for i in range(0, len(units), 4)]
    assert pieces[-1] == " ab" and "".join(pieces) == text
    assert get_word_splitter().max_units == MAX_PIECE_UNITS
    raw = Counter(splitter.raw_pieces(text * 3))
    assert splitter.cap_counts(raw) == Counter(splitter.pieces(text * 3))


@pytest.mark.parametrize(("mode", "policy"), [("hierarchical", "fallback"), ("paper", "unk")])
def test_capped_pieces_agree_in_encode_trace_and_export(si_dev, mode, policy):
    tokenizers = pytest.importorskip("tokenizers")
    from sgpe.interop.hf import load_hf, to_hf

    lines = si_dev.read_text(encoding="utf-8").split("\n")[:400]
    nospace = [x.replace(" ", "") for x in lines]
    tok = sgpe.train(
        nospace, vocab_size=1500, mode=mode, oov_policy=policy, max_piece_units=6, workers=1
    )
    assert tok.max_piece_units == 6
    again = sgpe.Tokenizer._from_dict(json.loads(json.dumps(tok.to_dict())))
    assert again.max_piece_units == 6 and again.to_dict() == tok.to_dict()
    hf = load_hf(to_hf(tok))
    assert isinstance(hf, tokenizers.Tokenizer)
    texts = [*nospace[:200], *lines[:50]]
    assert [e.ids for e in hf.encode_batch(texts)] == [tok.encode(t) for t in texts]
    for text in texts[:20]:
        traced = [
            t for w in tok.merge_trace(text) for t in (w.steps[-1].tokens if w.steps else w.initial)
        ]
        assert traced == tok.tokenize(text)
        assert all(
            len(sgpe.syllabify(w.word, leading_space=True)) <= 6 for w in tok.merge_trace(text)
        )


@pytest.mark.parametrize("cap", [2, 3, 7])
def test_the_export_cuts_pieces_at_the_cap_exactly_as_the_encoder(si_dev, cap):
    """The hierarchical export cuts pieces and caps them in one Split: pieces of exactly the
    cap's length and one more, with and without their space, after other whitespace, and
    runs of spaces, tabs and NO-BREAK SPACEs."""
    pytest.importorskip("tokenizers")
    from sgpe.interop.hf import load_hf, to_hf

    lines = si_dev.read_text(encoding="utf-8").split("\n")[:300]
    tok = sgpe.train(lines, vocab_size=900, max_piece_units=cap, workers=1)
    document = to_hf(tok)
    # Pieces and cap in one Split, then the runs.
    assert len(document["pre_tokenizer"]["pretokenizers"]) == 2
    hf = load_hf(document)
    words = [w for x in lines[:40] for w in x.split()]
    texts = [
        *lines[:60],
        *(" ".join(words[k : k + 3]).replace(" ", sep) for k in range(0, 90, 3)
          for sep in (" ", "  ", "\t", "\u00a0", " \u00a0", "\n ", ""))
    ]  # fmt: skip
    for n in (cap - 1, cap, cap + 1, 2 * cap + 1):
        texts += ["x" * n, " " + "x" * n, "a " + "ශ්‍රී" * n, "ab\t" + "ලං" * n + " ."]
    assert [e.ids for e in hf.encode_batch(texts)] == [tok.encode(t) for t in texts]


def test_cli_trains_text_without_spaces_as_the_library(si_dev, tmp_path):
    """A run keeps long pieces whole in word_counts.parquet (fit cuts them while it
    syllabifies them); its vocab.json is byte-identical to the library's, and so is the
    vocabulary trained again from that counts table."""
    from sgpe.cli import main
    from sgpe.corpus.counting import read_counts_table

    lines = si_dev.read_text(encoding="utf-8").split("\n")[:300]
    corpus = tmp_path / "nospace.txt"
    corpus.write_text("\n".join(x.replace(" ", "") for x in lines) + "\n", encoding="utf-8")
    settings = ["--vocab-size", "1500", "--max-piece-units", "8"]
    assert main(["train", "--corpus", str(corpus), "--out", str(tmp_path / "run"), *settings]) == 0
    library = GPETrainer(TrainSettings(vocab_size=1500, max_piece_units=8)).train(corpus)
    library.save(tmp_path / "library.json")
    trained = (tmp_path / "run" / "vocab.json").read_bytes()
    assert trained == (tmp_path / "library.json").read_bytes()
    counts, _ = read_counts_table(tmp_path / "run" / "word_counts.parquet")
    splitter = get_word_splitter("auto", True, "whitespace", 8)
    assert max(len(splitter.units(p)) for p in counts) > 8  # whole lines
    again = tmp_path / "again"
    table = str(tmp_path / "run" / "word_counts.parquet")
    assert main(["train", "--word-counts", table, "--out", str(again), *settings]) == 0
    assert sgpe.load(again / "vocab.json").merges == library.merges


def test_whitespace_free_corpus_trains_on_capped_pieces(si_dev):
    lines = si_dev.read_text(encoding="utf-8").split("\n")[:300]
    nospace = [x.replace(" ", "") for x in lines]
    settings = TrainSettings(vocab_size=1200, max_piece_units=16)
    counts = GPETrainer(settings, CountOptions(workers=1)).count(nospace)
    splitter = get_word_splitter("auto", True, "whitespace", 16)
    assert max(len(splitter.units(p)) for p in counts) == 16
    assert counts == Counter(
        p for x in nospace if x for p in splitter.pieces(" " + x) if p != "\n"
    ) + Counter({"\n": len(nospace)})


# ============================================================================ command line


def run_cli(*argv: str) -> tuple[int, str]:
    import io
    import sys

    from sgpe.cli import main

    err, old = io.StringIO(), sys.stderr
    sys.stderr = err
    try:
        code = main(list(argv))
    finally:
        sys.stderr = old
    return code, err.getvalue()


def test_count_then_train_from_counts_equals_training_on_the_corpus(si_dev, tmp_path):
    code, _ = run_cli("count", "--corpus", str(si_dev), "--out", str(tmp_path / "c.parquet"))
    assert code == 0
    code, _ = run_cli(
        "train", "--word-counts", str(tmp_path / "c.parquet"), "--vocab-size", "1500",
        "--out", str(tmp_path / "run"),
    )  # fmt: skip
    assert code == 0
    direct = sgpe.train(si_dev, vocab_size=1500, min_freq=1)
    assert sgpe.load(tmp_path / "run" / "vocab.json").to_dict() == direct.to_dict()


def test_count_without_leading_space_counts_as_training_does(si_dev, tmp_path):
    """``--no-leading-space`` alone: the dummy prefix follows it off, as for ``train``."""
    from sgpe.corpus.counting import read_counts_table

    out = tmp_path / "c.parquet"
    code, err = run_cli("count", "--corpus", str(si_dev), "--out", str(out), "--no-leading-space")
    assert code == 0, err
    counts, _ = read_counts_table(out)
    settings = TrainSettings(vocab_size=1500, leading_space=False)
    assert counts == GPETrainer(settings, CountOptions(workers=1)).count(si_dev)


def test_counts_from_another_engine_are_accepted_and_checked(si_dev, tmp_path):
    """A counts table written by something else (here pyarrow directly, as Spark or DuckDB
    would): the same schema, pieces in any order and split over two files."""
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    from sgpe.corpus.counting import read_counts_table

    counts = whole_file_counts(si_dev.read_text(encoding="utf-8"))
    pieces = sorted(counts)
    (tmp_path / "parts").mkdir()
    for k, part in enumerate((pieces[: len(pieces) // 2], pieces[len(pieces) // 2 :])):
        table = pa.table({"piece": part, "count": [counts[p] for p in part]})
        pq.write_table(table, tmp_path / "parts" / f"part-{k}.parquet")
    got, info = read_counts_table(tmp_path / "parts")
    assert got == counts and info.name == "parts"
    a = GPETrainer(SETTINGS).fit(got).to_dict()
    b = GPETrainer(SETTINGS).fit(counts).to_dict()
    assert a["merges"] == b["merges"] and a["vocab"] == b["vocab"]
    pq.write_table(pa.table({"word": ["a"], "n": [1]}), tmp_path / "bad.parquet")
    with pytest.raises(CorpusError, match="needs columns 'piece' \\(string\\) and 'count'"):
        read_counts_table(tmp_path / "bad.parquet")
    pq.write_table(pa.table({"piece": ["a"], "count": [0]}), tmp_path / "zero.parquet")
    with pytest.raises(CorpusError, match="a count below 1"):
        read_counts_table(tmp_path / "zero.parquet")


@pytest.mark.parametrize("suffix", [".npy", ".parquet"])
def test_batch_encode_writes_every_document_in_order(si_dev, tmp_path, suffix):
    np = pytest.importorskip("numpy")
    pytest.importorskip("pyarrow")
    from sgpe.corpus.encoding import encode_corpus
    from sgpe.shipped import DEFAULT_SGPE

    tok = sgpe.load(DEFAULT_SGPE)
    lines = si_dev.read_text(encoding="utf-8").split("\n")[:-1][:3000]
    corpus = tmp_path / "c.txt"
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    expected = [tok.encode(x) for x in lines]
    outs = []
    for workers in (1, 2):
        out = tmp_path / f"ids{workers}{suffix}"
        # serial_bytes=0: the pool, even for this small file
        docs, tokens = encode_corpus(DEFAULT_SGPE, corpus, out, workers=workers, serial_bytes=0)
        assert docs == len(lines) and tokens == sum(map(len, expected))
        outs.append(out.read_bytes())
        if suffix == ".npy":
            ids = np.load(out)
            offsets = np.load(out.with_name(out.stem + ".offsets.npy"))
            got = [ids[offsets[k] : offsets[k + 1]].tolist() for k in range(len(lines))]
        else:
            import pyarrow.parquet as pq

            got = pq.read_table(out).column("ids").to_pylist()
        assert got == expected
    assert outs[0] == outs[1]
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_batch_encode_gives_the_writer_the_ids_of_the_lists(si_dev):
    """The writers' batches (sgpe/corpus/encoding.py, encode_batch): an SGPE vocabulary's
    flat ids turned into each output type give the bytes of ``array(type, ids)`` of its
    lists, and the same offsets; a tokenizer without the flat form (byte-level BPE:
    ``encode`` only) gives its lists' ids the same way."""
    from array import array
    from itertools import accumulate, chain

    from sgpe.corpus.encoding import encode_batch
    from sgpe.shipped import DEFAULT_SGPE

    lines = si_dev.read_text(encoding="utf-8").split("\n")[:1000]
    vocab_dir = Path(DEFAULT_SGPE).parent
    for tok in (sgpe.load(DEFAULT_SGPE), sgpe.load(vocab_dir / "bytebpe_4k.json")):
        lists = [tok.encode(x) for x in lines]
        offsets = array("q", accumulate(map(len, lists), initial=0))
        for typecode in ("i", "I", "H"):
            data, got = encode_batch(tok, lines, typecode)
            assert data == array(typecode, chain.from_iterable(lists)).tobytes()
            assert got == offsets and got.typecode == "q"
        assert max(chain.from_iterable(lists)) > 255  # ids that need both bytes of a uint16


def test_batch_encode_of_documents_in_memory(si_dev, tmp_path):
    """Any iterable of strings (a list, a generator, a datasets column) encodes to the same
    files as the text file of the same lines, in one process or on a pool."""
    pq = pytest.importorskip("pyarrow.parquet")
    from sgpe.corpus.encoding import encode_corpus
    from sgpe.shipped import DEFAULT_SGPE

    tok = sgpe.load(DEFAULT_SGPE)
    lines = si_dev.read_text(encoding="utf-8").split("\n")[:-1][:3000]
    corpus = tmp_path / "c.txt"
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    from_file = tmp_path / "file.npy"
    assert encode_corpus(DEFAULT_SGPE, corpus, from_file, workers=1)[0] == len(lines)
    offsets = from_file.with_name("file.offsets.npy").read_bytes()
    seen = []
    for workers, serial_bytes in ((1, None), (2, None), (2, 0)):
        out = tmp_path / f"docs{workers}{serial_bytes}.npy"
        progress: list[tuple[int, int]] = []
        docs, tokens = encode_corpus(
            DEFAULT_SGPE, (x for x in lines), out, workers=workers,
            serial_bytes=serial_bytes, progress=lambda d, t, seen=progress: seen.append((d, t)),
        )  # fmt: skip
        assert (docs, tokens) == (len(lines), sum(len(tok.encode(x)) for x in lines))
        assert out.read_bytes() == from_file.read_bytes()
        assert out.with_name(out.stem + ".offsets.npy").read_bytes() == offsets
        size = sum(len(x.encode("utf-8")) + 1 for x in lines)
        assert progress[-1] == (size, 0) and len(progress) > 1  # total: not known ahead
        seen.append(out.read_bytes())
    rows = tmp_path / "docs.parquet"
    encode_corpus(DEFAULT_SGPE, lines, rows, workers=2, serial_bytes=0)
    assert pq.read_table(rows).column("ids").to_pylist() == [tok.encode(x) for x in lines]
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_batch_encode_of_documents_says_which_one_is_not_text(tmp_path):
    from sgpe.corpus.encoding import encode_corpus
    from sgpe.shipped import DEFAULT_SGPE

    docs = ["ශ්‍රී ලංකා"] * 5000 + [None, "x"]
    for workers in (1, 2):
        with pytest.raises(TypeError, match="corpus document 5,001 must be str, got NoneType"):
            encode_corpus(DEFAULT_SGPE, docs, tmp_path / "o.npy", workers=workers, serial_bytes=0)
        assert list(tmp_path.iterdir()) == []  # no output, no temporary file
    with pytest.raises(CorpusError, match="the dask backend encodes files that every worker"):
        encode_corpus(DEFAULT_SGPE, ["x"], tmp_path / "o.npy", backend="dask")
    assert list(tmp_path.iterdir()) == []


def _shards(si_dev: Path, root: Path) -> Path:
    """A corpus folder of four files: text, gzip, jsonl and an empty one."""
    lines = si_dev.read_text(encoding="utf-8").split("\n")[:-1]
    shards = root / "shards"
    shards.mkdir()
    (shards / "part-0.txt").write_text("\n".join(lines[:700]) + "\n", encoding="utf-8")
    with gzip.open(shards / "part-1.txt.gz", "wt", encoding="utf-8") as f:
        f.write("\n".join(lines[700:1400]) + "\n")
    rows = [json.dumps({"text": x}, ensure_ascii=False) for x in lines[1400:2100]]
    (shards / "part-2.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    (shards / "empty.txt").write_text("", encoding="utf-8")
    return shards


def _each_on_its_own(shards: Path, root: Path, suffix: str) -> dict[str, bytes]:
    """Every shard's output when it is encoded alone."""
    from sgpe.corpus.encoding import encode_corpus
    from sgpe.shipped import DEFAULT_SGPE

    alone = root / "alone"
    out = {}
    for path in corpus_files(shards):
        target = alone / (path.name.split(".")[0] + suffix)
        encode_corpus(DEFAULT_SGPE, path, target, workers=1)
        out[target.name] = target.read_bytes()
        if suffix == ".npy":
            offsets = target.with_name(target.stem + ".offsets.npy")
            out[offsets.name] = offsets.read_bytes()
    return out


def _written(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.name != "manifest.json"}


def test_batch_encode_writes_one_output_per_corpus_file(si_dev, tmp_path):
    """A name with {stem} or {index} gives each corpus file its own output, the same as
    encoding that file alone, and manifest.json lists them in corpus order."""
    from sgpe.corpus.encoding import encode_corpus
    from sgpe.shipped import DEFAULT_SGPE

    shards = _shards(si_dev, tmp_path)
    alone = _each_on_its_own(shards, tmp_path, ".npy")
    tok = sgpe.load(DEFAULT_SGPE)
    for workers in (1, 2):
        folder = tmp_path / f"ids{workers}"
        docs, tokens = encode_corpus(
            DEFAULT_SGPE, shards, folder / "{stem}.npy", workers=workers, serial_bytes=0
        )
        assert _written(folder) == alone
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        names = [row["output"] for row in manifest["outputs"]]
        assert names == ["empty.npy", "part-0.npy", "part-1.npy", "part-2.npy"]
        assert [row["corpus"] for row in manifest["outputs"]] == [
            str(p) for p in corpus_files(shards)
        ]
        assert [row["documents"] for row in manifest["outputs"]] == [0, 700, 700, 700]
        assert (manifest["documents"], manifest["tokens"]) == (docs, tokens) == (2100, tokens)
        lines = si_dev.read_text(encoding="utf-8").split("\n")[:2100]
        assert tokens == sum(len(tok.encode(x)) for x in lines)
    parquet = tmp_path / "pq"
    encode_corpus(DEFAULT_SGPE, shards, parquet / "ids-{index}.parquet", workers=2, serial_bytes=0)
    assert sorted(_written(parquet)) == [f"ids-0000{k}.parquet" for k in range(4)]
    assert (
        _written(parquet)["ids-00002.parquet"]
        == _each_on_its_own(shards, tmp_path / "b", ".parquet")["part-1.parquet"]
    )


def test_an_interrupted_per_file_encoding_resumes_where_it_stopped(si_dev, tmp_path):
    """Outputs an interrupted run finished are kept (not written again: the same inode) and
    the others are encoded; the result equals an uninterrupted run. Resuming a finished run encodes only
    what changed: a corpus file or the vocabulary."""
    from sgpe.corpus.encoding import encode_corpus
    from sgpe.shipped import DEFAULT_SGPE, PAPER_SGPE

    shards = _shards(si_dev, tmp_path)
    files = corpus_files(shards)  # empty.txt, part-0.txt, part-1.txt.gz, part-2.jsonl
    alone = _each_on_its_own(shards, tmp_path, ".npy")
    whole = tmp_path / "whole"
    reports: list[int] = []
    expected = encode_corpus(
        DEFAULT_SGPE, shards, whole / "{stem}.npy", workers=1,
        progress=lambda d, t: reports.append(d),
    )  # fmt: skip
    folder = tmp_path / "ids"
    out = folder / "{stem}.npy"
    first_three = sum(p.stat().st_size for p in files[:3])

    class Interrupted(Exception):
        pass

    def stop_in_the_last_file(done: int, total: int) -> None:
        if done == reports[-1]:  # the last batch: part-2's only one
            raise Interrupted

    with pytest.raises(Interrupted):
        encode_corpus(DEFAULT_SGPE, shards, out, workers=1, progress=stop_in_the_last_file)
    kept = {p.name: p.stat().st_ino for p in folder.glob("part-[01].*")}
    assert sorted(p.name for p in folder.iterdir()) == [
        "empty.npy", "empty.offsets.npy", "manifest.partial.jsonl", "part-0.npy",
        "part-0.offsets.npy", "part-1.npy", "part-1.offsets.npy",
    ]  # fmt: skip
    seen: list[int] = []
    got = encode_corpus(
        DEFAULT_SGPE, shards, out, workers=1, resume=True, progress=lambda d, t: seen.append(d)
    )
    assert got == expected
    assert _written(folder) == alone
    assert {p.name: p.stat().st_ino for p in folder.glob("part-[01].*")} == kept
    assert seen[0] == first_three  # the kept files count as done from the start
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert manifest == json.loads((whole / "manifest.json").read_text(encoding="utf-8"))
    row = manifest["outputs"][1]
    assert (row["corpus_bytes"], row["output_bytes"]) == (
        files[1].stat().st_size,
        [(folder / "part-0.npy").stat().st_size, (folder / "part-0.offsets.npy").stat().st_size],
    )
    # A finished run: only a changed corpus file is encoded again.
    with open(files[1], "a", encoding="utf-8") as f:
        f.write("ශ්‍රී ලංකා\n")
    before = {p.name: p.stat().st_ino for p in folder.glob("*.npy")}
    documents, _ = encode_corpus(DEFAULT_SGPE, shards, out, workers=1, resume=True)
    after = {p.name: p.stat().st_ino for p in folder.glob("*.npy")}
    assert [n for n in sorted(after) if after[n] != before[n]] == [
        "part-0.npy",
        "part-0.offsets.npy",
    ]
    assert documents == 2101
    assert (
        _written(folder)["part-0.npy"]
        == _each_on_its_own(shards, tmp_path / "c", ".npy")["part-0.npy"]
    )
    # Another vocabulary: every file again.
    paper: list[int] = []
    encode_corpus(
        PAPER_SGPE, shards, out, workers=1, resume=True, progress=lambda d, t: paper.append(d)
    )
    again = {p.name: p.stat().st_ino for p in folder.glob("*.npy")}
    assert all(again[n] != after[n] for n in after)
    # Without resume nothing is trusted, and the manifest of the run before goes at once.
    (folder / "part-2.npy").unlink()
    reports[:] = paper  # stop_in_the_last_file stops at this run's last batch now
    with pytest.raises(Interrupted):
        encode_corpus(PAPER_SGPE, shards, out, workers=1, progress=stop_in_the_last_file)
    assert not (folder / "manifest.json").exists()
    # (Inodes are compared across one run only: a run frees the ones it replaces, which a
    # later run may be given again.)
    interrupted = {p.name: p.stat().st_ino for p in folder.glob("*.npy")}
    encode_corpus(PAPER_SGPE, shards, out, workers=1)
    assert all(p.stat().st_ino != interrupted.get(p.name) for p in folder.glob("*.npy"))
    with pytest.raises(CorpusError, match="resuming needs one output per corpus file"):
        encode_corpus(DEFAULT_SGPE, shards, tmp_path / "one.npy", resume=True)


def test_resume_trusts_no_record_that_does_not_match(si_dev, tmp_path):
    """A file whose output lost a part, a corpus file touched since, and a record cut short
    (a run killed while writing it) are encoded again; the rest is kept."""
    from sgpe.corpus.encoding import encode_corpus
    from sgpe.shipped import DEFAULT_SGPE

    shards = _shards(si_dev, tmp_path)
    files = corpus_files(shards)
    folder = tmp_path / "ids"
    out = folder / "{index}.parquet"
    expected = encode_corpus(DEFAULT_SGPE, shards, out, workers=1)
    before = {p.name: p.stat().st_ino for p in folder.glob("*.parquet")}
    (folder / "00001.parquet").write_bytes(b"")  # an output that is not what was recorded
    stat = files[2].stat()
    os.utime(files[2], ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    (folder / "manifest.json").unlink()
    partial = [json.dumps(row, ensure_ascii=False) for row in manifest["outputs"]]
    partial[3] = partial[3][:40]  # cut short
    (folder / "manifest.partial.jsonl").write_text("\n".join(partial), encoding="utf-8")
    assert encode_corpus(DEFAULT_SGPE, shards, out, workers=1, resume=True) == expected
    after = {p.name: p.stat().st_ino for p in folder.glob("*.parquet")}
    assert [n for n in sorted(after) if after[n] != before[n]] == [
        "00001.parquet",
        "00002.parquet",
        "00003.parquet",
    ]
    assert not (folder / "manifest.partial.jsonl").exists()


def test_per_file_output_names_are_checked_before_any_work(si_dev, tmp_path):
    from sgpe.corpus.encoding import encode_corpus
    from sgpe.shipped import DEFAULT_SGPE

    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "x.txt").write_text("ශ්‍රී\n", encoding="utf-8")
    both = str(tmp_path / "*" / "x.txt")
    out = tmp_path / "out"
    with pytest.raises(CorpusError, match=r"a/x.txt and .*b/x.txt would both write .*x.npy; "):
        encode_corpus(DEFAULT_SGPE, both, out / "{stem}.npy")
    encode_corpus(DEFAULT_SGPE, both, out / "{index}-{stem}.npy")
    assert sorted(_written(out)) == [
        "00000-x.npy", "00000-x.offsets.npy", "00001-x.npy", "00001-x.offsets.npy"
    ]  # fmt: skip
    with pytest.raises(CorpusError, match=r"unknown placeholder \{name\} in the name \(\{stem\}"):
        encode_corpus(DEFAULT_SGPE, both, out / "{name}.npy")
    with pytest.raises(CorpusError, match="go in the file name, not a folder"):
        encode_corpus(DEFAULT_SGPE, both, out / "{stem}" / "ids.npy")
    with pytest.raises(CorpusError, match="documents in memory go to one output"):
        encode_corpus(DEFAULT_SGPE, ["ශ්‍රී"], out / "{stem}.npy")
    with pytest.raises(CorpusError, match=r"x.txt/ids.npy: cannot make its folder"):
        encode_corpus(DEFAULT_SGPE, both, tmp_path / "a" / "x.txt" / "ids.npy")
    assert not (tmp_path / "{stem}").exists() and not list(out.glob("*.tmp"))


def test_dask_local_cluster_encodes_as_the_local_pool(si_dev, tmp_path):
    """On Dask, one output holds the same bytes as the local run; per-file outputs are
    written by the workers themselves and equal each file encoded alone."""
    distributed = pytest.importorskip("distributed")
    from sgpe.corpus.encoding import encode_corpus
    from sgpe.shipped import DEFAULT_SGPE

    shards = _shards(si_dev, tmp_path)
    alone = _each_on_its_own(shards, tmp_path, ".npy")
    local = tmp_path / "local.npy"
    expected = encode_corpus(DEFAULT_SGPE, shards, local, workers=2, serial_bytes=0)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        address = cluster.scheduler_address
        one = tmp_path / "dask.npy"
        got = encode_corpus(DEFAULT_SGPE, shards, one, backend="dask", scheduler=address)
        per_file = tmp_path / "dask"
        seen: list[tuple[int, int]] = []
        every = encode_corpus(
            DEFAULT_SGPE, shards, per_file / "{stem}.npy", backend="dask", scheduler=address,
            progress=lambda d, t, s=seen: s.append((d, t)),
        )  # fmt: skip
    assert got == every == expected
    assert one.read_bytes() == local.read_bytes()
    assert _written(per_file) == alone
    manifest = json.loads((per_file / "manifest.json").read_text(encoding="utf-8"))
    assert (manifest["documents"], manifest["tokens"]) == expected
    on_disk = sum(p.stat().st_size for p in shards.iterdir())
    assert len(seen) == 4 and {t for _, t in seen} == {on_disk}  # one report per file
    assert [d for d, _ in seen] == sorted(d for d, _ in seen) and seen[-1][0] > 0
    # Resumed on the cluster: every output is done and kept; a changed file is encoded again.
    inodes = {p.name: p.stat().st_ino for p in per_file.glob("*.npy")}
    shards.joinpath("empty.txt").write_text("ශ්‍රී ලංකා\n", encoding="utf-8")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        resumed = encode_corpus(
            DEFAULT_SGPE, shards, per_file / "{stem}.npy", backend="dask",
            scheduler=cluster.scheduler_address, resume=True,
        )  # fmt: skip
    assert resumed[0] == expected[0] + 1
    changed = [p.name for p in per_file.glob("*.npy") if p.stat().st_ino != inodes[p.name]]
    assert sorted(changed) == ["empty.npy", "empty.offsets.npy"]


def test_a_batch_of_long_documents_stays_small():
    """Batches hold up to BATCH_DOCS documents and stop once past TEXT_BATCH_BYTES."""
    from sgpe.corpus.encoding import BATCH_DOCS, TEXT_BATCH_BYTES, _document_batches

    long_doc = "ක" * 70_000  # 210,001 bytes with its line break
    batches = list(_document_batches([long_doc] * 10))
    assert [len(b) for b, _ in batches] == [3, 3, 3, 1]
    assert all(size - 210_001 < TEXT_BATCH_BYTES <= size for _, size in batches[:-1])
    short = list(_document_batches(["ක"] * (BATCH_DOCS + 1)))
    assert [len(b) for b, _ in short] == [BATCH_DOCS, 1]


def test_encode_workers_start_one_blas_thread_unless_told(monkeypatch):
    """Encoding workers never call BLAS; numpy's OpenBLAS threads would spin on the cores
    the other workers encode on. A value the user set stays."""
    from sgpe.corpus import encoding

    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    monkeypatch.setitem(encoding._WORKER, "tok", "inherited")
    encoding._init_worker(None)  # a forked worker: the vocabulary is inherited
    assert os.environ["OPENBLAS_NUM_THREADS"] == "1" and os.environ["OMP_NUM_THREADS"] == "3"
    assert encoding._WORKER["tok"] == "inherited"


@pytest.mark.parametrize("typecode", ["H", "I", "i", "q"])
@pytest.mark.parametrize("n", [0, 1, 4_000_000, 10**18])
def test_npy_headers_are_the_ones_numpy_writes(typecode, n):
    """Batch encoding writes .npy files without numpy; its headers are numpy's own."""
    import io
    from array import array

    np = pytest.importorskip("numpy")
    from sgpe.corpus.encoding import _NPY_HEADER_BYTES, _npy_header

    f = io.BytesIO()
    dtype = np.dtype(f"={typecode}")
    np.lib.format.write_array_header_1_0(
        f, {"descr": dtype.str, "fortran_order": False, "shape": (n,)}
    )
    assert _npy_header(typecode, n) == f.getvalue()
    assert len(_npy_header(typecode, n)) == _NPY_HEADER_BYTES
    data = array(typecode, range(5)).tobytes()
    loaded = np.load(io.BytesIO(_npy_header(typecode, 5) + data))
    assert loaded.dtype == dtype and loaded.tolist() == [0, 1, 2, 3, 4]


def test_batch_encode_of_text_segments_keeps_every_line(si_dev, tmp_path, monkeypatch):
    """Text files reach the workers as raw segments: blank lines, a CR, a last line without
    a line break and a bad byte behave as in iter_documents."""
    np = pytest.importorskip("numpy")
    from sgpe.corpus import encoding
    from sgpe.corpus.readers import iter_documents
    from sgpe.shipped import DEFAULT_SGPE

    monkeypatch.setattr(encoding, "TEXT_BATCH_BYTES", 4096)  # many segments from a small file
    tok = sgpe.load(DEFAULT_SGPE)
    lines = si_dev.read_text(encoding="utf-8").split("\n")[:400]
    lines[5:5] = ["", "", "ශ්‍රී ලංකා\r", " "]
    corpus = tmp_path / "c.txt"
    corpus.write_text("\n".join(lines), encoding="utf-8")  # no line break at the end
    docs = list(iter_documents(corpus))
    assert docs == lines
    for workers in (1, 2):
        out = tmp_path / f"ids{workers}.npy"
        n, _ = encoding.encode_corpus(DEFAULT_SGPE, corpus, out, workers=workers, serial_bytes=0)
        ids = np.load(out)
        offsets = np.load(out.with_name(out.stem + ".offsets.npy"))
        assert n == len(lines)
        assert [ids[offsets[k] : offsets[k + 1]].tolist() for k in range(n)] == [
            tok.encode(x) for x in lines
        ]
    bad = tmp_path / "bad.txt"
    raw = corpus.read_bytes()
    cut = raw.index(b"\n", 9000) + 1  # a bad line in the third segment
    bad.write_bytes(raw[:cut] + b"\xffx\n" + raw[cut:])
    line = raw[:cut].count(b"\n") + 1
    with pytest.raises(CorpusError, match=rf"bad.txt: line {line}, byte 1: not valid UTF-8"):
        encoding.encode_corpus(DEFAULT_SGPE, bad, tmp_path / "b.npy", workers=2, serial_bytes=0)
    assert not list(tmp_path.glob("*.tmp")) and not (tmp_path / "b.npy").exists()


def test_encode_command_line_errors(tmp_path):
    from sgpe.shipped import DEFAULT_SGPE

    code, err = run_cli("encode", "--vocab", str(DEFAULT_SGPE), "--corpus", "x.txt")
    assert code == 2 and "batch encoding needs both --corpus and --out" in err
    code, err = run_cli(
        "encode", "--vocab", str(DEFAULT_SGPE), "--corpus", str(tmp_path / "nope.txt"),
        "--out", str(tmp_path / "o.npy"),
    )  # fmt: skip
    assert code == 2 and "nope.txt: file not found" in err
    (tmp_path / "a.txt").write_text("ශ්‍රී\n", encoding="utf-8")
    code, err = run_cli(
        "encode", "--vocab", str(DEFAULT_SGPE), "--corpus", str(tmp_path / "a.txt"),
        "--out", str(tmp_path / "o.json"),
    )  # fmt: skip
    assert code == 2 and "the output must end in .parquet or .npy" in err
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"]
    code, err = run_cli(
        "encode", "--vocab", str(DEFAULT_SGPE), "--corpus", str(tmp_path / "a.txt"),
        "--out", str(tmp_path / "ids" / "{file}.npy"),
    )  # fmt: skip
    assert code == 2 and "unknown placeholder {file} in the name" in err
    code, err = run_cli(
        "encode", "--vocab", str(DEFAULT_SGPE), "--corpus", str(tmp_path / "a.txt"),
        "--out", str(tmp_path / "ids" / "{stem}.npy"),
    )  # fmt: skip
    manifest = tmp_path / "ids" / "manifest.json"
    assert code == 0 and err.endswith(
        f"encoded 1 document into 1 token: outputs listed in {manifest}\n"
    )
    assert sorted(p.name for p in manifest.parent.iterdir()) == [
        "a.npy", "a.offsets.npy", "manifest.json"
    ]  # fmt: skip
    inode = (tmp_path / "ids" / "a.npy").stat().st_ino
    code, err = run_cli(
        "encode", "--vocab", str(DEFAULT_SGPE), "--corpus", str(tmp_path / "a.txt"),
        "--out", str(tmp_path / "ids" / "{stem}.npy"), "--resume",
    )  # fmt: skip
    assert code == 0 and err.endswith(f"outputs listed in {manifest}\n")
    assert (tmp_path / "ids" / "a.npy").stat().st_ino == inode  # done already: kept
    code, err = run_cli("encode", "--vocab", str(DEFAULT_SGPE), "--resume")
    assert code == 2 and "--resume: only with --corpus and --out" in err
    code, err = run_cli(
        "encode", "--vocab", str(DEFAULT_SGPE), "--corpus", str(tmp_path / "a.txt"),
        "--out", str(tmp_path / "one.npy"), "--resume",
    )  # fmt: skip
    assert code == 2 and "resuming needs one output per corpus file" in err


_FORK_AFTER_BATCH = """
import pathlib, sys, tempfile
import sgpe
from sgpe.corpus.counting import start_method
from sgpe.corpus.encoding import encode_corpus
if __name__ == "__main__":
    vocab = str(sgpe.shipped.path_of("sgpe-4k"))
    lines = open(sys.argv[1], encoding="utf-8").read().splitlines()[:2000]
    before = start_method()
    sgpe.load(vocab).encode_batch(lines)
    after = start_method()
    out = pathlib.Path(tempfile.mkdtemp()) / "ids.npy"
    print(before, after, *encode_corpus(vocab, sys.argv[1], out, workers=2, serial_bytes=0))
"""


@pytest.mark.native
def test_a_pool_after_a_native_batch_does_not_hang(tmp_path: Path, shared_corpora: Path) -> None:
    """A native ``encode_batch`` starts the rayon pool's threads, which ``threading`` does
    not see: a pool forked after it waited forever for threads its children do not have.
    The start method counts the process's threads, so the pool is started by forkserver."""
    import subprocess
    import sys

    script = tmp_path / "fork_after_batch.py"
    script.write_text(_FORK_AFTER_BATCH, encoding="utf-8")
    corpus = shared_corpora / "si_dev.txt"
    done = subprocess.run(
        [sys.executable, str(script), str(corpus)],
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, "SGPE_ENGINE": "native"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    before, after, documents, tokens = done.stdout.split()
    assert (before, after) == ("fork", "forkserver")
    assert int(documents) == len(corpus.read_text(encoding="utf-8").splitlines())
    assert int(tokens) > 0

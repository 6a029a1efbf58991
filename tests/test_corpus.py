"""Corpus intake: every supported format, and a specific error for every kind of bad file."""

from __future__ import annotations

import gzip
import json

import pytest

import sgpe
from sgpe.corpus import CorpusError, iter_documents, read_corpus

LINES = ["ශ්‍රී ලංකාව", "नमस्ते दुनिया", "x\r", ""]


def _write(tmp_path, name, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_txt_lines_are_documents(tmp_path):
    path = _write(tmp_path, "c.txt", "\n".join(LINES).encode() + b"\n")
    assert list(iter_documents(path)) == LINES  # a trailing \r stays; empty lines stay


def test_txt_gz(tmp_path):
    path = _write(tmp_path, "c.txt.gz", gzip.compress("\n".join(LINES).encode() + b"\n"))
    assert list(iter_documents(path)) == LINES


def test_jsonl(tmp_path):
    body = "\n".join(
        json.dumps({"text": t, "id": i}, ensure_ascii=False) for i, t in enumerate(LINES)
    )
    assert list(iter_documents(_write(tmp_path, "c.jsonl", body.encode()))) == LINES


def test_csv(tmp_path):
    body = 'id,text\n1,"ශ්‍රී, ලංකාව"\n2,"multi\nline"\n'
    assert list(iter_documents(_write(tmp_path, "c.csv", body.encode()))) == [
        "ශ්‍රී, ලංකාව",
        "multi\nline",
    ]


def test_parquet(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    path = tmp_path / "c.parquet"
    pq.write_table(pa.table({"text": LINES, "n": [1, 2, 3, 4]}), path)
    assert list(iter_documents(path)) == LINES


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("bad.txt", "ශ්‍රී\nලං".encode() + b"\xff\xfe", r"bad.txt: line 2, byte 7: not valid UTF-8"),
        (
            "bad.jsonl",
            b'{"text": "a"}\n2019\n',
            r"line 2: expected a JSON object with a 'text' field, got a int",
        ),
        ("bad.jsonl", b'{"text": "a"}\n{"body": "b"}\n', r"line 2: the object has no 'text' field"),
        ("bad.jsonl", b'{"text": 5}\n', r"line 1: 'text' must be a string, got int"),
        ("bad.jsonl", b'{"text": "a"\n', r"line 1: not valid JSON"),
        ("bad.csv", b"id,body\n1,x\n", r"no 'text' column \(columns: id, body\)"),
        ("bad.csv", b"", r"the file is empty"),
        ("bad.docx", b"PK", r"unsupported corpus type"),
        ("bad.txt.gz", b"not gzip", r"cannot be read"),
    ],
)
def test_bad_files_get_specific_errors(tmp_path, name, data, message):
    path = _write(tmp_path, name, data)
    with pytest.raises(CorpusError, match=message):
        list(iter_documents(path))


def test_missing_file(tmp_path):
    with pytest.raises(CorpusError, match="file not found"):
        read_corpus(tmp_path / "nope.txt")


def test_empty_corpus_cannot_train(tmp_path):
    path = _write(tmp_path, "empty.txt", b"\n \n")
    with pytest.raises(CorpusError, match="empty"):
        sgpe.train(path, vocab_size=1000)


def test_training_from_each_format_gives_the_same_vocabulary(tmp_path):
    lines = ["ශ්‍රී ලංකාව සුන්දර රටකි", "ලංකාවේ ජනතාව", "नमस्ते दुनिया"] * 3
    txt = _write(tmp_path, "c.txt", ("\n".join(lines) + "\n").encode())
    jsonl = _write(tmp_path, "c.jsonl", "\n".join(json.dumps({"text": t}) for t in lines).encode())
    a = sgpe.train(txt, vocab_size=700, prune_freq=1)
    b = sgpe.train(jsonl, vocab_size=700, prune_freq=1)
    c = sgpe.train(lines, vocab_size=700, prune_freq=1)
    assert a.merges == b.merges == c.merges and a.vocab == b.vocab == c.vocab
    assert a.training["corpus"] == "c.txt" and a.training["lines"] == len(lines)
    assert a.training["sha256"] == c.training["sha256"]  # same documents, same hash

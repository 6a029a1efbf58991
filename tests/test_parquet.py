"""The run directory's Parquet writer (sgpe/runs/parquet.py, and its native twin
native/src/parquet_file.rs): pyarrow reads back exactly the columns and the ``sgpe`` key
written (pyarrow 26.0.1, the dev lock's), in one page or many; both writers give the same
bytes; a training run imports neither pyarrow nor numpy."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from typing import Any

import pytest

from sgpe.runs.parquet import write_table

TABLES = {
    "word-counts": {
        "piece": [" ශ්‍රී", "", "a", "\n", "😀x", " क्ष", '\x00"\\'] * 300,
        "count": [3, 1, 2**63 - 1, 0, -(2**63), 7, 12] * 300,
    },
    "merges": {
        "step": [1, 2, 3],
        "left": [" ක", "ා", "x"],
        "right": ["ා", "ව", "y"],
        "merged": [" කා", "ාව", "xy"],
        "count": [10, 9, 9],
    },
    "one-row": {"left": ["a"], "right": ["b"], "count": [7]},
    "empty": {"piece": [], "count": []},
    "no-columns": {},
}
META = json.dumps({"fingerprint": "f", "pieces": 2100, "corpus_info": {"name": "ශ්‍රී"}})


def read_back(data: bytes) -> tuple[dict[str, list[Any]], dict[bytes, bytes], Any]:
    pq = pytest.importorskip("pyarrow.parquet")
    table = pq.read_table(io.BytesIO(data))
    columns = {name: table.column(name).to_pylist() for name in table.column_names}
    return columns, dict(table.schema.metadata or {}), table.schema


@pytest.mark.parametrize(
    "page_bytes", [1 << 26, 64, 9], ids=["one-page", "pages", "a-value-a-page"]
)
@pytest.mark.parametrize("name", list(TABLES))
def test_pyarrow_reads_back_what_was_written(name: str, page_bytes: int) -> None:
    columns = TABLES[name]
    data = write_table(columns, META, page_bytes)
    got, meta, schema = read_back(data)
    assert got == columns
    assert meta == {b"sgpe": META.encode()}
    for field, values in zip(schema, columns.values()):
        assert str(field.type) == ("string" if values and isinstance(values[0], str) else "int64")
        assert not field.nullable


@pytest.mark.parametrize("page_bytes", [1 << 26, 64, 9])
@pytest.mark.parametrize("name", list(TABLES))
def test_the_native_writer_gives_the_same_bytes(name: str, page_bytes: int) -> None:
    from tests.conftest import require_native_core

    require_native_core()
    from sgpe import engine

    native = engine.native_module()
    assert native is not None
    columns = TABLES[name]
    strings = [bool(v) and isinstance(v[0], str) for v in columns.values()]
    made = native.parquet_table(list(columns), list(columns.values()), strings, META, page_bytes)
    assert made == write_table(columns, META, page_bytes)


def test_pandas_reads_a_written_table() -> None:
    pytest.importorskip("pandas")
    import pandas as pd

    frame = pd.read_parquet(io.BytesIO(write_table(TABLES["merges"], META)))
    assert frame["merged"].tolist() == TABLES["merges"]["merged"]
    assert frame["count"].sum() == 28


def test_encode_table_writes_run_tables_without_pyarrow_and_other_columns_with_it() -> None:
    from sgpe.runs.files import encode_table

    columns = TABLES["word-counts"]
    data = encode_table(columns, {"pieces": 2100}, True)
    assert data == write_table(columns, json.dumps({"pieces": 2100}))
    other = {"flag": [True, False], "share": [0.5, 2.0], "mixed": [1, None]}
    got, _, _ = read_back(encode_table(other, {}, True))  # bools, floats, None: pyarrow
    assert got == other


def test_a_training_run_imports_neither_pyarrow_nor_numpy(tmp_path: Any) -> None:
    """Their import was paid by every run (python -m bench native, the training row)."""
    pytest.importorskip("pyarrow")
    corpus = tmp_path / "c.txt"
    corpus.write_text("ශ්‍රී ලංකා ශ්‍රී ලංකාව\nक्षत्रिय ලංකා\n" * 50, encoding="utf-8")
    code = (
        "import sys; from sgpe.cli import main\n"
        f"assert main(['train', '--corpus', {str(corpus)!r}, '--out', {str(tmp_path / 'run')!r},"
        " '--vocab-size', '400']) == 0\n"
        "print(sorted(m for m in ('pyarrow', 'numpy', 'pandas') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"
    assert (tmp_path / "run" / "word_counts.parquet").exists()
    got, _, _ = read_back((tmp_path / "run" / "merges.parquet").read_bytes())
    assert set(got) == {"step", "left", "right", "merged", "count"} and got["step"][0] == 1


def test_both_engines_write_the_same_run_directory_files(tmp_path: Any) -> None:
    """A run trained under each engine: the same word counts, merges, checkpoint and
    vocab.json, byte for byte (the tables by either writer, vocab.json by either)."""
    from tests.conftest import require_native_core

    require_native_core()
    from sgpe import engine
    from sgpe.cli import main

    corpus = tmp_path / "c.txt"
    corpus.write_text('ශ්‍රී ලංකා ශ්‍රී ලංකාව\nक्षत्रिय ලංකා "x"\\\n' * 50, encoding="utf-8")
    runs = {}
    for name in ("native", "python"):
        with engine.engine_set_to(name):
            out = tmp_path / name
            assert (
                main(["train", "--corpus", str(corpus), "--out", str(out), "--vocab-size", "400"])
                == 0
            )
        runs[name] = out
    for file in ("word_counts.parquet", "merges.parquet", "vocab.json"):
        assert (runs["native"] / file).read_bytes() == (runs["python"] / file).read_bytes(), file
    checkpoints = [json.loads((runs[n] / "checkpoint.json").read_text("utf-8")) for n in runs]
    assert checkpoints[0]["data"] == checkpoints[1]["data"]
    assert checkpoints[0]["sha256"] == checkpoints[1]["sha256"]

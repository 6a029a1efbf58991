"""The run directory's tables (sgpe/runs/files.py ``encode_table``, written by pyarrow):
pyarrow and pandas read back exactly the columns, their types and the ``sgpe`` key
written; an empty table keeps its string columns; a lone surrogate is a ValueError naming
its place; a training run imports pyarrow and writes its word counts on a thread beside
the merge loop; where pyarrow is not installed the tables are JSON and a run still
resumes to the same vocab.json."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sgpe.runs.files import encode_table
from sgpe.runs.merges_table import encode_merges

STRINGS = ("piece", "left", "right", "merged")
TABLES: dict[str, dict[str, list[Any]]] = {
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
META = {"fingerprint": "f", "pieces": 2100, "corpus_info": {"name": "ශ්‍රී"}}
CORPUS = 'ශ්‍රී ලංකා ශ්‍රී ලංකාව\nक्षत्रिय ලංකා "x"\\\n' * 50


def read_back(data: bytes) -> tuple[dict[str, list[Any]], dict[bytes, bytes], Any]:
    pq = pytest.importorskip("pyarrow.parquet")
    table = pq.read_table(io.BytesIO(data))
    columns = {name: table.column(name).to_pylist() for name in table.column_names}
    return columns, dict(table.schema.metadata or {}), table.schema


@pytest.mark.parametrize("name", list(TABLES))
def test_pyarrow_reads_back_what_was_written(name: str) -> None:
    columns = TABLES[name]
    data = encode_table(columns, META, True, strings=STRINGS)
    assert data.startswith(b"PAR1") and data.endswith(b"PAR1")
    got, meta, schema = read_back(data)
    assert got == columns
    assert meta == {b"sgpe": json.dumps(META).encode()}
    for field in schema:
        assert str(field.type) == ("string" if field.name in STRINGS else "int64"), field


def test_an_empty_tables_string_columns_are_strings(tmp_path: Path) -> None:
    """The run's own writers of an empty table (no pieces, no merges): its string columns
    are strings to any reader, not the int64 or null of a column with no values."""
    from sgpe.corpus.readers import CorpusInfo
    from sgpe.runs.files import _Writes
    from sgpe.runs.word_counts import write_word_counts

    path = write_word_counts(tmp_path, {}, CorpusInfo("c", "0" * 64, 0, 0), "f", _Writes())
    assert path.name == "word_counts.parquet"
    _, _, schema = read_back(path.read_bytes())
    assert [(f.name, str(f.type)) for f in schema] == [("piece", "string"), ("count", "int64")]
    _, _, schema = read_back(encode_merges([], [], 1, 0, True))
    assert [(f.name, str(f.type)) for f in schema] == [
        ("step", "int64"),
        ("left", "string"),
        ("right", "string"),
        ("merged", "string"),
        ("count", "int64"),
    ]


def test_pandas_reads_a_written_table() -> None:
    pd = pytest.importorskip("pandas")
    frame = pd.read_parquet(
        io.BytesIO(encode_merges([("a", "b"), ("ab", "c")], [5, 3], 1, 2, True))
    )
    assert frame["merged"].tolist() == ["ab", "abc"]
    assert frame["step"].tolist() == [1, 2] and frame["count"].sum() == 8
    assert str(frame["count"].dtype) == "int64"


@pytest.mark.parametrize("parquet", [True, False], ids=["parquet", "json"])
def test_a_lone_surrogate_is_a_value_error_naming_its_place(parquet: bool) -> None:
    if parquet:
        pytest.importorskip("pyarrow")
    columns = {"piece": ["ලංකා", "a\ud800b"], "count": [2, 1]}
    with pytest.raises(ValueError) as err:
        encode_table(columns, {}, parquet, strings=("piece",))
    assert str(err.value) == (
        "column 'piece', row 1: a lone surrogate (U+D800 at position 1) cannot be written as UTF-8"
    )


def test_a_training_run_imports_pyarrow_and_writes_its_word_counts_beside_the_merge_loop(
    tmp_path: Path,
) -> None:
    """pyarrow's import (0.1-0.3 s, numpy's included) and the word counts' write run on
    one thread, started after the count (which uses every core) and beside the merge loop
    (one core, the GIL left free), instead of adding to the run (python -m bench native,
    the training row); the tables are pyarrow's."""
    pytest.importorskip("pyarrow")
    corpus = tmp_path / "c.txt"
    corpus.write_text(CORPUS, encoding="utf-8")
    code = (
        "import sys, threading\n"
        "seen = set()\n"
        "def hook(event, args):\n"
        "    if event == 'import' and args[0].split('.')[0] == 'pyarrow':\n"
        "        seen.add(('import', threading.current_thread().name))\n"
        "    if event == 'os.rename' and str(args[1]).endswith('word_counts.parquet'):\n"
        "        seen.add(('write', threading.current_thread().name))\n"
        "sys.addaudithook(hook)\n"
        "from sgpe.cli import main\n"
        f"assert main(['train', '--corpus', {str(corpus)!r}, '--out', {str(tmp_path / 'run')!r},"
        " '--vocab-size', '400']) == 0\n"
        "print(sorted(seen))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == (
        "[('import', 'write word counts'), ('write', 'write word counts')]"
    )
    got, _, _ = read_back((tmp_path / "run" / "merges.parquet").read_bytes())
    assert set(got) == {"step", "left", "right", "merged", "count"} and got["step"][0] == 1
    got, meta, _ = read_back((tmp_path / "run" / "word_counts.parquet").read_bytes())
    assert sum(got["count"]) > 0 and json.loads(meta[b"sgpe"])["pieces"] == len(got["piece"])


# A subprocess's finder that makes pyarrow look not installed (as on a machine without it).
HIDE_PYARROW = (
    "import importlib.abc, sys\n"
    "class Hide(importlib.abc.MetaPathFinder):\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name.split('.')[0] == 'pyarrow':\n"
    "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
    "sys.meta_path.insert(0, Hide())\n"
)


def test_without_pyarrow_the_tables_are_json_and_a_run_resumes(tmp_path: Path) -> None:
    """A run interrupted by a failed write (the SGPE_TEST_FAIL_WRITE_AFTER hook) and
    resumed, pyarrow hidden: JSON tables, and the vocab.json of a run with pyarrow."""
    from sgpe.cli import main
    from sgpe.runs.constants import FAIL_WRITE_ENV

    corpus = tmp_path / "c.txt"
    corpus.write_text(CORPUS, encoding="utf-8")
    args = ["train", "--corpus", str(corpus), "--vocab-size", "400", "--checkpoint-every", "20"]
    hidden, reference = tmp_path / "hidden", tmp_path / "reference"
    code = (
        HIDE_PYARROW + "import os\nfrom sgpe.cli import main\n"
        f"os.environ[{FAIL_WRITE_ENV!r}] = '4'\n"
        f"assert main({[*args, '--out', str(hidden)]!r}) != 0\n"
        f"del os.environ[{FAIL_WRITE_ENV!r}]\n"
        f"assert main(['train', '--out', {str(hidden)!r}, '--resume']) == 0\n"
        "print(sorted(m for m in ('pyarrow', 'numpy', 'pandas') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"
    assert main([*args, "--out", str(reference)]) == 0
    names = {p.name for p in hidden.iterdir()}
    assert {"word_counts.json", "merges.json", "vocab.json"} <= names
    assert not list(hidden.glob("*.parquet"))
    assert (hidden / "vocab.json").read_bytes() == (reference / "vocab.json").read_bytes()
    merges = json.loads((hidden / "merges.json").read_text(encoding="utf-8"))["columns"]
    assert list(merges) == ["step", "left", "right", "merged", "count"]
    assert (reference / "merges.parquet").exists()
    got, _, _ = read_back((reference / "merges.parquet").read_bytes())
    assert got == merges


def test_both_engines_write_the_same_run_directory_files(tmp_path: Path) -> None:
    """A run trained under each engine: the same word counts, merges, checkpoint and
    vocab.json, byte for byte."""
    from tests.conftest import require_native_core

    require_native_core()
    from sgpe import _engine as engine
    from sgpe.cli import main

    corpus = tmp_path / "c.txt"
    corpus.write_text(CORPUS, encoding="utf-8")
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

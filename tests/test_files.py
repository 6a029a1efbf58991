"""The canonical JSON writer (sgpe/_json.py): its fast item encoder spells every item
exactly as ``json.dumps(item, ensure_ascii=False)`` does. And the run tables
(sgpe/runs/files.py): Arrow columns built from buffers write the bytes ``pyarrow.table``
writes."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import given
from hypothesis import strategies as st

import sgpe
import sgpe._json as json_module
from sgpe._atomic import atomic_write, write_folder_atomic
from sgpe._json import _item_json, dumps_json

REPO_ROOT = Path(__file__).resolve().parents[1]
VOCABS = sorted((REPO_ROOT / "sample_data" / "vocab").glob("sgpe_*.json"))  # dumps_json files


def reference_dumps(data: dict[str, Any]) -> str:
    """The definition: the same layout with every item through json.dumps (also the
    items of long lists and dicts, which have their own faster paths)."""

    def item(v: Any) -> str:
        return json.dumps(v, ensure_ascii=False)

    with (
        patch.object(json_module, "_item_json", item),
        patch.object(json_module, "_list_items", lambda vs: map(item, vs)),
        patch.object(
            json_module, "_dict_items", lambda d: (f"{item(k)}: {item(v)}" for k, v in d.items())
        ),
    ):
        return dumps_json(data)


@pytest.mark.parametrize("path", VOCABS, ids=[p.name for p in VOCABS])
def test_shipped_vocabularies_are_written_as_json_dumps_would(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    data = json.loads(text)
    assert len(data["merges"]) > 1000  # the long lists take the fast path
    assert dumps_json(data) == reference_dumps(data) == text


items = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)


@given(items)
def test_any_item_is_spelled_as_json_dumps_spells_it(value: Any) -> None:
    assert _item_json(value) == json.dumps(value, ensure_ascii=False)


@given(
    st.lists(items, min_size=9, max_size=12),
    st.dictionaries(st.text(), items, min_size=9, max_size=10),
)
def test_long_lists_and_dicts(values: list[Any], mapping: dict[str, Any]) -> None:
    data = {"a": values, "b": mapping, "c": values[:3]}
    assert dumps_json(data) == reference_dumps(data)
    assert json.loads(dumps_json(data)) == json.loads(json.dumps(data))


pairs = st.lists(st.text(), min_size=2, max_size=2) | st.tuples(st.text(), st.text())
nearly_pairs = pairs | st.lists(st.text() | st.integers(), min_size=1, max_size=3)


@given(
    st.lists(pairs, min_size=9, max_size=20),
    st.lists(nearly_pairs, min_size=9, max_size=12),
    st.lists(st.integers() | st.booleans(), min_size=9, max_size=12),
    st.dictionaries(st.text(), st.integers() | st.booleans(), min_size=9, max_size=12),
)
def test_the_fast_paths_of_long_lists_and_dicts(
    merges: list[Any], mixed: list[Any], numbers: list[Any], vocab: dict[str, Any]
) -> None:
    """Merges (pairs of strings), counts (whole numbers; a bool among them is spelled
    true/false) and vocabularies (strings to numbers) take the fast paths, and anything
    slightly different falls back to the item encoder: the same text either way."""
    data = {"merges": merges, "mixed": mixed, "counts": numbers, "vocab": vocab}
    assert dumps_json(data) == reference_dumps(data)
    assert json.loads(dumps_json(data)) == json.loads(json.dumps(data))


# ============================================================================ saving


def test_a_saved_vocabulary_is_the_same_bytes_under_both_engines(tmp_path: Path) -> None:
    from sgpe import _engine as engine
    from tests.conftest import require_native_core

    require_native_core()
    tok = sgpe.load(VOCABS[-1])
    tok.save(tmp_path / "native.json")
    with engine.engine_set_to("python"):
        sgpe.load(VOCABS[-1]).save(tmp_path / "python.json")
    native, python = (tmp_path / n for n in ("native.json", "python.json"))
    assert native.read_bytes() == python.read_bytes() == VOCABS[-1].read_bytes()


# ============================================================================ run tables


def reference_table(columns: dict[str, list[Any]], meta: dict[str, Any]) -> bytes:
    """The definition: ``pyarrow.table`` of the lists, written as encode_table writes."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table(columns).replace_schema_metadata({"sgpe": json.dumps(meta)})
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, use_dictionary=False)
    return bytes(sink.getvalue().to_pybytes())


@pytest.mark.parametrize(
    "columns",
    [
        {"piece": [" ශ්‍රී", "", "a", "\n", "😀x"] * 300, "count": [3, 1, 2**62, 0, -5] * 300},
        {"left": ["a"], "right": ["b"], "count": [7]},
        {"flag": [True, False], "share": [0.5, 2.0], "mixed": [1, None]},  # through pa.array
        {"piece": ["a", "b"], "count": [2**64, 1]},  # beyond int64
        {"piece": [" ශ්‍රී", "", "a", "\n", "😀x"] * 300, "count": [True, 1, 2, 0, -5] * 300},
    ],
    ids=["word-counts", "one-row", "other-types", "big-number", "a-bool-among-counts"],
)
def test_tables_are_the_bytes_pyarrow_table_writes(
    columns: dict[str, list[Any]],
) -> None:
    """Any column goes through pyarrow, its buffer-built columns (strings, int64) as
    pyarrow.table builds them (the run's own tables: tests/test_parquet.py)."""
    pytest.importorskip("pyarrow")
    from sgpe.runs.format import encode_table

    meta = {"fingerprint": "f", "pieces": 5}
    try:
        expected = reference_table(columns, meta)
    except Exception as err:  # pyarrow's own error for a number beyond int64
        with pytest.raises(type(err)):
            encode_table(columns, meta, True)
        return
    assert encode_table(columns, meta, True) == expected


def test_writing_word_counts_does_not_import_pandas(tmp_path: Path) -> None:
    """pyarrow.array imports pandas to ask whether its input is a pandas object: 0.2 s of
    every training run, which the buffer-built columns avoid."""
    import subprocess
    import sys

    pytest.importorskip("pyarrow")
    code = (
        "import sys; from sgpe.runs.format import encode_table\n"
        "encode_table({'piece': ['a', 'ශ්'], 'count': [2, 1]}, {}, True)\n"
        "print('pandas' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ---------------------------------------------------------------------------- folders


def test_a_folder_is_written_whole_or_not_at_all(tmp_path: Path) -> None:
    target = tmp_path / "folder"
    write_folder_atomic(target, {"a.json": b"{}\n", "b.txt": b"old"})
    assert sorted(p.name for p in target.iterdir()) == ["a.json", "b.txt"]
    write_folder_atomic(target, {"c.txt": b"new"})  # replaced whole
    assert [p.name for p in target.iterdir()] == ["c.txt"]
    # The second file fails mid-write (str, not bytes) after the first is on disk in the
    # temp directory: the target keeps its old files and no temp directory is left.
    with pytest.raises(TypeError):
        write_folder_atomic(target, {"a.txt": b"1", "z.txt": "not bytes"})  # type: ignore[dict-item]
    assert [p.name for p in target.iterdir()] == ["c.txt"]
    assert [p.name for p in tmp_path.iterdir()] == ["folder"]
    with pytest.raises(TypeError):
        write_folder_atomic(tmp_path / "new", {"a.txt": b"1", "z.txt": "not bytes"})  # type: ignore[dict-item]
    assert [p.name for p in tmp_path.iterdir()] == ["folder"]
    for bad in ("", ".", "..", "a/b", "a\\b"):
        with pytest.raises(ValueError, match="a folder file name must be a plain name"):
            write_folder_atomic(tmp_path / "x", {bad: b""})
    assert [p.name for p in tmp_path.iterdir()] == ["folder"]


# ============================================================================ checkpoints

spellings = st.text() | st.just('"\\\n\u2028 ශ්\u200dරී') | st.sampled_from(["a", "0", ""])
merge = st.tuples(spellings, spellings) | st.lists(spellings, min_size=2, max_size=2)
odd = st.lists(spellings | st.integers(), max_size=3) | spellings  # only as a fallback


@given(
    st.lists(
        st.tuples(
            st.lists(merge, max_size=6) | st.lists(odd, min_size=1, max_size=2),
            st.booleans(),
        ),
        max_size=6,
    ),
    st.lists(st.integers() | st.booleans(), max_size=40),
)
def test_checkpoint_bodies_made_merge_by_merge_are_the_checksummed_text(
    steps: list[tuple[list[Any], bool]], counts: list[Any]
) -> None:
    """``CheckpointBody`` (the run worker's checkpoints, each merge spelled once) gives
    ``Checkpoint._body`` for every checkpoint of a run: merges appended, or (a resumed
    run, a byte-level run's spelled ids) replaced."""
    from sgpe.runs.format import Checkpoint, CheckpointBody

    body = CheckpointBody()
    merges: list[Any] = []
    for more, replace in steps:
        merges = more if replace else merges + more
        tail = counts[: len(merges)]
        assert body(merges, tail) == Checkpoint._body(merges, tail)


def test_a_trained_runs_checkpoint_is_written_as_before() -> None:
    from sgpe.runs.format import Checkpoint, CheckpointBody

    data = json.loads((REPO_ROOT / "sample_data" / "vocab" / "sgpe_4k.json").read_text("utf-8"))
    merges = [tuple(m) for m in data["merges"]]
    counts = data["merge_counts"]
    body = CheckpointBody()
    for end in (1000, 2000, 2000, len(merges)):
        assert body(merges[:end], counts[:end]) == Checkpoint._body(merges[:end], counts[:end])


def test_keep_previous_never_leaves_the_file_missing(tmp_path: Path) -> None:
    """A checkpoint write is killed between keeping the old file and renaming the new one
    in (the last rename fails here): the run directory still has the old checkpoint under
    its own name and under the kept name, and no temp file is left."""
    path, keep = tmp_path / "checkpoint.json", tmp_path / "checkpoint.prev.json"
    atomic_write(path, b"old")
    real_replace = os.replace

    def killed_before_the_new_file(src: Any, dst: Any) -> None:
        if Path(dst) == path:
            raise KeyboardInterrupt
        real_replace(src, dst)

    with patch("os.replace", killed_before_the_new_file), pytest.raises(KeyboardInterrupt):
        atomic_write(path, b"new", keep_previous=keep)
    assert path.read_bytes() == b"old" and keep.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([keep.name, path.name])
    atomic_write(path, b"new", keep_previous=keep)
    assert path.read_bytes() == b"new" and keep.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([keep.name, path.name])

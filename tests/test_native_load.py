"""The native reader of ``vocab.json`` (native/src/vocab_file.rs, ``Tokenizer.load`` under
the native engine) against the Python reader: the same tokenizer from every good file,
the same error from every bad one.

The native reader declines whatever it does not accept and the Python reader then answers,
so a bad file must give, word for word, the message ``SGPE_ENGINE=python`` gives; a good
file must give the same vocab (in the file's order), merges, ``to_dict`` and ids, without
the Python tables being made by loading and encoding.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import engine_set_to, require_native_core

import sgpe
from sgpe import shipped
from sgpe._json import read_json
from sgpe.tokenizer import Tokenizer

require_native_core()

SHIPPED = [shipped.DEFAULT_SGPE, shipped.PAPER_SGPE]


def _outcome(path: Path, engine: str) -> tuple[str, Any]:
    """("error", message) or ("ok", (to_dict, tokens of a text)) of loading ``path``."""
    with engine_set_to(engine):
        try:
            tok = sgpe.load(path)
        except ValueError as err:
            return "error", str(err)
        return "ok", (tok.to_dict(), tok.tokenize("ශ්‍රී ලංකාව hello 2024 नमस्ते"))


def _edited(data: dict[str, Any], change: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    data = json.loads(json.dumps(data))
    change(data)
    return data


def _swap_ids(d: dict[str, Any]) -> None:
    a, b = list(d["vocab"])[5:7]
    d["vocab"][a], d["vocab"][b] = d["vocab"][b], d["vocab"][a]


# Each makes a file the native reader must decline or read exactly as Python does.
CHANGES: dict[str, Callable[[dict[str, Any]], Any]] = {
    "ids not 0..n-1": lambda d: d["vocab"].update({"extra": 10**6}),
    "an id given twice": lambda d: d["vocab"].update({"extra": 7}),
    "a float id": lambda d: d["vocab"].update({"[PAD]": 0.0}),
    "a negative id": lambda d: d["vocab"].update({"[PAD]": -1}),
    "a bool id": lambda d: d["vocab"].update({"[PAD]": False}),
    "a huge id": lambda d: d["vocab"].update({"[PAD]": 2**70}),
    "vocab a list": lambda d: d.update(vocab=[1, 2]),
    "no vocab": lambda d: d.pop("vocab"),
    "no merges": lambda d: d.pop("merges"),
    "merges an object": lambda d: d.update(merges={}),
    "a merge of three": lambda d: d["merges"].append(["a", "b", "c"]),
    "a merge of a number": lambda d: d["merges"].append(["a", 1]),
    "a merge's part missing": lambda d: d["merges"].append(["nope", "x"]),
    "a merge's result missing": lambda d: d["merges"].append(["[PAD]", "[UNK]"]),
    "merge_counts not aligned": lambda d: d.update(merge_counts=[1]),
    "merge_counts negative": lambda d: d.update(merge_counts=[-1] * len(d["merges"])),
    "merge_counts a bool": lambda d: d.update(merge_counts=[True] * len(d["merges"])),
    "vocab_size wrong": lambda d: d.update(vocab_size=5),
    "a special token missing": lambda d: d["special_tokens"].append("[NOPE]"),
    "an ASCII character missing": lambda d: d["vocab"].pop("a"),
    "format": lambda d: d.update(format="other"),
    "format_version": lambda d: d.update(format_version=99),
    "model bytebpe": lambda d: d.update(model="bytebpe"),
    "model a number": lambda d: d.update(model=3),
    "oov_policy": lambda d: d.update(oov_policy="maybe"),
    "mode": lambda d: d.update(mode="other"),
    "script": lambda d: d.update(scripts="klingon"),
    "pieces": lambda d: d.update(pieces="letters"),
    "leading_space a string": lambda d: d.update(leading_space="yes"),
    "training a list": lambda d: d.update(training=[1]),
    "max_piece_units 0": lambda d: d.update(max_piece_units=0),
    "superwords with script pieces": lambda d: d.update(superwords_from=10, pieces="script"),
    "ids in another order (valid)": _swap_ids,
    "vocab keys reversed (valid)": lambda d: d.update(vocab=dict(reversed(d["vocab"].items()))),
    "no merge_counts (valid)": lambda d: d.pop("merge_counts", None),
    "extra keys (valid)": lambda d: d.update(note={"x": [1.5, None, "y", 2**70]}),
}


@pytest.mark.parametrize("name", sorted(CHANGES))
@pytest.mark.parametrize("base", SHIPPED, ids=lambda p: p.name)
def test_every_change_gives_what_the_python_reader_gives(tmp_path, base, name):
    path = tmp_path / "vocab.json"
    data = _edited(read_json(base), CHANGES[name])
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    native, python = _outcome(path, "native"), _outcome(path, "python")
    assert native == python
    assert (native[0] == "ok") == name.endswith("(valid)")
    if native[0] == "ok":  # the native reader read it (it did not decline)
        assert sgpe.load(path)._file is not None


# Texts JSON (or UTF-8) that Python and serde_json may take differently: the native reader
# must decline each, or read it as Python does.
RAW = {
    "NaN in training": lambda t: t.replace('"training": {', '"training": {"x": NaN, ', 1),
    "a lone surrogate token": lambda t: t.replace('"vocab": {', '"vocab": {"\\ud800": 99999, ', 1),
    "a key given twice (the last counts)": lambda t: t.replace('"oov_policy"', '"oov_policy": "x", "oov_policy"', 1),
    "vocab given twice": lambda t: t.replace('"vocab": {', '"vocab": {"a": 0}, "vocab": {', 1),
    "a token given twice": lambda t: t.replace('"vocab": {', '"vocab": {"[PAD]": 0, ', 1),
    "a UTF-8 BOM": lambda t: "\ufeff" + t,
    "trailing text": lambda t: t + "x",
    "a top-level list": lambda t: "[" + t + "]",
    "deep nesting": lambda t: t.replace('"training": {', '"training": {"x": ' + "[" * 5000 + "]" * 5000 + ", ", 1),
    "a number beyond a float": lambda t: t.replace('"training": {', '"training": {"x": 1e400, ', 1),
    "escaped tokens": lambda t: t.replace('"vocab": {"[PAD]"', '"vocab": {"\\u005bPAD]"', 1),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(RAW))
def test_texts_python_and_serde_may_read_differently(tmp_path, name):
    path = tmp_path / "vocab.json"
    text = json.dumps(read_json(shipped.DEFAULT_SGPE), ensure_ascii=False)
    path.write_text(RAW[name](text), encoding="utf-8")
    assert _outcome(path, "native") == _outcome(path, "python")


def test_bytes_that_are_not_utf8_or_not_a_file(tmp_path):
    path = tmp_path / "vocab.json"
    path.write_bytes(shipped.DEFAULT_SGPE.read_bytes().replace(b'"[PAD]"', b'"[\xff]"', 1))
    assert _outcome(path, "native") == _outcome(path, "python")
    assert _outcome(path, "native")[1].startswith(f"{path}: not UTF-8 text")
    missing = tmp_path / "missing.json"
    assert _outcome(missing, "native") == _outcome(missing, "python")


def test_a_superword_vocabulary_encodes_real_text_alike(tmp_path, shared_corpora):
    """A hierarchical vocabulary with superwords trained on real text: loaded by the native
    reader, the same tokenizer and the same ids on si_dev.txt as the Python reader's,
    under either engine, and loading and encoding do not make the Python tables."""
    with open(shared_corpora / "si_train.txt", encoding="utf-8") as f:
        train = [next(f) for _ in range(3000)]
    path = tmp_path / "vocab.json"
    sgpe.train(train, vocab_size=6000, superwords_from=5000).save(path)
    dev = (shared_corpora / "si_dev.txt").read_text(encoding="utf-8").split("\n")[:2000]
    loaded = sgpe.load(path)
    ids = loaded.encode_batch(dev)
    assert [loaded.encode(t) for t in dev[:200]] == ids[:200]
    assert "_vocab" not in loaded.__dict__ and "merges" not in loaded.__dict__
    reference = Tokenizer._from_dict(read_json(path), str(path))
    assert list(loaded.vocab.items()) == list(reference.vocab.items())
    assert loaded.merges == reference.merges and loaded.to_dict() == reference.to_dict()
    with engine_set_to("python"):
        python = sgpe.load(path)
        assert [python.encode(t) for t in dev] == ids
    assert loaded.merge_trace(dev[0]) == python.merge_trace(dev[0])
    assert loaded.decode(ids[1]) == dev[1]

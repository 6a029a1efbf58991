"""Hugging Face tokenizer folders (``sgpe/interop/hf_folder.py``): written by sgpe, loaded by
``transformers.AutoTokenizer``, read back by sgpe.

Evidence:

* every shipped vocabulary (``sample_data/vocab``) and two trained here on the real
  training text give, through ``AutoTokenizer.from_pretrained(DIR)``, exactly sgpe's ids
  and decoded text on the real corpora (the first lines of every dev file and ``multi/``
  file here; every line under ``--runslow``, the same check as ``python -m bench
  hf-folder``), pad a batch with the pad token's id, and keep their ids through
  ``save_pretrained``;
* the special-token presets and overrides, ``model_max_length``, byte-identical exports;
* reading a folder back (``sgpe.load``, ``load_hf_folder``), and the
  refusals: a folder sgpe did not write, one re-saved by transformers, a changed file, a
  newer format, a directory that is not empty.

Expectations marked "transformers 5.24" were observed with transformers 5.24.0 and
tokenizers 0.23.3 (the versions the dev extra installed when they were written).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import sgpe
from bench import hf_folder as hf_bench
from sgpe.interop.hf import ExportError, save_hf
from sgpe.interop.hf_folder import (
    CONFIG_FILE,
    FILES,
    VOCAB_FILE,
    hf_folder_files,
    load_hf_folder,
    save_hf_folder,
    special_token_roles,
)

os.environ["HF_HUB_OFFLINE"] = "1"  # every load below is from a local folder
transformers = pytest.importorskip("transformers")

REPO_ROOT = Path(__file__).resolve().parents[1]
SHIPPED = REPO_ROOT / "sample_data" / "vocab"
FAST_LINES = 40  # lines per corpus file in the default suite (every line with --runslow)


def auto(folder: Path, **kwargs: Any) -> Any:
    return transformers.AutoTokenizer.from_pretrained(str(folder), **kwargs)


# ============================================================================ fixtures


@pytest.fixture(scope="module")
def vocabularies(shared_corpora: Path) -> dict[str, Any]:
    """The shipped vocabularies and the bench's two fresh ones (trained on real text)."""
    out = {name: sgpe.load(SHIPPED / f"{name}.json") for name in hf_bench.SHIPPED}
    for name in hf_bench.FRESH:
        out[name] = hf_bench.fresh_vocabulary(shared_corpora, name)
    return out


@pytest.fixture(scope="module")
def shipped_folders(tmp_path_factory: Any) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("folders")
    return {
        name: save_hf_folder(sgpe.load(SHIPPED / f"{name}.json"), root / name)
        for name in hf_bench.SHIPPED
    }


# ============================================================================ real corpora


def assert_all_zero(rows: list[Any], expected_lines: dict[str, int]) -> None:
    for row in rows:
        assert row.lines == expected_lines[row.file], row
        assert (row.ids, row.decode, row.resaved, row.padding) == (0, 0, 0, 0), row


def lines_per_file(files: list[Path], limit: int | None) -> dict[str, int]:
    from sgpe._text import read_lines

    out = {}
    for path in files:
        n = sum(1 for _ in read_lines(path))
        name = path.name if path.parent.name != "multi" else f"multi/{path.name}"
        out[name] = n if limit is None else min(n, limit)
    return out


@pytest.mark.parametrize("name", [*hf_bench.SHIPPED, *hf_bench.FRESH])
def test_folder_matches_sgpe_on_the_first_lines_of_every_corpus_file(
    shared_corpora, vocabularies, tmp_path, name
):
    files = hf_bench.corpus_files(shared_corpora)
    assert (
        len(files) == 17
    )  # 3 dev files + 14 multi/ files, Thai and Lao among them (SOURCES.md lists them)
    rows = hf_bench.check_vocabulary(vocabularies[name], files, tmp_path, FAST_LINES)
    assert_all_zero(rows, lines_per_file(files, FAST_LINES))
    lossless = name != "fresh_hier_unk_8k"
    assert all(row.text == 0 for row in rows) == lossless


@pytest.mark.slow
@pytest.mark.parametrize("name", [*hf_bench.SHIPPED, *hf_bench.FRESH])
def test_folder_matches_sgpe_on_every_line_of_every_corpus_file(
    shared_corpora, vocabularies, tmp_path, name
):
    files = hf_bench.corpus_files(shared_corpora)
    expected = lines_per_file(files, None)
    assert sum(expected.values()) == 100_701  # 5,303 dev lines + 95,398 multi/ lines
    rows = hf_bench.check_vocabulary(vocabularies[name], files, tmp_path)
    assert_all_zero(rows, expected)
    if name != "fresh_hier_unk_8k":
        assert all(row.text == 0 for row in rows)


# ============================================================================ what transformers sees


def test_shipped_folders_load_with_the_roles_of_their_presets(shipped_folders):
    hier = auto(shipped_folders["sgpe_4k"])
    assert isinstance(hier, transformers.PreTrainedTokenizerFast)
    roles = (hier.unk_token, hier.pad_token, hier.cls_token, hier.sep_token, hier.mask_token)
    assert roles == ("[UNK]", "[PAD]", "[CLS]", "[SEP]", "[MASK]")
    assert (hier.unk_token_id, hier.pad_token_id, hier.cls_token_id) == (1, 0, 2)
    assert (hier.sep_token_id, hier.mask_token_id) == (3, 4)
    assert hier.bos_token is None and hier.eos_token is None
    byte = auto(shipped_folders["bytebpe_4k"])
    assert byte.eos_token == byte.bos_token == byte.pad_token == "<|endoftext|>"
    assert byte.pad_token_id == 3999
    # transformers 5.24: no model_max_length in the config -> VERY_LARGE_INTEGER, int(1e30).
    assert hier.model_max_length == int(1e30)
    assert hier.clean_up_tokenization_spaces is False


def test_padding_uses_the_pad_id_on_shipped_vocabularies(shipped_folders):
    texts = ["ශ්‍රී ලංකා", "नमस्ते दुनिया , .", ""]
    for name, folder in shipped_folders.items():
        tok = sgpe.load(SHIPPED / f"{name}.json")
        hf = auto(folder)
        batch = hf(texts, padding=True)
        ours = [tok.encode(t) for t in texts]
        width = max(map(len, ours))
        pad = tok.token_to_id("[PAD]") if name.startswith("sgpe") else tok.eot_id
        assert batch["input_ids"] == [ids + [pad] * (width - len(ids)) for ids in ours], name
        assert batch["attention_mask"] == [
            [1] * len(ids) + [0] * (width - len(ids)) for ids in ours
        ]
        assert [hf.decode(ids) for ids in ours] == texts


def test_causal_preset_and_overrides(tmp_path):
    tok = sgpe.load(SHIPPED / "sgpe_4k.json")
    folder = save_hf_folder(
        tok, tmp_path / "causal", special_tokens="causal", overrides={"unk_token": None}
    )
    hf = auto(folder)
    assert (hf.bos_token, hf.bos_token_id, hf.eos_token, hf.eos_token_id) == (
        "[CLS]",
        2,
        "[SEP]",
        3,
    )
    assert hf.unk_token is None and hf.pad_token_id == 0 and hf.mask_token is None
    config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert config["tokenizer_class"] == "PreTrainedTokenizerFast"
    assert {k for k in config if k.endswith("_token")} == {"pad_token", "bos_token", "eos_token"}
    assert json.loads((folder / "special_tokens_map.json").read_text(encoding="utf-8")) == {
        "pad_token": "[PAD]",
        "bos_token": "[CLS]",
        "eos_token": "[SEP]",
    }
    assert special_token_roles(tok, "masked", {"pad_token": "[MASK]"})["pad_token"] == "[MASK]"


@pytest.mark.parametrize(
    ("vocab", "preset", "overrides", "message"),
    [
        ("sgpe_4k", "masked", {"eos_token": "</s>"}, r"eos_token \(--eos-token\) '</s>' given is not a special token of this vocabulary \(\[PAD\], \[UNK\]"),
        ("sgpe_4k", "masked", {"pad_token": "ශ්‍රී"}, "is not a special token"),
        ("sgpe_4k", "masked", {"bos": "[CLS]"}, "unknown special token role 'bos'"),
        ("sgpe_4k", "gpt", {}, "preset 'gpt': choose auto, masked or causal"),
        ("bytebpe_4k", "masked", {}, r"one special token, <\|endoftext\|>, and no \[MASK\]; use the causal preset"),
    ],
)  # fmt: skip
def test_bad_special_tokens_are_refused_before_anything_is_written(
    tmp_path, vocab, preset, overrides, message
):
    tok = sgpe.load(SHIPPED / f"{vocab}.json")
    with pytest.raises(ExportError, match=message):
        save_hf_folder(tok, tmp_path / "out", special_tokens=preset, overrides=overrides)
    assert list(tmp_path.iterdir()) == []


def test_model_max_length_is_written_and_truncates(tmp_path):
    tok = sgpe.load(SHIPPED / "sgpe_paper_4k.json")
    folder = save_hf_folder(tok, tmp_path / "f", model_max_length=8)
    hf = auto(folder)
    assert hf.model_max_length == 8
    text = "ශ්‍රී ලංකා ප්‍රජාතාන්ත්‍රික සමාජවාදී ජනරජය " * 3
    assert len(tok.encode(text)) > 8
    assert hf(text, truncation=True)["input_ids"] == tok.encode(text)[:8]
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ExportError, match="model_max_length must be a positive integer"):
            hf_folder_files(tok, model_max_length=bad)


def test_cls_sep_folder_wraps_ids_when_adding_special_tokens(tmp_path):
    tok = sgpe.load(SHIPPED / "sgpe_4k.json")
    hf = auto(save_hf_folder(tok, tmp_path / "f", cls_sep=True))
    text = "ශ්‍රී ලංකා"
    assert hf(text)["input_ids"] == [2, *tok.encode(text), 3]
    assert hf(text, add_special_tokens=False)["input_ids"] == tok.encode(text)


# ============================================================================ the files


def test_export_is_byte_identical_and_records_every_file(tmp_path):
    tok = sgpe.load(SHIPPED / "sgpe_4k.json")
    one = save_hf_folder(tok, tmp_path / "one")
    two = save_hf_folder(tok, tmp_path / "two")
    assert sorted(p.name for p in one.iterdir()) == sorted(FILES)
    for name in FILES:
        assert (one / name).read_bytes() == (two / name).read_bytes(), name
    assert (one / VOCAB_FILE).read_bytes() == (SHIPPED / "sgpe_4k.json").read_bytes()
    config = json.loads((one / CONFIG_FILE).read_text(encoding="utf-8"))
    assert config["format"] == "sgpe-hf-folder" and config["format_version"] == 1
    assert config["training"]["sha256"] == (
        "e9426d0d0f743a45bacb351989af4f80639957ac47a5d46d49fa237ad50ec97e"
    )
    assert config["settings"]["mode"] == "hierarchical" and config["settings"]["vocab_size"] == 4000
    assert sorted(config["files"]) == sorted(set(FILES) - {CONFIG_FILE})
    card = (one / "README.md").read_text(encoding="utf-8")
    assert (
        "| Corpus sha256 | `e9426d0d0f743a45bacb351989af4f80639957ac47a5d46d49fa237ad50ec97e` |"
        in card
    )
    assert "| Vocabulary size | 4,000 (3,566 merges) |" in card
    assert "AutoTokenizer.from_pretrained" in card


def test_model_card_says_unknown_when_the_vocabulary_records_no_corpus(tmp_path):
    tok = sgpe.load(SHIPPED / "bytebpe_4k.json")  # records the corpus name, not its sha256
    card = hf_folder_files(tok)["README.md"].decode("utf-8")
    assert "| Corpus sha256 | unknown (the vocabulary does not record it) |" in card
    assert "| Training corpus | sample_data: sinhala.txt, hindi.txt, mixed.txt |" in card


def test_a_freshly_trained_vocabulary_records_its_documents_sha256(vocabularies, tmp_path):
    tok = vocabularies["fresh_hier_8k"]
    folder = save_hf_folder(tok, tmp_path / "f")
    config = json.loads((folder / CONFIG_FILE).read_text(encoding="utf-8"))
    assert config["training"]["lines"] == 2 * hf_bench.TRAIN_LINES
    assert len(config["training"]["sha256"]) == 64
    assert f"`{config['training']['sha256']}`" in (folder / "README.md").read_text(encoding="utf-8")


# ============================================================================ reading back


@pytest.mark.parametrize("name", hf_bench.SHIPPED)
def test_sgpe_reads_its_folder_back(shipped_folders, name):
    original = sgpe.load(SHIPPED / f"{name}.json")
    back = sgpe.load(shipped_folders[name])
    assert type(back) is type(original)
    assert back.to_dict() == original.to_dict()
    assert load_hf_folder(shipped_folders[name]).to_dict() == original.to_dict()


def test_reading_a_folder_imports_neither_transformers_nor_tokenizers(shipped_folders):
    code = (
        "import sys, sgpe; t = sgpe.load(sys.argv[1]); "
        "print(t.vocab_size, 'tokenizers' in sys.modules, 'transformers' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(shipped_folders["sgpe_4k"])],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert done.stdout.split() == ["4000", "False", "False"]


def test_a_folder_resaved_by_transformers_is_refused_with_its_origin(shipped_folders, tmp_path):
    hf = auto(shipped_folders["sgpe_4k"])
    hf.save_pretrained(str(tmp_path / "resaved"))
    # transformers 5.24 keeps tokenizer.json and tokenizer_config.json (with our sgpe key) only.
    assert CONFIG_FILE not in {p.name for p in (tmp_path / "resaved").iterdir()}
    with pytest.raises(
        ValueError,
        match=r"no sgpe_config.json; its tokenizer_config.json names an SGPE vocabulary \(sha256 f1b8b6aa414e\.\.\.\), so this folder was probably re-saved by transformers",
    ):
        sgpe.load(tmp_path / "resaved")


def test_folders_sgpe_did_not_write_are_refused(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    save_hf(sgpe.load(SHIPPED / "sgpe_4k.json"), plain / "tokenizer.json")
    with pytest.raises(
        ValueError,
        match=r"plain: a Hugging Face tokenizer folder that sgpe did not write \(no sgpe_config.json\); sgpe reads the folders python -m sgpe export --out DIR/ writes",
    ):
        load_hf_folder(plain)
    (tmp_path / "empty").mkdir()
    with pytest.raises(
        ValueError,
        match=r"empty: not a tokenizer folder \(no sgpe_config.json, no tokenizer.json\)",
    ):
        sgpe.load(tmp_path / "empty")
    with pytest.raises(ValueError, match="not a directory"):
        load_hf_folder(tmp_path / "missing")


def test_changed_or_newer_folders_are_refused(shipped_folders, tmp_path):
    tok = sgpe.load(SHIPPED / "sgpe_paper_4k.json")
    folder = save_hf_folder(tok, tmp_path / "f")
    data = (folder / "tokenizer.json").read_bytes()
    (folder / "tokenizer.json").write_bytes(data.replace(b'"[UNK]"', b'"[UNKNOWN]"', 1))
    with pytest.raises(
        ValueError,
        match=r"tokenizer.json: changed since sgpe wrote the folder \(sha256 .*\), so its ids may no longer be sgpe's; export the folder again",
    ):
        sgpe.load(folder)
    folder = save_hf_folder(tok, tmp_path / "g")
    (folder / "tokenizer.json").unlink()
    with pytest.raises(ValueError, match=r"tokenizer\.json: missing; the folder is incomplete"):
        sgpe.load(folder)
    folder = save_hf_folder(tok, tmp_path / "h")
    config = json.loads((folder / CONFIG_FILE).read_text(encoding="utf-8"))
    (folder / CONFIG_FILE).write_text(json.dumps({**config, "format_version": 2}))
    with pytest.raises(
        ValueError, match="key 'format_version' is 2; this version of sgpe reads format_version 1"
    ):
        sgpe.load(folder)
    (folder / CONFIG_FILE).write_text(json.dumps({**config, "format": "other"}))
    with pytest.raises(ValueError, match="key 'format' must be 'sgpe-hf-folder'"):
        sgpe.load(folder)


# ============================================================================ writing safely


def test_an_export_replaces_only_its_own_folder(tmp_path):
    tok = sgpe.load(SHIPPED / "sgpe_4k.json")
    folder = save_hf_folder(tok, tmp_path / "f")
    save_hf_folder(tok, folder, special_tokens="causal")  # replaced whole
    assert auto(folder).eos_token == "[SEP]"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f"]  # no temp or old folder left
    (folder / "notes.txt").write_text("mine")
    with pytest.raises(
        ValueError, match=r"not empty and not a tokenizer folder sgpe wrote \(it holds notes\.txt\)"
    ):
        save_hf_folder(tok, folder)
    assert (folder / "notes.txt").read_text() == "mine"
    other = tmp_path / "other"
    other.mkdir()
    (other / "tokenizer.json").write_text("{}")
    with pytest.raises(ValueError, match="not empty and not a tokenizer folder sgpe wrote"):
        save_hf_folder(tok, other)
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="exists and is not a directory"):
        save_hf_folder(tok, tmp_path / "file")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert sorted(p.name for p in save_hf_folder(tok, empty).iterdir()) == sorted(FILES)
    nested = save_hf_folder(tok, tmp_path / "a" / "b")
    assert load_hf_folder(nested).to_dict() == tok.to_dict()


def test_an_export_under_a_file_leaves_nothing(tmp_path):
    tok = sgpe.load(SHIPPED / "sgpe_4k.json")
    (tmp_path / "file").write_text("x")
    with pytest.raises(OSError):
        save_hf_folder(tok, tmp_path / "file" / "f")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]

"""Schema files: the built-in ones load, and the loader names what is wrong with a bad one."""

from __future__ import annotations

import copy
import json
from importlib import resources

import pytest

from sgpe.schema import (
    BUILTIN_SCRIPTS,
    SchemaError,
    load_schema,
    load_schema_file,
    parse_schema,
)


def _builtin(name: str) -> dict:
    return json.loads(
        resources.files("sgpe.schemas").joinpath(f"{name}.json").read_text(encoding="utf-8")
    )


@pytest.mark.parametrize("name", ["sinhala", "devanagari"])
def test_builtin_schemas_load(name):
    schema = load_schema(name)
    assert schema.classify("ක" if name == "sinhala" else "क") == "C"
    assert schema.classify("a") == "O"


@pytest.mark.parametrize("name", BUILTIN_SCRIPTS)
def test_builtin_schemas_pass_the_full_check(name):
    """load_schema skips compiling a built-in grammar (parse_schema's ``builtin``): the
    full check, compile included, passes on every shipped schema and gives the same one."""
    assert parse_schema(_builtin(name), f"sgpe/schemas/{name}.json") == load_schema(name)


def test_sinhala_classes_match_the_paper():
    s = load_schema("sinhala")
    sizes = {k: len(v) for k, v in s.classes.items()}
    assert sizes == {"C": 45, "V": 18, "P": 19, "H": 1, "Z": 1, "M": 2}  # as in the SGPE paper: 86
    assert sum(sizes.values()) == 86


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(format_version=2), "format_version"),
        (lambda d: d["classes"].update(Q={"ranges": [["0041", "0041"]]}), "unknown class letter"),
        (lambda d: d["classes"]["V"]["ranges"].append(["0D9A", "0D9A"]), "already in class C"),
        (lambda d: d["classes"]["C"].update(ranges=[["0DC6", "0D9A"]]), "is after last"),
        (lambda d: d["classes"]["C"].update(ranges=[["zz", "0D9A"]]), "hex code point"),
        (lambda d: d["grammar"].update(syllable="C[HZ]"), "may use only class letters"),
        (lambda d: d["grammar"].update(syllable="CX"), "which 'classes' does not define"),
        (lambda d: d["grammar"].update(syllable="C(?:H"), "not a valid regular expression"),
        (lambda d: d["dfa"]["transitions"]["START"].update(C="NOWHERE"), "not a state"),
        (lambda d: d["dfa"].update(start="NOPE"), "dfa.start"),
        (lambda d: d["dfa"]["accept"].append("START"), "must not accept"),
        (lambda d: d.update(word_chars=[["0D80", "0D81"]]), "word_chars must contain"),
        (
            lambda d: d["units"].append(
                {"class": "P", "sequence": ["0DCA", "0DCF"], "equivalent": "0DDC"}
            ),
            "start with a character of its own class",
        ),
        (lambda d: d.pop("grammar"), "missing key 'grammar'"),
    ],
)
def test_bad_schema_is_explained(change, message):
    data = copy.deepcopy(_builtin("sinhala"))
    change(data)
    with pytest.raises(SchemaError, match=message):
        parse_schema(data, "test.json")


def test_schema_file_errors_name_the_file(tmp_path):
    path = tmp_path / "s.json"
    path.write_text("{", encoding="utf-8")
    with pytest.raises(SchemaError, match=r"s\.json: not valid JSON"):
        load_schema_file(path)


def test_unknown_script():
    with pytest.raises(ValueError, match="unknown script 'javanese'"):
        load_schema("javanese")


def _pre_base_inside(d):
    d["dfa"]["transitions"]["CONSONANT_OR_STANDALONE"]["L"] = "PRE_BASE_VOWEL"


def _pre_base_accepts(d):
    d["dfa"]["orphan_states"].remove("PRE_BASE_VOWEL")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (_pre_base_inside, r"CONSONANT_OR_STANDALONE\.L reads a pre-base vowel inside"),
        (_pre_base_accepts, "accepts a syllable that ends in its pre-base vowel"),
    ],
)
def test_bad_pre_base_vowel_is_explained(change, message):
    """A pre-base vowel (class L) belongs to the consonant after it: a DFA that reads one
    inside a syllable, or ends a syllable on one, is refused with the reason."""
    data = copy.deepcopy(_builtin("thai"))
    parse_schema(data, "test.json")  # the shipped one is fine
    change(data)
    with pytest.raises(SchemaError, match=message):
        parse_schema(data, "test.json")


@pytest.mark.parametrize(
    ("script", "text", "expected"),
    [
        # TCC rules: the pre-base vowel goes with the consonant after it; ั with a tone,
        # ึ ื, เ–็, เ–ิ take the final; เ–ีย its ย; ์ silences consonants of the cluster.
        ("thai", "เปลี่ยน", ["เปลี่ย", "น"]),
        ("thai", "กั้น กัน", ["กั้น", " ", "กั", "น"]),
        ("thai", "เก็บมือถึง", ["เก็บ", "มือ", "ถึง"]),
        ("thai", "ศาสตร์", ["ศาสตร์"]),
        ("thai", "ไม่เกาะ", ["ไม่", "เกาะ"]),
        ("thai", "เa", ["เ", "a"]),  # a pre-base vowel with no consonant: an orphan
        ("lao", "ເມືອງ", ["ເມື", "ອ", "ງ"]),
        ("lao", "ຫຼາຍນ້ຳ", ["ຫຼາ", "ຍ", "ນ້ຳ"]),
    ],
)
def test_pre_base_vowel_starts_the_unit(script, text, expected):
    from sgpe.syllables import syllabify, syllabify_dfa

    assert syllabify(text, script) == expected
    assert syllabify_dfa(text, script) == expected
    assert syllabify(text) == expected  # auto-detection finds the script

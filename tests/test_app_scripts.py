"""The app with every script (AppTest, no browser): the Syllables page names the scripts
and says which characters it has no grammar for; the Grammar page shows a schema whole and
takes a linguist's own, validated, tried on text at once."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import pytest

pytest.importorskip("streamlit", reason="streamlit not installed: pip install -e '.[app]'")

from test_app import html_bodies, open_page, span_texts

from sgpe import syllabify
from sgpe.schema import BUILTIN_SCRIPTS, load_schema
from sgpe_explorer.ui.grammar import EXAMPLES, dfa_dot, unknown_characters

TAMIL_BENGALI = "அம்மா க்ஷேத்திரம் অ্যাপ উৎসব"
JAVANESE = "ꦧꦱꦗꦮ"  # "Javanese language", in a script SGPE has no grammar for (Thai has one)


def _tamil_json() -> dict[str, Any]:
    text = resources.files("sgpe.schemas").joinpath("tamil.json").read_text(encoding="utf-8")
    return json.loads(text)


def test_syllables_page_segments_tamil_and_bengali_and_names_the_scripts() -> None:
    at = open_page("syllables.py", text=TAMIL_BENGALI)
    body = next(b for b in html_bodies(at) if 'class="sgpe-box sgpe-syllables' in b)
    assert span_texts(body, "syl") == syllabify(TAMIL_BENGALI)
    assert span_texts(body, "syl")[:3] == ["அ", "ம்", "மா"]
    captions = " ".join(c.value for c in at.caption)
    for name in BUILTIN_SCRIPTS:
        assert load_schema(name).title in captions
    assert not at.warning


def test_text_in_an_unknown_script_gets_a_notice_naming_its_characters() -> None:
    at = open_page("syllables.py", text=f"{JAVANESE} and ශ්‍රී")
    notices = [w.value for w in at.warning]
    assert len(notices) == 1
    assert "**Javanese**" in notices[0] and f"{len(JAVANESE)} characters" in notices[0]
    for ch in set(JAVANESE):
        assert ch in notices[0]


def test_unknown_characters_leave_out_latin_and_punctuation() -> None:
    from sgpe import syllable_spans

    text = f"abc, 12 {JAVANESE} ক"
    found = unknown_characters(text, syllable_spans(text))
    assert found == [("Javanese", "".join(sorted(set(JAVANESE))), len(JAVANESE))]


@pytest.mark.parametrize(
    "script", ["tamil", "bengali", "malayalam", "sinhala", "myanmar", "thai", "lao"]
)
def test_grammar_page_shows_classes_automaton_and_trace(script: str) -> None:
    at = open_page("grammar.py")
    at.selectbox(key="gr_script").set_value(script).run()
    schema = load_schema(script)
    classes = at.dataframe[0].value
    assert list(classes["class"]) == list(schema.classes)
    assert list(classes["size"]) == [len(v) for v in schema.classes.values()]
    first_consonant = min(schema.classes["C"])
    members = classes.set_index("class").loc["C", "members"]
    assert f"{first_consonant} U+{ord(first_consonant):04X}" in members
    assert [c.value for c in at.code][:2] == [schema.syllable_grammar, schema.orphan_grammar]
    assert at.get("graphviz_chart")[0].proto.spec == dfa_dot(schema)
    trace = at.dataframe[-1].value
    words = EXAMPLES[script]
    assert len(trace) == len(words)
    assert trace["syllable #"].max() + 1 == len(syllabify(words, script))


def test_dfa_dot_lists_every_state_and_edge() -> None:
    schema = load_schema("tamil")
    dot = dfa_dot(schema)
    for state in schema.dfa:
        assert f'"{state}" [shape=' in dot
    assert '"HALANT" -> "HALANT_ZWJ" [label="Z"];' in dot
    assert '"START" -> "ORPHAN" [label="P,H,M"];' in dot


def test_own_schema_is_validated_with_the_key_and_reason() -> None:
    at = open_page("grammar.py")
    at.selectbox(key="gr_script").set_value("tamil").run()  # it opens on the text's script
    area = at.text_area(key="gr_json_tamil_tamil.json (edited)")
    broken = _tamil_json()
    broken["grammar"]["syllable"] = "(?:C|V)Q"
    area.set_value(json.dumps(broken, ensure_ascii=False)).run()
    assert [e.value for e in at.error] == [
        "This schema is not valid: tamil.json (edited): grammar.syllable: grammar uses class "
        "'Q', which 'classes' does not define"
    ]
    area.set_value("{ not json").run()
    assert "not valid JSON (line 1, column 3: " in at.error[0].value


def test_own_schema_changes_the_syllables_at_once() -> None:
    """A Tamil schema with conjuncts (the Devanagari-style loop) joins அம்மா's ம்மா."""
    at = open_page("grammar.py")
    at.selectbox(key="gr_script").set_value("tamil").run()  # it opens on the text's script
    mine = _tamil_json()
    mine["name"] = "tamil-conjuncts"
    mine["grammar"]["syllable"] = "(?:C|V)Z?(?:HZ?CZ?)*(?:H(?:Z|X)?|P)?M*(?:Z|X)?|DM*(?:Z|X)?"
    mine["dfa"]["transitions"]["HALANT"]["C"] = "CONSONANT"
    at.text_area(key="gr_sample_tamil").set_value("அம்மா").run()
    at.text_area(key="gr_json_tamil_tamil.json (edited)").set_value(
        json.dumps(mine, ensure_ascii=False)
    ).run()
    assert not at.error
    assert at.success[0].value.startswith("Valid schema 'tamil-conjuncts'")
    bodies = [b for b in html_bodies(at) if 'class="sgpe-box sgpe-syllables' in b]
    assert span_texts(bodies[-2], "syl") == ["அ", "ம்மா"]  # yours
    assert span_texts(bodies[-1], "syl") == ["அ", "ம்", "மா"]  # the built-in
    assert at.get("download_button")[0].proto.label == "Download this schema"


def test_compare_says_when_the_vocabulary_has_not_seen_the_script() -> None:
    at = open_page("compare.py", text=TAMIL_BENGALI)
    notes = [i.value for i in at.info]
    assert any("without any Bengali–Assamese, Tamil text" in n for n in notes), notes
    at = open_page("compare.py", text="ශ්‍රී ලංකාව")
    assert not any("without any" in i.value for i in at.info)

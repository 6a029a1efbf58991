"""What the pages keep and what they say when a vocabulary changes under them, under
``streamlit.testing.v1.AppTest`` (docs/app.md, section 8a; the browser side is
tests/test_browser_state.py):

* a chosen run that is deleted, or named by a link but absent, is said on the page,
  with what is used instead;
* the "auto" baseline follows the shipped vocabulary that stands in for a damaged run,
  and Evaluate says when its two columns were not trained alike;
* an edit of Merges' excerpt is the text of every page, and the longer text can be
  brought back;
* a text too long for the link comes back after a reload, for its visitor only;
* words and charts: singular counts, whole-number ticks, log axes, no empty cells.

Runs go to a temporary ``SGPE_RUNS_DIR`` (the autouse fixture of tests/test_app.py); a
visitor's owner key is set in the session, as the cookie would (tests/test_app_words.py).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("streamlit", reason="streamlit not installed: pip install -e '.[app]'")
from streamlit.testing.v1 import AppTest

# The fixtures of tests/test_app.py: runs in a temporary SGPE_RUNS_DIR (autouse).
from test_app import APP, TIMEOUT, open_page, runs_dir  # noqa: F401

import sgpe
from sgpe import shipped as defaults

KEY_A = "0123456789abcdef" * 2
KEY_B = "fedcba9876543210" * 2
LINE = "අද උදේ පාසලට යන විට මහ වැස්සක් ඇද හැලුණා.\n"


def _trained(runs: Path, model: str, size: int = 600, owner: str | None = None) -> Any:
    from sgpe_explorer.runs.manager import RunManager, RunRequest

    manager = RunManager(runs)
    run = manager.start(
        RunRequest(defaults.SAMPLE_DATA / "sinhala.txt", vocab_size=size, model=model, owner=owner)
    )
    assert manager.wait(run, timeout=60).state == "done"
    return run


def _main_warnings(at: AppTest) -> list[str]:
    """The page's warnings about the vocabularies in use (not the sidebar's, nor a form's)."""
    shown = [w.value.replace("\\", "") for w in at.main.warning]
    return [w for w in shown if "you chose" in w or w.startswith("Run ")]


# ============================================================================ item 3


def test_a_chosen_run_deleted_elsewhere_is_said_on_the_next_page(runs_dir: Path) -> None:
    """Visitor B uses a run's vocabulary and its baseline on the Train page; the runs are
    then deleted (by their owner, elsewhere). B's next action says which vocabulary is
    gone and what is used instead, on the page itself, until B says OK."""
    # a baseline of another size: "auto" does not take it, so B uses it by name
    from test_app_words import KEY, ME

    from sgpe_explorer.runs.manager import RunManager

    # B's own runs: a run without an owner sits in a collapsed read-only section.
    sgpe_run = _trained(runs_dir, "sgpe", owner=ME)
    base_run = _trained(runs_dir, "bytebpe", 650, owner=ME)
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state["owner_key"] = KEY
    at.run()
    at.switch_page("app_pages/train.py").run()
    at.button(key=f"use_{sgpe_run.id}").click().run()
    at.button(key=f"use_{base_run.id}").click().run()
    assert at.sidebar.selectbox(key="side_tok").value == sgpe_run.id
    assert at.sidebar.selectbox(key="side_base").value == base_run.id
    assert not _main_warnings(at)
    for run in (sgpe_run, base_run):
        RunManager(runs_dir).delete(run.id)

    at.switch_page("app_pages/compare.py").run()
    assert not at.exception, [e.value for e in at.exception]
    notes = _main_warnings(at)
    assert len(notes) == 2, notes
    assert notes[0].startswith(
        f"The SGPE vocabulary you chose, run {sgpe_run.id} (sinhala.txt, "
    ), notes[0]
    assert "is no longer on this server: its run was deleted" in notes[0]
    assert (
        "The shipped vocabulary is used instead (shipped: sample_data, 4,000 tokens)" in (notes[0])
    )
    assert notes[1].startswith(f"The byte-level baseline you chose, run {base_run.id} ")
    assert "The baseline is picked automatically again (shipped: sample_data" in notes[1]
    assert at.sidebar.selectbox(key="side_tok").value == "default"
    # Said again on the next action, until B dismisses it.
    at.text_area(key="cmp_text").set_value("ලංකාව").run()
    assert len(_main_warnings(at)) == 2
    at.button(key="vocab_gone_ok_tok").click().run()
    at.button(key="vocab_gone_ok_base").click().run()
    assert not _main_warnings(at)


def test_a_link_to_a_run_this_server_lacks_is_said() -> None:
    at = open_page("merges.py", tok="20260101-000000-abcdef")
    notes = _main_warnings(at)
    assert len(notes) == 1 and "run 20260101-000000-abcdef, is no longer on this" in notes[0]
    assert "The shipped vocabulary is used instead" in notes[0]


# ============================================================================ item 7


def test_the_auto_baseline_follows_the_shipped_vocabulary_of_a_damaged_run(
    runs_dir: Path,
) -> None:
    """A run's damaged vocab.json makes the shipped SGPE vocabulary stand in; "auto" then
    takes the shipped baseline too (it kept the run's 600-token one beside 4,000)."""
    from sgpe_explorer.ui import resources

    sgpe_run, base_run = _trained(runs_dir, "sgpe"), _trained(runs_dir, "bytebpe")
    ok = resources.resolve(sgpe_run.id, resources.AUTO_ID)
    assert ok.base_choice.id == base_run.id and ok.base_matched
    (sgpe_run.path / "vocab.json").write_text('{"format": ', encoding="utf-8")
    damaged = resources.resolve(sgpe_run.id, resources.AUTO_ID)
    assert damaged.sgpe_choice.id == resources.DEFAULT_ID
    assert damaged.base_choice.id == resources.DEFAULT_ID and damaged.base_matched
    assert damaged.sgpe.vocab_size == damaged.base.vocab_size == defaults.DEFAULT_VOCAB_SIZE
    assert len(damaged.problems) == 1
    # A baseline chosen by name stays, and is said not to match.
    named = resources.resolve(sgpe_run.id, base_run.id)
    assert named.base_choice.id == base_run.id and not named.base_matched

    at = open_page("evaluate.py", tok=sgpe_run.id, base=base_run.id)
    notes = [i.value.replace("\\", "") for i in at.info]
    assert any(n.startswith("Not the same corpus: SGPE (shipped: sample_data") for n in notes)
    # ... on the page itself too, not only in the sidebar (closed on a phone).
    assert any(w.startswith(f"Run {sgpe_run.id} cannot be used") for w in _main_warnings(at))
    at = open_page("evaluate.py", tok=sgpe_run.id)
    assert not any("Not the same corpus" in i.value for i in at.info)
    assert f"Baseline: {defaults.DEFAULT_VOCAB_SIZE:,} tokens." in at.sidebar.caption[-1].value


# ============================================================================ items 4, 5


def _long_text(chars: int) -> str:
    return (LINE * (chars // len(LINE) + 1))[:chars]


def _visitor(key: str, **query: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state["owner_key"] = key  # as the owner cookie would (sgpe_explorer/ui/owner.py)
    for name, value in query.items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_an_edit_on_merges_is_the_text_of_every_page() -> None:
    text = _long_text(6000)
    at = open_page("syllables.py")
    at.text_area(key="syl_text").set_value(text).run()
    at.switch_page("app_pages/merges.py").run()
    assert at.text_area(key="mrg_text").value == text[:400]
    at.text_area(key="mrg_text").set_value("नमस्ते दुनिया").run()
    assert not at.exception
    assert at.query_params["text"] == "नमस्ते दुनिया"
    offer = next(i.value for i in at.info if "Your edit of the excerpt" in i.value)
    assert "replaced the shared text of 6,000 characters" in offer
    at.switch_page("app_pages/compare.py").run()
    assert at.text_area(key="cmp_text").value == "नमस्ते दुनिया"
    at.switch_page("app_pages/merges.py").run()
    assert at.text_area(key="mrg_text").value == "नमस्ते दुनिया"
    at.button(key="mrg_text_undo").click().run()
    assert at.text_area(key="mrg_text").value == text[:400]
    at.switch_page("app_pages/syllables.py").run()
    assert at.text_area(key="syl_text").value == text
    assert not any("Your edit of the excerpt" in i.value for i in at.info)


def test_a_long_text_comes_back_after_a_reload_for_its_visitor_only() -> None:
    text = _long_text(76_926)
    a = _visitor(KEY_A)
    a.text_area(key="syl_text").set_value(text).run()
    token = a.query_params["textid"]
    assert re.fullmatch(r"[0-9a-f]{24}", token) and "text" not in a.query_params
    warning = next(w.value for w in a.warning if "link" in w.value)
    assert "a reload brings it back" in warning

    # The reload: a new session of the same browser (cookie) on the same link.
    again = _visitor(KEY_A, textid=token)
    assert again.text_area(key="syl_text").value == text
    again.switch_page("app_pages/compare.py").run()
    assert again.text_area(key="cmp_text").value == text
    assert again.query_params["textid"] == token

    # The same link in another browser: not that visitor's text, and said so.
    other = _visitor(KEY_B, textid=token)
    assert other.text_area(key="syl_text").value != text
    assert any("does not keep for you" in i.value for i in other.info)
    assert "textid" not in other.query_params

    # A short text goes back into the link, and the kept one is forgotten.
    again.text_area(key="cmp_text").set_value("ලංකාව").run()
    assert again.query_params["text"] == "ලංකාව" and "textid" not in again.query_params
    assert _visitor(KEY_A, textid=token).text_area(key="syl_text").value != text


def test_kept_texts_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    from sgpe_explorer.ui import kept_text

    monkeypatch.setattr(kept_text, "_TEXTS", type(kept_text._TEXTS)())
    monkeypatch.setattr(kept_text, "MAX_TOTAL_CHARS", 100)
    assert not kept_text.put("a", "t0", "x" * (kept_text.MAX_TEXT_CHARS + 1))
    for i in range(6):
        assert kept_text.put("a", f"t{i}", "x" * 10)
    # at most PER_OWNER texts of one owner: the oldest go
    assert kept_text.get("a", "t0") is None and kept_text.get("a", "t5") == "x" * 10
    assert kept_text.get("b", "t5") is None  # another owner's token finds nothing
    for i in range(12):
        kept_text.put(f"o{i}", "t", "y" * 20)
    assert kept_text.held_chars() <= 100


# ============================================================================ item 12


def test_counts_of_one_are_singular_on_compare() -> None:
    at = open_page("compare.py", text="क्षत्रिय")
    heads = [m.value for m in at.markdown if "torn syllable" in m.value]
    assert any(h.startswith("**1 torn syllable** ·") for h in heads), heads
    assert not any("1 torn syllables" in h for h in heads)
    at = open_page("compare.py", text="ලෝක")
    heads = [m.value for m in at.markdown if "torn syllable" in m.value]
    assert heads[0] == "**0 torn syllables** · 0 spelled from their own parts · 1 token · TWR 1.00"


def test_evaluate_names_its_columns_as_its_caption_does() -> None:
    at = open_page("evaluate.py")
    caption = at.caption[0].value
    named = re.findall(r"\*\*(.+?)\*\*", caption)
    columns = set(at.dataframe[0].value.columns)
    assert "broken boundaries" not in caption
    assert named and all(n in columns for n in named), (named, columns)


def test_merges_says_every_chip_colour_and_counts_its_characters_alike() -> None:
    text = _long_text(900)
    at = open_page("merges.py", text=text)
    intro = at.caption[0].value
    for colour in ("grey", "blue", "yellow", "purple"):
        assert f"{colour}" in intro, colour
    assert "superword" in intro
    captions = [c.value for c in at.caption]
    assert any(
        "steps through the first 400 characters of the shared text (900)" in c for c in captions
    )
    total = next(c for c in captions if c.startswith("In all:"))
    assert "SGPE goes from 401 characters (the text's 400 and the space put before its first" in (
        total
    )


def test_the_vocabulary_table_has_no_empty_cells() -> None:
    at = open_page("vocabulary.py")
    for frame in at.dataframe:
        table = frame.value
        if "syllables" in table.columns:
            assert not table[["syllables", "code points"]].isna().any().any()
    shipped = sgpe.load(defaults.DEFAULT_SGPE)
    table = at.dataframe[-1].value
    special = table[table["token"] == shipped.id_to_token(0)]
    assert list(special[["syllables", "code points"]].iloc[0]) == [0, 0]


def test_count_charts_tick_whole_numbers_and_log_axes_write_numbers_out() -> None:
    import pandas as pd

    from sgpe_explorer.ui import charts

    summary = pd.DataFrame(
        {
            "torn syllables": [0, 1],
            "syllables spelled from their own parts": [2, 3],
            "tokens": [3, 4],
        },
        index=["SGPE", "Byte-level BPE"],
    )
    fig = charts.compare_summary(summary)
    for axis in ("yaxis", "yaxis2", "yaxis3"):
        assert fig.layout[axis].dtick == 1 and fig.layout[axis].tickformat == ",d", axis
    table = pd.DataFrame({"tokenizer": ["a", "b"], "tokens": [1, 3]})
    assert charts.corpus_bars(table, "tokens", "x").layout.yaxis.dtick == 1
    assert charts.corpus_bars(table.assign(twr=[1.2, 1.5]), "twr", "x").layout.yaxis.dtick is None
    rows = pd.DataFrame({"syllables": [1, 1, 2]})
    assert charts.length_histogram(rows, "syllables", "t").layout.yaxis.dtick == 1

    fig = charts.zipf_plot(
        list(range(1, 301)), [300 // r for r in range(1, 301)], ["a"] * 300, -1.0, 5.0, "t"
    )
    assert list(fig.layout.xaxis.ticktext) == ["1", "10", "100"]
    assert list(fig.layout.yaxis.ticktext) == ["1", "10", "100"]
    fig = charts.merge_curve([1, 2, 3], [40, 12, 3], "t")
    # One line of the exact counts, hovered in the axes' words (plotly 7.1.0; it was
    # "step=…<br>count=…" from plotly express, which took ten times as long to build).
    (line,) = fig.data
    assert (list(line.x), list(line.y), line.mode) == ([1, 2, 3], [40, 12, 3], "lines")
    assert line.hovertemplate == "merge step %{x:,}<br>pair count %{y:,}<extra></extra>"
    assert list(fig.layout.yaxis.ticktext) == ["2", "5", "10", "20", "50"]
    assert fig.layout.yaxis.title.text == "pair count (log scale)"
    assert charts.log_ticks(3, 40) == [2, 5, 10, 20, 50]
    assert json.dumps(charts.log_ticks(1, 5000)) == "[1, 10, 100, 1000]"

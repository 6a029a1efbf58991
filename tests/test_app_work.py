"""The visitor's work under ``streamlit.testing.v1.AppTest`` (docs/app.md, section 8):
the shared text is never shortened or wiped by a page, the number typed on the Train
form is the number trained (or Start is off with the reason), the form says where a run
stops, and a reload keeps the choices made.

Like tests/test_app.py, runs go to a temporary ``SGPE_RUNS_DIR`` and AppTest does not
fire ``run_every`` timers (the Train test waits for its runs with the run manager).
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("streamlit", reason="streamlit not installed: pip install -e '.[app]'")
from streamlit.testing.v1 import AppTest

# The small fixtures of tests/test_app.py: runs in a temporary SGPE_RUNS_DIR (autouse), and
# the app opened on a page.
from test_app import APP, REPO_ROOT, TIMEOUT, open_page, runs_dir  # noqa: F401

from sgpe import shipped as defaults

PHRASE = "ශ්\u200dරී ලංකාව"  # ශ්‍රී ලංකාව with its ZWJ written out
LINE = "අද උදේ පාසලට යන විට මහ වැස්සක් ඇද හැලුණා.\n"


def characters(at: AppTest) -> str:
    return next(m.value for m in at.metric if m.label == "Characters")


def errors(at: AppTest) -> list[str]:
    return [e.value.replace("\\", "") for e in at.error]


def warnings(at: AppTest) -> list[str]:
    return [w.value.replace("\\", "") for w in at.warning]


# ============================================================================ the shared text


def test_an_edit_of_merges_excerpt_is_every_pages_text_and_can_be_undone() -> None:
    """Merges shows the first 400 characters of a long text. Its edit was the page's own
    copy, lost on leaving the page (docs/app.md, section 8): one text for all pages, the last
    edit wins.
    A Backspace there therefore replaces the long text, so every text page says so and
    brings the long text back at one click."""
    text = LINE * (22_552 // len(LINE) + 1)
    at = open_page("syllables.py")
    at.text_area(key="syl_text").set_value(text).run()
    assert characters(at) == f"{len(text):,}"
    at.switch_page("app_pages/merges.py").run()
    assert at.text_area(key="mrg_text").value == text[:400]
    assert (
        "The stepper is for a word or a sentence: it steps through the first 400 characters "
        f"of the shared text ({len(text):,}). The text is one for all pages: an edit here "
        "replaces it on every page (and the page offers to bring the longer text back)."
    ) in [c.value for c in at.caption]
    at.text_area(key="mrg_text").set_value(text[:399]).run()  # one Backspace
    assert not at.exception, [e.value for e in at.exception]
    at.button(key="mrg_next").click().run()
    assert at.text_area(key="mrg_text").value == text[:399]
    at.switch_page("app_pages/syllables.py").run()
    assert characters(at) == "399"
    assert at.text_area(key="syl_text").value == text[:399]
    assert any(f"replaced the shared text of {len(text):,} characters" in i.value for i in at.info)
    at.button(key="syl_text_undo").click().run()
    assert at.text_area(key="syl_text").value == text
    assert characters(at) == f"{len(text):,}"
    at.switch_page("app_pages/merges.py").run()  # the excerpt again
    assert at.text_area(key="mrg_text").value == text[:400]


def test_merges_still_edits_a_short_text_for_every_page() -> None:
    """A text that fits the box is the whole text: an edit on Merges is every page's."""
    at = open_page("merges.py")
    at.text_area(key="mrg_text").set_value(PHRASE).run()
    assert not [c.value for c in at.caption if "excerpt" in c.value]
    at.switch_page("app_pages/syllables.py").run()
    assert at.text_area(key="syl_text").value == PHRASE
    assert at.query_params["text"] == PHRASE


@pytest.mark.parametrize(
    ("content", "what"),
    [(b"", "is empty"), (b"\xef\xbb\xbf", "is empty"), (b"\n  \n", "holds only spaces and line breaks")],
    ids=["empty", "bom-only", "blank-lines"],
)  # fmt: skip
def test_an_empty_share_file_is_refused_and_changes_nothing(content: bytes, what: str) -> None:
    """ "Open a share file" with an empty .txt made the text of every page empty.
    It is refused with one line, and every page keeps its text."""
    at = open_page("compare.py")
    at.text_area(key="cmp_text").set_value(PHRASE).run()
    at.file_uploader(key="cmp_share_in").set_value(("empty.txt", content, "text/plain")).run()
    assert not at.exception, [e.value for e in at.exception]
    assert errors(at) == [
        f"empty.txt: the file {what}, so the text was left as it was; a share file is the "
        ".txt this app offers for a long text"
    ]
    assert at.text_area(key="cmp_text").value == PHRASE
    assert at.query_params["text"] == PHRASE
    at.switch_page("app_pages/syllables.py").run()
    assert at.text_area(key="syl_text").value == PHRASE
    assert characters(at) == f"{len(PHRASE):,}"


# ============================================================================ the Train form


def _started(runs_dir: Path) -> list[Path]:
    return sorted(runs_dir.glob("2*"))


def test_a_size_too_big_for_a_number_box_is_refused_by_name(runs_dir: Path) -> None:
    """99999999999999999999999 turned the number box red and never reached the
    page, which went on warning about 32,000 with Start on. The box is text now: the
    number reaches the settings' check, which names the limit, and Start is off."""
    at = open_page("train.py")
    at.text_input(key="train_vocab_size").set_value("99999999999999999999999").run()
    assert not at.exception, [e.value for e in at.exception]
    assert errors(at) == [
        "Vocabulary size must be at most 1,114,112 (a token id is kept in one Unicode code "
        "point while training), got 99,999,999,999,999,999,999,999."
    ]
    assert not [w for w in warnings(at) if "32,000" in w]
    assert at.button(key="train_start").disabled
    at.text_input(key="train_vocab_size").set_value("1.5").run()
    assert errors(at) == ["Vocabulary size must be a whole number, got '1.5'."]
    assert at.button(key="train_start").disabled
    at.text_input(key="train_vocab_size").set_value("1,200").run()  # thousands are fine
    assert errors(at) == [] and not at.button(key="train_start").disabled
    assert not _started(runs_dir)


@pytest.mark.parametrize("baseline", [True, False], ids=["with-baseline", "sgpe-only"])
def test_a_size_the_trainers_cannot_reach_starts_no_run(runs_dir: Path, baseline: bool) -> None:
    """1,000,000,000,000 was a yellow warning; Start made two runs and the
    byte-level one failed after counting. The settings refuse it for both models, on the
    form (Start off) and in the run manager (no run directory)."""
    from sgpe_explorer.runs.manager import RunManager, RunRequest

    at = open_page("train.py")
    at.toggle(key="train_base").set_value(baseline).run()
    at.text_input(key="train_vocab_size").set_value("1000000000000").run()
    assert errors(at) == [
        "Vocabulary size must be at most 1,114,112 (a token id is kept in one Unicode code "
        "point while training), got 1,000,000,000,000."
    ]
    assert at.button(key="train_start").disabled
    manager = RunManager(runs_dir)
    corpus = defaults.SAMPLE_DATA / "mixed.txt"
    for model in ("sgpe", "bytebpe"):
        with pytest.raises(ValueError, match="vocab_size must be at most 1,114,112"):
            manager.start(RunRequest(corpus, model=model, vocab_size=10**12))
    assert not _started(runs_dir)


def test_optional_boxes_can_be_emptied_again_and_train_as_empty(runs_dir: Path) -> None:
    """clearing "Superwords from" or "Minimum pair frequency" after typing a value
    turned it into 0 ("must be a vocabulary size above 5 (or None), got 0") and Start
    stayed off. Empty is empty again: off, and the mode's minimum pair frequency."""
    from sgpe_explorer.runs.manager import RunManager

    at = open_page("train.py")
    at.selectbox(key="train_sample").set_value("mixed.txt").run()
    at.toggle(key="train_base").set_value(False).run()
    at.text_input(key="train_vocab_size").set_value("1000").run()
    at.text_input(key="train_superwords_from").set_value("900").run()
    at.text_input(key="train_min_freq").set_value("4").run()
    assert errors(at) == [] and not at.button(key="train_start").disabled
    at.text_input(key="train_superwords_from").set_value("").run()
    at.text_input(key="train_min_freq").set_value("").run()
    assert not at.exception, [e.value for e in at.exception]
    assert errors(at) == []
    assert at.text_input(key="train_superwords_from").value == ""
    assert at.text_input(key="train_min_freq").placeholder == "hierarchical default: 1"
    assert not at.button(key="train_start").disabled
    at.button(key="train_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    (info,) = RunManager(runs_dir).list_runs()
    assert (info.config.vocab_size, info.config.superwords_from, info.config.min_freq) == (
        1000,
        None,
        1,
    )


def test_superwords_from_at_or_above_the_size_is_refused_and_late_ones_explained(
    runs_dir: Path,
) -> None:
    """A "Superwords from" at or above the size trained no superword without a word: the
    settings refuse it. One the corpus never reaches is explained by where training stops."""
    from sgpe.settings import TrainSettings
    from sgpe_explorer.runs.manager import size_range

    at = open_page("train.py")
    at.selectbox(key="train_sample").set_value("sinhala.txt").run()
    at.text_input(key="train_vocab_size").set_value("2000").run()
    at.text_input(key="train_superwords_from").set_value("999999").run()
    assert errors(at) == [
        "Superwords from (vocabulary size) must be below the vocabulary size (2,000), got "
        "999,999: superwords start once the vocabulary has that many tokens, so this run "
        "would learn none; lower it, or leave it off."
    ]
    assert at.button(key="train_start").disabled
    reached = size_range(defaults.SAMPLE_DATA / "sinhala.txt", TrainSettings()).largest
    at.text_input(key="train_vocab_size").set_value(str(reached + 2000)).run()
    at.text_input(key="train_superwords_from").set_value(str(reached + 1000)).run()
    assert errors(at) == []
    assert (
        f"Superwords from {reached + 1000:,}: training stops at {reached:,} tokens, before "
        "superwords start, so this run learns none; lower it to use superwords."
    ) in warnings(at)
    assert not _started(runs_dir)


def _wait_for_runs(root: Path, n: int) -> list[Any]:
    from sgpe_explorer.runs.manager import RunManager

    manager = RunManager(root)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        infos = manager.list_runs()
        if len(infos) == n and all(not i.status.alive for i in infos):
            return [manager.wait(i.run.id, timeout=60) and i for i in manager.list_runs()]
        time.sleep(0.2)
    raise AssertionError(f"{n} runs did not finish")


def test_the_default_form_says_where_both_runs_stop(runs_dir: Path) -> None:
    """32,000 on sinhala.txt warned that training "stops by 9,218 tokens at the
    latest"; the run stopped at 6,039. The form now says where each run Start makes
    stops, and both runs stop exactly there."""
    from sgpe_explorer.runs.manager import RunManager

    at = open_page("train.py")
    at.selectbox(key="train_sample").set_value("sinhala.txt").run()
    at.text_input(key="train_vocab_size").set_value("32000").run()  # not the form's default
    said = {}
    for w in warnings(at):
        found = re.fullmatch(
            r"(Vocabulary size|The byte-level baseline:) 32,000 is more than this corpus can "
            r"give: training stops at ([\d,]+) tokens, when no pair of tokens is left to "
            r"merge; choose at most \2, or a larger corpus\.",
            w,
        )
        if found:
            said["sgpe" if found[1] == "Vocabulary size" else "bytebpe"] = int(
                found[2].replace(",", "")
            )
    assert set(said) == {"sgpe", "bytebpe"}, warnings(at)
    assert at.toggle(key="train_base").value is True
    at.button(key="train_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    _wait_for_runs(runs_dir, 2)
    manager = RunManager(runs_dir)
    for info in manager.list_runs():
        status = manager.status(info.run.id)
        assert status.state == "done", status.message
        assert status.trained_size == said[info.config.model], info.config.model


# ============================================================================ reloads


# Choices that were not in the link (kind, key, value away from the default).
RELOADED: dict[str, list[tuple[str, str, Any]]] = {
    "train.py": [
        ("radio", "train_source", "sample_data/"),
        ("selectbox", "train_sample", "hindi.txt"),
        ("toggle", "train_base", False),
        ("text_input", "train_vocab_size", "1500"),
        ("radio", "train_mode", "paper"),
        ("text_input", "train_prune_freq", "3"),
        ("text_input", "train_min_freq", "4"),
        ("toggle", "train_leading_space", False),
        ("radio", "train_oov_policy", "unk"),
        ("text_input", "train_label", "Sinhala 1.5k"),
    ],
    "merges.py": [
        ("radio", "mrg_which", "Byte-level BPE"),
        ("number_input", "mrg_first", 7),
        ("text_input", "mrg_filter", "ල"),
        ("selectbox", "mrg_syllable", "කා"),
        ("slider", "mrg_step", 3),
    ],
    "compare.py": [("radio", "cmp_chart", "cpt")],
    "evaluate.py": [("radio", "ev_chart", "cpt")],
    "syllables.py": [("number_input", "syl_pick", 3)],
}


@pytest.mark.parametrize("page", list(RELOADED))
def test_a_reload_keeps_the_choices_made(page: str) -> None:
    """a reload (a new session on the page's link) dropped the Train form's
    values, Merges' settings, the chart radios and Syllables' unit. They are in the link
    now (left out at their defaults) and come back from it."""
    at = open_page(page)
    for kind, key, value in RELOADED[page]:
        if key == "train_source":
            continue  # the default, listed for the link check below
        widget = getattr(at, kind)(key=key)
        assert widget.value != value, f"{key}: pick a value away from its default"
        widget.set_value(value).run()
        assert not at.exception, (key, [e.value for e in at.exception])
    link = dict(at.query_params)
    reloaded = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for name, value in link.items():
        reloaded.query_params[name] = value
    reloaded.switch_page(f"app_pages/{page}").run()
    assert not reloaded.exception, [e.value for e in reloaded.exception]
    got = {key: getattr(reloaded, kind)(key=key).value for kind, key, _ in RELOADED[page]}
    assert got == {key: value for _, key, value in RELOADED[page]}
    assert dict(reloaded.query_params) == link

"""The Streamlit app under ``streamlit.testing.v1.AppTest`` (no browser).

* every page in ``app_pages/`` renders without an exception (ids are the file names);
* one scripted interaction per page, asserting rendered values against :mod:`sgpe`;
* user text is HTML-escaped (``<script>`` and ``<img onerror>`` payloads);
* the text and options round-trip through the URL; a 1 MB text is capped for display.

AppTest does not fire ``run_every`` timers, so the Train test waits for its runs with the
run manager and reruns the script itself. Runs go to a temporary ``SGPE_RUNS_DIR``.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("streamlit", reason="streamlit not installed: pip install -e '.[app]'")
from streamlit.testing.v1 import AppTest

import sgpe
from sgpe import shipped as defaults
from sgpe import syllabify

REPO_ROOT = Path(__file__).resolve().parents[1]
# The frame inside the package (what `sgpe app` runs); page paths are relative to it.
APP = str(REPO_ROOT / "sgpe_explorer" / "app" / "main.py")
PAGES = sorted(p.name for p in (REPO_ROOT / "sgpe_explorer" / "app" / "app_pages").glob("*.py"))
TIMEOUT = 60

PHRASE = "ශ්\u200dරී ලංකාව"  # ශ්‍රී ලංකාව with its ZWJ written out
XSS = "<script>alert(1)</script><img src=x onerror=alert(1)> ක"


@pytest.fixture(autouse=True)
def runs_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Runs started by the app go to a temporary directory, never the repo's runs/."""
    root = tmp_path / "runs"
    monkeypatch.setenv("SGPE_RUNS_DIR", str(root))
    monkeypatch.delenv("SGPE_ADMIN", raising=False)  # a visitor, unless a test says admin
    yield root
    from sgpe_explorer.runs.manager import RunManager

    manager = RunManager(root)
    for info in manager.list_runs():  # stop any trainer a failed test left running
        if info.status.alive:
            manager.cancel(info.run.id, wait=5.0)


def open_page(page: str, **query: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    if page != "syllables.py":
        at.switch_page(f"app_pages/{page}").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def metrics_of(at: AppTest) -> list[tuple[str, str]]:
    return [(m.label, m.value) for m in at.metric]


def html_bodies(at: AppTest) -> list[str]:
    return [str(el.proto.body) for el in at.get("html")]


def span_texts(body: str, cls: str) -> list[str]:
    """Texts of the top-level ``<span class="CLS ...">`` elements of rendered HTML."""
    found = re.findall(
        rf'<span class="{cls}[^"]*"[^>]*>(.*?)</span>(?=<span class="{cls}|</div>)',
        body,
        flags=re.S,
    )
    return [html.unescape(t) for t in found]


# ============================================================================ smoke


@pytest.mark.parametrize("page", PAGES, ids=PAGES)
def test_every_page_renders(page: str) -> None:
    at = open_page(page)
    assert at.title, f"{page} has no title"


def test_pages_are_all_in_navigation() -> None:
    app = Path(APP).read_text(encoding="utf-8")
    for page in PAGES:
        assert f'PAGES_DIR / "{page}"' in app


def test_the_checkouts_app_py_shows_the_same_frame() -> None:
    """`streamlit run app.py` in a checkout: the same sidebar and pages as `sgpe app`."""
    at = AppTest.from_file(str(REPO_ROOT / "app.py"), default_timeout=TIMEOUT).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.sidebar.selectbox[0].label == "Tokenizer (SGPE)"
    at.switch_page("sgpe_explorer/app/app_pages/compare.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value.startswith("Compare")


@pytest.mark.parametrize("page", PAGES, ids=PAGES)
def test_every_page_runs_inside_the_frame(page: str) -> None:
    """A page reached through app.py's st.navigation gets its sidebar and stylesheet."""
    at = open_page(page)
    assert [s.key for s in at.sidebar.selectbox] == ["side_tok", "side_base", "side_script"]
    assert any("--sgpe-font" in b for b in html_bodies(at))  # the frame's stylesheet


def test_the_sidebar_only_reads_the_runs(runs_dir: Path) -> None:
    """Listing runs for the sidebar starts nothing: a queued run stays queued."""
    from sgpe.runs.format import RunConfig, create_run, read_status

    run_dir = runs_dir / "20260101-000000-abcdef"
    create_run(run_dir, RunConfig(vocab_size=400), defaults.SAMPLE_DATA / "sinhala.txt")
    before = sorted(p.name for p in run_dir.iterdir())
    at = open_page("syllables.py")
    at.run()
    status = read_status(run_dir)
    assert (status.state, status.pid) == ("queued", None)
    assert sorted(p.name for p in run_dir.iterdir()) == before  # no train.log, nothing new
    # "4,000 tokens", as a run's label says its size (Compare's captions then say it once)
    assert list(at.sidebar.selectbox(key="side_tok").options) == [
        "shipped: sample_data, 4,000 tokens"
    ]


@pytest.mark.parametrize("choice", ["python", "auto"])
def test_the_sidebar_names_the_engine(choice: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from sgpe import _engine as engine
    from sgpe_explorer.ui.render import md_escape

    monkeypatch.setenv("SGPE_ENGINE", choice)
    engine.reset()  # the choice is cached per process (sgpe/_engine.py)
    try:
        at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
        assert not at.exception, [e.value for e in at.exception]
        lines = [c.value for c in at.sidebar.caption if c.value.startswith("Engine: ")]
        assert lines == [f"Engine: {md_escape(engine.describe())}."]
        if choice == "python":
            assert engine.describe() == "pure-Python engine (SGPE_ENGINE=python)"
        else:  # auto: the native core whenever scripts/build_native.sh has built it
            built = importlib.util.find_spec("sgpe._native") is not None
            assert engine.describe().startswith("native engine (" if built else "pure-Python")
    finally:
        monkeypatch.delenv("SGPE_ENGINE")
        engine.reset()


def test_shipped_merge_counts_come_from_the_file() -> None:
    at = open_page("merges.py")
    at.text_input(key="mrg_filter").set_value("ලං").run()
    table = at.dataframe[-1].value
    shipped = sgpe.load(defaults.DEFAULT_SGPE)
    assert shipped.merge_counts is not None
    assert list(table["count"]) == [shipped.merge_counts[r] for r in table["rank"]]


# ============================================================================ round trips

# Each page's widgets set away from their defaults (kind, key, value). Compare
# crashed on every return (its choice came back as the string "sgpe,base"), Evaluate's
# choice came back empty, and the other pages' widgets fell back to their defaults.
AWAY: dict[str, list[tuple[str, str, Any]]] = {
    "syllables.py": [
        ("toggle", "syl_ls", True),
        ("toggle", "syl_inv", True),
        ("number_input", "syl_pick", 3),
    ],
    "compare.py": [
        ("multiselect", "cmp_pick", ["sgpe", "cl100k_base", "o200k_base"]),
        ("toggle", "cmp_ids", True),
        ("toggle", "cmp_inv", True),
        ("selectbox", "cmp_corpus", "hindi.txt"),
        ("radio", "cmp_chart", "cpt"),  # the default is the tearing cuts
    ],
    "merges.py": [
        ("radio", "mrg_which", "Byte-level BPE"),
        ("number_input", "mrg_first", 7),
        ("text_input", "mrg_filter", "ල"),
        ("select_slider", "mrg_speed", "4"),
        ("selectbox", "mrg_syllable", "කා"),
        ("slider", "mrg_step", 3),
    ],
    "evaluate.py": [
        ("multiselect", "ev_pick", ["base", "cl100k_base"]),
        ("selectbox", "ev_text", "hindi.txt"),
        ("radio", "ev_chart", "cpt"),
    ],
    "train.py": [
        ("selectbox", "train_sample", "hindi.txt"),
        ("toggle", "train_base", False),
        ("radio", "train_mode", "paper"),
        ("radio", "train_oov_policy", "unk"),
        ("toggle", "train_leading_space", False),
        ("text_input", "train_vocab_size", "1500"),
        ("text_input", "train_prune_freq", "3"),
        ("text_input", "train_min_freq", "4"),
    ],
    "grammar.py": [
        ("selectbox", "gr_script", "devanagari"),
        ("text_input", "gr_words_devanagari", "नमस्ते"),
        ("text_area", "gr_sample_devanagari", "क्षत्रिय"),
    ],
    "vocabulary.py": [
        ("radio", "voc_which", "base"),
        ("selectbox", "voc_text", "hindi.txt"),
        ("text_input", "voc_q", "ක"),
        ("multiselect", "voc_kinds", ["character"]),
    ],
}


@pytest.mark.parametrize(
    ("page", "param", "key", "link", "chosen"),
    [
        ("compare.py", "cmp", "cmp_pick", "sgpe,base,cl100k_base,nope", ["sgpe", "base", "cl100k_base"]),
        ("evaluate.py", "ev", "ev_pick", "cl100k_base,sgpe", ["cl100k_base", "sgpe"]),
    ],
)  # fmt: skip
def test_a_link_with_a_list_choice_opens_with_it(
    page: str, param: str, key: str, link: str, chosen: list[str]
) -> None:
    """A shared link's ?cmp= / ?ev= opens the page with those choices (an unknown one
    left out); the list is kept as a list when the page is left and opened again."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params[param] = link
    at.switch_page(f"app_pages/{page}").run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert at.multiselect(key=key).value == chosen
    at.switch_page("app_pages/grammar.py").run()
    at.switch_page(f"app_pages/{page}").run()
    assert not at.exception and not at.error
    assert at.multiselect(key=key).value == chosen


def widget_values(at: AppTest, page: str) -> dict[str, Any]:
    return {key: getattr(at, kind)(key=key).value for kind, key, _ in AWAY[page]}


@pytest.mark.parametrize("page", PAGES)
def test_every_page_keeps_its_widgets_when_left_and_opened_again(page: str) -> None:
    """Set every widget of the page away from its default, open another page (twice, so
    a whole run passes without the page), come back: no exception, every value kept, the
    URL as before."""
    at = open_page(page)
    for kind, key, value in AWAY[page]:
        widget = getattr(at, kind)(key=key)
        assert widget.value != value, f"{key}: pick a value away from its default"
        widget.set_value(value).run()
        assert not at.exception, (key, [e.value for e in at.exception])
    wanted = {key: value for _, key, value in AWAY[page]}
    assert widget_values(at, page) == wanted
    url = dict(at.query_params)
    other = "grammar.py" if page != "grammar.py" else "syllables.py"
    for _ in range(2):
        at.switch_page(f"app_pages/{other}").run()
        assert not at.exception, [e.value for e in at.exception]
    at.switch_page(f"app_pages/{page}").run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert widget_values(at, page) == wanted
    assert dict(at.query_params) == url


# ============================================================================ Syllables


def test_syllables_counts_and_spans() -> None:
    at = open_page("syllables.py")
    at.text_area(key="syl_text").set_value(PHRASE).run()
    assert not at.exception
    values = dict(metrics_of(at))
    assert (values["Characters"], values["Syllables"], values["Words"], values["Units"]) == (
        "11",
        "4",
        "2",
        "5",
    )
    body = next(b for b in html_bodies(at) if 'class="sgpe-box sgpe-syllables' in b)
    assert span_texts(body, "syl") == syllabify(PHRASE) == ["ශ්\u200dරී", " ", "ලං", "කා", "ව"]
    # Hover info: code points with names and classes, and the DFA path.
    assert "U+200D  Z  ZERO WIDTH JOINER" in html.unescape(body)
    assert "START -C-&gt; CLUSTER" in body or "START -C-> CLUSTER" in html.unescape(body)

    at.toggle(key="syl_ls").set_value(True).run()
    body = next(b for b in html_bodies(at) if 'class="sgpe-box sgpe-syllables' in b)
    assert span_texts(body, "syl") == syllabify(PHRASE, leading_space=True)
    assert dict(metrics_of(at))["Units"] == "4"
    assert at.query_params["ls"] == "1"


def test_syllables_show_how_the_vocabulary_covers_them() -> None:
    """ශ්‍රී ලංකාව with the shipped vocabulary: ' ශ්‍රී' is one token, ' ලංකා' + 'ව' hold
    ලං and කා joined and ව alone; a syllable never seen (ක්‍ෂෞ) is spelled from its parts."""
    at = open_page("syllables.py")
    at.text_area(key="syl_text").set_value(PHRASE + " ක්‍ෂෞ").run()
    assert not at.exception
    values = dict(metrics_of(at))
    assert (values["One token"], values["Inside a longer token"]) == ("2", "2")
    assert (values["Spelled from parts"], values["Torn"]) == ("1", "0")


def test_syllables_name_the_script_and_what_the_vocabulary_lacks() -> None:
    """The page names the text's scripts (by their Unicode blocks here)
    and says when the active vocabulary was trained without one of them."""
    from sgpe_explorer.ui.state import DEFAULT_TEXT

    at = open_page("syllables.py")
    import unicodedata

    def letters(lo: str, hi: str) -> int:  # letters and signs, not the danda
        return sum(1 for c in DEFAULT_TEXT if lo <= c <= hi and unicodedata.category(c)[0] in "LM")

    sinhala, hindi = letters("\u0d80", "\u0dff"), letters("\u0900", "\u097f")
    share = round(100 * sinhala / (sinhala + hindi))
    line = (
        f"Script of this text: Sinhala ({share}% of its Abugida letters), "
        f"Devanagari ({100 - share}%)."
    )
    assert line in [c.value.replace("\\", "") for c in at.caption]  # md-escaped
    assert not [i for i in at.info if "trained without" in i.value]
    at.text_area(key="syl_text").set_value("வணக்கம் ශ්\u200dරී").run()
    assert not at.exception
    notes = [i.value.replace("\\", "") for i in at.info if "trained without" in i.value]
    assert notes == [
        "The active SGPE vocabulary (shipped: sample_data, 4,000 tokens) was trained without any "
        "Tamil text, so it spells that text with byte tokens. Train a vocabulary on text of "
        "that script on the Train page, or choose one in the sidebar."
    ]
    at.text_area(key="syl_text").set_value("hello 42").run()
    assert "This text has no letter of the 14 scripts with a grammar." in [
        c.value for c in at.caption
    ]


@pytest.mark.parametrize(
    ("text", "script"),
    [("नमस्ते दुनिया, ක", "devanagari"), (PHRASE, "sinhala"), ("hello", "tamil")],
)
def test_grammar_opens_on_the_script_of_the_text(text: str, script: str) -> None:
    """Grammar opened on Tamil whatever the text; it opens on the
    script most of the shared text's letters are in (Tamil when there is none)."""
    at = open_page("grammar.py", text=text)
    assert at.selectbox(key="gr_script").value == script
    assert "gs" not in at.query_params  # the text's own script needs no parameter


def test_syllables_grapheme_count_uses_extended_clusters() -> None:
    import regex

    at = open_page("syllables.py")
    at.text_area(key="syl_text").set_value(PHRASE).run()
    assert dict(metrics_of(at))["Grapheme clusters"] == str(len(regex.findall(r"\X", PHRASE)))


def test_syllables_invisible_characters_are_marked_outside_the_syllable() -> None:
    at = open_page("syllables.py")
    at.text_area(key="syl_text").set_value(PHRASE + "\tx\n").run()
    at.toggle(key="syl_inv").set_value(True).run()
    body = next(b for b in html_bodies(at) if 'class="sgpe-box sgpe-syllables' in b)
    assert 'class="sgpe-box sgpe-syllables inv"' in body
    # The conjunct keeps its ZWJ inside one span; the marker is an attribute.
    assert ">ශ්\u200dරී</span>" in body
    assert 'data-post="◌්ZWJ"' in body
    assert 'data-pre="→"' in body and 'data-pre="↵"' in body


def test_syllables_table_and_download() -> None:
    at = open_page("syllables.py")
    at.text_area(key="syl_text").set_value(PHRASE).run()
    frames = [df.value for df in at.dataframe]
    table = next(f for f in frames if "DFA path" in f.columns)
    assert list(table["kind"]) == ["syllable", "whitespace", "syllable", "syllable", "syllable"]
    assert table.loc[0, "classes"] == "CHZCP"
    chars = next(f for f in frames if "name" in f.columns)
    assert list(chars["code point"]) == ["U+0DC1", "U+0DCA", "U+200D", "U+0DBB", "U+0DD3"]


def test_long_text_is_capped_but_counted() -> None:
    line = "අද උදේ පාසලට යන විට මහ වැස්සක් ඇද හැලුණා.\n"
    text = line * (1_000_000 // len(line.encode("utf-8")) + 1)
    assert len(text.encode("utf-8")) >= 1_000_000
    at = open_page("syllables.py")
    at.text_area(key="syl_text").set_value(text).run()
    assert not at.exception
    assert dict(metrics_of(at))["Characters"] == f"{len(text):,}"
    assert any("Long text: showing the first" in i.value for i in at.info)
    body = next(b for b in html_bodies(at) if 'class="sgpe-box sgpe-syllables' in b)
    assert len(body) < 2_000_000
    assert "text" not in at.query_params  # too long for a link


def test_one_text_across_pages() -> None:
    """Typed on Syllables, the text is Compare's, Merges' and the Vocabulary's text too,
    and comes back to Syllables after an edit on Compare."""
    at = open_page("syllables.py")
    at.text_area(key="syl_text").set_value(PHRASE).run()
    assert at.query_params["text"] == PHRASE
    at.switch_page("app_pages/compare.py").run()
    assert at.text_area(key="cmp_text").value == PHRASE
    at.switch_page("app_pages/merges.py").run()
    assert at.text_area(key="mrg_text").value == PHRASE
    at.switch_page("app_pages/vocabulary.py").run()
    shipped = sgpe.load(defaults.DEFAULT_SGPE)
    assert dict(metrics_of(at))["Tokens"] == f"{len(shipped.encode(PHRASE)):,}"
    at.switch_page("app_pages/compare.py").run()
    at.text_area(key="cmp_text").set_value("ලංකාව").run()
    at.switch_page("app_pages/syllables.py").run()
    assert at.text_area(key="syl_text").value == "ලංකාව"
    assert at.query_params["text"] == "ලංකාව"


def test_a_text_too_long_for_the_link_is_offered_as_a_share_file() -> None:
    line = "අද උදේ පාසලට යන විට මහ වැස්සක් ඇද හැලුණා.\n"
    text = line * (4000 // len(line) + 1)
    assert len(text) > 4000
    at = open_page("syllables.py")
    at.text_area(key="syl_text").set_value(text).run()
    assert "text" not in at.query_params
    warning = next(w.value for w in at.warning if "link" in w.value)
    assert f"This text has {len(text):,} characters, more than the 4,000" in warning
    assert [b.proto.label for b in at.get("download_button")].count("Download share file") == 1
    # The share file loads back, on any page, as the text of every page.
    other = open_page("compare.py")
    other.text_area(key="cmp_text").set_value("ක").run()
    other.file_uploader(key="cmp_share_in").set_value(
        ("sgpe-text.txt", text.encode("utf-8"), "text/plain")
    ).run()
    assert not other.exception
    assert other.text_area(key="cmp_text").value == text
    other.switch_page("app_pages/syllables.py").run()
    assert other.text_area(key="syl_text").value == text
    assert dict(metrics_of(other))["Characters"] == f"{len(text):,}"


# ============================================================================ XSS


@pytest.mark.parametrize("page", ["syllables.py", "compare.py"])
def test_user_text_is_escaped(page: str) -> None:
    at = open_page(page)
    key = "syl_text" if page == "syllables.py" else "cmp_text"
    at.text_area(key=key).set_value(XSS).run()
    assert not at.exception
    bodies = [b for b in html_bodies(at) if 'class="sgpe-box' in b]
    assert bodies
    for body in bodies:
        assert "<script" not in body and "<img" not in body
        assert "&lt;" in body
    # Attributes too: a title holding the payload is escaped, never closed early.
    joined = "".join(bodies)
    assert "onerror=alert(1)>" not in joined


def test_vocabulary_composition_and_search() -> None:
    at = open_page("vocabulary.py")
    shipped = sgpe.load(defaults.DEFAULT_SGPE)
    values = dict(metrics_of(at))
    assert values["Size"] == f"{shipped.vocab_size:,}"
    assert values["Merges"] == f"{len(shipped.merges):,}"
    composition = at.dataframe[0].value
    kinds = dict(zip(composition["kind"], composition["tokens"]))
    assert shipped.mode == "hierarchical" and shipped._hier is not None
    assert kinds["special"] == 5 and kinds["byte fallback"] == 115
    joins = {a + b for (a, b), k in zip(shipped.merges, shipped._hier.kinds) if k == "join"}
    assert kinds["multi-syllable"] == len(joins) > 1000
    assert kinds["syllable"] > 300 and kinds["syllable part"] > 0
    assert sum(kinds.values()) == shipped.vocab_size

    at.text_input(key="voc_q").set_value("ලං").run()
    table = at.dataframe[-1].value
    assert len(table) > 0 and table["token"].str.contains("ලං").all()
    assert at.query_params["q"] == "ලං"

    at.radio(key="voc_which").set_value("base").run()
    assert not at.exception
    base = sgpe.load(defaults.DEFAULT_BYTEBPE)
    assert dict(metrics_of(at))["Size"] == f"{base.vocab_size:,}"


def test_vocabulary_says_why_a_short_text_has_no_zipf_chart() -> None:
    """On a short text every token occurs once and the chart showed a
    flat line with "fitted slope 0.00". The page says why instead; a sample file gets the
    chart and its slope."""
    at = open_page("vocabulary.py", text=PHRASE)
    ids = sgpe.load(defaults.DEFAULT_SGPE).encode(PHRASE)
    assert len(set(ids)) == len(ids)  # every token once
    notes = [i.value for i in at.info if "rank against frequency" in i.value]
    assert notes == [
        f"Each of the {len(ids)} distinct tokens occurs once on this text, so rank against "
        "frequency is a flat line and its fitted slope (0) says nothing about the "
        "vocabulary. Choose a sample file above, or use a longer text."
    ]
    assert not any("Rank–frequency" in str(c.proto) for c in at.get("plotly_chart"))
    at.selectbox(key="voc_text").set_value("sinhala.txt").run()
    assert not [i for i in at.info if "rank against frequency" in i.value]
    assert any("fitted slope -" in str(c.proto) for c in at.get("plotly_chart"))


def test_vocabulary_search_is_plain_text() -> None:
    at = open_page("vocabulary.py")
    at.text_input(key="voc_q").set_value("<img src=x onerror=alert(1)>").run()
    assert not at.exception
    assert all("<img" not in b for b in html_bodies(at))


# ============================================================================ Compare


def test_compare_counts_match_the_library() -> None:
    at = open_page("compare.py")
    at.text_area(key="cmp_text").set_value(PHRASE).run()
    assert not at.exception
    # Equal budget by default: SGPE and the byte-level baseline of the same size.
    assert at.multiselect(key="cmp_pick").value == ["sgpe", "base"]
    assert list(at.dataframe[0].value.index) == ["SGPE", "Byte-level BPE"]
    at.multiselect(key="cmp_pick").set_value(["sgpe", "base", "o200k_base"]).run()
    assert at.query_params["cmp"] == "sgpe,base,o200k_base"
    shipped = sgpe.load(defaults.DEFAULT_SGPE)
    summary = at.dataframe[0].value
    assert list(summary.index) == ["SGPE", "Byte-level BPE", "o200k_base"]
    assert summary.loc["SGPE", "tokens"] == len(shipped.encode(PHRASE))
    assert summary.loc["SGPE", "torn syllables"] == 0
    assert summary.loc["Byte-level BPE", "torn syllables"] > 0
    bodies = [b for b in html_bodies(at) if "data-tokenizer=" in b]
    assert len(bodies) == 3
    sgpe_tokens = span_texts(bodies[0], "tok")
    # The spans show the text itself: the space encode() prepends is not part of it.
    expected = shipped.tokenize(PHRASE)
    if shipped.prepend_space:
        expected[0] = expected[0].removeprefix(" ")
    assert sgpe_tokens == expected
    # Stray bytes are hex chips, never U+FFFD.
    assert all("\ufffd" not in b for b in bodies)

    at.toggle(key="cmp_ids").set_value(True).run()
    ids = " ".join(map(str, shipped.encode(PHRASE)))
    assert any(c.value == ids for c in at.code)
    assert at.query_params["ids"] == "1"


def test_compare_names_the_rule_first() -> None:
    """The page said SGPE never breaks a syllable and then showed "SGPE:
    5 broken boundaries". Each column now leads with torn syllables (the rule: SGPE's is
    0), then the syllables spelled from their own parts (intact, a cost in tokens),
    counted as the library counts them; the byte-level peer tears syllables."""
    from sgpe import metrics
    from sgpe_explorer.ui import analysis
    from sgpe_explorer.ui.state import DEFAULT_TEXT

    at = open_page("compare.py")
    shipped = sgpe.load(defaults.DEFAULT_SGPE)
    base = sgpe.load(defaults.DEFAULT_BYTEBPE)
    lines = [m.value for m in at.markdown if "torn syllables**" in m.value]
    expected = []
    for tok in (shipped, base):
        enc = metrics.encode_for_metrics(tok, DEFAULT_TEXT)
        result = metrics.broken_boundaries(DEFAULT_TEXT, enc.spans)
        coverage = analysis.syllable_coverage(tok, DEFAULT_TEXT)
        assert analysis.torn_units(DEFAULT_TEXT, result.straddling_at) == coverage["torn"]
        assert result.spelled_units == coverage["parts"]
        expected.append(
            f"**{coverage['torn']:,} torn syllables** · {coverage['parts']:,} spelled from "
            f"their own parts · {len(enc.ids):,} tokens · TWR "
            f"{len(enc.ids) / len(result.word_flags):.2f}"
        )
    assert lines == expected
    assert lines[0].startswith("**0 torn syllables** · ") and not lines[0].startswith(
        "**0 torn syllables** · 0 "
    )  # SGPE spells some syllables from parts here, and tears none
    assert not lines[1].startswith("**0 ")  # the byte-level peer tears syllables
    assert "**The rule: SGPE never tears a syllable.**" in at.markdown[0].value
    summary = at.dataframe[0].value
    assert list(summary.columns[:3]) == [
        "torn syllables",
        "syllables spelled from their own parts",
        "tokens",
    ]


def test_compare_offers_openai_encodings_without_building_them() -> None:
    """Building o200k_base and cl100k_base took most of the first
    Compare visit, though the default comparison does not use them. They are offered
    unloaded and load, with their sizes, when picked."""
    from sgpe.baselines.tiktoken_offline import load_encoding
    from sgpe_explorer.ui import resources

    at = open_page("compare.py")
    pick = at.multiselect(key="cmp_pick")
    labels = [pick.format_func(k) for k in ("o200k_base", "cl100k_base")]
    assert labels == [
        "o200k_base: OpenAI's encoding (loads when picked)",
        "cl100k_base: OpenAI's encoding (loads when picked)",
    ]
    act = resources.resolve(resources.DEFAULT_ID, resources.AUTO_ID)
    entries, _ = resources.catalogue(act)
    assert entries["o200k_base"].tokenizer is None and entries["o200k_base"].vocab_size is None
    pick.set_value(["sgpe", "o200k_base"]).run()
    assert not at.exception, [e.value for e in at.exception]
    size = load_encoding("o200k_base").n_vocab
    captions = [c.value for c in at.caption]
    assert f"OpenAI o200k\\_base \\(tiktoken, offline\\) · {size:,} tokens" in captions, captions


def test_compare_corpus_table() -> None:
    at = open_page("compare.py")
    at.multiselect(key="cmp_pick").set_value(["sgpe", "base", "o200k_base"]).run()
    at.selectbox(key="cmp_corpus").set_value("hindi.txt").run()
    assert not at.exception
    table = at.dataframe[1].value
    assert list(table["tokenizer"]) == ["SGPE", "Byte-level BPE", "o200k_base"]
    lines = (defaults.SAMPLE_DATA / "hindi.txt").read_text("utf-8").split("\n")[:-1]
    assert int(table["lines"][0]) == len(lines)

    at.selectbox(key="cmp_corpus").set_value("upload…").run()
    at.file_uploader(key="cmp_upload").set_value(
        ("two.txt", (PHRASE + "\nक").encode(), "text/plain")
    )
    at.run()
    assert not at.exception
    table = at.dataframe[1].value
    assert list(table["lines"]) == [2, 2, 2]
    assert at.query_params["corpus"] == "upload…"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty.txt: the file is empty (0 bytes)"),
        (b" \n\t\n", "empty.txt: holds only whitespace (4 bytes)"),
        (b"\xff\xfe ab", "empty.txt: not UTF-8 text (invalid start byte at byte 0)"),
    ],
)
def test_compare_explains_an_upload_it_cannot_count(content: bytes, message: str) -> None:
    at = open_page("compare.py")
    at.selectbox(key="cmp_corpus").set_value("upload…").run()
    at.file_uploader(key="cmp_upload").set_value(("empty.txt", content, "text/plain")).run()
    assert not at.exception
    assert [e.value.replace("\\", "") for e in at.error] == [
        e for e in (e.value.replace("\\", "") for e in at.error) if e.startswith(message)
    ]
    assert len(at.error) == 1
    assert len(at.dataframe) == 1  # the text's summary, no corpus table of zeros


def test_compare_empty_text_is_explained_not_zeros() -> None:
    at = open_page("compare.py")
    at.text_area(key="cmp_text").set_value("").run()
    assert not at.exception
    assert any("The text is empty" in i.value for i in at.info)
    assert not [b for b in html_bodies(at) if "data-tokenizer=" in b]


def test_compare_token_details_and_newline_id() -> None:
    """Each token carries its details for hover and tap (tabindex + data-info); a token
    ending in a newline is marked so that its id is drawn before the line break."""
    text = PHRASE + "\nක"
    at = open_page("compare.py")
    at.text_area(key="cmp_text").set_value(text).run()
    at.toggle(key="cmp_ids").set_value(True).run()
    body = next(b for b in html_bodies(at) if 'data-tokenizer="SGPE"' in b)
    spans = re.findall(r'<span class="(tok[^"]*)" tabindex="0" data-id="(\d+)"[^>]*>', body)
    shipped = sgpe.load(defaults.DEFAULT_SGPE)
    assert [int(i) for _, i in spans] == shipped.encode(text)
    nl = [cls for cls, _ in spans if " nl" in cls]
    assert len(nl) == 1
    info = html.unescape(re.findall(r'data-info="([^"]*)"', body)[0])
    first_id = shipped.encode(text)[0]
    assert info.startswith(f"id {first_id}\n")
    assert "U+0DC1" in info and "syllables: 1 whole syllable, none broken" in info
    base_body = next(b for b in html_bodies(at) if 'data-tokenizer="Byte-level BPE"' in b)
    assert "syllables: tears a syllable" in html.unescape(base_body)


def test_evaluate_per_script_with_an_uploaded_hf_tokenizer() -> None:
    from sgpe import metrics
    from sgpe.interop.hf import to_hf_str

    at = open_page("evaluate.py")
    assert not at.exception
    assert at.multiselect(key="ev_pick").value == ["sgpe", "base", "o200k_base"]
    at.selectbox(key="ev_text").set_value("mixed.txt").run()
    table = at.dataframe[0].value
    shipped = sgpe.load(defaults.DEFAULT_SGPE)
    lines = list(metrics.read_lines(defaults.SAMPLE_DATA / "mixed.txt"))
    expected = metrics.evaluate(shipped, lines)
    row = table[(table["vocabulary"] == "SGPE") & (table["script"] == "all")].iloc[0]
    assert (
        row["tokens"],
        row["cuts that tear a syllable"],
        row["syllables spelled from their own parts"],
        row["token boundaries inside syllables"],
    ) == (expected["tokens"], expected["straddling"], expected["spelled_units"], expected["broken"])
    assert row["TWR"] == pytest.approx(expected["twr"])
    scripts = list(table[table["vocabulary"] == "SGPE"]["script"])
    assert scripts[0] == "all" and {"Sinhala", "Devanagari"} <= set(scripts)
    per_script = table[(table["vocabulary"] == "SGPE") & (table["script"] != "all")]
    assert int(per_script["lines"].sum()) == len(lines)

    # The shipped vocabulary exported to HF gives the same numbers (exact id parity).
    hf = to_hf_str(shipped).encode("utf-8")
    at.file_uploader(key="ev_hf").set_value([("tokenizer.json", hf, "application/json")]).run()
    labels = [o for o in at.multiselect(key="ev_pick").options if "(HF)" in o]
    assert labels == ["tokenizer.json (HF): 4,000 tokens"]
    import hashlib

    hf_key = f"hf:{hashlib.sha256(hf).hexdigest()[:12]}"
    at.multiselect(key="ev_pick").set_value(["sgpe", hf_key]).run()
    table = at.dataframe[0].value
    assert list(dict.fromkeys(table["vocabulary"])) == ["SGPE", "tokenizer.json (HF)"]
    a = table[table["vocabulary"] == "SGPE"].drop(columns="vocabulary").reset_index(drop=True)
    b = table[table["vocabulary"] != "SGPE"].drop(columns="vocabulary").reset_index(drop=True)
    assert a.equals(b)


def test_evaluate_explains_a_damaged_hf_file() -> None:
    at = open_page("evaluate.py")
    at.file_uploader(key="ev_hf").set_value(
        [("tokenizer.json", b'{"model": {"type": "BPE"', "application/json")]
    ).run()
    assert not at.exception
    (error,) = [e.value.replace("\\", "") for e in at.error]
    assert error.startswith("tokenizer.json: not valid JSON (line 1, column")
    assert len(at.dataframe[0].value) > 0  # the page still evaluates the others


# ============================================================================ Merges


def step_captions(at: AppTest) -> list[str]:
    return [c.value for c in at.caption if c.value.startswith("Step ")]


def test_merges_stepper() -> None:
    word = "ලංකාව"
    at = open_page("merges.py")
    at.text_area(key="mrg_text").set_value(word).run()
    shipped = sgpe.load(defaults.DEFAULT_SGPE)
    (trace,) = shipped.merge_trace(word)
    assert trace.steps, "the shipped vocabulary merges ලංකාව"
    assert at.slider(key="mrg_step").value == 0
    assert f"Step 0 of {len(trace.steps)}" in step_captions(at)[0]
    at.button(key="mrg_next").click().run()
    assert at.slider(key="mrg_step").value == 1
    caption = step_captions(at)[0].replace("\\", "")
    first = trace.steps[0]
    assert f"Step 1 of {len(trace.steps)}" in caption
    assert f"rank {first.rank:,}" in caption
    assert "training count" in caption
    body = next(b for b in html_bodies(at) if "sgpe-steps" in b)
    assert span_texts(body.replace('class="tok new"', 'class="tok"'), "tok") == [
        t.replace(" ", "\u00b7") for t in first.tokens
    ]
    at.button(key="mrg_prev").click().run()
    assert at.slider(key="mrg_step").value == 0


def test_merges_jump_to_the_first_merge_of_a_syllable() -> None:
    word = "ලංකාව"
    at = open_page("merges.py")
    at.text_area(key="mrg_text").set_value(word).run()
    assert at.selectbox(key="mrg_syllable").options == ["ලං", "කා", "ව"]
    shipped = sgpe.load(defaults.DEFAULT_SGPE)
    (trace,) = shipped.merge_trace(word)
    merged = [s.pair[0] + s.pair[1] for s in trace.steps]
    expected = next(i for i, m in enumerate(merged) if m.strip() in "කා" or "කා" in m)
    at.selectbox(key="mrg_syllable").set_value("කා").run()
    at.button(key="mrg_jump").click().run()
    assert at.slider(key="mrg_step").value == expected + 1
    caption = step_captions(at)[0].replace("\\", "")
    assert f"Step {expected + 1} of {len(trace.steps)}" in caption
    assert "කා" in merged[expected] or merged[expected].strip() in "කා"


def test_merges_play_runs_on_a_timer() -> None:
    """Play starts the timer (AppTest does not fire it: the browser test watches it step)."""
    at = open_page("merges.py")
    at.text_area(key="mrg_text").set_value("ලංකාව").run()
    assert at.button(key="mrg_play").proto.label == "▶ Play"
    at.button(key="mrg_play").click().run()
    assert at.session_state["mrg_playing"] is True
    assert at.button(key="mrg_play").proto.label == "⏸ Pause"
    at.button(key="mrg_play").click().run()
    assert at.session_state["mrg_playing"] is False


def test_merges_table_filter() -> None:
    at = open_page("merges.py")
    at.text_input(key="mrg_filter").set_value("ලං").run()
    table = at.dataframe[-1].value
    assert len(table) > 0
    assert all("ලං" in f"{a}|{b}|{m}" for a, b, m in zip(table.left, table.right, table.merged))
    assert table["count"].notna().all()


# ============================================================================ Train


def _wait_for_runs(root: Path, n: int) -> list[Any]:
    from sgpe_explorer.runs.manager import RunManager

    manager = RunManager(root)
    infos = manager.list_runs()
    assert len(infos) == n, infos
    for info in infos:
        st_ = manager.wait(info.run.id, timeout=60)
        assert st_.state == "done", st_
    return manager.list_runs()


def test_train_upload_with_a_hostile_file_name(runs_dir: Path) -> None:
    name = "<img src=x onerror=alert(1)>**b**.txt"
    at = open_page("train.py")
    at.radio(key="train_source").set_value("upload").run()
    corpus = "\n".join(["ශ්\u200dරී ලංකාව ලස්සන රටකි."] * 20).encode("utf-8")
    at.file_uploader(key="train_upload").set_value((name, corpus, "text/plain")).run()
    at.toggle(key="train_base").set_value(False)
    at.text_input(key="train_vocab_size").set_value("1000")
    at.button(key="train_start").click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    (info,) = _wait_for_runs(runs_dir, 1)
    assert info.config.corpus_name == name
    at.run()
    shown = [m.value for m in at.markdown if "done" in m.value]
    assert shown, [m.value for m in at.markdown]
    # Markdown sees the name as literal text: every character it could read is escaped.
    assert "\\<img src=x onerror=alert\\(1\\)\\>\\*\\*b\\*\\*" in shown[0]


def test_train_page_names_a_run_whose_config_is_damaged(runs_dir: Path) -> None:
    from sgpe_explorer.runs.manager import RunManager, RunRequest

    manager = RunManager(runs_dir)
    text = "\n".join(["ශ්\u200dරී ලංකාව ලස්සන රටකි."] * 20).encode("utf-8")
    run = manager.start(RunRequest(text, name="a.txt", vocab_size=400))
    assert manager.wait(run).state == "done"
    (run.path / "config.json").write_text("{", encoding="utf-8")
    at = open_page("train.py")
    assert not at.exception
    shown = " ".join(w.value.replace("\\", "") for w in at.warning)
    assert f"Run {run.id} cannot be shown" in shown and "config.json" in shown


def test_train_run_and_use_it(runs_dir: Path) -> None:
    """Train a named run, use it, see it named (not by its hex id) on the pages."""
    import time

    from sgpe_explorer.runs.manager import read_label

    at = open_page("train.py")
    at.selectbox(key="train_sample").set_value("sinhala.txt")
    at.text_input(key="train_vocab_size").set_value("2500")
    at.text_input(key="train_label").set_value("  <b>Sinhala</b>   2.5k ")
    at.button(key="train_start").click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Started run" in s.value for s in at.success)
    infos = _wait_for_runs(runs_dir, 2)
    assert {i.config.model for i in infos} == {"sgpe", "bytebpe"}
    sgpe_run = next(i for i in infos if i.config.model == "sgpe")
    assert {read_label(i.run.path) for i in infos} == {"<b>Sinhala</b> 2.5k"}
    when = time.strftime("%d %b %Y %H:%M UTC", time.gmtime(sgpe_run.config.created))

    at.run()  # what the polling fragment would show now
    assert not at.exception
    heads = [m.value for m in at.markdown if m.value.startswith("**\\<b\\>Sinhala")]
    assert len(heads) == 2 and all(f"started {when}" in h for h in heads), heads
    assert all("<b>" not in b for b in html_bodies(at))
    # Each finished run offers its own downloads, named after the run, drawn once the
    # visitor opens its Downloads expander (what opening it sets).
    assert not at.get("download_button")
    for info in infos:
        at.session_state[f"train_dl_{info.run.id}"] = True
    at.run()
    names = [b.proto.help for b in at.get("download_button")]  # "<file name> (made when ...)"
    for info in infos:
        assert any(info.run.id in n and "tokenizer.json " in n for n in names), names
    at.button(key=f"use_{sgpe_run.run.id}").click().run()
    assert not at.exception
    assert at.sidebar.selectbox(key="side_tok").value == sgpe_run.run.id
    trained = sgpe.load(sgpe_run.run.path / "vocab.json")
    side = at.sidebar.selectbox(key="side_tok")
    # Name and start first: the sidebar cuts a choice at about 38 characters.
    assert side.format_func(side.value) == (
        f"<b>Sinhala</b> 2.5k · {when[:6]}{when[11:17]} · {trained.vocab_size:,} tokens · "
        "SGPE hierarchical"
    )
    # The trained size (min_freq may stop a small corpus just short of the requested size).
    assert 2400 < trained.vocab_size <= 2500
    assert f"{trained.vocab_size:,} tokens" in at.sidebar.caption[-1].value
    assert at.query_params["tok"] == sgpe_run.run.id
    assert any("is now the active SGPE tokenizer" in s.value.replace("\\", "") for s in at.success)
    at.switch_page("app_pages/compare.py").run()
    assert not at.exception
    summary = at.dataframe[0].value
    text = at.text_area(key="cmp_text").value
    assert summary.loc["SGPE", "tokens"] == len(trained.encode(text))
    captions = " ".join(c.value for c in at.caption)
    assert "not trained on the same corpus" not in captions  # its baseline run is matched

    # A fresh session on a link with ?tok= opens with that vocabulary in the sidebar.
    linked = AppTest.from_file(APP, default_timeout=TIMEOUT)
    linked.query_params["tok"] = sgpe_run.run.id
    linked.run()
    assert not linked.exception
    assert linked.sidebar.selectbox(key="side_tok").value == sgpe_run.run.id
    assert f"{trained.vocab_size:,} tokens" in linked.sidebar.caption[-1].value


def test_train_form_defaults_come_from_the_settings(runs_dir: Path) -> None:
    from sgpe.settings import TrainSettings, default

    at = open_page("train.py")
    s = TrainSettings()
    assert at.radio(key="train_mode").value == s.mode
    # The form's own default size, which its first corpus reaches (tests/test_app_runs.py)
    assert at.text_input(key="train_vocab_size").value == str(defaults.DEFAULT_VOCAB_SIZE)
    assert at.text_input(key="train_prune_freq").value == str(s.prune_freq)
    assert default("min_freq") is None  # the mode's: an empty box
    assert at.text_input(key="train_min_freq").value == ""
    assert s.superwords_from is None  # off: an empty box
    assert at.text_input(key="train_superwords_from").value == ""
    assert at.toggle(key="train_leading_space").value is s.leading_space
    assert at.radio(key="train_oov_policy").value == s.oov_policy


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("train_vocab_size", "0", "Vocabulary size must be an integer above 5, got 0."),
        ("train_vocab_size", "-40", "Vocabulary size must be an integer above 5, got -40."),
        ("train_prune_freq", "-1", "Prune frequency must be >= 0, got -1."),
        ("train_min_freq", "0", "Minimum pair frequency must be >= 1, got 0."),
    ],
)
def test_train_form_refuses_a_value_out_of_range(
    runs_dir: Path, key: str, value: str, message: str
) -> None:
    """A size of 0 turned the box red but Start stayed on and trained at
    the previous size. The boxes have no browser-side minimum: the value reaches the page,
    which names the field and what is wrong, and Start is off until it is fixed."""
    at = open_page("train.py")
    assert not at.button(key="train_start").disabled
    at.text_input(key=key).set_value(value).run()
    assert not at.exception, [e.value for e in at.exception]
    assert [e.value.replace("\\", "") for e in at.error] == [message]
    assert at.button(key="train_start").disabled
    assert not list(runs_dir.glob("2*"))


def test_train_form_refuses_a_run_name_with_control_characters(runs_dir: Path) -> None:
    at = open_page("train.py")
    at.text_input(key="train_label").set_value("a\x07b").run()
    errors = [e.value.replace("\\", "") for e in at.error]
    assert errors == ["Run name: a run name cannot hold control characters."]
    assert at.button(key="train_start").disabled


def test_a_large_upload_is_read_in_the_background(runs_dir: Path) -> None:
    """Reading a large upload for its size range held the page (and a
    Start pressed meanwhile) for seconds. Above 1 MB it is read in a worker process: the
    page returns at once, says so, keeps Start on, and shows the same range as the
    library once the worker is done."""
    import time

    from sgpe.settings import TrainSettings
    from sgpe_explorer.runs.manager import size_range
    from sgpe_explorer.ui import train_form

    data = (defaults.SAMPLE_DATA / "sinhala.txt").read_bytes() * 15
    assert len(data) > train_form.BACKGROUND_BYTES
    at = open_page("train.py")
    at.radio(key="train_source").set_value("upload").run()
    start = time.monotonic()
    at.file_uploader(key="train_upload").set_value(("big.txt", data, "text/plain")).run()
    assert time.monotonic() - start < 2.0
    assert not at.exception, [e.value for e in at.exception]
    captions = [c.value for c in at.caption]
    assert any(c.startswith(f"Reading this corpus ({len(data) / 1e6:,.1f} MB)") for c in captions)
    assert not at.button(key="train_start").disabled
    path = runs_dir.parent / "big.txt"
    path.write_bytes(data)
    want = size_range(path, TrainSettings())
    line = (
        f"This corpus with these settings: {want.documents:,} documents, a base alphabet of "
        f"{want.base:,} symbols, so a vocabulary of {want.smallest:,} to at most "
        f"{want.largest:,} tokens."
    )
    deadline = time.monotonic() + 120
    while line not in [c.value for c in at.caption] and time.monotonic() < deadline:
        time.sleep(0.5)
        at.run()
    assert line in [c.value for c in at.caption]


def test_train_form_min_freq_says_the_modes_default_in_words(runs_dir: Path) -> None:
    """No CLI spelling ("--mode paper") on the web form: the empty box says the chosen
    mode's default, the help lists every mode's."""
    at = open_page("train.py")
    box = at.text_input(key="train_min_freq")
    assert box.placeholder == "hierarchical default: 1"  # short enough to show whole
    assert box.help.endswith(
        "Empty: the training mode's default (1 for hierarchical, 2 for paper)."
    )
    at.radio(key="train_mode").set_value("paper").run()
    assert at.text_input(key="train_min_freq").placeholder == "paper default: 2"


def test_train_form_checks_the_size_against_the_corpus(runs_dir: Path) -> None:
    """The base alphabet and the largest size of the chosen corpus are shown; a size
    below the smallest is an inline error and Start is off; above the largest, a warning."""
    from sgpe.settings import TrainSettings
    from sgpe_explorer.runs.manager import size_range

    at = open_page("train.py")
    at.selectbox(key="train_sample").set_value("sinhala.txt").run()
    limits = size_range(defaults.SAMPLE_DATA / "sinhala.txt", TrainSettings())
    captions = " ".join(c.value for c in at.caption)
    assert (
        f"a base alphabet of {limits.base:,} symbols, so a vocabulary of {limits.smallest:,} "
        f"to at most {limits.largest:,} tokens"
    ) in captions
    at.text_input(key="train_vocab_size").set_value("100").run()
    errors = [e.value.replace("\\", "") for e in at.error]
    assert any(
        "100 is below the smallest size" in e and f"{limits.smallest:,}" in e for e in errors
    )
    assert any("baseline needs a vocabulary size of at least 257" in e for e in errors)
    assert at.button(key="train_start").disabled
    at.text_input(key="train_vocab_size").set_value(str(limits.smallest)).run()
    assert not at.error and not at.button(key="train_start").disabled
    at.text_input(key="train_vocab_size").set_value(str(limits.largest + 1)).run()
    warnings = [w.value.replace("\\", "") for w in at.warning]
    assert any("more than this corpus can give" in w for w in warnings), warnings
    assert not at.button(key="train_start").disabled
    # another mode has another base alphabet, shown at once
    at.radio(key="train_mode").set_value("paper").run()
    paper = size_range(defaults.SAMPLE_DATA / "sinhala.txt", TrainSettings(mode="paper"))
    assert f"a base alphabet of {paper.base:,} symbols" in " ".join(c.value for c in at.caption)
    assert not list(runs_dir.glob("2*")), "checking the form starts nothing"


def test_the_train_page_lists_runs_without_launching_them(runs_dir: Path) -> None:
    """A queued run with a free slot stays queued while the page shows it, rerun after
    rerun (only a trainer ending, a start, or the app starting launches queued runs)."""
    from sgpe.runs import create_run
    from sgpe_explorer.runs.manager import RunRequest, new_run_id

    at = open_page("train.py")  # the app's start (its one poll) is behind us
    run_dir = runs_dir / new_run_id()
    corpus = defaults.SAMPLE_DATA / "sinhala.txt"
    create_run(run_dir, RunRequest(corpus, vocab_size=400).config(), corpus)
    before = (run_dir / "status.json").read_bytes()
    at.session_state["train_server"] = True  # a run without an owner: opened, it is drawn
    for _ in range(3):
        at.run()
        assert not at.exception, [e.value for e in at.exception]
    assert any("**queued**" in m.value for m in at.markdown)
    assert (run_dir / "status.json").read_bytes() == before


def test_resume_and_delete_only_where_they_apply(runs_dir: Path, monkeypatch: Any) -> None:
    """No Resume for a run that failed because of its settings. Another visitor's runs are
    not listed, except their finished vocabularies, read-only (Use, no Cancel, Resume or
    Delete); a run without an owner is read-only too; SGPE_ADMIN=1 manages every run."""
    import json as json_

    from sgpe_explorer.runs.manager import RunManager, RunRequest

    manager = RunManager(runs_dir)
    text = "\n".join(["ශ්\u200dරී ලංකාව ලස්සන රටකි."] * 20).encode("utf-8")
    failed = manager.start(RunRequest(text, name="a.txt", vocab_size=20))
    theirs = manager.start(RunRequest(text, name="b.txt", vocab_size=400, owner="someone"))
    stopped = manager.start(RunRequest(text, name="c.txt", vocab_size=400, owner="someone"))
    assert manager.cancel(stopped).state == "cancelled"
    assert manager.wait(failed).state == "failed" and manager.wait(theirs).state == "done"
    at = open_page("train.py")
    keys = {b.key for b in at.button}
    assert f"use_{theirs.id}" not in keys  # others' runs are drawn once their list is opened
    at.session_state["train_shared"] = True  # what opening that expander sets
    at.session_state["train_server"] = True
    at.run()
    keys = {b.key for b in at.button}
    assert f"resume_{failed.id}" not in keys and f"delete_{failed.id}" not in keys
    assert f"use_{theirs.id}" in keys
    for label in ("cancel", "resume", "delete"):
        assert f"{label}_{theirs.id}" not in keys and f"{label}_{stopped.id}" not in keys
    markdown = " ".join(m.value for m in at.markdown)
    assert stopped.id not in markdown  # another visitor's unfinished run is not listed
    assert "another visitor's run (read-only)" in markdown
    assert [e.label for e in at.expander if "Other visitors" in e.label] == [
        "Other visitors' finished vocabularies (1, read-only)"
    ]
    monkeypatch.setenv("SGPE_ADMIN", "1")
    at.run()
    keys = {b.key for b in at.button}
    assert {f"delete_{theirs.id}", f"resume_{stopped.id}", f"delete_{stopped.id}"} <= keys
    assert f"delete_{failed.id}" in keys and f"resume_{failed.id}" not in keys
    at.button(key=f"delete_{theirs.id}").click().run()
    assert not theirs.path.exists()
    assert json_.loads((failed.path / "status.json").read_text())["resumable"] is False


def _kb(n: int) -> str:
    return f"{n / 1000:,.1f} kB"


def test_train_page_shows_disk_use_and_cleans_up(runs_dir: Path) -> None:
    """The page shows what the visitor's runs and uploads take; cleanup deletes this
    visitor's finished and failed runs (not the one in use, not another visitor's) and then
    their uploads that no run uses (never one a run refers to), with a message for each.
    (The figures were the whole server's, and the visitor's runs here were ownerless
    ones; tests/test_app_words.py holds the other visitor's side.)"""
    import hashlib

    from sgpe_explorer.runs.manager import RunManager, RunRequest

    key = "0123456789abcdef" * 2  # this visitor's owner key (sgpe_explorer/ui/owner.py)
    me = hashlib.sha256(f"sgpe-owner:{key}".encode()).hexdigest()[:32]
    manager = RunManager(runs_dir)
    lines = ["ශ්\u200dරී ලංකාව ලස්සන රටකි.", "ගුරුවරු පාඩම් උගන්වති."]
    texts = [("\n".join(lines[: k + 1] * 20) + "\n").encode("utf-8") for k in range(2)]
    texts.append("\n".join(["අම්මා කෑම උයනවා."] * 20).encode("utf-8"))
    uploads = [hashlib.sha256(t).hexdigest() + ".txt" for t in texts]
    in_use = manager.start(RunRequest(texts[0], name="a.txt", vocab_size=400, owner=me))
    failed = manager.start(RunRequest(texts[0], name="a.txt", vocab_size=20, owner=me))
    gone = manager.start(RunRequest(texts[1], name="b.txt", vocab_size=400, owner=me))
    theirs = manager.start(RunRequest(texts[2], name="c.txt", vocab_size=400, owner="someone"))
    done = manager.start(RunRequest(texts[2], name="c.txt", vocab_size=410, owner=me))
    for run, state in ((in_use, "done"), (failed, "failed"), (gone, "done"), (theirs, "done"), (done, "done")):  # fmt: skip
        assert manager.wait(run).state == state
    manager.delete(gone)  # its upload is now used by no run
    use = manager.disk_use(as_owner=me)
    assert (use.runs, use.uploads, use.unused_uploads) == (3, 3, 1)

    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state["owner_key"] = key
    at.query_params["tok"] = in_use.id
    at.run()
    at.switch_page("app_pages/train.py").run()
    assert not at.exception, [e.value for e in at.exception]
    captions = [c.value for c in at.caption]
    assert (
        f"Disk use, yours: runs {_kb(use.runs_bytes)} (3 runs) · uploads {_kb(use.uploads_bytes)} "
        "(3 files, 1 used by no run). Runs read their corpus where it is; an upload is stored "
        "once."
    ) in captions, captions
    runs_button = at.button(key="train_clean_runs")
    assert runs_button.label == "Delete 2 finished or failed run(s)"  # failed + done
    uploads_button = at.button(key="train_clean_uploads")
    assert uploads_button.label == f"Delete 1 unused upload(s) ({_kb(len(texts[1]))})"

    freed = sum(p.stat().st_size for r in (failed, done) for p in r.path.rglob("*") if p.is_file())
    runs_button.click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert {i.run.id for i in manager.list_runs()} == {in_use.id, theirs.id}
    successes = [m.value.replace("\\", "") for m in at.success]
    assert f"Deleted 2 finished or failed run(s); {_kb(freed)} freed." in successes, successes

    at.run()
    assert at.button(key="train_clean_uploads").label == (
        f"Delete 1 unused upload(s) ({_kb(len(texts[1]))})"  # the others are still used
    )
    at.button(key="train_clean_uploads").click().run()
    assert not at.exception, [e.value for e in at.exception]
    successes = [m.value.replace("\\", "") for m in at.success]
    assert f"Deleted 1 upload(s) that no run uses; {_kb(len(texts[1]))} freed." in successes
    assert sorted(p.name for p in (runs_dir / "uploads").glob("*.txt")) == sorted(
        [uploads[0], uploads[2]]
    )
    at.run()
    assert at.button(key="train_clean_uploads").disabled
    assert at.button(key="train_clean_runs").disabled  # in use, or another visitor's


# ============================================================================ damaged files
# The app never shows a traceback for a damaged file: the library's one-line
# message, and the page still works.

DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("deep.jsonl", DEEP + "\n", "deep.jsonl: line 1: JSON nested too deeply to read"),
        ("quote.csv", 'text\n"never closed\nmore\n', "quote.csv: line 2: a quoted field opened"),
    ],
)
def test_train_upload_of_a_bad_corpus_is_a_clear_error(
    runs_dir: Path, name: str, content: str, message: str
) -> None:
    at = open_page("train.py")
    at.radio(key="train_source").set_value("upload").run()
    at.file_uploader(key="train_upload").set_value((name, content.encode(), "text/plain")).run()
    assert not at.exception, [e.value for e in at.exception]
    # the upload is checked before anything is submitted: the error shows, Start is off
    errors = [e.value.replace("\\", "") for e in at.error]
    assert any(message in e for e in errors), errors
    assert at.button(key="train_start").disabled
    assert not any(runs_dir.glob("2*")), "a rejected upload leaves no run behind"


@pytest.fixture
def finished_run(runs_dir: Path) -> Any:
    from sgpe_explorer.runs.manager import RunManager, RunRequest

    mgr = RunManager(runs_dir)
    run = mgr.start(RunRequest(defaults.SAMPLE_DATA / "sinhala.txt", vocab_size=2500))
    assert mgr.wait(run, timeout=60).state == "done"
    return run


def test_a_damaged_vocab_of_the_linked_run_falls_back_to_the_shipped_one(
    finished_run: Any,
) -> None:
    vocab = finished_run.path / "vocab.json"
    good = json.loads(vocab.read_text(encoding="utf-8"))
    cases = [
        ('{"format": "sgpe-vocab", "prune_freq": ', "not valid JSON (line 1, column"),
        (DEEP, "JSON nested too deeply to read"),
        (json.dumps({**good, "training": "abc"}), "key 'training' must be an object"),
        (json.dumps({**good, "prune_freq": [1]}), "key 'prune_freq' must be a number"),
    ]
    shipped = sgpe.load(defaults.DEFAULT_SGPE)
    for content, message in cases:
        vocab.write_text(content, encoding="utf-8")
        at = AppTest.from_file(APP, default_timeout=TIMEOUT)
        at.query_params["tok"] = finished_run.id
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        warnings = [w.value.replace("\\", "") for w in at.sidebar.warning]
        assert len(warnings) == 1, warnings
        # A visitor gets the file's name, not its path (tests/test_app_words.py).
        assert warnings[0].startswith(
            f"Run {finished_run.id} cannot be used: vocab.json: {message}"
        )
        assert "The shipped vocabulary is used instead" in warnings[0]
        assert f"Active: {shipped.vocab_size:,} tokens" in at.sidebar.caption[-1].value
        at.switch_page("app_pages/compare.py").run()
        assert not at.exception, [e.value for e in at.exception]


def test_a_damaged_merges_file_is_a_warning_on_the_pages(finished_run: Any) -> None:
    merges = finished_run.path / "merges.parquet"
    merges.write_bytes(b"not parquet")
    for page in ("train.py", "merges.py"):
        at = open_page(page, tok=finished_run.id)
        assert not at.exception, [e.value for e in at.exception]
    # The merge curve is drawn for the visitor's own runs: this visitor's, by its owner key.
    key = "0123456789abcdef" * 2
    owner = hashlib.sha256(f"sgpe-owner:{key}".encode()).hexdigest()[:32]
    (finished_run.path / "owner.json").write_text(json.dumps({"owner": owner}), "utf-8")
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state["owner_key"] = key
    at.query_params["tok"] = finished_run.id
    at.run()
    at.switch_page("app_pages/train.py").run()
    assert not at.exception, [e.value for e in at.exception]
    warnings = [w.value.replace("\\", "") for w in at.warning]
    assert any(
        w.startswith("The merge curve cannot be shown: merges.parquet: not a readable parquet file")
        for w in warnings
    ), warnings


def test_core_never_imports_the_ui() -> None:
    core = list((REPO_ROOT / "sgpe").glob("*.py"))
    assert core
    for path in core:
        assert "sgpe_explorer" not in path.read_text(encoding="utf-8"), path.name


# ============================================================================ downloads


@pytest.mark.parametrize(
    "path", [defaults.DEFAULT_SGPE, defaults.DEFAULT_BYTEBPE], ids=["sgpe", "bytebpe"]
)
def test_downloads_of_a_vocabulary_load_back(
    path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    import zipfile

    import pandas as pd
    from tokenizers import Tokenizer as HFTokenizer

    from sgpe import metrics
    from sgpe.interop import hf_folder
    from sgpe_explorer.ui import downloads

    transformers = pytest.importorskip("transformers")

    tok = sgpe.load(path)
    texts = {n: defaults.SAMPLE_DATA / n for n in defaults.SAMPLE_FILES}
    made = {d.label: d for d in downloads.files(tok, path, "shipped", tok.merge_counts, texts)}
    stem = "sgpe-auto-4000-shipped" if tok.model == "sgpe" else "bytebpe-bytes-4000-shipped"
    assert made["tokenizer.json (Hugging Face)"].file_name == f"{stem}-tokenizer.json"
    hf = HFTokenizer.from_str(made["tokenizer.json (Hugging Face)"].make().decode("utf-8"))
    for line in defaults.sample_documents()[:50]:
        assert hf.encode(line, add_special_tokens=False).ids == list(tok.encode(line))
    assert made["vocab.json"].make() == path.read_bytes()
    folder = made["tokenizer folder (Hugging Face, zip)"]
    assert folder.file_name == f"{stem}-hf.zip" and folder.make() == folder.make()
    with zipfile.ZipFile(io.BytesIO(folder.make())) as archive:
        assert sorted(archive.namelist()) == sorted(f"{stem}-hf/{n}" for n in hf_folder.FILES)
        archive.extractall(tmp_path)
    assert sgpe.load(tmp_path / f"{stem}-hf").to_dict() == tok.to_dict()
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    auto = transformers.AutoTokenizer.from_pretrained(str(tmp_path / f"{stem}-hf"))
    lines = defaults.sample_documents()[:20]
    assert auto(lines)["input_ids"] == [tok.encode(line) for line in lines]
    merges = pd.read_csv(io.BytesIO(made["merges (CSV)"].make()), keep_default_na=False)
    assert list(merges["count"]) == tok.merge_counts and len(merges) == len(tok.merges)
    report = pd.read_csv(io.BytesIO(made["metrics report (CSV)"].make()))
    assert list(report["text"]) == list(defaults.SAMPLE_FILES)
    expected = metrics.evaluate(tok, metrics.read_lines(texts["hindi.txt"]))
    assert int(report.loc[1, "tokens"]) == expected["tokens"]
    records = json.loads(made["metrics report (JSON)"].make())
    assert [r["tokens"] for r in records] == list(report["tokens"])
    charts_made = [d for d in made.values() if d.file_name.endswith((".html", ".png", ".svg"))]
    assert {d.file_name for d in charts_made} >= {
        f"{stem}-merge-curve.html",
        f"{stem}-report-twr.html",
    }
    assert b"plotly" in charts_made[0].make()[:200_000].lower()


def test_vocabulary_page_offers_the_downloads() -> None:
    at = open_page("vocabulary.py")
    labels = [b.proto.label for b in at.get("download_button")]
    assert {
        "tokenizer folder (Hugging Face, zip)",
        "tokenizer.json (Hugging Face)",
        "vocab.json",
        "merges (CSV)",
        "metrics report (CSV)",
        "metrics report (JSON)",
    } <= set(labels)
    assert "merge curve (HTML)" in labels and "report chart (HTML)" in labels


def test_the_chart_code_to_warm_is_found_in_the_installed_streamlit() -> None:
    """sgpe_explorer/ui/warm.py names Streamlit's chart and table code by file name: a
    Streamlit that renames them gets no warm-up (the pages still work), and this test says so."""
    from sgpe_explorer.ui import warm

    files = warm.chunk_files()
    assert [f.split(".")[0] for f in files] == list(warm.CHUNKS)
    script = warm.chunk_script()
    assert all(f'"{f}"' in script for f in files) and "window.__sgpeWarm" in script
    assert warm.chunk_script(()) == ""
    at = open_page("syllables.py")
    assert any("window.__sgpeWarm" in b for b in html_bodies(at))

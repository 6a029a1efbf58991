"""The Streamlit app under ``streamlit.testing.v1.AppTest`` (no browser).

* every page in ``app_pages/`` renders without an exception (ids are the file names);
* one scripted interaction per page, asserting rendered values against :mod:`sgpe`;
* user text is HTML-escaped (``<script>`` and ``<img onerror>`` payloads);
* the text and options round-trip through the URL; a 1 MB text is capped for display.

AppTest does not fire ``run_every`` timers, so the Train test waits for its runs with the
run manager and reruns the script itself. Runs go to a temporary ``SGPE_RUNS_DIR``.
"""

from __future__ import annotations

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
APP = str(REPO_ROOT / "app.py")
PAGES = sorted(p.name for p in (REPO_ROOT / "app_pages").glob("*.py"))
TIMEOUT = 60

PHRASE = "ශ්\u200dරී ලංකාව"  # ශ්‍රී ලංකාව with its ZWJ written out
XSS = "<script>alert(1)</script><img src=x onerror=alert(1)> ක"


@pytest.fixture(autouse=True)
def runs_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Runs started by the app go to a temporary directory, never the repo's runs/."""
    root = tmp_path / "runs"
    monkeypatch.setenv("SGPE_RUNS_DIR", str(root))
    yield root
    from sgpe.runs.manager import RunManager

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
    app = (REPO_ROOT / "app.py").read_text(encoding="utf-8")
    for page in PAGES:
        assert f'"app_pages/{page}"' in app


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
    assert list(at.sidebar.selectbox(key="side_tok").options) == ["shipped: sample_data, 4,000"]


def test_shipped_merge_counts_come_from_the_file() -> None:
    at = open_page("merges.py")
    at.text_input(key="mrg_filter").set_value("ලං").run()
    table = at.dataframe[-1].value
    shipped = sgpe.load(defaults.DEFAULT_SGPE)
    assert shipped.merge_counts is not None
    assert list(table["count"]) == [shipped.merge_counts[r] for r in table["rank"]]


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
    body = next(b for b in html_bodies(at) if "sgpe-syllables" in b)
    assert span_texts(body, "syl") == syllabify(PHRASE) == ["ශ්\u200dරී", " ", "ලං", "කා", "ව"]
    # Hover info: code points with names and classes, and the DFA path.
    assert "U+200D  Z  ZERO WIDTH JOINER" in html.unescape(body)
    assert "START -C-&gt; CLUSTER" in body or "START -C-> CLUSTER" in html.unescape(body)

    at.toggle(key="syl_ls").set_value(True).run()
    body = next(b for b in html_bodies(at) if "sgpe-syllables" in b)
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


def test_syllables_grapheme_count_uses_extended_clusters() -> None:
    import regex

    at = open_page("syllables.py")
    at.text_area(key="syl_text").set_value(PHRASE).run()
    assert dict(metrics_of(at))["Grapheme clusters"] == str(len(regex.findall(r"\X", PHRASE)))


def test_syllables_invisible_characters_are_marked_outside_the_syllable() -> None:
    at = open_page("syllables.py")
    at.text_area(key="syl_text").set_value(PHRASE + "\tx\n").run()
    at.toggle(key="syl_inv").set_value(True).run()
    body = next(b for b in html_bodies(at) if "sgpe-syllables" in b)
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
    body = next(b for b in html_bodies(at) if "sgpe-syllables" in b)
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
    assert summary.loc["SGPE", "broken boundaries"] == 0
    assert summary.loc["Byte-level BPE", "broken boundaries"] > 0
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
    assert (row["tokens"], row["broken boundaries"]) == (expected["tokens"], expected["broken"])
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
    from sgpe.runs.manager import RunManager

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
    at.number_input(key="train_vocab_size").set_value(1000)
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
    from sgpe.runs.manager import RunManager, RunRequest

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
    at = open_page("train.py")
    at.selectbox(key="train_sample").set_value("sinhala.txt")
    at.number_input(key="train_vocab_size").set_value(2500)
    at.button(key="train_start").click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Started run" in s.value for s in at.success)
    infos = _wait_for_runs(runs_dir, 2)
    assert {i.config.model for i in infos} == {"sgpe", "bytebpe"}
    sgpe_run = next(i for i in infos if i.config.model == "sgpe")

    at.run()  # what the polling fragment would show now
    assert not at.exception
    # Each finished run offers its own downloads, named after the run.
    names = [b.proto.help for b in at.get("download_button")]  # "<file name> (made when ...)"
    for info in infos:
        assert any(info.run.id in n and "tokenizer.json " in n for n in names), names
    at.button(key=f"use_{sgpe_run.run.id}").click().run()
    assert not at.exception
    assert at.sidebar.selectbox(key="side_tok").value == sgpe_run.run.id
    trained = sgpe.load(sgpe_run.run.path / "vocab.json")
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
    assert at.number_input(key="train_vocab_size").value == s.vocab_size
    assert at.number_input(key="train_prune_freq").value == s.prune_freq
    assert at.number_input(key="train_min_freq").value is default("min_freq")  # the mode's
    assert at.number_input(key="train_superwords_from").value is s.superwords_from  # off
    assert at.toggle(key="train_leading_space").value is s.leading_space
    assert at.radio(key="train_oov_policy").value == s.oov_policy


def test_train_form_checks_the_size_against_the_corpus(runs_dir: Path) -> None:
    """The base alphabet and the largest size of the chosen corpus are shown; a size
    below the smallest is an inline error and Start is off; above the largest, a warning."""
    from sgpe.runs.manager import size_range
    from sgpe.settings import TrainSettings

    at = open_page("train.py")
    at.selectbox(key="train_sample").set_value("sinhala.txt").run()
    limits = size_range(defaults.SAMPLE_DATA / "sinhala.txt", TrainSettings())
    captions = " ".join(c.value for c in at.caption)
    assert (
        f"a base alphabet of {limits.base:,} symbols, so a vocabulary of {limits.smallest:,} "
        f"to at most {limits.largest:,} tokens"
    ) in captions
    at.number_input(key="train_vocab_size").set_value(100).run()
    errors = [e.value.replace("\\", "") for e in at.error]
    assert any(
        "100 is below the smallest size" in e and f"{limits.smallest:,}" in e for e in errors
    )
    assert any("baseline needs a vocabulary size of at least 257" in e for e in errors)
    assert at.button(key="train_start").disabled
    at.number_input(key="train_vocab_size").set_value(limits.smallest).run()
    assert not at.error and not at.button(key="train_start").disabled
    at.number_input(key="train_vocab_size").set_value(limits.largest + 1).run()
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
    from sgpe.runs.manager import RunRequest, new_run_id

    at = open_page("train.py")  # the app's start (its one poll) is behind us
    run_dir = runs_dir / new_run_id()
    corpus = defaults.SAMPLE_DATA / "sinhala.txt"
    create_run(run_dir, RunRequest(corpus, vocab_size=400).config(), corpus)
    before = (run_dir / "status.json").read_bytes()
    for _ in range(3):
        at.run()
        assert not at.exception, [e.value for e in at.exception]
    assert any("**queued**" in m.value for m in at.markdown)
    assert (run_dir / "status.json").read_bytes() == before


def test_resume_and_delete_only_where_they_apply(runs_dir: Path, monkeypatch: Any) -> None:
    """No Resume for a run that failed because of its settings; no Delete for another
    session's run unless SGPE_ADMIN=1."""
    import json as json_

    from sgpe.runs.manager import RunManager, RunRequest

    manager = RunManager(runs_dir)
    text = "\n".join(["ශ්\u200dරී ලංකාව ලස්සන රටකි."] * 20).encode("utf-8")
    failed = manager.start(RunRequest(text, name="a.txt", vocab_size=20))
    theirs = manager.start(RunRequest(text, name="b.txt", vocab_size=400, owner="someone"))
    assert manager.wait(failed).state == "failed" and manager.wait(theirs).state == "done"
    at = open_page("train.py")
    keys = {b.key for b in at.button}
    assert f"resume_{failed.id}" not in keys and f"delete_{failed.id}" in keys
    assert f"delete_{theirs.id}" not in keys and f"use_{theirs.id}" in keys
    assert any("another session's run" in m.value for m in at.markdown)
    monkeypatch.setenv("SGPE_ADMIN", "1")
    at.run()
    assert f"delete_{theirs.id}" in {b.key for b in at.button}
    at.button(key=f"delete_{theirs.id}").click().run()
    assert not theirs.path.exists()
    assert json_.loads((failed.path / "status.json").read_text())["resumable"] is False


def _kb(n: int) -> str:
    return f"{n / 1000:,.1f} kB"


def test_train_page_shows_disk_use_and_cleans_up(runs_dir: Path) -> None:
    """The page shows what runs and uploads take; cleanup deletes this session's finished
    and failed runs (not the one in use, not another session's) and then the uploads that
    no run uses (never one a run refers to), with a message for each."""
    import hashlib

    from sgpe.runs.manager import RunManager, RunRequest

    manager = RunManager(runs_dir)
    lines = ["ශ්\u200dරී ලංකාව ලස්සන රටකි.", "ගුරුවරු පාඩම් උගන්වති."]
    texts = [("\n".join(lines[: k + 1] * 20) + "\n").encode("utf-8") for k in range(2)]
    texts.append("\n".join(["අම්මා කෑම උයනවා."] * 20).encode("utf-8"))
    uploads = [hashlib.sha256(t).hexdigest() + ".txt" for t in texts]
    in_use = manager.start(RunRequest(texts[0], name="a.txt", vocab_size=400))
    failed = manager.start(RunRequest(texts[0], name="a.txt", vocab_size=20))
    gone = manager.start(RunRequest(texts[1], name="b.txt", vocab_size=400))
    theirs = manager.start(RunRequest(texts[2], name="c.txt", vocab_size=400, owner="someone"))
    done = manager.start(RunRequest(texts[2], name="c.txt", vocab_size=410))
    for run, state in ((in_use, "done"), (failed, "failed"), (gone, "done"), (theirs, "done"), (done, "done")):  # fmt: skip
        assert manager.wait(run).state == state
    manager.delete(gone)  # its upload is now used by no run
    use = manager.disk_use()
    assert (use.runs, use.uploads, use.unused_uploads) == (4, 3, 1)

    at = open_page("train.py", tok=in_use.id)
    assert not at.exception, [e.value for e in at.exception]
    captions = [c.value for c in at.caption]
    assert (
        f"Disk use: runs {_kb(use.runs_bytes)} (4 runs) · uploads {_kb(use.uploads_bytes)} "
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
    assert sorted(p.name for p in (runs_dir / "uploads").iterdir()) == sorted(
        [uploads[0], uploads[2]]
    )
    at.run()
    assert at.button(key="train_clean_uploads").disabled
    assert at.button(key="train_clean_runs").disabled  # in use, or another session's


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
    from sgpe.runs.manager import RunManager, RunRequest

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
        assert warnings[0].startswith(f"Run {finished_run.id} cannot be used: {vocab}: {message}")
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
    at = open_page("train.py", tok=finished_run.id)
    warnings = [w.value.replace("\\", "") for w in at.warning]
    assert any(
        w.startswith(f"The merge curve cannot be shown: {merges}: not a readable parquet file")
        for w in warnings
    ), warnings


def test_core_never_imports_the_ui() -> None:
    core = list((REPO_ROOT / "sgpe").glob("*.py"))
    assert core
    for path in core:
        assert "sgpe.ui" not in path.read_text(encoding="utf-8"), path.name


# ============================================================================ downloads


@pytest.mark.parametrize(
    "path", [defaults.DEFAULT_SGPE, defaults.DEFAULT_BYTEBPE], ids=["sgpe", "bytebpe"]
)
def test_downloads_of_a_vocabulary_load_back(path: Path) -> None:
    import io

    import pandas as pd
    from tokenizers import Tokenizer as HFTokenizer

    from sgpe import metrics
    from sgpe.ui import downloads

    tok = sgpe.load(path)
    texts = {n: defaults.SAMPLE_DATA / n for n in defaults.SAMPLE_FILES}
    made = {d.label: d for d in downloads.files(tok, path, "shipped", tok.merge_counts, texts)}
    stem = "sgpe-auto-4000-shipped" if tok.model == "sgpe" else "bytebpe-bytes-4000-shipped"
    assert made["tokenizer.json (Hugging Face)"].file_name == f"{stem}-tokenizer.json"
    hf = HFTokenizer.from_str(made["tokenizer.json (Hugging Face)"].make().decode("utf-8"))
    for line in defaults.sample_documents()[:50]:
        assert hf.encode(line, add_special_tokens=False).ids == list(tok.encode(line))
    assert made["vocab.json"].make() == path.read_bytes()
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
        "tokenizer.json (Hugging Face)",
        "vocab.json",
        "merges (CSV)",
        "metrics report (CSV)",
        "metrics report (JSON)",
    } <= set(labels)
    assert "merge curve (HTML)" in labels and "report chart (HTML)" in labels

"""What a visitor of a shared server sees, and the words the pages use, under
``streamlit.testing.v1.AppTest``:

* disk use and cleanup: a visitor sees and cleans up only their own runs and uploads (an
  administrator, ``SGPE_ADMIN=1``, all of them);
* a visitor is shown names, not the server's paths;
* superwords and invisible characters are explained where tokens are shown (Compare,
  Merges);
* smaller wordings and figures (the subtitle, stop reasons, sizes, a chart of zeros, the
  server log).

The fixtures are the small ones of tests/test_app.py: runs go to a temporary
``SGPE_RUNS_DIR``; a visitor's owner key is set in the session, as the cookie would.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("streamlit", reason="streamlit not installed: pip install -e '.[app]'")
from streamlit.testing.v1 import AppTest

# The fixtures of tests/test_app.py: runs in a temporary SGPE_RUNS_DIR (autouse).
from test_app import APP, REPO_ROOT, TIMEOUT, html_bodies, runs_dir  # noqa: F401

import sgpe
from sgpe import shipped as defaults

#: The owner key of "this visitor" (sgpe_explorer/ui/owner.py keeps it in the session and a cookie).
KEY = "0123456789abcdef" * 2
ME = hashlib.sha256(f"sgpe-owner:{KEY}".encode()).hexdigest()[:32]
LINES = ["ශ්\u200dරී ලංකාව ලස්සන රටකි.", "ගුරුවරු පාඩම් උගන්වති.", "අම්මා කෑම උයනවා."]


def open_page(page: str, **query: str) -> AppTest:
    """The app as this visitor (owner key :data:`KEY`) on ``page``."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state["owner_key"] = KEY
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    if page != "syllables.py":
        at.switch_page(f"app_pages/{page}").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def unescaped(elements: Any) -> list[str]:
    """The values of markdown-like elements without md_escape's backslashes."""
    return [e.value.replace("\\", "") for e in elements]


def _kb(n: int) -> str:
    return f"{n / 1000:,.1f} kB"


def corpus(k: int) -> bytes:
    """A small corpus of its own bytes (so a stored upload of its own) per ``k``."""
    return ("\n".join([*LINES, f"ලකුණ {k}"] * 20) + "\n").encode("utf-8")


# ============================================================================ 7: disk


def test_a_visitor_sees_and_cleans_up_only_their_own_disk_use(
    runs_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "Clean up disk" deleted other visitors' uploads, and every visitor saw the
    whole server's disk use ("runs 66.3 MB (13 runs)" under "Your runs (0)"). Now the
    figures and both cleanups are the visitor's own; an upload two visitors stored stays
    for the other; an administrator sees and cleans everything."""
    from sgpe_explorer.runs.manager import RunManager, RunRequest

    manager = RunManager(runs_dir)
    mine = manager.start(RunRequest(corpus(0), name="mine.txt", vocab_size=400, owner=ME))
    theirs = manager.start(RunRequest(corpus(1), name="t.txt", vocab_size=400, owner="someone"))
    gone_mine = manager.start(RunRequest(corpus(2), name="m2.txt", vocab_size=400, owner=ME))
    gone_theirs = manager.start(
        RunRequest(corpus(3), name="t3.txt", vocab_size=400, owner="someone")
    )
    both = [
        manager.start(RunRequest(corpus(4), name="s.txt", vocab_size=400, owner=who))
        for who in (ME, "someone")
    ]
    for run in (mine, theirs, gone_mine, gone_theirs, *both):
        assert manager.wait(run).state == "done"
    for run in (gone_mine, gone_theirs, *both):
        manager.delete(run)  # their uploads are now used by no run
    uploads = runs_dir / "uploads"
    stored = {k: hashlib.sha256(corpus(k)).hexdigest() + ".txt" for k in range(5)}

    at = open_page("train.py")
    assert [s.value for s in at.subheader if s.value.startswith("Your runs")] == ["Your runs (1)"]
    mine_bytes = sum(p.stat().st_size for p in mine.path.rglob("*") if p.is_file())
    my_uploads = len(corpus(0)) + len(corpus(2)) + len(corpus(4))
    assert (
        f"Disk use, yours: runs {_kb(mine_bytes)} (1 runs) · uploads {_kb(my_uploads)} "
        "(3 files, 2 used by no run). Runs read their corpus where it is; an upload is "
        "stored once."
    ) in [c.value for c in at.caption], [c.value for c in at.caption]
    button = at.button(key="train_clean_uploads")
    assert button.label == f"Delete 2 unused upload(s) ({_kb(len(corpus(2)) + len(corpus(4)))})"
    button.click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert f"Deleted 2 upload(s) that no run uses; {_kb(len(corpus(2)))} freed." in unescaped(
        at.success
    )
    # Theirs are untouched; the upload both stored stays for the other visitor.
    assert sorted(p.name for p in uploads.glob("*.txt")) == sorted(
        [stored[0], stored[1], stored[3], stored[4]]
    )
    at.run()
    assert at.button(key="train_clean_uploads").disabled

    monkeypatch.setenv("SGPE_ADMIN", "1")
    at.run()
    everything = manager.disk_use()
    assert (everything.runs, everything.uploads, everything.unused_uploads) == (2, 4, 2)
    assert (
        f"Disk use, every visitor's (administrator): runs {_kb(everything.runs_bytes)} "
        f"(2 runs) · uploads {_kb(everything.uploads_bytes)} (4 files, 2 used by no run). "
        "Runs read their corpus where it is; an upload is stored once."
    ) in [c.value for c in at.caption]
    at.button(key="train_clean_uploads").click().run()
    assert sorted(p.name for p in uploads.glob("*.txt")) == sorted([stored[0], stored[1]])
    # no owners record outlives its upload
    assert {p.name for p in uploads.glob("*.owners.json")} == {
        stored[0] + ".owners.json",
        stored[1] + ".owners.json",
    }


# ============================================================================ 8: paths


def test_a_visitor_is_shown_names_not_server_paths(
    runs_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "Runs directory: /…/runs" and the checkout's sample_data/vocab/… were shown
    to every visitor. A visitor gets names (vocab.json, the shipped file's name); only an
    administrator gets the paths."""
    from sgpe_explorer.runs.manager import RunManager, RunRequest

    manager = RunManager(runs_dir)
    run = manager.start(RunRequest(corpus(0), name="a.txt", vocab_size=400, owner=ME))
    assert manager.wait(run).state == "done"
    (run.path / "vocab.json").write_text("{", encoding="utf-8")
    (run.path / "merges.parquet").write_bytes(b"not parquet")

    def shown(at: AppTest) -> str:
        return " ".join(
            unescaped([*at.caption, *at.warning, *at.sidebar.warning, *at.error, *at.markdown])
        )

    at = open_page("train.py", tok=run.id)
    text = shown(at)
    assert "Runs directory" not in text
    assert f"Run {run.id} cannot be used: vocab.json: not valid JSON" in text
    assert "The merge curve cannot be shown: merges.parquet: not a readable parquet file" in (text)
    at.switch_page("app_pages/vocabulary.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert f"— {defaults.DEFAULT_SGPE.name}" in shown(at)
    for page in ("train.py", "vocabulary.py", "compare.py"):
        at.switch_page(f"app_pages/{page}").run()
        text = shown(at)
        for root in (str(runs_dir), str(defaults.SAMPLE_DATA), str(REPO_ROOT)):
            assert root not in text, (page, root)

    monkeypatch.setenv("SGPE_ADMIN", "1")
    at.switch_page("app_pages/train.py").run()
    text = shown(at)
    assert f"Runs directory: {runs_dir.resolve()}" in text
    assert f"cannot be used: {run.path / 'vocab.json'}: not valid JSON" in text
    at.switch_page("app_pages/vocabulary.py").run()
    assert f"— {defaults.DEFAULT_SGPE}" in shown(at)


# ============================================================================ 9: superwords


@pytest.fixture
def superword_run(runs_dir: Path) -> Any:
    """A finished SGPE run on sample_data/sinhala.txt with superwords from 1,000 tokens on
    (it learns " ශ්‍රී ලංකා" as one token)."""
    from sgpe_explorer.runs.manager import RunManager, RunRequest

    manager = RunManager(runs_dir)
    run = manager.start(
        RunRequest(
            defaults.SAMPLE_DATA / "sinhala.txt",
            vocab_size=1500,
            superwords_from=1000,
            owner=ME,
        )
    )
    assert manager.wait(run, timeout=60).state == "done"
    return run


SRI_LANKA = "ශ්\u200dරී ලංකා"  # ශ්‍රී ලංකා, with its ZWJ written out


def token_spans(body: str) -> list[tuple[str, dict[str, str], str]]:
    """(class, attributes, text) of each token span of a Compare column."""
    out = []
    for cls, attrs, text in re.findall(
        r'<span class="(tok[^"]*)"([^>]*)>(.*?)</span>(?=<span class="tok|</div>)', body
    ):
        pairs = dict(re.findall(r'([\w-]+)="([^"]*)"', attrs))
        out.append((cls, {k: html.unescape(v) for k, v in pairs.items()}, html.unescape(text)))
    return out


def test_compare_names_and_explains_a_superword(superword_run: Any) -> None:
    """Superwords were marked by a purple overline that nothing explained (no
    legend, hover or caption said "superword"). The token's hover names it and its
    words, its invisible joiner is named, and a caption below the columns says what the
    overline means and which setting makes superwords."""
    tok = sgpe.load(superword_run.path / "vocab.json")
    assert " " + SRI_LANKA in tok.vocab  # the run learned it
    at = open_page("compare.py", tok=superword_run.id)
    at.text_area(key="cmp_text").set_value(SRI_LANKA).run()
    assert not at.exception, [e.value for e in at.exception]
    body = next(b for b in html_bodies(at) if 'data-tokenizer="SGPE"' in b)
    spans = token_spans(body)
    assert [text for _, _, text in spans] == [SRI_LANKA]  # one token: the superword
    cls, attrs, _ = spans[0]
    assert "super" in cls.split()
    lines = attrs["title"].split("\n")
    assert lines[0] == f"id {tok.encode(SRI_LANKA)[0]}"
    assert (
        "superword: whole syllables of 2 words in one token, joined across a space "
        "(superwords are an opt-in training setting)"
    ) in lines
    assert "ZWJ = zero width joiner U+200D: asks for the joined (conjunct) form, e.g. ශ්‍ර" in lines
    assert attrs["data-info"] == attrs["title"]  # a tap shows the same
    assert (
        "A **purple overline** marks a **superword**: one token holding whole syllables of "
        "several words, joined across a space. Superwords are an opt-in training setting "
        "(“Superwords from” on the Train page); without it, tokens stop at spaces."
    ) in [c.value for c in at.caption]
    # The byte-level baseline has no superword: no overline there, nothing to explain.
    base = next(b for b in html_bodies(at) if 'data-tokenizer="Byte-level BPE"' in b)
    assert not [c for c, _, _ in token_spans(base) if "super" in c.split()]


def test_compare_marks_a_token_of_only_a_joiner() -> None:
    """A token of a lone ZWJ or ZWNJ (both tokenizers spell "x‍y ‌" so) was an empty chip
    unless "Show invisible characters" was on: it is marked always, outside its text,
    and its hover says what the joiner is."""
    text = "x\u200dy \u200c"
    at = open_page("compare.py")
    at.text_area(key="cmp_text").set_value(text).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.toggle(key="cmp_inv").value
    for name in ("SGPE", "Byte-level BPE"):
        body = next(b for b in html_bodies(at) if f'data-tokenizer="{name}"' in b)
        lone = {t: (c, a) for c, a, t in token_spans(body) if t in ("\u200d", "\u200c")}
        assert sorted(lone) == ["\u200c", "\u200d"], name
        for joiner, mark, meaning in (
            ("\u200d", "ZWJ", "zero width joiner U+200D"),
            ("\u200c", "ZWNJ", "zero width non-joiner U+200C"),
        ):
            cls, attrs = lone[joiner]
            assert "glyphless" in cls.split() and attrs["data-post"] == mark
            assert f"{mark} = {meaning}" in attrs["title"]


def test_merges_table_shows_spaces_joiners_and_superwords(superword_run: Any) -> None:
    """The learned-merges table showed a leading space as nothing (rank 1: left
    blank, right "ප"), never explained the kind `super`, and a lone ZWJ was an empty
    chip in the stepper. Spaces show as ·, joiners by name; the caption and the columns'
    help explain both and every kind; the stepper's ZWJ chip carries its marker."""
    from sgpe_explorer.ui import analysis, render

    tok = sgpe.load(superword_run.path / "vocab.json")
    rows = analysis.merges_table(tok, None)
    at = open_page("merges.py", tok=superword_run.id)
    at.number_input(key="mrg_first").set_value(len(rows)).run()
    assert not at.exception, [e.value for e in at.exception]
    table = at.dataframe[-1].value
    assert list(table["rank"]) == [r["rank"] for r in rows]
    for column in ("left", "right", "merged"):
        assert list(table[column]) == [render.visible(r[column], viramas=False) for r in rows]
    assert "" not in set(table["left"]) | set(table["right"])  # no blank cell
    first_space = next(i for i, r in enumerate(rows) if r["left"] == " ")
    assert table["left"].iloc[first_space] == "·"
    assert any("ZWJ" in m for m in table["merged"])
    supers = table[table["kind"] == "super"]
    assert len(supers) > 0 and all("·" in m.strip("·") for m in supers["merged"])
    caption = next(c.value for c in at.caption if c.value.startswith("The first"))
    assert (
        "super = joins whole syllables of two words across a space (a superword, an opt-in "
        "training setting)"
    ) in caption
    assert "· = a space (a token that starts a word begins with one)" in caption
    assert "ZWJ = the invisible zero width joiner U+200D" in caption

    # The stepper: the hierarchical mode starts from characters, a ZWJ among them.
    at.text_area(key="mrg_text").set_value(SRI_LANKA).run()
    assert not at.exception, [e.value for e in at.exception]
    steps = [b for b in html_bodies(at) if "sgpe-steps" in b]
    assert steps
    zwj = re.findall(r'<span class="tok"([^>]*)>\u200d</span>', steps[0])
    assert len(zwj) == 1
    attrs = {k: html.unescape(v) for k, v in re.findall(r'([\w-]+)="([^"]*)"', zwj[0])}
    assert attrs["data-post"] == "ZWJ"
    assert attrs["title"] == (
        "U+200D\nZWJ = zero width joiner U+200D: asks for the joined (conjunct) form, e.g. ශ්‍ර"
    )


# ============================================================================ 12: small things


def test_the_subtitle_counts_the_scripts() -> None:
    """The sidebar said "eight more Brahmic scripts", then ten; with Thai and Lao (Brahmic
    scripts of Southeast Asia) there are twelve more."""
    from sgpe.schema import BUILTIN_SCRIPTS

    assert len(BUILTIN_SCRIPTS) - 2 == 12
    at = open_page("syllables.py")
    assert at.sidebar.caption[0].value == (
        "Syllable-aware BPE for Sinhala, Devanagari and twelve more Brahmic scripts"
    )


def progress_texts(at: AppTest) -> list[str]:
    return [str(el.proto.text) for el in at.get("progress")]


def test_runs_say_why_they_stopped_and_what_they_wait_for_in_words(
    runs_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run that ran out of pairs said "no pair of tokens occurs 1 times or
    more"; a cancelled one "cancelled by SIGTERM"; a queued one "prepared: step 0 of 0 ·
    – · ETA –"."""
    from sgpe.runs import create_run
    from sgpe.runs.format import pid_alive
    from sgpe.settings import TrainSettings
    from sgpe_explorer.runs.manager import RunManager, RunRequest, new_run_id, size_range

    # Every trainer of this test is paced (the runs' test hook, sgpe/runs/format.py), so
    # that Cancel finds the last one mid-merge; the app's start may launch the queued run,
    # whose trainer then starts the next.
    monkeypatch.setenv("SGPE_TEST_MERGE_PAUSE", "0.005")
    manager = RunManager(runs_dir)
    small = runs_dir.parent / "small.txt"
    small.write_bytes(corpus(0))
    largest = size_range(small, TrainSettings()).largest
    short = manager.start(RunRequest(small, vocab_size=largest + 100, owner=ME))
    assert manager.wait(short).state == "done"
    # Its trainer's last act is to start the queued runs its slot frees
    # (sgpe_explorer/runs/trainer.py): the run made below must not be there yet.
    deadline = time.monotonic() + 30
    while pid_alive(manager.status(short).pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    trained = manager.status(short).trained_size
    assert trained is not None and trained < largest + 100
    queued = runs_dir / new_run_id()
    create_run(queued, RunRequest(small, vocab_size=400, owner=ME).config(), small)
    (queued / "owner.json").write_text(json.dumps({"owner": ME}), "utf-8")  # as start() does

    at = open_page("train.py")
    heads = " ".join(m.value.replace("\\", "") for m in at.markdown)
    assert (
        f"{trained:,} tokens (stopped at {trained:,} of {largest + 100:,} tokens: no pair of "
        "tokens is left to merge in the corpus (every word is one token))"
    ) in heads
    assert "times or more" not in heads
    progress = progress_texts(at)
    assert "queued: it starts on its own when a training slot is free" in progress
    assert not [p for p in progress if "step 0 of 0" in p]

    # Cancel a run mid-merge on the page.
    running = manager.start(
        RunRequest(defaults.SAMPLE_DATA / "sinhala.txt", vocab_size=3000, owner=ME)
    )

    deadline = time.monotonic() + 60
    while manager.status(running).step < 50:
        assert time.monotonic() < deadline, manager.status(running)
        time.sleep(0.1)
    at.run()
    at.button(key=f"cancel_{running.id}").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert manager.wait(running).state == "cancelled"
    at.run()
    message = manager.status(running).message
    assert message.startswith("cancelled by a stop request (Cancel); checkpoint at step ")
    captions = [c.value.replace("\\", "") for c in at.caption]
    assert message in captions and not [c for c in captions if "SIGTERM" in c]


def test_compare_states_each_size_once_and_a_picked_encodings_size() -> None:
    """A column's caption repeated its size ("· 2,000 tokens"); a picked OpenAI
    encoding kept "(loads when picked)" in the picker once loaded."""
    from sgpe.baselines.tiktoken_offline import load_encoding

    at = open_page("compare.py")
    shipped = sgpe.load(defaults.DEFAULT_SGPE)
    captions = unescaped(at.caption)
    size = f"{shipped.vocab_size:,}"
    assert f"shipped: sample_data, {size} tokens" in captions
    columns = [c for c in captions if c.startswith(("shipped", "OpenAI"))]
    assert len(columns) == 2 and all(c.count(" tokens") == 1 for c in columns), columns
    at.multiselect(key="cmp_pick").set_value(["sgpe", "o200k_base"]).run()
    assert not at.exception, [e.value for e in at.exception]
    n = load_encoding("o200k_base").n_vocab
    pick = at.multiselect(key="cmp_pick")
    assert f"o200k_base: {n:,} tokens" in pick.options
    assert "cl100k_base: OpenAI's encoding (loads when picked)" in pick.options  # not picked
    assert f"OpenAI o200k_base (tiktoken, offline) · {n:,} tokens" in unescaped(at.caption)


def test_a_chart_of_zero_counts_starts_at_zero() -> None:
    """With no torn syllable and no syllable spelled from parts anywhere (a Latin
    text), the two charts of zeros had a -1 to 1 axis."""
    at = open_page("compare.py")
    at.text_area(key="cmp_text").set_value("hello world").run()
    assert not at.exception, [e.value for e in at.exception]
    summary = at.dataframe[0].value
    assert (summary["torn syllables"] == 0).all()
    assert (summary["syllables spelled from their own parts"] == 0).all()
    chart = next(c for c in at.get("plotly_chart") if "torn" in c.proto.spec)
    layout = json.loads(chart.proto.spec)["layout"]
    assert layout["yaxis"]["range"] == [0, 1] and layout["yaxis2"]["range"] == [0, 1]
    assert "range" not in layout["yaxis3"]  # the token counts are not zero


def test_a_large_uploads_size_check_leaves_the_server_log_clean(
    runs_dir: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """The first size check of a > 1 MB upload wrote about 90 "missing
    ScriptRunContext" warnings to the server log: its worker process imported the
    checkout's app.py, which drew the whole frame outside a script run."""
    import time

    from sgpe_explorer.ui import train_form

    train_form._checks.clear()  # a worker process of its own, started by this upload
    data = (defaults.SAMPLE_DATA / "sinhala.txt").read_bytes() * 15
    assert len(data) > train_form.BACKGROUND_BYTES
    at = AppTest.from_file(str(REPO_ROOT / "app.py"), default_timeout=TIMEOUT)
    at.session_state["owner_key"] = KEY
    at.run()
    at.switch_page("sgpe_explorer/app/app_pages/train.py").run()
    at.radio(key="train_source").set_value("upload").run()
    capfd.readouterr()
    at.file_uploader(key="train_upload").set_value(("big.txt", data, "text/plain")).run()
    deadline = time.monotonic() + 120
    while not any(c.value.startswith("This corpus with these settings") for c in at.caption):
        assert time.monotonic() < deadline
        time.sleep(0.5)
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    err = capfd.readouterr().err
    assert "missing ScriptRunContext" not in err, err[-2000:]

"""What a classroom and a phone need of the app's server, without a browser:

* chart titles break into lines that fit a phone, beside Plotly's upright toolbar;
* Compare's figures are built once per data, and the finished runs are read once while
  no run changes (the classroom's server time, docs/app.md section 11);
* a finished run's status file is read once while it is unchanged, and the Train page's
  runs panel redraws every 2 s while a run of the visitor's is live, queued or training;
* a large upload's size check runs in a child process that answers as the library does
  and is gone afterwards;
* the favicon is an emoji (the browser draws it; no third-party host).

The CPU and memory budgets themselves are measured by ``python -m bench app``.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

pytest.importorskip("streamlit", reason="streamlit not installed: pip install -e '.[app]'")

from sgpe import shipped


def test_chart_titles_fit_a_phone_beside_the_toolbar() -> None:
    from sgpe_explorer.ui import charts

    table = pd.DataFrame(
        {"tokenizer": ["SGPE", "Byte-level BPE"], "straddling_per_1k": [0.0, 31.5]}
    )
    fig = charts.corpus_bars(table, "straddling_per_1k", "sinhala.txt")
    title = fig.layout.title
    lines = title.text.split("<br>")
    assert lines == ["cuts that tear a syllable per 1k", "tokens on sinhala.txt"]
    assert all(len(line) <= charts.TITLE_LINE_CHARS for line in lines)
    assert fig.layout.modebar.orientation == "v"  # upright at the right edge
    assert fig.layout.margin.t == 20 * 2 + 20
    short = charts.length_histogram(pd.DataFrame({"n": [1, 2, 2]}), "n", "Token length")
    assert short.layout.title.text == "Token length" and short.layout.margin.t == 40


def test_compare_figures_are_built_once_per_data() -> None:
    from sgpe_explorer.ui import charts

    summary = pd.DataFrame(
        {"torn syllables": [0, 12], "syllables spelled from their own parts": [3, 0],
         "tokens": [40, 61]},
        index=pd.Index(["SGPE", "Byte-level BPE"], name="tokenizer"),
    )  # fmt: skip
    first = charts.compare_summary(summary)
    assert charts.compare_summary(summary.copy()) is first
    other = summary.assign(tokens=[40, 62])
    assert charts.compare_summary(other) is not first
    assert [list(t.y) for t in charts.compare_summary(other).data][2] == [40.0, 62.0]


def test_finished_runs_follow_the_runs_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The listing is kept while nothing changes, and a run added, removed or changed in
    state is seen at once."""
    from sgpe_explorer.runs.manager import RunManager, RunRequest
    from sgpe_explorer.ui import resources

    root = tmp_path / "runs"
    monkeypatch.setenv("SGPE_RUNS_DIR", str(root))
    manager = RunManager(root)
    run = manager.start(RunRequest(shipped.SAMPLE_DATA / "sinhala.txt", vocab_size=400))
    assert manager.wait(run, timeout=120).state == "done"
    assert [i.run.id for i in resources.finished_runs()] == [run.id]
    assert [i.run.id for i in resources.finished_runs()] == [run.id]  # kept, same answer
    # The sidebar's menu is named once while the runs stay as they are (it was named
    # again 7 times a script run: docs/app.md, section 11).
    builds = resources.CHOICE_BUILDS["sgpe"]
    menu = resources.choices("sgpe")
    assert list(menu) == [resources.DEFAULT_ID, run.id]
    assert resources.choices("sgpe") == menu
    assert resources.CHOICE_BUILDS["sgpe"] == builds + 1

    kept = tmp_path / "kept"
    shutil.move(str(run.path), kept)
    assert resources.finished_runs() == []
    shutil.move(str(kept), run.path)
    assert [i.run.id for i in resources.finished_runs()] == [run.id]

    from sgpe.runs.status import write_status

    status = json.loads((run.path / "status.json").read_text(encoding="utf-8"))
    write_status(run.path, {**status, "state": "failed"})
    assert resources.finished_runs() == []
    assert run.id not in resources.choices("sgpe")
    assert resources.CHOICE_BUILDS["sgpe"] == builds + 2  # named again: the run changed


def test_openais_encodings_are_warmed_only_once_the_pages_are_idle(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The warm-up build (about 1.4 CPU-s) waits while pages run one after another, as in
    a classroom, and starts once none has run for WARM_IDLE_S (docs/app.md, section 11)."""
    import threading
    import time

    from sgpe.baselines import tiktoken_offline
    from sgpe_explorer.ui import resources

    built: list[tuple[str, float]] = []
    load = tiktoken_offline.load_encoding
    warm: threading.Thread | None = None

    def recorded(name: str) -> Any:
        # This test's warm-up only: one that an earlier page of this process started may
        # still be waiting for its pause, and build meanwhile.
        if threading.current_thread() is warm:
            built.append((name, time.monotonic()))
        return load(name)

    monkeypatch.setattr(tiktoken_offline, "load_encoding", recorded)
    monkeypatch.setattr(resources, "WARM_DELAY_S", 0.0)
    monkeypatch.setattr(resources, "WARM_IDLE_S", 2.0)
    monkeypatch.setattr(resources, "_WARM_STARTED", False)
    before = set(threading.enumerate())
    with resources.one_script_run():
        resources.warm_encodings()
    (warm,) = [t for t in threading.enumerate() if t not in before]
    assert warm.name == "sgpe-warm-encodings"
    busy_until = time.monotonic() + 4.0
    while time.monotonic() < busy_until:  # a page every 50 ms
        with resources.one_script_run():
            time.sleep(0.05)
    quiet = time.monotonic()
    assert built == []
    warm.join(timeout=120)
    assert [name for name, _ in built] == ["o200k_base", "cl100k_base"]
    assert built[0][1] >= quiet + 2.0 - 0.1
    before = set(threading.enumerate())
    resources.warm_encodings()  # once per process: no second thread
    assert [t for t in threading.enumerate() if t not in before] == []


def test_a_script_run_lists_the_finished_runs_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each script run of a page (the sidebar's menus, the active tokenizers, the page,
    the Train page's runs panel) scans the runs folder once, not 7 to 9 times; the next
    script run sees a run that changed in between."""
    from streamlit.testing.v1 import AppTest

    from sgpe.runs.status import write_status
    from sgpe_explorer.runs.manager import RunManager, RunRequest
    from sgpe_explorer.ui import resources

    root = tmp_path / "runs"
    monkeypatch.setenv("SGPE_RUNS_DIR", str(root))
    manager = RunManager(root)
    run = manager.start(RunRequest(shipped.SAMPLE_DATA / "sinhala.txt", vocab_size=400))
    assert manager.wait(run, timeout=120).state == "done"
    app = Path(__file__).resolve().parents[1] / "sgpe_explorer" / "app" / "main.py"
    at = AppTest.from_file(str(app), default_timeout=120)
    stamps = []
    for page in ("compare.py", "train.py", "compare.py"):
        before = resources.STAMPS["finished"]
        at.switch_page(f"app_pages/{page}").run()
        assert not at.exception, [e.value for e in at.exception]
        stamps.append(resources.STAMPS["finished"] - before)
        assert len(at.sidebar.selectbox[0].options) == 2  # the shipped one and the run
    assert stamps == [1, 1, 1]
    status = json.loads((run.path / "status.json").read_text(encoding="utf-8"))
    write_status(run.path, {**status, "state": "failed"})
    at.run()
    assert at.sidebar.selectbox[0].options == ["shipped: sample_data, 4,000 tokens"]
    assert getattr(resources._SCRIPT_RUN, "memo", None) is None  # nothing kept after a run


def test_a_finished_runs_status_is_read_once_while_its_file_is_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The runs panel lists every run once a second while a run is live: each finished
    run's status.json was read and parsed twice on every tick (docs/app.md, section 11).
    A status file that changes is read again at once; a live one on every listing."""
    from sgpe.runs.status import write_status
    from sgpe_explorer.runs import records
    from sgpe_explorer.runs.manager import RunManager, RunRequest

    manager = RunManager(tmp_path / "runs")
    run = manager.start(RunRequest(shipped.SAMPLE_DATA / "sinhala.txt", vocab_size=400))
    assert manager.wait(run, timeout=120).state == "done"
    copies = [manager.root / f"20260101-00000{n}-abcdef" for n in range(4)]
    for copy in copies:
        shutil.copytree(run.path, copy)
    reads = records.STATUS_READS
    listed = [(i.run.id, i.status.state) for i in manager.list_runs()]
    assert sorted(listed) == sorted([(run.id, "done")] + [(c.name, "done") for c in copies])
    before = reads[0]
    # Every read of a status file by the manager, whichever way it goes.
    from sgpe_explorer.runs import manager as manager_module

    parsed: list[str] = []
    for module in (records, manager_module):

        def counted(path: Path, read: Any = module.read_status) -> Any:
            parsed.append(str(path))
            return read(path)

        monkeypatch.setattr(module, "read_status", counted)
    for _ in range(3):
        assert [(i.run.id, i.status.state) for i in manager.list_runs()] == listed
        assert manager.damaged_runs() == []
        manager.disk_use(as_owner="someone")
        assert manager.poll() == []  # the queue, as each Start looks at it
    assert reads[0] == before and parsed == []  # nothing read again: no file changed

    status = json.loads((copies[0] / "status.json").read_text(encoding="utf-8"))
    write_status(copies[0], {**status, "state": "failed"})
    write_status(copies[1], {"state": "queued", "phase": "prepared"})
    states = {i.run.id: i.status.state for i in manager.list_runs()}
    assert (states[copies[0].name], states[copies[1].name]) == ("failed", "queued")
    assert reads[0] == before + 2  # the two changed files, and only they
    manager.list_runs()
    assert reads[0] == before + 3  # the queued run's, read afresh on every listing


def test_the_runs_panel_redraws_every_2_s_while_a_run_of_the_visitors_is_live() -> None:
    """One timer for queued and training runs: a timer is fixed when the panel is drawn,
    and changing it (3 s while queued, 1 s while training) redrew each waiting
    classroom visitor's whole page once (docs/app.md, section 11)."""
    from sgpe_explorer.ui import train_form

    for live in (["queued", "done"], ["queued", "counting"], ["merging"], ["counting"]):
        assert train_form.panel_every(live) == 2.0, live
    assert train_form.panel_every(["done", "failed", "cancelled", "interrupted"]) is None
    assert train_form.panel_every([]) is None


def test_a_size_check_runs_in_a_child_that_answers_as_the_library_and_exits() -> None:
    import psutil

    from sgpe.settings import TrainSettings
    from sgpe_explorer.runs.size_check import check
    from sgpe_explorer.runs.sizes import upload_size_range

    # Children that earlier tests of the same session left (their training runs, a
    # resource tracker) are not the size check's: only a new one would be.
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    data = (shipped.SAMPLE_DATA / "sinhala.txt").read_bytes() * 3
    settings = TrainSettings().to_dict()
    assert check(data, "big.txt", settings) == upload_size_range(data, "big.txt", settings)
    assert check(b"\xff\xfe ab", "bad.txt", settings) == upload_size_range(
        b"\xff\xfe ab", "bad.txt", settings
    )
    left = [p for p in psutil.Process().children(recursive=True) if p.pid not in before]
    assert left == []


def test_the_favicon_is_an_emoji() -> None:
    """A ":material/…:" icon made the frontend fetch the favicon from fonts.gstatic.com."""
    from streamlit.string_util import is_emoji

    from sgpe_explorer.app import main

    assert is_emoji(main.PAGE_ICON)


def test_the_served_index_names_the_server(tmp_path: Path) -> None:
    """A page's link (``/compare``) made the frontend probe ``/compare/_stcore/health``
    and ``/compare/_stcore/host-config`` (two 404s) unless the page names the server."""
    from streamlit import file_util

    from sgpe_explorer.app import serve

    source = Path(file_util.get_static_dir())
    out = serve.static_dir(source, "", cache=tmp_path)
    index = (out / "index.html").read_text(encoding="utf-8")
    head = index.split("<head>", 1)[1]
    assert head.lstrip().startswith(serve.MARK + "<script>window.__streamlit=")
    assert 'BACKEND_BASE_URL:window.location.origin+""' in head
    assert head.index("BACKEND_BASE_URL") < head.index('type="module"')
    others = sorted(p.name for p in out.iterdir() if p.name != "index.html")
    assert others == sorted(p.name for p in source.iterdir() if p.name != "index.html")
    assert all((out / name).resolve() == (source / name).resolve() for name in others)
    assert serve.static_dir(source, "", cache=tmp_path) == out  # made once
    assert 'origin+"/lab"' in serve.base_script("/lab/")


def test_a_long_paste_draws_a_bounded_chip_list_and_says_how_many_tokens_are_not_drawn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The classroom's 20,000-character paste: each Compare column draws the chips of the
    text's first characters only (3,000 of them sent 660 KB of chips to every visitor) and
    says, under its chips, how many of its tokens are drawn and how many are not."""
    import re

    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("SGPE_RUNS_DIR", str(tmp_path / "runs"))
    text = (shipped.SAMPLE_DATA / "sinhala.txt").read_text(encoding="utf-8")[:20_000]
    main = Path(__file__).resolve().parents[1] / "sgpe_explorer" / "app" / "main.py"
    at = AppTest.from_file(str(main), default_timeout=120).run()
    at.switch_page("app_pages/compare.py").run()
    at.text_area(key="cmp_text").set_value(text).run()
    assert not at.exception, [e.value for e in at.exception]
    bodies = [str(h.proto.body) for h in at.get("html")]
    chips = [b for b in bodies if b.startswith('<div class="sgpe-box small sgpe-tokens"')]
    totals = [
        int(m.group(1).replace(",", ""))
        for md in at.markdown
        if (m := re.search(r"· ([\d,]+) tokens · TWR", md.value))
    ]
    notes = [c.value for c in at.caption if c.value.startswith("Drawn: the first")]
    assert len(chips) == len(totals) == len(notes) == 2  # SGPE and byte-level BPE
    for body, total, note in zip(chips, totals, notes):
        drawn = body.count(' data-i="')
        assert 0 < drawn < total // 10 and len(body) < 150_000
        assert note == (
            f"Drawn: the first {drawn:,} tokens of {total:,} (those of the first 1,000 "
            f"characters); the other {total - drawn:,} are counted above but not drawn."
        )
    assert any("the tokens below are those of its first 1,000 characters" in i.value
               for i in at.info)  # fmt: skip


def test_only_the_visitors_own_runs_redraw_the_whole_train_page(tmp_path: Path) -> None:
    """The runs panel redraws the whole Train page when its signature changes. Other
    visitors' runs were in it, so each run of a classroom's queue that ended redrew every
    waiting visitor's whole page (a third of the Train page's script runs in
    ``python -m bench app``'s classroom). Now theirs redraw the panel alone; the
    visitor's own runs appearing, starting and ending still redraw the page."""
    from sgpe.runs.status import write_status
    from sgpe_explorer.runs.manager import RunManager, RunRequest
    from sgpe_explorer.ui.train_form import is_mine, panel_signature

    manager = RunManager(tmp_path / "runs")
    sample = shipped.SAMPLE_DATA / "sinhala.txt"
    mine = manager.start(RunRequest(sample, vocab_size=400, owner="me"))
    theirs = manager.start(RunRequest(sample, vocab_size=400, owner="them"))
    assert manager.wait(mine, timeout=120).state == "done"
    assert manager.wait(theirs, timeout=120).state == "done"

    def signature(me: str = "me", admin: bool = False) -> tuple[tuple[str, str], ...]:
        return panel_signature([i for i in manager.list_runs() if is_mine(i, me, admin)])

    assert signature() == ((mine.id, "done"),)
    # Another visitor's run queues, trains and ends: the visitor's page stays as it is.
    other = manager.root / "20260101-000001-abcdef"
    shutil.copytree(theirs.path, other)
    for state in ("queued", "counting", "merging", "done", "failed"):
        status = json.loads((other / "status.json").read_text(encoding="utf-8"))
        write_status(other, {**status, "state": state})
        assert signature() == ((mine.id, "done"),), state
    # The visitor's own run: live, then ended, each once.
    own = manager.root / "20260101-000002-abcdef"
    shutil.copytree(mine.path, own)
    seen = []
    for state in ("queued", "done"):
        status = json.loads((own / "status.json").read_text(encoding="utf-8"))
        write_status(own, {**status, "state": state})
        seen.append(dict(signature())[own.name])
    assert seen == ["live", "done"]
    # Queued, counting and merging read the same: no whole-page run when a queued run
    # starts training (a listed run is given the state, as a copied folder has no live
    # worker and lists as interrupted).
    info = next(i for i in manager.list_runs() if i.run.id == own.name)
    live = [
        panel_signature([replace(info, status=replace(info.status, state=s))])
        for s in ("queued", "counting", "merging")
    ]
    assert live == [((own.name, "live"),)] * 3
    # An administrator manages every run, so every run is theirs.
    assert {run_id for run_id, _ in signature("admin", admin=True)} == {
        mine.id,
        theirs.id,
        other.name,
        own.name,
    }


def test_a_server_prepares_before_its_first_visitor_and_says_nothing_of_it() -> None:
    """`sgpe app` (serve.prepare) loads the shipped vocabularies into the pages' cache,
    builds OpenAI's encodings, imports the pages' libraries and freezes all of it out of
    the garbage collector's passes, before it listens, with nothing in the log: a
    classroom's first visitors paid for it in their rush (docs/app.md, section 11). Run
    in a fresh process, as a server starts."""
    import subprocess
    import sys

    probe = """
import gc, json, sys
from sgpe_explorer.app import serve
serve.prepare()
import sgpe
from sgpe import shipped
from sgpe.baselines.tiktoken_offline import load_encoding
from sgpe_explorer.ui import resources
loads = []
real = sgpe.load
sgpe.load = lambda *a, **k: loads.append(a) or real(*a, **k)
for path in (shipped.DEFAULT_SGPE, shipped.DEFAULT_BYTEBPE):
    resources.load_vocab(path)
print(json.dumps({"loads": len(loads), "encodings": load_encoding.cache_info().currsize,
                  "warm_thread": resources._WARM_STARTED, "frozen": gc.get_freeze_count(),
                  "modules": sorted(m for m in ("pandas", "plotly.express", "pyarrow") if m in sys.modules)}))
"""
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, check=True
    )
    facts = json.loads(done.stdout)
    assert facts["loads"] == 0  # the pages' cache already holds both shipped vocabularies
    assert facts["encodings"] == 2 and facts["warm_thread"]  # no idle-time warm-up left
    assert facts["frozen"] > 100_000  # what it loaded, out of the collector's passes
    assert facts["modules"] == ["pandas", "plotly.express", "pyarrow"]
    assert done.stderr == ""  # no "No runtime found" or "missing ScriptRunContext"


def test_the_merge_curve_is_built_again_only_when_a_checkpoint_writes(tmp_path: Path) -> None:
    """The runs panel redraws a training run every second or two; its merge curve is
    read and built again only when the run's merges files change (sgpe.runs.merges_stamp)."""
    import os

    from sgpe.runs import merges_stamp, read_merges
    from sgpe_explorer.runs.manager import RunManager, RunRequest
    from sgpe_explorer.ui import resources

    manager = RunManager(tmp_path / "runs")
    run = manager.start(RunRequest(shipped.SAMPLE_DATA / "sinhala.txt", vocab_size=400, owner="me"))
    assert manager.wait(run, timeout=120).state == "done"
    first = resources.merge_curve(run.path, "curve")
    assert first is not None and resources.merge_curve(run.path, "curve") is first
    steps = read_merges(run.path)["step"]
    assert list(first.data[0].x) == steps and len(steps) > 50
    (final,) = [p for p in run.path.iterdir() if p.name.startswith("merges.")]
    stamp = merges_stamp(run.path)
    os.utime(final, ns=(final.stat().st_atime_ns, final.stat().st_mtime_ns + 1_000_000))
    assert merges_stamp(run.path) != stamp
    again = resources.merge_curve(run.path, "curve")
    assert again is not first and list(again.data[0].x) == steps
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    assert merges_stamp(fresh) == () and resources.merge_curve(fresh, "curve") is None
    final.write_bytes(b"not a table")  # damaged: said by name, as read_merges says it
    with pytest.raises(ValueError, match=final.name):
        resources.merge_curve(run.path, "curve")


def test_the_merges_stamp_follows_the_parts_then_the_final_table(tmp_path: Path) -> None:
    """While a run trains, read_merges reads the part files a checkpoint writes; the
    stamp changes with each part, and names only the final table once it is written."""
    from sgpe.runs import merges_stamp, read_merges
    from sgpe.runs.format import MERGE_PARTS
    from sgpe.runs.merges_table import encode_merges
    from sgpe_explorer.ui import resources

    merges = [("a", "b"), ("ab", "c"), ("c", "d"), ("abc", "cd")]
    counts = [9, 7, 5, 3]
    parts = tmp_path / MERGE_PARTS
    parts.mkdir()
    assert merges_stamp(tmp_path) == () and resources.merge_curve(tmp_path, "t") is None
    (parts / "part-000001-000002.parquet").write_bytes(encode_merges(merges, counts, 1, 2, True))
    one = merges_stamp(tmp_path)
    first = resources.merge_curve(tmp_path, "t")
    assert len(one) == 1 and list(first.data[0].y) == [9, 7]
    (parts / "part-000003-000004.parquet").write_bytes(encode_merges(merges, counts, 3, 4, True))
    two = merges_stamp(tmp_path)
    assert len(two) == 2 and two[0] == one[0]
    assert list(resources.merge_curve(tmp_path, "t").data[0].y) == [9, 7, 5, 3]
    (tmp_path / "merges.parquet").write_bytes(encode_merges(merges, counts, 1, 4, True))
    (final,) = merges_stamp(tmp_path)
    assert final[0] == str(tmp_path / "merges.parquet")
    assert read_merges(tmp_path)["count"] == counts


def test_the_train_page_scans_the_runs_folder_once_per_draw(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Train page's list, its warnings of damaged runs and folders it does not list,
    and its disk use come from one scan of the runs folder (RunManager.survey); they were
    four, on each whole-page draw and each redraw of the runs panel (docs/app.md, section
    11). The frame's stamp of the finished runs is the other scan."""
    import os

    from streamlit.testing.v1 import AppTest

    from sgpe_explorer.runs.manager import RunManager, RunRequest

    root = tmp_path / "runs"
    monkeypatch.setenv("SGPE_RUNS_DIR", str(root))
    manager = RunManager(root)
    run = manager.start(RunRequest(shipped.SAMPLE_DATA / "sinhala.txt", vocab_size=400))
    assert manager.wait(run, timeout=120).state == "done"
    (root / "notes").mkdir()  # a folder that is not a run: named on the page
    damaged = root / "broken-run"
    shutil.copytree(run.path, damaged)
    (damaged / "status.json").write_text("{", encoding="utf-8")
    survey = manager.survey()
    assert [i.run.id for i in survey.runs] == [i.run.id for i in manager.list_runs()] == [run.id]
    assert (
        survey.skipped
        == manager.skipped_dirs()
        == [("notes", "not a run directory: it has no config.json")]
    )
    assert [r.id for r, _ in survey.damaged] == [r.id for r, _ in manager.damaged_runs()]
    assert [r.id for r, _ in survey.damaged] == ["broken-run"]
    assert [r.id for r in survey.folders] == [run.id, "broken-run"]  # by name
    assert manager.disk_use(survey=survey) == manager.disk_use()

    scans: list[str] = []
    real = os.scandir

    def counted(path: Any = ".") -> Any:
        if os.fspath(path) == os.fspath(root):
            scans.append(os.fspath(path))
        return real(path)

    app = Path(__file__).resolve().parents[1] / "sgpe_explorer" / "app" / "main.py"
    at = AppTest.from_file(str(app), default_timeout=120)
    at.switch_page("app_pages/train.py").run()
    assert not at.exception, [e.value for e in at.exception]
    monkeypatch.setattr(os, "scandir", counted)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(scans) == 2  # the frame's stamp and the page's survey
    (listed,) = [c.value for c in at.caption if c.value.startswith("Not listed: ")]
    assert "notes" in listed and "it has no config" in listed
    assert any("broken-run cannot be shown" in w.value.replace("\\", "") for w in at.warning)


def test_the_default_corpus_figures_are_made_before_the_first_visitor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What `sgpe app` makes before it listens includes Compare's default corpus table
    (the shipped SGPE vocabulary and its baseline on the first sample file), under the
    keys the page asks for: the page then evaluates nothing. A classroom's first visitors
    evaluated it in their rush (docs/app.md, section 11)."""
    from streamlit.testing.v1 import AppTest

    from sgpe import metrics
    from sgpe_explorer.ui import analysis, resources

    monkeypatch.setenv("SGPE_RUNS_DIR", str(tmp_path / "runs"))
    resources._prepare_corpus_figures()
    made = analysis.FIGURES_MADE[0]
    main = Path(__file__).resolve().parents[1] / "sgpe_explorer" / "app" / "main.py"
    at = AppTest.from_file(str(main), default_timeout=120).run()
    at.switch_page("app_pages/compare.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert analysis.FIGURES_MADE[0] == made  # nothing evaluated by the page
    table = at.dataframe[-1].value
    lines = list(metrics.read_lines(shipped.SAMPLE_DATA / "sinhala.txt"))
    expected = [
        metrics.evaluate(resources.load_vocab(path), lines)["tokens"]
        for path in (shipped.DEFAULT_SGPE, shipped.DEFAULT_BYTEBPE)
    ]
    assert list(table["tokenizer"]) == ["SGPE", "Byte-level BPE"]
    assert list(table["tokens"]) == expected

"""Cached tokenizers, the run manager, and which tokenizers are active.

* The shipped vocabularies (:mod:`sgpe.shipped`) and every finished run's ``vocab.json``
  are loaded once per process (``st.cache_resource``, keyed by path and mtime).
* Runs live under ``$SGPE_RUNS_DIR``, else ``runs/`` in a checkout, else a per-user data
  directory (:mod:`sgpe_explorer.runs.place`); tests point the variable at a temporary directory.
* The *active* SGPE tokenizer is the shipped one or any finished SGPE run; its byte-level
  baseline is, unless chosen in the sidebar, the finished byte-level run on the same
  corpus with the same vocabulary size, else the shipped baseline.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import functools
import os
import re
import threading
import time
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import streamlit as st

import sgpe
from sgpe import shipped as defaults
from sgpe.runs.format import RunError
from sgpe_explorer.runs import place
from sgpe_explorer.runs.manager import RunInfo, RunManager

RUNS_ENV = place.RUNS_ENV
DEFAULT_ID = "default"
AUTO_ID = "auto"


def runs_root() -> Path:
    """Where training runs live (:func:`sgpe_explorer.runs.place.default_runs_dir`)."""
    return place.default_runs_dir()


@st.cache_resource(show_spinner=False)
def _manager(root: str) -> RunManager:
    manager = RunManager(root)
    # Once per app process: runs left queued when the app (or the machine) stopped start
    # now. After this, trainers start the queue themselves; reading never does.
    with contextlib.suppress(OSError, RunError):
        manager.poll()
    return manager


def run_manager() -> RunManager:
    """The process-wide run manager for :func:`runs_root` (it only keeps child handles)."""
    return _manager(str(runs_root().resolve()))


@st.cache_resource(show_spinner="Loading vocabulary…", max_entries=16)
def _load(path: str, mtime: float) -> Any:
    return sgpe.load(path)


def load_vocab(path: str | Path) -> Any:
    """A tokenizer from a vocabulary file (SGPE or byte-level), cached by path and mtime."""
    p = Path(path)
    return _load(str(p.resolve()), p.stat().st_mtime)


@st.cache_resource(show_spinner="Loading an OpenAI encoding…")
def _tiktoken(name: str) -> Any:
    from sgpe.baselines.tiktoken_offline import load_encoding

    return load_encoding(name)


WARM_DELAY_S = 3.0
#: Seconds without a script run after which the server counts as idle (:func:`warm_encodings`).
WARM_IDLE_S = 10.0
_WARM_LOCK = threading.Lock()
_WARM_STARTED = False
_LAST_RUN = [0.0]  # time.monotonic() of the last script run's start or end (one_script_run)


def idle_for() -> float:
    """Seconds since a page's script last ran in this process (its start or its end)."""
    return time.monotonic() - _LAST_RUN[0]


def warm_encodings() -> None:
    """Build OpenAI's encodings in a background thread, once per server process, when
    the server is idle.

    app.py calls this on every run (a no-op after the first): the first visitor's first
    page starts it, so Evaluate (whose default comparison has o200k_base) and a Compare
    that picks one find them built instead of waiting about a second.
    The thread only calls the library's :func:`~sgpe.baselines.tiktoken_offline.load_encoding`
    (its own cache; no Streamlit call), and a failure there is left for the page to report
    when it loads the encoding itself.

    The build costs about 0.8 CPU-s. It waits until no page has run for
    :data:`WARM_IDLE_S`: in a classroom the visitors' pages run close together on two
    cores, and the build (then 1.4 CPU-s) took a tenth of a visitor's server time in the
    middle of them; with 3 s it still started in a pause of the rush (docs/app.md,
    section 11). A page that needs an encoding before then builds it
    itself, as without the warm-up. ``sgpe app`` builds them before it listens
    (:func:`prepare_server`), and this is then a no-op; it remains for a server started
    otherwise (``streamlit run app.py`` in a checkout)."""
    global _WARM_STARTED
    with _WARM_LOCK:
        if _WARM_STARTED:
            return
        _WARM_STARTED = True

    def build() -> None:
        time.sleep(WARM_DELAY_S)  # after the first page has drawn
        while idle_for() < WARM_IDLE_S:
            time.sleep(1.0)
        _build_encodings()

    thread = threading.Thread(target=build, name="sgpe-warm-encodings", daemon=True)
    thread.start()


def _build_encodings() -> None:
    """OpenAI's two encodings, into the library's own cache (``load_encoding``); a failure
    is left for the page that needs the encoding, which reports it."""
    from sgpe.baselines.tiktoken_offline import load_encoding

    for name in ("o200k_base", "cl100k_base"):
        with contextlib.suppress(Exception):
            load_encoding(name)


def prepare_server() -> None:
    """Before a server's first visitor: what every page needs, once per process.

    ``sgpe app`` (sgpe_explorer/app/serve.py, which first imports the page modules'
    helpers) calls this before it listens. A page's
    first run in a fresh server paid for importing the page modules and their pandas,
    Plotly and Arrow code, loading the shipped vocabularies and building OpenAI's
    encodings. A classroom's first visitors paid it in the middle of their rush, on a
    server they shared (docs/app.md, section 11). The encodings were built in an idle
    pause (:func:`warm_encodings`), which a busy class may not leave.

    Then everything loaded so far is moved out of the garbage collector's sight
    (``gc.freeze``): it lives as long as the process, and each full collection walked
    all of it again (0.12 CPU-s a pass with the tokenizers and tables loaded).

    A failure here is not fatal: the page that needs the missing part loads it and says
    what is wrong, as it does without this."""
    global _WARM_STARTED
    import gc

    import pandas as pd
    import pyarrow as pa

    from sgpe_explorer.ui import charts

    for path in (defaults.DEFAULT_SGPE, defaults.DEFAULT_BYTEBPE):
        with contextlib.suppress(ValueError, OSError):
            load_vocab(path).encode("ශ්‍රී ලංකා नमस्ते")
    with contextlib.suppress(Exception):  # Compare reports what is wrong when it draws them
        _prepare_corpus_figures()
    # Plotly imports each property's checks when a figure first sets it, and Arrow its
    # pandas conversion when a table is first drawn.
    table = pd.DataFrame({"tokenizer": ["SGPE"], "tokens": [1.0]})
    with contextlib.suppress(Exception):  # a page drawing a chart reports what is wrong
        charts.prepare(table)
        pa.Table.from_pandas(table)
    with _WARM_LOCK:
        started, _WARM_STARTED = _WARM_STARTED, True
    if not started:
        _build_encodings()
    gc.collect()
    gc.freeze()


def _prepare_corpus_figures() -> None:
    """The figures Compare's corpus table shows by default (the shipped SGPE vocabulary
    and its baseline on the first sample file), made as the page makes them
    (:func:`sgpe_explorer.ui.analysis.corpus_figures`, the same keys)."""
    from sgpe import metrics

    from . import analysis

    files = sample_files()
    if not files:
        return
    lines = tuple(metrics.read_lines(files[0]))
    digest = analysis.corpus_digest(lines)
    # Both judged by the SGPE vocabulary's syllables, as the page judges every column.
    grammar = analysis.vocabulary_grammar(load_vocab(defaults.DEFAULT_SGPE))
    for path in (defaults.DEFAULT_SGPE, defaults.DEFAULT_BYTEBPE):
        analysis.corpus_figures(_file_key(path), digest, load_vocab(path), lines, grammar)


def merge_curve(run_dir: Path, title: str) -> Any | None:
    """A run's merge curve (:func:`sgpe_explorer.ui.charts.merge_curve`), or None before
    its first checkpoint; kept while its merges files are unchanged
    (:func:`sgpe.runs.merges_stamp`). The runs panel redraws itself every second or two
    while a run of the visitor's is live, and read the merges table and built the figure
    each time: the panel's largest part (docs/app.md, section 11). A damaged merges file
    raises ``ValueError`` naming it, as :func:`sgpe.runs.read_merges` does."""
    from sgpe.runs import merges_stamp

    stamp = merges_stamp(run_dir)
    return _merge_curve(str(run_dir), stamp, title) if stamp else None


@functools.lru_cache(maxsize=32)  # a figure of a few thousand points each
def _merge_curve(run_dir: str, stamp: tuple[Any, ...], title: str) -> Any | None:
    from sgpe.runs import read_merges
    from sgpe_explorer.ui import charts

    merges = read_merges(run_dir)
    return charts.merge_curve(merges["step"], merges["count"], title) if merges["step"] else None


def tiktoken(name: str) -> tuple[Any, str | None]:
    """tiktoken's ``o200k_base`` or ``cl100k_base`` built offline, or ``(None, why not)``."""
    try:
        return _tiktoken(name), None
    except Exception as err:  # missing optional package or rank file: say so on the page
        return None, f"{name} is not available: {err}"


@st.cache_data(show_spinner=False, max_entries=32)
def _run_counts(run_dir: str, mtime: float) -> list[int] | None:
    from sgpe.runs.format import read_merges

    try:
        counts = read_merges(run_dir).get("count")
    except Exception:  # a damaged table must not break the page
        return None
    return [int(c) for c in counts] if counts else None


# ============================================================================ choices


@dataclass(frozen=True)
class Choice:
    """A vocabulary the user can make active."""

    id: str  # "default" or a run id
    label: str
    path: Path
    model: str
    corpus_sha256: str = ""
    vocab_size: int = 0
    short: str = ""  # a run's name and start, for a column title ("mine.txt, 26 Nov 06:42")
    trained_size: int = 0  # what a finished run reached (0: the shipped one, or unknown)
    #: how the sidebar's menus name it: name and start first (:func:`_menu_head`); for the
    #: shipped one, the label
    menu: str = ""


_FINISHED: dict[str, tuple[tuple[Any, ...], list[RunInfo]]] = {}
_FINISHED_LOCK = threading.Lock()
_LISTING_LOCK = threading.Lock()  # held while one session lists the runs or names them


def _runs_stamp(root: Path) -> tuple[Any, ...]:
    """What changes when a run appears, goes or changes state: each folder's name and
    mtime (a file written into it by atomic rename, as every run file is, changes it)
    and its ``status.json``'s mtime."""
    out = []
    with os.scandir(root) as entries:
        for entry in entries:
            if entry.is_dir():
                try:
                    status = os.stat(os.path.join(entry.path, "status.json")).st_mtime_ns
                except OSError:
                    status = None
                out.append((entry.name, entry.stat().st_mtime_ns, status))
    return tuple(sorted(out))


def finished_runs() -> list[RunInfo]:
    """Finished runs (newest first), read from their files only; an unreadable runs root
    gives none. A fresh :class:`RunManager` (not :func:`run_manager`, whose first use
    starts the queue) lists them: listing launches nothing and removes nothing.

    A page asks for them up to 8 times (the sidebar, the active tokenizers, Compare's
    catalogue), and reading 50 runs' status files each time was a third of a classroom
    paste's server time (python -m bench app, docs/app.md): the list is kept while no
    run folder or status file changes (:func:`_runs_stamp`; a "done" state depends on
    nothing else)."""
    return list(_finished()[1])


# ============================================================================ one script run

_SCRIPT_RUN = threading.local()
#: How many times the runs folder was stamped (:func:`_runs_stamp`) for the pages
#: (tests/test_app_classroom.py).
STAMPS = collections.Counter[str]()


@contextlib.contextmanager
def one_script_run() -> Iterator[None]:
    """The runs folder as one script run sees it: inside, the finished runs are listed
    (stamped) once, and the active tokenizers resolved once per pair of choices.

    A script run asked for them 7 to 9 times (the sidebar's menus, the active
    tokenizers, a page's catalogue, the runs panel), each with its own scan of every run
    folder: a sixth of a classroom visitor's script time (docs/app.md, section 11). The
    frame (sgpe_explorer/app/main.py) and the runs panel's own redraw open it; within
    one, a run that ends is seen by the next script run, as a page drawn from one
    listing then agrees with itself. Runs are changed in callbacks, before the script
    runs. Nested, it is the outer one; elsewhere (other threads, the library) nothing
    is kept."""
    if getattr(_SCRIPT_RUN, "memo", None) is not None:
        yield
        return
    _SCRIPT_RUN.memo = {}
    _LAST_RUN[0] = time.monotonic()
    try:
        yield
    finally:
        _SCRIPT_RUN.memo = None
        _LAST_RUN[0] = time.monotonic()


def _once_per_run(key: tuple[Any, ...], compute: Callable[[], Any]) -> Any:
    """``compute()``, kept under ``key`` for the rest of the script run
    (:func:`one_script_run`); outside one, computed on every call."""
    memo: dict[Any, Any] | None = getattr(_SCRIPT_RUN, "memo", None)
    if memo is None:
        return compute()
    if key not in memo:
        memo[key] = compute()
    return memo[key]


def _finished() -> tuple[tuple[Any, ...] | None, list[RunInfo]]:
    """:func:`finished_runs` with the stamp it was read under (None: no readable root),
    once per script run (:func:`one_script_run`)."""
    found: tuple[tuple[Any, ...] | None, list[RunInfo]]
    found = _once_per_run(("finished", str(runs_root())), _finished_now)
    return found


def _finished_now() -> tuple[tuple[Any, ...] | None, list[RunInfo]]:
    root = runs_root()
    STAMPS["finished"] += 1
    try:
        stamp = _runs_stamp(root)
    except OSError:
        return None, []
    key = str(root)
    with _FINISHED_LOCK:
        hit = _FINISHED.get(key)
    if hit is not None and hit[0] == stamp:
        return stamp, hit[1]
    # One session lists, the others wait for its answer: a classroom's visitors open
    # their first page at once, and each listed the 50 runs itself.
    with _LISTING_LOCK:
        with _FINISHED_LOCK:
            hit = _FINISHED.get(key)
        if hit is not None and hit[0] == stamp:
            return stamp, hit[1]
        try:
            infos = RunManager(root).list_runs()
        except OSError:
            return None, []
        done = [info for info in infos if info.status.state == "done"]
        with _FINISHED_LOCK:
            _FINISHED.clear()  # one runs root per server: keep only the latest listing
            _FINISHED[key] = (stamp, done)
    return stamp, done


def run_name(info: RunInfo) -> str:
    """What a run is called on the pages: the name its starter gave it, else its corpus
    (never the hex id alone)."""
    return info.label or info.config.corpus_name or "corpus"


def run_when(info: RunInfo) -> str:
    """When a run was started, in UTC (visitors of one server live in several zones)."""
    import time

    created = info.config.created
    return time.strftime("%d %b %Y %H:%M UTC", time.gmtime(created)) if created else "undated"


def run_kind(info: RunInfo) -> str:
    """``SGPE hierarchical`` / ``SGPE paper`` / ``byte-level BPE``."""
    cfg = info.config
    return f"SGPE {cfg.mode}" if cfg.model == "sgpe" else "byte-level BPE"


def _run_choice(info: RunInfo, with_id: bool = False) -> Choice:
    cfg = info.config
    size = info.status.trained_size or cfg.vocab_size  # what was trained, not what was asked
    label = f"{run_name(info)}, {size:,} tokens · {run_kind(info)} · {run_when(info)}"
    short = f"{run_name(info)}, {run_when(info)[:6]}{run_when(info)[11:17]}"
    menu = _menu_head(info, with_id)
    return Choice(
        info.run.id,
        label,
        info.run.path / "vocab.json",
        cfg.model,
        cfg.corpus_sha256,
        cfg.vocab_size,
        short,
        info.status.trained_size or 0,
        f"{menu} · {size:,} tokens · {run_kind(info)}",
    )


#: Characters of a run's name in the sidebar's menus. The sidebar shows about 38
#: characters of a choice and cuts the rest: "sinhala.txt, 600 tokens · SGPE hierarchic…"
#: twice over told two runs apart by nothing, the start time being at the end.
MENU_NAME = 20


def _menu_head(info: RunInfo, with_id: bool = False) -> str:
    """What the sidebar always shows of a run: its name (cut to :data:`MENU_NAME`) and its
    start; ``with_id``, for runs of one name and minute, the end of its id between them
    (its random part, or a folder name's last characters)."""
    name = run_name(info)
    if len(name) > MENU_NAME:
        name = name[: MENU_NAME - 1].rstrip() + "…"
    when = f"{run_when(info)[:6]}{run_when(info)[11:17]}"
    if not with_id:
        return f"{name} · {when}"
    run_id = info.run.id
    tag = run_id[-6:] if _GENERATED_ID.fullmatch(run_id) else run_id
    if len(tag) > 12:
        tag = "…" + tag[-11:]
    return f"{name} · {tag} · {when}"


_GENERATED_ID = re.compile(r"\d{8}-\d{6}-[0-9a-f]{6}")  # records.new_run_id


#: How many times :func:`choices` built its menu from the runs (tests/test_app_classroom.py).
CHOICE_BUILDS = collections.Counter[str]()
_CHOICES: dict[str, tuple[tuple[Any, ...], dict[str, Choice]]] = {}


def choices(model: str) -> dict[str, Choice]:
    """Selectable vocabularies of one model (``sgpe`` or ``bytebpe``), shipped first.

    Asked 7 times a script run (the sidebar's two menus, the active tokenizers, Compare's
    catalogue): naming 50 runs each time (a date format per run and menu) was a tenth
    of a classroom visitor's server time (docs/app.md, section 11). The menu is kept
    while the finished runs are (:func:`finished_runs`' stamp): the same runs give the
    same names."""
    stamp, runs_done = _finished()
    key = f"{model}:{runs_root()}"
    with _FINISHED_LOCK:
        hit = _CHOICES.get(key)
    if stamp is not None and hit is not None and hit[0] == stamp:
        return dict(hit[1])
    with _LISTING_LOCK:
        with _FINISHED_LOCK:
            hit = _CHOICES.get(key)
        if stamp is not None and hit is not None and hit[0] == stamp:
            return dict(hit[1])
        return _build_choices(model, key, stamp, runs_done)


def _build_choices(
    model: str, key: str, stamp: tuple[Any, ...] | None, runs_done: list[RunInfo]
) -> dict[str, Choice]:
    """:func:`choices` named from ``runs_done`` and kept under ``stamp`` (the caller
    holds the listing lock)."""
    CHOICE_BUILDS[model] += 1
    shipped = defaults.DEFAULT_SGPE if model == "sgpe" else defaults.DEFAULT_BYTEBPE
    out = {
        DEFAULT_ID: Choice(
            DEFAULT_ID,
            f"shipped: sample_data, {defaults.DEFAULT_VOCAB_SIZE:,} tokens",
            shipped,
            model,
            "",
            defaults.DEFAULT_VOCAB_SIZE,
        )
    }
    runs = [
        info
        for info in runs_done
        if info.config.model == model and (info.run.path / "vocab.json").exists()
    ]
    # Runs of one name started in the same minute: their ids tell them apart.
    heads = collections.Counter(_menu_head(info) for info in runs)
    for info in runs:
        out[info.run.id] = _run_choice(info, with_id=heads[_menu_head(info)] > 1)
    if stamp is not None:
        with _FINISHED_LOCK:
            if len(_CHOICES) > 8:  # one runs root per server; tests make many
                _CHOICES.clear()
            _CHOICES[key] = (stamp, out)
    return dict(out)


@dataclass(frozen=True)
class Active:
    """The tokenizers every page uses."""

    sgpe: Any
    sgpe_choice: Choice
    base: Any
    base_choice: Choice
    base_matched: bool  # the baseline was trained on the same corpus at the same size
    #: why a chosen run's vocabulary is not used (damaged file): shown in the sidebar
    problems: tuple[str, ...] = ()

    def counts(self, which: str) -> list[int] | None:
        """Training count of each merge (by rank) of ``"sgpe"`` or ``"base"``: recorded in
        the vocabulary file by the trainer; for a run whose file predates that, its merge
        table; else None (unknown)."""
        choice, tok = (
            (self.sgpe_choice, self.sgpe) if which == "sgpe" else (self.base_choice, self.base)
        )
        recorded = getattr(tok, "merge_counts", None)
        if recorded is not None or choice.id == DEFAULT_ID:
            return recorded
        try:
            mtime = choice.path.stat().st_mtime
        except OSError:
            return None
        return _run_counts(str(choice.path.parent), mtime)


def resolve(tok_id: str, base_id: str) -> Active:
    """The active tokenizers for the sidebar's choices (unknown ids fall back to shipped).

    "auto" picks its baseline for the SGPE vocabulary actually used: when the chosen run's
    file is damaged and the shipped one stands in, the auto baseline is the shipped one
    too (it was the damaged run's 2,000-token baseline beside the shipped 4,000 tokens,
    and Evaluate compared them without a word). A baseline chosen by name stays, and
    ``base_matched`` then says it was not trained like the SGPE one."""
    found: Active = _once_per_run(
        ("resolve", str(runs_root()), tok_id, base_id), lambda: _resolve_now(tok_id, base_id)
    )
    return found


def _resolve_now(tok_id: str, base_id: str) -> Active:
    sgpe_choices = choices("sgpe")
    base_choices = choices("bytebpe")
    problems: list[str] = []
    sgpe_tok, sgpe_choice = _load_or_shipped(
        sgpe_choices.get(tok_id, sgpe_choices[DEFAULT_ID]), sgpe_choices, problems
    )
    if base_id in base_choices and base_id != AUTO_ID:
        base_choice = base_choices[base_id]
    else:
        base_choice = matching_baseline(sgpe_choice, base_choices)
    base_tok, base_choice = _load_or_shipped(base_choice, base_choices, problems)
    matched = _same_training(sgpe_choice, base_choice)
    return Active(sgpe_tok, sgpe_choice, base_tok, base_choice, matched, tuple(problems))


def _load_or_shipped(
    choice: Choice, options: dict[str, Choice], problems: list[str]
) -> tuple[Any, Choice]:
    """The choice's tokenizer; if its file is damaged (the library says what is wrong, in
    one line), the shipped one instead and a note in ``problems``: a page never fails
    because one run's vocab.json was damaged on disk."""
    try:
        return load_vocab(choice.path), choice
    except (ValueError, OSError) as err:
        if choice.id == DEFAULT_ID:
            raise
        problems.append(
            f"Run {choice.id} cannot be used: {err}. The shipped vocabulary is used instead; "
            "delete the run on the Train page, or train it again."
        )
        shipped = options[DEFAULT_ID]
        return load_vocab(shipped.path), shipped


def _same_training(a: Choice, b: Choice) -> bool:
    if a.id == DEFAULT_ID or b.id == DEFAULT_ID:
        return a.id == b.id
    return a.corpus_sha256 == b.corpus_sha256 and a.vocab_size == b.vocab_size


def matching_baseline(sgpe_choice: Choice, base_choices: dict[str, Choice]) -> Choice:
    """The byte-level run trained on the same corpus at the same size, else the shipped one."""
    if sgpe_choice.id != DEFAULT_ID:
        for c in base_choices.values():
            if c.id != DEFAULT_ID and _same_training(sgpe_choice, c):
                return c
    return base_choices[DEFAULT_ID]


def active() -> Active:
    """The active tokenizers, as last chosen in the sidebar or with "use this vocabulary"
    (``st.session_state["opts"]``, see :mod:`sgpe_explorer.ui.state`)."""
    opts = st.session_state.get("opts", {})
    act = resolve(str(opts.get("tok") or DEFAULT_ID), str(opts.get("base") or AUTO_ID))
    # What each run in use is called, so a note can name it once the run is gone.
    labels: dict[str, str] = st.session_state.setdefault(_LABELS, {})
    for choice in (act.sgpe_choice, act.base_choice):
        if choice.id != DEFAULT_ID:
            labels[choice.id] = choice.label
    return act


# ============================================================================ a choice gone

_GONE = "vocab_gone"  # session state: "tok"/"base" -> the id of a chosen run no longer there
_LABELS = "vocab_labels"  # session state: run id -> its label while it was in use
#: What stands in for a choice that is gone: the sidebar's defaults.
FALLBACK = {"tok": DEFAULT_ID, "base": AUTO_ID}


def note_missing(param: str, widget: str, offered: Collection[str]) -> None:
    """Remember that the vocabulary this visitor chose for ``param`` (``tok`` or ``base``)
    is no longer offered, before the sidebar drops the choice (app main.py).

    A run chosen with "Use this vocabulary" can be deleted by its owner in another
    session, and a link can name a run this server does not have; the sidebar then falls
    back to its default, which used to happen without a word. :func:`say_switches` says it
    on the page."""
    ss = st.session_state
    if widget in ss:
        wanted = ss[widget]
    elif param not in ss.get("url_seen", ()) and st.query_params.get(param):
        wanted = st.query_params.get(param)  # a link's choice, on the session's first run
    else:
        wanted = ss.get("opts", {}).get(param)
    if wanted is None or str(wanted) in offered or str(wanted) == FALLBACK[param]:
        return
    ss.setdefault(_GONE, {})[param] = str(wanted)


def _dismiss(param: str) -> None:
    st.session_state.get(_GONE, {}).pop(param, None)


def say_switches(act: Active) -> None:
    """On the page itself, above its title: a chosen vocabulary that is gone (see
    :func:`note_missing`) and a damaged one replaced by the shipped one, each with what
    is used instead. The sidebar is closed on a phone, so its warning alone went unseen.

    A note about a gone run stays until the visitor chooses another vocabulary or
    presses "OK"."""
    from .owner import shown
    from .render import md_escape

    gone: dict[str, str] = st.session_state.get(_GONE, {})
    opts = st.session_state.get("opts", {})
    labels: dict[str, str] = st.session_state.get(_LABELS, {})
    for param, run_id in list(gone.items()):
        if str(opts.get(param) or FALLBACK[param]) != FALLBACK[param]:
            del gone[param]  # chosen anew since
            continue
        was = labels.get(run_id)
        named = f"run {run_id}" + (f" ({was})" if was else "")
        if param == "tok":
            message = (
                f"The SGPE vocabulary you chose, {named}, is no longer on this server: its "
                "run was deleted (or the link came from another server). The shipped "
                f"vocabulary is used instead ({act.sgpe_choice.label}); choose another in "
                "the sidebar or on the Train page."
            )
        else:
            message = (
                f"The byte-level baseline you chose, {named}, is no longer on this server: "
                "its run was deleted (or the link came from another server). The baseline "
                f"is picked automatically again ({act.base_choice.label})."
            )
        note, ok = st.columns([9, 1], vertical_alignment="center")
        note.warning(md_escape(shown(message)), icon=":material/swap_horiz:")
        ok.button("OK", key=f"vocab_gone_ok_{param}", on_click=_dismiss, args=(param,))
    for problem in act.problems:
        st.warning(md_escape(shown(problem)), icon=":material/warning:")


def sample_files() -> list[Path]:
    """The text files in ``sample_data/`` (corpora to pick from), Sinhala first."""
    files = [p for p in defaults.SAMPLE_DATA.glob("*.txt") if p.is_file()]
    return sorted(files, key=lambda p: (p.name != "sinhala.txt", p.name))


# ============================================================================ catalogue

OPENAI = ("o200k_base", "cl100k_base")


@dataclass(frozen=True)
class Entry:
    """A tokenizer the Compare and Evaluate pages can put side by side.

    OpenAI's encodings are offered without being loaded (``tokenizer`` None, ``loader``
    set, ``vocab_size`` None): building o200k_base and cl100k_base took 1.3 s of the
    first Compare visit although the default comparison does not use them. They load,
    once per process, when a page first picks one."""

    key: str  # stable id (URL value): "sgpe", "base", "o200k_base", "run:<id>", ...
    name: str  # short, unique column title
    tokenizer: Any  # None until loaded (see loader)
    label: str  # what it is, in one line, with its size once known
    cache_key: str  # changes when the vocabulary file changes
    vocab_size: int | None  # None: known once loaded
    loader: Callable[[], Any] | None = None

    def get(self) -> Any:
        """The tokenizer, loaded now if it was offered unloaded."""
        if self.tokenizer is not None or self.loader is None:
            return self.tokenizer
        return self.loader()

    @property
    def option(self) -> str:
        """How a picker shows it (without loading it)."""
        if self.vocab_size is None:
            what = "OpenAI's encoding" if self.key in OPENAI else "size known once loaded"
            return f"{self.name}: {what} (loads when picked)"
        return f"{self.name}: {self.vocab_size:,} tokens"


def load_entries(entries: list[Entry]) -> tuple[list[Entry], list[str]]:
    """The picked entries with their tokenizers loaded (and sizes known); an encoding that
    cannot be built is left out with a line saying why (a missing optional package or
    rank file), never an error for the whole page."""
    loaded, problems = [], []
    for entry in entries:
        try:
            tok = entry.get()
        except Exception as err:  # tiktoken missing, a rank file absent offline
            problems.append(f"{entry.name} is not available: {err}")
            continue
        loaded.append(_loaded(entry, tok))
    return loaded, problems


def _loaded(entry: Entry, tok: Any) -> Entry:
    """``entry`` with its tokenizer; one offered unloaded now states its size too."""
    if entry.vocab_size is not None:
        return dataclasses.replace(entry, tokenizer=tok)
    size = int(getattr(tok, "n_vocab", None) or tok.vocab_size)
    return dataclasses.replace(
        entry, tokenizer=tok, vocab_size=size, label=f"{entry.label} · {size:,} tokens"
    )


def with_picked_loaded(entries: dict[str, Entry], picked: Any) -> dict[str, Entry]:
    """``entries`` with the picked ones loaded, before the picker is drawn: a picked
    OpenAI encoding then shows its size in the picker, not "(loads when picked)". One
    that cannot be built stays unloaded (:func:`load_entries` says why)."""
    out = dict(entries)
    for key in picked if isinstance(picked, list) else []:
        entry = out.get(key)
        if entry is None or entry.tokenizer is not None:
            continue
        try:
            out[key] = _loaded(entry, entry.get())
        except Exception:  # reported by load_entries, with the reason
            continue
    return out


def _file_key(path: Path) -> str:
    try:
        return f"{path}:{path.stat().st_mtime}"
    except OSError:
        return str(path)


def catalogue(act: Active, *, openai: bool = True) -> tuple[dict[str, Entry], list[str]]:
    """The active SGPE tokenizer and its baseline, OpenAI's encodings, and every other
    finished run; with one line per tokenizer that could not be loaded."""
    out: dict[str, Entry] = {
        "sgpe": Entry(
            "sgpe",
            "SGPE",
            act.sgpe,
            act.sgpe_choice.label,
            _file_key(act.sgpe_choice.path),
            act.sgpe.vocab_size,
        ),
        "base": Entry(
            "base",
            "Byte-level BPE",
            act.base,
            act.base_choice.label
            + ("" if act.base_matched else " — not trained on the same corpus as the SGPE one"),
            _file_key(act.base_choice.path),
            act.base.vocab_size,
        ),
    }
    problems: list[str] = []
    if openai:
        for name in OPENAI:
            out[name] = Entry(
                name,
                name,
                None,
                f"OpenAI {name} (tiktoken, offline)",
                name,
                None,
                loader=functools.partial(_tiktoken, name),
            )
    used = {act.sgpe_choice.id, act.base_choice.id}
    for model, title in (("sgpe", "SGPE"), ("bytebpe", "Byte-level")):
        for choice in choices(model).values():
            if choice.id in used:
                continue
            # A column title: the run's name and start, short; the id only to tell apart
            # two runs of one name started in the same minute.
            tag = "shipped" if choice.id == DEFAULT_ID else choice.short
            name = f"{title} ({tag})"
            if any(e.name == name for e in out.values()):
                name = f"{title} ({tag}, {choice.id[-6:]})"
            key = f"{model}:{choice.id}"
            # Offered unloaded, like OpenAI's encodings: loading every finished run here
            # made a fresh server's first Compare wait for all of them (docs/app.md). A
            # damaged file is reported by load_entries when the run is picked.
            size = choice.vocab_size if choice.id == DEFAULT_ID else choice.trained_size
            out[key] = Entry(
                key,
                name,
                None,
                choice.label,
                _file_key(choice.path),
                size or None,
                loader=functools.partial(load_vocab, choice.path),
            )
    return out, problems

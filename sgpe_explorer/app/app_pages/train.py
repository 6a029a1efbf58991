"""Train: background training runs (start, watch, cancel, resume, delete, use).

Whose runs. Every run the page starts records its visitor's owner (a digest of the owner
key in a long-lived cookie, see sgpe_explorer/ui/owner.py), so a reload or a browser restart keeps
the visitor's runs theirs. The page lists the visitor's own runs with every control.
Runs without an owner (started on the server, e.g. with ``sgpe train --out <runs>/<name>``)
are listed read-only in their own collapsed section, and other visitors' finished
vocabularies in another, both offering "use this vocabulary". Hiding buttons is not the
protection: cancel, resume and delete go through the run manager with ``as_owner``, which
refuses another owner's run and an ownerless one (sgpe_explorer/runs/manager.py,
Ownership); an administrator (``SGPE_ADMIN=1``, or an owner id listed in
``SGPE_ADMIN_OWNERS``, sgpe_explorer/ui/owner.py) manages every run.
"""

from __future__ import annotations

import time
from typing import Any

import streamlit as st

from sgpe.corpus import CorpusError
from sgpe.runs import RunError, RunStatus
from sgpe.settings import RunMechanics, TrainSettings, default
from sgpe_explorer.runs.manager import (
    GZIP_EXPANSION_LIMIT,
    LABEL_MAX,
    RunInfo,
    RunRequest,
    Survey,
    check_label,
    read_owner,
)
from sgpe_explorer.ui import (
    downloads,
    own_schema,
    owner,
    render,
    resources,
    state,
    train_form,
)

STATE_ICONS = {
    "queued": ":material/schedule:",
    "counting": ":material/functions:",
    "merging": ":material/sync:",
    "done": ":green[:material/check_circle:]",
    "failed": ":red[:material/error:]",
    "cancelled": ":material/stop_circle:",
    "interrupted": ":orange[:material/warning:]",
}
UPLOAD_TYPES = ["txt", "gz", "jsonl", "csv", "parquet"]
# Checkpoints more often than the library's default, so the merge curve below fills in
# while a run works (a checkpoint of a few thousand merges takes milliseconds).
APP_MECHANICS = RunMechanics(checkpoint_every=200, checkpoint_seconds=1.0)

mgr = resources.run_manager()


# ============================================================================ actions
# Button callbacks run before the next script run, so they may set the sidebar's widgets.


def _note(kind: str, message: str) -> None:
    st.session_state["train_note"] = (kind, message)
    st.session_state["train_full_rerun"] = True


def _as_owner() -> str | None:
    """Who acts, for the run manager's ownership check (None: an administrator)."""
    return None if owner.is_admin() else owner.owner_id()


# How long a Cancel waits for the trainer to end. It finishes its current merge and writes
# a checkpoint, which on a large corpus takes seconds: waiting up to 5 s froze the page.
# The runs list, polling every second, shows it end.
CANCEL_WAIT_S = 0.5


def cancel(run_id: str) -> None:
    try:
        st_ = mgr.cancel(run_id, wait=CANCEL_WAIT_S, as_owner=_as_owner())
        if st_.alive:
            _note(
                "info",
                f"Run {run_id} is stopping: it finishes its current merge, writes a "
                "checkpoint and ends cancelled (then it can be resumed).",
            )
        else:
            _note("info", f"Run {run_id} is {st_.state}.")
    except RunError as err:
        _note("error", str(err))


def resume(run_id: str) -> None:
    try:
        mgr.resume(run_id, as_owner=_as_owner())
        _note("info", f"Run {run_id} resumes from its last checkpoint.")
    except RunError as err:
        _note("error", str(err))


def _choose(param: str, widget: str, value: str) -> None:
    """Make ``value`` the sidebar's choice (its widget and the shared option)."""
    st.session_state[widget] = value
    state.remember(param, value)


def delete(run_id: str) -> None:
    try:
        mgr.delete(run_id, as_owner=_as_owner())
    except RunError as err:
        _note("error", str(err))
        return
    if resources.active().sgpe_choice.id == run_id:
        _choose("tok", "side_tok", resources.DEFAULT_ID)
    if st.session_state.get("opts", {}).get("base") == run_id:
        _choose("base", "side_base", resources.AUTO_ID)
    _note("info", f"Deleted run {run_id}.")


def clean_runs(keep: tuple[str, ...]) -> None:
    """Delete this session's finished and failed runs (every session's for an admin),
    keeping the ones in use on the pages."""
    try:
        deleted, freed = mgr.delete_finished(as_owner=_as_owner(), keep=frozenset(keep))
    except (RunError, OSError) as err:
        _note("error", f"Cleanup stopped: {err}")
        return
    if deleted:
        _note(
            "success", f"Deleted {len(deleted)} finished or failed run(s); {_bytes(freed)} freed."
        )
    else:
        _note("info", "No finished or failed run to delete.")


def clean_uploads() -> None:
    """Delete this visitor's stored uploads that no run refers to (every visitor's for an
    admin); another visitor's upload is never touched."""
    try:
        files, freed = mgr.delete_unused_uploads(as_owner=_as_owner())
    except OSError as err:
        _note("error", f"Cleanup stopped: {err}")
        return
    if files:
        _note("success", f"Deleted {files} upload(s) that no run uses; {_bytes(freed)} freed.")
    else:
        _note("info", "Every upload of yours is the corpus of a run; nothing was deleted.")


def _bytes(n: int) -> str:
    if n < 1000 * 1000:
        return f"{n / 1000:,.1f} kB"
    return f"{n / 1e6:,.1f} MB"


def use(run_id: str, model: str) -> None:
    if model == "sgpe":
        _choose("tok", "side_tok", run_id)
        _choose("base", "side_base", resources.AUTO_ID)
    else:
        _choose("base", "side_base", run_id)
    what = "SGPE tokenizer" if model == "sgpe" else "byte-level baseline"
    _note("success", f"Run {run_id} is now the active {what} on every page.")


# ============================================================================ page

st.title("Train")
st.caption(
    "Train an SGPE vocabulary (and, at the same size, the byte-level BPE baseline) on a "
    "corpus. Runs work in the background, survive an app restart, and can be cancelled "
    "and resumed from their last checkpoint."
)


def watch_corpus_check(corpus: Any, name: str, checks: list[TrainSettings]) -> None:
    """Redraw the page once the background size checks of a large upload are done."""

    def poll() -> None:
        if all(train_form.corpus_range(corpus, name, s) is not None for s in checks):
            st.rerun(scope="app")

    st.fragment(poll, run_every=0.5)()


with st.container(border=True):
    source = st.radio(
        "Corpus",
        ["sample_data/", "upload"],
        horizontal=True,
        key=state.init_widget(
            "train_source", "source", "sample_data/", allowed=("sample_data/", "upload")
        ),
        format_func={
            "sample_data/": "a file from sample_data/",
            "upload": "upload a file",
        }.__getitem__,
    )
    corpus: Any = None
    name: str | None = None
    sample_param: str | None = None  # the sample file in the link, unless the first
    if source == "upload":
        limit = mgr.max_upload_bytes
        st.caption(
            "Upload limit: "
            + (
                f"{limit / 2**20:,.0f} MB per file (a .txt.gz may expand to "
                f"{GZIP_EXPANSION_LIMIT * limit / 2**20:,.0f} MB)"
                if limit is not None
                else "none"
            )
            + ". Larger corpora: train with `python -m sgpe train` and open the run here."
        )
        upload = st.file_uploader(
            "Corpus file: .txt (one document per line), .txt.gz, .jsonl, .csv or .parquet "
            "(a text field/column)",
            type=UPLOAD_TYPES,
            key="train_upload",
        )
        if upload is not None:
            corpus, name = upload, upload.name
    else:
        files = {p.name: p for p in resources.sample_files()}
        picked = st.selectbox(
            "Sample file",
            list(files),
            key=state.init_widget("train_sample", "sample", next(iter(files), None), allowed=files),
        )
        if picked:
            corpus, name = files[picked], picked
            sample_param = picked if picked != next(iter(files)) else None
    # The sidebar's script, or the schema the Grammar page validated ("Your own schema").
    script, grammar_note = own_schema.train_grammar(str(state.option("script", default("script"))))
    values = train_form.form_values()
    baseline = st.toggle(
        "Also train the byte-level baseline",
        key=state.init_widget("train_base", "baseline", True, state.parse_bool),
    )
    label: str | None = st.text_input(
        "Run name (optional)",
        key=state.init_widget("train_label", "name", ""),
        max_chars=LABEL_MAX,
        placeholder="e.g. Sinhala news, 8k",
        help="Shown on the pages instead of the corpus name (the baseline gets it too).",
    )
    st.caption(f"{grammar_note} The baseline uses the same corpus and vocabulary size.")
    problems: list[str] = []
    # Where the page says training stops, below the size asked (the runs record it, so
    # their progress counts toward it): the SGPE run's and the baseline's.
    reach: int | None = None
    reach_base: int | None = None
    settings: TrainSettings | None = None
    base_settings: TrainSettings | None = None
    try:
        settings = train_form.settings_of(values, script)
    except ValueError as err:  # e.g. a size of 0: a message, and Start stays off
        problems.append(train_form.problem(err))
    if baseline and settings is not None:
        try:
            base_settings = settings.baseline()
        except ValueError:
            problems.append(
                "The byte-level baseline needs a vocabulary size of at least 257 (a token per "
                "byte and <|endoftext|>); raise the size or turn the baseline off."
            )
    try:
        label = check_label(label)
    except ValueError as err:
        problems.append(f"Run name: {err}.")
    if corpus is None:
        problems.append("Choose a corpus: upload a file or pick one from sample_data/.")
    elif settings is not None:
        checks = [s for s in (settings, base_settings) if s is not None]
        found = train_form.corpus_range(corpus, str(name), settings)
        found_base = (
            train_form.corpus_range(corpus, str(name), base_settings) if base_settings else None
        )
        if found is None or (base_settings is not None and found_base is None):
            # a large upload, read in the background
            st.caption(
                f"Reading this corpus ({corpus.size / 1e6:,.1f} MB) for the vocabulary sizes "
                "it allows… You can start now: the trainer checks the size too."
            )
            watch_corpus_check(corpus, str(name), checks)
        if isinstance(found, str):
            problems.append(found)
        elif found is not None:
            st.caption(
                f"This corpus with these settings: {found.documents:,} documents, a base "
                f"alphabet of {found.base:,} symbols, so a vocabulary of {found.smallest:,} "
                f"to at most {found.largest:,} tokens."
            )
            problem = found.problem(settings.vocab_size)
            if problem and settings.vocab_size < found.smallest:
                problems.append(f"Vocabulary size {problem}.")
            elif problem:  # the run stops where this says (sgpe_explorer/runs/sizes.py, size_range)
                reach = found.largest
                st.warning(render.md_escape(f"Vocabulary size {problem}."), icon=":material/info:")
            late = settings.superwords_from
            if late is not None and found.largest <= late:
                st.warning(
                    render.md_escape(
                        f"Superwords from {late:,}: training stops at {found.largest:,} tokens, "
                        "before superwords start, so this run learns none; lower it to use "
                        "superwords."
                    ),
                    icon=":material/info:",
                )
        if base_settings is not None and found_base is not None and not isinstance(found_base, str):
            problem = found_base.problem(base_settings.vocab_size)
            if problem:  # the baseline's smallest (257) is checked above
                reach_base = found_base.largest
                st.warning(
                    render.md_escape(f"The byte-level baseline: {problem}."),
                    icon=":material/info:",
                )
    for problem in problems:
        st.error(render.md_escape(problem))
    submitted = st.button(
        "Start training", type="primary", disabled=bool(problems), key="train_start"
    )

if submitted and settings is not None:
    started = []
    me = owner.owner_id()
    starting = st.status("Starting the run: storing and checking the corpus…")
    try:
        started.append(
            mgr.start(
                RunRequest(
                    corpus,
                    name,
                    settings=settings,
                    mechanics=APP_MECHANICS,
                    owner=me,
                    label=label,
                    reachable=reach,
                )
            )
        )
        if base_settings is not None:
            started.append(
                mgr.start(
                    RunRequest(
                        corpus,
                        name,
                        settings=base_settings,
                        mechanics=APP_MECHANICS,
                        owner=me,
                        label=label,
                        reachable=reach_base,
                    )
                )
            )
    except (CorpusError, ValueError, RunError) as err:
        st.error(render.md_escape(owner.shown(str(err))))
    except OSError as err:  # a full disk, a runs folder that cannot be written
        st.error(render.md_escape(owner.shown(f"The run could not be created: {err}")))
    starting.update(state="complete" if started else "error", expanded=False)
    if started:
        st.session_state["train_note"] = (
            "success",
            "Started " + " and ".join(f"run {r.id}" for r in started) + ".",
        )

st.session_state.pop("train_full_rerun", None)  # this is a full run already
note = st.session_state.pop("train_note", None)
if note:
    getattr(st, note[0])(render.md_escape(owner.shown(note[1])))


def _eta(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def _size(info: RunInfo) -> str:
    """The trained size once done (and why training stopped there), else the request."""
    cfg, stt = info.config, info.status
    if stt.trained_size is not None:
        why = f" ({stt.stop_reason})" if stt.trained_size != cfg.vocab_size else ""
        return f"{stt.trained_size:,} tokens{why}"
    return f"{cfg.vocab_size:,} tokens requested"


def progress_text(stt: RunStatus, goal: int | None = None) -> str:
    """The line under a run's progress bar. Before its first merge a run has no steps to
    count (a queued run said "prepared: step 0 of 0 · – · ETA –"): it says what it waits
    for instead. ``goal`` is the merges the run will make (:attr:`RunInfo.goal`): fewer
    than its target when the page said the corpus stops short of the size asked, and then
    the steps and the ETA count toward it (they counted toward the size asked, and the
    bar jumped to done)."""
    target = stt.target if goal is None else goal
    eta = stt.eta_s
    if eta is not None and target != stt.target and stt.target > stt.step:
        eta = eta * max(0, target - stt.step) / (stt.target - stt.step)
    rate = f"{stt.merges_per_s:,.0f} merges/s" if stt.merges_per_s else "–"
    if stt.state == "done":
        return f"done: {stt.step:,} merges"
    if stt.state == "queued":
        return "queued: it starts on its own when a training slot is free"
    if target <= 0:
        return {
            "counting": "counting: reading the corpus before the first merge",
            "merging": "merging: about to start",
        }.get(stt.state, f"{stt.state} before its first merge")
    if stt.state == "merging" and eta is None:
        return f"merging: step {stt.step:,} of {target:,} · {rate} · ETA after the first checkpoint"
    return f"{stt.phase or stt.state}: step {stt.step:,} of {target:,} · {rate} · ETA {_eta(eta)}"


def _id_md(run_id: str) -> str:
    """A run id for Markdown: in a code span, unless the folder's name (a run made with
    ``sgpe train --out`` keeps its own) holds a backtick, which would end the span."""
    return f"`{run_id}`" if "`" not in run_id else render.md_escape(run_id)


def fraction(info: RunInfo) -> float:
    """How far the bar is: the steps made of :attr:`RunInfo.goal` (1 when done)."""
    stt, goal = info.status, info.goal
    if stt.state == "done":
        return 1.0
    return min(1.0, stt.step / goal) if goal > 0 else 0.0


def read_only_runs(
    infos: list[RunInfo], title: str, key: str, caption: str, active_ids: set[str]
) -> None:
    """A collapsed group of runs this visitor may use but not manage, drawn only once
    opened; nothing when there are none."""
    if not infos:
        return
    box = st.expander(title, key=key, on_change="rerun")
    if box.open:
        with box:
            st.caption(caption)
            for info in infos:
                show_run(info, active_ids, mine=False)


def show_run(info: RunInfo, active_ids: set[str], mine: bool) -> None:
    """One run: its state, progress and, for the visitor's own runs, its controls; a run
    that is not theirs only offers "Use this vocabulary" and its downloads."""
    cfg, stt, run_id = info.config, info.status, info.run.id
    model = "SGPE" if cfg.model == "sgpe" else "byte-level BPE"
    with st.container(border=True):
        in_use = " · **in use**" if run_id in active_ids else ""
        theirs = (
            ""
            if mine
            else " · started on the server (read-only)"
            if info.owner is None
            else " · another visitor's run (read-only)"
        )
        mode = f" · {cfg.mode} mode" if cfg.model == "sgpe" else ""
        st.markdown(
            f"**{render.md_escape(resources.run_name(info))}**{in_use}{theirs}  \n"
            f"{STATE_ICONS.get(stt.state, '')} **{stt.state}** · {model} · "
            f"{render.md_escape(_size(info))}{mode} · corpus "
            f"{render.md_escape(cfg.corpus_name)} · started {resources.run_when(info)} · "
            f"run {_id_md(run_id)}"
        )
        st.progress(fraction(info), text=progress_text(stt, info.goal))
        if stt.message:
            st.caption(render.md_escape(stt.message))
        with st.container(horizontal=True):
            if stt.state == "done":
                st.button(
                    "Use this vocabulary",
                    key=f"use_{run_id}",
                    on_click=use,
                    args=(run_id, cfg.model),
                    type="primary",
                    disabled=run_id in active_ids,
                    icon=":material/check:",
                )
            actions = (
                (
                    mine and (stt.alive or stt.state == "queued"),
                    "Cancel",
                    cancel,
                    ":material/stop:",
                ),
                (mine and stt.resumable, "Resume", resume, ":material/play_arrow:"),
                (mine and not stt.alive, "Delete", delete, ":material/delete:"),
            )
            for shown, label, action, icon in actions:
                if shown:
                    st.button(
                        label,
                        key=f"{label.lower()}_{run_id}",
                        on_click=action,
                        args=(run_id,),
                        icon=icon,
                    )
        vocab_path = info.run.path / "vocab.json"
        if stt.state == "done" and vocab_path.exists():
            # Filled only while open: loading every run's vocabulary and building its files
            # on each draw took most of the page's time with 50 runs (docs/app.md).
            box = st.expander(
                "Downloads: tokenizer.json, vocab.json, merges, report, charts",
                key=f"train_dl_{run_id}",
                on_change="rerun",
            )
            if box.open:
                with box:
                    try:
                        tok = resources.load_vocab(vocab_path)
                    except ValueError as err:  # a damaged vocab.json: say which and why
                        st.error(render.md_escape(owner.shown(str(err))))
                    else:
                        downloads.show(
                            tok, vocab_path, run_id, getattr(tok, "merge_counts", None), key=run_id
                        )


def disk_panel(survey: Survey, active_ids: set[str], me: str, admin: bool) -> None:
    """What the visitor's runs and uploads take on disk (the whole server's for an admin),
    and the two cleanups, which remove only what the visitor owns."""
    use_ = mgr.disk_use(as_owner=None if admin else me, survey=survey)
    infos = survey.runs
    whose = "every visitor's (administrator)" if admin else "yours"
    st.caption(
        f"Disk use, {whose}: runs {_bytes(use_.runs_bytes)} ({use_.runs} runs) · uploads "
        f"{_bytes(use_.uploads_bytes)} ({use_.uploads} files, {use_.unused_uploads} used by "
        "no run). Runs read their corpus where it is; an upload is stored once."
    )
    finished = [
        i.run.id
        for i in infos
        if i.status.state in ("done", "failed")
        and not i.status.alive
        and i.run.id not in active_ids
        and train_form.is_mine(i, me, admin)
    ]
    with st.expander("Clean up disk"):
        st.button(
            f"Delete {len(finished)} finished or failed run(s)",
            key="train_clean_runs",
            on_click=clean_runs,
            args=(tuple(sorted(active_ids)),),
            disabled=not finished,
            icon=":material/delete_sweep:",
            help="Done and failed runs that are yours (every run's for an administrator), "
            "except those in use on the pages. Queued, running, cancelled and interrupted "
            "runs are kept: they can still finish.",
        )
        st.button(
            f"Delete {use_.unused_uploads} unused upload(s) ({_bytes(use_.unused_bytes)})",
            key="train_clean_uploads",
            on_click=clean_uploads,
            disabled=not use_.unused_uploads,
            icon=":material/delete_sweep:",
            help="Your uploads that no run refers to any more (every visitor's for an "
            "administrator). An upload a run refers to is never deleted, nor another "
            "visitor's.",
        )


def runs_panel() -> None:
    """The runs list; on its own timer it reruns only itself (a fragment), which lists
    the finished runs once for all its parts (resources.one_script_run)."""
    with resources.one_script_run():
        _runs_panel()


def _runs_panel() -> None:
    in_full_run = st.session_state.pop("train_in_full_run", False)
    # The runs folder as the page surveyed it a moment ago in this same script run (a
    # whole-page run), else surveyed now (the panel's own redraw): each survey reads every
    # run's files, and one serves the panel's lists, its warnings and its disk use.
    surveyed = st.session_state.pop("train_survey", None)
    if st.session_state.pop("train_full_rerun", False) and not in_full_run:
        st.rerun(scope="app")  # a button changed the sidebar's choice: redraw everything
    survey = surveyed if in_full_run and surveyed is not None else mgr.survey()
    all_infos = survey.runs
    me, admin = owner.owner_id(), owner.is_admin()
    infos = [i for i in all_infos if train_form.is_mine(i, me, admin)]
    server = [i for i in all_infos if not train_form.is_mine(i, me, admin) and i.owner is None]
    shared = [
        i
        for i in all_infos
        if not train_form.is_mine(i, me, admin) and i.owner is not None and i.status.state == "done"
    ]
    signature = train_form.panel_signature(infos)  # when the whole page is redrawn
    previous = st.session_state.get("train_signature")
    st.session_state["train_signature"] = signature
    if not in_full_run and previous != signature:
        st.rerun(scope="app")  # a run finished or appeared: refresh the sidebar and buttons
    st.subheader(
        f"Your runs ({len(infos)})",
        help=f"Runs started in this browser (owner id {me}, from a key kept in its cookie). "
        "A server's operator who lists this id in SGPE_ADMIN_OWNERS manages every run from "
        "this browser.",
    )
    if admin:  # a visitor gets no server paths (sgpe_explorer/ui/owner.py, shown)
        st.caption(f"Runs directory: {render.md_escape(str(mgr.root))}")
    st.caption(
        "Listed: every folder in the runs folder that holds a config.json, whatever its name "
        "(a run made with `sgpe train --out <runs folder>/<name>` too)."
    )
    skipped = survey.skipped
    if skipped:
        st.caption(
            "Not listed: "
            + "; ".join(render.md_escape(f"{name} ({why})") for name, why in skipped)
            + "."
        )
    for run, reason in survey.damaged:
        if not (admin or read_owner(run.path) in (None, me)):
            continue  # another visitor's run: theirs to see
        fix = (
            f"delete the folder {run.path} to remove the run"
            if admin
            else "ask the server's administrator to remove the run"
        )
        st.warning(
            render.md_escape(
                owner.shown(
                    f"Run {run.id} cannot be shown: {reason.rstrip('.')}"
                    f"{'' if reason.endswith('?') else '.'} Its files are untouched; restore "
                    f"the file from a backup, or {fix}."
                )
            )
        )
    act = resources.active()
    active_ids = {act.sgpe_choice.id, act.base_choice.id}
    disk_panel(survey, active_ids, me, admin)
    # Runs the visitor may only use, each group collapsed: drawing every other run made the
    # page's time grow with the whole server's runs (docs/app.md).
    read_only_runs(
        server,
        f"Runs started on the server ({len(server)}, read-only)",
        "train_server",
        "Runs without an owner, made on the server (e.g. with `sgpe train`). You can use "
        "their vocabularies on the pages; only the server's administrator can cancel or "
        "delete them.",
        active_ids,
    )
    read_only_runs(
        shared,
        f"Other visitors' finished vocabularies ({len(shared)}, read-only)",
        "train_shared",
        "Runs other visitors of this server trained. You can use their vocabularies on the "
        "pages; only their owner can delete them.",
        active_ids,
    )
    if not infos:
        st.info("No runs of yours yet. Start one above; it trains in a separate process.")
        return
    for info in infos:
        show_run(info, active_ids, mine=True)
    ids = [i.run.id for i in infos]
    live = [i.run.id for i in infos if i.status.state in train_form.LIVE_STATES]
    if st.session_state.get("train_curve") not in ids:
        st.session_state["train_curve"] = live[0] if live else ids[0]
    names = {
        i.run.id: f"{resources.run_name(i)} · {resources.run_kind(i)} · {resources.run_when(i)}"
        for i in infos
    }
    picked = str(
        st.selectbox("Merge curve of run", ids, format_func=names.__getitem__, key="train_curve")
    )
    curve = None
    try:
        curve = resources.merge_curve(
            mgr.run(picked).path, f"Pair count of each merge, {names[picked]}"
        )
    except (ValueError, OSError) as err:  # a damaged merges file: say which, keep the page
        st.warning(
            render.md_escape(owner.shown(f"The merge curve cannot be shown: {err}")),
            icon=":material/warning:",
        )
    if curve is not None:
        st.plotly_chart(curve, width="stretch")
    else:
        st.caption("No merges written yet (they appear at each checkpoint).")
    st.caption(f"Updated {time.strftime('%H:%M:%S')}")


state.sync_url(
    {
        **train_form.url_params(values),
        "source": source if source != "sample_data/" else None,
        "sample": sample_param,
        "baseline": None if baseline else "0",
        "name": st.session_state.get("train_label") or None,
    }
)
survey = mgr.survey()
every = train_form.panel_every(
    [
        i.status.state
        for i in survey.runs
        if train_form.is_mine(i, owner.owner_id(), owner.is_admin())
    ]
)
st.session_state["train_in_full_run"] = True
st.session_state["train_survey"] = survey
st.fragment(run_every=every)(runs_panel)()

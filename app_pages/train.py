"""Train: background training runs (start, watch, cancel, resume, delete, use)."""

from __future__ import annotations

import time
from typing import Any

import streamlit as st

from sgpe.corpus import CorpusError
from sgpe.runs import RunError, read_merges
from sgpe.runs.manager import RunInfo, RunRequest
from sgpe.ui import charts, render, resources, state

ACTIVE = ("queued", "counting", "merging")
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

mgr = resources.run_manager()


# ============================================================================ actions
# Button callbacks run before the next script run, so they may set the sidebar's widgets.


def _note(kind: str, message: str) -> None:
    st.session_state["train_note"] = (kind, message)
    st.session_state["train_full_rerun"] = True


def cancel(run_id: str) -> None:
    try:
        st_ = mgr.cancel(run_id, wait=5.0)
        _note("info", f"Run {run_id} is {st_.state}.")
    except RunError as err:
        _note("error", str(err))


def resume(run_id: str) -> None:
    try:
        mgr.resume(run_id)
        _note("info", f"Run {run_id} resumes from its last checkpoint.")
    except RunError as err:
        _note("error", str(err))


def _choose(param: str, widget: str, value: str) -> None:
    """Make ``value`` the sidebar's choice (its widget and the shared option)."""
    st.session_state[widget] = value
    state.remember(param, value)


def delete(run_id: str) -> None:
    try:
        mgr.delete(run_id)
    except RunError as err:
        _note("error", str(err))
        return
    if resources.active().sgpe_choice.id == run_id:
        _choose("tok", "side_tok", resources.DEFAULT_ID)
    if st.session_state.get("opts", {}).get("base") == run_id:
        _choose("base", "side_base", resources.AUTO_ID)
    _note("info", f"Deleted run {run_id}.")


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

with st.container(border=True):
    source = st.radio(
        "Corpus",
        ["sample_data/", "upload"],
        horizontal=True,
        key="train_source",
        format_func={
            "sample_data/": "a file from sample_data/",
            "upload": "upload a file",
        }.__getitem__,
    )
    corpus: Any = None
    name: str | None = None
    if source == "upload":
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
        picked = st.selectbox("Sample file", list(files), key="train_sample")
        if picked:
            corpus, name = files[picked], picked
    with st.form("train_form", border=False):
        mode = st.radio(
            "Training mode",
            ["hierarchical", "paper"],
            horizontal=True,
            key="train_mode",
            help="hierarchical: starts from code points; merges build parts of one syllable "
            "or join whole syllables, so no token crosses a syllable boundary. paper: the "
            "original SGPE, every syllable of the corpus is a base token.",
        )
        c1, c2, c3 = st.columns(3)
        vocab_size = c1.number_input(
            "Vocabulary size",
            300,
            1_000_000,
            4000,
            step=500,
            key="train_vocab",
            help="Everything counted: special tokens, base "
            "symbols (and fallback tokens) and merges.",
        )
        prune_freq = c2.number_input(
            "Prune frequency",
            0,
            1_000_000,
            1,
            key="train_prune",
            help="hierarchical: characters seen fewer times are left out of the base alphabet; "
            "paper: syllables seen fewer times are dropped. Either way they are spelled with "
            "fallback tokens.",
        )
        min_freq = c3.number_input(
            "Minimum pair frequency",
            1,
            1_000_000,
            1,
            key="train_min",
            help="Stop merging when the best pair is rarer. 1 lets the vocabulary reach the "
            "requested size; the original paper used 2.",
        )
        c4, c5, c6 = st.columns(3)
        leading_space = c4.toggle("Leading space", True, key="train_ls")
        oov = c5.radio(
            "OOV policy",
            ["fallback", "unk"],
            horizontal=True,
            key="train_oov",
            help="fallback: lossless code-point/byte tokens; unk: [UNK] as in the paper.",
        )
        baseline = c6.toggle("Also train the byte-level baseline", True, key="train_base")
        st.caption(
            f"Script grammar: {state.option('script', 'auto')} (chosen in the sidebar). The "
            "baseline uses the same corpus and vocabulary size."
        )
        submitted = st.form_submit_button("Start training", type="primary")

if submitted:
    if corpus is None:
        st.error("Choose a corpus first: upload a file or pick one from sample_data/.")
    else:
        started = []
        try:
            common = {
                "corpus": corpus,
                "name": name,
                "vocab_size": int(vocab_size),
                "checkpoint_every": 200,
                "checkpoint_seconds": 1.0,
            }
            started.append(
                mgr.start(
                    RunRequest(
                        **common,
                        model="sgpe",
                        mode=str(mode),
                        prune_freq=int(prune_freq),
                        min_freq=int(min_freq),
                        leading_space=leading_space,
                        oov_policy=str(oov),
                        script=str(state.option("script", "auto")),
                    )
                )
            )
            if baseline:
                started.append(mgr.start(RunRequest(**common, model="bytebpe")))
        except (CorpusError, ValueError, RunError) as err:
            st.error(render.md_escape(str(err)))
        if started:
            st.session_state["train_note"] = (
                "success",
                "Started " + " and ".join(f"run {r.id}" for r in started) + ".",
            )

st.session_state.pop("train_full_rerun", None)  # this is a full run already
note = st.session_state.pop("train_note", None)
if note:
    getattr(st, note[0])(render.md_escape(note[1]))


def _eta(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def show_run(info: RunInfo, active_ids: set[str]) -> None:
    cfg, stt, run_id = info.config, info.status, info.run.id
    model = "SGPE" if cfg.model == "sgpe" else "byte-level BPE"
    with st.container(border=True):
        in_use = " · **in use**" if run_id in active_ids else ""
        st.markdown(
            f"{STATE_ICONS.get(stt.state, '')} **{stt.state}** · {model} · "
            f"{cfg.vocab_size:,} tokens · {render.md_escape(cfg.corpus_name)} · "
            f"run `{run_id}`{in_use}"
        )
        rate = f"{stt.merges_per_s:,.0f} merges/s" if stt.merges_per_s else "–"
        if stt.state == "done":
            progress = f"done: {stt.step:,} merges"
        else:
            progress = (
                f"{stt.phase or stt.state}: step {stt.step:,} of {stt.target:,} · "
                f"{rate} · ETA {_eta(stt.eta_s)}"
            )
        st.progress(stt.fraction, text=progress)
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
            if stt.alive or stt.state == "queued":
                st.button(
                    "Cancel",
                    key=f"cancel_{run_id}",
                    on_click=cancel,
                    args=(run_id,),
                    icon=":material/stop:",
                )
            if stt.state in ("interrupted", "cancelled", "failed"):
                st.button(
                    "Resume",
                    key=f"resume_{run_id}",
                    on_click=resume,
                    args=(run_id,),
                    icon=":material/play_arrow:",
                )
            if not stt.alive:
                st.button(
                    "Delete",
                    key=f"delete_{run_id}",
                    on_click=delete,
                    args=(run_id,),
                    icon=":material/delete:",
                )


def runs_panel() -> None:
    """The runs list; on its own timer it reruns only itself (a fragment)."""
    in_full_run = st.session_state.pop("train_in_full_run", False)
    if st.session_state.pop("train_full_rerun", False) and not in_full_run:
        st.rerun(scope="app")  # a button changed the sidebar's choice: redraw everything
    infos = mgr.list_runs()
    signature = tuple((i.run.id, i.status.state) for i in infos)
    previous = st.session_state.get("train_signature")
    st.session_state["train_signature"] = signature
    if not in_full_run and previous != signature:
        st.rerun(scope="app")  # a run finished or appeared: refresh the sidebar and buttons
    st.subheader(f"Runs ({len(infos)})")
    st.caption(f"Runs directory: {render.md_escape(str(mgr.root))}")
    for run, reason in mgr.damaged_runs():
        st.warning(
            render.md_escape(
                f"Run {run.id} cannot be shown: {reason}. Its files are untouched; restore the "
                f"file from a backup, or delete the folder {run.path} to remove the run."
            )
        )
    if not infos:
        st.info("No runs yet. Start one above; it trains in a separate process.")
        return
    act = resources.active()
    active_ids = {act.sgpe_choice.id, act.base_choice.id}
    for info in infos:
        show_run(info, active_ids)
    ids = [i.run.id for i in infos]
    live = [i.run.id for i in infos if i.status.state in ACTIVE]
    if st.session_state.get("train_curve") not in ids:
        st.session_state["train_curve"] = live[0] if live else ids[0]
    picked = str(st.selectbox("Merge curve of run", ids, key="train_curve"))
    try:
        merges = read_merges(mgr.run(picked).path)
    except (ValueError, OSError) as err:  # a damaged merges file: say which, keep the page
        st.warning(
            render.md_escape(f"The merge curve cannot be shown: {err}"), icon=":material/warning:"
        )
        merges = {}
    if merges.get("step"):
        st.plotly_chart(
            charts.merge_curve(
                merges["step"], merges["count"], f"Pair count of each merge, run {picked}"
            ),
            width="stretch",
        )
    else:
        st.caption("No merges written yet (they appear at each checkpoint).")
    st.caption(f"Updated {time.strftime('%H:%M:%S')}")


state.sync_url({})
running = any(i.status.state in ACTIVE for i in mgr.list_runs())
st.session_state["train_in_full_run"] = True
st.fragment(run_every=1.0 if running else None)(runs_panel)()

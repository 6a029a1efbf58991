"""SGPE Explorer: the frame of the app (page config, shared sidebar, navigation).

``sgpe app`` (an installed package) and ``bash scripts/run_app.sh`` (a checkout) both run this
file with Streamlit; the checkout's top-level ``app.py`` calls :func:`run` too, so
``streamlit run app.py`` shows the same app. Streamlit runs the file again on every
interaction, so the frame is a function that the script's last line calls.

The pages in ``app_pages/`` beside this file are thin: they read widgets, call :mod:`sgpe`,
and render with :mod:`sgpe_explorer.ui`. They are not in a directory named ``pages/``:
Streamlit would also serve such files on their own (its older multipage mode), without this
frame, to a link that arrives first. Their paths are absolute, so the frame works whichever
file Streamlit was started on. The sidebar chooses the active SGPE tokenizer (the shipped one, trained on
``sample_data/``, or any finished training run), its byte-level baseline, and the script.
"""

from __future__ import annotations

import logging
from pathlib import Path

import streamlit as st

from sgpe._engine import describe
from sgpe.protocol import one_line
from sgpe.schema import BUILTIN_SCRIPTS, load_schema
from sgpe_explorer.ui import owner, render, resources, state, style

PAGES_DIR = Path(__file__).resolve().parent / "app_pages"
PAGE_ICON = "🔤"


def run() -> None:
    """Draw the frame and the page the visitor is on (one Streamlit script run).

    Outside a script run it draws nothing. The Train page's size check of a large upload
    runs in a "spawn" worker process (sgpe_explorer/ui/train_form.py), and multiprocessing imports
    the server's main script there (as ``__mp_main__``): the checkout's app.py then drew
    the whole frame with no page to draw on, about 90 "missing ScriptRunContext" warnings
    in the server log."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    if get_script_run_ctx(suppress_warning=True) is None:
        return
    with resources.one_script_run():  # the runs folder listed once for the run
        _draw()


def _draw() -> None:
    """The frame and the page: :func:`run` inside a script run."""
    st.set_page_config(
        page_title="SGPE Explorer",
        # An emoji: the browser draws it from a data: URI. A ":material/…:" icon made
        # every page load fetch the favicon from a third-party font host.
        page_icon=PAGE_ICON,
        layout="wide",
        # "auto": open on a desktop, closed on a phone, where it would cover the page.
        initial_sidebar_state="auto",
    )
    st.html(style.CSS)
    state.carry_over()  # before any widget: the kept values of pages not shown in this run
    owner.write_cookie()  # the visitor's owner key survives a reload (sgpe_explorer/ui/owner.py)
    resources.warm_encodings()  # OpenAI's encodings built in the background, once

    PAGES = [
        st.Page(
            PAGES_DIR / "syllables.py", title="Syllables", icon=":material/segment:", default=True
        ),
        st.Page(
            PAGES_DIR / "compare.py",
            title="Compare",
            icon=":material/compare_arrows:",
            url_path="compare",
        ),
        st.Page(
            PAGES_DIR / "merges.py", title="Merges", icon=":material/merge:", url_path="merges"
        ),
        st.Page(
            PAGES_DIR / "evaluate.py",
            title="Evaluate",
            icon=":material/leaderboard:",
            url_path="evaluate",
        ),
        st.Page(
            PAGES_DIR / "train.py",
            title="Train",
            icon=":material/model_training:",
            url_path="train",
        ),
        st.Page(
            PAGES_DIR / "grammar.py",
            title="Grammar",
            icon=":material/account_tree:",
            url_path="grammar",
        ),
        st.Page(
            PAGES_DIR / "vocabulary.py",
            title="Vocabulary",
            icon=":material/dictionary:",
            url_path="vocabulary",
        ),
    ]
    page = st.navigation(PAGES)

    SCRIPTS = {"auto": "auto (every script)", **{n: load_schema(n).title for n in BUILTIN_SCRIPTS}}

    with st.sidebar:
        st.markdown("### SGPE Explorer")
        st.caption("Syllable-aware BPE for Sinhala, Devanagari and twelve more Brahmic scripts")
        # native core or pure Python; the Active line stays last (tests/test_app.py reads it)
        st.caption(f"Engine: {render.md_escape(describe())}.")
        sgpe_choices = resources.choices("sgpe")
        resources.note_missing("tok", "side_tok", sgpe_choices)  # said on the page, below
        if st.session_state.get("side_tok") not in sgpe_choices:
            st.session_state.pop("side_tok", None)
        tok_id = st.selectbox(
            "Tokenizer (SGPE)",
            list(sgpe_choices),
            format_func=lambda k: sgpe_choices[k].menu or sgpe_choices[k].label,
            key=state.init_widget("side_tok", "tok", resources.DEFAULT_ID, allowed=sgpe_choices),
            help="The shipped vocabulary is trained on sample_data/. Train your own on the "
            "Train page and press “use this vocabulary”.",
        )
        base_choices = resources.choices("bytebpe")
        base_options = [resources.AUTO_ID, *base_choices]
        resources.note_missing("base", "side_base", base_options)
        if st.session_state.get("side_base") not in base_options:
            st.session_state.pop("side_base", None)
        base_id = st.selectbox(
            "Byte-level baseline",
            base_options,
            format_func=lambda k: (
                "auto: same corpus and size"
                if k == resources.AUTO_ID
                else base_choices[k].menu or base_choices[k].label
            ),
            key=state.init_widget("side_base", "base", resources.AUTO_ID, allowed=base_options),
            help="Byte-level BPE (GPT-style) to compare against. Auto picks the byte-level run "
            "trained on the same corpus with the same vocabulary size.",
        )
        script = st.selectbox(
            "Script",
            list(SCRIPTS),
            format_func=SCRIPTS.__getitem__,
            key=state.init_widget("side_script", "script", "auto", allowed=SCRIPTS),
            help="Which syllable grammar the Syllables page uses; auto applies every grammar "
            "to its own script's characters.",
        )
        state.remember("tok", tok_id)
        state.remember("base", base_id)
        state.remember("script", script)
        try:
            active = resources.active()
        except (ValueError, OSError) as err:  # the shipped vocabulary itself is damaged
            st.error(
                f"{render.md_escape(owner.shown(one_line(err)))}. Rebuild the shipped vocabularies with "
                "`python -m sgpe.shipped`.",
                icon=":material/error:",
            )
            st.stop()
        for problem in active.problems:
            st.warning(render.md_escape(owner.shown(problem)), icon=":material/warning:")
        tok = active.sgpe
        st.caption(
            f"Active: {tok.vocab_size:,} tokens, {len(tok.merges):,} merges, "
            f"leading space {'on' if tok.leading_space else 'off'}, OOV {tok.oov_policy}. "
            f"Baseline: {active.base.vocab_size:,} tokens"
            + ("" if active.base_matched else " (not trained on the same corpus)")
            + "."
        )

    resources.say_switches(active)  # a vocabulary gone or replaced, said on the page
    try:
        page.run()
    except Exception as err:  # the last line of defence: a message on the page, never a traceback
        logging.getLogger("sgpe_explorer.app").exception("page %s failed", page.title)
        st.error(
            f"{page.title} cannot be shown: {render.md_escape(owner.shown(one_line(err)))} "
            "(the details are in the server log). Check the file named here, or choose another "
            "vocabulary in the sidebar.",
            icon=":material/error:",
        )


if __name__ == "__main__":
    run()

"""Evaluate: several vocabularies on one text, per script, with numbers to show a class."""

from __future__ import annotations

import hashlib
from typing import Any

import pandas as pd
import streamlit as st

from sgpe import metrics
from sgpe_explorer.ui import analysis, charts, owner, render, resources, state, uploads

SHARED = "the shared text (all pages)"
UPLOAD = "upload…"
DEFAULT_PICK = ("sgpe", "base", "o200k_base")
# The integrity figures as Compare names and orders them (app_pages/compare.py says why):
# the rule (cuts that tear a syllable; SGPE: 0), the budget (syllables spelled from their
# own parts), then all token boundaries inside syllables.
COLUMNS = {
    "lines": "lines",
    "words": "words",
    "tokens": "tokens",
    "straddling": "cuts that tear a syllable",
    "straddling_per_1k": "tearing cuts per 1k tokens",
    "spelled_units": "syllables spelled from their own parts",
    "twr": "TWR",
    "cpt": "chars/token",
    "broken": "token boundaries inside syllables",
    "broken_per_1k": "boundaries inside syllables per 1k tokens",
    "words_with_broken_pct": "words with a cut syllable %",
    "roundtrip_fail": "round-trip failures",
}
CHARTS = ["straddling_per_1k", "twr", "cpt", "broken_per_1k", "roundtrip_fail"]


@st.cache_data(show_spinner="Evaluating…", max_entries=64)
def evaluate(
    key: str, _tokenizer: Any, lines: tuple[str, ...], script: str = "auto"
) -> dict[str, Any]:
    return metrics.evaluate(_tokenizer, lines, script=script)


st.title("Evaluate")
st.caption(
    "Why syllables matter, in numbers: the same text through several vocabularies, per "
    "script. The table's columns: **cuts that tear a syllable** = token boundaries inside "
    "a syllable next to a token that reaches across its edge (SGPE: always 0); **syllables "
    "spelled from their own parts** = whole, in several tokens that each lie inside it; "
    "**token boundaries inside syllables** = the cuts of both kinds (a model then sees "
    "pieces of a letter, not the letter); **TWR** = tokens per word (fewer is cheaper); "
    "**chars/token** (more is better); **round-trip failures** = lines that do not decode "
    "back to themselves."
)

active = resources.active()
# Syllables by the active vocabulary's own schema when it was trained with one (every
# tokenizer is judged by the same syllables).
grammar_of = analysis.vocabulary_grammar(active.sgpe)
entries, problems = resources.catalogue(active)
for problem in problems:
    st.warning(render.md_escape(owner.shown(problem)), icon=":material/warning:")

with st.expander("Add a Hugging Face tokenizer.json"):
    hf_files = st.file_uploader(
        "tokenizer.json files (e.g. exported from the Vocabulary page or any HF model)",
        type=["json"],
        accept_multiple_files=True,
        key="ev_hf",
    )
for upload in hf_files or []:
    data = upload.getvalue()
    hf_tok, why_not = uploads.hf_tokenizer(upload.name[:80], data)
    if hf_tok is None:
        st.error(render.md_escape(why_not or upload.name), icon=":material/error:")
        continue
    digest = hashlib.sha256(data).hexdigest()[:12]
    key = f"hf:{digest}"
    entries[key] = resources.Entry(
        key,
        f"{upload.name[:40]} (HF)",
        hf_tok,
        f"uploaded Hugging Face tokenizer {upload.name[:80]}",
        key,
        hf_tok.get_vocab_size(),
    )

default_pick = [k for k in DEFAULT_PICK if k in entries]
pick_key = state.init_widget(
    "ev_pick",
    "ev",
    default_pick,
    parse=lambda raw: [k for k in raw.split(",") if k in entries] or None,
    allowed=entries,
)
# A picked OpenAI encoding shows its size in the picker, not "(loads when picked)".
entries = resources.with_picked_loaded(entries, st.session_state.get(pick_key))
pick = st.multiselect(
    "Vocabularies", list(entries), format_func=lambda k: entries[k].option, key=pick_key
)
pick = [k for k in pick if k in entries]
state.remember("ev", pick)
if "sgpe" in pick and "base" in pick and not active.base_matched:
    # e.g. the chosen run's vocab.json was damaged and the shipped SGPE one stands in
    # beside a baseline chosen by name: the two sizes are not one budget.
    st.info(
        f"Not the same corpus: SGPE ({render.md_escape(active.sgpe_choice.label)}) and the "
        f"byte-level baseline ({render.md_escape(active.base_choice.label)}) were not trained "
        "on the same corpus at the same size, so their rows do not compare like with like. "
        "Choose “auto” as the baseline in the sidebar for the matching one.",
        icon=":material/info:",
    )

files = {p.name: p for p in resources.sample_files()}
sources = [*files, SHARED, UPLOAD]
source = str(
    st.selectbox(
        "Text (one document per line)",
        sources,
        key=state.init_widget("ev_text", "et", sources[0], allowed=sources),
    )
)
state.remember("et", source)
# The chart below is drawn only once the text is measured; its choice goes into the link
# from here, so a reload keeps it.
chart = str(st.session_state[state.init_widget("ev_chart", "echart", CHARTS[0], allowed=CHARTS)])
state.remember("echart", chart)
state.sync_url(
    {
        "ev": ",".join(pick) if pick != default_pick else None,
        "et": source if source != sources[0] else None,
        "echart": chart if chart != CHARTS[0] else None,
    }
)

lines: list[str] | None = None
if source == SHARED:
    lines = [line for line in state.shared_text().splitlines() if line.strip()]
    if not lines:
        st.info("The shared text is empty: type some on the Syllables or Compare page.")
        lines = None
elif source == UPLOAD:
    lines, _ = uploads.text_upload("ev_upload")
else:
    lines = list(metrics.read_lines(files[source]))

if not pick:
    st.info("Pick at least one vocabulary.")
elif lines is not None:
    groups = analysis.lines_by_script(lines)
    rows = []
    chosen, unavailable = resources.load_entries([entries[k] for k in pick])
    for problem in unavailable:
        st.warning(render.md_escape(owner.shown(problem)), icon=":material/warning:")
    for entry in chosen:
        for script, group in groups.items():
            m = evaluate(entry.cache_key, entry.tokenizer, tuple(group), grammar_of)
            rows.append({"vocabulary": entry.name, "script": script, **m})
    table = pd.DataFrame(rows)
    shown = table[["vocabulary", "script", *COLUMNS]].rename(columns=COLUMNS)
    st.dataframe(
        shown.style.format(precision=2),
        hide_index=True,
        width="stretch",
        # Wide enough for "Devanagari" and a run's name: the automatic widths followed
        # the long numeric headers and cut the names ("Devanag…").
        column_config={
            "vocabulary": st.column_config.TextColumn(width="medium", pinned=True),
            "script": st.column_config.TextColumn(width="medium"),
        },
    )
    st.caption(
        "“all” is the whole text; the other rows group its lines by the script most of "
        "their letters are in."
    )
    metric = st.radio(
        "Chart",
        CHARTS,
        format_func=COLUMNS.__getitem__,
        horizontal=True,
        key="ev_chart",
    )
    st.plotly_chart(charts.evaluate_bars(table, str(metric), COLUMNS[str(metric)]), width="stretch")
    st.download_button(
        "Download the table (CSV)",
        shown.to_csv(index=False).encode("utf-8"),
        file_name=f"sgpe-evaluate-{source.replace('…', '').replace(' ', '_')[:40]}.csv",
        mime="text/csv",
        key="ev_csv",
    )

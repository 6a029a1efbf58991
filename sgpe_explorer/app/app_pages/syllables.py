"""Syllables: the text as the syllabifier splits it (Layer 1), coloured by kind."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from sgpe import syllable_spans
from sgpe.schema import BUILTIN_SCRIPTS, load_schema
from sgpe.syllables import Span
from sgpe_explorer.ui import analysis, grammar, render, resources, state, style

RENDER_LIMIT = 5_000  # characters drawn as spans; counts always cover the whole text


@st.cache_data(show_spinner="Syllabifying…", max_entries=8)
def segment(text: str, script: str, leading_space: bool) -> tuple[list[Span], dict[str, int]]:
    spans = syllable_spans(text, script, leading_space)
    return spans, analysis.text_counts(text, spans)


st.title("Syllables")
st.caption(
    "Every character lands in exactly one unit: a **syllable** of the script's grammar, an "
    "**orphan** sign with no consonant, a **passthrough** character no grammar claims, or "
    "**whitespace**. Hover over a unit for its code points, classes and DFA path."
)
st.caption(
    "Scripts with a grammar: "
    + ", ".join(load_schema(n).title for n in BUILTIN_SCRIPTS)
    + " (Devanagari covers Hindi, Marathi and Nepali). The Grammar page shows each one."
)

text = state.text_area("syl")
script = str(state.option("script", "auto"))
left, mid, _ = st.columns([1, 1, 2])
leading_space = left.toggle(
    "Leading space",
    key=state.init_widget("syl_ls", "ls", False, state.parse_bool),
    help="Attach the plain space before a word to its first syllable, as the tokenizer does.",
)
show_invisible = mid.toggle(
    "Show invisible characters",
    key=state.init_widget("syl_inv", "inv", False, state.parse_bool),
    help="Mark ZWJ, ZWNJ, virama, spaces, tabs and newlines next to their unit "
    "(the syllables themselves stay intact).",
)
state.remember("ls", leading_space)
state.remember("inv", show_invisible)
link: dict[str, str | None] = {
    "ls": state.fmt_bool(leading_space) if leading_space else None,
    "inv": state.fmt_bool(show_invisible) if show_invisible else None,
}

spans, counts = segment(text, script, leading_space)
cols = st.columns(5)
cols[0].metric("Characters", f"{counts['characters']:,}", help="Code points")
cols[1].metric("Grapheme clusters", f"{counts['graphemes']:,}", help="Unicode \\X clusters")
cols[2].metric("Syllables", f"{counts['syllables']:,}", help="Units of kind syllable")
cols[3].metric("Words", f"{counts['words']:,}", help="Whitespace-separated words")
cols[4].metric(
    "Units",
    f"{counts['units']:,}",
    help="All units: syllables, orphans, passthrough and whitespace characters",
)

if not text:
    state.sync_url(link)
    st.info("Type or paste some text above.")
    st.stop()

# The script of the text, and whether the active vocabulary covers it (the note Compare
# gives too): a vocabulary trained without a script spells it with byte tokens.
detected = grammar.scripts_line(text)
st.caption(
    f"Script of this text: {render.md_escape(detected)}."
    if detected
    else "This text has no letter of the 14 scripts with a grammar."
)
active = resources.active()
missing = grammar.uncovered_scripts(text, active.sgpe.vocab)
if missing:
    st.info(
        f"The active SGPE vocabulary ({render.md_escape(active.sgpe_choice.label)}) was "
        f"trained without any {render.md_escape(', '.join(missing))} text, so it spells "
        "that text with byte tokens. Train a vocabulary on text of that script on the Train "
        "page, or choose one in the sidebar.",
        icon=":material/info:",
    )

for script_name, chars, count in grammar.unknown_characters(text, spans):
    shown_chars = chars if len(chars) <= 40 else chars[:40] + "…"
    st.warning(
        f"**{render.md_escape(script_name)}**: no grammar for "
        + ("this character, so it is" if count == 1 else f"these {count:,} characters, so each is")
        + " shown as a passthrough unit (one character, not a syllable): "
        f"{render.md_escape(shown_chars)}"
        + (
            ""
            if script == "auto"
            else f". The sidebar's Script is {render.md_escape(script)}; choose auto to "
            "use every grammar."
        )
    )

shown = analysis.prefix_end(spans, RENDER_LIMIT)
if shown < len(spans):
    st.info(
        f"Long text: showing the first {spans[shown - 1].end:,} of {len(text):,} characters "
        f"({shown:,} of {len(spans):,} units). The counts above cover all of it."
    )
views, rows = analysis.syllable_units(text, spans[:shown], script, leading_space)
st.html(
    render.legend_html(
        {k: counts[k if k != "syllable" else "syllables"] for k in style.KIND_COLOURS}
    )
    + render.syllables_html(views, show_invisible=show_invisible)
)

coverage = analysis.syllable_coverage(resources.active().sgpe, text)
st.markdown("**These syllables in the active SGPE vocabulary**")
cov = st.columns(4)
cov[0].metric("One token", f"{coverage['whole']:,}", help="The syllable is exactly one token")
cov[1].metric(
    "Inside a longer token",
    f"{coverage['joined']:,}",
    help="The syllable is joined whole with its neighbours into one token",
)
cov[2].metric(
    "Spelled from parts",
    f"{coverage['parts']:,}",
    help="Not learned as one token: spelled by several of its own parts (or code points), "
    "each inside the syllable. The syllable is intact, not broken.",
)
cov[3].metric(
    "Torn",
    f"{coverage['torn']:,}",
    help="Cut by a token that reaches across the syllable's edge. Never happens in SGPE.",
)

inspect_tab, table_tab = st.tabs(["Inspect a unit", "All units (table)"])
with inspect_tab:
    last = max(len(rows) - 1, 0)
    first_syllable = next((i for i, r in enumerate(rows) if r["kind"] == "syllable"), 0)
    state.init_widget("syl_pick", "unit", first_syllable, int)
    st.session_state["syl_pick"] = max(0, min(int(st.session_state["syl_pick"]), last))
    index = st.number_input(
        "Unit number (the # column of the table; hover a unit to see its number)",
        min_value=0,
        max_value=last,
        key="syl_pick",
    )
    state.remember("unit", int(index))
    link["unit"] = str(int(index)) if int(index) != first_syllable else None
    row = rows[int(index)]
    st.markdown(
        f"Unit **#{row['#']}** {render.md_escape(row['shown'])} — {row['kind']}"
        + (f" ({row['script']})" if row["script"] else "")
        + f", characters {row['start']}–{row['end'] - 1}"
    )
    st.html(
        render.syllables_html(
            [views[int(index)]], show_invisible=True, box="sgpe-unit", first_index=int(index)
        )
    )
    st.dataframe(
        pd.DataFrame(analysis.char_rows(row["unit"], script, leading_space)),
        hide_index=True,
        width="stretch",
    )
    if row["DFA path"]:
        st.caption(f"DFA path: {render.md_escape(row['DFA path'])}")
with table_tab:
    frame = pd.DataFrame(rows)
    st.dataframe(frame.drop(columns=["unit"]), hide_index=True, width="stretch", height=320)
    st.download_button(
        "Download as CSV",
        frame.to_csv(index=False).encode("utf-8"),
        file_name="syllables.csv",
        mime="text/csv",
        key="syl_download",
    )
    if shown < len(spans):
        st.caption(f"The table lists the {shown:,} units shown above.")

state.sync_url(link)

"""Merges: step through the merges the encoder applies, SGPE and byte-level side by side."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from sgpe_explorer.ui import analysis, render, resources, state
from sgpe_explorer.ui.analysis import counted

MAX_CHARS = 400  # the stepper is for a word or a sentence
#: Play speeds: steps per second -> seconds between steps.
SPEEDS = {"0.5": 2.0, "1": 1.0, "2": 0.5, "4": 0.25}
#: The vocabularies of the learned-merges table (?mw=base in the link for the second).
WHICH = ("SGPE", "Byte-level BPE")


def step_by(delta: int, last: int) -> None:
    st.session_state["mrg_step"] = max(0, min(last, int(st.session_state["mrg_step"]) + delta))


def show_side(
    title: str,
    initial: tuple[str, ...],
    steps: list[analysis.GlobalStep],
    k: int,
    counts: list[int] | None,
    unit: str,
) -> None:
    st.markdown(f"**{title}**")
    done = min(k, len(steps))
    if done == 0:
        tokens: tuple[str, ...] = initial
        st.caption(f"Step 0 of {len(steps):,}: the {counted(len(initial), unit)} before any merge.")
        new = None
    else:
        step = steps[done - 1]
        tokens, new = step.tokens, step.new_index
        count = counts[step.rank] if counts is not None and step.rank < len(counts) else None
        finished = " (all merges applied)" if k > len(steps) else ""
        what = {
            "part": "built part of a syllable",
            "join": "joined whole syllables",
            "super": "joined whole syllables across a space (a superword)",
        }.get(step.kind, "merged")
        st.caption(
            f"Step {done:,} of {len(steps):,}{finished}: {what}, "
            f"“{render.md_escape(render.visible(step.pair[0]))}” + "
            f"“{render.md_escape(render.visible(step.pair[1]))}”, "
            f"rank {step.rank:,}" + (f", training count {count:,}" if count is not None else "")
        )
    st.html(render.step_tokens_html(tokens, new, steps[done - 1].kind if done else "join"))
    st.caption(counted(len(tokens), "token"))


st.title("Merges")
st.caption(
    "How the encoder turns a word into tokens: it starts from **characters** (SGPE, "
    "hierarchical mode), **syllables** (SGPE, paper mode) or **bytes** (byte-level BPE) and "
    "repeatedly merges the adjacent pair with the lowest rank (the earliest learned). Each "
    "token is a grey chip; the token the step just made is coloured by what the step did: "
    "**blue** when SGPE builds a syllable from its parts, **yellow** when it joins whole "
    "syllables (and for every byte-level merge), **purple** when it joins whole syllables "
    "of two words across a space (a superword, an opt-in training setting; a superword "
    "keeps a purple overline after its step). No SGPE step ever joins part of one "
    "syllable to another. **Boxed hex** like `E0 B6` are bytes that are not a whole "
    "character. Step through both side by side, or press Play."
)
active = resources.active()
words = state.text_area("mrg", "A word or a sentence (the text all pages share)", 80, MAX_CHARS)
if len(state.shared_text()) > MAX_CHARS:
    st.caption(
        f"The stepper is for a word or a sentence: it steps through the first "
        f"{MAX_CHARS:,} characters of the shared text ({len(state.shared_text()):,}). The "
        "text is one for all pages: an edit here replaces it on every page (and the page "
        "offers to bring the longer text back)."
    )

initial_s, steps_s = analysis.flatten_trace(active.sgpe.merge_trace(words))
initial_b, steps_b = analysis.flatten_trace(active.base.merge_trace(words))
last = max(len(steps_s), len(steps_b))
sgpe_unit = "character" if getattr(active.sgpe, "mode", "paper") == "hierarchical" else "syllable"
# With a leading space the vocabulary puts a space before the first word: 400 characters
# of text start as 401 (the page said "the first 400 characters", then "from 401").
space_note = (
    f" (the text's {len(words):,} and the space put before its first word)"
    if sgpe_unit == "character" and len(initial_s) == len(words) + 1
    else ""
)
state.init_widget("mrg_step", "step", 0, int)  # keeps a value the buttons set, too
st.session_state["mrg_step"] = max(0, min(last, int(st.session_state["mrg_step"])))
playing = bool(st.session_state.get("mrg_playing")) and last > 0
syllables = analysis.distinct_syllables(words)

# The learned-merges table's choices, given their first values here (the table is drawn
# at the end): the stepper puts them into the link too, when it reruns on its own.
state.init_widget(
    "mrg_which", "mw", WHICH[0], parse={"sgpe": WHICH[0], "base": WHICH[1]}.get, allowed=WHICH
)
learned = str(st.session_state["mrg_which"])
tok = active.sgpe if learned == WHICH[0] else active.base
rows = analysis.merges_table(tok, active.counts("sgpe" if learned == WHICH[0] else "base"))
first_default = min(200, max(len(rows), 1))
state.init_widget("mrg_first", "mn", first_default, int)
# kept from another vocabulary, or from a link: within this one's range
st.session_state["mrg_first"] = max(1, min(int(st.session_state["mrg_first"]), len(rows)))
state.init_widget("mrg_filter", "mf", "")


def link() -> dict[str, str | None]:
    """The page's choices for its link, each left out at its default (a reload or a
    shared link opens the page as it was)."""
    ss = st.session_state
    step, speed = int(ss["mrg_step"]), str(ss.get("mrg_speed", "1"))
    first, needle = int(ss["mrg_first"]), str(ss.get("mrg_filter") or "")
    target = ss.get("mrg_syllable")
    return {
        "step": str(step) if step else None,
        "speed": speed if speed != "1" else None,
        "mj": str(target) if syllables and target != syllables[0] else None,
        "mw": "base" if ss.get("mrg_which") == WHICH[1] else None,
        "mn": str(first) if first != first_default else None,
        "mf": needle or None,
    }


def toggle_play(last: int) -> None:
    if st.session_state.get("mrg_playing"):
        st.session_state["mrg_playing"] = False
        return
    if int(st.session_state.get("mrg_step", 0)) >= last:
        st.session_state["mrg_step"] = 0  # play again from the start
    st.session_state["mrg_playing"] = True


def jump_to(step: int) -> None:
    st.session_state["mrg_playing"] = False
    st.session_state["mrg_step"] = step


play_col, speed_col, jump_col, go_col = st.columns(
    [1.2, 2.2, 3.2, 1.4], vertical_alignment="bottom"
)
play_col.button(
    "⏸ Pause" if playing else "▶ Play",
    key="mrg_play",
    on_click=toggle_play,
    args=(last,),
    disabled=last == 0,
    width="stretch",
    help="Step through the merges one after another, at the chosen speed.",
)
speed = speed_col.select_slider(
    "Speed (steps per second)",
    options=list(SPEEDS),
    key=state.init_widget("mrg_speed", "speed", "1", allowed=SPEEDS),
)
jump_options = syllables or ["(no syllable in the text)"]
target = jump_col.selectbox(
    "Jump to the first merge that touches a syllable",
    jump_options,
    format_func=render.visible,
    # a kept choice of another text is dropped (allowed)
    key=state.init_widget("mrg_syllable", "mj", jump_options[0], allowed=jump_options),
    disabled=not syllables,
)
state.remember("mj", target)
first = analysis.first_step_touching(steps_s, str(target)) if syllables else None
go_col.button(
    "Jump",
    key="mrg_jump",
    on_click=jump_to,
    args=((first + 1) if first is not None else 0,),
    disabled=first is None,
    width="stretch",
)
if syllables and first is None:
    st.caption(
        f"No SGPE merge touches “{render.md_escape(render.visible(str(target)))}”: the "
        "vocabulary spells it from single characters."
    )


def stepper() -> None:
    """The slider and both sides; while playing, this part reruns on a timer, one step on."""
    if st.session_state.get("mrg_playing"):
        now = int(st.session_state.get("mrg_step", 0))
        if now >= last:
            st.session_state["mrg_playing"] = False
            st.rerun(scope="app")  # stop the timer and show Play again
        st.session_state["mrg_step"] = now + 1
    prev_col, slider_col, next_col = st.columns([1.3, 7.4, 1.3], vertical_alignment="bottom")
    prev_col.button(
        "◀ Previous",
        key="mrg_prev",
        on_click=step_by,
        args=(-1, last),
        disabled=last == 0,
        width="stretch",
    )
    next_col.button(
        "Next ▶",
        key="mrg_next",
        on_click=step_by,
        args=(1, last),
        disabled=last == 0,
        width="stretch",
    )
    k = slider_col.slider("Merge step", 0, max(last, 1), key="mrg_step", disabled=last == 0)
    state.remember("step", k)
    # Previous, Next, the slider and Play rerun only this fragment, not the end of the page
    state.sync_url(link())
    final_s = steps_s[-1].tokens if steps_s else initial_s
    final_b = steps_b[-1].tokens if steps_b else initial_b
    st.caption(
        f"In all: SGPE goes from {counted(len(initial_s), sgpe_unit)}{space_note} to "
        f"{counted(len(final_s), 'token')} in {counted(len(steps_s), 'merge')}; byte-level "
        f"BPE from {counted(len(initial_b), 'byte')} to {counted(len(final_b), 'token')} in "
        f"{counted(len(steps_b), 'merge')}."
    )
    # Side by side on a phone too (the stylesheet keeps these two columns in one row):
    # stacked, SGPE's steps scrolled away while Play ran BPE's.
    with st.container(key="mrg_sides"):
        left, right = st.columns(2, gap="small")
    with left:
        show_side("SGPE", initial_s, steps_s, k, active.counts("sgpe"), sgpe_unit)
    with right:
        show_side(
            "Byte-level BPE",
            initial_b,
            steps_b,
            k,
            active.counts("base"),
            "byte",
        )


state.remember("speed", str(speed))
st.fragment(stepper, run_every=SPEEDS[str(speed)] if playing else None)()

with st.expander("Every step as a table"):
    a, b = st.columns(2)
    for col, name, steps, side in (
        (a, "SGPE", steps_s, "sgpe"),
        (b, "Byte-level BPE", steps_b, "base"),
    ):
        counts = active.counts(side)
        col.markdown(f"**{name}**")
        col.dataframe(
            pd.DataFrame(
                [
                    {
                        "step": i + 1,
                        "pair": f"{render.visible(s.pair[0], viramas=False)} + "
                        f"{render.visible(s.pair[1], viramas=False)}",
                        "rank": s.rank,
                        "count": counts[s.rank] if counts and s.rank < len(counts) else None,
                        "tokens": len(s.tokens),
                    }
                    for i, s in enumerate(steps)
                ],
                columns=["step", "pair", "rank", "count", "tokens"],
            ),
            hide_index=True,
            width="stretch",
        )

st.divider()
st.subheader("Learned merges")
st.radio("Vocabulary", WHICH, horizontal=True, key="mrg_which")
c1, c2 = st.columns([1, 3])
first_n = c1.number_input("First N merges", 1, max(len(rows), 1), key="mrg_first")
needle = c2.text_input("Filter (substring of the left, right or merged token)", key="mrg_filter")
state.remember("mw", learned)
state.remember("mn", int(first_n))
state.remember("mf", needle)
state.sync_url(link())
columns = ["rank", "kind", "left", "right", "merged", "count"]
table = pd.DataFrame(rows, columns=columns)
if needle:
    # A filter searches every learned merge; the first N of the matches are shown.
    mask = (
        table["left"].str.contains(needle, regex=False)
        | table["right"].str.contains(needle, regex=False)
        | table["merged"].str.contains(needle, regex=False)
    )
    matches = int(mask.sum())
    table = table[mask].head(int(first_n))
    shown = (
        f"{matches:,} of {len(rows):,} learned merges contain “{render.md_escape(needle)}”; "
        f"showing the first {len(table):,}."
    )
else:
    table = table.head(int(first_n))
    shown = f"The first {len(table):,} of {len(rows):,} learned merges."
KINDS = (
    "part = builds part of one syllable, join = joins whole syllables, super = joins whole "
    "syllables of two words across a space (a superword, an opt-in training setting), "
    "bytes = byte-level BPE"
)
MARKS = (
    "· = a space (a token that starts a word begins with one), ZWJ = the invisible zero "
    "width joiner U+200D (it asks for a conjunct such as ශ්‍ර), ZWNJ = the non-joiner "
    "U+200C"
)
st.caption(f"{shown} kind: {KINDS}. In the tokens, {MARKS}.")
# The filter above searches the exact tokens; the table shows them with their invisible
# characters marked (a leading space was a blank cell, a lone ZWJ an empty one).
table = table.assign(
    **{
        c: table[c].map(lambda t: render.visible(str(t), viramas=False))
        for c in ("left", "right", "merged")
    }
)
st.dataframe(
    table,
    hide_index=True,
    width="stretch",
    height=360,
    column_config={
        "kind": st.column_config.TextColumn("kind", help=KINDS[0].upper() + KINDS[1:] + "."),
        **{
            c: st.column_config.TextColumn(c, help=MARKS[0].upper() + MARKS[1:] + ".")
            for c in ("left", "right", "merged")
        },
    },
)

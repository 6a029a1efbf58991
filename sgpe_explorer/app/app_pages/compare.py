"""Compare: one text through 2-4 tokenizers, in columns side by side (stacked on a phone).

How the page teaches the rule. The headline is SGPE's rule: no token
tears a syllable. The figures come in that order, named for what they mean: **torn
syllables** (a token reaches across the syllable's edge and cuts it: the rule, 0 for
SGPE), **syllables spelled from their own parts** (the syllable stays whole, it just takes
several of its own learned parts: a cost in tokens, not a break), and only then the
token boundaries inside syllables, the sum of both kinds, which is what a byte-level peer
piles up. An earlier page showed "SGPE: 5 broken boundaries" next to "cl100k: 209 broken,
0 torn" under a headline saying SGPE never breaks a syllable: right numbers, wrong names.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from sgpe import metrics
from sgpe_explorer.ui import analysis, charts, grammar, owner, render, resources, state, uploads

#: Characters whose tokens are drawn as chips per tokenizer; the counts cover the whole
#: text, and each column says how many of its tokens are drawn. 3,000 made a 20,000-
#: character paste send 660 KB of chips to each visitor (docs/app.md, section 11).
RENDER_LIMIT = 1_000
MAX_COLUMNS = 4
# Equal budget: the SGPE vocabulary and the byte-level one trained on the same corpus at
# the same size; the OpenAI encodings (100k-200k tokens) are one click away.
DEFAULT_PICK = ("sgpe", "base")
#: The corpus chart's metrics (?cchart= in the link for another than the first).
CHARTS = ["straddling_per_1k", "spelled_per_1k", "twr", "cpt", "tokens"]


@st.cache_data(show_spinner="Tokenizing…", max_entries=24)
def column(
    name: str,
    key: str,
    _tokenizer: Any,
    text: str,
    show_ids: bool,
    show_invisible: bool,
    script: str = "auto",
) -> tuple[dict[str, float], str, str, bool, int]:
    """One tokenizer's column for ``text``: its counts, its token chips as HTML, its ids
    (the first 5,000, as text), whether a chip is a superword and how many chips are
    drawn (the tokens that start in the first :data:`RENDER_LIMIT` characters). Kept per text,
    vocabulary (``key``) and toggles, as these few strings: a rerun, or the next visitor
    of a classroom pasting the same text, no longer unpickles thousands of token records
    and draws their chips again."""
    result = analysis.analyse_tokens(name, _tokenizer, text, limit=RENDER_LIMIT, script=script)
    chips = render.tokens_html(
        result.views, show_ids=show_ids, show_invisible=show_invisible, name=name
    )
    ids = " ".join(map(str, result.ids[:5000])) if show_ids else ""
    superword = any(render.is_superword(v.data.decode("utf-8", "ignore")) for v in result.views)
    return dict(result.counts), chips, ids, superword, len(result.views)


@st.cache_data(show_spinner=False, max_entries=24)
def uncovered(text: str, key: str, _vocab: Any) -> list[str]:
    """:func:`grammar.uncovered_scripts`, kept per text and vocabulary (``key``): it
    gathers the letters of every token of the vocabulary."""
    return grammar.uncovered_scripts(text, _vocab)


def drawn_note(drawn: int, tokens: int) -> str:
    """What a column of a long text says under its chips."""
    return (
        f"Drawn: the first {analysis.counted(drawn, 'token')} of {tokens:,} (those of the "
        f"first {RENDER_LIMIT:,} characters); the other {tokens - drawn:,} are counted "
        "above but not drawn."
    )


def two_decimals(columns: list[str]) -> dict[str, Any]:
    return {c: st.column_config.NumberColumn(format="%.2f") for c in columns}


def parse_pick(raw: str) -> list[str]:
    return [k for k in raw.split(",") if k]


st.title("Compare")
st.markdown(
    "**The rule: SGPE never tears a syllable.** A *torn* syllable is cut by a token that "
    "reaches across the syllable's edge (a **red left edge** below); SGPE's count is always "
    "0. A syllable SGPE has not learned as one token is *spelled from its own parts* (a "
    "**grey left edge**): it stays whole, it just costs more tokens."
)
st.caption(
    "**Boxed hex** like `E0 B6` are bytes that are not a whole character; a **dotted "
    "underline** marks SGPE fallback pieces. Small red marks name characters that have no "
    "glyph: `ZWJ` (zero width joiner, U+200D), `ZWNJ` (non-joiner, U+200C), and, with "
    "**Show invisible characters**, `·` for a space. Hover, tap or click a token for its "
    "id, text, bytes, code points and what it does to the syllables."
)

text = state.text_area("cmp", height=110)
active = resources.active()
# Syllables by the active vocabulary's own schema when it was trained with one (every
# tokenizer is judged by the same syllables).
grammar_of = analysis.vocabulary_grammar(active.sgpe)
entries, problems = resources.catalogue(active)
for problem in problems:
    st.warning(render.md_escape(owner.shown(problem)), icon=":material/warning:")

default_pick = [k for k in DEFAULT_PICK if k in entries]
pick_key = state.init_widget(
    "cmp_pick",
    "cmp",
    default_pick,
    parse=lambda raw: [k for k in parse_pick(raw) if k in entries][:MAX_COLUMNS] or None,
    allowed=entries,
)
entries = resources.with_picked_loaded(entries, st.session_state.get(pick_key))
pick = st.multiselect(
    f"Tokenizers (2 to {MAX_COLUMNS})",
    list(entries),
    format_func=lambda k: entries[k].option,
    max_selections=MAX_COLUMNS,
    key=pick_key,
    help="The default compares like with like: SGPE and byte-level BPE with the same "
    "vocabulary size, trained on the same corpus. Add OpenAI's o200k_base or "
    "cl100k_base, or any finished run.",
)
pick = [k for k in pick if k in entries]
state.remember("cmp", pick)
c1, c2, _spare = st.columns([1, 1, 2])
show_ids = c1.toggle(
    "Show token ids", key=state.init_widget("cmp_ids", "ids", False, state.parse_bool)
)
show_invisible = c2.toggle(
    "Show invisible characters",
    key=state.init_widget("cmp_inv", "cinv", False, state.parse_bool),
)
state.remember("ids", show_ids)
state.remember("cinv", show_invisible)
chosen, unavailable = resources.load_entries([entries[k] for k in pick])
for problem in unavailable:
    st.warning(render.md_escape(owner.shown(problem)), icon=":material/warning:")

if len(chosen) < 2:
    st.info("Pick at least two tokenizers to compare (SGPE and byte-level BPE by default).")
if not text.strip():
    st.info("The text is empty: type or paste some text above to see its tokens.")
elif chosen:
    missing = uncovered(text, entries["sgpe"].cache_key, active.sgpe.vocab)
    if missing and "sgpe" in pick:
        st.info(
            f"The SGPE vocabulary ({render.md_escape(active.sgpe_choice.label)}) was trained "
            f"without any {render.md_escape(', '.join(missing))} text, so it spells that text "
            "with byte tokens (the dotted underlines below). Train a vocabulary on text of "
            "that script on the Train page to compare like with like."
        )
    results = [
        column(e.name, e.cache_key, e.tokenizer, text, show_ids, show_invisible, grammar_of)
        for e in chosen
    ]
    summary = pd.DataFrame(
        [{"tokenizer": e.name, **r[0]} for e, r in zip(chosen, results)]
    ).set_index("tokenizer")
    if len(text) > RENDER_LIMIT:
        st.info(
            f"Long text: the tokens below are those of its first {RENDER_LIMIT:,} characters "
            "(each column says how many it draws); the counts cover all of it."
        )
    with st.container(key="cmp_columns"):
        columns = st.columns(len(chosen), gap="small")
    for col, entry, (counts, chips, ids, _super, drawn) in zip(columns, chosen, results):
        with col, st.container(key=f"cmp_col_{entry.key.replace(':', '_')}"):
            st.markdown(f"**{render.md_escape(entry.name)}**")
            st.caption(render.md_escape(entry.label))  # its size is in it
            st.markdown(
                f"**{analysis.counted(int(counts[analysis.TORN]), 'torn syllable')}** · "
                f"{int(counts[analysis.PARTS]):,} spelled from their own parts · "
                f"{analysis.counted(int(counts['tokens']), 'token')} · TWR {counts['TWR']:.2f}"
            )
            st.html(chips)
            if drawn < int(counts["tokens"]):
                st.caption(drawn_note(drawn, int(counts["tokens"])))
            if show_ids:
                with st.expander(f"Token ids ({int(counts['tokens']):,})"):
                    st.code(ids, language=None, wrap_lines=True)
    if any(r[3] for r in results):
        st.caption(
            "A **purple overline** marks a **superword**: one token holding whole syllables "
            "of several words, joined across a space. Superwords are an opt-in training "
            "setting (“Superwords from” on the Train page); without it, tokens stop at spaces."
        )
    # No toolbar: on a phone it covered the three small charts' titles.
    st.plotly_chart(
        charts.compare_summary(summary),
        width="stretch",
        key="cmp_summary",
        config={"displayModeBar": False},
    )
    # Formats by column, not a pandas Styler: the Styler took a tenth of a second of
    # every rerun (docs/app.md, the classroom's profile).
    st.dataframe(
        summary.drop(columns=["characters", "words"]),
        column_config=two_decimals(["TWR", "chars/token"]),
        width="stretch",
    )
    st.caption(
        f"{analysis.counted(len(text), 'character')}, "
        f"{analysis.counted(int(results[0][0]['words']), 'word')}. Torn "
        "syllables: cut by a token that reaches across the syllable's edge (SGPE: always "
        "0). Spelled from their own parts: whole, in several tokens that each lie inside "
        "it. Token boundaries inside syllables: the cuts of both kinds. TWR = tokens per "
        "word; fallback tokens are SGPE's byte and code-point pieces ([UNK] with the unk "
        "policy)."
    )

st.divider()
st.subheader("On a whole corpus")
files = {p.name: p for p in resources.sample_files()}
source = st.selectbox(
    "Text file (one document per line)",
    [*files, "upload…"],
    key=state.init_widget(
        "cmp_corpus", "corpus", next(iter(files), "upload…"), allowed=[*files, "upload…"]
    ),
)
source = str(source)
state.remember("corpus", source)
# The chart below is drawn only once the corpus is counted; its choice goes into the link
# from here, so a reload keeps it.
chart = str(st.session_state[state.init_widget("cmp_chart", "cchart", CHARTS[0], allowed=CHARTS)])
state.remember("cchart", chart)
state.sync_url(
    {
        "cmp": ",".join(pick) if pick != default_pick else None,
        "ids": "1" if show_ids else None,
        "cinv": "1" if show_invisible else None,
        "corpus": source if source != next(iter(files), None) else None,
        "cchart": chart if chart != CHARTS[0] else None,
    }
)

lines: tuple[str, ...] | None = None
corpus_name: str = source
if source == "upload…":
    read, name = uploads.text_upload("cmp_upload")
    if read is not None:
        lines, corpus_name = tuple(read), name
else:
    lines = tuple(metrics.read_lines(Path(files[source])))

if lines is not None and chosen:
    rows = []
    # Kept per corpus digest, for the process (analysis.corpus_figures): Streamlit hashed
    # the corpus's thousands of lines on every rerun, and the server makes the default
    # page's figures before its first visitor.
    digest = analysis.corpus_digest(lines)
    for entry in chosen:
        kept = analysis.figures_kept(entry.cache_key, digest, grammar_of)
        # A spinner starts a timer thread: only for figures still to be made.
        with contextlib.nullcontext() if kept else st.spinner("Evaluating on the corpus…"):
            m = analysis.corpus_figures(entry.cache_key, digest, entry.tokenizer, lines, grammar_of)
        rows.append({"tokenizer": entry.name, **m})
    table = pd.DataFrame(rows)
    names = {  # the rule, the budget, then the cuts of both kinds (see the docstring)
        "tokenizer": "tokenizer",
        "lines": "lines",
        "words": "words",
        "tokens": "tokens",
        "straddling": "cuts that tear a syllable",
        "spelled_units": "syllables spelled from their own parts",
        "twr": "TWR",
        "cpt": "chars/token",
        "broken": "token boundaries inside syllables",
        "words_with_broken_pct": "words with a cut syllable %",
        "unk": "UNK",
        "roundtrip_fail": "round-trip failures",
    }
    shown = table[list(names)].rename(columns=names)
    st.dataframe(
        shown,
        column_config=two_decimals([c for c in shown.columns if shown[c].dtype.kind == "f"]),
        hide_index=True,
        width="stretch",
    )
    metric = st.radio(
        "Chart",
        CHARTS,
        format_func=charts.METRIC_TITLES.__getitem__,
        horizontal=True,
        key="cmp_chart",
    )
    st.plotly_chart(charts.corpus_bars(table, str(metric), corpus_name), width="stretch")

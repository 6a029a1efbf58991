"""Vocabulary: what the active vocabulary holds and how a text uses it."""

from __future__ import annotations

import io
from collections import Counter
from typing import Any

import pandas as pd
import streamlit as st

from sgpe_explorer.ui import charts, downloads, owner, render, resources, state
from sgpe_explorer.ui import vocabulary as vocab_stats

SHARED_TEXT = "the shared text (Syllables, Compare, Merges)"


@st.cache_data(show_spinner="Classifying tokens…", max_entries=8)
def vocab_frame(key: str, _tok: Any) -> pd.DataFrame:
    return pd.DataFrame(vocab_stats.vocab_table(_tok))


@st.cache_data(show_spinner="Encoding…", max_entries=16)
def encode(key: str, _tok: Any, text: str) -> list[int]:
    return list(_tok.encode(text))


#: The length columns: empty for a token that is no text (a special token, a byte, part
#: of a character), which the table showed as "None".
LENGTHS = ("syllables", "code points")
NO_TEXT = (
    "0 syllables and 0 code points: a special token, a stray byte or part of a character "
    "(no whole character of text)."
)


def for_table(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` as the tables show it: invisible characters marked, lengths whole numbers."""
    return frame.assign(
        token=frame["token"].map(lambda t: render.visible(t, viramas=False)),
        **{c: frame[c].fillna(0).astype(int) for c in LENGTHS if c in frame},
    )


def to_parquet(frame: pd.DataFrame) -> bytes | None:
    buffer = io.BytesIO()
    try:
        frame.to_parquet(buffer, index=False)
    except ImportError:  # pyarrow missing: offer CSV only
        return None
    return buffer.getvalue()


st.title("Vocabulary")
st.caption(
    "What the active vocabulary is made of, and how a text uses it: composition, token "
    "lengths, the rank–frequency (Zipf) curve, coverage, and a searchable table."
)
act = resources.active()
which: str = (
    st.radio(
        "Vocabulary",
        ["sgpe", "base"],
        format_func={"sgpe": "SGPE (active)", "base": "byte-level baseline"}.__getitem__,
        horizontal=True,
        key=state.init_widget("voc_which", "v", "sgpe", allowed=("sgpe", "base")),
    )
    or "sgpe"
)
choice = act.sgpe_choice if which == "sgpe" else act.base_choice
tok = act.sgpe if which == "sgpe" else act.base
key = f"{choice.id}:{choice.path}:{choice.path.stat().st_mtime}"
# A file name, not where the server keeps it (the whole path for an administrator).
st.caption(render.md_escape(f"{choice.label} — {owner.shown_path(choice.path)}"))

vocab = vocab_frame(key, tok)
comp = pd.DataFrame(vocab_stats.composition(vocab.to_dict("records")))
cols = st.columns(4)
cols[0].metric("Size", f"{len(vocab):,}")
cols[1].metric("Merges", f"{len(tok.merges):,}")
kinds = dict(zip(comp["kind"], comp["tokens"]))
cols[2].metric(
    "Syllables" if which == "sgpe" else "Whole characters",
    f"{kinds.get('syllable' if which == 'sgpe' else 'character', 0):,}",
)
cols[3].metric(
    "Multi-syllable" if which == "sgpe" else "Multi-character",
    f"{kinds.get('multi-syllable' if which == 'sgpe' else 'multi-character', 0):,}",
)

left, right = st.columns([2, 3])
with left:
    st.dataframe(comp.style.format({"share %": "{:.1f}"}), hide_index=True, width="stretch")
with right:
    st.plotly_chart(charts.composition_bar(comp), width="stretch")
plain = vocab[~vocab["kind"].isin(["special", "byte fallback"])]
h1, h2 = st.columns(2)
h1.plotly_chart(
    charts.length_histogram(plain, "syllables", "Token length in syllables"), width="stretch"
)
h2.plotly_chart(
    charts.length_histogram(plain, "code points", "Token length in code points"), width="stretch"
)

st.divider()
st.subheader("On a text")
files = {p.name: p for p in resources.sample_files()}
options = [SHARED_TEXT, *files]
source = st.selectbox(
    "Text",
    options,
    key=state.init_widget("voc_text", "vt", options[0], allowed=options),
)
source = str(source)
text = state.shared_text() if source == SHARED_TEXT else files[source].read_text("utf-8")
ids = encode(key, tok, text)
freq = Counter(ids)
vocab = vocab.assign(frequency=vocab["id"].map(lambda i: freq.get(i, 0)))
use = vocab_stats.usage(tok, vocab.to_dict("records"), ids)
use_cols = st.columns(5)
use_cols[0].metric("Tokens", f"{use['tokens on text']:,}")
use_cols[1].metric("Distinct tokens", f"{use['distinct tokens used']:,}")
use_cols[2].metric(
    "Coverage",
    f"{use['vocabulary used %']:.1f} %",
    help="Share of the vocabulary (specials excluded) used on this text",
)
use_cols[3].metric("Never used", f"{use['never used']:,}")
use_cols[4].metric("UNK rate", f"{use['UNK %']:.2f} %")

fit = vocab_stats.zipf(ids)
zipf_problem = vocab_stats.zipf_problem(fit)
if zipf_problem is not None:  # say why instead of plotting a degenerate curve
    st.info(zipf_problem, icon=":material/info:")
else:
    keep = charts.thin_ranks(len(fit.ranks))
    shown = [tok.id_to_token(fit.ids[i]) for i in keep]
    st.plotly_chart(
        charts.zipf_plot(
            [fit.ranks[i] for i in keep],
            [fit.freqs[i] for i in keep],
            shown,
            fit.slope,
            fit.intercept,
            f"Rank–frequency on {source} (fitted slope {fit.slope:.2f})",
        ),
        width="stretch",
    )

never = vocab[(vocab["frequency"] == 0) & (vocab["kind"] != "special")]
with st.expander(f"Tokens never used on this text ({len(never):,})"):
    st.dataframe(
        for_table(never.drop(columns=["frequency"]).head(2000)), hide_index=True, width="stretch"
    )

st.divider()
st.subheader("Search the vocabulary")
c1, c2 = st.columns([2, 3])
needle = c1.text_input("Token contains", key=state.init_widget("voc_q", "q", ""))
kind_names = list(comp["kind"])
if "voc_kinds" in st.session_state:  # kept from the other vocabulary: only kinds this one has
    st.session_state["voc_kinds"] = [k for k in st.session_state["voc_kinds"] if k in kind_names]
kinds_on = c2.multiselect("Kinds", kind_names, key=state.keep("voc_kinds"))
state.remember("q", needle)
state.remember("v", which)
state.remember("vt", source)
state.sync_url(
    {
        "v": which if which != "sgpe" else None,
        "vt": source if source != options[0] else None,
        "q": needle or None,
    }
)
table = vocab
if needle:
    table = table[table["token"].str.contains(needle, regex=False, na=False)]
if kinds_on:
    table = table[table["kind"].isin(kinds_on)]
st.caption(
    f"{len(table):,} of {len(vocab):,} tokens; frequency = uses on {render.md_escape(source)}. "
    + NO_TEXT
)
st.dataframe(for_table(table), hide_index=True, width="stretch", height=360)

st.subheader("Downloads")
downloads.show(
    tok,
    choice.path,
    "shipped" if choice.id == resources.DEFAULT_ID else choice.id,
    act.counts(which),
    key=f"voc_{which}",
)
d2, d3 = st.columns(2)
d2.download_button(
    "Download stats (CSV)",
    vocab.to_csv(index=False).encode("utf-8"),
    file_name="vocab_stats.csv",
    mime="text/csv",
    key="voc_dl_csv",
)
parquet = to_parquet(vocab)
if parquet is not None:
    d3.download_button(
        "Download stats (parquet)",
        parquet,
        file_name="vocab_stats.parquet",
        mime="application/octet-stream",
        key="voc_dl_parquet",
    )

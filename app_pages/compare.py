"""Compare: the same text through SGPE, the byte-level BPE baseline and o200k_base."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from sgpe import metrics
from sgpe.ui import analysis, charts, grammar, render, resources, state

RENDER_LIMIT = 3_000  # characters drawn as token spans per tokenizer


@st.cache_data(show_spinner="Tokenizing…", max_entries=24)
def analyse(name: str, key: str, _tokenizer: Any, text: str) -> analysis.TokenAnalysis:
    return analysis.analyse_tokens(name, _tokenizer, text, limit=RENDER_LIMIT)


@st.cache_data(show_spinner="Evaluating on the corpus…", max_entries=16)
def evaluate(key: str, _tokenizer: Any, lines: tuple[str, ...]) -> dict[str, Any]:
    return metrics.evaluate(_tokenizer, lines)


def tokenizer_key(choice: resources.Choice) -> str:
    return f"{choice.id}:{choice.path}:{choice.path.stat().st_mtime}"


st.title("Compare")
st.caption(
    "One text, three tokenizers. A token with a **red left edge** starts inside a syllable "
    "and tears it (a token reaches across the syllable's edge); a **grey left edge** is a "
    "boundary between two parts of one syllable that SGPE spells from its own learned "
    "parts (the syllable stays intact, it is just not one token); **boxed hex** like `E0 B6` are bytes that are not a whole "
    "character; a **dotted underline** marks SGPE fallback pieces (a syllable missing from "
    "its vocabulary, spelled with code points or bytes). Hover a token for its id, bytes "
    "and code points."
)

text = state.text_area("cmp", height=110)
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

active = resources.active()
encoding, why_not = resources.o200k()
entries: list[tuple[str, str, Any, str]] = [
    ("SGPE", tokenizer_key(active.sgpe_choice), active.sgpe, active.sgpe_choice.label),
    (
        "Byte-level BPE",
        tokenizer_key(active.base_choice),
        active.base,
        active.base_choice.label
        + (
            ""
            if active.base_matched
            else " — not trained on the same corpus as the SGPE vocabulary"
        ),
    ),
]
if encoding is not None:
    entries.append(("o200k_base", "o200k_base", encoding, "OpenAI o200k_base (tiktoken, offline)"))
else:
    st.warning(render.md_escape(why_not or ""))

missing = grammar.uncovered_scripts(text, active.sgpe.vocab)
if missing:
    st.info(
        f"The SGPE vocabulary ({render.md_escape(active.sgpe_choice.label)}) was trained "
        f"without any {render.md_escape(', '.join(missing))} text, so it spells that text "
        "with byte tokens (the dotted underlines below). Train a vocabulary on text of that "
        "script on the Train page to compare like with like."
    )
results = [analyse(name, key, tok, text) for name, key, tok, _ in entries]
summary = pd.DataFrame([{"tokenizer": r.name, **r.counts} for r in results]).set_index("tokenizer")
st.dataframe(
    summary.drop(columns=["characters", "words"]).style.format(
        {"TWR": "{:.2f}", "chars/token": "{:.2f}"}
    ),
    width="stretch",
)
st.caption(
    f"{len(text):,} characters, {results[0].counts['words']:,} words. TWR = tokens per "
    "word; a broken boundary is a token boundary strictly inside a syllable; fallback "
    "tokens are SGPE's byte and code-point pieces ([UNK] with the unk policy)."
)
if len(text) > RENDER_LIMIT:
    st.info(
        f"Long text: the spans below show about the first {RENDER_LIMIT:,} characters; "
        "the counts cover all of it."
    )

for (name, _, _tok, label), result in zip(entries, results):
    counts = result.counts
    st.subheader(name)
    st.caption(render.md_escape(label))
    cols = st.columns(6)
    cols[0].metric("Tokens", f"{int(counts['tokens']):,}")
    cols[1].metric("TWR", f"{counts['TWR']:.2f}", help="Tokens per whitespace word")
    cols[2].metric("Chars/token", f"{counts['chars/token']:.2f}")
    cols[3].metric(
        "Broken boundaries",
        f"{int(counts['broken boundaries']):,}",
        help="Token boundaries strictly inside a syllable (torn or between learned parts)",
    )
    cols[4].metric(
        "Torn syllables",
        f"{int(counts['torn syllables (straddling cuts)']):,}",
        help="Boundaries inside a syllable next to a token that reaches across the "
        "syllable's edge. Always 0 for SGPE.",
    )
    cols[5].metric(
        "Words with a broken syllable", f"{int(counts['words with a broken syllable']):,}"
    )
    st.html(
        render.tokens_html(
            result.views, show_ids=show_ids, show_invisible=show_invisible, name=name
        )
    )
    if show_ids:
        with st.expander(f"{name}: token ids ({len(result.ids):,})"):
            st.code(" ".join(map(str, result.ids[:5000])), language=None, wrap_lines=True)

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
state.sync_url(
    {
        "ids": "1" if show_ids else None,
        "cinv": "1" if show_invisible else None,
        "corpus": source if source != next(iter(files), None) else None,
    }
)

lines: tuple[str, ...] | None = None
corpus_name: str = source
if source == "upload…":
    upload = st.file_uploader("A UTF-8 .txt file", type=["txt"], key="cmp_upload")
    if upload is not None:
        try:
            lines = tuple(upload.getvalue().decode("utf-8").split("\n"))
            corpus_name = upload.name[:80]
        except UnicodeDecodeError as err:
            st.error(
                render.md_escape(
                    f"{upload.name}: not UTF-8 text ({err.reason} at byte {err.start})."
                )
            )
else:
    lines = tuple(metrics.read_lines(Path(files[source])))

if lines is not None:
    rows = []
    for name, key, tok, _ in entries:
        m = evaluate(key, tok, lines)
        rows.append({"tokenizer": name, **m})
    table = pd.DataFrame(rows)
    shown = table[
        [
            "tokenizer",
            "lines",
            "words",
            "tokens",
            "twr",
            "cpt",
            "broken",
            "broken_per_1k",
            "words_with_broken_pct",
            "unk",
            "roundtrip_fail",
        ]
    ]
    st.dataframe(
        shown.rename(
            columns={
                "twr": "TWR",
                "cpt": "chars/token",
                "broken": "broken boundaries",
                "broken_per_1k": "broken per 1k tokens",
                "words_with_broken_pct": "words with a broken syllable %",
                "unk": "UNK",
                "roundtrip_fail": "round-trip failures",
            }
        ).style.format(precision=2),
        hide_index=True,
        width="stretch",
    )
    metric = st.radio(
        "Chart",
        ["twr", "cpt", "broken_per_1k", "tokens"],
        format_func={
            "twr": "tokens per word (TWR)",
            "cpt": "characters per token",
            "broken_per_1k": "broken boundaries per 1k tokens",
            "tokens": "tokens",
        }.__getitem__,
        horizontal=True,
        key="cmp_chart",
    )
    st.plotly_chart(charts.corpus_bars(table, str(metric), corpus_name), width="stretch")

"""SGPE Explorer: placeholder entrypoint (to be replaced by the st.navigation frame)."""

from __future__ import annotations

import html

import streamlit as st

st.set_page_config(page_title="SGPE Explorer", layout="wide")
st.title("SGPE Explorer")

# "ශ්‍රී ලංකාව" (U+200D ZWJ written out so it survives editors) + "नमस्ते दुनिया".
DEFAULT_TEXT = "ශ්\u200dරී ලංකාව नमस्ते दुनिया"
PALETTE = ("#dbeafe", "#dcfce7", "#fef9c3", "#fce7f3", "#e0e7ff", "#ffedd5")

text = st.text_area("Text", value=DEFAULT_TEXT, key="text")

try:
    from sgpe import syllabify
except ImportError:
    syllabify = None
if not callable(syllabify):  # also while `sgpe.syllabify` is still only the submodule
    st.info("library not built yet")
    st.stop()

spans = "".join(
    f'<span class="syl" data-kind="syllable" '
    f'style="background:{PALETTE[i % len(PALETTE)]};padding:2px 1px;white-space:pre">'
    f"{html.escape(str(syllable))}</span>"
    for i, syllable in enumerate(syllabify(text))
)
st.html(f'<div class="syllables" style="font-size:1.6rem;line-height:2.4">{spans}</div>')

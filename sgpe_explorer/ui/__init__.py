"""Streamlit-only helpers of the SGPE Explorer app (``app.py`` and ``app_pages/``).

* :mod:`sgpe_explorer.ui.render`   escaped HTML for syllable and token spans (pure, no Streamlit);
* :mod:`sgpe_explorer.ui.analysis` tables behind the pages: syllables, tokens, vocabulary, Zipf
  (pure pandas, no Streamlit);
* :mod:`sgpe_explorer.ui.charts`   plotly figures (SVG, never WebGL);
* :mod:`sgpe_explorer.ui.state`    URL (``st.query_params``) and session-state helpers;
* :mod:`sgpe_explorer.ui.kept_text` a long shared text kept on the server over a reload;
* :mod:`sgpe_explorer.ui.resources` cached tokenizers, the run manager and the active tokenizer.

The core library never imports this package (``import sgpe`` needs only ``regex``).
"""

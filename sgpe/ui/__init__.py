"""Streamlit-only helpers of the SGPE Explorer app (``app.py`` and ``app_pages/``).

* :mod:`sgpe.ui.render`   escaped HTML for syllable and token spans (pure, no Streamlit);
* :mod:`sgpe.ui.analysis` tables behind the pages: syllables, tokens, vocabulary, Zipf
  (pure pandas, no Streamlit);
* :mod:`sgpe.ui.charts`   plotly figures (SVG, never WebGL);
* :mod:`sgpe.ui.state`    URL (``st.query_params``) and session-state helpers;
* :mod:`sgpe.ui.resources` cached tokenizers, the run manager and the active tokenizer.

The core library never imports this package (``import sgpe`` needs only ``regex``).
"""

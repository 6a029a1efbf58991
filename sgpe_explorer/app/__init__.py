"""The SGPE Explorer, the Streamlit app: :mod:`sgpe_explorer.app.main` is the frame,
``app_pages/`` the pages, and :mod:`sgpe_explorer.app.launch` starts it (``sgpe app``). It
needs the extra ``app`` (``pip install "sgpe-explorer[app]"``); the core library never
imports this package.
"""

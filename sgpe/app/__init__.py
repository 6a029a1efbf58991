"""The SGPE Explorer, the Streamlit app: :mod:`sgpe.app.main` is the frame, ``app_pages/`` the
pages, and :mod:`sgpe.app.launch` starts it (``sgpe app``). It needs the extra ``app``
(``pip install "sgpe-explorer[app]"``); the core library never imports this package.
"""

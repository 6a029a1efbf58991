"""The SGPE Explorer: the Streamlit app over the :mod:`sgpe` library, in a package of its own.

* :mod:`sgpe_explorer.app` -- the frame (:mod:`~sgpe_explorer.app.main`), the pages
  (``app/app_pages/``) and :mod:`~sgpe_explorer.app.launch`, which ``sgpe app`` runs;
* :mod:`sgpe_explorer.ui` -- the pages' helpers (HTML, tables, charts, URL state, caches);
* :mod:`sgpe_explorer.runs` -- the run manager: background trainers, their queue, uploads,
  owners and disk use, over the run directories of :mod:`sgpe.runs`.

It needs the extra ``app`` (``pip install "sgpe-explorer[app]"``). This package imports the
library; the library never imports this package (tests/test_import_graph.py).
"""

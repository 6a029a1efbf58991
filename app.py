"""The checkout's entry of the explorer: ``streamlit run app.py`` shows the same app as
``sgpe app`` and ``bash scripts/run_app.sh`` (the frame is :mod:`sgpe_explorer.app.main`)."""

from sgpe_explorer.app.main import run

run()

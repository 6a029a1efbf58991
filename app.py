"""The checkout's entry of the explorer: ``streamlit run app.py`` shows the same app as
``sgpe app`` and ``bash scripts/run_app.sh`` (the frame is :mod:`sgpe.app.main`)."""

from sgpe.app.main import run

run()

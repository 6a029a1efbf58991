#!/usr/bin/env bash
# THE app command: installs the library with the app's dependencies, then starts Streamlit.
# Usage: bash scripts/run_app.sh [streamlit run options...]   e.g. --server.port 8502
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PYTHON="${PYTHON:-python}"
"$PYTHON" -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
    -e ".[app]"
exec "$PYTHON" -m streamlit run app.py "$@"

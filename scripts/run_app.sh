#!/usr/bin/env bash
# THE app command: sets up the environment with the app's locked packages, then starts the
# explorer on the shipped sample data with `sgpe app` (the same command an installed package
# has: sgpe_explorer/app/launch.py), so a checkout and an install serve the same app.
# Usage: bash scripts/run_app.sh [streamlit run options...]   e.g. --server.port 8502
# Set-up (scripts/setup_env.sh): the active virtual environment, else .venv/ in the checkout
# (made on the first run, reused after), with exactly the pins of requirements/app.txt.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

_SGPE_WHO=run_app
# shellcheck source=scripts/setup_env.sh
source scripts/setup_env.sh
sgpe_setup_env requirements/app.txt

exec "$PYTHON" -m sgpe app "$@"

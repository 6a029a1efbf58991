#!/usr/bin/env bash
# THE test command: sets up a fresh machine (Debian, Python >= 3.10, root or sudo) and runs
# pytest. Usage: bash scripts/run_tests.sh [pytest args...]
#   bash scripts/run_tests.sh                      # everything except slow tests
#   bash scripts/run_tests.sh --runslow            # include slow tests
#   bash scripts/run_tests.sh -m "not browser"     # skip the end-to-end browser test
# Exit code is pytest's.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PYTHON="${PYTHON:-python}"

echo "run_tests: pip install -e .[dev]" >&2
"$PYTHON" -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
    -e ".[dev]"

# The browser test needs Debian's chromium and Noto fonts. A failure here is not fatal:
# tests/test_browser.py then skips with a reason instead of failing the whole run.
if ! bash scripts/install_browser.sh; then
    echo "run_tests: WARNING: browser set-up failed; the browser test will be skipped" >&2
fi

exec "$PYTHON" -m pytest "$@"

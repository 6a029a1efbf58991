#!/usr/bin/env bash
# THE test command: sets up a fresh machine (Debian 12/13 with its python3, root or sudo for
# apt) and runs pytest. Usage: bash scripts/run_tests.sh [pytest args...]
#   bash scripts/run_tests.sh                      # everything except slow tests
#   bash scripts/run_tests.sh --runslow            # include slow tests
#   bash scripts/run_tests.sh -m "not browser"     # skip the end-to-end browser test
# Set-up (scripts/setup_env.sh): the active virtual environment, else .venv/ in the checkout
# (made on the first run, reused after), with exactly the pins of requirements/dev.txt.
# Exit code: 1 if the set-up, a lint, format or type check, or the native core's cargo
# checks fail (before pytest runs), else pytest's.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

_SGPE_WHO=run_tests
# shellcheck source=scripts/setup_env.sh
source scripts/setup_env.sh
sgpe_setup_env requirements/dev.txt

# Lint, format and type checks first (ruff on every Python file, mypy --strict on sgpe/): the
# hooks of .pre-commit-config.yaml, the same a commit runs. They only check, never rewrite,
# and a failure stops here, before the long test run. Outside a git checkout (pre-commit
# needs one) the same tools run directly. The hooks find ruff and python on PATH: put the
# environment's own bin directory first, so they are the ones the lock installed.
PATH="$(dirname "$PYTHON"):$PATH"
export PATH
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    echo "run_tests: pre-commit run --all-files (ruff check, ruff format --check, mypy)" >&2
    "$PYTHON" -m pre_commit run --all-files
else
    echo "run_tests: ruff check, ruff format --check, mypy (not a git checkout)" >&2
    "$PYTHON" -m ruff check --force-exclude .
    "$PYTHON" -m ruff format --check --force-exclude .
    "$PYTHON" -m mypy
fi
# tests/test_lint.py runs the same three checks for a bare `pytest`; here they have just
# passed (a failure stops above), so it skips them instead of running mypy a second time
# (about 80 s of the suite).
export SGPE_LINTED=1

# The native core (native/, Rust): formatting, lints and its own tests, before pytest, when
# a Rust toolchain is there (setup_env.sh built the extension with it; without one sgpe runs
# in pure Python and tests/test_native.py skips). `cargo test` runs without the Python
# feature: the core is plain Rust (the bindings, native/src/py/, are left out).
if command -v cargo >/dev/null 2>&1; then
    echo "run_tests: cargo fmt --check, cargo clippy -D warnings, cargo test (native/)" >&2
    (
        cd native
        export PYO3_PYTHON="$PYTHON"
        cargo fmt --check
        nice cargo clippy --quiet -j 2 --all-targets -- -D warnings
        nice cargo clippy --quiet -j 2 --all-targets --no-default-features -- -D warnings
        nice cargo test --quiet -j 2 --no-default-features
    )
fi

# The browser test needs Debian's chromium and Noto fonts. A failure here is not fatal:
# tests/test_browser.py then skips with a reason instead of failing the whole run.
if ! bash scripts/install_browser.sh; then
    echo "run_tests: WARNING: browser set-up failed; the browser test will be skipped" >&2
fi

exec "$PYTHON" -m pytest "$@"

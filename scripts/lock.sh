#!/usr/bin/env bash
# Refreshes the lock, then runs the whole suite on it:
#   bash scripts/lock.sh                 # every package to its newest release that fits
#   bash scripts/lock.sh --no-upgrade    # keep the pins; re-resolve after a pyproject.toml edit
# Any further arguments go to scripts/run_tests.sh (pytest).
#
# The lock is made by `uv pip compile` (pinned in the lock itself, as a dev dependency):
# one universal resolution with hashes for every CPython from 3.11 on, so a Debian 12
# (3.11) and a Debian 13 (3.13) machine install from the same file, and pip installs it.
#   requirements/dev.txt   pyproject.toml's extra `dev` (app, tests, benchmarks, lint) and
#                          the build backend (requirements/build.in);
#   requirements/app.txt   the extra `app` and the build backend, with the same versions as
#                          dev.txt (resolved with it as constraints).
# requirements/holds.txt keeps packages whose release decides test expectations at the
# release they were made with; docs/dependencies.md says how to move one.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

upgrade=(--upgrade)
if [[ "${1:-}" == "--no-upgrade" ]]; then
    upgrade=()
    shift
fi

_SGPE_WHO=lock
# shellcheck source=scripts/setup_env.sh
source scripts/setup_env.sh
sgpe_setup_env requirements/dev.txt
UV="$(dirname "$PYTHON")/uv"

common=(--universal --python-version 3.11 --generate-hashes --quiet
    --custom-compile-command "bash scripts/lock.sh")
echo "lock: uv pip compile -> requirements/dev.txt" >&2
"$UV" pip compile pyproject.toml requirements/build.in --extra dev \
    -c requirements/holds.txt "${common[@]}" "${upgrade[@]}" -o requirements/dev.txt
echo "lock: uv pip compile -> requirements/app.txt" >&2
"$UV" pip compile pyproject.toml requirements/build.in --extra app \
    -c requirements/dev.txt "${common[@]}" -o requirements/app.txt

exec bash scripts/run_tests.sh "$@"

#!/usr/bin/env bash
# Rebuilds the native core (the Rust crate in native/) into this checkout after a change to
# native/src/: the standard editable install, whose build backend (setup.py, setuptools-rust)
# compiles it in release mode into sgpe/_native.abi3.so; cargo rebuilds only what changed.
# Both README commands run this through scripts/setup_env.sh.
#
#   bash scripts/build_native.sh        PYTHON=... picks the interpreter (default python3)
#
# No Rust toolchain (no `cargo` on PATH), or SGPE_NO_NATIVE=1: one line says so and a stale
# extension is removed, so sgpe runs its pure-Python engine (the same results, slower). A
# failed build with a toolchain present is an error (exit 1), not a silent fallback.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PYTHON="${PYTHON:-python3}"
if [[ "${SGPE_NO_NATIVE:-}" == 1 ]] || ! command -v "${CARGO:-cargo}" >/dev/null 2>&1; then
    rm -f sgpe/_native*.so
    echo "build_native: $([[ "${SGPE_NO_NATIVE:-}" == 1 ]] && echo "SGPE_NO_NATIVE=1" ||
        echo "no Rust toolchain (cargo) on PATH"): sgpe runs its pure-Python engine (the same" \
        "results, slower); install Rust (https://rustup.rs) and rerun for the native core" >&2
    exit 0
fi
# -j 2 and nice: the machines this runs on are shared (CONTRIBUTING.md).
CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-2}" nice "$PYTHON" -m pip install --quiet \
    --disable-pip-version-check --no-input --no-deps --no-build-isolation -e . || {
    echo "build_native: ERROR: building native/ failed (above). Fix it, or set" \
        "SGPE_NO_NATIVE=1 to run the pure-Python engine" >&2
    exit 1
}

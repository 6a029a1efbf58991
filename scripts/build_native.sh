#!/usr/bin/env bash
# Builds the native core (the Rust crate in native/) in release mode and puts the extension
# module next to the Python sources as sgpe/_native.abi3.so, where `import sgpe._native`
# finds it in this checkout (the editable install points here). Both README commands run
# this through scripts/setup_env.sh; run it by hand after changing native/src/.
#
#   bash scripts/build_native.sh        PYTHON=... picks the interpreter (default python3)
#
# Where there is no Rust toolchain (no `cargo` on PATH), it says so in one line and
# removes a stale extension: sgpe then runs its pure-Python engine, with identical
# results (sgpe/engine.py). SGPE_NO_NATIVE=1 skips the build the same way on purpose.
# A failed build with a toolchain present is an error (exit 1), not a silent fallback.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { echo "build_native: $*" >&2; }
PYTHON="${PYTHON:-python3}"
target=sgpe/_native.abi3.so

if [[ "${SGPE_NO_NATIVE:-}" == 1 ]]; then
    rm -f "$target"
    say "SGPE_NO_NATIVE=1: not building the native core; sgpe runs in pure Python"
    exit 0
fi
if ! command -v cargo >/dev/null 2>&1; then
    rm -f "$target"
    say "no Rust toolchain (cargo) on PATH: sgpe runs in pure Python (the same results," \
        "slower); install Rust (https://rustup.rs) and rerun to build the native core"
    exit 0
fi

# abi3 (the stable ABI of CPython 3.10+): one build serves every interpreter of the lock.
# -j 2 and nice: the machines this runs on are shared (CONTRIBUTING.md).
if ! PYO3_PYTHON="$(command -v "$PYTHON")" nice cargo build --release --quiet -j 2 \
    --manifest-path native/Cargo.toml; then
    say "ERROR: cargo build of native/ failed (above). Fix it, or set SGPE_NO_NATIVE=1 to" \
        "run the pure-Python engine"
    exit 1
fi
built=""
for lib in native/target/release/lib_native.so native/target/release/lib_native.dylib; do
    [[ -f "$lib" ]] && built="$lib"
done
if [[ -z "$built" ]]; then
    say "ERROR: cargo built no native/target/release/lib_native.{so,dylib}"
    exit 1
fi
# Only when it changed, and by rename: a running process keeps the file it loaded.
if ! cmp -s "$built" "$target"; then
    cp "$built" "$target.tmp"
    mv -f "$target.tmp" "$target"
    say "built the native core into $target"
fi

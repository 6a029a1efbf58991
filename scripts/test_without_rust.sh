#!/usr/bin/env bash
# The README's test command as a machine without Rust runs it: a clean clone of this
# checkout's HEAD in a temporary folder, Debian's python3 ($SGPE_BASE_PYTHON to choose
# another), and a PATH with no directory that holds cargo or rustc. The set-up then says in
# one line that sgpe runs its pure-Python engine, the tests that need the native core skip
# with that reason (tests/conftest.py: require_native_core), and everything else must pass.
# .ci/run runs it after the suite with Rust.
#   bash scripts/test_without_rust.sh [pytest args...]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root="$(pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/sgpe-without-rust.XXXXXX")"
trap 'rm -rf "$work"' EXIT
git clone --quiet --no-hardlinks "$root" "$work/sgpe"

path=""
IFS=: read -ra dirs <<<"$PATH"
for dir in "${dirs[@]}"; do
    [[ -z "$dir" || -x "$dir/cargo" || -x "$dir/rustc" ]] && continue
    path="${path:+$path:}$dir"
done
base="${SGPE_BASE_PYTHON:-/usr/bin/python3}"
corpora="${SGPE_SHARED_CORPORA:-$root/../shared/corpora}"
echo "test_without_rust: a clone of HEAD in $work/sgpe, $base, PATH without cargo or rustc" >&2
cd "$work/sgpe"
exec env -u VIRTUAL_ENV -u SGPE_VENV -u CARGO -u SGPE_ENGINE PATH="$path" \
    SGPE_BASE_PYTHON="$base" SGPE_SHARED_CORPORA="$corpora" \
    bash scripts/run_tests.sh "$@"

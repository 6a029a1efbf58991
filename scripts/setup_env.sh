# Sourced by scripts/run_app.sh, scripts/run_tests.sh and scripts/lock.sh: picks the Python
# environment and installs the locked packages into it.
#
#   sgpe_setup_env LOCK     sets PYTHON to the interpreter to use, with LOCK installed
#                           and the native core built into the checkout (the editable
#                           install compiles native/ where cargo is on PATH: setup.py)
#
# Which environment:
#   - an active virtual environment ($VIRTUAL_ENV) is used as it is;
#   - otherwise .venv/ in the checkout (or $SGPE_VENV), created with `python3 -m venv` (or
#     $SGPE_BASE_PYTHON) on the first run and reused after: Debian's Python refuses
#     system-wide `pip install` (PEP 668), and a virtual environment never mixes with
#     packages a machine happens to have.
# What is installed: exactly the pins and hashes of LOCK (requirements/dev.txt or
# requirements/app.txt, made by scripts/lock.sh), with --no-deps so nothing outside the lock
# comes in, then this checkout itself (editable, no build isolation: its build backend,
# setuptools-rust included, is pinned in the lock too), then `pip check`. A stamp in the environment records what was
# installed, so a second run with the same lock and pyproject.toml installs nothing.
#
# The lock covers CPython 3.11 and later (Debian 12 has 3.11, Debian 13 has 3.13); the
# library itself still installs on 3.10 from pyproject.toml's ranges.

_sgpe_say() { echo "$_SGPE_WHO: $*" >&2; }

_sgpe_sha() { cat "$@" | sha256sum | cut -d' ' -f1; }

_sgpe_apt_venv() {
    # Debian splits venv/ensurepip into python3-venv (python3.X-venv on some releases).
    local minor sudo=""
    minor="$("$1" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')"
    if [[ "$(id -u)" != "0" ]]; then
        command -v sudo >/dev/null 2>&1 || return 1
        sudo="sudo"
    fi
    command -v apt-get >/dev/null 2>&1 || return 1
    _sgpe_say "python3 -m venv needs Debian's python3-venv: apt-get install python3-venv python$minor-venv"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get update -qq &&
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
            python3-venv "python$minor-venv" >/dev/null
}

_sgpe_make_venv() {
    local base="$1" dir="$2"
    if "$base" -m venv "$dir" >/dev/null 2>&1; then
        return 0
    fi
    rm -rf "$dir"
    if _sgpe_apt_venv "$base" && "$base" -m venv "$dir" >/dev/null 2>&1; then
        return 0
    fi
    rm -rf "$dir"
    _sgpe_say "ERROR: '$base -m venv $dir' failed. On Debian or Ubuntu install the venv" \
        "module first: 'sudo apt-get install python3-venv' (run as root or with sudo), then" \
        "run this command again. Or activate a virtual environment of your own and rerun."
    return 1
}

sgpe_setup_env() {
    _sgpe_setup_python "$@" || return 1
    # The native core (native/, Rust): the editable install built it, and it is rebuilt on
    # every run (cargo rebuilds only what changed) so that a change to native/src/ is in the
    # next test run; without a Rust toolchain sgpe runs in pure Python and one line says so
    # (scripts/build_native.sh).
    if [[ -f native/Cargo.toml ]]; then
        PYTHON="$PYTHON" bash scripts/build_native.sh || return 1
    fi
}

_sgpe_setup_python() {
    local lock="$1" root env_dir base stamp want
    root="$(pwd)"
    if [[ -n "${VIRTUAL_ENV:-}" && -x "$VIRTUAL_ENV/bin/python" ]]; then
        env_dir="$VIRTUAL_ENV"
        _sgpe_say "using the active virtual environment $env_dir"
    else
        env_dir="${SGPE_VENV:-$root/.venv}"
        if [[ -x "$env_dir/bin/python" ]] && "$env_dir/bin/python" -c "" 2>/dev/null; then
            _sgpe_say "using the virtual environment $env_dir (made by an earlier run)"
        else
            base="${SGPE_BASE_PYTHON:-python3}"
            if ! command -v "$base" >/dev/null 2>&1; then
                _sgpe_say "ERROR: '$base' not found: install Python 3.11 or later" \
                    "(Debian: apt-get install python3 python3-venv) or set SGPE_BASE_PYTHON"
                return 1
            fi
            rm -rf "$env_dir"
            _sgpe_say "creating a virtual environment in $env_dir with $(command -v "$base")"
            _sgpe_make_venv "$base" "$env_dir" || return 1
        fi
    fi
    PYTHON="$env_dir/bin/python"
    if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
        _sgpe_say "ERROR: $("$PYTHON" --version 2>&1) in $env_dir; the lock" \
            "($lock) covers Python 3.11 and later: make the environment with a newer python3" \
            "(SGPE_BASE_PYTHON=python3.11, and remove $env_dir)"
        return 1
    fi
    # The stamp names the lock, pyproject.toml (the editable install's entry points) and
    # the interpreter: any change reinstalls.
    want="$(_sgpe_sha "$lock" pyproject.toml) $("$PYTHON" -c 'import sys; print(sys.version)' | head -1)"
    stamp="$env_dir/.sgpe-installed-$(basename "$lock" .txt)"
    if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
        return 0
    fi
    # The development lock holds every pin of the app's lock (tests/test_lock.py), so an
    # environment made for the tests also serves the app.
    if [[ "$lock" == requirements/app.txt && -f "$env_dir/.sgpe-installed-dev" &&
        "$(cat "$env_dir/.sgpe-installed-dev")" == \
        "$(_sgpe_sha requirements/dev.txt pyproject.toml) ${want#* }" ]]; then
        return 0
    fi
    rm -f "$stamp"
    _sgpe_say "pip install --require-hashes -r $lock, then -e . (a few minutes the first time)"
    "$PYTHON" -m pip install --quiet --disable-pip-version-check --no-input \
        --require-hashes --no-deps -r "$lock" || return 1
    "$PYTHON" -m pip install --quiet --disable-pip-version-check --no-input \
        --no-deps --no-build-isolation -e . || return 1
    if ! "$PYTHON" -m pip check >/dev/null; then
        "$PYTHON" -m pip check >&2 || true
        _sgpe_say "ERROR: the installed packages do not fit together (pip check above):" \
            "the lock $lock is incomplete; remake it with bash scripts/lock.sh --no-upgrade"
        return 1
    fi
    echo "$want" >"$stamp"
}

"""scripts/setup_env.sh, the set-up behind both README commands, on a small real lock.

A checkout with a one-module project and a lock of its build backend (the setuptools and
wheel pins of requirements/dev.txt, hashes included) goes through what a newcomer's
machine does: the first run makes .venv/ and installs the lock, the second reuses it and
installs nothing, an edited lock installs again, and a lock whose hash does not match its
file stops with pip's error and leaves no stamp behind. pip reads the packages from PyPI
or its cache, as the real commands do.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = """\
[build-system]
requires = ["setuptools>=68", "wheel"]
build-backend = "setuptools.build_meta"

[project]
name = "probe"
version = "0"

[tool.setuptools]
py-modules = ["probe"]
"""


def _pins(*names: str) -> str:
    """The blocks of requirements/dev.txt that pin NAMES, exactly as the lock has them."""
    text = (ROOT / "requirements" / "dev.txt").read_text(encoding="utf-8")
    blocks = re.split(r"\n(?=\S)", text)
    return "\n".join(b for b in blocks if b.split("==")[0] in names) + "\n"


def _setup(checkout: Path, lock: str = "requirements/app.txt") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "SGPE_VENV")}
    script = (
        f"set -euo pipefail; _SGPE_WHO=probe; source scripts/setup_env.sh; "
        f'sgpe_setup_env {lock}; echo "PYTHON=$PYTHON"'
    )
    return subprocess.run(
        ["bash", "-c", script], cwd=checkout, env=env, capture_output=True, text=True
    )


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    if shutil.which("python3") is None:
        pytest.skip("python3 is not on PATH")
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "setup_env.sh", tmp_path / "scripts")
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (tmp_path / "probe.py").write_text("ANSWER = 42\n", encoding="utf-8")
    (tmp_path / "requirements").mkdir()
    (tmp_path / "requirements" / "app.txt").write_text(_pins("setuptools", "wheel", "packaging"))
    return tmp_path


def test_first_run_makes_the_environment_and_the_second_reuses_it(checkout: Path) -> None:
    first = _setup(checkout)
    assert first.returncode == 0, first.stderr
    venv = checkout / ".venv"
    assert f"probe: creating a virtual environment in {venv}" in first.stderr
    assert "pip install --require-hashes -r requirements/app.txt" in first.stderr
    assert first.stdout == f"PYTHON={venv}/bin/python\n"
    python = venv / "bin" / "python"
    done = subprocess.run(
        [
            python,
            "-c",
            "import probe, setuptools, wheel; print(probe.ANSWER, setuptools.__version__)",
        ],
        capture_output=True,
        text=True,
        cwd="/",
    )
    setuptools_pin = re.search(r"^setuptools==(\S+)", _pins("setuptools"), re.M)
    assert setuptools_pin is not None
    assert done.stdout.split() == ["42", setuptools_pin.group(1)]

    second = _setup(checkout)
    assert second.returncode == 0, second.stderr
    assert (
        second.stderr == f"probe: using the virtual environment {venv} (made by an earlier run)\n"
    )

    # Any change of the lock installs again.
    lock = checkout / "requirements" / "app.txt"
    lock.write_text(lock.read_text() + "# touched\n")
    third = _setup(checkout)
    assert third.returncode == 0, third.stderr
    assert "pip install --require-hashes -r requirements/app.txt" in third.stderr


def test_a_lock_whose_hash_does_not_match_stops_and_leaves_no_stamp(checkout: Path) -> None:
    lock = checkout / "requirements" / "app.txt"
    text = lock.read_text()
    digest = re.search(r"--hash=sha256:([0-9a-f]{64})", text)
    assert digest is not None
    # Every hash of the wheel pin replaced: no file on PyPI matches any more.
    wheel_start = text.index("\nwheel==")
    head, tail = text[:wheel_start], text[wheel_start:]
    tail = re.sub(r"sha256:[0-9a-f]{64}", "sha256:" + "0" * 64, tail)
    lock.write_text(head + tail)
    done = _setup(checkout)
    assert done.returncode != 0
    assert "THESE PACKAGES DO NOT MATCH THE HASHES" in done.stderr
    assert not list((checkout / ".venv").glob(".sgpe-installed-*"))


def test_a_lock_that_misses_a_dependency_is_refused(checkout: Path) -> None:
    """pip check after the install: a lock without wheel's own dependency fails clearly."""
    (checkout / "requirements" / "app.txt").write_text(_pins("setuptools", "wheel"))
    done = _setup(checkout)
    assert done.returncode == 1
    wheel = re.search(r"^wheel==(\S+)", _pins("wheel"), re.M)
    assert wheel is not None
    assert f"wheel {wheel.group(1)} requires packaging, which is not installed." in done.stderr
    assert "probe: ERROR: the installed packages do not fit together" in done.stderr
    assert not list((checkout / ".venv").glob(".sgpe-installed-*"))


def test_an_active_virtual_environment_is_used_as_it_is(checkout: Path, tmp_path_factory) -> None:
    mine = tmp_path_factory.mktemp("mine") / "env"
    subprocess.run(["python3", "-m", "venv", mine], check=True)
    env = {**os.environ, "VIRTUAL_ENV": str(mine)}
    script = (
        "set -euo pipefail; _SGPE_WHO=probe; source scripts/setup_env.sh; "
        'sgpe_setup_env requirements/app.txt; echo "PYTHON=$PYTHON"'
    )
    done = subprocess.run(
        ["bash", "-c", script], cwd=checkout, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"PYTHON={mine}/bin/python\n"
    assert f"probe: using the active virtual environment {mine}" in done.stderr
    assert not (checkout / ".venv").exists()


def _build_native(tmp_path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """scripts/build_native.sh in a checkout that holds a stale extension."""
    (tmp_path / "scripts").mkdir(exist_ok=True)
    shutil.copy(ROOT / "scripts" / "build_native.sh", tmp_path / "scripts")
    (tmp_path / "sgpe").mkdir(exist_ok=True)
    (tmp_path / "sgpe" / "_native.abi3.so").write_bytes(b"stale")
    return subprocess.run(
        ["bash", "scripts/build_native.sh"], cwd=tmp_path, env=env, capture_output=True, text=True
    )


def test_without_rust_the_native_build_says_so_once_and_leaves_pure_python(tmp_path: Path) -> None:
    """No cargo on PATH (a machine without Rust): one line, exit 0, no extension left."""
    path = os.pathsep.join(d for d in ("/usr/bin", "/bin") if not (Path(d) / "cargo").exists())
    if not path or shutil.which("bash", path=path) is None:
        pytest.skip("no PATH without cargo that still has bash")
    done = _build_native(tmp_path, {"PATH": path, "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("build_native: no Rust toolchain (cargo)")
    assert "sgpe runs its pure-Python engine (the same results, slower)" in lines[0]
    assert not (tmp_path / "sgpe" / "_native.abi3.so").exists()


def test_sgpe_no_native_skips_the_build(tmp_path: Path) -> None:
    done = _build_native(tmp_path, {**os.environ, "SGPE_NO_NATIVE": "1"})
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith(
        "build_native: SGPE_NO_NATIVE=1: sgpe runs its pure-Python engine"
    )
    assert not (tmp_path / "sgpe" / "_native.abi3.so").exists()

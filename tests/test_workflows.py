"""The release workflow (.github/workflows/release.yml) is ready to run: actionlint passes
it, it builds what setup.py builds (one cp310-abi3 wheel per platform, and the sdist), tests
each wheel as installed, and publishes with trusted publishing; .ci/run checks it with the
actionlint of requirements/ci.txt (exact version, hashed)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
RELEASE = ROOT / ".github" / "workflows" / "release.yml"


def test_actionlint_passes_every_workflow() -> None:
    actionlint = os.environ.get("SGPE_ACTIONLINT") or shutil.which("actionlint")
    if not actionlint:
        pytest.skip(
            "actionlint is not installed: .ci/run installs it from requirements/ci.txt and "
            "sets SGPE_ACTIONLINT (or put actionlint on PATH)"
        )
    assert WORKFLOWS == [RELEASE]
    done = subprocess.run(
        [actionlint, *map(str, WORKFLOWS)], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_ci_runs_actionlint_from_its_hashed_requirements() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "--require-hashes --no-deps -r requirements/ci.txt" in ci
    assert '"$SGPE_ACTIONLINT" .github/workflows/*.yml || workflows=$?' in ci
    assert "exit $((workflows != 0 ||" in ci
    assert subprocess.run(["bash", "-n", str(ROOT / ".ci" / "run")]).returncode == 0
    lines = (ROOT / "requirements" / "ci.txt").read_text(encoding="utf-8").splitlines()
    pins = [line.split(" ")[0] for line in lines if re.match(r"[\w-]+==", line)]
    (pin,) = pins
    assert f"\n{pin}\n" in (ROOT / "requirements" / "ci.in").read_text(encoding="utf-8")
    assert sum("--hash=sha256:" in line for line in lines) >= 1


def test_the_release_workflow_builds_tests_and_publishes_the_wheels() -> None:
    yaml = pytest.importorskip("yaml", reason="PyYAML comes with pre-commit (the dev lock)")
    flow = yaml.safe_load(RELEASE.read_text(encoding="utf-8"))
    jobs = flow["jobs"]
    oses = jobs["wheels"]["strategy"]["matrix"]["os"]
    assert {o.split("-")[0] for o in oses} == {"ubuntu", "macos", "windows"}
    (build,) = [s for s in jobs["wheels"]["steps"] if "cibuildwheel" in s.get("uses", "")]
    env = build["env"]
    # One CPython per platform: the wheel is abi3 from 3.10 (setup.py, native/Cargo.toml).
    assert re.fullmatch(r"cp3\d+-\*", env["CIBW_BUILD"])
    assert 'py_limited_api": "cp310"' in (ROOT / "setup.py").read_text(encoding="utf-8")
    assert "abi3-py310" in (ROOT / "native" / "Cargo.toml").read_text(encoding="utf-8")
    assert "rustup" in env["CIBW_BEFORE_ALL_LINUX"]
    for key in ("CIBW_TEST_COMMAND", "CIBW_TEST_COMMAND_WINDOWS"):
        assert env[key].startswith("python {project}/scripts/test_installed.py"), key
        for path in re.findall(r"tests/\S+\.py", env[key]):
            assert (ROOT / path).is_file(), path
    assert "pytest" in env["CIBW_TEST_REQUIRES"]
    publish = jobs["publish"]
    assert publish["permissions"] == {"id-token": "write"}
    assert set(publish["needs"]) == {"wheels", "sdist"}
    assert any(
        s.get("uses", "").startswith("pypa/gh-action-pypi-publish@") for s in publish["steps"]
    )
    assert "refs/tags/v" in publish["if"]

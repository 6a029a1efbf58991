"""Tests that cannot hide failures: under CI a test that needs the shared corpora
fails when they are missing instead of skipping; every session reports how many tests
ran on the real corpora; and the number of such tests cannot silently shrink."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import MIN_REAL_CORPUS_TESTS, corpora_required

TESTS = Path(__file__).resolve().parent
REPO_ROOT = TESTS.parent
CORPUS_FILES = ("si_train.txt", "si_dev.txt", "hi_train.txt", "hi_dev.txt", "mixed_dev.txt")


def test_shared_corpora_hold_the_files_the_tests_read(shared_corpora: Path) -> None:
    for name in CORPUS_FILES:
        with open(shared_corpora / name, "rb") as f:
            head = f.read(4096)
        assert head.count(b"\n") >= 1, name
        head[: head.rfind(b"\n")].decode("utf-8")  # real UTF-8 text, line by line


def _pytest(env_extra: dict[str, str], corpora: Path) -> subprocess.CompletedProcess[str]:
    """This file's corpus test in a child pytest, with the corpora at ``corpora``."""
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "SGPE_REQUIRE_CORPORA")}
    env.update(env_extra, SGPE_SHARED_CORPORA=str(corpora))
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-p", "no:randomly"]
    cmd.append(f"{Path(__file__).name}::test_shared_corpora_hold_the_files_the_tests_read")
    return subprocess.run(cmd, cwd=TESTS, env=env, capture_output=True, text=True, timeout=120)


def test_missing_corpora_skip_locally_and_fail_under_ci(tmp_path: Path) -> None:
    missing = tmp_path / "no-corpora"
    local = _pytest({}, missing)
    assert local.returncode == 0, local.stdout
    assert "1 skipped" in local.stdout
    assert f"real corpora ({missing}): 0 tests ran, 1 skipped" in local.stdout
    ci = _pytest({"SGPE_REQUIRE_CORPORA": "1"}, missing)
    assert ci.returncode == 1, ci.stdout
    assert "1 error" in ci.stdout or "1 failed" in ci.stdout
    assert f"shared corpora not found at {missing}" in ci.stdout
    assert "SGPE_REQUIRE_CORPORA=1 (or CI=true) makes this a failure" in ci.stdout


@pytest.mark.parametrize(
    ("environ", "required"),
    [
        ({}, False),
        ({"SGPE_REQUIRE_CORPORA": "1"}, True),
        ({"SGPE_REQUIRE_CORPORA": "0"}, False),
        ({"CI": "true"}, True),
        ({"CI": "TRUE"}, True),
        ({"CI": "false"}, False),
    ],
)
def test_the_ci_switch(environ: dict[str, str], required: bool) -> None:
    assert corpora_required(environ) is required


def test_each_session_counts_the_tests_that_ran_on_real_corpora(shared_corpora: Path) -> None:
    done = _pytest({"SGPE_REQUIRE_CORPORA": "1"}, shared_corpora)
    assert done.returncode == 0, done.stdout
    assert f"real corpora ({shared_corpora}): 1 tests ran, 0 skipped" in done.stdout


def test_ci_entry_point_requires_the_corpora() -> None:
    lines = (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert "export SGPE_REQUIRE_CORPORA=1" in lines
    # Both runs inherit it: with Rust, and without (scripts/test_without_rust.sh keeps the
    # environment, less the engine's and the toolchain's variables).
    export = lines.index("export SGPE_REQUIRE_CORPORA=1")
    assert export < lines.index("bash scripts/run_tests.sh || with_rust=$?")
    assert export < lines.index("bash scripts/test_without_rust.sh || without_rust=$?")


def _real_corpus_tests() -> list[str]:
    """Test functions that depend on the ``shared_corpora`` fixture, directly or through
    other fixtures (read from the source, so a test that loses the fixture is noticed)."""
    fixtures: dict[str, set[str]] = {}
    tests: dict[str, set[str]] = {}
    for path in sorted(TESTS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef):
                continue
            params = {a.arg for a in node.args.args}
            is_fixture = any("fixture" in ast.unparse(d) for d in node.decorator_list)
            if is_fixture:
                fixtures.setdefault(node.name, set()).update(params)
            elif node.name.startswith("test_"):
                tests[f"{path.name}::{node.name}"] = params

    def needs(names: set[str], seen: frozenset[str] = frozenset()) -> bool:
        if "shared_corpora" in names:
            return True
        return any(needs(fixtures[n], seen | {n}) for n in names if n in fixtures and n not in seen)

    return sorted(name for name, params in tests.items() if needs(params))


def test_the_real_corpus_tests_do_not_silently_shrink() -> None:
    found = _real_corpus_tests()
    assert len(found) >= MIN_REAL_CORPUS_TESTS, found
    # They are spread over the suite, not one file: resume, export parity, integrity, ...
    files = {name.split("::")[0] for name in found}
    for name in ("test_runs.py", "test_jobs.py", "test_export.py", "test_integrity.py"):
        assert name in files, files
    assert re.search(r"test_runs\.py::test_sigterm_cancels", "\n".join(found))


@pytest.mark.parametrize("path", sorted(TESTS.glob("test_*.py")), ids=lambda p: p.name)
def test_no_test_skips_by_hand_for_missing_corpora(path: Path) -> None:
    """The fixture decides (and fails under CI); a test's own skip would bypass that."""
    text = path.read_text(encoding="utf-8")
    assert not re.search(r"skip\([^)]*(corpora|si_dev|si_train|hi_dev|hi_train)", text), path

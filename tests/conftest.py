"""Shared pytest set-up: --runslow, the hypothesis profile, and paths to repo data."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

REPO_ROOT = Path(__file__).resolve().parents[1]
# SGPE_SHARED_CORPORA points elsewhere (tests/test_honesty.py uses it to play "missing").
SHARED_CORPORA = Path(
    os.environ.get("SGPE_SHARED_CORPORA") or REPO_ROOT.parent / "shared" / "corpora"
)

# ---------------------------------------------------------------------------- hypothesis
# MAX_EXAMPLES comes from the environment (as in tiktoken's tests), so CI and a quick local
# run can choose their own budget. No deadline: shared CI machines have noisy timings.
settings.register_profile(
    "ci",
    max_examples=int(os.environ.get("HYPOTHESIS_MAX_EXAMPLES", "200")),
    deadline=None,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# ---------------------------------------------------------------------------- --runslow


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--runslow", action="store_true", default=False, help="also run tests marked slow"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--runslow"):
        return
    skip_slow = pytest.mark.skip(reason="needs --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip_slow)


# ---------------------------------------------------------------------------- fixtures


#: Under CI (``.ci/run`` exports it) a test that needs the shared corpora fails instead of
#: skipping when they are missing: a green run must mean those tests ran.
def corpora_required(environ: Mapping[str, str]) -> bool:
    return environ.get("SGPE_REQUIRE_CORPORA", "") == "1" or environ.get("CI", "").lower() == "true"


REQUIRE_CORPORA = corpora_required(os.environ)
#: Test functions that read the real corpora: tests/test_honesty.py checks that their
#: number does not silently shrink.
MIN_REAL_CORPUS_TESTS = 22


@pytest.fixture(scope="session")
def shared_corpora() -> Path:
    """The large corpora in ../shared/corpora, read in place (never copied into the repo)."""
    if not SHARED_CORPORA.is_dir():
        message = (
            f"shared corpora not found at {SHARED_CORPORA}: these tests read ../shared/corpora "
            "in place"
        )
        if REQUIRE_CORPORA:
            pytest.fail(
                f"{message}; SGPE_REQUIRE_CORPORA=1 (or CI=true) makes this a failure: put the "
                "corpora there, or unset it to skip these tests locally",
                pytrace=False,
            )
        pytest.skip(message)
    return SHARED_CORPORA


def uses_real_corpora(item: pytest.Item) -> bool:
    """Whether a test reads ../shared/corpora (directly or through another fixture)."""
    return "shared_corpora" in getattr(item, "fixturenames", ())


_CORPUS_TESTS = pytest.StashKey[dict[str, list[str]]]()


def pytest_collection_finish(session: pytest.Session) -> None:
    session.config.stash[_CORPUS_TESTS] = {
        "collected": [i.nodeid for i in session.items if uses_real_corpora(i)],
        "ran": [],
        "skipped": [],
    }


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """Say how many tests ran on the real corpora, and how many were skipped."""
    record = config.stash.get(_CORPUS_TESTS, None)
    if record is None:
        return
    wanted = set(record["collected"])
    ran = skipped = 0
    for kind in ("passed", "failed", "error", "xfailed", "xpassed"):
        ran += sum(
            1
            for r in terminalreporter.stats.get(kind, [])
            if r.nodeid in wanted and r.when == "call"
        )
    for r in terminalreporter.stats.get("skipped", []):
        slow = isinstance(r.longrepr, tuple) and "needs --runslow" in str(r.longrepr[-1])
        skipped += r.nodeid in wanted and not slow
    terminalreporter.write_line(
        f"real corpora ({SHARED_CORPORA}): {ran} tests ran, {skipped} skipped (not counting "
        "slow tests without --runslow)"
    )


@pytest.fixture(scope="module")
def long_corpus(shared_corpora: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first 10,000 lines of si_train.txt as a file: a corpus whose training takes a few
    seconds, long enough to kill or cancel a trainer mid-merge (runs and jobs tests)."""
    path = tmp_path_factory.mktemp("corpus") / "si_head.txt"
    with open(shared_corpora / "si_train.txt", "rb") as src, open(path, "wb") as dst:
        for _, line in zip(range(10_000), src):
            dst.write(line)
    return path


@pytest.fixture
def tiny_tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A real 1.5 MB tmpfs (a disk that fills up), unmounted afterwards."""
    mount = tmp_path / "tmpfs"
    mount.mkdir()
    try:
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=1500k", "tmpfs", str(mount)],
            capture_output=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        pytest.skip(f"cannot mount a tmpfs here: {err}")
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    yield mount
    subprocess.run(["umount", str(mount)], capture_output=True, timeout=10)

"""Shared pytest set-up: --runslow, the hypothesis profile, and paths to repo data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_CORPORA = REPO_ROOT.parent / "shared" / "corpora"

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


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The repository root (the directory holding pyproject.toml)."""
    return REPO_ROOT


@pytest.fixture(scope="session")
def shared_corpora() -> Path:
    """The large corpora in ../shared/corpora, read in place (never copied into the repo)."""
    if not SHARED_CORPORA.is_dir():
        pytest.skip(
            f"shared corpora not found at {SHARED_CORPORA}: these tests read ../shared/corpora "
            "in place"
        )
    return SHARED_CORPORA


@pytest.fixture(scope="module")
def long_corpus(shared_corpora: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first 10,000 lines of si_train.txt as a file: a corpus whose training takes a few
    seconds, long enough to kill or cancel a trainer mid-merge (runs and jobs tests)."""
    path = tmp_path_factory.mktemp("corpus") / "si_head.txt"
    with open(shared_corpora / "si_train.txt", "rb") as src, open(path, "wb") as dst:
        for _, line in zip(range(10_000), src):
            dst.write(line)
    return path

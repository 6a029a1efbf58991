"""Shared pytest set-up: --runslow, the hypothesis profile, paths to repo data, and the
engine switches of the differential tests."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import settings

import sgpe._engine as _engine

if TYPE_CHECKING:
    from sgpe.syllables import Syllabifier

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

# ---------------------------------------------------------------------------- engines


def require_native_core() -> None:
    """At the top of a differential test module: skip it (with the reason) where the native
    core is not built, but fail where it should be (cargo on PATH, the engine not forced
    to Python): a build that silently went missing must not pass as a skip."""
    from sgpe import _engine as engine

    if engine.engine() == "native":
        return
    if shutil.which("cargo") and os.environ.get("SGPE_ENGINE", "") != "python":
        pytest.fail(
            f"cargo is on PATH but the native core is not loaded ({engine.describe()}): "
            "run bash scripts/build_native.sh",
            pytrace=False,
        )
    pytest.skip(engine.describe(), allow_module_level=True)


#: The engine parameter of a test that runs under both engines: ``native`` carries the mark
#: ``native``, so it skips (with the reason) where the core is not built and fails where it
#: should be (:func:`require_native_core`, called for every such test before it runs).
BOTH_ENGINES = [pytest.param("native", marks=pytest.mark.native), "python"]


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("native") is not None:
        require_native_core()


# The one way to switch engines inside a process is the engine module's (sgpe/_engine.py).
engine_set_to = _engine.engine_set_to


def python_syllabifier(script: str = "auto", leading_space: bool = False) -> Syllabifier:
    """A syllabifier of the Python reference (made under ``SGPE_ENGINE=python``, the only
    switch), to compare the native engine's with in one process."""
    from sgpe.syllables import Syllabifier

    with engine_set_to("python"):
        return Syllabifier(script, leading_space)


# ---------------------------------------------------------------------------- --runslow


def assert_resumes_byte_identically(
    train_settings: Any, docs: list[str], tmp_path: Path, *, every: int, tries: int
) -> None:
    """Train ``docs`` whole with a checkpoint every ``every`` merges, then resume from each
    of the first ``tries`` checkpoints: every resumed vocabulary has the whole run's bytes."""
    from sgpe.gpe import GPETrainer

    checkpoints: dict[int, list[Any]] = {}
    full = GPETrainer(train_settings)
    full.fit(
        full.count(docs),
        checkpoint_every=every,
        on_checkpoint=lambda step, m: checkpoints.__setitem__(step, m),
    ).save(tmp_path / "full.json")
    assert len(checkpoints) >= tries
    for step in sorted(checkpoints)[:tries]:
        trainer = GPETrainer(train_settings)
        resumed = trainer.fit(trainer.count(docs), resume_merges=checkpoints[step])
        resumed.save(tmp_path / f"resumed{step}.json")
        assert (tmp_path / f"resumed{step}.json").read_bytes() == (
            tmp_path / "full.json"
        ).read_bytes()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--runslow", action="store_true", default=False, help="also run tests marked slow"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    _skip_expectations_of_other_versions(items)
    if config.getoption("--runslow"):
        return
    skip_slow = pytest.mark.skip(reason="needs --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip_slow)


# ---------------------------------------------------------------------------- made_with
# Expectations that a dependency's data decides (the oracle table: Unicode's \X in regex,
# HarfBuzz in uharfbuzz, Debian's Noto fonts) name the versions they were made with in
# tests/made_with.json. A test marked @pytest.mark.made_with(KEY) is skipped when what is
# installed differs, and tests/test_made_with.py fails once for KEY, naming the package,
# both versions and the command that regenerates the expectations: one clear failure
# instead of assertion diffs that look like a bug of ours.

MADE_WITH = json.loads((REPO_ROOT / "tests" / "made_with.json").read_text(encoding="utf-8"))


def version_mismatches(key: str) -> list[tuple[str, str, str]]:
    """(package, version made with, version installed) for each dependency of KEY that is
    installed at another version; a package that is not installed at all is left to the
    tests themselves (they skip, saying what to install)."""
    from sgpe.oracles import dependency_versions

    made = MADE_WITH[key]["made_with"]
    installed = dependency_versions(made)
    return [
        (name, made[name], have)
        for name, have in installed.items()
        if have is not None and have != made[name]
    ]


def _skip_expectations_of_other_versions(items: list[pytest.Item]) -> None:
    cache: dict[str, list[tuple[str, str, str]]] = {}
    for item in items:
        marker = item.get_closest_marker("made_with")
        if marker is None:
            continue
        key = marker.args[0]
        if key not in cache:
            cache[key] = version_mismatches(key)
        if cache[key]:
            found = ", ".join(f"{n} {have} (made with {made})" for n, made, have in cache[key])
            item.add_marker(
                pytest.mark.skip(
                    reason=f"{MADE_WITH[key]['what']}: made with other versions: {found}; "
                    f"tests/test_made_with.py::test_expectations_match_the_installed_versions"
                    f"[{key}] says what to do"
                )
            )


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


@pytest.fixture(autouse=True)
def _paced_runs_on_the_long_corpus(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test with :func:`long_corpus` kills or cancels a run mid-merge: its trainers sleep
    after each merge batch, 0.1 ms per merge (the ``SGPE_TEST_MERGE_PAUSE`` hook of
    ``sgpe/runs/format.py``), since the native core trains that corpus in a fraction of a
    second, in batches of thousands of merges, and a stop meant for the middle of a run
    would otherwise find it done."""
    if "long_corpus" not in request.fixturenames:
        yield
        return
    mp = pytest.MonkeyPatch()
    mp.setenv("SGPE_TEST_MERGE_PAUSE", "0.0001")
    try:
        yield
    finally:
        mp.undo()


@pytest.fixture(scope="module")
def long_corpus(shared_corpora: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first 10,000 lines of si_train.txt as a file: a corpus for the runs and jobs
    tests that kill or cancel a trainer mid-merge (paced: see the fixture above)."""
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

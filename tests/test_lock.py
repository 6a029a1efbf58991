"""The lock (requirements/, made by scripts/lock.sh) and pyproject.toml agree.

pyproject.toml keeps ranges for people who install the library into their own
environments; the two README commands install the lock's exact pins and hashes. A
dependency added to one and not the other, a pin outside its range, or an app lock that
drifts from the development lock fails here, with the command that mends it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import tomllib  # the lock covers Python 3.11+, where it is standard
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SELF = canonicalize_name(PYPROJECT["project"]["name"])
RELOCK = "run `bash scripts/lock.sh --no-upgrade` and commit requirements/"

_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+?)(?: ;.*?)? \\$")


@dataclass
class Pin:
    versions: set[str] = field(default_factory=set)  # two under different markers at most
    via: set[str] = field(default_factory=set)  # what asks for it (the lock's annotations)
    hashes: int = 0


def _lock(name: str) -> dict[str, Pin]:
    entries: dict[str, Pin] = {}
    current: Pin | None = None
    for line in (ROOT / "requirements" / name).read_text(encoding="utf-8").splitlines():
        pin = _PIN.match(line)
        if pin:
            current = entries.setdefault(canonicalize_name(pin.group(1)), Pin())
            current.versions.add(pin.group(2))
        elif current is not None and line.strip().startswith("--hash=sha256:"):
            current.hashes += 1
        elif current is not None and line.startswith("    #"):
            source = line.strip("# ").removeprefix("via").strip()
            if source:
                current.via.add(source)
        elif line and not line.startswith(("#", " ")):
            raise AssertionError(f"requirements/{name}: a line the test cannot read: {line!r}")
    return entries


def _direct(extra: str) -> dict[str, Requirement]:
    """The requirements an install of ``.[extra]`` names, the project's own extras
    expanded, with the core dependencies."""
    project = PYPROJECT["project"]
    found = {
        canonicalize_name(Requirement(r).name): Requirement(r) for r in project["dependencies"]
    }
    todo, seen = [extra], set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for text in project["optional-dependencies"][name]:
            req = Requirement(text)
            if canonicalize_name(req.name) == SELF:
                todo.extend(req.extras)
            else:
                found.setdefault(canonicalize_name(req.name), req)
    return found


def _build() -> set[str]:
    lines = (ROOT / "requirements" / "build.in").read_text(encoding="utf-8").splitlines()
    return {line.strip() for line in lines if line.strip() and not line.startswith("#")}


def _check(lock_name: str, extra: str) -> None:
    lock = _lock(lock_name)
    direct = _direct(extra) | {
        canonicalize_name(Requirement(r).name): Requirement(r) for r in _build()
    }
    named_by_project = {
        name
        for name, entry in lock.items()
        if entry.via & {f"{SELF} (pyproject.toml)", "-r requirements/build.in"}
    }
    missing = sorted(set(direct) - named_by_project)  # not pinned for pyproject.toml
    assert not missing, (
        f"pyproject.toml names {missing}, requirements/{lock_name} does not pin them for it: {RELOCK}"
    )
    stale = sorted(named_by_project - set(direct))
    assert not stale, (
        f"requirements/{lock_name} pins {stale} for pyproject.toml, which no longer names them: {RELOCK}"
    )
    unexplained = sorted(name for name, entry in lock.items() if not entry.via)
    assert not unexplained, (
        f"requirements/{lock_name} pins {unexplained} that nothing asks for: {RELOCK}"
    )
    for name, req in direct.items():
        for version in lock[name].versions:
            assert Version(version) in req.specifier, (
                f"requirements/{lock_name} pins {name}=={version}, outside pyproject.toml's "
                f"{req}: {RELOCK}"
            )
    unhashed = sorted(name for name, entry in lock.items() if not entry.hashes)
    assert not unhashed, f"requirements/{lock_name} has pins without hashes: {unhashed}"


def test_the_development_lock_agrees_with_pyproject() -> None:
    _check("dev.txt", "dev")


def test_the_app_lock_agrees_with_pyproject() -> None:
    _check("app.txt", "app")


def test_the_app_lock_pins_what_the_development_lock_pins() -> None:
    """One environment serves both commands (scripts/setup_env.sh), so the app's versions
    must be the tests' versions."""
    dev, app = _lock("dev.txt"), _lock("app.txt")
    drift = {
        name: (entry.versions, dev[name].versions if name in dev else None)
        for name, entry in app.items()
        if name not in dev or not entry.versions <= dev[name].versions
    }
    assert not drift, f"app.txt vs dev.txt: {drift}: {RELOCK}"


def test_the_build_backend_is_locked() -> None:
    assert _build() == set(PYPROJECT["build-system"]["requires"])


def test_held_packages_and_made_with_versions_are_the_locked_ones() -> None:
    """A held package (requirements/holds.txt) stays at the release the expectations of
    tests/made_with.json were made with, and the lock has exactly that release."""
    dev = _lock("dev.txt")
    holds = {}
    for line in (ROOT / "requirements" / "holds.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, version = line.strip().split("==")
            holds[canonicalize_name(name)] = version
    for name, version in holds.items():
        assert dev[name].versions == {version}, (name, dev[name].versions, version)
    made_with = json.loads((ROOT / "tests" / "made_with.json").read_text(encoding="utf-8"))
    for entry in made_with.values():
        for name, version in entry["made_with"].items():
            if canonicalize_name(name) in dev:  # Debian's packages are not in the lock
                assert dev[canonicalize_name(name)].versions == {version}, (
                    f"{entry['what']} was made with {name} {version}; the lock has "
                    f"{dev[canonicalize_name(name)]['versions']}: regenerate with "
                    f"`{entry['regenerate']}` or hold {name} in requirements/holds.txt"
                )
    # Every PyPI package an expectation depends on is held, so that `bash scripts/lock.sh`
    # moves everything else and stays green; moving a held one is a deliberate act.
    decided = {canonicalize_name(n) for e in made_with.values() for n in e["made_with"]}
    assert set(holds) == decided & set(dev), (sorted(holds), sorted(decided & set(dev)))


def test_both_commands_and_ci_install_from_the_lock() -> None:
    scripts = ROOT / "scripts"
    assert "sgpe_setup_env requirements/dev.txt" in (scripts / "run_tests.sh").read_text()
    assert "sgpe_setup_env requirements/app.txt" in (scripts / "run_app.sh").read_text()
    setup = (scripts / "setup_env.sh").read_text(encoding="utf-8")
    assert '--require-hashes --no-deps -r "$lock"' in setup
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci.index("rm -rf .venv") < ci.index("bash scripts/run_tests.sh || with_rust=$?")
    # The run without Rust makes its own environment from the lock, in a clean clone.
    assert "bash scripts/test_without_rust.sh || without_rust=$?" in ci
    assert 'bash scripts/run_tests.sh "$@"' in (scripts / "test_without_rust.sh").read_text()
    assert "-r requirements/app.txt" in (ROOT / "requirements.txt").read_text().splitlines()

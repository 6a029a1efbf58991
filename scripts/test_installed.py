"""Run the test suite against an installed sgpe (a wheel), not the checkout's sources.

The release workflow (.github/workflows/release.yml) runs this in cibuildwheel's test
environment, where the wheel just built is installed:

    python scripts/test_installed.py [PYTEST ARGUMENTS]

pyproject.toml puts the repository root on pytest's path (so that tests import bench/,
which is not installed), and that would import the checkout's sgpe/ instead of the wheel's.
So this clears that setting, puts the root at the end of the path instead (after the
installed packages: `import bench` finds the checkout's, `import sgpe` the wheel's), checks that `sgpe`
comes from the installed wheel with its native core, and leaves out the tests that check
the checkout's own environment (the lock, the set-up scripts, the linters, the wheel
build), which `bash scripts/run_tests.sh` runs. The corpora are not on a build machine:
the tests that read them skip, naming the reason.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Tests of the checkout's environment, not of the package.
CHECKOUT_ONLY = ["test_lock.py", "test_setup_env.py", "test_lint.py", "test_wheel.py"]


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        sys.path = [p for p in sys.path if Path(p or ".").resolve() not in (ROOT, ROOT / "scripts")]
        os.chdir(tmp)  # not the checkout: `import sgpe` must find the installed package
        import sgpe
        from sgpe import _engine as engine

        sys.path.append(str(ROOT))  # after sgpe is imported: for bench/ alone
        where = Path(sgpe.__file__).resolve()
        if ROOT in where.parents:
            print(f"test_installed: sgpe comes from the checkout ({where}), not a wheel")
            return 2
        if engine.engine() != "native":
            print(f"test_installed: the wheel has no native core: {engine.describe()}")
            return 2
        print(f"test_installed: sgpe {sgpe.__version__} from {where.parent}, {engine.describe()}")
        # The corpora are not on a build machine: their tests skip rather than fail.
        os.environ.pop("CI", None)
        os.environ["SGPE_REQUIRE_CORPORA"] = "0"
        import pytest

        ignore = [f"--ignore={ROOT / 'tests' / name}" for name in CHECKOUT_ONLY]
        args = ["-o", "pythonpath=", f"--rootdir={ROOT}", "-p", "no:cacheprovider"]
        # Paths given are relative to the checkout; without any, the whole tests/ folder.
        argv = [str(ROOT / a) if (ROOT / a).exists() else a for a in argv]
        paths = [a for a in argv if Path(a).exists()] or [str(ROOT / "tests")]
        rest = [a for a in argv if a not in paths]
        return int(pytest.main([*args, *ignore, *rest, *paths]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Expectations that come from a dependency's data run only under the versions they were
made with (tests/made_with.json); under others, the test here fails once and says what to
do, and the marked tests skip (tests/conftest.py)."""

from __future__ import annotations

import pytest
from conftest import MADE_WITH, version_mismatches


@pytest.mark.parametrize("key", sorted(MADE_WITH))
def test_expectations_match_the_installed_versions(key: str) -> None:
    mismatches = version_mismatches(key)
    if mismatches:
        entry = MADE_WITH[key]
        lines = "\n".join(
            f"  {name}: made with {made}, installed {have}" for name, made, have in mismatches
        )
        pytest.fail(
            f"{entry['what']}: made with other versions than the installed ones:\n{lines}\n"
            "Either install the locked versions (bash scripts/run_tests.sh builds .venv/ from "
            "requirements/dev.txt), or, to move to the installed versions, regenerate the "
            f"expectations with `{entry['regenerate']}`, which also updates "
            "tests/made_with.json, and commit them with the lock (docs/dependencies.md).",
            pytrace=False,
        )


def test_every_key_is_used_by_a_marked_test() -> None:
    import ast
    from pathlib import Path

    used = set()
    for path in Path(__file__).parent.glob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and ast.unparse(node.func) == "pytest.mark.made_with"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                used.add(node.args[0].value)
    assert used == set(MADE_WITH)

"""The README's examples run and print what the README says."""

from __future__ import annotations

import ast
import doctest
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_worked_example():
    text = README.read_text(encoding="utf-8")
    block = re.search(r"## A worked example\n\n```python\n(.*?)```", text, re.S).group(1)
    test = doctest.DocTestParser().get_doctest(block, {}, "README", str(README), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0 and runner.tries >= 4


def test_readme_three_line_usage(monkeypatch):
    monkeypatch.chdir(README.parent)
    text = README.read_text(encoding="utf-8")
    block = re.search(r"```python\n(import sgpe\n.*?)```", text, re.S).group(1)
    lines = [line.split("#")[0].rstrip() for line in block.strip().splitlines()]
    namespace: dict = {}
    exec(
        "\n".join(lines[:2]) + "\nresult = " + lines[2], namespace
    )  # our own README, not user data
    expected = ast.literal_eval(block.strip().splitlines()[2].split("#", 1)[1].strip())
    assert namespace["result"] == expected

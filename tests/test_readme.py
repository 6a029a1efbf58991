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


def test_every_name_in_the_api_table_exists_at_its_current_path():
    """The API table once named ``sgpe.train.GPETrainer`` while ``sgpe.train`` was a function:
    every dotted name in it must resolve, without going through a deprecated old path."""
    import importlib
    import warnings

    text = README.read_text(encoding="utf-8")
    table = re.search(r"## API\n(.*?)\n## ", text, re.S).group(1)
    names = sorted({m.group(1) for m in re.finditer(r"`(sgpe(?:\.\w+)+)", table)})
    assert len(names) >= 10, names
    for name in names:
        parts = name.split(".")
        with warnings.catch_warnings():
            warnings.simplefilter("error", DeprecationWarning)
            obj = importlib.import_module(parts[0])
            for k, part in enumerate(parts[1:], start=1):
                try:
                    obj = getattr(obj, part)
                except AttributeError:
                    obj = importlib.import_module(".".join(parts[: k + 1]))
        assert obj is not None, name

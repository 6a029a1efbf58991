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


def test_readme_hugging_face_three_lines(tmp_path):
    """Train, export the folder, AutoTokenizer: the README's lines run in a fresh directory
    and print what the README says (made with transformers 5.24.0, tokenizers 0.23.3)."""
    import os
    import shlex
    import subprocess
    import sys

    import pytest

    pytest.importorskip("transformers")
    text = README.read_text(encoding="utf-8")
    section = text.split("## Hugging Face and the meta-vocabulary", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.S).group(1).strip().splitlines()
    commands, printed = block[:3], block[3]
    assert [c.split()[:3] for c in commands] == [
        ["python", "-m", "sgpe"],
        ["python", "-m", "sgpe"],
        ["python", "-c", "'from"],
    ]
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    for command in commands:
        argv = shlex.split(command.replace("sample_data/", f"{README.parent}/sample_data/"))
        done = subprocess.run(
            [sys.executable, *argv[1:]], cwd=tmp_path, env=env, capture_output=True,
            text=True, timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    assert "# " + done.stdout.strip() == printed

"""The README's and docs/usage.md's examples run and print what they say, and the README
stays a front page."""

from __future__ import annotations

import ast
import doctest
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
USAGE = ROOT / "docs" / "usage.md"


def test_the_readme_is_a_front_page():
    """At most 200 lines; the details live in docs/, and every docs page is linked."""
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert f"](docs/{page.name})" in text, f"the README does not link docs/{page.name}"
    for command in ("bash scripts/run_app.sh", "bash scripts/run_tests.sh"):
        assert f"`{command}`" in text
        assert (ROOT / command.split()[1]).is_file()


def test_usage_worked_example():
    text = USAGE.read_text(encoding="utf-8")
    block = re.search(r"## A worked example\n\n```python\n(.*?)```", text, re.S).group(1)
    test = doctest.DocTestParser().get_doctest(block, {}, "usage", str(USAGE), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0 and runner.tries >= 4


def test_readme_python_example(monkeypatch, tmp_path):
    """Every line of the README's Python block runs, in a fresh folder; each line whose
    comment is a Python literal has that value."""
    monkeypatch.chdir(tmp_path)
    text = README.read_text(encoding="utf-8")
    block = re.search(r"## Python\n\n```python\n(import sgpe\n.*?)```", text, re.S).group(1)
    lines = [line for line in block.splitlines() if line.strip()]
    assert len(lines) <= 10
    namespace: dict = {}
    checked = 0
    for line in lines:
        code, _, comment = line.partition("#")
        code = code.rstrip().replace('"sample_data/', f'"{ROOT}/sample_data/')
        try:
            expected = ast.literal_eval(comment.strip())
        except (ValueError, SyntaxError):
            exec(code, namespace)  # our own README, not user data
            continue
        if re.match(r"\w+ = ", code):
            name = code.split(" = ", 1)[0]
            exec(code, namespace)
            assert namespace[name] == expected, line
        else:
            assert eval(code, namespace) == expected, line
        checked += 1
    assert checked >= 5


def test_readme_command_line_example(tmp_path):
    """The README's command-line lines (but `sgpe app`) run in a fresh folder; the encode
    line prints the tokens of the trained vocabulary."""
    import json
    import os
    import shlex
    import subprocess
    import sys

    text = README.read_text(encoding="utf-8")
    block = re.search(r"## Command line\n\n```\n(.*?)```", text, re.S).group(1)
    lines = [line.split("  #")[0].strip() for line in block.strip().splitlines()]
    assert lines[-1] == "sgpe app" and len(lines) == 4
    outputs = []
    for line in lines[:-1]:
        stdin = None
        if line.startswith("echo "):
            echo, line = line.split(" | ", 1)
            stdin = shlex.split(echo)[1] + "\n"
        argv = shlex.split(line.replace("sample_data/", f"{ROOT}/sample_data/"))
        assert argv[:3] == ["python", "-m", "sgpe"], argv
        done = subprocess.run(
            [sys.executable, *argv[1:]], cwd=tmp_path, input=stdin, capture_output=True,
            text=True, timeout=300, env={**os.environ, "HF_HUB_OFFLINE": "1"},
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    assert json.loads(outputs[1]) == [" ශ්\u200dරී", " ලංකා", "ව"]
    assert (tmp_path / "si1k-tokenizer" / "tokenizer.json").is_file()


def test_every_name_in_the_api_table_exists_at_its_current_path():
    """The API table once named ``sgpe.train.GPETrainer`` while ``sgpe.train`` was a function:
    every dotted name in it must resolve, without going through a deprecated old path."""
    import importlib
    import warnings

    text = USAGE.read_text(encoding="utf-8")
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


def test_usage_hugging_face_three_lines(tmp_path):
    """Train, export the folder, AutoTokenizer: docs/usage.md's lines run in a fresh directory
    and print what the README says (made with transformers 5.24.0, tokenizers 0.23.3)."""
    import os
    import shlex
    import subprocess
    import sys

    import pytest

    pytest.importorskip("transformers")
    text = USAGE.read_text(encoding="utf-8")
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
        argv = shlex.split(command.replace("sample_data/", f"{ROOT}/sample_data/"))
        done = subprocess.run(
            [sys.executable, *argv[1:]], cwd=tmp_path, env=env, capture_output=True,
            text=True, timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    assert "# " + done.stdout.strip() == printed

"""The examples in the modules' docstrings run and print what they say; every module with
examples is listed here, and no example is skipped (a skipped example tests nothing)."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MODULES = [
    "sgpe",
    "sgpe._surrogates",
    "sgpe._text",
    "sgpe._engine",
    "sgpe.baselines.tiktoken_offline",
    "sgpe.baselines.bytebpe",
    "sgpe.interop.hf",
    "sgpe.interop.hf_folder",
    "sgpe.interop.meta",
    "sgpe.metrics",
    "sgpe.protocol",
    "sgpe.spans",
    "sgpe.syllables",
    "sgpe.gpe",
    "sgpe.settings",
    "sgpe.shipped",
    "sgpe_explorer.ui.render",
    "sgpe_explorer.ui.analysis",
    "sgpe_explorer.ui.charts",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0, f"{name} has no doctest example: remove it from MODULES"


def test_every_module_with_examples_is_tested_and_none_is_skipped() -> None:
    with_examples = set()
    for path in sorted([*(ROOT / "sgpe").rglob("*.py"), *(ROOT / "sgpe_explorer").rglob("*.py")]):
        text = path.read_text(encoding="utf-8")
        assert "doctest: +SKIP" not in text, f"{path}: a skipped example tests nothing"
        if "\n>>> " in text or "    >>> " in text:
            parts = path.relative_to(ROOT).with_suffix("").parts
            with_examples.add(".".join(p for p in parts if p != "__init__"))
    assert with_examples == set(MODULES)

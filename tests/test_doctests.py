"""The examples in the core modules' docstrings run and print what they say."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "sgpe.syllabify",
    "sgpe.train",
    "sgpe.protocol",
    "sgpe.tokenizer",
    "sgpe.schema",
    "sgpe.words",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0

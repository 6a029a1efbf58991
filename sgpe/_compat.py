"""Old module paths that keep working, with a ``DeprecationWarning``.

The package was reorganised so that its files follow the pipeline (``docs/architecture.md``).
Code written against the earlier layout keeps running: importing an old path gives a module
that forwards every attribute to the new one and says where it moved. ``sgpe.train`` and
``sgpe.syllabify`` were both a function and a module; their old module paths give a module
that can also be *called*, so ``sgpe.train(...)`` works whichever of the two a program
reached first.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings
from typing import Any

#: Old module path -> (new module path, name of the function the old path also stood for).
MOVED: dict[str, tuple[str, str | None]] = {
    "sgpe.train": ("sgpe.gpe", "train"),
    "sgpe.syllabify": ("sgpe.syllables", "syllabify"),
    "sgpe.words": ("sgpe.pieces", None),
    "sgpe.defaults": ("sgpe.shipped", None),
    "sgpe.bytebpe": ("sgpe.baselines.bytebpe", None),
    "sgpe._tiktoken": ("sgpe.baselines.tiktoken_offline", None),
    "sgpe.export": ("sgpe.interop.hf", None),
    "sgpe.meta": ("sgpe.interop.meta", None),
    "sgpe.jobs": ("sgpe.runs.manager", None),
}


class MovedModule(types.ModuleType):
    """Stands at an old module path and forwards to the module's new home."""

    def __init__(self, old: str, new: str, function: str | None) -> None:
        super().__init__(old, f"Moved to {new}.")
        self.__dict__["_new"] = new
        self.__dict__["_function"] = function

    def _target(self) -> types.ModuleType:
        return importlib.import_module(self.__dict__["_new"])

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        new = self.__dict__["_new"]
        warnings.warn(
            f"{self.__name__}.{name} moved to {new}.{name}; import it from {new}",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(self._target(), name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        function = self.__dict__["_function"]
        if function is None:
            raise TypeError(f"module {self.__name__!r} is not callable")
        return getattr(self._target(), function)(*args, **kwargs)

    def __dir__(self) -> list[str]:
        return dir(self._target())


class _Loader(importlib.abc.Loader):
    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        new, function = MOVED[spec.name]
        warnings.warn(
            f"the module {spec.name} moved to {new}; import from {new}",
            DeprecationWarning,
            stacklevel=2,
        )
        return MovedModule(spec.name, new, function)

    def exec_module(self, module: types.ModuleType) -> None:
        return None


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname in MOVED:
            return importlib.machinery.ModuleSpec(fullname, _Loader())
        return None


def install() -> None:
    """Put the old paths on the import system (once)."""
    if not any(isinstance(finder, _Finder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _Finder())

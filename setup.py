"""The native core's part of the build: everything else is in pyproject.toml.

``pip install .``, ``pip install -e .``, ``pip wheel .`` and ``python -m build`` compile the
Rust crate in ``native/`` (release mode, PyO3, CPython's stable ABI from 3.10) into
``sgpe/_native.abi3.so`` inside the package, with setuptools-rust: one ``cp310-abi3`` wheel per
platform, as HF ``tokenizers`` and tiktoken ship theirs. Why setuptools-rust and not maturin:
docs/decisions.md ("The native core ships in the wheel").

* No Rust toolchain (no ``cargo`` on PATH, or ``$CARGO``): the package installs without the
  extension and runs its pure-Python engine, with the same results (sgpe/_engine.py); this
  file says so in one line.
* ``SGPE_NO_NATIVE=1``: the same, on purpose (a pure-Python install where Rust exists).
* A toolchain that fails to build the crate is an error (pip shows cargo's output), never a
  silent fallback; ``SGPE_NO_NATIVE=1`` then installs the pure-Python engine on purpose.
"""

from __future__ import annotations

import os
import shutil
import sys

from setuptools import setup

NATIVE_LINE = "sgpe: {why}: installing the pure-Python engine (the same results, slower)"


def rust_extensions() -> list[object]:
    if os.environ.get("SGPE_NO_NATIVE") == "1":
        print(NATIVE_LINE.format(why="SGPE_NO_NATIVE=1"), file=sys.stderr)
        return []
    if shutil.which(os.environ.get("CARGO", "cargo")) is None:
        print(
            NATIVE_LINE.format(why="no Rust toolchain (cargo) on PATH")
            + "; install Rust (https://rustup.rs) and reinstall for the native core",
            file=sys.stderr,
        )
        return []
    from setuptools_rust import Binding, RustExtension

    return [
        RustExtension(
            "sgpe._native",
            path="native/Cargo.toml",
            binding=Binding.PyO3,
            # The crate is built with PyO3's abi3-py310 feature (native/Cargo.toml): the file is
            # _native.abi3.so in every build, in place too, and the wheel is tagged cp310-abi3.
            py_limited_api=True,
            # Release mode in place too (setuptools-rust would make an editable install a
            # debug build): a checkout measures and tests the core its users get.
            debug=False,
            optional=False,
        )
    ]


setup(
    rust_extensions=rust_extensions(),
    options={"bdist_wheel": {"py_limited_api": "cp310"}},
)

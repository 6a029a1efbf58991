"""The wheel as a user gets it: built by ``pip wheel .`` from this checkout, installed into a new
virtual environment whose PATH has no cargo, used from a folder outside the checkout.

* Where the checkout has a Rust toolchain, the wheel carries the native core
  (``sgpe/_native.abi3.so``), is tagged ``cp310-abi3-<platform>``, meets the manylinux
  policy docs/install.md names (``auditwheel show``; ``auditwheel repair`` retags it), and the
  installed package runs the native engine with the ids of the checkout's Python engine.
* Without one (``scripts/test_without_rust.sh``), the wheel is pure Python
  (``py3-none-any``, no extension), and the installed package runs the pure-Python engine
  with the same ids.

Either way the wheel holds the schemas, the sample data and the explorer, so
``sgpe.load("sgpe-4k")``, ``--vocab sgpe-4k`` and ``sgpe app`` work from any folder: the last
test starts ``sgpe app`` from the new environment and opens a page in Chromium.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BUILT_WITH_RUST = shutil.which("cargo") is not None and os.environ.get("SGPE_NO_NATIVE") != "1"
# Lines of the Sinhala and Hindi dev sets whose ids the installed package must reproduce.
LINES_PER_FILE = 100


@dataclass(frozen=True)
class Installed:
    wheel: Path
    python: Path
    env: dict[str, str]
    cwd: Path


def _path_without_cargo() -> str:
    """PATH less every directory that holds cargo or rustc: a user's machine without Rust."""
    keep = [
        d
        for d in os.environ.get("PATH", "").split(os.pathsep)
        if d and not (Path(d) / "cargo").exists() and not (Path(d) / "rustc").exists()
    ]
    return os.pathsep.join(keep)


def _lock_blocks(*names: str) -> str:
    """The blocks of requirements/app.txt that pin NAMES, hashes included."""
    text = (ROOT / "requirements" / "app.txt").read_text(encoding="utf-8")
    blocks = re.split(r"\n(?=\S)", text)
    return "\n".join(b for b in blocks if b.split("==")[0] in names) + "\n"


def _run(cmd: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(cmd, capture_output=True, text=True, **kwargs)  # type: ignore[call-overload]
    assert done.returncode == 0, f"{cmd}\n{done.stdout}\n{done.stderr}"
    return done  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    tmp = tmp_path_factory.mktemp("wheel")
    dist = tmp / "dist"
    # The standard command, with the build backend the lock pinned (setuptools-rust).
    _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "--disable-pip-version-check", "-w", str(dist), str(ROOT)],
        env={**os.environ, "CARGO_BUILD_JOBS": "2"},
    )  # fmt: skip
    (wheel,) = dist.glob("*.whl")
    venv = tmp / "venv"
    _run([sys.executable, "-m", "venv", str(venv)])
    python = venv / "bin" / "python"
    # The wheel, then the app's lock (its pins and hashes, nothing unpinned). Without
    # PYTHONPATH: a checkout on it, with the egg-info an in-tree build leaves, would look
    # installed to pip, which would then skip the wheel. --no-compile: pip's byte-compiling
    # of every installed module (pandas, pyarrow, streamlit...) was half the install's CPU
    # time; Python compiles what the tests import when they import it, so the same files are
    # installed and run as a user's `pip install`.
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    _run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
          "--no-compile", "--no-deps", str(wheel)], env=clean)  # fmt: skip
    lock = tmp / "app-lock.txt"
    lock.write_text((ROOT / "requirements" / "app.txt").read_text(encoding="utf-8"))
    _run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
          "--no-compile", "--no-deps", "--require-hashes", "-r", str(lock)], env=clean)  # fmt: skip
    cwd = tmp / "elsewhere"
    cwd.mkdir()
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("VIRTUAL_ENV", "PYTHONPATH", "SGPE_ENGINE", "SGPE_RUNS_DIR", "CARGO")
    }
    env |= {
        "PATH": os.pathsep.join([str(venv / "bin"), _path_without_cargo()]),
        "XDG_DATA_HOME": str(tmp / "xdg"),
        "PYTHONNOUSERSITE": "1",
    }
    yield Installed(wheel, python, env, cwd)


def test_the_wheel_carries_the_core_the_schemas_the_sample_data_and_the_app(
    installed: Installed,
) -> None:
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    version = re.search(r'^version = "(.+)"', (ROOT / "pyproject.toml").read_text(), re.M)
    assert version is not None
    if BUILT_WITH_RUST:
        assert (
            installed.wheel.name == f"sgpe_explorer-{version.group(1)}-cp310-abi3-linux_x86_64.whl"
        )
        assert "sgpe/_native.abi3.so" in names
    else:
        assert installed.wheel.name == f"sgpe_explorer-{version.group(1)}-py3-none-any.whl"
        assert not [n for n in names if n.endswith(".so")]
    schemas = {p.name for p in (ROOT / "sgpe" / "schemas").glob("*.json")}
    assert {
        n.rsplit("/", 1)[1] for n in names if re.fullmatch(r"sgpe/schemas/\w+\.json", n)
    } == schemas
    for shipped in ("sgpe_4k.json", "sgpe_paper_4k.json", "bytebpe_4k.json"):
        assert f"sgpe/sample_data/vocab/{shipped}" in names
    for sample in ("sinhala.txt", "hindi.txt", "mixed.txt", "README.md"):
        assert f"sgpe/sample_data/{sample}" in names
    pages = {p.name for p in (ROOT / "sgpe_explorer" / "app" / "app_pages").glob("*.py")}
    assert {
        n.rsplit("/", 1)[1] for n in names if n.startswith("sgpe_explorer/app/app_pages/")
    } == pages
    assert {
        "sgpe_explorer/app/main.py",
        "sgpe_explorer/app/launch.py",
        "sgpe_explorer/runs/trainer.py",
        "sgpe_explorer/py.typed",
        "sgpe/py.typed",
    } <= names
    assert not [n for n in names if n.startswith(("tests/", "bench/", "native/", "sample_data/"))]


def test_the_wheels_platform_tag_is_the_manylinux_policy_the_docs_name(
    installed: Installed, tmp_path: Path
) -> None:
    if not BUILT_WITH_RUST:
        pytest.skip("a pure-Python wheel (no Rust toolchain) has no platform to check")
    readme = (ROOT / "docs" / "install.md").read_text(encoding="utf-8")
    claim = re.search(r"meets\s+the\s+`(manylinux_\d+_\d+)`\s+policy", readme)
    assert claim is not None, "docs/install.md names the manylinux policy of the wheel"
    shown = _run([sys.executable, "-m", "auditwheel", "show", str(installed.wheel)]).stdout
    policy = re.search(
        r'consistent\s+with\s+the\s+following\s+platform\s+tag:\s*"(manylinux_\d+_\d+)_x86_64"',
        shown,
    )
    assert policy is not None, shown
    assert policy.group(1) == claim.group(1), shown
    # The release step: the same wheel, retagged (nothing to graft: only glibc is linked).
    bin_dir = str(Path(sys.executable).parent)
    _run(
        [sys.executable, "-m", "auditwheel", "repair", "--plat", f"{claim.group(1)}_x86_64",
         "-w", str(tmp_path), str(installed.wheel)],
        env={**os.environ, "PATH": os.pathsep.join([bin_dir, os.environ.get("PATH", "")])},
    )  # fmt: skip
    (repaired,) = tmp_path.glob("*.whl")
    assert repaired.name.endswith(f"-cp310-abi3-{claim.group(1)}_x86_64.whl"), repaired.name


def test_the_installed_package_runs_its_engine_with_the_checkouts_ids(
    installed: Installed, shared_corpora: Path
) -> None:
    version = _run(
        [str(installed.python), "-m", "sgpe", "--version"], env=installed.env, cwd=installed.cwd
    ).stdout
    if BUILT_WITH_RUST:
        assert re.fullmatch(r"sgpe \S+, native engine \(sgpe\._native \S+\)\n", version), version
    else:
        assert "pure-Python engine" in version, version
    lines = []
    for name in ("si_dev.txt", "hi_dev.txt"):
        with open(shared_corpora / name, encoding="utf-8") as f:
            lines += [next(f).rstrip("\n") for _ in range(LINES_PER_FILE)]
    text = installed.cwd / "lines.json"
    text.write_text(json.dumps(lines, ensure_ascii=False), encoding="utf-8")
    code = (
        "import json, sys, sgpe\n"
        "lines = json.load(open(sys.argv[1], encoding='utf-8'))\n"
        "out = {n: [sgpe.load(n).encode(t) for t in lines] for n in sgpe.shipped.VOCABULARIES}\n"
        "print(json.dumps(out))"
    )
    # From a folder outside the checkout: the vocabularies load by name from package data.
    got = _run(
        [str(installed.python), "-c", code, str(text)], env=installed.env, cwd=installed.cwd
    ).stdout
    reference_env = {**os.environ, "SGPE_ENGINE": "python", "PYTHONPATH": str(ROOT)}
    want = _run([sys.executable, "-c", code, str(text)], env=reference_env, cwd=ROOT).stdout
    assert json.loads(got) == json.loads(want)
    # The CLI takes a shipped vocabulary by name too.
    cli = _run(
        [str(installed.python), "-m", "sgpe", "encode", "--vocab", "sgpe-4k"],
        env=installed.env, cwd=installed.cwd, input=lines[0] + "\n",
    ).stdout  # fmt: skip
    assert json.loads(cli) == json.loads(want)["sgpe-4k"][0]


def test_the_installed_sgpe_script_trains_a_run_with_every_file_written(
    installed: Installed, shared_corpora: Path
) -> None:
    """The installed ``sgpe`` script (entry point ``sgpe.cli:run``) ends ``train`` without
    Python's teardown (``os._exit``): the run it leaves is whole, its status says done,
    and its vocabulary is the one the checkout trains from the same lines."""
    import sgpe

    with open(shared_corpora / "si_dev.txt", encoding="utf-8") as f:
        lines = [next(f).rstrip("\n") for _ in range(300)]
    corpus = installed.cwd / "si300.txt"
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = installed.cwd / "run-si300"
    script = installed.python.parent / "sgpe"
    _run(
        [str(script), "train", "--corpus", str(corpus), "--out", str(out), "--vocab-size", "900"],
        env=installed.env, cwd=installed.cwd,
    )  # fmt: skip
    names = {p.name for p in out.iterdir()}
    assert {"config.json", "status.json", "vocab.json", "merges.parquet", "word_counts.parquet",
            "train.log"} <= names  # fmt: skip
    assert json.loads((out / "status.json").read_text(encoding="utf-8"))["state"] == "done"
    trained = sgpe.load(out / "vocab.json")
    reference = sgpe.train(corpus, vocab_size=900)
    assert trained.vocab == reference.vocab
    assert trained.merges == reference.merges


@pytest.mark.browser
def test_sgpe_app_from_the_installed_package_serves_the_explorer(installed: Installed) -> None:
    from test_browser import CHROMIUM, CHROMIUM_ARGS

    from bench.app import free_port, healthy

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = installed.cwd / "app.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            [str(installed.python), "-m", "sgpe", "app", "--server.port", str(port),
             "--server.address", "127.0.0.1"],
            cwd=installed.cwd, env=installed.env, stdout=out, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 90
        while not healthy(url):
            assert server.poll() is None, log.read_text(encoding="utf-8", errors="replace")
            assert time.monotonic() < deadline, "sgpe app not healthy after 90 s"
            time.sleep(0.25)
        runs = Path(installed.env["XDG_DATA_HOME"]) / "sgpe-explorer" / "runs"
        first = log.read_text(encoding="utf-8").splitlines()[0]
        assert first == (
            f"sgpe app: training runs are kept in {runs} (set SGPE_RUNS_DIR to choose another)"
        )
        if not CHROMIUM.exists():
            message = f"{CHROMIUM} not found: run scripts/install_browser.sh"
            if os.environ.get("CI"):
                pytest.fail(message)
            pytest.skip(message)
        sync_api = pytest.importorskip("playwright.sync_api")
        with sync_api.sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
            )
            try:
                page = browser.new_page()
                page.goto(f"{url}/compare", wait_until="domcontentloaded")
                page.get_by_role("heading", name="Compare").first.wait_for(timeout=60_000)
                sidebar = page.get_by_test_id("stSidebar")
                # The heading can be drawn before the sidebar's widgets on a busy machine.
                sidebar.get_by_text("Tokenizer (SGPE)").wait_for(timeout=60_000)
                assert sidebar.get_by_text("Tokenizer (SGPE)").is_visible()
                assert page.get_by_text(
                    "Engine: native engine" if BUILT_WITH_RUST else "Engine: pure-Python engine"
                ).first.is_visible()
                assert not page.get_by_test_id("stException").count()
            finally:
                browser.close()
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def test_the_sdist_carries_the_crate_and_installs_pure_python_without_rust(
    tmp_path: Path,
) -> None:
    """`python -m build --sdist` holds the crate setup.py compiles; built where no cargo is on
    PATH, the sdist gives a pure-Python wheel, and the build says why in one line."""
    _run(
        [sys.executable, "-m", "build", "--sdist", "--no-isolation", "-o", str(tmp_path),
         str(ROOT)],
    )  # fmt: skip
    (sdist,) = tmp_path.glob("*.tar.gz")
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    crate = {
        f"native/{p.relative_to(ROOT / 'native').as_posix()}"
        for p in (ROOT / "native" / "src").rglob("*.rs")
    }
    assert crate | {"native/Cargo.toml", "native/Cargo.lock", "setup.py"} <= names
    assert "sgpe/sample_data/vocab/sgpe_4k.json" in names
    assert not [n for n in names if n.startswith("native/target") or n.endswith(".so")]
    env = {k: v for k, v in os.environ.items() if k not in ("CARGO",)}
    env["PATH"] = _path_without_cargo()
    built = _run(
        [sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "--no-build-isolation",
         "--disable-pip-version-check", "-w", str(tmp_path / "dist"), str(sdist)],
        env=env,
    )  # fmt: skip
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    assert wheel.name.endswith("-py3-none-any.whl")
    # pip runs setup.py once per build step (metadata, wheel): the same one line each time.
    output = (built.stdout + built.stderr).splitlines()
    said = {line.strip() for line in output if line.strip().startswith("sgpe:")}
    assert said == {
        "sgpe: no Rust toolchain (cargo) on PATH: installing the pure-Python engine (the same "
        "results, slower); install Rust (https://rustup.rs) and reinstall for the native core"
    }

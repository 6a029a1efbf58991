"""A linguist's own schema wherever a script name goes: ``--schema FILE``
on the command line, ``sgpe.syllabify(schema=...)``, ``TrainSettings(schema=...)``, the
schema recorded whole in ``vocab.json`` and a run's ``config.json``, and a vocabulary that
encodes the same ids after the schema file is gone, under both engines and in the HF export.

The schema is a copy of the built-in Sinhala one under another name: it must give exactly
what ``--script sinhala`` gives, so every comparison below is against the built-in script.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import BOTH_ENGINES, engine_set_to

import sgpe
from sgpe.cli import main
from sgpe.runs import RunConfig, read_config, read_status
from sgpe.schema import SchemaError, load_schema_file, schema_digest
from sgpe.settings import TrainSettings

REPO_ROOT = Path(__file__).resolve().parents[1]
SINHALA_SCHEMA = REPO_ROOT / "sgpe" / "schemas" / "sinhala.json"
CORPUS = REPO_ROOT / "sample_data" / "sinhala.txt"
MIXED = REPO_ROOT / "sample_data" / "mixed.txt"


def copy_of_sinhala(folder: Path, name: str = "my_sinhala") -> Path:
    """The built-in Sinhala schema under another name and title, as a linguist's file."""
    document = json.loads(SINHALA_SCHEMA.read_text(encoding="utf-8"))
    document["name"] = name
    document["title"] = "My Sinhala"
    path = folder / f"{name}.json"
    path.write_text(json.dumps(document, ensure_ascii=False, indent=2), encoding="utf-8")
    return path


def canonical_sha256(path: Path) -> str:
    document = json.loads(path.read_text(encoding="utf-8"))
    text = json.dumps(document, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def run_cli(
    *args: str, stdin: str = "", engine: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m sgpe`` in a fresh process (no schema registered yet), with ``engine``
    (by default this process's: a machine without Rust has only the Python engine)."""
    from sgpe._engine import engine as current_engine

    env = {**os.environ, "SGPE_ENGINE": engine or current_engine(), "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "sgpe", *args],
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        cwd=REPO_ROOT,
        timeout=120,
    )


# Encodes the lines of a text file with a vocabulary in a fresh process and prints the ids,
# with whether the native core built its syllabifier and encoder from the recorded schema.
ENCODE_ELSEWHERE = """
import json, sys
import sgpe
from sgpe import _engine
tok = sgpe.load(sys.argv[1])
lines = open(sys.argv[2], encoding="utf-8").read().split("\\n")
native = (
    _engine.native_syllabifier(tok.script, tok.leading_space) is not None
    and tok._native_pieces is not None
)
print(json.dumps({"ids": tok.encode_batch(lines), "native": native, "script": tok.script}))
"""


def encode_elsewhere(vocab: Path, text: Path, engine: str) -> dict[str, object]:
    env = {**os.environ, "SGPE_ENGINE": engine, "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", ENCODE_ELSEWHERE, str(vocab), str(text)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        cwd="/",
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    found: dict[str, object] = json.loads(done.stdout)
    return found


# ============================================================================ done when


@pytest.mark.parametrize("engine", BOTH_ENGINES)
def test_train_with_a_copied_schema_equals_the_script_and_encodes_without_the_file(
    engine: str, tmp_path: Path
) -> None:
    """``sgpe train --schema`` with a copy of the Sinhala schema under
    another name gives the merges of ``--script sinhala``, and the vocabulary encodes the
    same ids after the file is deleted (a fresh process, under each engine)."""
    schema = copy_of_sinhala(tmp_path)
    own, builtin = tmp_path / "own", tmp_path / "builtin"
    common = ["train", "--corpus", str(MIXED), "--vocab-size", "3000"]
    with engine_set_to(engine):
        assert main([*common, "--out", str(own), "--schema", str(schema)]) == 0
        assert main([*common, "--out", str(builtin), "--script", "sinhala"]) == 0
    mine = json.loads((own / "vocab.json").read_text(encoding="utf-8"))
    theirs = json.loads((builtin / "vocab.json").read_text(encoding="utf-8"))
    assert mine["merges"] == theirs["merges"] and len(mine["merges"]) > 1000
    assert mine["vocab"] == theirs["vocab"]
    # The schema is recorded whole, with the sha256 of its canonical JSON, and named by it.
    digest = canonical_sha256(schema)
    assert mine["schema_sha256"] == digest
    assert mine["schema"] == json.loads(schema.read_text(encoding="utf-8"))
    assert mine["scripts"] == f"my_sinhala@{digest[:16]}"
    # A built-in script's vocabulary and run record nothing new.
    assert "schema" not in theirs and "schema_sha256" not in theirs
    assert "schema" not in json.loads((builtin / "config.json").read_text(encoding="utf-8"))
    assert json.loads((own / "config.json").read_text(encoding="utf-8"))["schema"] == mine["schema"]

    schema.unlink()
    dev = tmp_path / "dev.txt"
    lines = (REPO_ROOT / "sample_data" / "sinhala.txt").read_text(encoding="utf-8").split("\n")
    dev.write_text("\n".join([*lines[::3], "ශ්‍රී ලංකා abc क्षत्रिय 123", ""]), encoding="utf-8")
    got = encode_elsewhere(own / "vocab.json", dev, engine)
    want = encode_elsewhere(builtin / "vocab.json", dev, engine)
    assert got["ids"] == want["ids"]
    assert got["script"] == mine["scripts"]
    # Under the native engine the core itself built the syllabifier from the recorded schema.
    assert got["native"] is (engine == "native")


# ============================================================================ syllabify


def test_syllabify_takes_a_schema_file_a_parsed_schema_or_a_document(tmp_path: Path) -> None:
    path = copy_of_sinhala(tmp_path)
    text = "ශ්‍රී ලංකාව ඉන්දියන් සාගරයේ abc क्षत्रिय"
    want = sgpe.syllabify(text, "sinhala", leading_space=True)
    parsed = load_schema_file(path)
    document = json.loads(path.read_text(encoding="utf-8"))
    for given in (path, str(path), parsed, document):
        assert sgpe.syllabify(text, leading_space=True, schema=given) == want
    with pytest.raises(ValueError, match="script or schema"):
        sgpe.syllabify(text, "tamil", schema=path)


@pytest.mark.parametrize("engine", BOTH_ENGINES)
def test_cli_syllabify_schema_and_its_errors(engine: str, tmp_path: Path) -> None:
    path = copy_of_sinhala(tmp_path)
    text = "ශ්‍රී ලංකාව\nක්‍රීඩා पिटि abc\n"
    own = run_cli("syllabify", "--schema", str(path), stdin=text, engine=engine)
    builtin = run_cli("syllabify", "--script", "sinhala", stdin=text, engine=engine)
    assert own.returncode == 0 and own.stdout == builtin.stdout
    assert own.stdout.splitlines()[0] == json.dumps(
        ["ශ්\u200dරී", " ", "ලං", "කා", "ව"], ensure_ascii=False
    )

    bad = tmp_path / "bad.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    document["grammar"]["syllable"] = "C(?:HC)*Q"
    bad.write_text(json.dumps(document), encoding="utf-8")
    for args in (
        ("syllabify", "--schema", str(bad)),
        ("train", "--corpus", str(CORPUS), "--vocab-size", "900", "--out", str(tmp_path / "r"), "--schema", str(bad)),
        ("count", "--corpus", str(CORPUS), "--out", str(tmp_path / "c.parquet"), "--schema", str(bad)),
    ):  # fmt: skip
        done = run_cli(*args, engine=engine)
        assert done.returncode == 2
        assert done.stderr == (
            f"sgpe: error: {bad}: grammar.syllable: grammar uses class 'Q', which 'classes' "
            "does not define\n"
        )
    assert not (tmp_path / "r").exists() and not (tmp_path / "c.parquet").exists()
    missing = run_cli("syllabify", "--schema", str(tmp_path / "nope.json"), engine=engine)
    assert (missing.returncode, missing.stderr) == (
        2,
        f"sgpe: error: {tmp_path / 'nope.json'}: schema file not found\n",
    )
    both = run_cli("syllabify", "--schema", str(path), "--script", "sinhala", engine=engine)
    assert both.returncode == 2 and "not allowed with argument --schema" in both.stderr
    both = run_cli(
        "train", "--corpus", str(CORPUS), "--vocab-size", "900", "--out", str(tmp_path / "r"),
        "--schema", str(path), "--script", "tamil", engine=engine,
    )  # fmt: skip
    assert both.returncode == 2 and "schema and script: give one of them" in both.stderr


def test_count_and_eval_take_a_schema(tmp_path: Path) -> None:
    from sgpe.corpus.counting import read_counts_table

    path = copy_of_sinhala(tmp_path)
    own, builtin = tmp_path / "own.parquet", tmp_path / "builtin.parquet"
    assert main(["count", "--corpus", str(MIXED), "--out", str(own), "--schema", str(path)]) == 0
    assert (
        main(["count", "--corpus", str(MIXED), "--out", str(builtin), "--script", "sinhala"]) == 0
    )
    assert read_counts_table(own)[0] == read_counts_table(builtin)[0]

    vocab = tmp_path / "run"
    assert main(["train", "--corpus", str(CORPUS), "--vocab-size", "900", "--out", str(vocab), "--schema", str(path)]) == 0  # fmt: skip
    path.unlink()
    # eval finds boundaries by the vocabulary's own schema when given no grammar.
    by_own = run_cli("eval", "--vocab", str(vocab / "vocab.json"), "--text", str(MIXED))
    by_script = run_cli(
        "eval", "--vocab", str(vocab / "vocab.json"), "--text", str(MIXED), "--script", "sinhala"
    )
    assert by_own.returncode == 0
    own_result, script_result = json.loads(by_own.stdout), json.loads(by_script.stdout)
    del own_result["encode_seconds"], script_result["encode_seconds"]
    assert own_result == script_result


# ============================================================================ settings


def test_train_settings_take_a_path_a_parsed_schema_or_a_document(tmp_path: Path) -> None:
    path = copy_of_sinhala(tmp_path)
    parsed = load_schema_file(path)
    document = json.loads(path.read_text(encoding="utf-8"))
    made = [TrainSettings(vocab_size=900, schema=s) for s in (path, str(path), parsed, document)]
    assert all(s == made[0] for s in made)
    s = made[0]
    assert s.schema == document and s.script == f"my_sinhala@{schema_digest(parsed)[:16]}"
    assert TrainSettings(**s.to_dict()) == s
    assert TrainSettings(vocab_size=900, script=s.script) == s  # the key brings its document
    assert s.replace(vocab_size=1000).schema == document
    with pytest.raises(ValueError, match="give one of them"):
        TrainSettings(vocab_size=900, schema=path, script="tamil")
    with pytest.raises(ValueError, match="applies only to model sgpe"):
        TrainSettings(model="bytebpe", vocab_size=900, schema=path)
    with pytest.raises(SchemaError, match="schema file not found"):
        TrainSettings(vocab_size=900, schema=tmp_path / "nope.json")
    # config.json carries the document; a built-in run's config.json has no schema key.
    config = RunConfig(vocab_size=900, schema=path)
    assert RunConfig.from_dict(config.to_dict()).settings == s
    assert "schema" not in RunConfig(vocab_size=900).to_dict()
    assert RunConfig(vocab_size=900, script="sinhala").fingerprint() != config.fingerprint()


def test_a_vocabulary_whose_schema_was_edited_is_refused(tmp_path: Path) -> None:
    path = copy_of_sinhala(tmp_path)
    tok = sgpe.train([CORPUS.read_text(encoding="utf-8")], vocab_size=900, schema=path)
    file = tmp_path / "vocab.json"
    tok.save(file)
    assert sgpe.load(file).encode("ශ්‍රී ලංකාව") == tok.encode("ශ්‍රී ලංකාව")
    data = json.loads(file.read_text(encoding="utf-8"))
    data["schema"]["grammar"]["orphan"] = "P|H"
    file.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(ValueError, match=r"key 'schema' does not match its sha256"):
        sgpe.load(file)


# ============================================================================ HF export


def test_hf_export_of_a_vocabulary_with_its_own_schema_has_id_parity(tmp_path: Path) -> None:
    pytest.importorskip("tokenizers")
    from sgpe.interop.hf import check_parity, load_hf

    path = copy_of_sinhala(tmp_path, "sinhala_hf")
    tok = sgpe.train([MIXED.read_text(encoding="utf-8")], vocab_size=3000, schema=path)
    file = tmp_path / "vocab.json"
    tok.save(file)
    path.unlink()
    loaded = sgpe.load(file)
    hf = load_hf(loaded)
    texts = [*MIXED.read_text(encoding="utf-8").split("\n"), "ශ්‍රී ලංකා abc क्षत्रिय", "  x\tශ්‍ර"]
    got = [e.ids for e in hf.encode_batch(texts)]
    assert got == loaded.encode_batch(texts)
    assert check_parity(loaded, texts).ok


# ============================================================================ runs


@pytest.mark.slow
def test_a_run_with_its_own_schema_resumes_without_the_file(
    long_corpus: Path, tmp_path: Path
) -> None:
    """A run stopped mid-merge resumes from config.json, which records the schema: the
    schema file can be gone, and the result is that of --script sinhala."""
    schema = copy_of_sinhala(tmp_path)
    args = ["--vocab-size", "12000", "--checkpoint-every", "500", "--heartbeat-seconds", "0.1"]
    out, ref = tmp_path / "run", tmp_path / "ref"
    base = [sys.executable, "-m", "sgpe", "train", "--corpus", str(long_corpus), *args]
    proc = subprocess.Popen([*base, "--out", str(out), "--schema", str(schema)], cwd=REPO_ROOT)
    import time

    deadline = time.monotonic() + 60
    while True:
        assert proc.poll() is None, "the trainer ended before step 1500"
        try:
            if read_status(out).step >= 1500:
                break
        except Exception:
            pass
        assert time.monotonic() < deadline
        time.sleep(0.01)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 0
    assert read_status(out).state == "cancelled"
    schema.unlink()
    assert read_config(out).schema is not None
    resumed = subprocess.run(
        [sys.executable, "-m", "sgpe", "train", "--out", str(out), "--resume"], cwd=REPO_ROOT
    )
    assert resumed.returncode == 0 and read_status(out).state == "done"
    done = subprocess.run([*base, "--out", str(ref), "--script", "sinhala"], cwd=REPO_ROOT)
    assert done.returncode == 0
    mine = json.loads((out / "vocab.json").read_text(encoding="utf-8"))
    theirs = json.loads((ref / "vocab.json").read_text(encoding="utf-8"))
    assert mine["merges"] == theirs["merges"] and mine["vocab"] == theirs["vocab"]


def test_the_meta_vocabulary_sends_a_schema_of_ones_own_to_sgpe(tmp_path: Path) -> None:
    """The o200k_base + SGPE meta-vocabulary routes the characters of a vocabulary's own
    schema to SGPE (a schema has no Unicode block in sgpe.schema.SCRIPT_BLOCKS)."""
    pytest.importorskip("tiktoken")
    from sgpe.interop.meta import MetaTokenizer

    lines = [line for line in MIXED.read_text(encoding="utf-8").split("\n") if line]
    own = MetaTokenizer(
        sgpe.train(lines, vocab_size=3000, schema=copy_of_sinhala(tmp_path, "sinhala_meta"))
    )
    builtin = MetaTokenizer(sgpe.train(lines, vocab_size=3000, script="sinhala"))
    text = "ශ්‍රී ලංකාව नमस्ते । Hello ලංකා!"
    segments = own.segment(text)
    assert [(s.text, s.kind) for s in segments if s.kind == "sgpe"] == [
        ("ශ්\u200dරී", "sgpe"), ("ලංකාව", "sgpe"), ("।", "sgpe"), ("ලංකා", "sgpe"),
    ]  # fmt: skip
    assert own.segment(text) == builtin.segment(text)
    assert own.encode(text) == builtin.encode(text)

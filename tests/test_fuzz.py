"""Fuzzing: Hypothesis round-trip and no-crash properties over every script's
repertoire (each schema's code points, ZWJ/ZWNJ, spaces, newlines) mixed with arbitrary
Unicode, for the syllabifier, training on tiny corpora, encode/decode, Hugging Face export
parity, every corpus reader on mutated files, and every reader of our own files on
mutated bytes.

Two budgets. The default run uses ``FAST`` examples per property (a few seconds in all).
The slow mode runs 100,000 cases in all (``SLOW``), and always the same properties:

    python -m pytest tests/test_fuzz.py --runslow -k slow_mode

A failure prints the shrunk example; ``hypothesis`` replays it first on the next run.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import random
import string
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sgpe
from sgpe.baselines.bytebpe import ByteBPETokenizer
from sgpe.corpus import CorpusError, iter_documents, read_corpus
from sgpe.interop.hf import load_hf
from sgpe.runs import Checkpoint, RunConfig, RunError, decode_table, encode_table
from sgpe.runs.intake import validate_corpus
from sgpe.schema import load_schema
from sgpe.settings import SPECIAL_TOKENS
from sgpe.tokenizer import Tokenizer

REPO_ROOT = Path(__file__).resolve().parents[1]
SAMPLE_LINES = (REPO_ROOT / "sample_data" / "sinhala.txt").read_text(encoding="utf-8").split("\n")[
    :40
] + (REPO_ROOT / "sample_data" / "hindi.txt").read_text(encoding="utf-8").split("\n")[:40]

# ============================================================================ strategies

REPERTOIRE = sorted(
    set().union(*(load_schema(s).code_points for s in ("sinhala", "devanagari")))
    | set("\u200c\u200d  \n\t\r.,?!-'\"0123456789abcXYZ")
)
repertoire_text = st.text(alphabet=st.sampled_from(REPERTOIRE), max_size=60)
# Arbitrary Unicode, surrogates excluded (a Python str from UTF-8 text cannot hold them).
any_text = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=40)
texts = st.one_of(
    repertoire_text, any_text, st.lists(st.one_of(repertoire_text, any_text)).map("".join)
)

#: examples per property: the default run, and the slow mode (100,000 in all)
FAST = {"syllabify": 300, "codec": 300, "train": 40, "export": 100, "readers": 150, "files": 150}
SLOW = {
    "syllabify": 30_000,
    "codec": 30_000,
    "train": 4_000,
    "export": 16_000,
    "readers": 10_000,
    "files": 10_000,
}
assert sum(SLOW.values()) == 100_000


@cache
def sgpe_4k() -> Tokenizer:
    return sgpe.load(REPO_ROOT / "sample_data" / "vocab" / "sgpe_4k.json")


@cache
def byte_4k() -> ByteBPETokenizer:
    return sgpe.load(REPO_ROOT / "sample_data" / "vocab" / "bytebpe_4k.json")


@cache
def hf_4k() -> Any:
    hf = load_hf(sgpe_4k())
    hf.encode_special_tokens = True  # literal "[UNK]" is text, as in our encoder
    return hf


# ============================================================================ properties

_STRATEGIES: dict[Callable[..., None], dict[str, Any]] = {}


def fuzz_property(**strategies: Any) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Record a property's strategies; :func:`_run` builds a fresh Hypothesis test from
    them for each budget (a ``@given`` test takes one ``settings`` only)."""

    def record(f: Callable[..., None]) -> Callable[..., None]:
        _STRATEGIES[f] = strategies
        return f

    return record


@fuzz_property(
    text=texts, script=st.sampled_from(["auto", "sinhala", "devanagari"]), ls=st.booleans()
)
def prop_syllabify_is_lossless(text: str, script: str, ls: bool) -> None:
    parts = sgpe.syllabify(text, script=script, leading_space=ls)
    assert "".join(parts) == text
    assert all(parts)
    spans = sgpe.syllable_spans(text, script=script, leading_space=ls)
    assert [text[s[0] : s[1]] for s in spans] == parts


@fuzz_property(text=texts, which=st.sampled_from(["sgpe", "bytebpe"]))
def prop_encode_decode_round_trip(text: str, which: str) -> None:
    tok = sgpe_4k() if which == "sgpe" else byte_4k()
    ids = tok.encode(text)
    assert tok.decode(ids) == text
    assert all(type(i) is int and 0 <= i < tok.vocab_size for i in ids)


@fuzz_property(ids=st.lists(st.integers(min_value=-(2**40), max_value=2**40), max_size=20))
def prop_decode_any_ids_is_text_or_a_clear_error(ids: list[int]) -> None:
    for tok in (sgpe_4k(), byte_4k()):
        try:
            assert isinstance(tok.decode(ids), str)
        except ValueError as err:
            assert str(err).startswith("invalid token id: ")
            assert any(not 0 <= i < tok.vocab_size for i in ids)


@fuzz_property(
    docs=st.lists(texts, min_size=1, max_size=6),
    probe=texts,
    oov=st.sampled_from(["fallback", "unk"]),
    pieces=st.sampled_from(["whitespace", "script"]),
)
def prop_train_on_tiny_corpora(docs: list[str], probe: str, oov: str, pieces: str) -> None:
    try:
        tok = sgpe.train(
            docs, vocab_size=5000, prune_freq=1, min_freq=1, oov_policy=oov, pieces=pieces
        )
    except CorpusError as err:  # a corpus without text: the one documented refusal
        assert "needs at least one document with text" in str(err)
        assert not "".join(docs).strip()
        return
    again = Tokenizer._from_dict(json.loads(json.dumps(tok.to_dict())))
    for text in [*docs, probe]:
        ids = tok.encode(text)
        assert again.encode(text) == ids
        if oov == "fallback":
            assert tok.decode(ids) == text


@fuzz_property(text=texts)
def prop_export_parity(text: str) -> None:
    assert hf_4k().encode(text, add_special_tokens=False).ids == sgpe_4k().encode(text)


# ---------------------------------------------------------------------------- mutations


def _mutate(data: bytes, rnd: random.Random) -> bytes:
    """Truncate, flip bytes, delete or insert a run, or splice in a hostile snippet."""
    b = bytearray(data)
    for _ in range(rnd.randint(1, 4)):
        kind = rnd.randrange(5)
        i = rnd.randrange(len(b) + 1)
        if kind == 0:
            del b[i:]
        elif kind == 1 and b:
            b[min(i, len(b) - 1)] = rnd.randrange(256)
        elif kind == 2:
            del b[i : i + rnd.randint(1, 64)]
        elif kind == 3:
            b[i:i] = bytes(rnd.randrange(256) for _ in range(rnd.randint(1, 16)))
        else:
            snippet = rnd.choice(
                [b'"', b"\n", b"\r\n", b"[" * 3000, b"\xff\xfe", b"\x00", b"{", b","]
            )
            b[i:i] = snippet
    return bytes(b)


def _corpus_bytes(fmt: str, lines: list[str]) -> bytes:
    if fmt == ".txt":
        return ("\n".join(lines) + "\n").encode()
    if fmt == ".txt.gz":
        return gzip.compress(("\n".join(lines) + "\n").encode(), mtime=0)
    if fmt == ".jsonl":
        return "".join(json.dumps({"text": x}, ensure_ascii=False) + "\n" for x in lines).encode()
    if fmt == ".csv":
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(["id", "text"])
        w.writerows([[k, x] for k, x in enumerate(lines)])
        return out.getvalue().encode()
    return encode_table({"text": lines}, {}, parquet=True)


@fuzz_property(
    fmt=st.sampled_from([".txt", ".txt.gz", ".jsonl", ".csv", ".parquet"]),
    seed=st.integers(0, 2**32 - 1),
)
def prop_corpus_readers_on_mutated_files(fmt: str, seed: int) -> None:
    rnd = random.Random(seed)
    lines = rnd.sample(SAMPLE_LINES, 5)
    data = _mutate(_corpus_bytes(fmt, lines), rnd)
    path = FILES / f"c{seed}{fmt}"
    path.write_bytes(data)
    try:
        for reader in (
            lambda: list(iter_documents(path)),
            lambda: list(read_corpus(path)[0]),
            lambda: validate_corpus(path, require_script=False),
        ):
            try:
                reader()
            except CorpusError as err:
                message = str(err)
                assert message.startswith(str(path)) and "\n" not in message.strip()
                assert "Traceback" not in message and "internal error" not in message
    finally:
        path.unlink()


@fuzz_property(
    which=st.sampled_from(["sgpe", "bytebpe", "checkpoint", "config", "table"]),
    seed=st.integers(0, 2**32 - 1),
)
def prop_our_files_on_mutated_bytes(which: str, seed: int) -> None:
    """A damaged file of ours is read or refused with ValueError/RunError naming it; a read
    that succeeds gives the data that was written (nothing silently changed)."""
    rnd = random.Random(seed)
    src = FILE_BYTES[which]
    data = _mutate(src, rnd)
    path = FILES / f"f{seed}.{'parquet' if which == 'table' else 'json'}"
    path.write_bytes(data)
    try:
        if which in ("sgpe", "bytebpe"):
            try:
                tok = sgpe.load(path)
            except ValueError as err:
                assert str(err).startswith(str(path)), err
            else:
                assert tok.decode(tok.encode("ශ්‍රී ලංකා")) == "ශ්‍රී ලංකා"
        elif which == "checkpoint":
            try:
                ckpt = Checkpoint.parse(data, "fp", path.name)
            except ValueError:
                pass
            else:  # the checksum guarantees the merges are the ones written
                assert ckpt.merges == CHECKPOINT.merges and ckpt.counts == CHECKPOINT.counts
        elif which == "config":
            (FILES / "config.json").write_bytes(data)
            try:
                from sgpe.runs import read_config

                read_config(FILES)
            except RunError as err:
                assert str(err).startswith(str(FILES)), err
        else:
            try:
                decode_table(path)
            except (ValueError, FileNotFoundError) as err:
                assert str(path) in str(err)
    finally:
        path.unlink()


# ============================================================================ files for the properties

FILES = Path()  # set by the fixture below (a temp directory per session)
CHECKPOINT = Checkpoint(2, 10, [("ල", "ං"), ("ලං", "කා")], [5, 3], "fp")
FILE_BYTES: dict[str, bytes] = {}


@pytest.fixture(scope="module", autouse=True)
def _files(tmp_path_factory: pytest.TempPathFactory) -> None:
    global FILES
    FILES = tmp_path_factory.mktemp("fuzz")
    FILE_BYTES.update(
        sgpe=(REPO_ROOT / "sample_data" / "vocab" / "sgpe_4k.json").read_bytes()[:60_000],
        bytebpe=(REPO_ROOT / "sample_data" / "vocab" / "bytebpe_4k.json").read_bytes(),
        checkpoint=CHECKPOINT.to_bytes(),
        config=json.dumps(RunConfig().to_dict()).encode(),
        table=encode_table({"piece": ["ලංකා", " ශ්‍රී"], "count": [3, 2]}, {"k": 1}, True),
    )
    # The shipped vocab is large: fuzz a small, complete SGPE vocabulary instead of a cut.
    small = sgpe.train(SAMPLE_LINES[:10], vocab_size=2000, prune_freq=1, min_freq=1)
    FILE_BYTES["sgpe"] = json.dumps(small.to_dict(), ensure_ascii=False).encode()


# ============================================================================ the tests

PROPERTIES: dict[str, list[Callable[..., None]]] = {
    "syllabify": [prop_syllabify_is_lossless],
    "codec": [prop_encode_decode_round_trip, prop_decode_any_ids_is_text_or_a_clear_error],
    "train": [prop_train_on_tiny_corpora],
    "export": [prop_export_parity],
    "readers": [prop_corpus_readers_on_mutated_files],
    "files": [prop_our_files_on_mutated_bytes],
}
_ALL = [(group, prop) for group, props in PROPERTIES.items() for prop in props]


def _run(prop: Callable[..., None], examples: int) -> None:
    settings(
        max_examples=examples,
        deadline=None,
        database=None if examples > 10_000 else settings.default.database,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )(given(**_STRATEGIES[prop])(prop))()


@pytest.mark.parametrize(("group", "prop"), _ALL, ids=[p.__name__[5:] for _, p in _ALL])
def test_fuzz(group: str, prop: Callable[..., None]) -> None:
    _run(prop, FAST[group] // len(PROPERTIES[group]) or 1)


@pytest.mark.slow
@pytest.mark.parametrize(("group", "prop"), _ALL, ids=[p.__name__[5:] for _, p in _ALL])
def test_fuzz_slow_mode(group: str, prop: Callable[..., None]) -> None:
    _run(prop, SLOW[group] // len(PROPERTIES[group]))


def test_the_alphabet_covers_every_schema_character() -> None:
    for script in ("sinhala", "devanagari"):
        assert load_schema(script).code_points <= set(REPERTOIRE)
    assert {"\u200c", "\u200d", " ", "\n"} <= set(REPERTOIRE)
    assert set(string.digits) <= set(REPERTOIRE)
    assert SPECIAL_TOKENS[1] == "[UNK]"  # the literal the export parity test makes text

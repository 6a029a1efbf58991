"""A lone surrogate (U+D800..U+DFFF alone in a str) has no UTF-8: both tokenizers, under both
engines, refuse it with one ValueError naming the code point and its position in the text
(its index too, in a batch), never a codec traceback from deep inside (sgpe/_surrogates.py)."""

from __future__ import annotations

import re

import pytest

import sgpe
from sgpe import _engine as engine
from sgpe._surrogates import LoneSurrogateError

ENGINES = ["python", pytest.param("native", marks=pytest.mark.native)]
NAMES = ["sgpe-4k", "sgpe-paper-4k", "bytebpe-4k"]
TEXT = "ශ්‍රී ලංකාව \udc80x"  # the surrogate at position 12, after a word the vocabulary knows
WHERE = "text has a lone surrogate U+DC80 at position 12 "


def _load(name: str, which: str):
    if which == "native" and engine.engine() != "native":
        pytest.skip("the native core is not built (sgpe runs its pure-Python engine)")
    with engine.engine_set_to(which):
        return sgpe.load(name)


@pytest.mark.parametrize("which", ENGINES)
@pytest.mark.parametrize("name", NAMES)
def test_encode_and_tokenize_name_the_surrogate_and_its_position(name: str, which: str) -> None:
    tok = _load(name, which)
    with engine.engine_set_to(which):
        for method in (tok.encode, tok.tokenize):
            with pytest.raises(ValueError) as caught:
                method(TEXT)
            assert isinstance(caught.value, LoneSurrogateError)
            message = str(caught.value)
            assert message.startswith(WHERE), message
            assert "text.encode('utf-8', 'replace')" in message
            assert caught.value.start == 12 and caught.value.index is None
        # The text without it encodes, and decodes back: nothing else changed.
        good = TEXT.replace("\udc80", "")
        assert tok.decode(tok.encode(good)) == good


@pytest.mark.parametrize("which", ENGINES)
@pytest.mark.parametrize("name", ["sgpe-4k", "sgpe-paper-4k"])
def test_batches_name_the_text_and_the_position(name: str, which: str) -> None:
    tok = _load(name, which)
    texts = ["ලංකාව", "x", "a\ud800b", "\udfff"]
    with engine.engine_set_to(which):
        for method in (tok.encode_batch, tok.encode_batch_flat):
            with pytest.raises(LoneSurrogateError) as caught:
                method(texts)
            assert str(caught.value).startswith(
                "text 2 of the batch has a lone surrogate U+D800 at position 1 "
            ), caught.value
        with pytest.raises(LoneSurrogateError, match="^" + re.escape(WHERE)):
            tok.encode_with_spans(TEXT)
        assert tok.encode_batch(texts[:2]) == [tok.encode(t) for t in texts[:2]]


@pytest.mark.parametrize("which", ENGINES)
def test_the_byte_level_baseline_names_the_position_in_the_whole_text(which: str) -> None:
    """encode_with_special encodes the text between special tokens part by part; the
    position is still the one in the text the caller gave."""
    tok = _load("bytebpe-4k", which)
    with engine.engine_set_to(which):
        with pytest.raises(LoneSurrogateError) as caught:
            tok.encode_with_special("ab<|endoftext|>c\ud834")
        assert caught.value.start == 16, caught.value


def test_every_surrogate_is_named_and_good_text_pays_nothing() -> None:
    from sgpe._surrogates import batch_lone_surrogate_error, lone_surrogate_error

    cause = UnicodeEncodeError("utf-8", "?", 0, 1, "another reason")
    for code in (0xD800, 0xDBFF, 0xDC00, 0xDFFF):
        err = lone_surrogate_error("ab" + chr(code), cause)
        assert str(err).startswith(f"text has a lone surrogate U+{code:04X} at position 2 ")
    # Where the text has none, the encoder's own error stands.
    assert lone_surrogate_error("fine", cause) is cause
    assert batch_lone_surrogate_error(["a", "b"], cause) is cause
    # A surrogate pair written as two code points is two lone surrogates to UTF-8.
    assert lone_surrogate_error("\ud83d\ude00", cause).start == 0

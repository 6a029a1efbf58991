"""The one error for text that UTF-8 cannot hold: a lone surrogate.

A Python ``str`` may hold a half of a UTF-16 surrogate pair (U+D800..U+DFFF) on its own,
for example after ``bytes.decode("utf-16", "surrogatepass")`` or ``os.fsdecode`` of a
name that is not UTF-8. It has no UTF-8 bytes, so no byte token can spell it and the
native core cannot take it. Both tokenizers' ``encode`` (and what calls it) raise
:class:`LoneSurrogateError`, naming the code point and where it is, under either engine.

The check costs nothing on good text: the encoders already meet each character as UTF-8
(the native core takes its input as UTF-8, the Python reference spells unknown characters
with their bytes), so the decorators below only catch the ``UnicodeEncodeError`` that
raises, and then look for the surrogate's position in the whole text.

>>> lone_surrogate_error("ab\\ud800c", UnicodeEncodeError("utf-8", "\\ud800", 0, 1, "no"))
LoneSurrogateError('text has a lone surrogate U+D800 at position 2 ...')
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Concatenate, ParamSpec, TypeVar

S = TypeVar("S")
T = TypeVar("T", str, Sequence[str])
R = TypeVar("R")
P = ParamSpec("P")

_HOW_TO_FIX = (
    "half of a UTF-16 pair, which UTF-8 cannot hold; remove it, or replace it before "
    "encoding, e.g. text.encode('utf-8', 'replace').decode('utf-8')"
)


class LoneSurrogateError(UnicodeEncodeError):
    """A text holds a lone surrogate. A ``UnicodeEncodeError``, so a ``ValueError``:
    ``start`` is its position in the text, ``index`` the text's place in a batch (or
    None)."""

    def __init__(self, text: str, start: int, index: int | None = None) -> None:
        super().__init__("utf-8", text, start, start + 1, "surrogates not allowed")
        self.index = index

    def __str__(self) -> str:
        where = "text" if self.index is None else f"text {self.index} of the batch"
        return (
            f"{where} has a lone surrogate U+{ord(self.object[self.start]):04X} at position "
            f"{self.start} ({_HOW_TO_FIX})"
        )

    def __repr__(self) -> str:
        return f"LoneSurrogateError({str(self).split(' (', 1)[0] + ' ...'!r})"


def _first_surrogate(text: str) -> int | None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        return err.start
    return None


def lone_surrogate_error(text: str, cause: UnicodeEncodeError) -> UnicodeEncodeError:
    """The :class:`LoneSurrogateError` of `text`'s first lone surrogate, or `cause` (what an
    encoder raised) if `text` has none."""
    start = _first_surrogate(text)
    return cause if start is None else LoneSurrogateError(text, start)


def batch_lone_surrogate_error(
    texts: Sequence[str], cause: UnicodeEncodeError
) -> UnicodeEncodeError:
    """The :class:`LoneSurrogateError` of the first text of a batch that holds a lone
    surrogate (with its index), or `cause` if none does."""
    for index, text in enumerate(texts):
        start = _first_surrogate(text)
        if start is not None:
            return LoneSurrogateError(text, start, index)
    return cause


def names_lone_surrogate(
    method: Callable[Concatenate[S, T, P], R],
) -> Callable[Concatenate[S, T, P], R]:
    """An encoding method whose first argument is a text (or a batch of texts) raises
    :class:`LoneSurrogateError` for a lone surrogate in it, under either engine."""

    @functools.wraps(method)
    def encode(self: S, text: T, /, *args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return method(self, text, *args, **kwargs)
        except UnicodeEncodeError as err:
            if isinstance(text, str):
                raise lone_surrogate_error(text, err) from None
            raise batch_lone_surrogate_error(text, err) from None

    return encode

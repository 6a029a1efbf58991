"""A long shared text kept on the server, so that a reload brings it back.

Why. A text longer than :data:`sgpe_explorer.ui.state.TEXT_URL_LIMIT` cannot go into the
page's link, and Streamlit's session state dies with the websocket when the visitor
reloads (F5, or the page's own link): a pasted 76,926 characters came back as the
111-character default sample, without a word.

How. The session draws a random token (:func:`new_token`) that goes into the link as
``?textid=`` while the text is too long for ``?text=``; the text is kept here under the
visitor's owner id (:func:`sgpe_explorer.ui.owner.owner_id`, from the long-lived cookie)
and that token. A reload keeps both the link and the cookie, so it finds the text; the
same link opened in another browser (another owner) finds nothing, so one visitor's text
is never shown to another. Several tabs of one browser each keep their own text.

Bounds. In memory only (a restart of the server forgets every text), at most
:data:`MAX_TEXT_CHARS` per text and :data:`MAX_TOTAL_CHARS` in all, :data:`PER_OWNER`
texts per owner, each for :data:`TTL_S` since its last use; the least recently used go
first.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict

MAX_TEXT_CHARS = 4_000_000  # a longer text is not kept (the page says so)
MAX_TOTAL_CHARS = 16_000_000  # all texts together (about 32-64 MB of Python strings)
PER_OWNER = 4  # tabs of one browser with a long text each
TTL_S = 12 * 3600.0

_LOCK = threading.Lock()
#: (owner id, token) -> (last use, text), least recently used first.
_TEXTS: OrderedDict[tuple[str, str], tuple[float, str]] = OrderedDict()


def new_token() -> str:
    """A token for one session's text: random, so a link cannot be guessed from another."""
    return secrets.token_hex(12)


def _expire(now: float) -> None:
    for key in [k for k, (used, _) in _TEXTS.items() if now - used > TTL_S]:
        del _TEXTS[key]


def put(owner: str, token: str, text: str) -> bool:
    """Keep ``text`` for ``owner``'s session ``token``; False if it is too long to keep."""
    key = (owner, token)
    with _LOCK:
        now = time.monotonic()
        _expire(now)
        if len(text) > MAX_TEXT_CHARS:
            _TEXTS.pop(key, None)
            return False
        _TEXTS[key] = (now, text)
        _TEXTS.move_to_end(key)
        mine = [k for k in _TEXTS if k[0] == owner]
        for old in mine[: max(0, len(mine) - PER_OWNER)]:
            del _TEXTS[old]
        total = sum(len(t) for _, t in _TEXTS.values())
        while total > MAX_TOTAL_CHARS and _TEXTS:
            _, (_, dropped) = _TEXTS.popitem(last=False)
            total -= len(dropped)
        return key in _TEXTS


def get(owner: str, token: str) -> str | None:
    """The text ``owner`` kept under ``token``, or None (another owner's, expired, dropped)."""
    key = (owner, token)
    with _LOCK:
        now = time.monotonic()
        _expire(now)
        held = _TEXTS.get(key)
        if held is None:
            return None
        _TEXTS[key] = (now, held[1])
        _TEXTS.move_to_end(key)
        return held[1]


def drop(owner: str, token: str) -> None:
    """Forget ``owner``'s text under ``token`` (it became short enough for the link)."""
    with _LOCK:
        _TEXTS.pop((owner, token), None)


def held_chars() -> int:
    """How many characters are kept in all (for tests and the memory bench)."""
    with _LOCK:
        return sum(len(t) for _, t in _TEXTS.values())

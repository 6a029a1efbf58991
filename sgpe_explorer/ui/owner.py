"""Who owns a training run: a random owner key kept in a long-lived cookie.

Why not Streamlit's own cookie. The app used to hash ``_streamlit_xsrf``; that cookie
changes on every reload, so after one the visitor's runs belonged to "another session"
and could not be deleted.

How it works. The first session of a browser draws a random key
(:func:`secrets.token_hex`, 128 bits) and the page writes it into the cookie
:data:`COOKIE` with a lifetime of :data:`MAX_AGE_S` (``SameSite=Strict``, ``Secure`` on
https, ``Path=/``), with a few lines of JavaScript in an ``st.html`` element (Streamlit
has no API to set a cookie; ``st.html`` runs scripts in the page itself when
``unsafe_allow_javascript=True``, and the script only writes this one cookie). The
browser sends the cookie with the websocket request of every later session, which
Streamlit exposes as ``st.context.cookies``: a reload, a new tab or a browser restart
finds the same key. The script writes the cookie only when it is absent or already
holds this key (refreshing its lifetime), so a second tab opened before the first one
wrote it cannot replace the key of the first.

What is recorded. A run records :func:`owner_id`, a SHA-256 digest of the key, never
the key itself: the key is in the visitor's cookie and in the page's script only, never
in a URL, a log line or a run directory. Knowing a run's digest does not let anyone act
as its owner, since the app hashes whatever key a browser presents.

Where it is enforced. :class:`sgpe_explorer.runs.manager.RunManager` refuses cancel, resume and
delete of a run whose recorded owner differs from the caller's ``as_owner``, and of a run
without an owner (one made on the server, e.g. with ``sgpe train``); the Train page passes
:func:`owner_id` (or ``None`` for an administrator, :func:`is_admin`). Clearing the
browser's cookies gives a new key: the old runs then belong to nobody who can manage them
but an administrator.

Who is an administrator. Every session when the server runs with ``SGPE_ADMIN=1`` (a
single-user install); on a shared server, the sessions whose owner id is listed in
``SGPE_ADMIN_OWNERS`` (comma-separated): the operator's own browser. The owner id is what
the runs of that browser record in their ``owner.json`` (the Train page also shows it), so
the operator names their browser without the key itself leaving it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets

import streamlit as st

COOKIE = "sgpe_owner"
MAX_AGE_S = 400 * 24 * 3600  # the longest lifetime browsers accept (Chrome caps at 400 days)
KEY_RE = re.compile(r"[0-9a-f]{32}")
#: Set to 1 to let every session manage every run (a self-hosted single-user install,
#: or a shared deployment's administrator).
ADMIN_ENV = "SGPE_ADMIN"
#: Owner ids (:func:`owner_id`, comma-separated) whose sessions are administrators: the
#: operator's own browser on a shared server.
ADMIN_OWNERS_ENV = "SGPE_ADMIN_OWNERS"
_SESSION_KEY = "owner_key"


def _cookie_key() -> str | None:
    try:
        raw = st.context.cookies.get(COOKIE)
    except Exception:  # no server context (AppTest, bare mode): no cookies
        return None
    return raw if isinstance(raw, str) and KEY_RE.fullmatch(raw) else None


def owner_key() -> str:
    """This browser's owner key: the cookie's, else one drawn for this session (and
    written to the cookie by :func:`write_cookie`)."""
    key = st.session_state.get(_SESSION_KEY)
    if not (isinstance(key, str) and KEY_RE.fullmatch(key)):
        key = _cookie_key() or secrets.token_hex(16)
        st.session_state[_SESSION_KEY] = key
    return key


def digest(key: str) -> str:
    """What a run records for the owner key ``key`` (never the key itself)."""
    return hashlib.sha256(f"sgpe-owner:{key}".encode()).hexdigest()[:32]


def owner_id() -> str:
    """What a run records as its owner: a digest of :func:`owner_key`."""
    return digest(owner_key())


def is_admin() -> bool:
    """Whether this session manages every run (see the module docstring)."""
    if os.environ.get(ADMIN_ENV, "").strip() == "1":
        return True
    listed = {o.strip() for o in os.environ.get(ADMIN_OWNERS_ENV, "").split(",") if o.strip()}
    if not listed:
        return False
    try:
        return owner_id() in listed
    except Exception:  # no script run (a thread without Streamlit's context): no session
        return False


def shown(message: str) -> str:
    """A message as this visitor may see it: an administrator gets it whole (the server's
    paths help them act), every other visitor gets file names instead of paths."""
    from .render import names_only

    return message if is_admin() else names_only(message)


def shown_path(path: object) -> str:
    """A server path for an administrator; its name for every other visitor."""
    from pathlib import Path

    return str(path) if is_admin() else Path(str(path)).name


def cookie_script(key: str) -> str:
    """The ``<script>`` that stores ``key`` in the browser (see the module docstring)."""
    if not KEY_RE.fullmatch(key):
        raise ValueError("an owner key is 32 hexadecimal digits")
    return (
        "<script>(function(){"
        f"var name={json.dumps(COOKIE)},key={json.dumps(key)};"
        "var m=document.cookie.match(new RegExp('(?:^|; )'+name+'=([0-9a-f]{32})'));"
        "if(m&&m[1]!==key){return;}"
        f"document.cookie=name+'='+key+'; Max-Age={MAX_AGE_S}; Path=/; SameSite=Strict'"
        "+(location.protocol==='https:'?'; Secure':'');"
        "})();</script>"
    )


def write_cookie() -> None:
    """Put the cookie script on the page (app.py, once per run, in a hidden container),
    with the page's other small scripts, :data:`PHONE_NAV_SCRIPT` and the warm-up of
    chart code (sgpe_explorer/ui/warm.py)."""
    from .warm import chunk_script

    with st.container(key="owner_cookie"):
        st.html(
            cookie_script(owner_key()) + PHONE_NAV_SCRIPT + chunk_script(),
            unsafe_allow_javascript=True,
        )


#: On a narrow screen, close the sidebar once a page is chosen in it. Streamlit leaves it
#: open, covering 300 of a phone's 390 px. The listener is added once
#: per browser tab (the page is not reloaded between reruns) and only presses Streamlit's
#: own collapse button; 768 px is where Streamlit itself starts the sidebar closed.
PHONE_NAV_SCRIPT = (
    "<script>(function(){"
    "if(window.__sgpeNavClose){return;}window.__sgpeNavClose=true;"
    "document.addEventListener('click',function(e){"
    "var link=e.target&&e.target.closest&&e.target.closest('[data-testid=stSidebarNavLink]');"
    "if(!link||window.innerWidth>=768){return;}"
    "setTimeout(function(){"
    "var b=document.querySelector('[data-testid=stSidebarCollapseButton] button');"
    "if(b){b.click();}},0);"
    "},true);"
    "})();</script>"
)

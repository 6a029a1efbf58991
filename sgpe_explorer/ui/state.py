"""Shareable state: the text and each page's main options live in the URL.

Widgets keep their own session-state keys (``<page>_<name>``); this module gives each
widget its first value -- from the URL when the session starts on a link, else from the
value the option had last (``st.session_state["opts"]``, shared by all pages), else a
default -- and writes the current values back to ``st.query_params`` after the page ran.

The text is one for all pages (edit it on Syllables, see it on Compare): the visitor's
last edit, on any page, is the text of every page. Merges shows only the first
characters of a long text; an edit there too replaces the whole text, and the pages then
offer to bring the longer one back (:func:`text_area`). It goes into the URL up to
:data:`TEXT_URL_LIMIT` characters; a longer text is kept on the server for a reload, its
link holding only a random ``?textid=`` (:mod:`sgpe_explorer.ui.kept_text`).

Leaving a page and coming back. Streamlit deletes the session-state value of every
widget that a script run did not draw, so a page's widgets would start from their
defaults each time it is opened again. Each page registers its widgets' keys with
:func:`keep` (:func:`init_widget` does it for the options that also go into the URL), and
``app.py`` calls :func:`carry_over` at the start of every run: it writes each kept value
back to session state, which Streamlit then keeps as an ordinary value until the widget
is drawn again (the pattern of Streamlit's docs, "multipage apps: widgets"). The values
kept are the widgets' own values, never their URL spelling: a multiselect's list is kept
as a list (Compare's choice came back as the string "sgpe,base" and crashed the
page with 9 one-letter options). A kept value the widget can no longer show (a deleted
run, a smaller range) is dropped or clamped by :func:`init_widget` (``allowed``) or by the
page before the widget is drawn. Buttons and file uploaders are never kept: Streamlit
refuses values set for them, and an upload's bytes are the browser's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

TEXT_URL_LIMIT = 4000  # characters of text put into ?text= (a link stays a few KB)
TEXT_ID = "textid"  # the link's token of a longer text kept on the server
_TOKEN = "text_token"  # session state: this session's TEXT_ID
_LOST = "text_lost"  # session state: a link's TEXT_ID named no text kept for this visitor
_UNDO = "text_undo"  # session state: (the text before, the excerpt's edit that replaced it)
GLOBAL_PARAMS = ("tok", "base", "script")  # besides "text": the sidebar's choices

# "ශ්‍රී ලංකාව ..." (Sinhala, with its ZWJ written out) and a Hindi line, all in the shipped
# vocabulary, so SGPE shows no broken syllable where byte-level BPE shows several.
DEFAULT_TEXT = (
    "ශ්\u200dරී ලංකාව ලස්සන රටකි. අද උදේ පාසලට යන විට මහ වැස්සක් ඇද හැලුණා.\n"
    "नमस्ते दुनिया, भारत एक विशाल देश है। क्षत्रिय"
)


KEPT = "kept_widgets"  # session-state key: the widget keys carry_over writes back


def keep(key: str) -> str:
    """Register widget ``key`` to keep its value while its page is not shown; returns it."""
    kept: set[str] = st.session_state.setdefault(KEPT, set())
    kept.add(key)
    return key


def start_value(key: str, value: Any) -> str:
    """Give widget ``key`` its first value through session state and return the key.

    A kept widget gets its value from session state (:func:`carry_over`); a widget that
    also passes ``value=``/``index=`` makes Streamlit log a warning with a stack trace
    on every such run, so kept widgets take their default here instead."""
    keep(key)
    if key not in st.session_state:
        st.session_state[key] = value
    return key


def carry_over() -> None:
    """Write every kept widget value back to session state (app.py, before any widget).

    Assigning a widget's own value turns it into a value Streamlit does not clean up at
    the end of a run in which the widget is not drawn (see the module docstring)."""
    for key in list(st.session_state.get(KEPT, ())):
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]


def _allowed(value: Any, allowed: Any) -> Any:
    """``value`` if a widget with the choices ``allowed`` can show it, else None; a list
    keeps only its allowed items (None when it had some and none is left; an empty list
    is the user's own choice and stays)."""
    if allowed is None:
        return value
    if isinstance(value, list):
        kept = [v for v in value if v in allowed]
        return kept if kept or not value else None
    return value if value in allowed else None


def _opts() -> dict[str, Any]:
    opts: dict[str, Any] = st.session_state.setdefault("opts", {})
    return opts


def parse_bool(raw: str) -> bool:
    return raw.lower() in ("1", "true", "yes", "on")


def fmt_bool(value: Any) -> str:
    return "1" if value else "0"


def init_widget(
    key: str,
    param: str,
    default: Any,
    parse: Callable[[str], Any] = str,
    allowed: Any = None,
) -> str:
    """Give widget ``key`` its first value before it is created; return ``key``.

    Order: the widget's kept value (see :func:`keep`), the URL's ``?param=`` (first
    render in this session only), then the option's last value on any page, then
    ``default``. ``allowed`` (a collection) rejects values the widget cannot show; a
    list value keeps its allowed items. ``parse`` turns the URL's text into the widget's
    value; the options hold widget values (:func:`remember`), never URL text.
    """
    keep(key)
    if key in st.session_state:
        kept = _allowed(st.session_state[key], allowed)
        if kept is not None:
            if kept != st.session_state[key]:
                st.session_state[key] = kept
            return key
        del st.session_state[key]
    opts = _opts()
    value: Any = _allowed(opts.get(param, default), allowed)
    if value is None:
        value = default
    seen: set[str] = st.session_state.setdefault("url_seen", set())
    raw = st.query_params.get(param)
    if raw is not None and param not in seen:
        try:
            parsed = parse(raw)
        except (TypeError, ValueError):
            parsed = None
        if parsed is not None:
            parsed = _allowed(parsed, allowed)  # a list keeps its allowed items
        if parsed is not None:
            value = parsed
    seen.add(param)
    st.session_state[key] = value
    return key


def option(param: str, default: Any = None) -> Any:
    """An option's current value (e.g. the sidebar's ``script``), or ``default``."""
    return _opts().get(param, default)


def remember(param: str, value: Any) -> None:
    """Record an option's current value: the widget's value itself (a list stays a list),
    shared by all pages; each page writes its URL spelling with :func:`sync_url`."""
    _opts()[param] = value


def shared_text() -> str:
    """The text all pages share (the URL's ``?text=`` at the start of a session)."""
    opts = _opts()
    if "text" not in opts:
        raw = st.query_params.get("text")
        if raw is None:
            raw = _kept_text()
        opts["text"] = raw if raw is not None else DEFAULT_TEXT
        st.session_state.setdefault("url_seen", set()).update(("text", TEXT_ID))
    return str(opts["text"])


def _kept_text() -> str | None:
    """The long text the link's ``?textid=`` names, if this visitor kept it (a reload)."""
    token = st.query_params.get(TEXT_ID)
    if not token:
        return None
    from . import kept_text, owner

    text = kept_text.get(owner.owner_id(), token)
    if text is None:  # another browser's link, or forgotten: said by text_area
        st.session_state[_LOST] = True
        return None
    st.session_state[_TOKEN] = token  # this session keeps the text under it from now on
    return text


def _keep_long_text(text: str) -> str | None:
    """Keep a text too long for the link on the server; its token for the link, or None
    when it is too long to keep (see :mod:`sgpe_explorer.ui.kept_text`)."""
    from . import kept_text, owner

    token = st.session_state.get(_TOKEN)
    if len(text) <= TEXT_URL_LIMIT:
        if token:
            kept_text.drop(owner.owner_id(), str(token))
        return None
    if not token:
        token = st.session_state[_TOKEN] = kept_text.new_token()
    return str(token) if kept_text.put(owner.owner_id(), str(token), text) else None


def set_shared_text(text: str) -> None:
    """Make ``text`` the text of every page (e.g. loaded from a share file)."""
    _opts()["text"] = text
    st.session_state.pop(_UNDO, None)
    for key in [k for k in st.session_state if str(k).endswith("_text_shared")]:
        del st.session_state[key]
    for page in TEXT_PAGES:
        st.session_state.pop(f"{page}_text", None)


#: The pages whose text area shows the shared text (their widget key prefixes).
TEXT_PAGES = ("syl", "cmp", "mrg")


def share_file_name(text: str) -> str:
    return f"sgpe-text-{len(text)}-chars.txt"


def _load_share_file(page: str) -> None:
    upload = st.session_state.get(f"{page}_share_in")
    if upload is None:
        return
    data = upload.getvalue()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        st.session_state[f"{page}_share_error"] = (
            f"{upload.name}: not UTF-8 text ({err.reason} at byte {err.start}); "
            "a share file is the .txt this app offers for a long text"
        )
        return
    if not text.strip():  # it would have wiped the text of every page
        what = "is empty" if not text else "holds only spaces and line breaks"
        st.session_state[f"{page}_share_error"] = (
            f"{upload.name}: the file {what}, so the text was left as it was; a share file "
            "is the .txt this app offers for a long text"
        )
        return
    st.session_state.pop(f"{page}_share_error", None)
    set_shared_text(text)


def text_area(
    page: str, label: str = "Text", height: int = 150, max_chars: int | None = None
) -> str:
    """The page's text area, bound to the text all pages share.

    The widget keeps its own value while the user edits it here; when another page changed
    the shared text since this area last showed it, the area takes the new text. A text
    longer than :data:`TEXT_URL_LIMIT` cannot go into the link: the page says so and
    offers it as a share file (plain UTF-8 text), which "Open a share file" loads back.

    With ``max_chars``, a longer shared text is shown as its first ``max_chars``
    characters. An edit there is the visitor's last edit, so it becomes the text of every
    page (it was the page's own copy, lost on leaving the page and never seen elsewhere);
    since one Backspace in the excerpt would drop a long text, the text pages then offer
    to bring the longer text back until the text changes again.
    """
    key = f"{page}_text"
    mark = f"{page}_text_shared"  # the shared text (its excerpt) the area last took
    full = shared_text()
    shared = full if max_chars is None else full[:max_chars]
    excerpt = len(shared) < len(full)
    if key not in st.session_state or st.session_state.get(mark) != shared:
        st.session_state[key] = shared
        st.session_state[mark] = shared
    value = st.text_area(
        label,
        key=key,
        height=height,
        max_chars=max_chars,
        help="Paste any text (Sinhala, Devanagari, mixed). Shared by the Syllables, Compare, "
        "Merges and Vocabulary pages and put into the page's link when it is at most "
        f"{TEXT_URL_LIMIT:,} characters.",
    )
    value = value or ""
    if not excerpt or value != shared:  # the whole text, or an edit of the excerpt
        if excerpt:
            st.session_state[_UNDO] = (full, value)
        remember("text", value)
        st.session_state[mark] = value
    full = str(_opts().get("text", value))
    _offer_undo(page, full)
    if st.session_state.pop(_LOST, False):
        st.info(
            "This link named a long text that this server does not keep for you: it is "
            "kept only for the browser that made the link, and not over a restart of the "
            "server. The default sample is shown; open the text's share file with “Open a "
            "share file”.",
            icon=":material/link_off:",
        )
    if len(full) > TEXT_URL_LIMIT:
        from .kept_text import MAX_TEXT_CHARS

        kept = (
            "the page keeps it for this browser, so a reload brings it back"
            if len(full) <= MAX_TEXT_CHARS
            else f"it is also too long to keep over a reload (at most {MAX_TEXT_CHARS:,})"
        )
        c1, c2 = st.columns([3, 1], vertical_alignment="center")
        c1.warning(
            f"This text has {len(full):,} characters, more than the {TEXT_URL_LIMIT:,} a "
            f"link can carry, so the page's link does not hold it ({kept}). To share it, "
            "download the share file and send it with the link; open it with “Open a share "
            "file”.",
            icon=":material/link_off:",
        )
        c2.download_button(
            "Download share file",
            full.encode("utf-8"),
            file_name=share_file_name(full),
            mime="text/plain",
            key=f"{page}_share_out",
            width="stretch",
        )
    with st.expander("Open a share file"):
        st.file_uploader(
            "A text file shared from this app (UTF-8 .txt)",
            type=["txt"],
            key=f"{page}_share_in",
            on_change=_load_share_file,
            args=(page,),
        )
        problem = st.session_state.get(f"{page}_share_error")
        if problem:
            from .render import md_escape

            st.error(md_escape(problem))
    return value


def _bring_back(before: str) -> None:
    set_shared_text(before)


def _offer_undo(page: str, full: str) -> None:
    """After an edit of Merges' excerpt replaced a longer text: say so, and offer it back."""
    undo = st.session_state.get(_UNDO)
    if not undo:
        return
    before, edit = undo
    if full != edit:  # the text changed since: the offer is over
        st.session_state.pop(_UNDO, None)
        return
    c1, c2 = st.columns([3, 1], vertical_alignment="center")
    c1.info(
        f"Your edit of the excerpt replaced the shared text of {len(before):,} characters: "
        f"every page now has the edited text ({len(edit):,} characters).",
        icon=":material/edit_note:",
    )
    c2.button(
        f"Bring back the {len(before):,} characters",
        key=f"{page}_text_undo",
        on_click=_bring_back,
        args=(before,),
        width="stretch",
    )


def sync_url(page_params: dict[str, str | None]) -> None:
    """Make the URL hold the global options and this page's options (and nothing else).

    ``None`` or an empty value leaves a parameter out.
    """
    opts = _opts()
    desired: dict[str, str] = {}
    text = str(opts.get("text", ""))
    if text and text != DEFAULT_TEXT and len(text) <= TEXT_URL_LIMIT:
        desired["text"] = text
    token = _keep_long_text(text) if text else None
    if token:
        desired[TEXT_ID] = token
    for name in GLOBAL_PARAMS:
        value = opts.get(name)
        if value and value not in ("default", "auto"):
            desired[name] = str(value)
    for name, value in page_params.items():
        if value is not None and value != "":
            desired[name] = value
    current = st.query_params.to_dict()
    if current != desired:
        st.query_params.from_dict(desired)

"""The Train page's settings form, generated from :class:`sgpe.settings.TrainSettings`.

Each field with an app ``label`` gets one widget (radio buttons for a fixed set of values,
a toggle for a switch, a number box otherwise) whose default, help text and limits come
from the field, so a new setting appears here without an edit. Widget keys are
``train_<field>``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import streamlit as st

from sgpe.settings import (
    TrainSettings,
    choices,
    default,
    default_min_freq,
    default_text,
    info,
)

#: The fields the form shows, in the dataclass's order.
FORM_FIELDS = tuple(f for f in dataclasses.fields(TrainSettings) if info(f).label)


def key(name: str) -> str:
    """The widget key of a setting."""
    return f"train_{name}"


def widget(where: Any, f: dataclasses.Field[Any], **limits: Any) -> Any:
    """One setting's widget in ``where`` (a column or container); returns its value.

    ``limits`` are passed to a number box (e.g. ``max_value`` from the corpus)."""
    meta = info(f)
    initial = default(f.name)
    help_ = meta.help[0].upper() + meta.help[1:] + "."
    if meta.choices:
        values = list(choices(f.name))
        return where.radio(
            meta.label,
            values,
            index=values.index(initial),
            horizontal=True,
            key=key(f.name),
            help=help_,
        )
    if isinstance(initial, bool):
        return where.toggle(meta.label, value=initial, key=key(f.name), help=help_)
    if f.name == "min_freq":  # None: decided by the mode
        return where.number_input(
            meta.label,
            min_value=meta.minimum,
            value=None,
            step=1,
            placeholder=f"default: {default_text('min_freq')}",
            key=key(f.name),
            help=help_ + " Empty: the mode's default.",
        )
    if initial is None:  # an optional size (superwords_from): an empty box is off
        return where.number_input(
            meta.label,
            min_value=meta.minimum or 1,
            value=None,
            step=1,
            placeholder="off",
            key=key(f.name),
            help=help_ + " Empty: off.",
            **limits,
        )
    options: dict[str, Any] = {"min_value": meta.minimum or 1, "value": initial, "step": 1}
    options.update(limits)
    return where.number_input(meta.label, key=key(f.name), help=help_, **options)


def form_values(
    columns: int = 3, limits: dict[str, dict[str, Any]] | None = None
) -> dict[str, Any]:
    """Draw the form's widgets in rows of ``columns``; the chosen values by field name."""
    values: dict[str, Any] = {}
    limits = limits or {}
    for start in range(0, len(FORM_FIELDS), columns):
        row = st.columns(columns)
        for where, f in zip(row, FORM_FIELDS[start : start + columns]):
            values[f.name] = widget(where, f, **limits.get(f.name, {}))
    return values


def min_freq_shown(values: dict[str, Any]) -> int:
    """The ``min_freq`` a run of these form values uses (the box may be empty)."""
    chosen = values.get("min_freq")
    if chosen is None:
        return default_min_freq(str(values.get("mode", default("mode"))))
    return int(chosen)


# ============================================================================ the corpus


@st.cache_data(show_spinner="Reading the corpus…", max_entries=16)
def _range(identity: tuple[Any, ...], _corpus: Any, name: str, settings: dict[str, Any]) -> Any:
    """The :class:`~sgpe.runs.manager.SizeRange` of a corpus, or the corpus's problem as a
    string; cached by ``identity`` (a path and its mtime, or an upload's file id)."""
    import tempfile
    from pathlib import Path

    from sgpe.corpus import CorpusError, corpus_format
    from sgpe.runs.manager import size_range, validate_corpus

    try:
        if isinstance(_corpus, (str, Path)):
            path = Path(_corpus)
            return size_range(path, TrainSettings(**settings))
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / ("corpus" + corpus_format(name))
            path.write_bytes(_corpus.getvalue())
            validate_corpus(path, name=name, max_bytes=None)
            return size_range(path, TrainSettings(**settings))
    except (CorpusError, ValueError) as err:
        return str(err).replace(str(path), name) if "path" in locals() else str(err)


def corpus_range(corpus: Any, name: str, settings: TrainSettings) -> Any:
    """What :func:`_range` says for this corpus and settings (their ``vocab_size`` aside)."""
    from pathlib import Path

    if isinstance(corpus, (str, Path)):
        identity: tuple[Any, ...] = (str(corpus), Path(corpus).stat().st_mtime)
    else:
        identity = ("upload", getattr(corpus, "file_id", id(corpus)), name)
    data = settings.to_dict()
    data["vocab_size"] = default("vocab_size")
    return _range(identity, corpus, name, data)


# ============================================================================ ownership

#: Set to 1 to let every session delete every run (a shared deployment's administrator).
ADMIN_ENV = "SGPE_ADMIN"


def owner_id() -> str:
    """Who this browser session is, for the runs it starts: the hash of Streamlit's XSRF
    cookie (the same in every tab of one browser, and across reloads), else a token kept
    for this session."""
    import hashlib
    import secrets

    cookie = ""
    try:
        cookie = str(st.context.cookies.get("_streamlit_xsrf") or "")
    except Exception:  # no server context (tests, bare mode): fall back to the session
        cookie = ""
    if cookie:  # set once per browser; its value stays while the browser keeps it
        return hashlib.sha256(cookie.encode()).hexdigest()[:16]
    if "train_owner" not in st.session_state:
        st.session_state["train_owner"] = secrets.token_hex(8)
    return str(st.session_state["train_owner"])


def is_admin() -> bool:
    import os

    return os.environ.get(ADMIN_ENV, "").strip() == "1"

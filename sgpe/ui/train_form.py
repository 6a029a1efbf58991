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
    info,
)

#: The fields the form shows, in the dataclass's order.
FORM_FIELDS = tuple(f for f in dataclasses.fields(TrainSettings) if info(f).label)


def key(name: str, initial: Any = None) -> str:
    """The widget key of a setting, with its first value (kept while the page is not
    shown, see sgpe.ui.state)."""
    from . import state

    return state.start_value(f"train_{name}", initial)


def widget(where: Any, f: dataclasses.Field[Any], mode: str, **limits: Any) -> Any:
    """One setting's widget in ``where`` (a column or container); returns its value.

    Number boxes have no ``min_value``: with one, the browser marks a value below it red
    and never sends it, so the page went on with the previous value and Start trained at
    it without a word. The values go to :class:`TrainSettings`, whose
    check becomes the page's message (:func:`problem`). ``limits`` are passed to a number
    box (e.g. ``max_value`` from the corpus). ``mode`` is the training mode chosen above
    (the empty minimum pair frequency means its default)."""
    meta = info(f)
    initial = default(f.name)
    help_ = meta.help[0].upper() + meta.help[1:] + "."
    if meta.choices:
        values = list(choices(f.name))
        return where.radio(
            meta.label, values, horizontal=True, key=key(f.name, initial), help=help_
        )
    if isinstance(initial, bool):
        return where.toggle(meta.label, key=key(f.name, initial), help=help_)
    if f.name == "min_freq":  # None: decided by the mode
        return where.number_input(
            meta.label,
            step=1,
            # Short: the box is a third of the form wide, and the longer "empty: 1, the
            # hierarchical mode's default" was cut off; the help says the rest.
            placeholder=f"{mode} default: {default_min_freq(mode)}",
            key=key(f.name),
            help=help_
            + " Empty: the training mode's default ("
            + ", ".join(f"{default_min_freq(m)} for {m}" for m in choices("mode"))
            + ").",
        )
    if initial is None:  # an optional size (superwords_from): an empty box is off
        return where.number_input(
            meta.label,
            step=1,
            placeholder="off",
            key=key(f.name),
            help=help_ + " Empty: off.",
            **limits,
        )
    options: dict[str, Any] = {"step": 1}
    options.update(limits)
    return where.number_input(meta.label, key=key(f.name, initial), help=help_, **options)


def problem(err: ValueError) -> str:
    """A settings error for the form: the field's label instead of its name."""
    text = str(err)
    for f in FORM_FIELDS:
        if text.startswith(f.name + " "):
            return info(f).label + text[len(f.name) :] + "."
    return text


def form_values(
    columns: int = 3, limits: dict[str, dict[str, Any]] | None = None
) -> dict[str, Any]:
    """Draw the form's widgets in rows of ``columns``; the chosen values by field name."""
    values: dict[str, Any] = {}
    limits = limits or {}
    for start in range(0, len(FORM_FIELDS), columns):
        row = st.columns(columns)
        for where, f in zip(row, FORM_FIELDS[start : start + columns]):
            mode = str(values.get("mode", default("mode")))
            values[f.name] = widget(where, f, mode, **limits.get(f.name, {}))
    return values


def min_freq_shown(values: dict[str, Any]) -> int:
    """The ``min_freq`` a run of these form values uses (the box may be empty)."""
    chosen = values.get("min_freq")
    if chosen is None:
        return default_min_freq(str(values.get("mode", default("mode"))))
    return int(chosen)


# ============================================================================ the corpus


def _compute_range(corpus: Any, name: str, settings: dict[str, Any]) -> Any:
    """The :class:`~sgpe.runs.manager.SizeRange` of a corpus (a path, or an upload's
    bytes), or the corpus's problem as a string."""
    from pathlib import Path

    from sgpe.corpus import CorpusError
    from sgpe.runs.manager import size_range, upload_size_range

    if isinstance(corpus, (str, Path)):
        try:
            return size_range(Path(corpus), TrainSettings(**settings))
        except (CorpusError, ValueError) as err:
            return str(err)
    return upload_size_range(corpus, name, settings)


@st.cache_data(show_spinner="Reading the corpus…", max_entries=16)
def _range(identity: tuple[Any, ...], _corpus: Any, name: str, settings: dict[str, Any]) -> Any:
    """:func:`_compute_range`, cached by ``identity`` (a path and its mtime, or an
    upload's file id)."""
    if not isinstance(_corpus, (str, bytes)) and hasattr(_corpus, "getvalue"):
        _corpus = _corpus.getvalue()
    return _compute_range(_corpus, name, settings)


#: Uploads larger than this are read in a background thread (see :func:`corpus_range`).
BACKGROUND_BYTES = 1_000_000


class _Checks:
    """Size checks of large uploads running or done, by upload and settings: one worker
    process and one table per server process (``st.cache_resource``), guarded by a lock.

    A process, not a thread: the check is pure-Python CPU work, and in a thread it held
    the server's GIL, so a Start pressed meanwhile took as long as before. "spawn" starts
    a clean interpreter (no fork of the threaded server; see docs/app.md)."""

    def __init__(self) -> None:
        import multiprocessing
        import threading
        from concurrent.futures import ProcessPoolExecutor

        self.lock = threading.Lock()
        self.pool = ProcessPoolExecutor(
            max_workers=1, mp_context=multiprocessing.get_context("spawn")
        )
        self.futures: dict[tuple[Any, ...], Any] = {}


@st.cache_resource
def _checks() -> _Checks:
    return _Checks()


def corpus_range(corpus: Any, name: str, settings: TrainSettings) -> Any:
    """What :func:`_compute_range` says for this corpus and settings (their
    ``vocab_size`` aside), or None while a large upload is still being read.

    Reading a 16 MB upload takes seconds, and done in the page it held every action
    after the upload, Start included, for 3 to 4.5 s. An upload above
    :data:`BACKGROUND_BYTES` is therefore read in a background thread; the page says so,
    keeps Start on (the trainer checks the size again) and redraws when the result is
    in. Sample files and small uploads are read at once (well under a second)."""
    from pathlib import Path

    from sgpe.runs.manager import upload_size_range

    data = settings.to_dict()
    data["vocab_size"] = default("vocab_size")
    if isinstance(corpus, (str, Path)):
        identity: tuple[Any, ...] = (str(corpus), Path(corpus).stat().st_mtime)
        return _range(identity, corpus, name, data)
    identity = ("upload", getattr(corpus, "file_id", id(corpus)), name)
    size = getattr(corpus, "size", None)
    if size is None or size <= BACKGROUND_BYTES:
        return _range(identity, corpus, name, data)
    key = (*identity, tuple(sorted(data.items())))
    checks = _checks()
    with checks.lock:
        future = checks.futures.get(key)
        if future is None:
            future = checks.pool.submit(upload_size_range, corpus.getvalue(), name, data)
            checks.futures[key] = future
            while len(checks.futures) > 16:  # the oldest checks go (dicts keep order)
                checks.futures.pop(next(iter(checks.futures)))
    if not future.done():
        return None
    try:
        return future.result()
    except Exception as err:  # the worker process died (e.g. out of memory): say so
        return f"The corpus could not be read: {err}"

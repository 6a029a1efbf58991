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
    it without a word (issue 27, item 5). The values go to :class:`TrainSettings`, whose
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
            placeholder=f"empty: {default_min_freq(mode)}, the {mode} mode's default",
            key=key(f.name),
            help=help_
            + " Empty: the training mode's default ("
            + ", ".join(f"{default_min_freq(m)} for {m}" for m in choices("mode"))
            + ").",
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

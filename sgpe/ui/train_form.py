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
    help_ = meta.help[0].upper() + meta.help[1:] + "."
    if meta.choices:
        options = list(choices(f.name))
        return where.radio(
            meta.label,
            options,
            index=options.index(f.default),
            horizontal=True,
            key=key(f.name),
            help=help_,
        )
    if isinstance(f.default, bool):
        return where.toggle(meta.label, value=f.default, key=key(f.name), help=help_)
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
    options = {"min_value": meta.minimum or 1, "value": f.default, "step": 1}
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

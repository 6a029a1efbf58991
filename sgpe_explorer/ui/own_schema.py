"""A linguist's own schema across pages: the Grammar page keeps the last schema it
validated (:func:`keep_validated`), the Train page offers it as "Your own schema" beside
the sidebar's script (:func:`train_grammar`), and the pages that show a vocabulary's
syllables ask :func:`sgpe_explorer.ui.analysis.vocabulary_grammar` which grammar that vocabulary was trained with.

A schema is selected everywhere by its key, ``name@digest`` (:func:`sgpe.schema.register_schema`):
the library's syllabifier, trainer and encoder take the key wherever they take a script
name, and a run's ``config.json`` records the schema whole, so the background trainer
needs nothing from this session.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from sgpe.schema import SchemaError, custom_schema, load_schema, parse_schema_text, register_schema

from . import render

#: Session-state key: ``(JSON text, source)`` of the schema the Grammar page validated last.
VALIDATED = "own_schema_validated"
#: The Train page's choice between the sidebar's script and the validated schema.
CHOICE_KEY = "train_grammar"
SIDEBAR, OWN = "sidebar", "own"


def keep_validated(text: str, source: str) -> None:
    """The Grammar page found ``text`` valid: the Train page may train with it."""
    st.session_state[VALIDATED] = (text, source)


def validated() -> Any:
    """The schema the Grammar page validated last in this session (a
    :class:`~sgpe.schema.Schema`), or None."""
    kept = st.session_state.get(VALIDATED)
    if not kept:
        return None
    try:
        return parse_schema_text(*kept)
    except SchemaError:  # kept only when valid; this sgpe reads it the same way
        return None


def script_title(script: str) -> str:
    """A ``script`` setting in words: a built-in script's title, or a schema's own."""
    own = custom_schema(script)
    if own is not None:
        return f"your own schema {own.title} ({script})"
    if script == "auto":
        return "auto (every script)"
    return str(load_schema(script).title)


def train_grammar(sidebar_script: str) -> tuple[str, str]:
    """The Train page's grammar: the sidebar's script, or (when the Grammar page validated
    one) the choice of "Your own schema". Returns the ``script`` setting and a caption."""
    own = validated()
    if own is None:
        return sidebar_script, (
            f"Script grammar: {sidebar_script} (chosen in the sidebar; validate a schema "
            "of your own on the Grammar page to train with it)."
        )
    labels = {
        SIDEBAR: f"The sidebar's script ({sidebar_script})",
        OWN: f"Your own schema ({own.name}, validated on the Grammar page)",
    }
    if st.session_state.get(CHOICE_KEY) not in labels:
        st.session_state.pop(CHOICE_KEY, None)
    choice = st.radio(
        "Script grammar",
        list(labels),
        format_func=labels.__getitem__,
        horizontal=True,
        key=CHOICE_KEY,
        help="Your own schema is recorded whole in the run and in its vocab.json, so the "
        "vocabulary encodes the same ids anywhere without the file.",
    )
    if choice == OWN:
        key = register_schema(own)
        return key, render.md_escape(f"Script grammar: your own schema {own.title} ({key}).")
    return sidebar_script, f"Script grammar: {sidebar_script} (chosen in the sidebar)."

"""The Train page's settings form, generated from :class:`sgpe.settings.TrainSettings`.

Each field with an app ``label`` gets one widget (radio buttons for a fixed set of values,
a toggle for a switch, a text box for a whole number) whose default and help text come
from the field, so a new setting appears here without an edit. Widget keys are
``train_<field>``; each value is in the page's link as ``?<field>=`` when it is not the
default, so a reload or a shared link opens the same form.

Whole numbers are typed into text boxes, not number boxes: a number box marks a value
outside its limits red and never sends it (without limits of ours it still has the
browser's, about 9·10^15), so the page went on with the previous value and Start trained
at it without a word. Whatever is typed reaches :func:`settings_of`, and
:class:`TrainSettings` (the one check the CLI and the run manager use too) says what is
wrong; Start is off until it is fixed. An empty box is the field's "empty" meaning (off,
or the mode's default), never 0.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import streamlit as st

from sgpe.runs import ACTIVE_STATES
from sgpe.settings import (
    MAX_VOCAB_SIZE,
    TrainSettings,
    choices,
    default,
    default_min_freq,
    info,
)
from sgpe.shipped import DEFAULT_VOCAB_SIZE
from sgpe_explorer.runs.manager import RunInfo

from . import state

#: The fields the form shows, in the dataclass's order.
FORM_FIELDS = tuple(f for f in dataclasses.fields(TrainSettings) if info(f).label)

#: The form's defaults where the library's do not suit the page. The library's 32,000
#: tokens is more than the form's first corpus (sample_data/sinhala.txt) gives, 6,039 SGPE
#: and 5,717 byte-level tokens, so the form opened with two warnings about itself; the
#: shipped vocabularies' size (4,000) is reached by both.
FORM_DEFAULTS: dict[str, Any] = {"vocab_size": DEFAULT_VOCAB_SIZE}


def form_default(name: str) -> Any:
    """A setting's default on the form (:data:`FORM_DEFAULTS`, else the library's)."""
    return FORM_DEFAULTS.get(name, default(name))


# Digits grouped by thousands ("32,000", "32 000", "32_000") read as one number.
_GROUPING = re.compile(r"(?<=\d)[,_ \u00a0\u202f](?=\d{3}(?:\D|$))")
_WHOLE = re.compile(r"[+-]?\d+")


def key(name: str, initial: Any, parse: Any = str, allowed: Any = None) -> str:
    """The widget key of a setting, with its first value: the link's ``?<name>=`` when
    the session starts on one, else the value kept while the page is not shown, else
    ``initial`` (see sgpe_explorer.ui.state)."""
    return state.init_widget(f"train_{name}", name, initial, parse, allowed)


def _box_text(name: str) -> str:
    """What a whole-number box holds by default ("" for an optional one)."""
    value = form_default(name)
    return "" if value is None else str(value)


def widget(where: Any, f: dataclasses.Field[Any], mode: str) -> Any:
    """One setting's widget in ``where`` (a column or container); returns its value (the
    text typed, for a whole number). ``mode`` is the training mode chosen above (the empty
    minimum pair frequency means its default)."""
    meta = info(f)
    initial = default(f.name)
    help_ = meta.help[0].upper() + meta.help[1:] + "."
    if meta.choices:
        values = list(choices(f.name))
        return where.radio(
            meta.label,
            values,
            horizontal=True,
            key=key(f.name, initial, allowed=values),
            help=help_,
        )
    if isinstance(initial, bool):
        return where.toggle(
            meta.label, key=key(f.name, initial, parse=state.parse_bool), help=help_
        )
    placeholder = "a whole number"
    if f.name == "min_freq":  # None: decided by the mode
        # Short: the box is a third of the form wide, and the longer "empty: 1, the
        # hierarchical mode's default" was cut off; the help says the rest.
        placeholder = f"{mode} default: {default_min_freq(mode)}"
        help_ += (
            " Empty: the training mode's default ("
            + ", ".join(f"{default_min_freq(m)} for {m}" for m in choices("mode"))
            + ")."
        )
    elif initial is None:  # an optional size (superwords_from): an empty box is off
        placeholder = "empty: off"
        help_ += " Empty: off."
    elif f.name == "vocab_size":
        help_ += f" At most {MAX_VOCAB_SIZE:,}."
    return where.text_input(
        meta.label, key=key(f.name, _box_text(f.name)), placeholder=placeholder, help=help_
    )


def whole_number(name: str, text: str) -> int | None:
    """The number typed into a setting's box (None for an empty optional box); a
    ``ValueError`` naming the field for anything else."""
    typed = str(text).strip()
    if not typed:
        if default(name) is None:
            return None
        raise ValueError(
            f"{name} is empty; type a whole number (the default is {form_default(name)})"
        )
    cleaned = _GROUPING.sub("", typed)
    if not _WHOLE.fullmatch(cleaned):
        raise ValueError(f"{name} must be a whole number, got {typed!r}")
    return int(cleaned)


def settings_of(values: Mapping[str, Any], script: str) -> TrainSettings:
    """The form's values (whole numbers as typed) as :class:`TrainSettings`, or the
    ``ValueError`` of the first one that is wrong (:func:`problem` words it for the form)."""
    data: dict[str, Any] = {}
    for name, value in values.items():
        numeric = not choices(name) and not isinstance(default(name), bool)
        data[name] = whole_number(name, value) if numeric else value
    return TrainSettings(**data, script=script)


def url_params(values: Mapping[str, Any]) -> dict[str, str | None]:
    """The form's values for the page's link (left out while a value is its default), each
    also remembered as the option of that name (sgpe_explorer.ui.state)."""
    params: dict[str, str | None] = {}
    for name, value in values.items():
        state.remember(name, value)
        initial = form_default(name)
        if isinstance(initial, bool):
            params[name] = state.fmt_bool(value) if value != initial else None
        elif choices(name):
            params[name] = str(value) if value != initial else None
        else:
            typed = str(value).strip()
            params[name] = typed if typed != _box_text(name) else None
    return params


def problem(err: ValueError) -> str:
    """A settings error for the form: the field's label instead of its name ("or None",
    the library's spelling of an optional value, is an empty box here)."""
    text = str(err).replace(" (or None)", " (or empty)")
    for f in FORM_FIELDS:
        text = text.replace(f"below {f.name} (", f"below the {info(f).label.lower()} (")
    for f in FORM_FIELDS:
        if text.startswith(f.name + " "):
            return info(f).label + text[len(f.name) :] + "."
    return text


def form_values(columns: int = 3) -> dict[str, Any]:
    """Draw the form's widgets in rows of ``columns``; the chosen values by field name
    (the whole numbers as typed: :func:`settings_of` reads them)."""
    values: dict[str, Any] = {}
    for start in range(0, len(FORM_FIELDS), columns):
        row = st.columns(columns)
        for where, f in zip(row, FORM_FIELDS[start : start + columns]):
            mode = str(values.get("mode", default("mode")))
            values[f.name] = widget(where, f, mode)
    return values


# ============================================================================ the corpus


def _compute_range(corpus: Any, name: str, settings: dict[str, Any]) -> Any:
    """The :class:`~sgpe_explorer.runs.manager.SizeRange` of a corpus (a path, or an upload's
    bytes), or the corpus's problem as a string."""
    from pathlib import Path

    from sgpe.corpus import CorpusError
    from sgpe_explorer.runs.manager import size_range, upload_size_range

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


#: Uploads larger than this are read in a child process (see :func:`corpus_range`).
BACKGROUND_BYTES = 1_000_000


class _Checks:
    """Size checks of large uploads running or done, by upload and settings: one thread
    and one table per server process (``st.cache_resource``), guarded by a lock.

    The thread only waits: each check runs in a child process of its own
    (sgpe_explorer/runs/size_check.py), because the check is pure-Python CPU work that
    in the server held its GIL, so a Start pressed meanwhile took as long as before. The
    child exits when its check is done."""

    def __init__(self) -> None:
        import threading
        from concurrent.futures import ThreadPoolExecutor

        self.lock = threading.Lock()
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sgpe-size-check")
        self.futures: dict[tuple[Any, ...], Any] = {}


@st.cache_resource
def _checks() -> _Checks:
    return _Checks()


def corpus_range(corpus: Any, name: str, settings: TrainSettings) -> Any:
    """What :func:`_compute_range` says for this corpus and settings (their
    ``vocab_size`` aside), or None while a large upload is still being read.

    Reading a 16 MB upload takes seconds, and done in the page it held every action
    after the upload, Start included, for 3 to 4.5 s. An upload above
    :data:`BACKGROUND_BYTES` is therefore read in a child process (waited for by a
    thread); the page says so, keeps Start on (the trainer checks the size again) and
    redraws when the result is in. Sample files and small uploads are read at once (well under a second)."""
    from pathlib import Path

    from sgpe_explorer.runs.size_check import check

    data = settings.to_dict()
    # The range does not depend on the size: one check serves every size typed (the
    # largest lets any superwords_from through).
    data["vocab_size"] = MAX_VOCAB_SIZE
    if isinstance(corpus, (str, Path)):
        identity: tuple[Any, ...] = (str(corpus), Path(corpus).stat().st_mtime)
        return _range(identity, corpus, name, data)
    identity = ("upload", getattr(corpus, "file_id", id(corpus)), name)
    size = getattr(corpus, "size", None)
    if size is None or size <= BACKGROUND_BYTES:
        return _range(identity, corpus, name, data)
    # As JSON text: a linguist's own schema is a dict (the settings' ``schema``).
    key = (*identity, json.dumps(data, sort_keys=True))
    checks = _checks()
    with checks.lock:
        future = checks.futures.get(key)
        if future is None:
            future = checks.pool.submit(check, corpus.getvalue(), name, data)
            checks.futures[key] = future
            while len(checks.futures) > 16:  # the oldest checks go (dicts keep order)
                checks.futures.pop(next(iter(checks.futures)))
    if not future.done():
        return None
    try:
        return future.result()
    except Exception as err:  # the worker process died (e.g. out of memory): say so
        return f"The corpus could not be read: {err}"


# How often the Train page's runs panel redraws itself while a run of the visitor's is
# live (queued or training): every 2 s either way. It was every second while training and
# every 3 s while queued (one run trains at a time, so in a classroom nearly every run
# waits, and each redraw lists every run). But a timer is fixed when the panel is drawn,
# so a queued run that started training redrew the whole Train page to change it: one
# more whole-page run (about 0.07 CPU-s in a classroom's server) for every visitor whose
# run had waited. A run that ends still redraws the page once, as the sidebar then offers
# its vocabulary (docs/app.md, section 11).
LIVE_EVERY_S = 2.0
#: A run that waits for a slot or trains: it can still change on its own.
LIVE_STATES = frozenset({"queued"}) | ACTIVE_STATES


def panel_every(states: list[str]) -> float | None:
    """Seconds between the runs panel's own redraws for the visitor's runs in ``states``
    (None: no run of theirs is live, and the panel waits for the visitor)."""
    return LIVE_EVERY_S if any(s in LIVE_STATES for s in states) else None


def is_mine(info: RunInfo, me: str, admin: bool) -> bool:
    """Whether this visitor manages the run: theirs, or any for an administrator. A run
    without an owner (started on the server) is read-only to visitors. The run manager
    checks the same again when a button acts."""
    return admin or (info.owner is not None and info.owner == me)


def panel_signature(own: Sequence[RunInfo]) -> tuple[tuple[str, str], ...]:
    """What the Train page outside its runs panel shows of the visitor's own runs (``own``,
    :func:`is_mine`): which exist, and whether each waits, trains or how it ended. The
    panel redraws the whole page when this changes, and only itself otherwise.

    * A run of the visitor's that ends changes it: the sidebar then offers its vocabulary
      and the buttons follow.
    * Queued, counting and merging read the same ("live"): the panel's timer is the same
      for all three (:func:`panel_every`), and a whole-page run when a queued run started
      training cost each waiting visitor of a classroom one more (docs/app.md, section 11).
    * Other visitors' and the server's runs are not in it. They are drawn in the panel
      only (its read-only sections), and the sidebar's menus offer a finished one at the
      visitor's next action: with them in it, each run of a classroom's queue that ended
      redrew every waiting visitor's whole page."""
    return tuple(
        (i.run.id, "live" if i.status.state in LIVE_STATES else i.status.state) for i in own
    )

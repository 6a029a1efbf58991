"""Cached tokenizers, the run manager, and which tokenizers are active.

* The shipped vocabularies (:mod:`sgpe.shipped`) and every finished run's ``vocab.json``
  are loaded once per process (``st.cache_resource``, keyed by path and mtime).
* Runs live under ``$SGPE_RUNS_DIR`` (default ``runs/`` in the repository); tests point
  it at a temporary directory.
* The *active* SGPE tokenizer is the shipped one or any finished SGPE run; its byte-level
  baseline is, unless chosen in the sidebar, the finished byte-level run on the same
  corpus with the same vocabulary size, else the shipped baseline.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import streamlit as st

import sgpe
from sgpe import shipped as defaults
from sgpe.runs.format import RunError
from sgpe.runs.manager import RunInfo, RunManager

REPO_ROOT = Path(__file__).resolve().parents[2]
RUNS_ENV = "SGPE_RUNS_DIR"
DEFAULT_ID = "default"
AUTO_ID = "auto"


def runs_root() -> Path:
    """Where training runs live: ``$SGPE_RUNS_DIR`` or ``runs/`` in the repository."""
    env = os.environ.get(RUNS_ENV)
    return Path(env) if env else REPO_ROOT / "runs"


@st.cache_resource(show_spinner=False)
def _manager(root: str) -> RunManager:
    manager = RunManager(root)
    # Once per app process: runs left queued when the app (or the machine) stopped start
    # now. After this, trainers start the queue themselves; reading never does.
    with contextlib.suppress(OSError, RunError):
        manager.poll()
    return manager


def run_manager() -> RunManager:
    """The process-wide run manager for :func:`runs_root` (it only keeps child handles)."""
    return _manager(str(runs_root().resolve()))


@st.cache_resource(show_spinner="Loading vocabulary…", max_entries=16)
def _load(path: str, mtime: float) -> Any:
    return sgpe.load(path)


def load_vocab(path: str | Path) -> Any:
    """A tokenizer from a vocabulary file (SGPE or byte-level), cached by path and mtime."""
    p = Path(path)
    return _load(str(p.resolve()), p.stat().st_mtime)


@st.cache_resource(show_spinner="Loading an OpenAI encoding…")
def _tiktoken(name: str) -> Any:
    from sgpe.baselines.tiktoken_offline import load_encoding

    return load_encoding(name)


def tiktoken(name: str) -> tuple[Any, str | None]:
    """tiktoken's ``o200k_base`` or ``cl100k_base`` built offline, or ``(None, why not)``."""
    try:
        return _tiktoken(name), None
    except Exception as err:  # missing optional package or rank file: say so on the page
        return None, f"{name} is not available: {err}"


def o200k() -> tuple[Any, str | None]:
    """tiktoken's o200k_base built offline, or ``(None, why not)``."""
    return tiktoken("o200k_base")


@st.cache_data(show_spinner=False, max_entries=32)
def _run_counts(run_dir: str, mtime: float) -> list[int] | None:
    from sgpe.runs.format import read_merges

    try:
        counts = read_merges(run_dir).get("count")
    except Exception:  # a damaged table must not break the page
        return None
    return [int(c) for c in counts] if counts else None


# ============================================================================ choices


@dataclass(frozen=True)
class Choice:
    """A vocabulary the user can make active."""

    id: str  # "default" or a run id
    label: str
    path: Path
    model: str
    corpus_sha256: str = ""
    vocab_size: int = 0
    short: str = ""  # a run's name and start, for a column title ("mine.txt, 26 Nov 06:42")


def finished_runs() -> list[RunInfo]:
    """Finished runs (newest first), read from their files only; an unreadable runs root
    gives none. A fresh :class:`RunManager` (not :func:`run_manager`, whose first use
    starts the queue) lists them: listing launches nothing and removes nothing."""
    try:
        infos = RunManager(runs_root()).list_runs()
    except OSError:
        return []
    return [info for info in infos if info.status.state == "done"]


def run_name(info: RunInfo) -> str:
    """What a run is called on the pages: the name its starter gave it, else its corpus
    (never the hex id alone: issue 27, item 8)."""
    return info.label or info.config.corpus_name or "corpus"


def run_when(info: RunInfo) -> str:
    """When a run was started, in UTC (visitors of one server live in several zones)."""
    import time

    created = info.config.created
    return time.strftime("%d %b %Y %H:%M UTC", time.gmtime(created)) if created else "undated"


def run_kind(info: RunInfo) -> str:
    """``SGPE hierarchical`` / ``SGPE paper`` / ``byte-level BPE``."""
    cfg = info.config
    return f"SGPE {cfg.mode}" if cfg.model == "sgpe" else "byte-level BPE"


def _run_choice(info: RunInfo) -> Choice:
    cfg = info.config
    size = info.status.trained_size or cfg.vocab_size  # what was trained, not what was asked
    label = f"{run_name(info)}, {size:,} tokens · {run_kind(info)} · {run_when(info)}"
    short = f"{run_name(info)}, {run_when(info)[:6]}{run_when(info)[11:17]}"
    return Choice(
        info.run.id,
        label,
        info.run.path / "vocab.json",
        cfg.model,
        cfg.corpus_sha256,
        cfg.vocab_size,
        short,
    )


def choices(model: str) -> dict[str, Choice]:
    """Selectable vocabularies of one model (``sgpe`` or ``bytebpe``), shipped first."""
    shipped = defaults.DEFAULT_SGPE if model == "sgpe" else defaults.DEFAULT_BYTEBPE
    out = {
        DEFAULT_ID: Choice(
            DEFAULT_ID,
            f"shipped: sample_data, {defaults.DEFAULT_VOCAB_SIZE:,}",
            shipped,
            model,
            "",
            defaults.DEFAULT_VOCAB_SIZE,
        )
    }
    for info in finished_runs():
        if info.config.model == model and (info.run.path / "vocab.json").exists():
            out[info.run.id] = _run_choice(info)
    return out


@dataclass(frozen=True)
class Active:
    """The tokenizers every page uses."""

    sgpe: Any
    sgpe_choice: Choice
    base: Any
    base_choice: Choice
    base_matched: bool  # the baseline was trained on the same corpus at the same size
    #: why a chosen run's vocabulary is not used (damaged file): shown in the sidebar
    problems: tuple[str, ...] = ()

    def counts(self, which: str) -> list[int] | None:
        """Training count of each merge (by rank) of ``"sgpe"`` or ``"base"``: recorded in
        the vocabulary file by the trainer; for a run whose file predates that, its merge
        table; else None (unknown)."""
        choice, tok = (
            (self.sgpe_choice, self.sgpe) if which == "sgpe" else (self.base_choice, self.base)
        )
        recorded = getattr(tok, "merge_counts", None)
        if recorded is not None or choice.id == DEFAULT_ID:
            return recorded
        try:
            mtime = choice.path.stat().st_mtime
        except OSError:
            return None
        return _run_counts(str(choice.path.parent), mtime)


def resolve(tok_id: str, base_id: str) -> Active:
    """The active tokenizers for the sidebar's choices (unknown ids fall back to shipped)."""
    sgpe_choices = choices("sgpe")
    sgpe_choice = sgpe_choices.get(tok_id, sgpe_choices[DEFAULT_ID])
    base_choices = choices("bytebpe")
    if base_id in base_choices and base_id != AUTO_ID:
        base_choice = base_choices[base_id]
        matched = _same_training(sgpe_choice, base_choice)
    else:
        base_choice = matching_baseline(sgpe_choice, base_choices)
        matched = _same_training(sgpe_choice, base_choice)
    problems: list[str] = []
    sgpe_tok, sgpe_choice = _load_or_shipped(sgpe_choice, sgpe_choices, problems)
    base_tok, used = _load_or_shipped(base_choice, base_choices, problems)
    if used is not base_choice:
        base_choice, matched = used, _same_training(sgpe_choice, used)
    return Active(sgpe_tok, sgpe_choice, base_tok, base_choice, matched, tuple(problems))


def _load_or_shipped(
    choice: Choice, options: dict[str, Choice], problems: list[str]
) -> tuple[Any, Choice]:
    """The choice's tokenizer; if its file is damaged (the library says what is wrong, in
    one line), the shipped one instead and a note in ``problems``: a page never fails
    because one run's vocab.json was damaged on disk."""
    try:
        return load_vocab(choice.path), choice
    except (ValueError, OSError) as err:
        if choice.id == DEFAULT_ID:
            raise
        problems.append(
            f"Run {choice.id} cannot be used: {err}. The shipped vocabulary is used instead; "
            "delete the run on the Train page, or train it again."
        )
        shipped = options[DEFAULT_ID]
        return load_vocab(shipped.path), shipped


def _same_training(a: Choice, b: Choice) -> bool:
    if a.id == DEFAULT_ID or b.id == DEFAULT_ID:
        return a.id == b.id
    return a.corpus_sha256 == b.corpus_sha256 and a.vocab_size == b.vocab_size


def matching_baseline(sgpe_choice: Choice, base_choices: dict[str, Choice]) -> Choice:
    """The byte-level run trained on the same corpus at the same size, else the shipped one."""
    if sgpe_choice.id != DEFAULT_ID:
        for c in base_choices.values():
            if c.id != DEFAULT_ID and _same_training(sgpe_choice, c):
                return c
    return base_choices[DEFAULT_ID]


def active() -> Active:
    """The active tokenizers, as last chosen in the sidebar or with "use this vocabulary"
    (``st.session_state["opts"]``, see :mod:`sgpe.ui.state`)."""
    opts = st.session_state.get("opts", {})
    return resolve(str(opts.get("tok") or DEFAULT_ID), str(opts.get("base") or AUTO_ID))


def sample_files() -> list[Path]:
    """The text files in ``sample_data/`` (corpora to pick from), Sinhala first."""
    files = [p for p in defaults.SAMPLE_DATA.glob("*.txt") if p.is_file()]
    return sorted(files, key=lambda p: (p.name != "sinhala.txt", p.name))


# ============================================================================ catalogue


@dataclass(frozen=True)
class Entry:
    """A tokenizer the Compare and Evaluate pages can put side by side."""

    key: str  # stable id (URL value): "sgpe", "base", "o200k_base", "run:<id>", ...
    name: str  # short, unique column title
    tokenizer: Any
    label: str  # what it is, in one line
    cache_key: str  # changes when the vocabulary file changes
    vocab_size: int


def _file_key(path: Path) -> str:
    try:
        return f"{path}:{path.stat().st_mtime}"
    except OSError:
        return str(path)


def catalogue(act: Active, *, openai: bool = True) -> tuple[dict[str, Entry], list[str]]:
    """The active SGPE tokenizer and its baseline, OpenAI's encodings, and every other
    finished run; with one line per tokenizer that could not be loaded."""
    out: dict[str, Entry] = {
        "sgpe": Entry(
            "sgpe",
            "SGPE",
            act.sgpe,
            act.sgpe_choice.label,
            _file_key(act.sgpe_choice.path),
            act.sgpe.vocab_size,
        ),
        "base": Entry(
            "base",
            "Byte-level BPE",
            act.base,
            act.base_choice.label
            + ("" if act.base_matched else " — not trained on the same corpus as the SGPE one"),
            _file_key(act.base_choice.path),
            act.base.vocab_size,
        ),
    }
    problems: list[str] = []
    if openai:
        for name in ("o200k_base", "cl100k_base"):
            enc, why_not = tiktoken(name)
            if enc is None:
                problems.append(why_not or name)
                continue
            out[name] = Entry(
                name, name, enc, f"OpenAI {name} (tiktoken, offline)", name, enc.n_vocab
            )
    used = {act.sgpe_choice.id, act.base_choice.id}
    for model, title in (("sgpe", "SGPE"), ("bytebpe", "Byte-level")):
        for choice in choices(model).values():
            if choice.id in used:
                continue
            try:
                tok = load_vocab(choice.path)
            except (ValueError, OSError) as err:
                problems.append(f"Run {choice.id} cannot be used: {err}")
                continue
            # A column title: the run's name and start, short; the id only to tell apart
            # two runs of one name started in the same minute.
            tag = "shipped" if choice.id == DEFAULT_ID else choice.short
            name = f"{title} ({tag})"
            if any(e.name == name for e in out.values()):
                name = f"{title} ({tag}, {choice.id[-6:]})"
            key = f"{model}:{choice.id}"
            out[key] = Entry(key, name, tok, choice.label, _file_key(choice.path), tok.vocab_size)
    return out, problems

"""``config.json`` of a run directory: :class:`RunConfig` (the settings a run was started
with and its corpus by reference) and :func:`read_config`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._json import TOO_DEEP
from ..protocol import one_line
from ..settings import _NOTHING as _NO_ABSENT
from ..settings import (
    COUNT_FIELDS,
    MECHANICS_FIELDS,
    MODELS,
    TRAIN_FIELDS,
    CountOptions,
    RunMechanics,
    TrainSettings,
    default,
    info,
    settings_fields,
    split_options,
)
from .constants import CONFIG, CONFIG_FORMAT, FORMAT_VERSION, RunError
from .files import _canonical
from .sources import CorpusFile

#: The corpus fields of ``config.json`` (the other keys are the settings' fields).
CORPUS_FIELDS = ("corpus", "corpus_name", "corpus_sha256", "created")
#: The fields that layout 2 adds (see :class:`RunConfig`).
SOURCE_FIELDS = ("corpus_path", "corpus_files", "counting")
#: config.json layout 1 holds a corpus copy (``corpus``); layout 2 refers to the corpus
#: by path and records the counting options. Both are read; new runs are written in 2.
CONFIG_VERSIONS = (1, 2)


@dataclass(frozen=True, init=False)
class RunConfig:
    """The settings a run was started with, stored as ``config.json``: the fields of
    :class:`~sgpe.settings.TrainSettings` and :class:`~sgpe.settings.RunMechanics` flat, the
    :class:`~sgpe.settings.CountOptions` under ``counting``, and the corpus identity.

    The corpus is recorded by reference: ``corpus_path`` is the corpus as given (a file, a
    directory or a glob; relative paths are relative to the run directory),
    ``corpus_files`` its files with their sizes and sha256, ``corpus_sha256`` their content
    hash (:func:`sgpe.runs.sources.manifest_sha256`) and ``corpus_name`` the name recorded
    in ``vocab.json``. Runs made before that hold a copy of the corpus in the run
    directory: their ``corpus`` is the copy's file name (layout 1, still read and resumed).

    Build one with the settings objects or with flat keywords
    (``RunConfig(vocab_size=700, checkpoint_every=5)``); every setting is readable as an
    attribute (``config.vocab_size``).
    """

    settings: TrainSettings
    mechanics: RunMechanics
    counting: CountOptions
    corpus: str
    corpus_name: str
    corpus_sha256: str
    created: float  # unix time; not part of the fingerprint
    corpus_path: str
    corpus_files: tuple[CorpusFile, ...]

    def __init__(
        self,
        settings: TrainSettings | None = None,
        mechanics: RunMechanics | None = None,
        *,
        counting: CountOptions | None = None,
        corpus: str = "",
        corpus_name: str = "",
        corpus_sha256: str = "",
        created: float = 0.0,
        corpus_path: str = "",
        corpus_files: Sequence[CorpusFile] = (),
        **options: Any,
    ) -> None:
        train, mech = split_options(options, "RunConfig")
        if (train and settings is not None) or (mech and mechanics is not None):
            raise TypeError("RunConfig: give the settings objects or flat keywords, not both")
        set_ = object.__setattr__
        set_(self, "settings", settings if settings is not None else TrainSettings(**train))
        set_(self, "mechanics", mechanics if mechanics is not None else RunMechanics(**mech))
        set_(self, "counting", counting if counting is not None else CountOptions())
        set_(self, "corpus", corpus)
        set_(self, "corpus_name", corpus_name)
        set_(self, "corpus_sha256", corpus_sha256)
        set_(self, "created", created)
        set_(self, "corpus_path", corpus_path)
        set_(self, "corpus_files", tuple(corpus_files))

    def __getattr__(self, name: str) -> Any:
        # Only called for names that are not attributes: the settings' fields.
        if name in TRAIN_FIELDS:
            return getattr(object.__getattribute__(self, "settings"), name)
        if name in MECHANICS_FIELDS:
            return getattr(object.__getattribute__(self, "mechanics"), name)
        raise AttributeError(f"RunConfig has no attribute {name!r}")

    @property
    def has_copy(self) -> bool:
        """Whether the run holds a copy of its corpus (layout 1, made by older versions)."""
        return bool(self.corpus)

    def replace(self, **changes: Any) -> RunConfig:
        """A copy with some fields (settings, counting or corpus fields) changed."""
        own = CORPUS_FIELDS + SOURCE_FIELDS
        train, mech = split_options(
            {k: v for k, v in changes.items() if k not in own}, "RunConfig.replace"
        )
        kept = {k: changes.get(k, getattr(self, k)) for k in own}
        return RunConfig(
            self.settings.replace(**train) if train else self.settings,
            dataclasses.replace(self.mechanics, **mech) if mech else self.mechanics,
            **kept,
        )

    def validate(self) -> None:
        """Raise ``ValueError`` naming the first bad setting (the settings types check
        themselves on construction, so a config that exists is valid)."""

    def train_settings(self) -> TrainSettings:
        """The :class:`~sgpe.settings.TrainSettings` of the run."""
        return self.settings

    def fingerprint(self) -> str:
        """sha256 of everything that determines the result (settings + corpus identity);
        checkpoints and word counts carry it so that they are never mixed across runs.

        A setting whose value is its ``absent`` value (what an older ``config.json``
        without it meant) is left out, so runs made before it existed keep their
        fingerprint and still resume. Where the corpus lives and how it is counted are
        left out too: neither changes the result."""
        s = self.settings
        data: dict[str, Any] = {"model": s.model}
        for f in dataclasses.fields(TrainSettings):
            meta = info(f)
            if f.name == "model" or s.model not in meta.models:
                continue
            value = getattr(s, f.name)
            if f.name in _ABSENT and value == _ABSENT[f.name]:
                continue
            data[f.name] = value
        data["corpus_name"] = self.corpus_name
        data["corpus_sha256"] = self.corpus_sha256
        data["format_version"] = FORMAT_VERSION
        return hashlib.sha256(_canonical(data)).hexdigest()

    def to_dict(self) -> dict[str, Any]:
        """``config.json``: one flat object (every setting resolved to its value); a run
        with a corpus copy is written in layout 1, as it was made."""
        flat = self.settings.to_dict()
        if flat["prepend_space"] is None:  # bytebpe: not used; written as before
            flat["prepend_space"] = flat["leading_space"]
        if flat["schema"] is None:  # a built-in script: config.json is written as before
            del flat["schema"]
        data = {
            "format": CONFIG_FORMAT,
            "format_version": 1 if self.has_copy else 2,
            **flat,
            **self.mechanics.to_dict(),
            **{k: getattr(self, k) for k in CORPUS_FIELDS if k != "corpus" or self.has_copy},
        }
        if not self.has_copy:
            data["corpus_path"] = self.corpus_path
            data["corpus_files"] = [f.to_dict() for f in self.corpus_files]
            data["counting"] = self.counting.to_dict()
        return data

    @classmethod
    def from_dict(cls, data: Any, source: str = CONFIG) -> RunConfig:
        if not isinstance(data, dict) or data.get("format") != CONFIG_FORMAT:
            raise RunError(
                f"{source}: not a run configuration (key 'format' must be {CONFIG_FORMAT!r})"
            )
        version = data.get("format_version")
        if type(version) is not int or version not in CONFIG_VERSIONS:
            raise RunError(
                f"{source}: key 'format_version' is {version!r}; this version "
                f"of sgpe reads {' and '.join(map(str, CONFIG_VERSIONS))}"
            )
        model = data.get("model", default("model"))
        options: dict[str, Any] = {}
        for f in settings_fields():
            meta = info(f)
            if f.name != "model" and model in MODELS and model not in meta.models:
                continue  # written for every run; means nothing for this model
            if f.name not in data:
                if f.name in _ABSENT:
                    options[f.name] = _ABSENT[f.name]
                continue
            options[f.name] = _typed(data[f.name], f, source)
        if options.get("leading_space") is False and options.get("prepend_space"):
            # Written by versions that stored the flag as given; a dummy space needs the
            # leading space, and those versions trained without it too.
            options["prepend_space"] = False
        corpus: dict[str, Any] = {}
        for name in (*CORPUS_FIELDS, "corpus_path"):
            if name in data:
                kind = float if name == "created" else str
                value = data[name]
                if kind is float and isinstance(value, int) and not isinstance(value, bool):
                    value = float(value)
                if type(value) is not kind:
                    raise RunError(
                        f"{source}: key {name!r} must be a {kind.__name__}, got {value!r}"
                    )
                corpus[name] = value
        try:
            if version >= 2:
                files = data.get("corpus_files")
                if not isinstance(files, list):
                    raise ValueError(f"key 'corpus_files' must be a list, got {files!r}")
                corpus["corpus_files"] = [CorpusFile.from_dict(f, source) for f in files]
                counting = data.get("counting", {})
                if not isinstance(counting, dict) or set(counting) - COUNT_FIELDS:
                    raise ValueError(
                        f"key 'counting' must be an object with keys among "
                        f"{', '.join(sorted(COUNT_FIELDS))}, got {counting!r}"
                    )
                corpus["counting"] = CountOptions(**counting)
            return cls(**options, **corpus)
        except (ValueError, TypeError) as err:
            text = str(err)
            where = "" if text.startswith(source) else f"{source}: "
            raise RunError(f"{where}{text}; start a new run") from None


#: What a ``config.json`` written before a setting existed means (Setting.absent).
_ABSENT: dict[str, Any] = {
    f.name: info(f).absent for f in settings_fields() if info(f).absent is not _NO_ABSENT
}


def _typed(value: Any, f: dataclasses.Field[Any], source: str) -> Any:
    """A ``config.json`` value checked against the type of the field's default (an int
    where a float is expected is taken; anything else that differs is an error)."""
    if value is None and f.name == "superwords_from":
        return None  # a setting whose value may be None: no superwords
    if f.name == "schema":  # a linguist's own schema, recorded whole (TrainSettings checks it)
        if not isinstance(value, dict):
            raise RunError(
                f"{source}: key 'schema' must be a schema (an object), got {value!r:.60}"
            )
        return value
    example = f.default if f.default is not None else (True if f.name == "prepend_space" else 1)
    kind = type(example)
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if type(value) is not kind:
        raise RunError(f"{source}: key {f.name!r} must be a {kind.__name__}, got {value!r}")
    return value


def read_config(run_dir: str | Path) -> RunConfig:
    """The :class:`RunConfig` of a run directory, or :class:`RunError` if it has none."""
    path = Path(run_dir) / CONFIG
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RunError(f"{run_dir}: no {CONFIG}; this is not a run directory") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise RunError(f"{path}: unreadable ({one_line(err)}); start a new run") from None
    except RecursionError:
        raise RunError(f"{path}: {TOO_DEEP}") from None
    return RunConfig.from_dict(data, str(path))

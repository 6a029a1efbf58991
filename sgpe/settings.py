"""Training settings, declared once: :class:`TrainSettings` (what decides the vocabulary)
and :class:`RunMechanics` (how a background run checkpoints and reports, which never
changes the result).

Every consumer takes its defaults, checks and help texts from here: the library
(``sgpe.train(**settings)``), the command line (``python -m sgpe train`` makes one flag per
field, :func:`cli_flag`), a run's ``config.json`` (:class:`sgpe.runs.RunConfig` stores the
fields flat), the app's Train form (``app_pages/train.py``), the vocabulary metadata
(:meth:`TrainSettings.vocab_metadata`) and the shipped vocabularies (:mod:`sgpe.shipped`).
``tests/test_settings.py`` fails if a default of a setting is written anywhere else.

**Adding a setting is a one-place change**: add a field to :class:`TrainSettings` (if it
can change the learned vocabulary), to :class:`RunMechanics` (if it only changes how a
background run checkpoints and reports) or to :class:`CountOptions` (if it only changes how
the corpus is read and counted, such as a worker count: counting is deterministic, serial,
parallel or on a cluster), written
``name: type = field(default=..., metadata=about(help=..., ...))`` (:class:`Setting`: the
help text, the models it applies to, choices, the app form's label).
The CLI flag, the ``config.json`` key, the ``RunRequest``/``RunConfig`` keyword and the
``sgpe.train`` keyword follow from the field. Two things to decide per field:

* ``absent``: what a ``config.json`` written before the field existed means. Give the
  value that reproduces the old behaviour; the field then also stays out of the run
  fingerprint while it has that value, so old checkpoints still resume.
* validation: a check in ``__post_init__`` that raises ``ValueError`` naming the field.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, TypedDict

if TYPE_CHECKING:
    from .schema import Schema

# The tokens every vocabulary starts with (ids 0..4). Declared here, below sgpe/tokenizer.py
# (which re-exports them), because the settings check vocab_size against their number.
SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")

Model = Literal["sgpe", "bytebpe"]
Mode = Literal["hierarchical", "paper"]
OOVPolicy = Literal["fallback", "unk"]
MODELS: tuple[str, ...] = ("sgpe", "bytebpe")
MODES: tuple[str, ...] = ("hierarchical", "paper")
OOV_POLICIES: tuple[str, ...] = ("fallback", "unk")
PIECE_MODES: tuple[str, ...] = ("whitespace", "script")

#: Stop merging when the best pair is rarer than this, per SGPE mode and for bytebpe (the
#: default of ``min_freq``, which is ``None`` until a model and mode decide it).
#: Hierarchical 1: the vocabulary reaches the requested size, as SentencePiece's does (on
#: hi_train_stories.txt at 32k that is 5.6% fewer tokens on held-out reviews than stopping
#: at 2, bench/xgenre.py). Paper 2: the original's choice, kept so paper vocabularies stay
#: as they were. Byte-level 1: stop only when every chunk is one token.
MIN_FREQ_DEFAULTS: Mapping[str, int] = {"hierarchical": 1, "paper": 2, "bytebpe": 1}

#: The largest ``vocab_size`` of either model: both trainers keep a token id in one Unicode
#: code point while they learn (sgpe/bpe.py, merged_symbol and BpeTrainer),
#: so a larger size would fail once the run got there, after a long count.
MAX_VOCAB_SIZE = 0x110000

#: Units (syllables) per piece before a piece is cut (see sgpe/pieces.py). Measured
#: with bench/long_pieces.py (8k vocabularies): held-out Khmer, written without spaces
#: between words (pieces of up to 129 syllables), gets 5.02 characters per token at 64, 128
#: and 256, while training on si_train.txt without spaces takes about the same time at all
#: three; 128 is above every piece of our Sinhala and Hindi corpora (the longest, a URL, has
#: 102 units).
#: Here, with its check, so that settings need nothing above them (sgpe/pieces.py
#: re-exports it).
MAX_PIECE_UNITS = 128


def check_max_units(value: object) -> int:
    """``value`` if it is a valid piece cap, else a ValueError saying what is allowed."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 50_000:
        raise ValueError(
            f"max_piece_units must be an integer from 1 to 50000 (units per piece), got {value!r}"
        )
    return value


#: The longest checkpoint or heartbeat interval a run may ask for (one hour): inf or nan
#: would make a trainer that never checkpoints, or a heartbeat that never goes stale.
MAX_INTERVAL_SECONDS = 3600.0

_NOTHING: Any = object()


@dataclass(frozen=True)
class Setting:
    """What the CLI, the app form and ``config.json`` need to know about one field."""

    help: str
    #: the models the field applies to; for another model it must keep its default
    models: tuple[str, ...] = MODELS
    #: a fixed set of values (the CLI's ``choices``, the app's radio buttons)
    choices: tuple[str, ...] = ()
    #: the CLI flag; default ``--`` + the name with dashes (``--no-<name>`` for a switch
    #: that is on by default)
    flag: str = ""
    metavar: str = ""
    #: the label of the app's Train form; empty: the form does not show the field
    label: str = ""
    #: the value a ``config.json`` without this key means (see the module docstring)
    absent: Any = _NOTHING
    #: ``python -m sgpe train`` asks for it on a new run rather than assume the default
    cli_required: bool = False
    #: the smallest allowed value of a whole-number setting (checked on construction)
    minimum: int | None = None


def about(**meta: Any) -> dict[str, Setting]:
    """The metadata of a settings field: ``field(default=..., metadata=about(help=...))``."""
    return {"setting": Setting(**meta)}


def _script_choices() -> tuple[str, ...]:
    from .schema import BUILTIN_SCRIPTS

    return ("auto", *BUILTIN_SCRIPTS)


@dataclass(frozen=True)
class TrainSettings:
    """Everything that decides the learned vocabulary (and nothing else).

    ``min_freq=None`` and ``prepend_space=None`` are resolved on construction (the
    model's and mode's ``min_freq``, and "same as ``leading_space``"), so a settings
    object always holds the values training uses.

    >>> TrainSettings(mode="paper").min_freq
    2
    >>> TrainSettings(model="bytebpe", vocab_size=300).pattern
    'o200k'
    """

    model: Model = field(
        default="sgpe",
        metadata=about(
            help="sgpe, or the byte-level BPE baseline (bytebpe)",
            choices=MODELS,
        ),
    )
    vocab_size: int = field(
        default=32_000,
        metadata=about(
            help="vocabulary size, everything counted: special tokens, base symbols (and "
            "fallback tokens) and merges",
            metavar="N",
            label="Vocabulary size",
            cli_required=True,  # the right size depends on the corpus; a command line says it
        ),
    )
    mode: Mode = field(
        default="hierarchical",
        metadata=about(
            help="hierarchical: starts from code points; merges build parts of one syllable or "
            "join whole syllables, so no token crosses a syllable boundary. paper: the original "
            "SGPE, every syllable of the corpus is a base token",
            models=("sgpe",),
            choices=MODES,
            label="Training mode",
            absent="paper",  # config.json written before the hierarchical mode existed
        ),
    )
    prune_freq: int = field(
        default=2,
        metadata=about(
            help="hierarchical: characters seen fewer than K times stay out of the base alphabet; "
            "paper: syllables seen fewer than K times are dropped. Either way they are spelled "
            "with fallback tokens",
            models=("sgpe",),
            metavar="K",
            label="Prune frequency",
            minimum=0,
        ),
    )
    min_freq: int | None = field(
        default=None,
        metadata=about(
            help="stop merging when the best pair occurs fewer than F times",
            metavar="F",
            label="Minimum pair frequency",
            minimum=1,
        ),
    )
    leading_space: bool = field(
        default=True,
        metadata=about(
            help="attach the space before a word to its first syllable",
            models=("sgpe",),
            label="Leading space",
        ),
    )
    prepend_space: bool | None = field(
        default=None,
        metadata=about(
            help="add a space before each document (SentencePiece's dummy prefix), so a line's "
            "first word is the same token as the word inside a line",
            models=("sgpe",),
        ),
    )
    oov_policy: OOVPolicy = field(
        default="fallback",
        metadata=about(
            help="characters and syllables outside the vocabulary: lossless fallback tokens, or "
            "[UNK] as in the paper",
            models=("sgpe",),
            choices=OOV_POLICIES,
            flag="--oov",
            label="OOV policy",
        ),
    )
    script: str = field(
        default="auto",
        metadata=about(
            help="the script grammar; auto picks one per run of characters",
            models=("sgpe",),
        ),
    )
    # After construction: the schema's JSON document (a dict), or None for a built-in
    # script; ``script`` then holds the schema's key (sgpe.schema.register_schema).
    schema: str | os.PathLike[str] | Mapping[str, Any] | Schema | None = field(
        default=None,
        metadata=about(
            help="a schema JSON file, a linguist's own grammar (docs/scripts.md), instead of "
            "--script; the vocabulary records it whole, so it encodes without the file",
            models=("sgpe",),
            metavar="FILE",
            absent=None,  # runs made before a schema could be given used a built-in script
        ),
    )
    pieces: str = field(
        default="whitespace",
        metadata=about(
            help="what a word (the span merges may not cross) is: a run of non-space "
            "characters, or a run of one script",
            models=("sgpe",),
            choices=PIECE_MODES,
        ),
    )
    pattern: str = field(
        default="o200k",
        metadata=about(
            help="the byte-level split regex, or a name: o200k, cl100k, gpt2",
            models=("bytebpe",),
        ),
    )
    max_piece_units: int = field(
        default=MAX_PIECE_UNITS,
        metadata=about(
            help="cut pieces longer than N syllables at syllable boundaries (text without "
            "spaces would make training quadratic; docs/large_corpora.md)",
            models=("sgpe",),
            metavar="N",
            # Runs made before the cap existed cut nothing: 50,000 units is the largest cap
            # (no real piece is longer), so they resume to the same vocabulary.
            absent=50_000,
        ),
    )

    superwords_from: int | None = field(
        default=None,
        metadata=about(
            help="superwords: from this vocabulary size on, merges may also join whole "
            "syllables across a space, inside runs of words of one script (no punctuation, "
            "digits or line breaks); off, merges stop at spaces",
            models=("sgpe",),
            metavar="N",
            label="Superwords from (vocabulary size)",
            # Runs made before superwords existed never crossed a space.
            absent=None,
        ),
    )

    def __post_init__(self) -> None:
        if self.model == "sgpe":
            _resolve_schema(self)
        for f in dataclasses.fields(self):
            meta = info(f)
            value = getattr(self, f.name)
            if meta.choices and f.name != "script" and value not in meta.choices:
                raise ValueError(
                    f"{f.name} must be one of {', '.join(meta.choices)}, got {value!r}"
                )
            if self.model not in meta.models and value != f.default:
                raise ValueError(
                    f"{f.name} applies only to model {' or '.join(meta.models)}, not to "
                    f"{self.model!r}; leave it at its default ({f.default!r})"
                )
        if self.min_freq is None:
            object.__setattr__(self, "min_freq", default_min_freq(self.mode, self.model))
        if self.prepend_space is None and self.model == "sgpe":
            object.__setattr__(self, "prepend_space", self.leading_space)
        if self.model == "bytebpe":
            if type(self.vocab_size) is not int or self.vocab_size < 257:
                raise ValueError(
                    "vocab_size must be at least 257 for bytebpe (one token per byte and "
                    f"<|endoftext|>), got {self.vocab_size!r}"
                )
        elif type(self.vocab_size) is not int or self.vocab_size <= _special_tokens():
            raise ValueError(
                f"vocab_size must be an integer above {_special_tokens()}, got {self.vocab_size!r}"
            )
        if self.vocab_size > MAX_VOCAB_SIZE:
            raise ValueError(
                f"vocab_size must be at most {MAX_VOCAB_SIZE:,} (a token id is kept in one "
                f"Unicode code point while training), got {self.vocab_size:,}"
            )
        _check_minimums(self)
        if self.prepend_space and not self.leading_space:
            raise ValueError(
                "prepend_space needs leading_space=True (the space joins the first word)"
            )
        if self.superwords_from is not None:
            _check_superwords(self)
        if self.model == "sgpe":
            from .schema import schemas_for

            schemas_for(self.script)  # raises for an unknown script
            check_max_units(self.max_piece_units)
        else:
            from .baselines.patterns import compile_pattern, resolve_pattern

            compile_pattern(resolve_pattern(self.pattern)[0])  # ValueError for a bad pattern

    def baseline(self) -> TrainSettings:
        """The byte-level BPE baseline trained beside these settings: the same vocabulary
        size, the byte-level defaults otherwise (the app's Start trains both). Raises
        ``ValueError`` when the size is below the 257 tokens a byte-level vocabulary needs.

        >>> TrainSettings(vocab_size=4000).baseline().model
        'bytebpe'
        """
        return TrainSettings(model="bytebpe", vocab_size=self.vocab_size)

    def to_dict(self) -> dict[str, Any]:
        """The fields as keyword arguments (``TrainSettings(**s.to_dict()) == s``)."""
        return dataclasses.asdict(self)

    def replace(self, **changes: Any) -> TrainSettings:
        """A copy with some fields changed (``min_freq`` and ``prepend_space`` are decided
        again unless given: a new mode has its own ``min_freq``)."""
        data = self.to_dict()
        for name in ("min_freq", "prepend_space"):
            if (
                getattr(self, name) == _resolved(self, name)
                or self.model not in info(_field(name)).models
            ):
                data[name] = None
        return TrainSettings(**{**data, **changes})

    @property
    def min_count(self) -> int:
        """``min_freq`` as an int (it is always resolved on construction)."""
        assert self.min_freq is not None
        return self.min_freq

    @property
    def hierarchical(self) -> bool:
        return self.mode == "hierarchical"

    def vocab_metadata(self) -> dict[str, Any]:
        """The settings an SGPE ``vocab.json`` records (the keyword arguments of
        :class:`sgpe.Tokenizer` that describe how it was trained)."""
        return {
            "mode": self.mode,
            "prune_freq": self.prune_freq,
            "min_freq": self.min_count,
            "leading_space": self.leading_space,
            "prepend_space": bool(self.prepend_space),
            "oov_policy": self.oov_policy,
            "script": self.script,
            "pieces": self.pieces,
            "superwords_from": self.superwords_from,
        }


def _resolve_schema(s: TrainSettings) -> None:
    """``schema`` given (a path, a parsed schema or a document): check it (a bad one is a
    :class:`sgpe.schema.SchemaError` that says what to fix), keep its document and put its
    key in ``script``. ``script`` naming a registered schema's key: fill in its document,
    so the settings always carry the schema they name (a run's config.json records it)."""
    from .schema import custom_schema, register_schema, resolve_schema, schema_document

    if s.schema is None:
        found = custom_schema(s.script)
        if found is not None:
            object.__setattr__(s, "schema", schema_document(found))
        return
    schema = resolve_schema(s.schema)
    key = register_schema(schema)
    if s.script not in ("auto", key):
        raise ValueError(
            f"schema and script: give one of them, not both (script is {s.script!r}; "
            "a schema brings its own grammar)"
        )
    object.__setattr__(s, "schema", schema_document(schema))
    object.__setattr__(s, "script", key)


def _check_superwords(s: TrainSettings) -> None:
    """``superwords_from``: a vocabulary size above the special tokens, for the default
    hierarchical mode with whitespace pieces and the leading space (a superword is whole
    syllables of several words, each word's space riding on its first syllable)."""
    value = s.superwords_from
    if type(value) is not int or value <= _special_tokens():
        raise ValueError(
            f"superwords_from must be a vocabulary size above {_special_tokens()} (or None), "
            f"got {value!r}"
        )
    if s.mode != "hierarchical" or s.pieces != "whitespace" or not s.leading_space:
        raise ValueError(
            "superwords_from needs mode 'hierarchical', pieces 'whitespace' and leading_space "
            "(a superword joins whole syllables of several words)"
        )
    if value >= s.vocab_size:
        raise ValueError(
            f"superwords_from must be below vocab_size ({s.vocab_size:,}), got {value:,}: "
            "superwords start once the vocabulary has that many tokens, so this run would "
            "learn none; lower it, or leave it off"
        )


def _resolved(settings: TrainSettings, name: str) -> Any:
    if name == "min_freq":
        return default_min_freq(settings.mode, settings.model)
    return settings.leading_space


def _check_minimums(obj: Any) -> None:
    for f in dataclasses.fields(obj):
        low = info(f).minimum
        value = getattr(obj, f.name)
        if low is not None and (type(value) is not int or value < low):
            raise ValueError(f"{f.name} must be >= {low}, got {value!r}")


def _field(name: str) -> dataclasses.Field[Any]:
    for f in settings_fields() + dataclasses.fields(CountOptions):
        if f.name == name:
            return f
    raise KeyError(name)


def _special_tokens() -> int:
    return len(SPECIAL_TOKENS)


@dataclass(frozen=True)
class RunMechanics:
    """How a background run saves and reports its progress. None of these can change the
    trained vocabulary (a resumed or re-checkpointed run ends byte-identical)."""

    # Every checkpoint holds all merges so far, so its cost grows with the run. By default
    # the clock decides (a kill loses at most checkpoint_seconds of merging): the native
    # engine learns a 32k vocabulary of si_train.txt in under half a second, and the seven
    # checkpoints 5,000 merges apart were 0.09 s of 1.1 s in cProfile of one run. The step
    # trigger is for who wants checkpoints at known steps (--checkpoint-every).
    checkpoint_every: int = field(
        default=50_000,
        metadata=about(help="write a checkpoint every M merges", metavar="M", minimum=1),
    )
    checkpoint_seconds: float = field(
        default=5.0, metadata=about(help="... and at least every S seconds", metavar="S")
    )
    heartbeat_seconds: float = field(
        default=1.0, metadata=about(help="rewrite status.json every S seconds", metavar="S")
    )

    def __post_init__(self) -> None:
        _check_minimums(self)
        for name in ("checkpoint_seconds", "heartbeat_seconds"):
            value = getattr(self, name)
            if isinstance(value, int) and not isinstance(value, bool):
                object.__setattr__(self, name, float(value))
                value = float(value)
            if not (
                isinstance(value, float)
                and math.isfinite(value)
                and 0 < value <= MAX_INTERVAL_SECONDS
            ):
                raise ValueError(
                    f"{name} must be a number of seconds in (0, {MAX_INTERVAL_SECONDS:g}], "
                    f"got {value!r}"
                )

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class CountOptions:
    """How a corpus is read and counted: processes, a Dask cluster, and the limits that stop
    a corpus too big to be meant. None of these can change the counts, so none can change
    the vocabulary (``tests/test_scale.py`` proves serial, parallel and Dask alike)."""

    workers: int | None = field(
        default=None,
        metadata=about(
            help="processes that count the corpus (default: every core this process may use; "
            "a small corpus is counted in one)",
            metavar="N",
        ),
    )
    backend: str = field(
        default="local",
        metadata=about(
            help="count here (local) or on a dask.distributed cluster (dask)",
            choices=("local", "dask"),
        ),
    )
    scheduler: str | None = field(
        default=None,
        metadata=about(
            help="with --backend dask: the scheduler's address, e.g. tcp://10.0.0.5:8786 "
            "(default: a LocalCluster on this machine)",
            metavar="ADDRESS",
        ),
    )
    max_corpus_bytes: int | None = field(
        default=None,
        metadata=about(
            help="stop with an error when the corpus (decompressed) is larger (default: no limit)",
            metavar="BYTES",
        ),
    )
    max_line_bytes: int = field(
        default=1 << 26,
        metadata=about(
            help="the longest stretch without a line break or space that may be held in "
            "memory at once",
            metavar="BYTES",
        ),
    )

    def __post_init__(self) -> None:
        check_count_options(
            self.workers, self.backend, self.scheduler, self.max_corpus_bytes, self.max_line_bytes
        )

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


#: The help of the counting options that batch encoding takes too (``python -m sgpe encode
#: --corpus``), worded for encoding.
ENCODE_HELP: Mapping[str, str] = MappingProxyType(
    {
        "workers": "processes that encode the corpus (default: every core this process may "
        "use; a small corpus is encoded in one)",
        "backend": "encode here (local) or on a dask.distributed cluster (dask)",
    }
)


# ============================================================================ field access


def info(f: dataclasses.Field[Any]) -> Setting:
    """The :class:`Setting` metadata of a field."""
    meta = f.metadata.get("setting")
    if not isinstance(meta, Setting):
        raise TypeError(f"field {f.name} has no Setting metadata")
    return meta


def settings_fields() -> tuple[dataclasses.Field[Any], ...]:
    """The fields of :class:`TrainSettings`, then those of :class:`RunMechanics`."""
    return dataclasses.fields(TrainSettings) + dataclasses.fields(RunMechanics)


def count_fields() -> tuple[dataclasses.Field[Any], ...]:
    """The fields of :class:`CountOptions`."""
    return dataclasses.fields(CountOptions)


class TrainKeywords(TypedDict, total=False):
    """The keyword arguments of :func:`sgpe.train`, typed for editors and type checkers: every
    field of :class:`TrainSettings` and :class:`CountOptions`, with its type there (their
    meaning and defaults are there too; ``tests/test_settings.py`` keeps the three equal)."""

    model: Model
    vocab_size: int
    mode: Mode
    prune_freq: int
    min_freq: int | None
    leading_space: bool
    prepend_space: bool | None
    oov_policy: OOVPolicy
    script: str
    schema: str | os.PathLike[str] | Mapping[str, Any] | Schema | None
    pieces: str
    pattern: str
    max_piece_units: int
    superwords_from: int | None
    workers: int | None
    backend: str
    scheduler: str | None
    max_corpus_bytes: int | None
    max_line_bytes: int


TRAIN_FIELDS = frozenset(f.name for f in dataclasses.fields(TrainSettings))
MECHANICS_FIELDS = frozenset(f.name for f in dataclasses.fields(RunMechanics))
COUNT_FIELDS = frozenset(f.name for f in dataclasses.fields(CountOptions))
#: Every setting's name (for the test that no default is restated elsewhere).
SETTING_NAMES = TRAIN_FIELDS | MECHANICS_FIELDS | COUNT_FIELDS


def default(name: str) -> Any:
    """The declared default of a setting (``None`` for ``min_freq``/``prepend_space``:
    decided by other settings)."""
    return _field(name).default


def default_min_freq(mode: str, model: str = "sgpe") -> int:
    """The default ``min_freq`` of a model (and SGPE training mode)."""
    return MIN_FREQ_DEFAULTS[mode if model == "sgpe" else model]


def choices(name: str) -> tuple[str, ...]:
    """The allowed values of a setting with a fixed set (``script``: the built-in grammars)."""
    if name == "script":
        return _script_choices()
    return info(_field(name)).choices


def split_options(options: Mapping[str, Any], where: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Split flat keyword arguments into :class:`TrainSettings` and :class:`RunMechanics`
    ones; an unknown name is a ``TypeError`` that lists the known ones."""
    unknown = sorted(set(options) - TRAIN_FIELDS - MECHANICS_FIELDS)
    if unknown:
        raise TypeError(
            f"{where}: unknown setting {', '.join(map(repr, unknown))}; the settings are "
            f"{', '.join(sorted(TRAIN_FIELDS | MECHANICS_FIELDS))}"
        )
    train = {k: v for k, v in options.items() if k in TRAIN_FIELDS}
    mechanics = {k: v for k, v in options.items() if k in MECHANICS_FIELDS}
    return train, mechanics


def cli_flag(f: dataclasses.Field[Any]) -> str:
    """The ``python -m sgpe train`` flag of a field."""
    meta = info(f)
    if meta.flag:
        return meta.flag
    dashed = f.name.replace("_", "-")
    if f.default is True or (f.name == "prepend_space"):
        return f"--no-{dashed}"  # a switch that is on by default
    return f"--{dashed}"


def default_text(name: str) -> str:
    """A setting's default in words, for help texts."""
    if name == "min_freq":
        pairs = sorted((MIN_FREQ_DEFAULTS[mode], mode) for mode in MODES)
        first, *rest = pairs
        return f"{first[0]}" + "".join(f", or {v} for --mode {mode}" for v, mode in rest)
    if name == "prepend_space":
        return "same as leading space"
    if name == "superwords_from":
        return "off"
    if name == "schema":
        return "none, the --script grammar"
    value = default(name)
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


# ============================================================================ vocabulary files

#: What an SGPE ``vocab.json`` means for a setting it does not record (files of versions
#: before the key existed): the original SGPE's behaviour (paper mode, no dummy space, its
#: ``min_freq``, no pruning). ``Tokenizer._from_dict`` (so :func:`sgpe.load`) applies it; ``Tokenizer(...)`` itself
#: takes train's defaults for a setting it is not given.
#: New vocabularies record every one of these (:meth:`TrainSettings.vocab_metadata`).
UNRECORDED: Mapping[str, Any] = MappingProxyType(
    {
        "model": "sgpe",
        "mode": "paper",
        "prune_freq": 0,
        "min_freq": MIN_FREQ_DEFAULTS["paper"],
        "leading_space": True,
        "prepend_space": False,
        "oov_policy": "fallback",
        "script": "auto",
        "pieces": "whitespace",
    }
)

#: The settings of a ``vocab.json`` written by the original SGPE trainer (recognised by its
#: ``version``: it records none of them): Sinhala only, script runs as pieces, ``[UNK]``.
ORIGINAL_TRAINER: Mapping[str, Any] = MappingProxyType(
    {"model": "sgpe", "scripts": "sinhala", "pieces": "script", "oov_policy": "unk"}
)


# The counting options are checked here, below sgpe/corpus/counting.py (which imports this
# module), so that settings import nothing above them; counting re-exports both names.
BACKENDS = ("local", "dask")


def check_count_options(
    workers: int | None,
    backend: str,
    scheduler: str | None,
    max_corpus_bytes: int | None,
    max_line_bytes: int,
) -> None:
    """Raise ``ValueError`` naming the first bad counting option."""
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)):
        raise ValueError(f"workers must be a whole number of processes or None, got {workers!r}")
    if workers is not None and workers < 1:
        raise ValueError(f"workers must be at least 1 (or None for all cores), got {workers}")
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if scheduler is not None and backend != "dask":
        raise ValueError("scheduler: only for backend 'dask'")
    for name, value in (("max_corpus_bytes", max_corpus_bytes), ("max_line_bytes", max_line_bytes)):
        if value is None and name == "max_corpus_bytes":
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive number of bytes, got {value!r}")

"""One settings type: every default of a training setting is declared once, in
sgpe/settings.py, and every consumer (library, CLI, run config, run requests, app form,
vocabulary metadata, shipped vocabularies) takes it from there."""

from __future__ import annotations

import ast
import dataclasses
import json
from pathlib import Path

import pytest

import sgpe
from sgpe import cli, shipped
from sgpe.cli import train as cli_train
from sgpe.gpe import GPETrainer
from sgpe.runs import RunConfig, RunError, create_run, read_config
from sgpe.settings import (
    MIN_FREQ_DEFAULTS,
    SETTING_NAMES,
    RunMechanics,
    TrainSettings,
    cli_flag,
    count_fields,
    default,
    info,
    settings_fields,
)
from sgpe_explorer.runs.manager import RunRequest

ROOT = Path(__file__).resolve().parents[1]

# ============================================================================ the scan

#: Names a setting goes by outside the dataclass: the CLI's ``--oov`` and vocab.json's
#: ``scripts`` key.
ALIASES = {"oov": "oov_policy", "scripts": "script"}
#: Names that other parts of the code use for options of their own (the syllabifier's
#: ``script`` and ``leading_space``, a tokenizer's ``model`` kind, a page's ``mode``): they
#: are checked in the modules that consume training settings, the others everywhere.
SHARED_NAMES = {"model", "mode", "script", "leading_space", "prepend_space", "pieces", "scripts"}
NAMES = SETTING_NAMES | set(ALIASES)
CONSUMERS = (
    "bench/",
    "sgpe_explorer/app/app_pages/train.py",
    "sgpe/baselines/bytebpe.py",
    "sgpe/cli/",
    "sgpe/gpe.py",
    "sgpe/runs/",
    "sgpe/shipped.py",
    "sgpe/tokenizer.py",
    "sgpe_explorer/runs/",
    "sgpe_explorer/ui/train_form.py",
)
LABELS = {info(f).label: f.name for f in settings_fields() if info(f).label}
FLAGS = {cli_flag(f): f.name for f in settings_fields()} | {
    "--" + f.name.replace("_", "-"): f.name for f in settings_fields()
}

#: Places that may give a setting's name a fixed value, with the reason. Every entry must
#: still match something (a stale entry fails the test too).
ALLOWED = {
    ("sgpe/gpe.py", "checkpoint_every", "parameter default"): (
        "0 = no checkpoints: in-process training with no run directory"
    ),
    ("bench/speed.py", "vocab_size", "CLI flag default"): "the size the benchmark measures",
    ("bench/long_pieces.py", "vocab_size", "CLI flag default"): "the size the benchmark measures",
    ("bench/peers.py", "script", "parameter default"): (
        "the syllabifier's own option (every script at once), not a training setting"
    ),
    ("sgpe/adapters.py", "vocab_size", "parameter default"): (
        "an adapted tokenizer that does not say its size: 0 = unknown"
    ),
    ("sgpe/adapters.py", "vocab_size", "fallback value"): (
        "an adapted tokenizer that does not say its size: 0 = unknown"
    ),
    ("sgpe/_driver.py", "checkpoint_every", "parameter default"): (
        "0 = no checkpoints: in-process training with no run directory"
    ),
    (
        "sgpe_explorer/ui/resources.py",
        "vocab_size",
        "field default",
    ): "a listed vocabulary's size, 0: unknown",
}


def _files() -> list[Path]:
    out = [ROOT / "app.py"]
    for folder in ("sgpe", "sgpe_explorer", "bench"):
        out += sorted((ROOT / folder).rglob("*.py"))
    return [p for p in out if p != ROOT / "sgpe" / "settings.py"]


def _fixed(node: ast.AST | None) -> bool:
    """A literal value other than None (a restated default), e.g. ``2``, ``-1``, ``"auto"``."""
    if isinstance(node, ast.UnaryOp):
        node = node.operand
    return isinstance(node, ast.Constant) and node.value is not None


def _str(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def restated_defaults(path: Path, names: set[str] = NAMES) -> list[tuple[str, int, str]]:
    """(setting, line, what) for each literal default of a setting in a file."""
    NAMES = names
    tree = ast.parse(path.read_text(encoding="utf-8"))
    hits: list[tuple[str, int, str]] = []

    def hit(name: str, node: ast.AST, what: str) -> None:
        hits.append((ALIASES.get(name, name), getattr(node, "lineno", 0), what))

    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            a = node.args
            positional = a.posonlyargs + a.args
            pairs = list(zip(positional[len(positional) - len(a.defaults) :], a.defaults))
            pairs += [(k, d) for k, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]
            for arg, value in pairs:
                if arg.arg in NAMES and _fixed(value):
                    hit(arg.arg, value, "parameter default")
        elif isinstance(node, ast.ClassDef):
            for stmt in node.body:
                if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                    name, value = stmt.target.id, stmt.value
                    if isinstance(value, ast.Call):  # field(default=...)
                        value = next((k.value for k in value.keywords if k.arg == "default"), None)
                    if name in NAMES and _fixed(value):
                        hit(name, stmt, "field default")
        elif isinstance(node, ast.Dict):
            keyed = [
                (_str(k), v) for k, v in zip(node.keys, node.values) if k is not None and _str(k)
            ]
            fixed = [(k, v) for k, v in keyed if k in NAMES and _fixed(v)]
            if len(fixed) >= 2:
                for k, v in fixed:
                    hit(str(k), v, "dict of settings")
        elif isinstance(node, ast.Call):
            args = node.args
            first = _str(args[0]) if args else None
            # argparse: add_argument("--prune-freq", default=2)
            if first in FLAGS:
                for k in node.keywords:
                    if k.arg == "default" and _fixed(k.value):
                        hit(FLAGS[first], k.value, "CLI flag default")
            # a form widget labelled like a setting: number_input("Prune frequency", 0, 9, 1)
            if first in LABELS:
                for k in node.keywords:
                    if k.arg in ("value", "index") and _fixed(k.value):
                        hit(LABELS[first], k.value, "form widget value")
                if len(args) >= 4 and _fixed(args[3]):
                    hit(LABELS[first], args[3], "form widget value")
            # a lookup with a fallback: data.get("prune_freq", 2), _optional(d, "x", int, 0)
            for i, a in enumerate(args):
                name = _str(a)
                if name in NAMES:
                    later = [x for x in args[i + 1 :] if not isinstance(x, ast.Name)]
                    if later and _fixed(later[0]):
                        hit(name, later[0], "fallback value")
    return hits


def test_no_setting_default_is_restated_outside_sgpe_settings():
    found: dict[tuple[str, str, str], list[str]] = {}
    for path in _files():
        rel = path.relative_to(ROOT).as_posix()
        consumer = rel.startswith(CONSUMERS)
        for name, line, what in restated_defaults(
            path, NAMES if consumer else NAMES - SHARED_NAMES
        ):
            found.setdefault((rel, name, what), []).append(f"{rel}:{line}: {name} ({what})")
    restated = [msg for key, msgs in found.items() if key not in ALLOWED for msg in msgs]
    assert not restated, "defaults declared outside sgpe/settings.py:\n" + "\n".join(restated)
    stale = [key for key in ALLOWED if key not in found]
    assert not stale, f"allow-list entries that no longer match anything: {stale}"


def test_the_scan_finds_each_kind_of_restated_default(tmp_path):
    """The scan is not vacuous: each way of restating a default is caught."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import argparse\n"
        "def f(x, *, prune_freq=1, mode='paper'):\n    pass\n"
        "class C:\n    vocab_size: int = 4000\n    oov_policy: str = field(default='unk')\n"
        "D = {'min_freq': 2, 'script': 'auto'}\n"
        "argparse.ArgumentParser().add_argument('--prune-freq', type=int, default=2)\n"
        "st.number_input('Minimum pair frequency', 1, 100, 1)\n"
        "data.get('pieces', 'whitespace')\n"
        "ok = {'min_freq': m, 'script': s}\n"
        "g(prune_freq=1)  # an explicit choice at a call site is not a default\n",
        encoding="utf-8",
    )
    got = sorted((name, line) for name, line, _ in restated_defaults(sample))
    assert got == [
        ("min_freq", 7),
        ("min_freq", 9),
        ("mode", 2),
        ("oov_policy", 6),
        ("pieces", 10),
        ("prune_freq", 2),
        ("prune_freq", 8),
        ("script", 7),
        ("vocab_size", 5),
    ]


# ============================================================================ the one type


def test_the_old_import_paths_give_the_one_type():
    from sgpe.gpe import TrainSettings as from_gpe

    assert sgpe.TrainSettings is from_gpe is TrainSettings


def test_defaults_are_documented_and_resolved():
    s = TrainSettings()
    assert (s.model, s.vocab_size, s.mode, s.prune_freq) == ("sgpe", 32_000, "hierarchical", 2)
    assert s.min_freq == MIN_FREQ_DEFAULTS["hierarchical"] == 1
    assert TrainSettings(mode="paper").min_freq == MIN_FREQ_DEFAULTS["paper"] == 2
    assert TrainSettings(model="bytebpe", vocab_size=300).min_freq == MIN_FREQ_DEFAULTS["bytebpe"]
    assert s.prepend_space is True and TrainSettings(leading_space=False).prepend_space is False
    # every field has help text, and the round trip through keywords is exact
    assert all(info(f).help for f in settings_fields())
    assert TrainSettings(**s.to_dict()) == s
    b = TrainSettings(model="bytebpe", vocab_size=300, pattern="gpt2")
    assert TrainSettings(**b.to_dict()) == b
    assert s.replace(mode="paper").min_freq == 2  # a new mode has its own min_freq
    assert s.replace(mode="paper", min_freq=5).min_freq == 5


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"mode": "fast"}, "mode must be one of hierarchical, paper, got 'fast'"),
        ({"oov_policy": "drop"}, "oov_policy must be one of fallback, unk, got 'drop'"),
        ({"pieces": "lines"}, "pieces must be one of whitespace, script, got 'lines'"),
        ({"vocab_size": 5}, "vocab_size must be an integer above 5, got 5"),
        ({"prune_freq": -1}, "prune_freq must be >= 0, got -1"),
        ({"min_freq": 0}, "min_freq must be >= 1, got 0"),
        ({"leading_space": False, "prepend_space": True}, "prepend_space needs leading_space"),
        ({"pattern": "gpt2"}, "pattern applies only to model bytebpe, not to 'sgpe'"),
        (
            {"model": "bytebpe", "vocab_size": 300, "mode": "paper"},
            "mode applies only to model sgpe",
        ),
        ({"model": "bytebpe", "vocab_size": 256}, "vocab_size must be at least 257 for bytebpe"),
        ({"model": "bytebpe", "vocab_size": 300, "pattern": "("}, "invalid split pattern"),
    ],
)
def test_bad_settings_name_the_field(options, message):
    with pytest.raises(ValueError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        TrainSettings(**options)


def test_mechanics_are_checked_and_separate():
    assert RunMechanics() == RunMechanics(
        checkpoint_every=default("checkpoint_every"),
        checkpoint_seconds=default("checkpoint_seconds"),
        heartbeat_seconds=default("heartbeat_seconds"),
    )
    assert RunMechanics(checkpoint_seconds=2).checkpoint_seconds == 2.0
    for bad in (0.0, -1.0, float("inf"), float("nan"), 3601.0):
        with pytest.raises(ValueError, match=r"^heartbeat_seconds must be a number of seconds"):
            RunMechanics(heartbeat_seconds=bad)
    with pytest.raises(ValueError, match=r"^checkpoint_every must be >= 1, got 0"):
        RunMechanics(checkpoint_every=0)
    names = {f.name for f in dataclasses.fields(RunMechanics)}
    assert not names & {f.name for f in dataclasses.fields(TrainSettings)}


# ============================================================================ the library

DOCS = ["ශ්\u200dරී ලංකාව ලස්සන රටකි.", "ලංකා ලංකා ලංකාව", "नमस्ते दुनिया नमस्ते"] * 5


def test_sgpe_train_takes_the_settings_fields_as_keywords():
    options = {"vocab_size": 400, "mode": "paper", "prune_freq": 1, "min_freq": 1}
    options |= {"oov_policy": "unk", "script": "auto", "pieces": "whitespace"}
    options |= {"leading_space": True, "prepend_space": False}
    tok = sgpe.train(DOCS, **options)
    same = GPETrainer(TrainSettings(**options)).train(DOCS)
    assert tok.to_dict() == same.to_dict()
    # the vocabulary records exactly the settings that trained it
    meta = TrainSettings(**options).vocab_metadata()
    assert {k: getattr(tok, k) for k in meta} == meta
    with pytest.raises(TypeError, match="unknown setting 'vocab'; the settings are the fields"):
        sgpe.train(DOCS, vocab=400)
    with pytest.raises(ValueError, match="GPETrainer trains SGPE vocabularies, not model"):
        GPETrainer(TrainSettings(model="bytebpe", vocab_size=300))


def test_train_takes_the_byte_level_model_as_train_settings_do(tmp_path):
    """``TrainSettings(model="bytebpe")`` (what ``sgpe train --model bytebpe`` runs) and
    ``sgpe.train(model="bytebpe")`` agree: both train the baseline, with its settings."""
    from sgpe.baselines.bytebpe import ByteBPETokenizer
    from sgpe.gpe import ProgressEvent

    events: list[ProgressEvent] = []
    tok = sgpe.train(DOCS, model="bytebpe", vocab_size=300, pattern="gpt2", progress=events.append)
    assert isinstance(tok, ByteBPETokenizer)
    same = ByteBPETokenizer.train(DOCS, 300, pattern="gpt2")
    assert tok.to_dict() == same.to_dict() and tok.vocab_size == 300
    assert [(e.step, e.target) for e in events] == [(k, 43) for k in range(1, 44)]
    assert [e.pair for e in events] == [
        (tok.id_to_token(a), tok.id_to_token(b)) for a, b in tok.merges
    ]
    # A corpus file reads as the command line's run reads it: its documents, one a line.
    corpus = tmp_path / "docs.txt"
    corpus.write_text("\n".join(DOCS) + "\n", encoding="utf-8")
    assert sgpe.train(corpus, model="bytebpe", vocab_size=300, pattern="gpt2").merges == same.merges
    with pytest.raises(ValueError, match="applies only to model sgpe"):
        sgpe.train(DOCS, model="bytebpe", vocab_size=300, mode="paper")


def test_the_shipped_vocabularies_record_their_settings():
    for path, settings in [
        (shipped.DEFAULT_SGPE, shipped.SGPE_SETTINGS),
        (shipped.PAPER_SGPE, shipped.PAPER_SETTINGS),
    ]:
        tok = sgpe.load(path)
        meta = settings.vocab_metadata()
        assert {k: getattr(tok, k) for k in meta} == meta
    base = sgpe.load(shipped.DEFAULT_BYTEBPE)
    assert base.pattern_name == shipped.BYTEBPE_SETTINGS.pattern
    assert base.vocab_size == shipped.BYTEBPE_SETTINGS.vocab_size


# ============================================================================ the CLI

#: Every flag ``python -m sgpe train`` had before the settings were declared once, and
#: the ones added since (``--superwords-from``).
TRAIN_FLAGS = {
    "--model", "--vocab-size", "--mode", "--prune-freq", "--min-freq", "--oov", "--script",
    "--schema", "--pieces", "--no-leading-space", "--no-prepend-space", "--pattern", "--checkpoint-every",
    "--checkpoint-seconds", "--heartbeat-seconds", "--max-piece-units", "--superwords-from",
}  # fmt: skip
#: The counting flags (CountOptions) that train shares with count: a run records them.
COUNT_FLAGS = {"--workers", "--backend", "--scheduler", "--max-corpus-bytes", "--max-line-bytes"}


def _train_parser():
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return sub.choices["train"]


def test_cli_has_one_flag_per_setting_with_its_default_in_the_help():
    train = _train_parser()
    flags = {o for a in train._actions for o in a.option_strings}
    assert (
        flags - {"-h", "--help", "--corpus", "--out", "--resume", "--word-counts"}
        == TRAIN_FLAGS | COUNT_FLAGS
    )
    assert {cli_flag(f) for f in settings_fields()} == TRAIN_FLAGS
    assert {cli_flag(f) for f in count_fields()} == COUNT_FLAGS
    helps = {o: a.help or "" for a in train._actions for o in a.option_strings}
    assert "(default: 2)" in helps["--prune-freq"]
    assert "(default: 1, or 2 for --mode paper)" in helps["--min-freq"]
    assert "(default: 50000)" in helps["--checkpoint-every"]
    assert "(required for a new run)" in helps["--vocab-size"]
    assert helps["--pattern"].startswith("bytebpe: ")
    for f in settings_fields():  # every flag defaults to None/False: a resume tells them apart
        action = next(a for a in train._actions if cli_flag(f) in a.option_strings)
        assert action.default in (None, False), f.name


def test_cli_flags_make_the_same_config_as_keywords(tmp_path):
    args = _train_parser().parse_args(
        [
            *("--out", "x", "--vocab-size", "700", "--mode", "paper", "--oov", "unk"),
            *("--no-prepend-space", "--checkpoint-every", "5"),
        ]
    )
    config = cli_train._config_from_args(args)
    assert config == RunConfig(
        vocab_size=700, mode="paper", oov_policy="unk", prepend_space=False, checkpoint_every=5
    )
    assert config.min_freq == 2


# ============================================================================ run files

#: config.json files written by the previous RunConfig (flat JSON), with the fingerprints
#: that version computed: they must load unchanged and keep their fingerprints, or an
#: interrupted run of that version could not resume from its checkpoint.
OLD_CONFIGS = [
    (
        '{"format": "sgpe-run-config", "format_version": 1, "model": "sgpe", "vocab_size": 700, "mode": "hierarchical", "prune_freq": 1, "min_freq": 1, "oov_policy": "fallback", "script": "auto", "pieces": "whitespace", "leading_space": true, "prepend_space": true, "pattern": "o200k", "checkpoint_every": 1000, "checkpoint_seconds": 5.0, "heartbeat_seconds": 1.0, "corpus": "corpus.txt", "corpus_name": "a.txt", "corpus_sha256": "abababababababababababababababababababababababababababababababab", "created": 1.5}',
        "a77847eced68aafb771f53ab2c8e8590570e2f2050306dd3c7f234133d1e9546",
    ),
    (
        '{"format": "sgpe-run-config", "format_version": 1, "model": "bytebpe", "vocab_size": 400, "mode": "hierarchical", "prune_freq": 2, "min_freq": 1, "oov_policy": "fallback", "script": "auto", "pieces": "whitespace", "leading_space": true, "prepend_space": true, "pattern": "o200k", "checkpoint_every": 1000, "checkpoint_seconds": 5.0, "heartbeat_seconds": 1.0, "corpus": "corpus.txt", "corpus_name": "b.txt", "corpus_sha256": "efefefefefefefefefefefefefefefefefefefefefefefefefefefefefefefef", "created": 2.0}',
        "d43f02b08b90617736ec988c135ed8f793dd1d27693e2aa11f1c1e8c5cff5558",
    ),
]


@pytest.mark.parametrize(("text", "fingerprint"), OLD_CONFIGS)
def test_old_config_json_loads_with_its_fingerprint(tmp_path, text, fingerprint):
    (tmp_path / "config.json").write_text(text, encoding="utf-8")
    config = read_config(tmp_path)
    assert config.fingerprint() == fingerprint
    old = json.loads(text)
    # Written back with the same keys and values, plus the settings added since, at the
    # value that reproduces the old run (the piece cap: none, i.e. the largest).
    written = config.to_dict()
    cap = written.pop("max_piece_units")
    assert written.pop("superwords_from") is None  # no superwords: merges stop at spaces
    assert written == old
    assert cap == (50_000 if old["model"] == "sgpe" else default("max_piece_units"))
    assert config.vocab_size == old["vocab_size"] and config.corpus_name == old["corpus_name"]


def test_config_without_mode_is_a_paper_run_with_the_old_fingerprint(tmp_path):
    """A config.json from before the hierarchical mode: no 'mode' key means paper, and the
    fingerprint is the one that version computed (it left mode out)."""
    data = json.loads(OLD_CONFIGS[0][0])
    del data["mode"]
    (tmp_path / "config.json").write_text(json.dumps(data), encoding="utf-8")
    config = read_config(tmp_path)
    assert (config.mode, config.min_freq) == ("paper", 1)
    assert config.fingerprint() == (
        "71bc4cc8ddeabd23f67ca390f68a7aca48834e10a6a1564c93166ca03e83159e"
    )


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("vocab_size", "700", "key 'vocab_size' must be a int, got '700'"),
        ("min_freq", 0, "min_freq must be >= 1, got 0; start a new run"),
        ("heartbeat_seconds", 0, "heartbeat_seconds must be a number of seconds"),
        ("corpus", 3, "key 'corpus' must be a str, got 3"),
    ],
)
def test_a_bad_config_json_names_the_key(tmp_path, key, value, message):
    data = json.loads(OLD_CONFIGS[0][0]) | {key: value}
    (tmp_path / "config.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(RunError, match=f"^{tmp_path / 'config.json'}: .*{message}"):
        read_config(tmp_path)


def test_run_request_keywords_and_settings_objects_agree(tmp_path):
    flat = RunRequest(b"x", name="a.txt", vocab_size=900, mode="paper", checkpoint_every=7)
    objects = RunRequest(
        b"x",
        name="a.txt",
        settings=TrainSettings(vocab_size=900, mode="paper"),
        mechanics=RunMechanics(checkpoint_every=7),
    )
    assert flat.config() == objects.config()
    assert flat.vocab_size == 900 and flat.min_freq == 2 and flat.checkpoint_every == 7
    with pytest.raises(TypeError, match="RunRequest: unknown setting 'size'"):
        RunRequest(b"x", name="a.txt", size=900)
    with pytest.raises(ValueError, match="pattern applies only to model bytebpe"):
        RunRequest(b"x", name="a.txt", pattern="gpt2")
    corpus = tmp_path / "c.txt"
    corpus.write_text("\n".join(DOCS) + "\n", encoding="utf-8")
    made = create_run(tmp_path / "run", flat.config(), corpus)
    assert read_config(tmp_path / "run") == made
    assert made.settings == flat.settings and made.corpus_name == "c.txt"


def test_train_keywords_are_the_settings_fields_with_their_types() -> None:
    """`sgpe.train`'s typed keywords (TrainKeywords) are exactly the fields of TrainSettings and
    CountOptions, each with the same type: a new setting that is not added there fails."""
    import dataclasses

    from sgpe.settings import CountOptions, TrainKeywords, TrainSettings

    fields = {
        f.name: f.type for cls in (TrainSettings, CountOptions) for f in dataclasses.fields(cls)
    }
    assert TrainKeywords.__annotations__.keys() == fields.keys()
    for name, type_ in fields.items():
        written = TrainKeywords.__annotations__[name]
        assert getattr(written, "__forward_arg__", written) == type_, name

"""The one seam between the pure-Python engine and the native core (``sgpe._native``).

:func:`engine` says which engine runs: ``"native"`` when the Rust extension is built and
importable (the wheel carries it; ``pip install`` builds it where cargo exists), else
``"python"``. The environment variable ``SGPE_ENGINE`` decides instead, and it is the only
switch:

* ``SGPE_ENGINE=python`` forces the pure-Python engine even where the extension is built;
* ``SGPE_ENGINE=native`` requires the extension and fails with :class:`EngineError` (saying
  how to build it) when it is missing;
* unset, empty or ``auto``: the native core if present, else Python.

The module is private (``sgpe._engine``) so that the public name ``sgpe.engine`` can be
the plain function :func:`engine`: a package's attribute is set to its submodule whenever
that submodule is first imported, so a public module of the same name would replace the
function at a moment that depends on import order.

The Python engine is the reference, written to be read; the native core is the fast twin.
No code outside this module asks which engine runs. It holds what a ``native_*`` function
here hands out (a native object, or None under the Python engine and where the core cannot
take the input) and asks :func:`dispatch` for an operation, giving it both twins: the
native call and the Python reference; no public method takes or returns a native object
(``sgpe.load`` is the one way to load). :func:`dispatch` is the one place that decides which answers,
including the two fallbacks (an input too small to pay for a native call, and a lone
surrogate, which UTF-8 cannot hold). The merge loops of either engine report their
merges in batches through the one driver :func:`run_in_batches`. Nothing else imports
``sgpe._native``. Both engines give identical results (``tests/test_native.py`` and the
other differential tests compare them on the real corpora and on generated text).

What this module deliberately does not do: pick per call. The engine is fixed when first
asked (the variable is read once per process; :func:`reset` is for tests).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache, partial
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from ._json import CANONICAL_LAYOUT, JsonLayout, dumps_json
from .schema import code_point_ranges, is_known_script, schemas_for

if TYPE_CHECKING:
    # The trainers' types, re-exported for the type hints of their callers.
    from ._native import BpeTrainer as BpeTrainer
    from ._native import HierarchicalTrainer as NativeHierarchicalTrainer
    from ._native import PieceCounter as NativePieceCounter
    from ._native import PieceCounter as PieceCounter  # the type of WordSplitter.native_counter
    from ._native import SchemaTables
    from ._native import Syllabifier as NativeSyllabifier
    from ._native import TextEncoder as NativeTextEncoder
    from ._native import TextEncoder as TextEncoder  # the type of Tokenizer._native_pieces
    from ._native import VocabFile as VocabFile  # the type of Tokenizer._file
    from .schema import Schema

Engine = Literal["native", "python"]
ENV_VAR = "SGPE_ENGINE"
_CHOICES = ("native", "python", "auto", "")

C = TypeVar("C")  # a native object (a syllabifier, an encoder, a trainer, ...)
R = TypeVar("R")


class EngineError(ImportError):
    """``SGPE_ENGINE=native`` was asked for and the native core cannot be loaded."""


@cache
def _load() -> tuple[ModuleType | None, str]:
    """The extension module, or None and why not."""
    try:
        from . import _native
    except ImportError as err:
        return None, str(err)
    return _native, ""


@cache
def engine() -> Engine:
    """``"native"`` or ``"python"``: which engine this process runs (see the module doc).

    >>> engine() in ("native", "python")
    True
    """
    choice = os.environ.get(ENV_VAR, "").strip().lower()
    if choice not in _CHOICES:
        raise EngineError(
            f"{ENV_VAR}={os.environ[ENV_VAR]!r}: use 'native', 'python' or 'auto' (or unset it)"
        )
    if choice == "python":
        return "python"
    module, why = _load()
    if module is not None:
        return "native"
    if choice == "native":
        raise EngineError(
            f"{ENV_VAR}=native, but the native core sgpe._native cannot be imported ({why}). "
            "Install a wheel that carries it, or install Rust (cargo) and reinstall sgpe "
            "(in a checkout: `bash scripts/build_native.sh`), "
            f"or unset {ENV_VAR} to run the pure-Python engine."
        )
    return "python"


def native_module() -> ModuleType | None:
    """``sgpe._native`` under the native engine, else None."""
    return _load()[0] if engine() == "native" else None


def describe() -> str:
    """One line for ``--version`` and the app: which engine runs, and why."""
    if engine() == "native":
        module = _load()[0]
        return f"native engine (sgpe._native {getattr(module, '__version__', '?')})"
    if os.environ.get(ENV_VAR, "").strip().lower() == "python":
        return f"pure-Python engine ({ENV_VAR}=python)"
    return (
        "pure-Python engine (the native core is not built: install a wheel that carries it, "
        "or install Rust and reinstall; in a checkout, bash scripts/build_native.sh)"
    )


def reset() -> None:
    """Forget the engine choice (tests change ``SGPE_ENGINE`` and ask again)."""
    engine.cache_clear()
    native_syllabifier.cache_clear()


@contextmanager
def engine_set_to(name: str) -> Iterator[None]:
    """Run the block under ``SGPE_ENGINE=name`` (the differential tests and the benches
    compare both engines in one process): the choice is asked again inside and after the
    block, and the variable is restored."""
    old = os.environ.get(ENV_VAR)
    os.environ[ENV_VAR] = name
    reset()
    try:
        yield
    finally:
        if old is None:
            del os.environ[ENV_VAR]
        else:
            os.environ[ENV_VAR] = old
        reset()


# ============================================================================
# The one dispatch, and the one batch driver of the native merge loops
# ============================================================================


def dispatch(
    native_object: C | None,
    native: Callable[[C], R | None],
    python: Callable[[], R],
    *,
    size: int = 0,
    min_size: int = 0,
    surrogate_fallback: bool = True,
) -> R:
    """The answer of ``native(native_object)``, or of the Python reference ``python()``.

    The Python reference answers when there is no native object (the Python engine, or an
    input the core does not take: a schema that is not built in, a symbol table with a
    lone surrogate), when the input is smaller than ``min_size`` (``size`` is its size:
    the call into the core costs more than it saves), and when the core declines: it
    returns None, or (with ``surrogate_fallback``) raises ``UnicodeEncodeError`` for a
    lone surrogate, which UTF-8 cannot hold. A caller whose input is consumed as it is
    read (a corpus stream) or whose callbacks have already run (a merge loop) turns
    ``surrogate_fallback`` off: the error is then the caller's, as under either engine.
    """
    if native_object is not None and size >= min_size:
        if surrogate_fallback:
            try:
                found = native(native_object)
            except UnicodeEncodeError:
                found = None
        else:
            found = native(native_object)
        if found is not None:
            return found
    return python()


# The merge loops (the native ones without the GIL) hand their merges back at most this
# many at a time, or after about this many seconds of work (a checkpoint step ends a batch
# too): a progress display or a signal handler waits at most one batch.
BATCH_MERGES = 4096
BATCH_SECONDS = 0.1
# No limit: a billion merges (beyond every vocabulary) or seconds (about thirty years, a
# time the core's Duration still holds).
_NO_LIMIT = 1_000_000_000


def run_in_batches(step: Callable[[int, float], bool], *, report: bool = True) -> None:
    """Run a merge loop (either engine's) to its end: ``step(most, seconds)`` runs it for
    at most ``most`` merges or about ``seconds`` (handing the batch's merges to its
    callbacks) and says whether the loop is done. Without ``report`` (no callback wants
    the merges) the loop runs in one batch."""
    most, seconds = (BATCH_MERGES, BATCH_SECONDS) if report else (_NO_LIMIT, _NO_LIMIT)
    while not step(most, seconds):
        pass


# ============================================================================
# The native functions, each built from the same data as its Python twin
# ============================================================================


def schema_tables(schema: Schema) -> SchemaTables:
    """One schema's class ranges, units and DFA table as the native core takes them."""
    return (
        [(letter, code_point_ranges(chars)) for letter, chars in sorted(schema.classes.items())],
        [(u.cls, u.sequence) for u in schema.units],
        schema.dfa_start,
        [(state, sorted(edges.items())) for state, edges in sorted(schema.dfa.items())],
        sorted(schema.dfa_accept),
        sorted(schema.dfa_orphan_states),
    )


@cache
def builtin_tables(script: str) -> list[SchemaTables]:
    """The tables of a ``script`` setting's schemas (one built-in script, all of them for
    ``"auto"``, or a linguist's own by its key, sgpe/schema.py ``register_schema``), made
    once per process: every native object of the setting is built from them."""
    return [schema_tables(s) for s in schemas_for(script)]


@cache
def native_syllabifier(
    script: str, leading_space: bool, custom: bool = False
) -> NativeSyllabifier | None:
    """The native DFA syllabifier of a ``script`` setting (a built-in script, ``"auto"``
    or a registered schema's key), or None under the Python engine and for ``custom``
    schemas handed to a syllabifier without a key (the Grammar page's while it is edited). Its ``syllabify``/``spans`` give what
    :class:`sgpe.syllables.Syllabifier` gives; a text with a lone surrogate (which UTF-8
    cannot hold) raises ``UnicodeEncodeError``, and :func:`dispatch` runs Python's instead."""
    module = native_module()
    if module is None or custom:
        return None
    if not is_known_script(script):
        return None
    tables = builtin_tables(script)
    made: NativeSyllabifier = module.Syllabifier(tables, leading_space)
    return made


def native_text_encoder(
    script: str,
    leading_space: bool,
    pieces: str,
    max_units: int,
    span_letters: Sequence[frozenset[str]],
    vocab: dict[str, int],
    byte_ids: list[int],
    unk_id: int,
    part_ranks: dict[tuple[int, int], tuple[int, int]],
    join_ranks: dict[tuple[int, int], tuple[int, int]],
    paper: bool = False,
) -> NativeTextEncoder | None:
    """The native twin of ``Tokenizer.encode`` for a vocabulary of a built-in ``script``
    setting, or None under the Python engine: the pieces of
    :class:`sgpe.pieces.WordSplitter` (``pieces``, ``max_units``; superword spans of the
    ``span_letters`` of :func:`sgpe.pieces.span_letters`, none when empty), a
    piece cache, and both phases of :class:`sgpe.hierarchical.HierarchicalEncoder`; with
    ``paper``, the paper mode's encoder instead (syllables looked up in ``vocab``, every
    merge in ``part_ranks``). A byte token or ``[UNK]`` the vocabulary lacks is spelled -1
    by both engines."""
    module = native_module()
    if module is None or not is_known_script(script):
        return None
    schemas = schemas_for(script)
    tables = builtin_tables(script)
    char_ids = {t: i for t, i in vocab.items() if len(t) == 1}
    word_chars = (
        code_point_ranges(frozenset().union(*(s.word_chars for s in schemas)))
        if pieces == "script"
        else None
    )
    spans = [code_point_ranges(letters) for letters in span_letters]
    made: NativeTextEncoder = module.TextEncoder(
        tables,
        leading_space,
        char_ids,
        byte_ids or None,
        unk_id,
        part_ranks,
        join_ranks,
        word_chars,
        spans,
        max_units,
        vocab if paper else None,
    )
    return made


def native_vocab_file(path: str | os.PathLike[str]) -> VocabFile | None:
    """``vocab.json`` read by the native core (:func:`sgpe.load` of an SGPE file), or None under the Python
    engine and wherever the core declines: it parses ``vocab`` and ``merges`` and checks
    what ``Tokenizer._check`` checks of them, and declines anything it does not accept (a
    file it cannot read, JSON it does not take, a bad key), so that the Python reader,
    reading the file again, says what is wrong in its own words. Its ``header`` is every
    other key as JSON text, for the Python reader's checks."""
    module = native_module()
    if module is None:
        return None
    found: VocabFile | None = module.VocabFile.read(os.fspath(path))
    return found


def native_file_encoder(
    file: VocabFile,
    script: str,
    leading_space: bool,
    pieces: str,
    max_units: int,
    span_letters: Sequence[frozenset[str]],
    byte_ids: list[int],
    unk_id: int,
    paper: bool,
) -> NativeTextEncoder | None:
    """:func:`native_text_encoder` of a file :func:`native_vocab_file` read: the same
    encoder, its tables (single-character ids, merge kinds, ranks) made in Rust from the
    file instead of from the Python tables; None for a schema that is not built in."""
    module = native_module()
    if module is None or not is_known_script(script):
        return None
    word_chars = (
        code_point_ranges(frozenset().union(*(s.word_chars for s in schemas_for(script))))
        if pieces == "script"
        else None
    )
    made: NativeTextEncoder = module.TextEncoder.of_file(
        file,
        builtin_tables(script),
        leading_space,
        byte_ids or None,
        unk_id,
        word_chars,
        [code_point_ranges(letters) for letters in span_letters],
        max_units,
        paper,
    )
    return made


def native_bytebpe_trainer(chunk_counts: dict[str, int]) -> BpeTrainer | None:
    """The native BPE merge loop (``PairMerges`` of :mod:`sgpe.bpe`) of the byte-level
    baseline (``_learn_merges`` of :mod:`sgpe.baselines.bytebpe`) over the pre-tokenized
    corpus's chunk counts, or None under the Python engine. Each chunk counts as its UTF-8
    bytes; a chunk with a lone surrogate raises ``UnicodeEncodeError``, as Python's
    ``encode`` does there."""
    module = native_module()
    if module is None:
        return None
    made: BpeTrainer = module.BpeTrainer.of_chunks(list(chunk_counts), list(chunk_counts.values()))
    return made


def native_paper_trainer(
    symbols: list[str], words: list[str], counts: list[int]
) -> BpeTrainer | None:
    """The native BPE merge loop of the paper mode (``_PaperLoop`` of :mod:`sgpe.gpe`) over
    the prepared segments (strings of ``chr(symbol id)``), or None under the Python engine
    and for a symbol table Rust cannot hold (a symbol with a lone surrogate: the Python
    engine trains those)."""
    module = native_module()
    if module is None:
        return None
    packed = "".join(words).encode("utf-32-le", "surrogatepass")
    try:
        made: BpeTrainer = module.BpeTrainer(symbols, packed, list(map(len, words)), counts)
    except UnicodeEncodeError:
        return None
    return made


def native_hierarchical(
    script: str,
    leading_space: bool,
    symbols: list[str],
    unit_parts: list[str],
    unit_weight: list[int],
    unit_joinable: list[bool],
    words: list[str],
    counts: list[int],
    translation: dict[int, str],
    span_words: Sequence[Sequence[int]] = (),
    span_counts: Sequence[int] = (),
    span_from: int = 0,
) -> NativeHierarchicalTrainer | None:
    """The native twin of :class:`sgpe.hierarchical.HierarchicalEngine` (the merge loop)
    for the state ``build_state`` made (its fields, as plain values) with a built-in
    ``script`` setting, or None under the Python engine. Also None when a symbol is a lone
    surrogate (UTF-8 cannot hold it): the Python engine trains that corpus."""
    module = native_module()
    if module is None or not is_known_script(script):
        return None
    try:
        "".join(symbols).encode("utf-8")
    except UnicodeEncodeError:
        return None
    # The level strings hold ids and placeholders as code points, some of them in the
    # surrogate range: they travel as UTF-32 (one call each at C speed) with their lengths.
    made: NativeHierarchicalTrainer = module.HierarchicalTrainer(
        builtin_tables(script),
        leading_space,
        symbols,
        "".join(unit_parts).encode("utf-32-le", "surrogatepass"),
        list(map(len, unit_parts)),
        unit_weight,
        unit_joinable,
        "".join(words).encode("utf-32-le", "surrogatepass"),
        list(map(len, words)),
        counts,
        {k: ord(v) for k, v in translation.items()},
        [list(w) for w in span_words],
        list(span_counts),
        span_from,
    )
    return made


def native_piece_counter(
    script: str,
    leading_space: bool,
    word_chars: frozenset[str] | None,
    span_letters: list[frozenset[str]],
    max_units: int,
    prefix: str,
) -> NativePieceCounter | None:
    """A native counter of the pieces :class:`sgpe.pieces.WordSplitter` cuts (its regex
    walked by hand: ``word_chars`` None for whitespace pieces, else the word characters
    of ``pieces="script"``; ``span_letters`` the superword span letters of each schema,
    empty without spans), counted in order of first occurrence on all cores, with
    ``prefix`` before every non-empty line of a file segment; or None under the Python
    engine or for a schema that is not built in."""
    module = native_module()
    if module is None or not is_known_script(script):
        return None
    made: NativePieceCounter = module.PieceCounter(
        None if word_chars is None else code_point_ranges(word_chars),
        leading_space,
        [code_point_ranges(letters) for letters in span_letters],
        max_units,
        prefix,
    )
    return made


def native_corpus_units(script: str, leading_space: bool) -> Callable[..., Any] | None:
    """The native twin of :func:`sgpe.hierarchical.corpus_units` with the syllabifier of a
    built-in ``script`` setting: called with the distinct pieces, their counts, the cap
    and the first placeholder code point, it gives ``(units, weight, coded, counts)`` (or
    None where the Python twin's own checks would stop); None under the Python engine."""
    module = native_module()
    syllabifier = native_syllabifier(script, leading_space)
    if module is None or syllabifier is None:
        return None
    return partial(module.corpus_units, syllabifier)


def native_merge_kinds(
    script: str, leading_space: bool, merges: Sequence[tuple[str, str]]
) -> list[Literal["part", "join"]] | None:
    """``merge_kind`` of every merge (``"part"`` or ``"join"``) by the native core, for a
    built-in ``script`` setting: what :class:`sgpe.hierarchical.HierarchicalEncoder`
    computes when it loads a ``vocab.json`` (which has no kind column). None under the
    Python engine, or when a merge holds a lone surrogate (the Python twin answers)."""
    module = native_module()
    if module is None or not is_known_script(script):
        return None
    tables = builtin_tables(script)
    try:
        codes: list[int] = module.merge_kinds(tables, leading_space, list(merges))
    except UnicodeEncodeError:
        return None
    names: tuple[Literal["part"], Literal["join"]] = ("part", "join")
    return [names[c] for c in codes]


def merge_kinds(
    script: str,
    leading_space: bool,
    merges: Sequence[tuple[str, str]],
    python: Callable[[], list[Literal["part", "join"]]],
) -> list[Literal["part", "join"]]:
    """``merge_kind`` of every merge: :func:`native_merge_kinds`, or the Python reference
    ``python()`` where it gives None."""
    return dispatch(native_merge_kinds(script, leading_space, merges), lambda kinds: kinds, python)


def native_json_writer() -> Callable[[list[tuple[str, Any]], str, int, bool], bytes | None] | None:
    """``sgpe._native.dumps_json`` (the native twin of ``dumps_json``, see
    ``json_bytes``), or None under the Python engine."""
    module = native_module()
    return None if module is None else module.dumps_json


def json_bytes(data: Any, *, layout: JsonLayout = CANONICAL_LAYOUT) -> bytes:
    """``sgpe._json.dumps_json`` of ``data`` as UTF-8: spelled by the native core under the native
    engine (``sgpe._native.dumps_json``, with serde_json's strings: the same bytes,
    ``tests/test_json_native.py``), by ``dumps_json`` itself under the Python engine
    and wherever the core declines (a type other than the built-in ones, a deep value).
    A lone surrogate is UTF-8's ``UnicodeEncodeError`` under either engine."""
    # The top-level keys as dumps_json spells them (json.dumps, ASCII escapes included).
    items = [(json.dumps(key), value) for key, value in data.items()]
    return dispatch(
        native_json_writer(),
        lambda write: write(items, *layout),
        lambda: dumps_json(data, layout=layout).encode("utf-8"),
    )

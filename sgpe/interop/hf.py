"""Hugging Face ``tokenizer.json`` export with exact id parity, for SGPE and byte-level BPE.

>>> import sgpe
>>> from sgpe.shipped import DEFAULT_SGPE
>>> tok = sgpe.load(DEFAULT_SGPE)
>>> load_hf(tok).encode("ශ්‍රී ලංකා").ids, tok.encode("ශ්‍රී ලංකා")  # the same ids
([301, 651], [301, 651])

``save_hf(tok, "tokenizer.json")`` writes the file; ``tokenizers.Tokenizer.from_file`` reads it.
``save_hf_folder(tok, "DIR")`` writes a whole folder around it (special tokens, config, model
card) that ``transformers.AutoTokenizer.from_pretrained`` loads and ``load_hf_folder`` (or
:func:`sgpe.load`) reads back: :mod:`sgpe.interop.hf_folder`.

The file uses only stock components (``Split`` pre-tokenizers, ``Replace`` normalizer and
decoders, a ``BPE`` model), so ``tokenizers`` and ``transformers`` load it without any
custom Python code.

How SGPE becomes a plain BPE file
=================================

Hugging Face BPE starts every pre-token from single characters (or bytes, with
``byte_fallback``) and merges only inside one pre-token. SGPE starts from whole syllables
and merges inside runs of *known* syllables (units in the vocabulary) of one piece. The
file expresses this in four parts:

1. **Pieces.** ``Split`` with our piece regex (:mod:`sgpe.pieces`), translated to
   Oniguruma. Python's ``\\s`` is spelled out as an explicit character set: Python counts
   U+001C..U+001F as whitespace, Oniguruma does not.
2. **Runs.** A second ``Split`` cuts each piece into maximal runs of known units and
   isolates every OOV unit. The regex knows the vocabulary: ``K`` is a trie of every
   known unit, and each unit ``u`` ends with a lookahead ``(?![cont(u)])``, where
   ``cont(u)`` is the set of characters that would make the syllabifier extend ``u``
   (computed with the syllabifier's own regex, one representative per group of
   characters it cannot tell apart). So ``K`` matches at a unit boundary exactly when the
   syllabifier's unit there is in the vocabulary, and ``K+`` follows the syllabifier's
   boundaries. Anything else is consumed as one whole unit ``U`` (the syllabifier's own
   alternatives), which keeps the scan aligned. An OOV ``" X"`` isolates its space, and
   ``X`` starts the next run, as in :meth:`sgpe.Tokenizer.encode`.
   With ``oov_policy="fallback"`` a third ``Split`` keeps a pre-token whole if it starts
   with a known unit (``\\A(?=K)``) and cuts any other (an OOV unit) into characters;
   BPE ``byte_fallback`` spells a character that is not a token with ``<0xNN>`` tokens.
   With ``oov_policy="unk"`` a ``Replace`` normalizer finds the OOV units first, aligned
   the same way (it starts where the last match ended, ``\\G``, or at a space, tab, CR or
   LF, which always begin a unit), and replaces each with a sentinel character that is
   in no vocabulary; BPE turns a sentinel into exactly one ``[UNK]``. An OOV unit with a
   leading space is replaced first, by a second sentinel that the piece regex treats as
   the start of a piece, so the pieces (and the piece cap) do not move.
3. **Assembly merges**, ranked before every SGPE merge, build each known unit from its
   characters. ``T`` is the set of prefixes of known units, and there is a merge
   ``(a, b)`` for every way to cut a ``t`` in ``T`` into a prefix ``a`` and a rest ``b``
   that is itself in ``T`` or a single symbol: ``(ක්, ෂ්)`` as well as ``(ක්ෂ, ්)``. Any
   merge order then converges to the unit (*confluence*): while a unit is not whole, its
   first symbol ``s1`` is a prefix and ``s1 + s2`` is in ``T``, so a merge applies.
   No assembly merge can join two units: that needs a suffix ``a`` of a unit ``u``
   and a continuation that makes ``a + c`` a unit prefix, and then ``u + c`` would be one
   longer unit (the syllabifier is longest-match and a suffix read from its last
   consonant is in the same DFA state as ``u``). :func:`to_hf` checks this for every
   known unit and raises :class:`ExportError` if a schema ever breaks it.
   Because assembly merges rank below all SGPE merges, BPE applies SGPE merges only to
   fully assembled units, with the same ranks, leftmost first: the same ids.
4. **Ids.** Every SGPE token keeps its id. The intermediate tokens of assembly (unit
   prefixes that are not in the vocabulary) get ids after ours and are never emitted.
   A character of a known unit that is not itself a vocabulary token (only the ``X`` of a
   known ``" X"`` whose ``X`` was pruned) is spelled with byte tokens inside the file's
   token strings (``" <0xE2><0x80><0x93>"`` for ``" –"``) and a ``Replace`` decoder step
   turns it back; so the file has a single-character token exactly when the vocabulary
   does, and a lone ``X`` still falls back to bytes as in :meth:`sgpe.Tokenizer.encode`.

Where parity stops (both are proved by tests):

* Hugging Face extracts added (special) tokens from the raw text before the pipeline
  runs, so text containing the literal strings ``[PAD] [UNK] [CLS] [SEP] [MASK]`` encodes
  them as special ids, while :mod:`sgpe` treats them as text. Setting
  ``tokenizer.encode_special_tokens = True`` (a runtime flag that ``tokenizer.json``
  cannot store) restores exact parity.
* Oniguruma aborts a match after 10 million backtracking steps (and Hugging Face then
  panics), so one regex match covers at most :data:`MAX_RUN` (50,000) units. Pieces are
  capped at ``max_piece_units`` units (at most 50,000, :mod:`sgpe.pieces`) before the runs
  are cut, so no run reaches that bound; but with ``oov_policy="unk"`` the normalizer
  sees whole pieces, and an OOV unit that follows more than 50,000 known units of the
  same whitespace-free piece is not replaced.

**The piece cap** is a ``Split`` right after the pieces: ``\\A(?>[\\s\\S]{0,N})\\z`` keeps a
piece of at most ``N`` characters whole with one cheap scan (it has at most ``N`` units),
and ``(?:U){1,N}`` cuts a longer one into chunks of ``N`` units from its start, exactly as
:meth:`sgpe.pieces.WordSplitter.cap` does. The hierarchical file folds the pieces and the
cap into one ``Split`` (:meth:`_SgpeExport.piece_splits`): each ``Split`` is one more pass
of Hugging Face over every pre-token (``python -m bench scale --only hf`` times the file
with and without its runs ``Split``).

The byte-level baseline exports as the usual GPT-2 style file: ``Split`` (our pattern with
every ``\\p{..}``, ``\\s`` and ``(?i:..)`` spelled out from the ``regex`` module's own
Unicode tables, so a newer Unicode version in ``regex`` cannot disagree with Oniguruma),
``ByteLevel(use_regex=False)``, BPE over byte-level characters, ``ByteLevel`` decoder.

Does not: export the meta-vocabulary (o200k_base + SGPE), which needs a router that no
Hugging Face component provides (see :mod:`sgpe.interop.meta`).
"""

from __future__ import annotations

# The exporter lives in sgpe/interop/hf_export.py and the folder in
# sgpe/interop/hf_folder.py, which builds on the exporter; this module is their public face.
from .hf_export import (
    MAX_RUN,
    ExportError,
    ParityReport,
    check_parity,
    load_hf,
    save_hf,
    to_hf,
    to_hf_str,
)
from .hf_folder import load_hf_folder, save_hf_folder

__all__ = [
    "MAX_RUN",
    "ExportError",
    "ParityReport",
    "check_parity",
    "load_hf",
    "load_hf_folder",
    "save_hf",
    "save_hf_folder",
    "to_hf",
    "to_hf_str",
]

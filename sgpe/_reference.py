"""Independent oracles: each function here is a *different algorithm* from the Python
engine's, giving the same answer, so a test that compares the two can fail.

* :func:`reference_syllabify` transcribes the original LinguisTrie loop (Sinhala only)
  branch by branch, where the engine (``sgpe/syllables.py``) runs a grammar regex built
  from the schema, with two deliberate corrections (``docs/decisions.md``): a decomposed
  two-part vowel sign is one vowel sign, so NFC and NFD text segment alike; and a ZWJ may
  stand before an al-lakuna (touching letters such as ``ක‍්ව``), as HarfBuzz shapes it.
* :func:`reference_pieces` cuts pieces with a loop over characters, where the engine
  (``sgpe/pieces.py``) uses one regex.
* :func:`reference_train` recounts every pair on every step (no heap, no index), as
  minbpe's ``train`` does, where the engine (:mod:`sgpe.gpe`) updates counts
  incrementally through a pair index and a lazy heap; it must learn exactly its merges.

What is the same algorithm as the engine is not copied here: the encoder's rescan loop
(find the lowest-ranked adjacent pair, merge its leftmost occurrence, scan again) is
:func:`sgpe.bpe.bpe_with_sizes`, and the tests use it directly.

Nothing here is fast and nothing in the library imports it.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterable

import regex

# ============================================================================
# Layer 1: the original LinguisTrie loop, Sinhala
# ============================================================================

HAL = "\u0dca"
ZWJ = "\u200d"
CONSONANTS = {chr(c) for c in range(0x0D9A, 0x0DC7)}
VOWELS = {chr(c) for c in range(0x0D85, 0x0D97)}
VOWEL_SIGNS = {chr(c) for c in range(0x0DCF, 0x0DE0)} | {"\u0df2", "\u0df3"}
POST_MODIFIERS = {"\u0d82", "\u0d83"}
# The correction: these sequences are canonically one vowel sign (longest first).
DECOMPOSED_VOWEL_SIGNS = (
    "\u0dd9\u0dcf\u0dca",  # = U+0DDD
    "\u0ddc\u0dca",  # = U+0DDD
    "\u0dd9\u0dcf",  # = U+0DDC
    "\u0dd9\u0dca",  # = U+0DDA
    "\u0dd9\u0ddf",  # = U+0DDE
)


def _after_modifier(text: str, pos: int) -> int:
    """The position after an optional post-modifier (anusvara, visarga) at ``pos``."""
    return pos + 1 if pos < len(text) and text[pos] in POST_MODIFIERS else pos


def _vowel_sign_length(text: str, pos: int) -> int:
    """Length of the vowel sign at ``pos`` (0 if there is none)."""
    for seq in DECOMPOSED_VOWEL_SIGNS:
        if text.startswith(seq, pos):
            return len(seq)
    return 1 if pos < len(text) and text[pos] in VOWEL_SIGNS else 0


def reference_syllabify(text: str, leading_space: bool = False) -> list[str]:
    """The original ``LinguisTrie.tokenize``, transcribed, plus the two corrections."""
    tokens: list[str] = []
    n = len(text)
    pos = 0
    pending_space = ""
    while pos < n:
        ch = text[pos]
        # Branch 1: whitespace (only with leading_space)
        if leading_space and ch in (" ", "\t", "\n", "\r"):
            ws_buffer = ""
            while pos < n and text[pos] in (" ", "\t", "\n", "\r"):
                ws_buffer += text[pos]
                pos += 1
            if ws_buffer.endswith(" "):
                tokens.extend(ws_buffer[:-1])
                pending_space = " "
            else:
                tokens.extend(ws_buffer)
                pending_space = ""
            continue
        # Branch 2: consonant-initiated syllable
        if ch in CONSONANTS:
            start = pos
            pos += 1
            stray = False
            while pos < n:
                # Correction 2: a ZWJ may stand before the al-lakuna (touching letters).
                hal = pos + 1 if text.startswith(ZWJ + HAL, pos) else pos
                if text[hal] != HAL:
                    break
                if hal + 1 < n and text[hal + 1] == ZWJ:
                    if hal + 2 < n and text[hal + 2] in CONSONANTS:
                        pos = hal + 3  # Path 1: HAL ZWJ C
                        continue
                    pos = hal + 2  # Path 2: stray HAL ZWJ
                    stray = True
                    break
                if hal + 1 < n and text[hal + 1] in CONSONANTS:
                    pos = hal + 2  # Path 3: HAL C
                    continue
                break  # Path 4: terminal HAL, absorbed below
            sign = _vowel_sign_length(text, pos)
            if sign:
                pos += sign
            elif not stray and text.startswith(ZWJ + HAL, pos):
                pos += 2  # Path 4 after a ZWJ (correction 2)
            elif pos < n and text[pos] == HAL:
                pos += 1
            pos = _after_modifier(text, pos)
            tokens.append(pending_space + text[start:pos])
            pending_space = ""
            continue
        # Branch 3: independent vowel
        if ch in VOWELS:
            start = pos
            pos += 1
            pos = _after_modifier(text, pos)
            tokens.append(pending_space + text[start:pos])
            pending_space = ""
            continue
        # Branch 4: orphan modifier, virama or vowel sign
        if ch in POST_MODIFIERS or ch == HAL or ch in VOWEL_SIGNS:
            length = _vowel_sign_length(text, pos) or 1
            tokens.append(pending_space + text[pos : pos + length])
            pending_space = ""
            pos += length
            continue
        # Branch 5: passthrough
        tokens.append(pending_space + ch)
        pending_space = ""
        pos += 1
    if pending_space:
        tokens.append(pending_space)
    return tokens


# ============================================================================
# Layer 2: pieces, pruning, symbol ids, and the naive merge loop
# ============================================================================

SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


def reference_pieces(
    text: str, leading_space: bool, mode: str, word_chars: frozenset[str]
) -> list[str]:
    """Pieces, cut by hand: whitespace-delimited runs, or runs of script word characters."""

    def is_word(c: str) -> bool:
        return c in word_chars if mode == "script" else not regex.match(r"\s", c)

    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        j = i
        if leading_space and text[i] == " " and i + 1 < n and text[i + 1] not in " \t\n\r":
            j = i + 1  # the space joins what follows
            if not is_word(text[j]):
                out.append(text[i : j + 1])
                i = j + 1
                continue
        if is_word(text[j]):
            k = j
            while k < n and is_word(text[k]):
                k += 1
            out.append(text[i:k])
            i = k
        else:
            out.append(text[i])
            i += 1
    return out


def reference_train(
    piece_counts: Counter[str],
    units_of: Callable[[str], list[str]],
    *,
    vocab_size: int,
    prune_freq: int,
    min_freq: int,
    fallback_symbols: Iterable[str] = (),
    word_chars: frozenset[str] | None = None,
) -> list[tuple[str, str]]:
    """Learn merges by recounting every pair each step. Same rules as the paper mode of
    :mod:`sgpe.gpe`: units below ``prune_freq`` are barriers, except the bare form ``X``
    of a kept ``" X"`` when there are fallback symbols, and (script pieces: ``word_chars``
    given) a boundary unit, one with no word character; kept units get ids by
    (-frequency, string),
    then the fallback symbols; the best pair is ``min((-count, (id_a, id_b)))``; stop at
    ``vocab_size`` symbols (+5 specials) or when the best count is below ``min_freq``."""
    unit_freq: Counter[str] = Counter()
    for piece, c in piece_counts.items():
        for u in units_of(piece):
            unit_freq[u] += c
    frequent = {u for u in unit_freq if unit_freq[u] >= prune_freq}
    if word_chars is not None:
        frequent |= {u for u in unit_freq if not word_chars.intersection(u)}
    kept_set = set(frequent)
    if fallback_symbols:
        # A unit kept with its leading space is also kept without it.
        fallback_symbols = list(fallback_symbols)
        kept_set |= {u[1:] for u in frequent if len(u) > 1 and u[0] == " "}
    kept = sorted(kept_set, key=lambda u: (-unit_freq[u], u))
    symbols = kept + [s for s in fallback_symbols if s not in kept_set]
    ids = {s: i for i, s in enumerate(symbols)}
    words: list[tuple[list[int | None], int]] = [
        ([ids[u] if u in kept_set else None for u in units_of(p)], c)
        for p, c in piece_counts.items()
    ]
    merges: list[tuple[str, str]] = []
    while len(symbols) < vocab_size - len(SPECIALS):
        counts: Counter[tuple[int, int]] = Counter()
        for w, c in words:
            for a, b in itertools.pairwise(w):
                if a is not None and b is not None:
                    counts[(a, b)] += c
        if not counts:
            break
        best = min(counts, key=lambda p: (-counts[p], p))
        if counts[best] < min_freq:
            break
        merged = symbols[best[0]] + symbols[best[1]]
        if merged not in ids:
            ids[merged] = len(symbols)
            symbols.append(merged)
        new = ids[merged]
        merges.append((symbols[best[0]], symbols[best[1]]))
        for k, (w, c) in enumerate(words):
            out: list[int | None] = []
            i = 0
            while i < len(w):
                if i + 1 < len(w) and (w[i], w[i + 1]) == best:
                    out.append(new)
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            words[k] = (out, c)
    return merges

"""The Vocabulary page's tables: what each token is, how long, and how a text uses them.

Pure functions over any tokenizer of the project (SGPE ``Tokenizer`` or
``ByteBPETokenizer``); no Streamlit.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sgpe.protocol import display_bytes
from sgpe.syllables import syllabify, syllable_spans

from .analysis import vocabulary_grammar

KIND_ORDER = (
    "special",
    "byte fallback",
    "character",
    "syllable part",
    "syllable",
    "multi-syllable",
    "superword",
    "partial character",
    "multi-character",
)


def _token_kind_sgpe(tok: Any, token_id: int, token: str, merged: set[str]) -> str:
    if token in tok.special_tokens:
        return "special"
    if tok.is_fallback_token(token_id):
        return "byte fallback"
    if " " in token[1:]:
        return "superword"  # whole syllables of several words (superwords_from)
    if token in merged:
        return "multi-syllable"
    spans = syllable_spans(token, leading_space=tok.leading_space)
    if len(spans) == 1 and spans[0].kind == "syllable":
        return "syllable"
    if len(token) > 1 and getattr(tok, "mode", "paper") == "hierarchical":
        return "syllable part"  # built by part merges: a piece of a syllable
    return "character"


def vocab_table(tokenizer: Any) -> list[dict[str, Any]]:
    """One row per token: id, display form, kind, length in syllables, code points, bytes."""
    rows = []
    if getattr(tokenizer, "model", "") == "sgpe":
        hier = getattr(tokenizer, "_hier", None)
        kinds = hier.kinds if hier is not None else ["join"] * len(tokenizer.merges)
        # Tokens made by joining whole syllables (every merge of the paper mode).
        merged = {a + b for (a, b), k in zip(tokenizer.merges, kinds) if k == "join"}
        ls = tokenizer.leading_space
        script = vocabulary_grammar(tokenizer)  # its own schema, if it was trained with one
        for token_id in range(tokenizer.vocab_size):
            token = tokenizer.id_to_token(token_id)
            kind = _token_kind_sgpe(tokenizer, token_id, token, merged)
            plain = kind not in ("special", "byte fallback")
            rows.append(
                {
                    "id": token_id,
                    "token": token,
                    "kind": kind,
                    "syllables": len(syllabify(token, script, ls)) if plain else None,
                    "code points": len(token) if plain else None,
                    "bytes": len(tokenizer.token_bytes([token_id])[0]),
                }
            )
        return rows
    specials = set(getattr(tokenizer, "special_tokens", {}).values())
    for token_id in range(tokenizer.vocab_size):
        data = tokenizer.token_bytes([token_id])[0]
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if token_id in specials:
            kind = "special"
        elif token_id < 256:
            kind = "byte fallback" if text is None else "character"
        elif text is None:
            kind = "partial character"
        else:
            kind = "multi-character" if len(text) > 1 else "character"
        rows.append(
            {
                "id": token_id,
                "token": display_bytes(data) if kind != "special" else text,
                "kind": kind,
                "syllables": len(syllabify(text)) if text and kind != "special" else None,
                "code points": len(text) if text is not None and kind != "special" else None,
                "bytes": len(data),
            }
        )
    return rows


def composition(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Token counts per kind, in a fixed order, with shares."""
    counts = Counter(r["kind"] for r in rows)
    total = len(rows) or 1
    return [
        {"kind": k, "tokens": counts[k], "share %": 100.0 * counts[k] / total}
        for k in KIND_ORDER
        if counts.get(k)
    ]


@dataclass(frozen=True)
class ZipfFit:
    """Rank–frequency of token ids on a text, with the least-squares log–log slope."""

    ranks: list[int]
    freqs: list[int]
    ids: list[int]
    slope: float | None
    intercept: float | None


def zipf(ids: Sequence[int]) -> ZipfFit:
    """Rank–frequency of ``ids`` and the slope of ``log freq`` against ``log rank``."""
    import numpy as np

    counts = Counter(ids).most_common()
    ranks = list(range(1, len(counts) + 1))
    freqs = [c for _, c in counts]
    slope = intercept = None
    if len(counts) >= 2:
        fit = np.polyfit(np.log(ranks), np.log(freqs), 1)
        slope, intercept = float(fit[0]), float(fit[1])
    return ZipfFit(ranks, freqs, [i for i, _ in counts], slope, intercept)


def usage(tokenizer: Any, rows: Sequence[dict[str, Any]], ids: Sequence[int]) -> dict[str, Any]:
    """Coverage of a vocabulary on a text: tokens used, never used, UNK rate."""
    used = Counter(ids)
    unk_id = getattr(tokenizer, "unk_id", -1)
    countable = [r for r in rows if r["kind"] != "special"]
    used_types = sum(1 for r in countable if used.get(r["id"]))
    return {
        "tokens on text": len(ids),
        "distinct tokens used": len(used),
        "vocabulary used %": 100.0 * used_types / len(countable) if countable else 0.0,
        "never used": len(countable) - used_types,
        "UNK %": 100.0 * used.get(unk_id, 0) / len(ids) if ids and unk_id >= 0 else 0.0,
    }


#: Fewer different frequencies than this and a fitted slope says nothing about the text.
ZIPF_MIN_LEVELS = 3


def zipf_problem(fit: ZipfFit) -> str | None:
    """Why the rank–frequency plot of ``fit`` would mislead (None: it is worth drawing).

    On a short text every token occurs once: the "curve" is a flat line with a fitted
    slope of 0.00, which reads as a finding but only measures the text's length. A fit
    needs tokens that repeat, at :data:`ZIPF_MIN_LEVELS` different counts."""
    if len(fit.ranks) < 2:
        return (
            f"The text has {len(fit.ranks)} distinct token{'s' if len(fit.ranks) != 1 else ''}: "
            "too few for a rank–frequency plot."
        )
    levels = sorted(set(fit.freqs), reverse=True)
    if len(set(fit.freqs)) == 1:
        times = "once" if levels[0] == 1 else f"{levels[0]} times"
        return (
            f"Each of the {len(fit.ranks):,} distinct tokens occurs {times} on this text, so "
            "rank against frequency is a flat line and its fitted slope (0) says nothing "
            "about the vocabulary. Choose a sample file above, or use a longer text."
        )
    if len(levels) < ZIPF_MIN_LEVELS:
        return (
            f"The {len(fit.ranks):,} distinct tokens occur only "
            + " or ".join(f"{n:,}" for n in levels)
            + " times on this text: too few different frequencies for a slope to mean "
            "anything. Choose a sample file above, or use a longer text."
        )
    return None

"""The cross-genre compression bench's report and generated docs block (``xgenre.csv``)."""

from __future__ import annotations

from typing import Any

from ._common import _in_order, _size_label

# The short names of the test files and training sources.
XGENRE_TESTS = {
    "si_test_legal.txt": "legal",
    "si_test_prompts.txt": "read-speech prompts",
    "hi_test_reviews.txt": "product reviews",
}
XGENRE_TRAINS = {"si_train_news.txt": "si news", "hi_train_stories.txt": "hi stories"}
# The headline table's peers: SGPE in both modes against plain HF BPE, without and with bytes.
XGENRE_README = {
    "sgpe-fallback": "SGPE",
    "sgpe-paper": "SGPE paper mode",
    "hf-bpe": "HF BPE",
    "hf-bpe-bytes": "HF BPE, byte fallback",
}


def _xgenre_tests(rows: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(language, test file) pairs, Sinhala first."""
    keys = sorted({(r["lang"], r["test"]) for r in rows}, key=lambda k: (k[0] != "si", k))
    return keys


def _sgpe_over_hf(cell: dict[str, dict[str, Any]]) -> str:
    if "sgpe-fallback" in cell and "hf-bpe" in cell:
        return f"{cell['sgpe-fallback']['twr'] / cell['hf-bpe']['twr']:.3f}"
    return "—"


def xgenre_markdown(rows: list[dict[str, Any]]) -> str:
    """One table per test file: TWR of each peer and SGPE's ratio to HF BPE."""
    out = []
    peers = _in_order(r["peer"] for r in rows)
    for lang, test in _xgenre_tests(rows):
        sub = [r for r in rows if r["lang"] == lang and r["test"] == test]
        out.append(f"**{lang}: trained on `{sub[0]['train']}`, measured on `{test}`** — tokens per word")  # fmt: skip
        out.append("(broken cuts per 1k tokens / of which straddling a syllable edge)\n")
        out.append("| size | " + " | ".join(peers) + " | SGPE / HF BPE |")
        out.append("|---:|" + "---:|" * (len(peers) + 1))
        for size in sorted({r["size"] for r in sub}):
            cell = {r["peer"]: r for r in sub if r["size"] == size}
            cells = [
                f"{r['twr']:.3f} ({r['broken_per_1k']:.0f}/{r['straddling_per_1k']:.0f})"
                if (r := cell.get(p))
                else "—"
                for p in peers
            ]
            out.append(f"| {size:,} | " + " | ".join(cells) + f" | {_sgpe_over_hf(cell)} |")
        out.append("")
    return "\n".join(out)


def xgenre_readme(rows: list[dict[str, Any]]) -> str:
    """The headline of docs/results.md: SGPE against HF BPE per test file and size, the lowest TWR
    in bold, and the boundaries torn by a token reaching across a syllable edge."""
    head = " | ".join(XGENRE_README.values())
    out = [
        f"| train → test | size | {head} | SGPE / HF BPE | torn / 1k: SGPE, HF |",
        "|---|---:|" + "---:|" * (len(XGENRE_README) + 2),
    ]
    for lang, test in _xgenre_tests(rows):
        sub = [r for r in rows if r["lang"] == lang and r["test"] == test]
        for k, size in enumerate(sorted({r["size"] for r in sub})):
            cell = {r["peer"]: r for r in sub if r["size"] == size}
            twr = [f"{cell[p]['twr']:.3f}" for p in XGENRE_README]
            best = min(twr)
            name = f"{XGENRE_TRAINS[sub[0]['train']]} → {XGENRE_TESTS[test]}" if k == 0 else ""
            torn = ", ".join(f"{cell[p]['straddling_per_1k']:.0f}" for p in ("sgpe-fallback", "hf-bpe"))  # fmt: skip
            out.append(
                f"| {name} | {_size_label(size)} | "
                + " | ".join(f"**{t}**" if t == best else t for t in twr)
                + f" | {_sgpe_over_hf(cell)} | {torn} |"
            )
    return "\n".join(out).replace("|  |", "| |")

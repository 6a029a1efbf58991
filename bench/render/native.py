"""The native-core bench's generated docs block (``native.json``)."""

from __future__ import annotations

from typing import Any

from ._common import _minutes


def native_readme(rec: dict[str, Any], load: dict[str, Any] | None = None) -> str:
    """The native-core table of docs/performance.md: both engines and the peers of the same run
    (``python -m bench native``), with the targets the native core is held to; with
    ``load`` (``native_load.json``), the rows of loading a vocabulary, from their own run."""
    meta, rows = rec["meta"], rec["rows"]
    one, batch = meta["encoding"]["one_thread"], meta["encoding"]["batch"]
    train = meta.get("training") or {}
    lines = [
        f"Measured with `{meta['command']}` in {_minutes(meta['wall_s'])} ({meta['machine']}, "
        f"{meta['date']}; medians, every engine and peer in the same run; load average "
        f"before and after: {meta['load_average']['before'][0]:.1f}, "
        f"{meta['load_average']['after'][0]:.1f}). Native is the default engine wherever the "
        "two commands of `docs/install.md` could build it; `SGPE_ENGINE=python` gives the Python column.",
        "",
        "| what | native | Python engine | peer in the same run | native / peer | target |",
        "|---|---:|---:|---|---:|---|",
    ]
    if train:
        hf, spm = train["hf bpe metaspace"], train["sentencepiece bpe"]
        nat, py = train["sgpe native"], train["sgpe python"]
        vocab = f"{meta['train_vocab'] // 1000}k"
        lines += [
            f"| training si_train.txt → {vocab}, whole `python -m sgpe train` process | "
            f"{nat:.2f} s | {py:.2f} s | HF `tokenizers` BPE + Metaspace {hf:.2f} s | "
            f"{nat / hf:.2f} | ≤ 0.5 |",
            f"| the same | | | SentencePiece BPE {spm:.2f} s | {nat / spm:.2f} | ≤ 1.1 |",
            f"| training, paper mode | {train['paper native']:.2f} s | {train['paper python']:.2f} s "
            f"| HF BPE + Metaspace {hf:.2f} s | {train['paper native'] / hf:.2f} | |",
            f"| training, byte-level BPE baseline | {train['bytebpe native']:.2f} s | "
            f"{train['bytebpe python']:.2f} s | HF byte-level BPE, o200k split "
            f"{train['hf byte-level o200k']:.2f} s | "
            f"{train['bytebpe native'] / train['hf byte-level o200k']:.2f} | |",
        ]
    nat, py, tik = one["sgpe native"], one["sgpe python"], one["tiktoken o200k"]
    two, single = batch["sgpe native 2 threads"], batch["sgpe native 1 thread"]
    ceiling = meta["encoding"]["ratios"]["two independent native calls, 2 threads / 1 thread"]
    slowest = min(rows, key=lambda r: r["native cold"])
    lines += [
        f"| encoding si_dev.txt line by line, one thread, whole process | "
        f"{nat['whole']:.2f} M chars/s | {py['whole']:.2f} M chars/s | tiktoken o200k_base "
        f"{tik['whole']:.2f} M chars/s | {nat['whole'] / tik['whole']:.2f} | ≥ 1.5 |",
        f"| the same, the encode loop alone | {nat['encode']:.2f} M chars/s | "
        f"{py['encode']:.2f} M chars/s | tiktoken {tik['encode']:.2f} M chars/s | "
        f"{nat['encode'] / tik['encode']:.2f} | |",
        f"| `encode_batch`, 2 threads against 1 | {two:.2f} / {single:.2f} M chars/s | "
        f"{batch['sgpe python']:.2f} M chars/s | tiktoken batch "
        f"{batch['tiktoken o200k batch']:.2f} M chars/s | {two / single:.2f}× own 1 thread "
        f"(two independent native calls on 2 threads: {ceiling:.2f}×, the machine's own "
        "ceiling in this run) | ≥ 1.8× |",
        *_flat_row(batch, ceiling),
        f"| `syllabify`, cold, the slowest of {len(rows)} scripts ({slowest['script']}) | "
        f"{slowest['native cold']:.1f} M chars/s | {slowest['python first']:.1f} M chars/s "
        f"(first pass) | HF `Metaspace` {slowest['hf metaspace']:.1f} M chars/s | "
        f"{slowest['native cold'] / slowest['hf metaspace']:.0f}× | ≥ 60 M/s |",
    ]
    if all("native offsets" in r for r in rows):
        least = min(rows, key=lambda r: r["native offsets"])
        lines.append(
            f"| `offsets` (every token's end, one array), the slowest of {len(rows)} scripts "
            f"({least['script']}) | {least['native offsets']:.1f} M chars/s | | | | ≥ 150 M/s |"
        )
    if load is not None:
        lines += _load_rows(load)
    lines += [
        "",
        "Every script's `syllabify` rate and the training front end: "
        "[`bench/results/native.json`](../bench/results/native.json).",
    ]
    if load is not None:
        m = load["meta"]
        lines[-1] += (
            f" The two load rows: `{m['command']}` ({m['date']}, medians of {m['repeats']} "
            f"fresh processes each, load average before and after: "
            f"{m['load_average']['before'][0]:.1f}, {m['load_average']['after'][0]:.1f}), "
            "[`bench/results/native_load.json`](../bench/results/native_load.json)."
        )
    return "\n".join(lines)


def _load_rows(load: dict[str, Any]) -> list[str]:
    """Loading a 32k vocabulary (``bench/load.py``), against HF on its ``tokenizer.json``."""
    s = load["rows"][0]
    size = f"{load['meta']['vocab_size'] // 1000}k"
    return [
        f"| loading a {size} vocabulary + the first `encode`, in process | "
        f"{s['sgpe native']:.3f} s | {s['sgpe python']:.3f} s | HF `tokenizers` "
        f"`from_file` + `encode` {s['hf tokenizers']:.3f} s | "
        f"{s['sgpe native'] / s['hf tokenizers']:.2f} | ≤ 1.0 |",
        f"| `python -m sgpe encode` of one line, whole process ({size}) | "
        f"{s['sgpe native cli']:.3f} s | {s['sgpe python cli']:.3f} s | a `python -c` process "
        f"doing it with HF {s['hf tokenizers process']:.3f} s | "
        f"{s['sgpe native cli'] / s['hf tokenizers process']:.2f} | ≤ 1.0 |",
    ]


def _flat_row(batch: dict[str, float], ceiling: float) -> list[str]:
    """The flat form's row (``encode_batch_flat``), in records that measured it."""
    if "sgpe native flat 2 threads" not in batch:
        return []
    two, single = batch["sgpe native flat 2 threads"], batch["sgpe native flat 1 thread"]
    return [
        f"| `encode_batch_flat` (one array of ids and offsets), 2 threads against 1 | "
        f"{two:.2f} / {single:.2f} M chars/s | | | {two / single:.2f}× own 1 thread (two "
        f"independent native calls: {ceiling:.2f}×) | ≥ 1.8× where that is ≥ 1.9× |"
    ]

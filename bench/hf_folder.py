"""Hugging Face tokenizer folders on every line of the real corpora: for each shipped
vocabulary (``sample_data/vocab``) and two trained here (on the first lines of
``si_train.txt`` and ``hi_train.txt``, in the default hierarchical mode with each OOV
policy), export the folder (``sgpe.interop.hf.save_hf_folder``), load it
with ``transformers.AutoTokenizer.from_pretrained``, and count per corpus file:

* ``lines``: lines checked (every line of the dev files and of ``multi/``);
* ``ids``: lines whose ``tokenizer(line)["input_ids"]`` differ from sgpe's ``encode``;
* ``decode``: lines whose ``tokenizer.decode(ids)`` differs from sgpe's ``decode(ids)``;
* ``text``: lines that do not decode back to themselves (0 for every vocabulary with
  ``oov_policy="fallback"``; the ``unk`` one decodes unknown text as ``[UNK]``, as sgpe does);
* ``resaved``: lines whose ids differ after ``save_pretrained`` and loading again;
* ``padding``: rows of a padded batch (``padding=True``, 64 lines) that are not sgpe's ids
  followed by the pad token's id.

Prints one table; exits 1 if any count but ``text`` is not 0. Nothing is written to the
repository (the folders live in a temporary directory).
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .corpora import ROOT, require

HELP = "tokenizer folders vs sgpe on every line of the real corpora (AutoTokenizer)"
SHIPPED = ("sgpe_4k", "sgpe_paper_4k", "bytebpe_4k")
#: The fresh vocabularies: name -> OOV policy (FRESH_SIZE tokens, the default mode, trained
#: on TRAIN_LINES of each training file).
FRESH = {"fresh_hier_8k": "fallback", "fresh_hier_unk_8k": "unk"}
FRESH_SIZE = 8000
TRAIN_FILES = ("si_train.txt", "hi_train.txt")
TRAIN_LINES = 3000
PAD_BATCH = 64


def corpus_files(corpora: Path) -> list[Path]:
    """Every dev file and every file of ``multi/``, in a fixed order."""
    dev = require(corpora, "si_dev.txt", "hi_dev.txt", "mixed_dev.txt")
    multi = sorted((corpora / "multi").glob("*.txt"))
    if not multi:
        raise SystemExit(f"corpora not found: no {corpora / 'multi'}/*.txt")
    return [*dev, *multi]


def fresh_vocabulary(corpora: Path, name: str) -> Any:
    """A vocabulary trained now on the first lines of the training files."""
    import sgpe
    from sgpe._text import read_lines

    docs: list[str] = []
    for path in require(corpora, *TRAIN_FILES):
        docs += itertools.islice(read_lines(path), TRAIN_LINES)
    return sgpe.train(docs, vocab_size=FRESH_SIZE, oov_policy=FRESH[name])


def vocabularies(corpora: Path) -> Iterator[tuple[str, Any]]:
    import sgpe

    for name in SHIPPED:
        yield name, sgpe.load(ROOT / "sample_data" / "vocab" / f"{name}.json")
    for name in FRESH:
        yield name, fresh_vocabulary(corpora, name)


@dataclass(frozen=True)
class Counts:
    """What :func:`check_file` counted for one vocabulary on one file (see the docstring)."""

    file: str
    lines: int
    ids: int
    decode: int
    text: int
    resaved: int
    padding: int

    @property
    def ok(self) -> bool:
        return not (self.ids or self.decode or self.resaved or self.padding)


def load_pair(folder: Path, resaved_dir: Path) -> tuple[Any, Any]:
    """``AutoTokenizer`` of ``folder``, and of its ``save_pretrained`` copy."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from transformers import AutoTokenizer

    hf = AutoTokenizer.from_pretrained(str(folder))
    hf.save_pretrained(str(resaved_dir))
    return hf, AutoTokenizer.from_pretrained(str(resaved_dir))


def check_file(tok: Any, hf: Any, resaved: Any, path: Path, limit: int | None = None) -> Counts:
    """Compare ``tok`` with its exported folder on the lines of ``path`` (the first
    ``limit`` lines, or all)."""
    from sgpe._text import read_lines

    lines = list(itertools.islice(read_lines(path), limit))
    ours = [tok.encode(line) for line in lines]
    theirs = hf(lines)["input_ids"]
    again = resaved(lines)["input_ids"]
    decoded = [hf.decode(ids) for ids in ours]
    batch = hf(lines[:PAD_BATCH], padding=True)
    width = max((len(ids) for ids in ours[:PAD_BATCH]), default=0)
    padded = [ids + [hf.pad_token_id] * (width - len(ids)) for ids in ours[:PAD_BATCH]]
    masks = [[1] * len(ids) + [0] * (width - len(ids)) for ids in ours[:PAD_BATCH]]
    return Counts(
        file=path.name if path.parent.name != "multi" else f"multi/{path.name}",
        lines=len(lines),
        ids=sum(a != b for a, b in zip(ours, theirs)),
        decode=sum(d != tok.decode(ids) for d, ids in zip(decoded, ours)),
        text=sum(d != line for d, line in zip(decoded, lines)),
        resaved=sum(a != b for a, b in zip(ours, again)),
        padding=sum(
            row != want or mask != want_mask
            for row, want, mask, want_mask in zip(
                batch["input_ids"], padded, batch["attention_mask"], masks
            )
        ),
    )


def check_vocabulary(
    tok: Any, files: list[Path], work: Path, limit: int | None = None
) -> list[Counts]:
    """Export ``tok``'s folder under ``work`` and check it on every file."""
    from sgpe.interop.hf import save_hf_folder

    folder = save_hf_folder(tok, work / "folder")
    hf, resaved = load_pair(folder, work / "resaved")
    return [check_file(tok, hf, resaved, path, limit) for path in files]


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument(
        "--limit", type=int, default=None, help="check only the first N lines of each file"
    )


def run(args: argparse.Namespace, out: Callable[[str], None] = print) -> int:
    files = corpus_files(args.corpora)
    import transformers

    out(f"# tokenizer folders vs sgpe (transformers {transformers.__version__})")
    out("| vocabulary | file | lines | ids | decode | text | resaved | padding |")
    out("|---|---|---:|---:|---:|---:|---:|---:|")
    bad = 0
    for name, tok in vocabularies(args.corpora):
        start = time.perf_counter()
        with tempfile.TemporaryDirectory() as work:
            rows = check_vocabulary(tok, files, Path(work), args.limit)
        for c in rows:
            out(
                f"| {name} | {c.file} | {c.lines:,} | {c.ids} | {c.decode} | {c.text} "
                f"| {c.resaved} | {c.padding} |"
            )
            bad += not c.ok
        total = sum(c.lines for c in rows)
        mismatches = sum(c.ids for c in rows)
        out(f"| {name} | **all** | {total:,} | {mismatches} | | | | |")
        print(f"{name}: {time.perf_counter() - start:.1f} s", file=sys.stderr)
    return 1 if bad else 0

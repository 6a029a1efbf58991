"""The benchmarks' package: its commands, its registries, and the docs' tables it makes.

Fast: nothing here trains on the corpora. The generated tables of docs/performance.md and
docs/results.md are rendered from the saved results in bench/results/ and must equal the
pages' text, so the two cannot drift apart.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SHARED_CORPORA

from bench import corpora, peers, render
from bench.__main__ import commands, main
from bench.records import RESULTS, read_csv

ROOT = Path(__file__).resolve().parents[1]


def test_help_lists_every_command_with_its_line():
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    listed = " ".join(done.stdout.split())  # argparse wraps long lines
    for name, module in commands().items():
        assert f"{name} {module.HELP}" in listed
    assert set(commands()) == {
        "xgenre", "compression", "speed", "scripts", "scripts-speed", "meta", "pieces",
        "oracles", "scale", "long-pieces", "hf-folder", "superwords", "native", "app", "thai",
        "tables",
    }  # fmt: skip


def test_every_generated_block_has_one_page_and_every_page_holds_its_blocks():
    named = [name for names in render.PAGES.values() for name in names]
    assert sorted(named) == sorted(render.BLOCKS)
    for page, names in render.PAGES.items():
        assert page.parent == ROOT / "docs"
        assert render.blocks_in(page.read_text(encoding="utf-8")) == tuple(
            n for n in render.BLOCKS if n in names
        )
    assert "<!-- bench:" not in (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", list(render.BLOCKS))
def test_docs_table_is_rendered_from_saved_results(name):
    (page,) = [p for p, names in render.PAGES.items() if name in names]
    text = page.read_text(encoding="utf-8")
    assert render.block(text, name) == render.BLOCKS[name](RESULTS) + "\n"


def test_no_page_is_stale_and_check_says_so(tmp_path):
    assert main(["tables", "--check"]) == 0
    page = ROOT / "docs" / "results.md"
    text = page.read_text(encoding="utf-8")
    assert render.update_page(text, render.blocks_in(text)) == text
    assert main(["tables", "--check", "--page", str(page)]) == 0
    stale = tmp_path / "results.md"
    block = render.block(text, "xgenre")
    altered = re.sub(r"\| (\d)\.(\d{3}) \|", r"| \1.\2\2 |", block, count=1)  # one figure
    assert altered != block
    stale.write_text(text.replace(block, altered))
    assert main(["tables", "--check", "--page", str(stale)]) == 1
    empty = tmp_path / "empty.md"
    empty.write_text("# a page without generated tables\n")
    assert main(["tables", "--check", "--page", str(empty)]) == 1


def test_a_missing_block_is_an_error():
    with pytest.raises(ValueError, match="the page has no block <!-- bench:scripts -->"):
        render.update_page("# a page without generated tables\n", ("scripts",))


def test_xgenre_readme_table_bolds_every_lowest_twr_and_divides_sgpe_by_hf():
    def row(size: int, peer: str, twr: float, torn: float) -> dict:
        return {"lang": "si", "train": "si_train_news.txt", "test": "si_test_legal.txt",
                "size": size, "peer": peer, "twr": twr, "straddling_per_1k": torn}  # fmt: skip

    rows = [
        row(4000, "sgpe-fallback", 1.5, 0), row(4000, "sgpe-paper", 1.6, 0),
        row(4000, "hf-bpe", 1.2, 80.4), row(4000, "hf-bpe-bytes", 1.2, 81),
        row(8000, "sgpe-fallback", 1.1, 0), row(8000, "sgpe-paper", 1.3, 0),
        row(8000, "hf-bpe", 1.25, 9.6), row(8000, "hf-bpe-bytes", 1.4, 10),
    ]  # fmt: skip
    assert render.xgenre_readme(rows).splitlines()[2:] == [
        "| si news → legal | 4k | 1.500 | 1.600 | **1.200** | **1.200** | 1.250 | 0, 80 |",
        "| | 8k | **1.100** | 1.300 | 1.250 | 1.400 | 0.880 | 0, 10 |",
    ]


def test_every_peer_in_the_results_is_in_the_registry():
    keys = {r["peer"] for r in read_csv(RESULTS / "xgenre.csv")}
    keys |= {r["key"] for r in read_csv(RESULTS / "compression.csv")}
    assert keys <= set(peers.PEERS)
    assert keys >= {"sgpe-fallback", "hf-bpe", "hf-metaspace", "o200k_base"}


def test_peer_registry_is_consistent():
    labels = [p.label for p in peers.PEERS.values()]
    assert len(labels) == len(set(labels))
    for key, p in peers.PEERS.items():
        assert p.key == key
        assert (p.family == "fixed") == (p.kit == "tiktoken") == (key in peers.FIXED)
        assert p.suffix == {"spm": ".model", "tiktoken": ""}.get(p.kit, ".json")
        if p.kit != "tiktoken":
            assert p.kit in peers._TRAINERS
    # Settings, not labels, decide whether a cached model is still good.
    assert peers.code_fingerprint("hf-bpe") != peers.code_fingerprint("hf-bpe-bytes")


def test_training_runs_in_its_own_process(tmp_path):
    corpus = ROOT / "sample_data" / "sinhala.txt"
    stats = peers.run_training("hf-metaspace", corpus, 300, tmp_path / "hf.json")
    assert stats["vocab_actual"] == 300
    assert stats["train_peak_rss_mb"] >= stats["train_base_rss_mb"] > 0
    tok = peers.load("hf-metaspace", tmp_path / "hf.json")
    assert tok.get_vocab_size() == 300


def test_missing_corpora_are_one_clear_error(tmp_path):
    with pytest.raises(SystemExit, match=r"corpora not found: .*nowhere does not exist.*--corpora"):
        corpora.require(tmp_path / "nowhere", "si_train.txt")
    (tmp_path / "si_train.txt").write_text("x\n", encoding="utf-8")
    with pytest.raises(SystemExit, match=r"missing in .*: .*si_dev\.txt$|missing in .*si_dev\.txt"):
        corpora.require(tmp_path, "si_train.txt", "si_dev.txt")
    assert corpora.require(tmp_path, "si_train.txt") == [tmp_path / "si_train.txt"]


def test_the_bench_reads_the_corpora_the_tests_read():
    assert corpora.DEFAULT == SHARED_CORPORA


def test_every_corpus_file_of_the_benches_exists(shared_corpora):
    from sgpe.oracles import CORPUS_FILES

    names = corpora.every_file() + [n for files in CORPUS_FILES.values() for n in files]
    assert [n for n in names if not (shared_corpora / n).is_file()] == []


def test_speed_table_gives_medians_and_ratios():
    def runs(*seconds: float, **fields: float) -> list[dict]:
        return [{"seconds": s, "chars": 2_000_000, "peak_mb": 50.0, **fields} for s in seconds]

    def trains(*seconds: float) -> list[dict]:
        return [{"train_s": s, "train_peak_rss_mb": 100.0 + s} for s in seconds]

    encode = {
        "sgpe": runs(2.0, 1.0, 4.0, batch_seconds=None, warm_seconds=0.25),
        "tiktoken": runs(0.5, 0.5, 0.5, batch_seconds=0.4, warm_seconds=None),
        "hf-metaspace": runs(1.0, 1.0, 1.0, batch_seconds=0.5, warm_seconds=None),
    }
    size = {
        "fraction": 1.0, "lines": 10, "chars": 2_000_000,
        "split": {"sgpe": runs(0.5, 0.6, 0.4), "sgpe-dfa": runs(20.0, 20.0, 20.0),
                  "hf-metaspace": runs(2.0, 2.0, 2.0), "hf-split-o200k": runs(2.0, 2.0, 2.0)},
        "train": {"sgpe-fallback": trains(6.0, 9.0, 3.0), "hf-metaspace": trains(2.0, 2.0, 2.0),
                  "hf-bytelevel-o200k": trains(3.0, 3.0, 3.0), "spm-bpe": trains(1.0, 1.0, 1.0)},
        "encode": encode,
    }  # fmt: skip
    quality = {
        "sgpe-fallback": {"tokens": 100, "twr": 1.1, "cpt": 5.0, "unk": 0, "roundtrip_fail": 0},
        "spm-bpe": {"tokens": 120, "twr": 1.2, "cpt": 4.5, "unk": 0, "roundtrip_fail": 1},
    }
    meta = {"command": "python -m bench speed", "machine": "2 CPUs, Linux x86_64", "wall_s": 60.0,
            "date": "today", "versions": "-", "repeats": 3, "vocab": 32000, "corpus": "si_train.txt"}  # fmt: skip
    rec = {"meta": meta, "sizes": [size], "dev": {"name": "si_dev.txt", "encode": encode, "quality": quality}}  # fmt: skip
    rows = render.speed_readme(rec).splitlines()
    assert rows[4:9] == [
        "| training wall time | 6.00 s | HF `tokenizers` BPE + Metaspace 2.00 s | 3.00 | ≤ 0.8 |",
        "| training peak RSS | 109 MB | HF Metaspace 102 MB | | ≤ 1 GB |",
        "| encoding si_dev.txt, one thread, cold cache | 1.00 M chars/s "
        "| tiktoken o200k_base 4.00 M chars/s | 0.25 | ≥ 1.5 |",
        "| encoding, warm cache | 8.00 M chars/s | | | |",
        "| `syllabify` | 4.00 M chars/s | table-driven DFA matcher 0.10 M chars/s | 40× | ≥ 40 M/s |",
    ]
    assert rows[-2:] == [
        "| SGPE (defaults: hierarchical, fallback, dummy prefix) | 100 | **1.100** | **5.000** | 0 | 0 |",
        "| SentencePiece BPE, same file and size | 120 | 1.200 | 4.500 | — | 1 |",
    ]
    assert "| 1 (10 lines, in-sample) | 1.00 | 4.00 | 2.00 | 0.25 | 0.50 | 5.00 / 4.00 | 50 / 50 / 50 |" in render.speed_markdown(rec)  # fmt: skip


def test_native_readme_table_rows():
    """The native table of docs/performance.md: both engines, the peers and the ratios the targets are
    stated in, from a small record of `python -m bench native`."""
    one = {
        "sgpe native": {"whole": 6.0, "encode": 30.0},
        "sgpe python": {"whole": 2.0, "encode": 3.0},
        "tiktoken o200k": {"whole": 3.0, "encode": 10.0},
    }
    batch = {"sgpe native 1 thread": 10.0, "sgpe native 2 threads": 19.0, "sgpe python": 3.0,
             "sgpe native flat 1 thread": 12.0, "sgpe native flat 2 threads": 23.0,
             "tiktoken o200k batch": 4.0}  # fmt: skip
    ratios = {"two independent native calls, 2 threads / 1 thread": 1.95}
    training = {"sgpe native": 1.0, "sgpe python": 3.0, "paper native": 2.0, "paper python": 4.0,
                "bytebpe native": 2.0, "bytebpe python": 6.0, "hf bpe metaspace": 2.0,
                "hf byte-level o200k": 4.0, "sentencepiece bpe": 1.0}  # fmt: skip
    meta = {"command": "python -m bench native", "wall_s": 120.0, "machine": "2 CPUs",
            "date": "today", "load_average": {"before": [0.5], "after": [0.7]},
            "encoding": {"one_thread": one, "batch": batch, "ratios": ratios},
            "training": training, "train_vocab": 32000}  # fmt: skip
    rows = [
        {
            "script": "sinhala",
            "native cold": 50.0,
            "native offsets": 140.0,
            "python first": 8.0,
            "hf metaspace": 2.0,
        },
        {
            "script": "odia",
            "native cold": 45.0,
            "native offsets": 160.0,
            "python first": 9.0,
            "hf metaspace": 1.5,
        },
    ]
    record = {"meta": meta, "rows": rows}
    lines = render.native_readme(record).splitlines()
    assert lines[4:] == [
        "| training si_train.txt → 32k, whole `python -m sgpe train` process | 1.00 s | 3.00 s "
        "| HF `tokenizers` BPE + Metaspace 2.00 s | 0.50 | ≤ 0.5 |",
        "| the same | | | SentencePiece BPE 1.00 s | 1.00 | ≤ 1.1 |",
        "| training, paper mode | 2.00 s | 4.00 s | HF BPE + Metaspace 2.00 s | 1.00 | |",
        "| training, byte-level BPE baseline | 2.00 s | 6.00 s | HF byte-level BPE, o200k split "
        "4.00 s | 0.50 | |",
        "| encoding si_dev.txt line by line, one thread, whole process | 6.00 M chars/s "
        "| 2.00 M chars/s | tiktoken o200k_base 3.00 M chars/s | 2.00 | ≥ 1.5 |",
        "| the same, the encode loop alone | 30.00 M chars/s | 3.00 M chars/s "
        "| tiktoken 10.00 M chars/s | 3.00 | |",
        "| `encode_batch`, 2 threads against 1 | 19.00 / 10.00 M chars/s | 3.00 M chars/s "
        "| tiktoken batch 4.00 M chars/s | 1.90× own 1 thread (two independent native calls "
        "on 2 threads: 1.95×, the machine's own ceiling in this run) | ≥ 1.8× |",
        "| `encode_batch_flat` (one array of ids and offsets), 2 threads against 1 "
        "| 23.00 / 12.00 M chars/s | | | 1.92× own 1 thread (two independent native calls: "
        "1.95×) | ≥ 1.8× where that is ≥ 1.9× |",
        "| `syllabify`, cold, the slowest of 2 scripts (odia) | 45.0 M chars/s "
        "| 9.0 M chars/s (first pass) | HF `Metaspace` 1.5 M chars/s | 30× | ≥ 60 M/s |",
        "| `offsets` (every token's end, one array), the slowest of 2 scripts (sinhala) "
        "| 140.0 M chars/s | | | | ≥ 150 M/s |",
        "",
        "Every script's `syllabify` rate and the training front end: "
        "[`bench/results/native.json`](../bench/results/native.json).",
    ]
    # With the load section's record (bench/load.py): its two rows, before the footnote.
    seconds = {
        "sgpe native": 0.06,
        "sgpe python": 0.3,
        "hf tokenizers": 0.08,
        "sgpe native cli": 0.12,
        "sgpe python cli": 0.4,
        "hf tokenizers process": 0.15,
    }
    load_meta = {"command": "python -m bench native --only load", "date": "today", "repeats": 7,
                 "load_average": {"before": [0.5], "after": [0.7]}, "vocab_size": 32000}  # fmt: skip
    with_load = render.native_readme(record, {"meta": load_meta, "rows": [seconds]}).splitlines()
    assert with_load[4:-2] == [
        *lines[4:-2],
        "| loading a 32k vocabulary + the first `encode`, in process | 0.060 s | 0.300 s "
        "| HF `tokenizers` `from_file` + `encode` 0.080 s | 0.75 | ≤ 1.0 |",
        "| `python -m sgpe encode` of one line, whole process (32k) | 0.120 s | 0.400 s "
        "| a `python -c` process doing it with HF 0.150 s | 0.80 | ≤ 1.0 |",
    ]
    assert with_load[-1].endswith(
        "The two load rows: `python -m bench native --only load` (today, medians of 7 fresh "
        "processes each, load average before and after: 0.5, 0.7), "
        "[`bench/results/native_load.json`](../bench/results/native_load.json)."
    )

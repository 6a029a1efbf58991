"""Large corpora (docs/large_corpora.md): peers in the same run, medians and ratios.

    python -m bench scale [--corpora ../shared/corpora] [--only count,cli,gzip,encode,hf,load]
        [--times 10] [--repeats 3] [--big]

* ``count``: counting ``si_dev.txt`` (1 MB) and ``si_train.txt`` (16 MB) in one process
  and on a pool of 2 (the pool's start-up decides ``SERIAL_BYTES``);
* ``cli``: ``python -m sgpe train`` on ``si_train.txt`` repeated ``--times`` times (160 MB
  by default; generated in a temporary directory, never committed) to 32k against Hugging
  Face BPE (Metaspace) on the same file: wall time and peak RSS of each process (the
  largest of its processes). Targets: RSS <= 300 MB, time <= 0.8x HF. ``--big`` adds
  ``si_train.txt`` x100 (1.6 GB; target <= 1 GB RSS, time linear in size);
* ``gzip``: a 300 MB one-line ``.txt.gz`` without spaces: seconds until it finishes or
  stops with a clear error (target: 2 minutes) and peak RSS;
* ``encode``: ``python -m sgpe encode`` of ``si_train.txt`` on 1 and 2 workers
  (target: 2 workers >= 1.6x one);
* ``hf``: characters per second of the exported ``tokenizer.json`` in ``tokenizers``
  (one thread, ``encode_batch``) against our Python encoder, both cold, on ``si_dev.txt``
  (target: HF >= ours);
* ``load``: loading a vocabulary in a fresh process, the shipped 4k one and a 32k one
  trained on ``si_train.txt``, until its first ``encode``: ours (``sgpe.load``) against
  the exported ``tokenizer.json`` in ``tokenizers`` (``Tokenizer.from_file``), each
  after its import.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HELP = "large corpora: streaming, all cores, pathological text, batch encode"
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _run(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """Wall seconds and peak RSS (MB: the largest process among the command and its
    descendants, measured by a fresh wrapper process) of a command."""
    wrapper = (
        "import resource, subprocess, sys, json; "
        "d = subprocess.run(json.loads(sys.argv[1]), capture_output=True, text=True); "
        "sys.stderr.write(d.stderr); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", wrapper, json.dumps(argv)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
    )
    seconds = time.perf_counter() - t0
    rss = int(done.stdout.strip().splitlines()[-1]) / 1024
    return seconds, rss, done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""


def _py(code: str) -> list[str]:
    return [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(ROOT)!r}); {code}"]


def _repeated(corpora: Path, times: int, work: Path) -> Path:
    """si_train.txt written ``times`` times over into the work directory (never committed)."""
    base = (corpora / "si_train.txt").read_bytes()
    path = work / f"si_train_x{times}.txt"
    with open(path, "wb") as f:
        for _ in range(times):
            f.write(base)
    return path


def bench_count(corpora: Path, repeats: int, work: Path) -> None:
    from sgpe.pieces import get_word_splitter

    print(
        "\n== counting: one process vs a pool of 2 vs the native counter (in this process, "
        "all cores; seconds, median)"
    )
    made = [_repeated(corpora, k, work) for k in (2, 4, 10)]  # 32, 64 and 160 MB
    for path in (corpora / "si_dev.txt", corpora / "si_train.txt", *made):
        name = path.name
        times = {}
        for workers in (1, 2, 0):  # 0: the native counter
            how = (
                f"count_jobs(s.jobs(), w.pattern, ' ', {workers}, serial_bytes=0)"
                if workers
                else "count_jobs_native(s.jobs(), w.native_counter(' '), w.pattern, ' ')"
            )
            code = (
                "import time; from sgpe.corpus.counting import count_jobs, count_jobs_native; "
                "from sgpe.corpus import CorpusStream; from sgpe.pieces import get_word_splitter; "
                f"w=get_word_splitter('auto', True); t=time.perf_counter(); "
                f"s=CorpusStream({str(path)!r}, prefix=' '); {how}; "
                "print(time.perf_counter()-t)"
            )
            if not workers and get_word_splitter("auto", True).native_counter(" ") is None:
                times[0] = float("nan")  # the Python engine: no native counter
                continue
            runs = []
            for _ in range(repeats):
                out = subprocess.run(_py(code), capture_output=True, text=True, check=True)
                runs.append(float(out.stdout.strip()))
            times[workers] = statistics.median(runs)
        print(
            f"{name:>17}: 1 process {times[1]:.2f} s, pool of 2 {times[2]:.2f} s, "
            f"speed-up {times[1] / times[2]:.2f}x | native {times[0]:.2f} s, "
            f"{times[1] / times[0]:.1f}x one process, {times[2] / times[0]:.1f}x the pool"
        )
    for path in made:
        path.unlink()


def _hf_bpe_train(corpus: Path, vocab: int, out: Path) -> list[str]:
    code = (
        "from tokenizers import Tokenizer, models, trainers, pre_tokenizers; "
        "t=Tokenizer(models.BPE(unk_token='[UNK]')); "
        "t.pre_tokenizer=pre_tokenizers.Metaspace(); "
        f"tr=trainers.BpeTrainer(vocab_size={vocab}, special_tokens=['[UNK]'], show_progress=False); "
        f"t.train([{str(corpus)!r}], tr); t.save({str(out)!r})"
    )
    return _py(code)


def bench_cli(corpora: Path, times: int, big: bool, work: Path, repeats: int) -> None:
    print(
        "\n== CLI training to 32k vs Hugging Face BPE (Metaspace) on the same file "
        f"(medians of {repeats} runs)"
    )
    sizes = [times] + ([100] if big else [])
    rows = []
    for k in sizes:
        corpus = _repeated(corpora, k, work)
        sgpe_runs, hf_runs = [], []
        for r in range(repeats if k <= 10 else 1):  # the 1.6 GB run once: it takes minutes
            out = work / f"run{k}-{r}"
            sgpe_runs.append(_run(
                [sys.executable, "-m", "sgpe", "train", "--corpus", str(corpus), "--vocab-size",
                 "32000", "--out", str(out)]
            ))  # fmt: skip
            shutil.rmtree(out)
            hf_runs.append(_run(_hf_bpe_train(corpus, 32000, work / f"hf{k}.json")))
        t_sgpe = statistics.median(x[0] for x in sgpe_runs)
        rss_sgpe = statistics.median(x[1] for x in sgpe_runs)
        last = sgpe_runs[-1][2]
        t_hf = statistics.median(x[0] for x in hf_runs)
        rss_hf = statistics.median(x[1] for x in hf_runs)
        mb = corpus.stat().st_size / 1e6
        rows.append((mb, t_sgpe))
        print(
            f"{mb:,.0f} MB: sgpe {t_sgpe:.1f} s, {rss_sgpe:.0f} MB RSS | HF BPE {t_hf:.1f} s, "
            f"{rss_hf:.0f} MB RSS | time ratio {t_sgpe / t_hf:.2f} (target <= 0.8), "
            f"sgpe RSS target <= {300 if k <= 10 else 1000} MB [{last[:80]}]"
        )
        corpus.unlink()
    if len(rows) == 2:
        (m1, t1), (m2, t2) = rows
        print(f"size x{m2 / m1:.0f} -> time x{t2 / t1:.1f} (linear: x{m2 / m1:.0f})")


def bench_gzip(corpora: Path, work: Path) -> None:
    print("\n== a 300 MB one-line .txt.gz without spaces")
    text = (corpora / "si_train.txt").read_bytes().replace(b" ", b"").replace(b"\n", b"")
    path = work / "oneline.txt.gz"
    with gzip.open(path, "wb", compresslevel=1) as f:
        written = 0
        while written < 300_000_000:
            f.write(text)
            written += len(text)
    code = (
        "from sgpe.gpe import GPETrainer, TrainSettings; from sgpe.corpus import CorpusError\n"
        f"try: GPETrainer(TrainSettings(vocab_size=8000)).count({str(path)!r}); print('finished')\n"
        "except CorpusError as e: print('error:', e)"
    )
    t0 = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    out = subprocess.run(_py(code.replace("\n", "\n")), capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    rss_mb = rss / 1024 if rss > before else float("nan")
    message = (out.stdout or out.stderr).strip().splitlines()[-1]
    print(
        f"{written / 1e6:,.0f} MB decompressed: {seconds:.1f} s (target 120), {rss_mb:.0f} MB RSS"
    )
    print(f"  {message[:200]}")


def bench_encode(corpora: Path, work: Path, repeats: int) -> None:
    print("\n== batch encode of si_train.txt (python -m sgpe encode), 1 vs 2 workers")
    from sgpe.shipped import DEFAULT_SGPE

    # Two bounds on what two workers can reach. A one-line corpus times what every run does
    # on one core whatever its size: starting Python, importing sgpe and loading the
    # vocabulary. Every other line on one worker is about what each of two workers does at
    # best (each takes every other batch): each has its own piece cache, so both encode
    # the frequent words, and the first time a word is met costs many times a repeat.
    one_line, half = work / "one_line.txt", work / "half.txt"
    with open(corpora / "si_train.txt", encoding="utf-8") as f:
        lines = f.readlines()
    one_line.write_text(lines[0], encoding="utf-8")
    half.write_text("".join(lines[::2]), encoding="utf-8")
    times = {}
    for name, corpus, workers in (
        ("start-up", one_line, 1),
        ("half", half, 1),
        (1, corpora / "si_train.txt", 1),
        (2, corpora / "si_train.txt", 2),
    ):
        runs = []
        for _ in range(repeats):
            t, _, _ = _run(
                [sys.executable, "-m", "sgpe", "encode", "--vocab", str(DEFAULT_SGPE), "--corpus",
                 str(corpus), "--out", str(work / "ids.npy"), "--workers", str(workers)]
            )  # fmt: skip
            runs.append(t)
        times[name] = statistics.median(runs)
    print(
        f"1 worker {times[1]:.2f} s, 2 workers {times[2]:.2f} s: speed-up "
        f"{times[1] / times[2]:.2f}x (target >= 1.6x)"
    )
    fixed = times["start-up"]
    best = fixed + (times[1] - fixed) / 2
    print(
        f"start-up (a one-line corpus) {fixed:.2f} s: perfect workers after it would take "
        f"{best:.2f} s, a speed-up of at most {times[1] / best:.2f}x"
    )
    print(
        f"every other line on 1 worker {times['half']:.2f} s: two workers with their own piece "
        f"caches reach about {times[1] / times['half']:.2f}x"
    )


def bench_hf(corpora: Path, repeats: int) -> None:
    print("\n== exported tokenizer.json in HF tokenizers vs our Python encoder (M chars/s)")
    from sgpe.shipped import DEFAULT_SGPE

    code = (
        "import time, sgpe, tokenizers; from sgpe.interop.hf import to_hf_str\n"
        f"lines=open({str(corpora / 'si_dev.txt')!r}, encoding='utf-8').read().split('\\n')[:-1]\n"
        "n=sum(map(len, lines)); tok=sgpe.load(" + repr(str(DEFAULT_SGPE)) + ")\n"
        "doc=to_hf_str(tok); hf=tokenizers.Tokenizer.from_str(doc)\n"
        "t=time.perf_counter(); ours=[tok.encode(x) for x in lines]; a=time.perf_counter()-t\n"
        "t=time.perf_counter(); theirs=[e.ids for e in hf.encode_batch(lines)]; b=time.perf_counter()-t\n"
        "assert ours == theirs\n"
        # HF's ids-only batch call (no offsets), on a fresh copy so its word cache is cold.
        "fast=tokenizers.Tokenizer.from_str(doc)\n"
        "t=time.perf_counter(); ids=[e.ids for e in fast.encode_batch_fast(lines)]; f=time.perf_counter()-t\n"
        "assert ids == ours\n"
        # The same file without its last (runs) Split: what that Split costs (ids differ).
        "import json; d=json.loads(doc); d['pre_tokenizer']['pretokenizers'].pop()\n"
        "cut=tokenizers.Tokenizer.from_str(json.dumps(d))\n"
        "t=time.perf_counter(); cut.encode_batch(lines); c=time.perf_counter()-t\n"
        "print(n/a/1e6, n/b/1e6, n/c/1e6, n/f/1e6)"
    )
    ours, theirs, without_runs, ids_only = [], [], [], []
    for _ in range(repeats):
        out = subprocess.run(
            _py(code), capture_output=True, text=True, check=True,
            env={**os.environ, "RAYON_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false"},
        )  # fmt: skip
        a, b, c, f = map(float, out.stdout.split())
        ours.append(a)
        theirs.append(b)
        without_runs.append(c)
        ids_only.append(f)
    a, b = statistics.median(ours), statistics.median(theirs)
    print(f"ours {a:.2f}, HF {b:.2f}: HF/ours {b / a:.2f} (target >= 1; ids identical)")
    f = statistics.median(ids_only)
    print(f"HF encode_batch_fast (ids only, no offsets, as ours) {f:.2f}: HF/ours {f / a:.2f}")
    print(f"HF without the runs Split (ids no longer exact): {statistics.median(without_runs):.2f}")


def bench_load(corpora: Path, work: Path, repeats: int) -> None:
    print("\n== loading a vocabulary in a fresh process, until its first encode (ms, median)")
    import sgpe
    from sgpe.interop.hf import to_hf_str
    from sgpe.shipped import DEFAULT_SGPE

    big = work / "vocab32k.json"
    sgpe.train(corpora / "si_train.txt", vocab_size=32_000).save(big)
    line = (corpora / "si_dev.txt").read_text(encoding="utf-8").split("\n")[0]
    for name, vocab in (("4k (shipped)", Path(DEFAULT_SGPE)), ("32k (si_train)", big)):
        exported = work / f"{vocab.stem}.tokenizer.json"
        exported.write_text(to_hf_str(sgpe.load(vocab)), encoding="utf-8")
        code = (
            "import time, json\n"
            "import sgpe, tokenizers\n"
            f"t=time.perf_counter(); tok=sgpe.load({str(vocab)!r}); ids=tok.encode({line!r})\n"
            "a=time.perf_counter()-t\n"
            f"t=time.perf_counter(); hf=tokenizers.Tokenizer.from_file({str(exported)!r})\n"
            f"theirs=hf.encode({line!r}).ids; b=time.perf_counter()-t\n"
            "assert ids == theirs\n"
            "print(a, b)"
        )
        ours, theirs = [], []
        for _ in range(repeats):
            out = subprocess.run(_py(code), capture_output=True, text=True, check=True)
            a, b = map(float, out.stdout.split())
            ours.append(a * 1000)
            theirs.append(b * 1000)
        a, b = statistics.median(ours), statistics.median(theirs)
        print(f"{name}: ours {a:.0f} ms, HF tokenizers {b:.0f} ms: ours/HF {a / b:.2f}")


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--only", default="count,cli,gzip,encode,hf,load")
    ap.add_argument("--times", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--big", action="store_true", help="also si_train x100 (1.6 GB)")


def run(args: argparse.Namespace) -> int:
    from bench.records import PrintedReport

    corpora = Path(args.corpora)  # `python -m bench` gives --corpora (bench/corpora.py)
    parts = set(args.only.split(","))
    report = PrintedReport(args.out, "scale", "Large corpora: python -m bench scale")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        jobs = {
            "count": lambda: bench_count(corpora, args.repeats, work),
            "hf": lambda: bench_hf(corpora, args.repeats),
            "encode": lambda: bench_encode(corpora, work, args.repeats),
            "gzip": lambda: bench_gzip(corpora, work),
            "cli": lambda: bench_cli(corpora, args.times, args.big, work, args.repeats),
            "load": lambda: bench_load(corpora, work, args.repeats),
        }
        for key, job in jobs.items():
            if key in parts:
                command = f"python -m bench scale --only {key} --repeats {args.repeats}"
                if key == "cli":
                    command += f" --times {args.times}" + (" --big" if args.big else "")
                with report.part(key, command):
                    job()
    print(f"\nsaved: {report.md_path}")
    sys.stdout.flush()
    return 0

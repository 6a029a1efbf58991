"""The run worker: trains one run directory in this process, keeping its files up to date."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import os
import shutil
import signal
import sys
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import FrameType
from typing import Any, Protocol

from .._atomic import atomic_write
from ..corpus.readers import CorpusError, CorpusInfo, corpus_files, iter_documents
from ..settings import info
from .creation import checked_files
from .files import _find_table, _have_pyarrow, _remove_temp_files, _table_suffix, _Writes
from .format import (
    ACTIVE_STATES,
    CHECKPOINT,
    CHECKPOINT_CORRUPT,
    CHECKPOINT_PREV,
    LOG,
    MERGE_PARTS,
    MERGE_PAUSE_ENV,
    STATUS,
    VOCAB,
    Checkpoint,
    CheckpointBody,
    CheckpointChoice,
    RunConfig,
    RunError,
    corpus_source,
    pick_checkpoint,
    read_config,
    read_status,
    read_word_counts,
    run_lock,
    verify_corpus,
    write_status,
    write_word_counts,
)
from .merges_table import _parts, encode_merges
from .status import _StatusFile, read_status_data


class Display(Protocol):
    """Where the trainer reports to (the CLI's progress bar or log lines)."""

    def note(self, message: str) -> None: ...

    def progress(self, phase: str, step: int, target: int, rate: float | None) -> None: ...


@dataclass(frozen=True)
class TrainResult:
    state: str  # done | cancelled | failed
    exit_code: int  # 0 done/cancelled by SIGTERM; 130 SIGINT; 2 input error; 1 other failure
    message: str
    unchanged: bool = False  # the run was already done; nothing was written


class _Cancelled(Exception):
    """A stop signal, named for the people who see the run's message: SIGTERM is the Train
    page's Cancel (or a ``kill``), SIGINT a Ctrl-C; the log line keeps the signal's name."""

    def __init__(self, signum: int) -> None:
        super().__init__("Ctrl-C" if signum == signal.SIGINT else "a stop request (Cancel)")
        self.signum = signum
        self.signal = signal.Signals(signum).name


class _InputError(Exception):
    """A failure caused by the run's input (corpus, settings): exit code 2."""


class _Log:
    """``train.log`` lines; also shown on the display (skipped when stderr *is* the log,
    as when the run manager redirects the trainer's output there)."""

    def __init__(self, run_dir: Path, display: Display | None) -> None:
        self.path = run_dir / LOG
        self.display = display
        self.to_file = not _stderr_is(self.path)

    def __call__(self, message: str, *, show: bool = True) -> None:
        """Log a line; ``show=False`` keeps it off the display (the CLI prints failures
        itself, as ``sgpe: error: ...``)."""
        line = f"{time.strftime('%Y-%m-%d %H:%M:%S')} {message}\n"
        if self.to_file or not show:
            with contextlib.suppress(OSError), open(self.path, "a", encoding="utf-8") as f:
                f.write(line)
        if show and self.display is not None:
            with contextlib.suppress(OSError, ValueError):
                self.display.note(message)


def _stderr_is(path: Path) -> bool:
    try:
        a, b = os.fstat(sys.stderr.fileno()), os.stat(path)
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


# The thread that writes the word counts beside the merge loop (RunWorker._count).
WORD_COUNTS_THREAD = "write word counts"


class _Background:
    """One call on a thread of its own; :meth:`wait` joins it and raises what it raised."""

    def __init__(self, name: str, work: Callable[[], object]) -> None:
        self.error: BaseException | None = None

        def run() -> None:
            try:
                work()
            except BaseException as err:  # handed to the thread that waits
                self.error = err

        self.thread = threading.Thread(target=run, name=name)
        self.thread.start()

    def join(self) -> BaseException | None:
        """Wait for the call to end; what it raised (None: it returned)."""
        self.thread.join()
        return self.error

    def wait(self) -> None:
        error = self.join()
        if error is not None:
            raise error


class RunWorker:
    """Trains the run in ``run_dir`` in this process, keeping its files up to date.

    Use :func:`train_run`. Signals: SIGTERM/SIGINT finish the current merge, write a final
    checkpoint and end the run as ``cancelled``.
    """

    def __init__(self, run_dir: Path, config: RunConfig, display: Display | None) -> None:
        self.run_dir = run_dir
        self.config = config
        self.fingerprint = config.fingerprint()
        self.display = display
        self.log = _Log(run_dir, display)
        self.writes = _Writes()
        self.checkpoint_body = CheckpointBody()
        self.status = _StatusFile(
            run_dir, config.heartbeat_seconds, {"model": config.model, "run_id": run_dir.name}
        )
        self.stop_signal: int | None = None
        self.raise_on_signal = False
        # The merge list so far (checkpoint merges + one entry per progress event).
        self.merges: list[tuple[str, str]] = []
        self.counts: list[int] = []
        self.merge_ids: list[tuple[int, int]] = []  # bytebpe: the merges as token ids
        self.target = 0
        self.checkpoint_step = 0
        self.part_end = 0
        # The bytes of the one part written when it holds every merge from the first (a
        # run that checkpointed once, at its end): merges.parquet is that same table.
        self.whole_part: tuple[int, bytes] | None = None
        self.last_checkpoint = time.monotonic()
        self.last_display = 0.0
        self.trained_size = 0  # the finished vocabulary's size
        self.word_counts_write: _Background | None = None
        # The test hook of sgpe/runs/format.py: seconds to sleep per merge of each batch.
        self.merge_pause = float(os.environ.get(MERGE_PAUSE_ENV) or 0)

    # ------------------------------------------------------------------ signals
    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self.stop_signal = signum
        if self.raise_on_signal:
            raise _Cancelled(signum)

    @contextlib.contextmanager
    def _signals(self) -> Iterator[None]:
        saved: dict[signal.Signals, Any] = {}
        try:
            for sig in (signal.SIGTERM, signal.SIGINT):
                saved[sig] = signal.signal(sig, self._on_signal)
        except ValueError:  # not the main thread: no signal handling
            pass
        try:
            yield
        finally:
            for saved_sig, handler in saved.items():
                signal.signal(saved_sig, handler)

    def _check_stop(self) -> None:
        if self.stop_signal is not None:
            raise _Cancelled(self.stop_signal)
        if self.status.error is not None:
            raise self.status.error

    # ------------------------------------------------------------------ main
    def run(self, resume: bool) -> TrainResult:
        self.status.start()
        started = any((self.run_dir / n).exists() for n in (CHECKPOINT, CHECKPOINT_PREV))
        started = started or _find_table(self.run_dir, "word_counts") is not None
        what = "resuming" if resume and started else "starting"
        self.log(f"{what} run {self.run_dir.name}: {_describe(self.config)} (pid {os.getpid()})")
        try:
            with self._signals():
                if self.config.model == "bytebpe":
                    message = self._train_bytebpe(resume)
                else:
                    message = self._train_sgpe(resume)
        except _Cancelled as stop:
            return self._end_cancelled(stop)
        except (_InputError, CorpusError) as err:
            return self._end_failed(str(err), 2)
        except OSError as err:
            return self._end_failed(_os_message(self._cause(err)), 1)
        except Exception as err:
            self.log("internal error:\n" + traceback.format_exc().rstrip())
            return self._end_failed(f"internal error: {type(err).__name__}: {err}", 1)
        try:
            self.status.final(
                state="done",
                phase="done",
                step=len(self.merges),
                message=message,
                vocab_size=self.trained_size,
                stopped=self._stop_reason(),
            )
        except OSError as err:
            return TrainResult("failed", 1, f"cannot write {STATUS}: {_os_message(err)}")
        self.log(message)
        return TrainResult("done", 0, message)

    def _stop_reason(self) -> str:
        """Why training ended at the size it did."""
        asked = self.config.vocab_size
        if self.trained_size >= asked:
            return "reached the requested size"
        if self.config.min_freq <= 1:  # "occurs 1 times or more" said "none is left"
            return (
                f"stopped at {self.trained_size:,} of {asked:,} tokens: no pair of tokens is "
                "left to merge in the corpus (every word is one token)"
            )
        return (
            f"stopped at {self.trained_size:,} of {asked:,} tokens: no pair of tokens occurs "
            f"{self.config.min_freq:,} times or more (min_freq) in the corpus any more"
        )

    def _end_cancelled(self, stop: _Cancelled) -> TrainResult:
        message = f"cancelled by {stop}"
        self.log(f"{stop.signal} received", show=False)
        try:
            self._wait_word_counts()
            if self.status.data["state"] == "merging" and self.merges:
                self._write_checkpoint(final=True)
                message += f"; checkpoint at step {len(self.merges)}: resume to continue"
            else:
                message += "; resume to continue"
        except OSError as err:
            return self._end_failed(
                f"{message}, but the final checkpoint failed: {_os_message(err)}", 1
            )
        code = 130 if stop.signum == signal.SIGINT else 0
        try:
            self.status.final(state="cancelled", phase="cancelled", message=message)
        except OSError as err:
            return TrainResult(
                "failed", 1, f"cannot write {STATUS}: {_os_message(err)} ({message})"
            )
        self.log(message)
        return TrainResult("cancelled", code, message)

    def _end_failed(self, message: str, code: int) -> TrainResult:
        with contextlib.suppress(Exception):  # the run failed for the reason it gives
            self._wait_word_counts()
        self.log(f"failed: {message}", show=False)
        try:
            # Exit code 2 is a failure of the run's input (settings, corpus): resuming
            # would fail the same way, so the run says so.
            self.status.final(state="failed", message=message, resumable=code != 2)
        except OSError as err:
            return TrainResult(
                "failed", 1, f"cannot write {STATUS}: {_os_message(err)} ({message})"
            )
        return TrainResult("failed", code, message)

    # ------------------------------------------------------------------ SGPE
    def _corpus_path(self) -> Path:
        """The corpus to read (checked against config.json by :func:`train_run`)."""
        return corpus_source(self.run_dir, self.config)

    def _train_sgpe(self, resume: bool) -> str:
        from ..bpe import ResumeMismatch
        from ..gpe import GPETrainer

        try:
            trainer = GPETrainer(self.config.train_settings(), self.config.counting)
        except ValueError as err:
            raise _InputError(str(err)) from None
        counts: Counter[str] | None = None
        info: CorpusInfo | None = None
        if resume:
            try:
                counts, info = read_word_counts(self.run_dir, self.fingerprint)
                self.log(f"loaded {len(counts):,} word counts (no recount)")
            except (ValueError, KeyError, TypeError) as err:
                if str(err) != "no word_counts file":
                    self.log(f"word counts unusable ({err}); counting again")
        if counts is None or info is None:
            counts, info = self._count(trainer)
        trainer.corpus_info = info
        self._check_stop()

        choice = (
            pick_checkpoint(self.run_dir, self.fingerprint) if resume else CheckpointChoice(None)
        )
        for note in choice.notes:
            self.log(note)
        for name in choice.corrupt:
            if name == CHECKPOINT:  # keep it for inspection; the next checkpoint takes its place
                with contextlib.suppress(OSError):
                    os.replace(self.run_dir / name, self.run_dir / CHECKPOINT_CORRUPT)
        ckpt = choice.checkpoint
        if ckpt is not None:
            self.merges, self.counts = list(ckpt.merges), list(ckpt.counts)
            self.target = ckpt.target
            self.checkpoint_step = ckpt.step
            if not choice.corrupt:
                self.log(f"resuming from {ckpt.source} at step {ckpt.step}")
        self._sync_parts()
        message = "; ".join(choice.notes)
        self.status.step = len(self.merges)
        self.status.update(
            state="merging",
            phase="preparing",
            checkpoint_step=self.checkpoint_step,
            target=self.target,
            message=message,
        )
        self._check_stop()
        try:
            tok = trainer.fit(
                counts,
                progress_batch=self._on_merges,
                resume_merges=list(self.merges[: self.checkpoint_step]),
            )
        except ResumeMismatch as err:
            raise _InputError(f"cannot resume: {err}") from None
        except ValueError as err:  # e.g. vocab_size below the base vocabulary
            raise _InputError(str(err)) from None
        # Whole syllables (Thai, Lao) end the list with merges of their own in place of the
        # loop's last ones (sgpe/hierarchical/whole.py): the loop's merges stay the
        # checkpoint's (a resume replays them and completes the syllables again), and the
        # final merges file is the vocabulary's.
        kept = trainer.loop_merges_kept
        final = [(a, b) for a, b in tok.merges]
        loop = self.merges if kept is None else self.merges[:kept]
        if final[: len(loop)] != loop or (kept is None and len(final) != len(loop)):
            raise RuntimeError("the trainer's merges differ from the ones recorded in this run")
        self._check_stop()
        self.status.update(phase="writing")
        self._write_checkpoint(final=True)
        if kept is not None:
            assert tok.merge_counts is not None  # a trained tokenizer has its counts
            self.merges, self.counts = final, list(tok.merge_counts)
            self.whole_part = None  # the loop's merges, not these
        self._write_final_merges()
        tok.save(self.run_dir / VOCAB)
        self.trained_size = tok.vocab_size
        done = f"done: {VOCAB} with {tok.vocab_size:,} tokens ({len(self.merges):,} merges)"
        return f"{done}; {message}" if message else done

    def _count(self, trainer: Any) -> tuple[Counter[str], CorpusInfo]:
        from ..corpus.counting import count_pieces

        path = self._corpus_path()
        self.status.update(state="counting", phase="counting")
        self.log(f"counting pieces of {self.config.corpus_name or path.name}")
        self._show("counting", 0, 0, None)
        self.raise_on_signal = True
        try:
            self._check_stop()
            # Long pieces stay whole: fit() cuts them as it syllabifies them. The files'
            # hashes are those config.json records, checked a moment ago (train_run):
            # the count reads the corpus without hashing it a second time.
            counts, info = count_pieces(
                path,
                trainer.settings,
                trainer.counting,
                capped=False,
                known=checked_files(self.run_dir, self.config),
            )
        finally:
            self.raise_on_signal = False
        info = CorpusInfo(
            self.config.corpus_name or info.name, info.sha256, info.documents, info.characters
        )
        self.log(f"counted {len(counts):,} unique pieces in {info.documents:,} lines")
        # Written beside the merge loop, which runs on one core and leaves the GIL free,
        # so that the table, and pyarrow's import (0.1-0.3 s, numpy's included) that it
        # needs, add nothing to the run; during the count they competed with its two
        # cores (python -m bench native, the training row). Every later write waits for
        # it first (_write_checkpoint), so the files keep their order.
        self.word_counts_write = _Background(
            WORD_COUNTS_THREAD,
            partial(write_word_counts, self.run_dir, counts, info, self.fingerprint, self.writes),
        )
        return counts, info

    def _cause(self, err: OSError) -> OSError:
        """The error a run that failed on ``err`` reports: the word counts' own, when their
        write beside the merge loop failed the same way. On a full disk the large table
        fills it, and a status write of a few hundred bytes at that moment failed first:
        the run then named ``status.json``, not the file that took the space
        (tests/test_runs.py, the full disk at the word counts)."""
        job = self.word_counts_write
        cause = job.join() if job is not None else None
        return cause if isinstance(cause, OSError) and cause.errno == err.errno else err

    def _wait_word_counts(self) -> None:
        """Wait for the word counts' write (started by :meth:`_count`); raise its error."""
        job, self.word_counts_write = self.word_counts_write, None
        if job is not None:
            job.wait()

    def _on_merges(self, batch: Any) -> None:
        """A batch of consecutive merges (``GPETrainer.fit``'s ``progress_batch``): recorded
        in order, with :meth:`_after_merge` at the batch's end and at every step where a
        checkpoint falls due by steps, so the checkpoints hold the same merges as with a
        report per merge; the status, the display and the stop check follow once a batch
        (the trainer sends one at least every tenth of a second)."""
        first = len(self.merges) + 1
        if batch.first_step != first:
            raise RuntimeError(f"progress step {batch.first_step} but {first - 1} merges recorded")
        if self.status.rate_from is None:
            if not self.target:
                self.target = batch.target
            self.status.rate_from = (time.time(), first - 1)
            self.status.update(phase="merging", target=self.target)
        pairs, counts = batch.pairs, batch.counts
        done = 0
        while done < len(pairs):
            # Up to the next step whose checkpoint is due by steps (or the batch's end).
            room = self.checkpoint_step + self.config.checkpoint_every - len(self.merges)
            end = min(len(pairs), done + max(1, room))
            self.merges += pairs[done:end]
            self.counts += counts[done:end]
            done = end
            step = len(self.merges)
            self.status.step = step
            self._after_merge(step, time.monotonic())
        if self.merge_pause:
            time.sleep(self.merge_pause * len(pairs))

    def _after_merge(self, step: int, now: float) -> None:
        """After recorded merges (each merge of bytebpe, each batch and checkpoint step of
        sgpe): checkpoint when due, stop if asked to, show progress at most ten times a
        second."""
        cfg = self.config
        if (
            step - self.checkpoint_step >= cfg.checkpoint_every
            or now - self.last_checkpoint >= cfg.checkpoint_seconds
        ):
            self._write_checkpoint()
        if self.stop_signal is not None or self.status.error is not None:
            self._check_stop()
        if now - self.last_display >= 0.1:
            self.last_display = now
            self._show("merging", step, self.target, _rate(self.status))

    def _show(self, phase: str, step: int, target: int, rate: float | None) -> None:
        if self.display is not None:
            with contextlib.suppress(OSError, ValueError):
                self.display.progress(phase, step, target, rate)

    # ------------------------------------------------------------------ checkpoint files
    def _sync_parts(self) -> None:
        """Make ``merges/`` hold exactly the rows 1..checkpoint step (a resume may come
        from an older checkpoint than the newest part, or find a gap)."""
        _remove_temp_files(self.run_dir)
        _remove_temp_files(self.run_dir / MERGE_PARTS)
        end = 0
        for first, last, path in _parts(self.run_dir):
            if first == end + 1 and last <= self.checkpoint_step:
                end = last
            else:
                path.unlink()
        self.part_end = end
        if end < self.checkpoint_step:
            self._write_part(self.checkpoint_step)

    def _write_part(self, last: int) -> None:
        first = self.part_end + 1
        if last < first:
            return
        parquet = _have_pyarrow()
        folder = self.run_dir / MERGE_PARTS
        folder.mkdir(exist_ok=True)
        path = folder / f"part-{first:08d}-{last:08d}{_table_suffix(parquet)}"
        data = encode_merges(self.merges, self.counts, first, last, parquet)
        self.writes.check(path)
        atomic_write(path, data, sync=False)
        self.part_end = last
        self.whole_part = (last, data) if first == 1 else None

    def _write_checkpoint(self, final: bool = False) -> None:
        self._wait_word_counts()
        step = len(self.merges)
        if step == self.checkpoint_step and (self.run_dir / CHECKPOINT).exists():
            return
        self._write_part(step)
        merges = self.merges
        if self.config.model == "bytebpe":  # ids, not display strings (those are ambiguous)
            merges = [(str(a), str(b)) for a, b in self.merge_ids]
        ckpt = Checkpoint(step, self.target, merges, self.counts, self.fingerprint)
        path = self.run_dir / CHECKPOINT
        self.writes.check(path)
        data = ckpt.to_bytes(self.checkpoint_body(merges, self.counts))
        atomic_write(path, data, keep_previous=self.run_dir / CHECKPOINT_PREV)
        self.checkpoint_step = step
        self.last_checkpoint = time.monotonic()
        self.status.data["checkpoint_step"] = step
        if self.status.eta_from is None and self.status.rate_from is not None:
            self.status.eta_from = (time.time(), step)

    def _write_final_merges(self) -> None:
        parquet = _have_pyarrow()
        path = self.run_dir / f"merges{_table_suffix(parquet)}"
        n = len(self.merges)
        if self.whole_part is not None and self.whole_part[0] == n:
            data = self.whole_part[1]
        else:
            data = encode_merges(self.merges, self.counts, 1, n, parquet)
        self.writes.check(path)
        atomic_write(path, data)
        shutil.rmtree(self.run_dir / MERGE_PARTS, ignore_errors=True)

    # ------------------------------------------------------------------ byte-level BPE
    def _train_bytebpe(self, resume: bool) -> str:
        from ..baselines.bytebpe import ByteBPETokenizer
        from ..bpe import ResumeMismatch
        from ..protocol import display_bytes

        cfg = self.config
        path = self._corpus_path()
        self.target = cfg.vocab_size - 257
        replay: list[tuple[int, int]] = []
        if resume:
            choice = pick_checkpoint(self.run_dir, self.fingerprint)
            for note in choice.notes:
                self.log(note)
            ckpt = choice.checkpoint
            if ckpt is not None:
                try:  # a byte-level checkpoint records each merge as two decimal token ids
                    replay = [(int(a), int(b)) for a, b in ckpt.merges]
                    ByteBPETokenizer(replay, cfg.pattern)  # ids must refer to earlier tokens
                except ValueError as err:
                    raise _InputError(
                        f"{self.run_dir / ckpt.source}: not a byte-level checkpoint ({err}); "
                        "delete it to train again from the start"
                    ) from None
                self.merge_ids = list(replay)
                token_bytes = [bytes([i]) for i in range(256)]
                for a, b in replay:
                    token_bytes.append(token_bytes[a] + token_bytes[b])
                self.merges = [
                    (display_bytes(token_bytes[a]), display_bytes(token_bytes[b]))
                    for a, b in replay
                ]
                self.counts = list(ckpt.counts)
                self.checkpoint_step = ckpt.step
                self.log(f"resuming from {ckpt.source} at step {ckpt.step}")
            self._sync_parts()
        self.status.step = len(self.merges)
        self.status.update(
            state="counting",
            phase="counting",
            target=self.target,
            checkpoint_step=self.checkpoint_step,
        )
        self.log(f"training byte-level BPE on {cfg.corpus_name or path.name}")
        lines = 0

        def documents() -> Iterator[str]:
            nonlocal lines
            for file in corpus_files(path):  # one file, or a directory's or glob's in order
                for doc in iter_documents(file, max_line_bytes=cfg.counting.max_line_bytes):
                    lines += 1
                    if self.stop_signal is not None:
                        raise _Cancelled(self.stop_signal)
                    yield doc

        def on_merge(step: int, left: int, right: int, count: int) -> None:
            if step <= len(replay):
                if count != self.counts[step - 1]:
                    raise _InputError(
                        f"cannot resume: merge {step} of the checkpoint has count "
                        f"{self.counts[step - 1]}, the corpus gives {count}; delete "
                        f"{CHECKPOINT} to train again from the start"
                    )
                return
            self.merge_ids.append((left, right))

        def progress(step: int, pair: tuple[str, str], count: int, elapsed: float) -> None:
            if self.status.rate_from is None:
                self.status.rate_from = (time.time(), len(replay))
                self.status.update(state="merging", phase="merging")
            if step <= len(replay):
                return
            self.merges.append(pair)
            self.counts.append(count)
            self.status.step = step
            self._after_merge(step, time.monotonic())

        self._show("counting", 0, 0, None)
        try:
            tok = ByteBPETokenizer.train(
                documents(),
                cfg.vocab_size,
                pattern=cfg.settings.pattern,
                min_freq=cfg.settings.min_count,
                progress=progress,
                on_merge=on_merge,
                resume_merges=replay,
            )
        except ResumeMismatch as err:
            raise _InputError(
                f"cannot resume: {err}; delete {CHECKPOINT} to train again from the start"
            ) from None
        except (ValueError, TypeError) as err:
            raise _InputError(str(err)) from None
        if list(tok.merges) != self.merge_ids:
            raise RuntimeError("the trainer's merges differ from the ones recorded in this run")
        self.status.update(phase="writing")
        self._write_checkpoint(final=True)
        self._write_final_merges()
        training = {
            **tok.training,
            "corpus": cfg.corpus_name or path.name,
            "sha256": cfg.corpus_sha256,
            "lines": lines,
        }
        tok.save(self.run_dir / VOCAB, training=training)
        self.trained_size = tok.vocab_size
        return f"done: {VOCAB} with {tok.vocab_size:,} tokens ({tok.num_merges:,} merges)"


def _rate(status: _StatusFile) -> float | None:
    if status.rate_from is None:
        return None
    t0, s0 = status.rate_from
    dt = time.time() - t0
    return (status.step - s0) / dt if dt > 0.05 else None


def _describe(config: RunConfig) -> str:
    """The run's settings in one line (those that apply to its model)."""
    s = config.settings
    parts = [
        f"{f.name}={getattr(s, f.name)}"
        for f in dataclasses.fields(s)
        # (A schema is named by its key in ``script``, name@digest; its document is long.)
        if f.name not in ("model", "schema") and s.model in info(f).models
    ]
    return f"{s.model} " + " ".join(parts)


def _os_message(err: OSError) -> str:
    name = Path(err.filename).name if err.filename else ""
    text = f"[Errno {err.errno}] {err.strerror}" if err.errno else str(err)
    return f"writing {name} failed: {text}" if name else text


def train_run(
    run_dir: str | Path,
    *,
    resume: bool = False,
    display: Display | None = None,
    corpus_checked: bool = False,
) -> TrainResult:
    """Train the run in ``run_dir`` in this process (the CLI's ``train`` calls this).

    The directory must hold ``config.json`` (see :func:`create_run`). Before anything
    else the corpus is checked against it (:func:`verify_corpus`): a missing or changed
    file is a :class:`RunError` of one line, and the run's files are left as they are
    (a run the manager launched is marked failed, resumable once the corpus is back).
    ``corpus_checked`` skips that check for a run :func:`create_run` made a moment ago
    from the same files (it hashed them; hashing again is a second read of the corpus).
    With ``resume`` the saved word counts and the newest valid checkpoint are reused.
    A run that is already done is left as it is.
    """
    run_dir = Path(run_dir)
    config = read_config(run_dir)
    running = read_status(run_dir)
    if running.state in ACTIVE_STATES and running.alive:
        raise RunError(
            f"{run_dir}: a trainer (pid {running.pid}) is working on this run "
            f"({running.state}, step {running.step}); cancel it first"
        )
    with run_lock(run_dir):
        current = read_status_data(run_dir) or {}
        if current.get("state") == "done" and (run_dir / VOCAB).exists():
            return TrainResult(
                "done", 0, f"{run_dir} is already done ({VOCAB}); nothing to do", unchanged=True
            )
        try:
            if not corpus_checked:
                verify_corpus(run_dir, config)
        except RunError as err:
            if current.get("phase") == "launching":  # the manager waits for this trainer
                write_status(
                    run_dir,
                    {**current, "state": "failed", "message": str(err), "resumable": True},
                )
            raise
        return RunWorker(run_dir, config, display).run(resume)

"""``checkpoint.json`` and ``checkpoint.prev.json`` of a run directory: the merges so far,
checked (checksum, config fingerprint) and picked on resume by :func:`pick_checkpoint`.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain
from pathlib import Path
from typing import Any

from .._json import TOO_DEEP, _encode_str
from .constants import CHECKPOINT, CHECKPOINT_FORMAT, CHECKPOINT_PREV, FORMAT_VERSION


@dataclass(frozen=True)
class Checkpoint:
    """Merges learned so far, as string pairs, with each merge's pair count."""

    step: int
    target: int
    merges: list[tuple[str, str]]
    counts: list[int]
    fingerprint: str
    source: str = CHECKPOINT

    @staticmethod
    def _body(merges: Sequence[tuple[str, str]], counts: Sequence[int]) -> str:
        """The checksummed part of the file: ``[merges, counts]`` as compact JSON."""
        return json.dumps([merges, counts], ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def checksum(cls, merges: Sequence[tuple[str, str]], counts: Sequence[int]) -> str:
        return hashlib.sha256(cls._body(merges, counts).encode("utf-8")).hexdigest()

    def to_bytes(self, body: str | None = None) -> bytes:
        """The file: one JSON object whose ``data`` is ``[merges, counts]``, serialized
        once with the C encoder for both the file and its checksum (a checkpoint is written
        every few hundred milliseconds; 30,000 merges take about 10 ms). ``body``: that
        text made already (:class:`CheckpointBody`)."""
        if body is None:
            body = self._body(self.merges, self.counts)
        head = {
            "format": CHECKPOINT_FORMAT,
            "format_version": FORMAT_VERSION,
            "fingerprint": self.fingerprint,
            "step": self.step,
            "target": self.target,
            "written": time.time(),
            "sha256": hashlib.sha256(body.encode("utf-8")).hexdigest(),
        }
        return (json.dumps(head, ensure_ascii=False)[:-1] + ', "data": ' + body + "}\n").encode()

    @classmethod
    def parse(cls, raw: bytes, fingerprint: str, source: str) -> Checkpoint:
        """Strictly parse a checkpoint file; ``ValueError`` says what is wrong."""
        try:
            data = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError as err:
            if err.reason == "unexpected end of data":
                raise ValueError(
                    f"truncated (ends inside a character at byte {err.start})"
                ) from None
            raise ValueError(f"not UTF-8 ({err.reason} at byte {err.start})") from None
        except json.JSONDecodeError as err:
            raise ValueError(f"not valid JSON ({err.msg} at byte {err.pos}) — truncated?") from None
        except RecursionError:
            raise ValueError(TOO_DEEP) from None
        if not isinstance(data, dict) or data.get("format") != CHECKPOINT_FORMAT:
            raise ValueError(f"key 'format' is not {CHECKPOINT_FORMAT!r}")
        if data.get("format_version") != FORMAT_VERSION:
            raise ValueError(f"unknown format_version {data.get('format_version')!r}")
        if data.get("fingerprint") != fingerprint:
            raise ValueError("it belongs to other settings or another corpus (fingerprint differs)")
        body, step = data.get("data"), data.get("step")
        if not (isinstance(body, list) and len(body) == 2 and type(step) is int):
            raise ValueError("keys 'data' ([merges, counts]) and 'step' are missing or mistyped")
        merges, counts = body
        if not (isinstance(merges, list) and isinstance(counts, list)):
            raise ValueError("key 'data' must hold [merges, counts]")
        pairs: list[tuple[str, str]] = []
        for k, m in enumerate(merges):
            if not (isinstance(m, list) and len(m) == 2 and all(isinstance(x, str) for x in m)):
                raise ValueError(f"merge {k + 1} is not a [left, right] pair of strings")
            pairs.append((m[0], m[1]))
        if len(pairs) != step or len(counts) != step or not all(type(c) is int for c in counts):
            raise ValueError(
                f"'step' is {step} but it holds {len(pairs)} merges / {len(counts)} counts"
            )
        if data.get("sha256") != cls.checksum(pairs, counts):
            raise ValueError("sha256 of its merges does not match (damaged)")
        target = data.get("target")
        return cls(
            step, target if type(target) is int else 0, pairs, list(counts), fingerprint, source
        )


@dataclass
class CheckpointChoice:
    """The checkpoint a resume uses (``None``: start the merges from step 0) and what was
    wrong with the others."""

    checkpoint: Checkpoint | None
    notes: list[str] = field(default_factory=list)
    corrupt: list[str] = field(default_factory=list)


class CheckpointBody:
    """:meth:`Checkpoint._body` of the successive checkpoints of one run, each merge
    spelled once (``spelled``: chunks of merges, each already joined by commas): a run's
    merges only grow between checkpoints, and spelling all of them again for each
    checkpoint was most of its cost. Any other change starts afresh."""

    def __init__(self) -> None:
        self.merges: list[tuple[str, str]] = []
        self.spelled: list[str] = []

    def __call__(self, merges: Sequence[tuple[str, str]], counts: Sequence[int]) -> str:
        n = len(self.merges)
        if len(merges) < n or list(merges[:n]) != self.merges:
            self.merges, self.spelled, n = [], [], 0
        new = list(merges[n:])
        pairs = set(map(type, new)) <= {tuple, list} and set(map(len, new)) <= {2}
        flat = list(chain.from_iterable(new)) if pairs else []
        if pairs and set(map(type, flat)) <= {str}:
            # The new merges as one chunk of text: a run's few checkpoints spell each
            # merge once.
            spelled = map(_encode_str, flat)
            chunk = ",".join(map("[{},{}]".format, spelled, spelled))  # left, right
            if chunk:
                self.spelled.append(chunk)
        else:
            self.spelled += (_compact_json(m) for m in new)
        self.merges += new
        if set(map(type, counts)) <= {int}:
            count_text = ",".join(map(int.__repr__, counts))  # what json writes for an int
        else:
            count_text = _compact_json(counts)[1:-1]
        return "[[" + ",".join(self.spelled) + "],[" + count_text + "]]"


def _compact_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def pick_checkpoint(run_dir: str | Path, fingerprint: str) -> CheckpointChoice:
    """The newest valid checkpoint of a run; damaged ones are named in ``notes``."""
    run_dir = Path(run_dir)
    choice = CheckpointChoice(None)
    valid: list[Checkpoint] = []
    for name in (CHECKPOINT, CHECKPOINT_PREV):
        path = run_dir / name
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            continue
        try:
            valid.append(Checkpoint.parse(raw, fingerprint, name))
        except ValueError as err:
            choice.corrupt.append(name)
            choice.notes.append(f"{name} is unusable: {err}")
    if valid:
        best = max(valid, key=lambda c: c.step)
        choice.checkpoint = best
        if choice.corrupt:
            choice.notes.append(f"resuming from {best.source} (step {best.step}) instead")
    elif choice.corrupt:
        choice.notes.append("no valid checkpoint: the merges start again from step 0")
    return choice

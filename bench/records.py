"""Where measurements are kept: plain records (lists of dicts) as JSON or CSV in
``bench/results/``, next to the run's metadata. The measuring modules write them and
``bench/render/`` reads them, so reports and the README can be rewritten without
measuring again."""

from __future__ import annotations

import csv
import io
import json
import os
import platform
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"


def _cpu_model() -> str:
    """`` (<model>)`` of the processor, where the system names it: two machines of the
    same kind ran the app's classroom 2-3 times apart in CPU seconds (docs/app.md,
    section 11), and "2 CPUs" alone did not tell their records apart."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            names = [
                line.split(":", 1)[1].strip() for line in info if line.startswith("model name")
            ]
    except OSError:
        names = [platform.processor()]
    return f" ({names[0]})" if names and names[0] else ""


def run_meta(command: str, started: float, **extra: Any) -> dict[str, Any]:
    """What a reader needs to weigh a run's numbers: how it was run, how long it took,
    on what machine, with which versions."""
    from .peers import versions

    return {
        "command": command,
        "wall_s": time.perf_counter() - started,
        "machine": f"{os.cpu_count()} CPUs{_cpu_model()}, {platform.system()} {platform.machine()}",
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "versions": ", ".join(f"{k} {v}" for k, v in versions().items()),
        **extra,
    }


def write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=1, ensure_ascii=False, default=str)
    path.write_text(text + "\n", encoding="utf-8")


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def read_csv(path: Path) -> list[dict[str, Any]]:
    """Rows of a CSV with numbers as numbers (ints where they are whole)."""

    def value(text: str) -> Any:
        for kind in (int, float):
            try:
                return kind(text)
            except ValueError:
                pass
        return text

    with open(path, newline="", encoding="utf-8") as f:
        return [{k: value(v) for k, v in row.items()} for row in csv.DictReader(f)]


def write_rows(path: Path, rows: list[dict[str, Any]], meta: dict[str, Any]) -> None:
    """A bench's rows and its run's record, as one JSON file."""
    write_json(path, {"meta": meta, "rows": rows})


class PrintedReport:
    """Keeps what a printing bench printed, part by part, in ``bench/results/NAME.json``
    (a part measured again replaces its old text; the others stay) and writes
    ``NAME.md`` from all parts. For benches whose output is a few lines per part
    (``scale``, ``long-pieces``) rather than rows to render."""

    def __init__(self, out: Path, name: str, title: str) -> None:
        self.json_path = Path(out) / f"{name}.json"
        self.md_path = Path(out) / f"{name}.md"
        self.title = title
        self.parts: dict[str, Any] = read_json(self.json_path) if self.json_path.exists() else {}

    @contextmanager
    def part(self, key: str, command: str) -> Iterator[None]:
        """Print as usual; keep the printed text of this part with its run record."""
        started = time.perf_counter()
        buffer = io.StringIO()
        real = sys.stdout
        sys.stdout = _Tee(real, buffer)
        try:
            yield
        finally:
            sys.stdout = real
        self.parts[key] = {"meta": run_meta(command, started), "text": buffer.getvalue().strip()}
        write_json(self.json_path, self.parts)
        self.md_path.write_text(self.render(), encoding="utf-8")

    def render(self) -> str:
        lines = [f"# {self.title}", ""]
        for key in sorted(self.parts):
            meta, text = self.parts[key]["meta"], self.parts[key]["text"]
            lines += [
                f"## {key}",
                "",
                f"`{meta['command']}`, {meta['wall_s'] / 60:.1f} min on {meta['machine']} "
                f"({meta['date']}). Versions: {meta['versions']}.",
                "",
                "```",
                text,
                "```",
                "",
            ]
        return "\n".join(lines)


class _Tee(io.TextIOBase):
    def __init__(self, *streams: Any) -> None:
        self.streams = streams

    def write(self, s: str) -> int:
        for stream in self.streams:
            stream.write(s)
        return len(s)

    def flush(self) -> None:
        for stream in self.streams:
            stream.flush()

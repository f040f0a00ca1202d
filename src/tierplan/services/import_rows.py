"""The values an import writes, kept in a file between its preview and its confirm: written once as the files are
parsed, read back a chunk at a time to check and to store, so an import of any length holds a chunk in memory.

What the preview shows of them is bounded too: a sample, a line per regime and metric, the first problems and
flagged values with how many there are."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

ROWS_FILE = "rows.jsonl"
SAMPLE = 200  # values the preview lists
LISTED = 50  # problems, and values flagged, the preview lists one by one
CHUNK = 2000  # values checked or stored at a time (an INSERT of 2,000 rows stays inside SQLite's and PostgreSQL's
# limits on bound parameters)


@dataclass
class MeasurementRow:
    regime: str
    metric: str
    value: float
    unit: str
    measured_at: str  # ISO; "" when neither the file nor the user dated it
    where: str  # "file.json, line 1"
    note: str
    includes: list[str] = field(default_factory=list)


def write_row(handle: TextIO, row: MeasurementRow) -> None:
    fields = [row.regime, row.metric, row.value, row.unit, row.measured_at, row.where, row.note, row.includes]
    handle.write(json.dumps(fields, separators=(",", ":")) + "\n")


def read_rows(path: str | Path, size: int = CHUNK) -> Iterator[list[MeasurementRow]]:
    """The rows of a rows file, `size` at a time, in the order they were written."""
    chunk: list[MeasurementRow] = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            chunk.append(MeasurementRow(*json.loads(line)))
            if len(chunk) == size:
                yield chunk
                chunk = []
    if chunk:
        yield chunk


@dataclass
class Listed:
    """The first LISTED lines of a kind, and how many there were."""

    lines: list[str] = field(default_factory=list)
    count: int = 0

    def add(self, line: str) -> None:
        self.count += 1
        if len(self.lines) < LISTED:
            self.lines.append(line)

    def shown(self) -> list[str]:
        """The lines, and what was left out."""
        more = self.count - len(self.lines)
        return self.lines + ([f"and {more:,} more like these"] if more > 0 else [])


@dataclass
class SeriesSummary:
    """The values of one regime and metric an import holds: how many, and from when to when."""

    regime: str
    metric: str
    values: int = 0
    first_at: str = ""
    last_at: str = ""

    def add(self, row: MeasurementRow) -> None:
        self.values += 1
        if row.measured_at:
            self.first_at = min(self.first_at or row.measured_at, row.measured_at)
            self.last_at = max(self.last_at, row.measured_at)


def other_workload(run_input: int | None, regime_input: int | None) -> bool:
    """Whether a run's prompt (or context) length is another workload than its regime's: more than twice or less
    than half of it (both stated)."""
    if not run_input or not regime_input:
        return False
    return not 0.5 <= run_input / regime_input <= 2.0

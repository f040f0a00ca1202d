"""Which files of a folder a benchmark tool wrote are its runs, so `tierplan import FOLDER` takes each run once:
a `vllm bench sweep` folder's `run=N.json` files (its `summary.json` and `summary.csv` hold the same runs again),
an AIPerf artifact folder's `profile_export_aiperf.json` files (one a run or trial; `inputs.json` and the
per-request `profile_export.jsonl` are no results), a GuideLLM `benchmarks.json`; any other folder, its result and
profile files. Each file's format is still read from its content."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

RUNS = ("run=*.json", "profile_export_aiperf.json", "benchmarks.json")  # the first a folder holds wins
SUFFIXES = (".json", ".jsonl", ".csv", ".txt", ".gz")
MAX_FILES = 10_000  # a folder of more is not one tool's output


def files_of(paths: Iterable[Path]) -> list[tuple[str, Path]]:
    """The files to import for the paths given, each with the name it is shown and recorded by (a folder's: its
    path from the folder's parent, as "sweep/BENCH--max_concurrency=4/run=0.json": the runs of a sweep share their
    file names), in a stable order."""
    out: list[tuple[str, Path]] = []
    for path in paths:
        if not path.is_dir():
            out.append((path.name, path))
            continue
        found = sorted(p for p in path.rglob("*") if p.is_file())[: MAX_FILES + 1]
        if len(found) > MAX_FILES:
            raise ValueError(f"{path} holds more than {MAX_FILES:,} files: import the folder of one run")
        runs = next(([p for p in found if p.match(pattern)] for pattern in RUNS if any(p.match(pattern) for p in found)),
                    None)
        chosen = runs if runs is not None else [p for p in found if p.name.endswith(SUFFIXES)]
        if not chosen:
            raise ValueError(f"{path} holds no benchmark results or profiles")
        out += [(str(p.relative_to(path.parent)), p) for p in chosen]
    return out

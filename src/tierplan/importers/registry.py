"""The benchmark formats tierplan reads, one entry each: how its first bytes are told apart from the others', what
writes it, and the reader that yields its runs. `detect.py` asks them in order before taking a JSON file for
vLLM's or SGLang's results; the import (page, API and CLI alike: services/imports.py) reads a file through its
entry. A new benchmark format is a module and a line here.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import BinaryIO

from tierplan.importers.aiperf import iter_aiperf
from tierplan.importers.benchmarks import iter_results_json, parse_console
from tierplan.importers.guidellm import iter_guidellm
from tierplan.importers.records import BenchmarkRun
from tierplan.importers.vllm_iterations import iter_iterations
from tierplan.importers.vllm_iterations import looks_like as looks_like_iterations
from tierplan.importers.vllm_sweep import iter_sweep_csv, looks_like

Reader = Callable[[BinaryIO, str, Callable[[int], None] | None], Iterator[BenchmarkRun]]
CONSOLE_BYTES = 1 << 20  # a pasted summary block is a few kB


@dataclass(frozen=True)
class Format:
    name: str  # stored on the import record
    written_by: str  # the command that writes it (the README's table)
    sniff: Callable[[str], bool]  # from the text of its first 64 KiB (JSON files only)
    read: Reader


def _console(raw: BinaryIO, file: str, on_progress=None) -> Iterator[BenchmarkRun]:
    text = io.TextIOWrapper(raw, encoding="utf-8").read(CONSOLE_BYTES)
    yield from parse_console(text, file)


AIPERF = Format("aiperf", "aiperf profile (profile_export_aiperf.json; with --num-profile-runs, the aggregate and "
                          "sweep files)",
                lambda head: '"aiperf_version"' in head or '"per_combination_metrics"' in head
                or '"aggregation_type"' in head, iter_aiperf)
GUIDELLM = Format("guidellm", "guidellm run --output kind=json (benchmarks.json)",
                  lambda head: '"guidellm_version"' in head or '"generative_benchmark"' in head, iter_guidellm)
VLLM_ITERATIONS = Format("vllm_iterations", "vllm bench iterations --mode decode|prefill --output FILE",
                         looks_like_iterations, iter_iterations)
RESULTS = Format("results_json", "vllm bench serve --save-result [--append-result]; sglang.bench_serving; "
                                 "sglang.bench_one_batch --result-filename", lambda head: True, iter_results_json)
CONSOLE = Format("vllm_console", "the summary block vllm bench serve prints (pasted)", lambda head: False, _console)
VLLM_SWEEP_CSV = Format("vllm_sweep_csv", "vllm bench sweep serve (summary.csv; each run=N.json is a results JSON)",
                        looks_like, iter_sweep_csv)

JSON_FORMATS = (AIPERF, GUIDELLM, VLLM_ITERATIONS, RESULTS)  # asked in order: the last takes any other JSON
TEXT_FORMATS = (VLLM_SWEEP_CSV,)  # text that is not JSON, asked before the kernel tables
BY_NAME = {f.name: f for f in (*JSON_FORMATS, *TEXT_FORMATS, CONSOLE)}


def json_format(head: str) -> str:
    """The name of the benchmark format a JSON file's first bytes say it is."""
    return next(f.name for f in JSON_FORMATS if f.sniff(head))


def text_format(head: str) -> str | None:
    """The name of the benchmark format a text file's first bytes say it is (None: not one of them)."""
    return next((f.name for f in TEXT_FORMATS if f.sniff(head)), None)


def read_runs(format_name: str, raw: BinaryIO, file: str, on_progress=None) -> Iterator[BenchmarkRun]:
    return BY_NAME[format_name].read(raw, file, on_progress)

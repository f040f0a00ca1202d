"""vLLM's sweep summary, `summary.csv` of `vllm bench sweep serve` (vllm/benchmarks/sweep/serve.py writes it with
pandas): a row a run of every parameter combination, the columns of a `--save-result` JSON (per-request lists
such as `latencies` quoted in a cell, not read) and the index first, `run_number` last. Each row is one run, read
as benchmarks.py reads a result, so the repeated runs of a combination stay separate samples.
"""

from __future__ import annotations

import codecs
import csv
from collections.abc import Iterator
from dataclasses import replace
from typing import BinaryIO

from tierplan.importers.benchmarks import run_from_result
from tierplan.importers.errors import ImportFileError
from tierplan.importers.records import BenchmarkRun
from tierplan.importers.trace_events import CountingReader

CELL_BYTES = 16 << 20  # a per-request list of a long run fits; a cell past it is no benchmark's
LISTS = ("[", "{")  # cells holding per-request lists or dicts: not figures


def looks_like(head: str) -> bool:
    """A sweep summary's header: the index column, then a result's keys."""
    first = head.split("\n", 1)[0]
    return first.startswith(",") and "output_throughput" in first and "max_concurrency" in first


def _value(cell: str) -> object:
    if not cell or cell.startswith(LISTS):
        return None
    try:
        return float(cell)
    except ValueError:
        return cell


def _lines(raw: CountingReader, chunk: int = 1 << 20) -> Iterator[str]:
    """The stream's text a line at a time (a line of one huge cell is read whole, up to the csv module's limit)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    carry = ""
    while block := raw.read(chunk):
        carry += decoder.decode(block)
        *lines, carry = carry.split("\n")
        yield from (line + "\n" for line in lines)
        if len(carry) > CELL_BYTES:
            raise csv.Error(f"a line longer than {CELL_BYTES >> 20} MB")
    carry += decoder.decode(b"", final=True)
    if carry:
        yield carry


def iter_sweep_csv(raw: BinaryIO, file: str, on_progress=None) -> Iterator[BenchmarkRun]:
    csv.field_size_limit(CELL_BYTES)
    reader = csv.reader(_lines(CountingReader(raw, on_progress)))
    try:
        header = next(reader)
    except StopIteration:
        raise ImportFileError(file, "", "the file is empty") from None
    except csv.Error as exc:
        raise ImportFileError(file, "line 1", f"not CSV ({exc})") from None
    found = 0
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except (csv.Error, UnicodeDecodeError) as exc:  # in the row after the last one read
            raise ImportFileError(file, f"line {reader.line_num + 1}", f"not CSV ({exc})") from None
        if not any(row):
            continue
        if len(row) != len(header):
            raise ImportFileError(file, f"line {reader.line_num}", f"{len(row)} cells where the header has "
                                                                   f"{len(header)}: the file is cut or mangled")
        result = {key: _value(cell) for key, cell in zip(header, row, strict=True) if key}
        concurrency = result.get("max_concurrency")
        if isinstance(concurrency, float):  # an int in vLLM's JSON
            result["max_concurrency"] = int(concurrency)
        run_number = result.get("run_number")
        label = f"run {int(run_number)}" if isinstance(run_number, float) else ""
        run = run_from_result(result, "vllm_sweep_csv", f"line {reader.line_num}", file)
        found += 1
        yield replace(run, label=", ".join(x for x in (run.label, label) if x))
    if not found:
        raise ImportFileError(file, "", "the sweep summary holds no run")

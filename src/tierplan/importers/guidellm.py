"""GuideLLM reports (`guidellm run ... --output kind=json`, `benchmarks.json`): one file holds a whole sweep, a
benchmark a rate or a concurrency, every metric a distribution over the successful, incomplete and errored requests
(`metrics.<name>.successful.{mean, median, std_dev, percentiles.{p50, p90, p99, ...}}`).

Names follow GuideLLM's own schema (guidellm/benchmark/schemas, 0.8): the successful requests are read;
`time_per_output_token_ms` is TPOT, `inter_token_latency_ms` ITL, `request_latency` is in seconds; a concurrent
strategy's `streams` (or `max_concurrency`) is the concurrency, a constant or Poisson strategy's `rate` the request
rate; a benchmark's `start_time` (seconds since the epoch) its date.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any, BinaryIO

from tierplan.importers.errors import ImportFileError
from tierplan.importers.json_tree import json_documents
from tierplan.importers.records import BenchmarkRun
from tierplan.importers.trace_events import CountingReader

THROUGHPUTS = {"output_tokens_per_second": "output_tok_s", "tokens_per_second": "total_tok_s",
               "prompt_tokens_per_second": "input_tok_s", "requests_per_second": "request_throughput"}
LATENCIES = {"time_to_first_token_ms": ("ttft", 1.0), "time_per_output_token_ms": ("tpot", 1.0),
             "inter_token_latency_ms": ("itl", 1.0), "request_latency": ("e2el", 1000.0)}


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _successful(metrics: dict, name: str) -> dict:
    entry = metrics.get(name)
    successful = entry.get("successful") if isinstance(entry, dict) else None
    return successful if isinstance(successful, dict) else {}


def metrics_of(metrics: dict) -> dict[str, float]:
    out: dict[str, float] = {}
    for name, metric in THROUGHPUTS.items():
        value = _number(_successful(metrics, name).get("mean"))
        if value is not None:
            out[metric] = value
    for name, (short, scale) in LATENCIES.items():
        found = _successful(metrics, name)
        percentiles: dict = found["percentiles"] if isinstance(found.get("percentiles"), dict) else {}
        for key, value in (("", found.get("mean")), ("median_", found.get("median")), ("std_", found.get("std_dev")),
                           ("p90_", percentiles.get("p90")), ("p99_", percentiles.get("p99"))):
            number = _number(value)
            if number is not None:
                out[f"{key}{short}_ms"] = number * scale
    return out


def run_of_benchmark(benchmark: dict, model: str, version: str, where: str, file: str) -> BenchmarkRun:
    metrics: dict = benchmark["metrics"] if isinstance(benchmark.get("metrics"), dict) else {}
    values = metrics_of(metrics)
    if "output_tok_s" not in values:
        raise ImportFileError(file, where, "expected metrics.output_tokens_per_second.successful.mean: did any "
                                           "request succeed?")
    strategy = ((benchmark.get("config") or {}).get("strategy") or {})
    concurrency = strategy.get("streams") or strategy.get("max_concurrency") if strategy.get("type_") in (
        "concurrent", "synchronous") else None
    if strategy.get("type_") == "synchronous":
        concurrency = 1
    rate = _number(strategy.get("rate"))
    totals = _successful(metrics, "request_totals") or (metrics.get("request_totals") or {})
    started = _number(benchmark.get("start_time"))
    lengths = [_number(_successful(metrics, n).get("mean")) for n in ("prompt_token_count", "output_token_count")]
    return BenchmarkRun(
        "guidellm", where, int(concurrency) if isinstance(concurrency, int | float) else None,
        f"{rate:g}" if rate is not None else None, values, label=str(strategy.get("type_") or ""),
        input_len=round(lengths[0]) if lengths[0] else None, output_len=round(lengths[1]) if lengths[1] else None,
        measured_at=datetime.fromtimestamp(started, UTC).isoformat() if started else "", model=model,
        note=f"GuideLLM {version}, {totals.get('successful', '?')} successful of {totals.get('total', '?')} requests"
        if isinstance(totals, dict) else f"GuideLLM {version}")


def iter_guidellm(raw: BinaryIO, file: str, on_progress=None) -> Iterator[BenchmarkRun]:
    """Every benchmark of a GuideLLM report, in its order."""
    stream = CountingReader(raw, on_progress)
    for report, line in json_documents(stream, file):
        if not isinstance(report, dict) or not isinstance(report.get("benchmarks"), list):
            raise ImportFileError(file, f"line {line}", "expected a GuideLLM report with a benchmarks list")
        backend = (((report.get("config") or {}).get("spec") or {}).get("backend") or {})
        model = str(backend.get("model") or "")
        version = str((report.get("metadata") or {}).get("guidellm_version") or "")
        if not report["benchmarks"]:
            raise ImportFileError(file, f"line {line}", "the report holds no benchmark")
        for n, benchmark in enumerate(report["benchmarks"], start=1):
            where = f"benchmark {n}"
            if not isinstance(benchmark, dict):
                raise ImportFileError(file, where, "expected a benchmark object")
            yield run_of_benchmark(benchmark, model, version, where, file)

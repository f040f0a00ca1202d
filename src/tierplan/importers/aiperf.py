"""NVIDIA AIPerf reports: `profile_export_aiperf.json` (one run: each metric `{unit, avg, p50, p90, p99, std, ...}`),
`profile_export_aiperf_aggregate.json` (repeated trials of one configuration: each statistic of each metric as
`{mean, std, min, max, cv, ci_low, ci_high, unit}` over the trials) and `profile_export_aiperf_sweep.json` (the same
for each parameter combination of a sweep, under `per_combination_metrics`).

Names follow AIPerf's own metrics (aiperf/metrics, as its 0.13 reports write them): its `inter_token_latency` is a
request's (latency - TTFT) / (output tokens - 1), what vLLM calls TPOT, so it is read as TPOT; its
`inter_chunk_latency` (the gaps between streamed chunks) is vLLM's ITL. The concurrency is the profiling phase's
(`input_config.phases`, or `input_config.loadgen` in earlier versions), the model the configured one, the GPU the
telemetry's when `--gpu-telemetry` collected it, the date the run's start.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, BinaryIO

from tierplan.importers.errors import ImportFileError
from tierplan.importers.json_tree import json_documents
from tierplan.importers.records import BenchmarkRun
from tierplan.importers.trace_events import CountingReader

THROUGHPUTS = {"output_token_throughput": "output_tok_s", "total_token_throughput": "total_tok_s",
               "input_token_throughput": "input_tok_s", "request_throughput": "request_throughput"}
LATENCIES = {"time_to_first_token": "ttft", "inter_token_latency": "tpot", "inter_chunk_latency": "itl",
             "request_latency": "e2el"}
STATS = {"avg": "", "p50": "median_", "p90": "p90_", "p99": "p99_", "std": "std_"}


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def metrics_of(stat_of) -> dict[str, float]:
    """tierplan's metrics from `stat_of(aiperf metric, statistic)` (None where the report has none)."""
    out: dict[str, float] = {}
    for name, metric in THROUGHPUTS.items():
        value = stat_of(name, "avg")
        if value is not None:
            out[metric] = value
    for name, short in LATENCIES.items():
        for stat, prefix in STATS.items():
            value = stat_of(name, stat)
            if value is not None:
                out[f"{prefix}{short}_ms"] = value
    return out


def _concurrency(config: dict) -> int | None:
    for phase in config.get("phases") or []:
        if isinstance(phase, dict) and phase.get("kind", "profiling") == "profiling" and phase.get("concurrency"):
            return int(phase["concurrency"])
    loadgen = config.get("loadgen")
    if isinstance(loadgen, dict) and isinstance(loadgen.get("concurrency"), int):
        return int(loadgen["concurrency"])
    return None


def _model(config: dict) -> str:
    items = (config.get("models") or {}).get("items") if isinstance(config.get("models"), dict) else None
    names = [i.get("name") for i in items or [] if isinstance(i, dict)]
    names += (config.get("endpoint") or {}).get("model_names") or []
    return str(names[0]) if names else ""


def _gpu(report: dict) -> str:
    endpoints = ((report.get("telemetry_data") or {}).get("endpoints") or {}).values()
    for endpoint in endpoints:
        for gpu in (endpoint.get("gpus") or {}).values() if isinstance(endpoint, dict) else ():
            if isinstance(gpu, dict) and gpu.get("gpu_name"):
                return str(gpu["gpu_name"])
    return ""


def run_of_export(report: dict, where: str, file: str) -> BenchmarkRun:
    """One `profile_export_aiperf.json`."""
    def stat_of(name: str, stat: str) -> float | None:
        metric = report.get(name)
        return _number(metric.get(stat)) if isinstance(metric, dict) else None

    metrics = metrics_of(stat_of)
    if "output_tok_s" not in metrics:
        raise ImportFileError(file, where, "expected output_token_throughput with its avg: was the run streamed "
                                           "and did any request complete?")
    config = report.get("input_config") or {}
    lengths = [stat_of(n, "avg") for n in ("input_sequence_length", "output_sequence_length")]
    return BenchmarkRun(
        "aiperf", where, _concurrency(config), None, metrics, label=str(report.get("benchmark_id") or ""),
        input_len=round(lengths[0]) if lengths[0] else None, output_len=round(lengths[1]) if lengths[1] else None,
        measured_at=str(report.get("start_time") or ""), model=_model(config), gpu=_gpu(report),
        engine="", note=f"AIPerf {report.get('aiperf_version', '')}".strip())


def _trial_stat(metrics: dict, name: str, stat: str) -> float | None:
    """The mean over the trials of one statistic of one metric (`output_token_throughput_avg`'s mean)."""
    entry = metrics.get(f"{name}_{stat}")
    return _number(entry.get("mean")) if isinstance(entry, dict) else None


def _trials_note(metrics: dict, trials: int, level: float | None) -> str:
    entry = metrics.get("output_token_throughput_avg") or {}
    ci = ""
    if _number(entry.get("ci_low")) is not None and _number(entry.get("ci_high")) is not None:
        ci = f", output throughput {level or 0.95:.0%} CI {entry['ci_low']:.4g}-{entry['ci_high']:.4g} tok/s"
    return f"AIPerf mean of {trials} trials{ci}"


def run_of_trials(metrics: dict, concurrency: int | None, model: str, trials: int, level: float | None, where: str,
                  file: str) -> BenchmarkRun:
    values = metrics_of(lambda name, stat: _trial_stat(metrics, name, stat))
    if "output_tok_s" not in values:
        raise ImportFileError(file, where, "expected output_token_throughput_avg over the trials")
    return BenchmarkRun("aiperf_aggregate", where, concurrency, None, values, model=model,
                        note=_trials_note(metrics, trials, level))


def runs_of_aggregate(report: dict, where: str, file: str) -> list[BenchmarkRun]:
    meta = report.get("metadata") or {}
    values = meta.get("variation_values") or {}
    concurrency = next((int(v) for k, v in values.items() if k.endswith("concurrency") and isinstance(v, int)), None)
    return [run_of_trials(report.get("metrics") or {}, concurrency, str(meta.get("model") or ""),
                          int(meta.get("num_successful_runs") or 0), _number(meta.get("confidence_level")), where,
                          file)]


def runs_of_sweep(report: dict, where: str, file: str) -> list[BenchmarkRun]:
    meta = report.get("metadata") or {}
    trials = int(meta.get("num_trials_per_value") or 0)
    runs = []
    for n, combination in enumerate(report.get("per_combination_metrics") or [], start=1):
        if not isinstance(combination, dict):
            raise ImportFileError(file, f"{where}, combination {n}", "expected an object of parameters and metrics")
        parameters = combination.get("parameters") or {}
        concurrency = parameters.get("concurrency")
        runs.append(run_of_trials(combination.get("metrics") or {}, concurrency if isinstance(concurrency, int)
                                  else None, "", trials, _number(meta.get("confidence_level")),
                                  f"{where}, combination {n} ({', '.join(f'{k}={v}' for k, v in parameters.items())})",
                                  file))
    if not runs:
        raise ImportFileError(file, where, "the sweep holds no per_combination_metrics")
    return runs


def iter_aiperf(raw: BinaryIO, file: str, on_progress=None) -> Iterator[BenchmarkRun]:
    """Every run of an AIPerf report, whichever of the three it is."""
    stream = CountingReader(raw, on_progress)
    for report, line in json_documents(stream, file):
        where = f"line {line}"
        if not isinstance(report, dict):
            raise ImportFileError(file, where, "expected an AIPerf report object")
        if report.get("aggregation_type") == "sweep":
            yield from runs_of_sweep(report, where, file)
        elif "metrics" in report and isinstance(report.get("metadata"), dict):
            yield from runs_of_aggregate(report, where, file)
        else:
            yield run_of_export(report, where, file)

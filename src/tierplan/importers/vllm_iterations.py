"""`vllm bench iterations --output FILE`: `{"results": [...], "timestamp": "YYYY-MM-DD HH:MM:SS"}`, one result a
parameter combination (vllm/benchmarks/iterations.py's IterationResult). The client pauses the server's scheduler,
queues a batch, and times its prefill or its decode steps; the server's own mean step time
(`server_latency_per_iter_ms`, from its step statistics; the client's when the server keeps none) is the figure.

- decode: `batch_size` sequences each `context_len` tokens long decode `iteration` steps: each step yields one token
  a sequence, so the step time is the time per output token and `batch_size` tokens a step the output throughput.
- prefill: `input_len` new tokens after `context_len` cached ones, `batch_size` requests at once: the step time is
  the time to first token, and `batch_size` x `input_len` tokens a step the input throughput.

With `--profile`, `trace_breakdown` (milliseconds a category an iteration), `trace_iter_duration_ms` and
`trace_kernel_sum_ms` describe the step from the server's trace; the gap between the two is host time no kernel
covers, said in the run's note. Earlier versions of the client wrote `latency_per_iter_ms`, `total_latency_ms` and
`tokens_per_second` (their client-side timing) in place of the server and client pairs.

`batch_size` is per data-parallel rank, as the client takes it: the file does not say how many ranks served.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, BinaryIO

from tierplan.importers.errors import ImportFileError
from tierplan.importers.json_tree import MAX_ITEMS, json_documents
from tierplan.importers.records import BenchmarkRun
from tierplan.importers.trace_events import CountingReader

MODES = ("decode", "prefill")


def looks_like(head: str) -> bool:
    return '"latency_per_iter_ms"' in head or '"server_latency_per_iter_ms"' in head


def _number(result: dict, key: str) -> float | None:
    value = result.get(key)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _count(result: dict, key: str, where: str, file: str, least: int) -> int:
    value = result.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise ImportFileError(file, where, f"expected {key} to be a whole number of at least {least}, found {value!r}")
    return value


def _trace_note(result: dict) -> str:
    breakdown = result.get("trace_breakdown")
    iteration, kernels = _number(result, "trace_iter_duration_ms"), _number(result, "trace_kernel_sum_ms")
    if not isinstance(breakdown, dict) or not breakdown or not iteration:
        return ""
    parts = sorted(((str(k), float(v)) for k, v in breakdown.items() if isinstance(v, int | float)),
                   key=lambda kv: -kv[1])
    gap = f", host gap {iteration - kernels:.3g} ms" if kernels is not None and iteration >= kernels else ""
    return (f"; trace: kernels {kernels or 0:.3g} ms of a {iteration:.3g} ms iteration{gap} ("
            + ", ".join(f"{name} {ms:.3g} ms" for name, ms in parts) + ")")


def run_of(result: Any, where: str, file: str, timestamp: str) -> BenchmarkRun:
    """One parameter combination of the sweep."""
    if not isinstance(result, dict):
        raise ImportFileError(file, where, "expected a result object")
    mode = result.get("mode")
    if mode not in MODES:
        raise ImportFileError(file, where, f"expected mode decode or prefill, found {mode!r}")
    batch = _count(result, "batch_size", where, file, 1)
    context = _count(result, "context_len", where, file, 0)
    new = _count(result, "input_len", where, file, 0)
    steps = _count(result, "iteration", where, file, 1)
    step_ms = _number(result, "server_latency_per_iter_ms")
    client_ms = _number(result, "client_latency_per_iter_ms")
    if step_ms is None:  # the earlier client's own timing
        step_ms = client_ms = _number(result, "latency_per_iter_ms")
    if step_ms is None or step_ms <= 0:
        raise ImportFileError(file, where, "expected a positive server_latency_per_iter_ms (or latency_per_iter_ms)")
    seen_by = f"; the client saw {client_ms:.4g} ms" if client_ms and client_ms != step_ms else ""
    if mode == "decode":
        metrics = {"tpot_ms": step_ms, "output_tok_s": batch * 1000.0 / step_ms}
        note = (f"vllm bench iterations: decode of {steps} tokens at context {context}, the server's mean step "
                f"{step_ms:.4g} ms{seen_by}")
        lengths = (context, steps)
    else:
        metrics = {"ttft_ms": step_ms, "input_tok_s": batch * new * 1000.0 / step_ms}
        note = (f"vllm bench iterations: prefill of {new} new tokens after {context} cached, the server's step "
                f"{step_ms:.4g} ms{seen_by}")
        lengths = (context + new, 1)
    return BenchmarkRun("vllm_iterations", where, batch, None, metrics, label=mode, input_len=lengths[0],
                        output_len=lengths[1], measured_at=timestamp, engine="vllm",
                        note=note + _trace_note(result))


def iter_iterations(raw: BinaryIO, file: str, on_progress=None) -> Iterator[BenchmarkRun]:
    """Every result of a `vllm bench iterations` file."""
    for document, line in json_documents(CountingReader(raw, on_progress), file):
        results = document.get("results") if isinstance(document, dict) else None
        if not isinstance(results, list) or not results:
            raise ImportFileError(file, f"line {line}", f"expected a results list of 1 to {MAX_ITEMS} parameter "
                                                        "combinations, as vllm bench iterations writes")
        timestamp = document.get("timestamp")
        for n, result in enumerate(results, start=1):
            yield run_of(result, f"result {n}", file, timestamp if isinstance(timestamp, str) else "")

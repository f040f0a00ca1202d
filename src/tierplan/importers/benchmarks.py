"""Benchmark results: vLLM `bench serve --save-result` JSON (current and legacy, appended, sweep
summaries), SGLang `bench_serving` and `bench_one_batch` JSONL, and the summary block vLLM prints.

Field names follow the tools' own sources: vllm/benchmarks/serve.py and the legacy
benchmarks/benchmark_serving.py (whose goodput key is "request_goodput:", colon included),
sglang/bench_serving.py and sglang/bench_one_batch.py.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Iterator
from typing import BinaryIO

from tierplan.importers.errors import ImportFileError
from tierplan.importers.json_values import json_values
from tierplan.importers.records import BenchmarkRun
from tierplan.importers.trace_events import CountingReader

LATENCY = re.compile(r"^(mean|median|std|p\d+(?:\.\d+)?)_(ttft|tpot|itl|e2el|e2e_latency)_ms$")
THROUGHPUT_KEYS = {
    "output_throughput": "output_tok_s",
    "total_token_throughput": "total_tok_s",
    "total_throughput": "total_tok_s",  # SGLang
    "input_throughput": "input_tok_s",  # SGLang
    "request_throughput": "request_throughput",
    "request_goodput": "request_goodput",
    "request_goodput:": "request_goodput",  # legacy vLLM typo, colon and all
}
SPEC_KEYS = {
    "spec_decode_acceptance_rate": "spec_decode_acceptance_rate",  # percent
    "spec_decode_acceptance_length": "spec_decode_acceptance_length",
    "accept_length": "spec_decode_acceptance_length",  # SGLang
}


def metric_name(key: str) -> str | None:
    """tierplan's metric for a result key: the mean of a latency is the plain metric (mean_tpot_ms -> tpot_ms)."""
    if key in THROUGHPUT_KEYS:
        return THROUGHPUT_KEYS[key]
    if key in SPEC_KEYS:
        return SPEC_KEYS[key]
    match = LATENCY.match(key)
    if not match:
        return None
    stat, quantity = match.groups()
    quantity = "e2el" if quantity == "e2e_latency" else quantity
    return f"{quantity}_ms" if stat == "mean" else f"{stat}_{quantity}_ms"


# The client's `--backend` names how it spoke to the server; only these name the engine behind it (vLLM: "vllm",
# "vllm-pooling"; SGLang: "sglang", "sglang-oai", "vllm-chat", "trt", "lmdeploy"); "openai-chat" and the like do not.
ENGINE_OF_BACKEND = {"vllm": "vllm", "sglang": "sglang", "lmdeploy": "lmdeploy", "trt": "tensorrt-llm",
                     "tensorrt": "tensorrt-llm", "tgi": "tgi", "deepspeed": "deepspeed-mii", "scalellm": "scalellm"}


def engine_of_backend(backend) -> str:
    """The engine a benchmark client's backend names, or "" where it names only a protocol (openai-chat)."""
    return ENGINE_OF_BACKEND.get(str(backend or "").lower().split("-")[0], "")


def _served_model(result: dict) -> object:
    """The model the server said it serves, where the client saved what the server told it (SGLang's server_info)."""
    info = result.get("server_info")
    return info.get("model_path") if isinstance(info, dict) else None


def _number(value) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value) if math.isfinite(value) else None
    return None


def _int_or_none(value) -> int | None:
    try:
        return int(value) if value not in (None, "") else None
    except (TypeError, ValueError):
        return None


def run_from_result(result: dict, source_format: str, where: str, file: str) -> BenchmarkRun:
    """One result object of vLLM or SGLang bench serving."""
    metrics = {}
    for key, value in result.items():
        name = metric_name(key)
        number = _number(value)
        if name is not None and number is not None:
            metrics[name] = number
    if "output_tok_s" not in metrics:
        raise ImportFileError(file, where, "expected an output_throughput number in the result")
    rate = result.get("request_rate")
    request_rate = None
    if rate is not None:
        request_rate = "inf" if rate == "inf" or (isinstance(rate, float) and math.isinf(rate)) else f"{float(rate):g}"
    spec = {k: v for k, v in result.items() if k.startswith("spec_decode_")}
    return BenchmarkRun(
        source_format=source_format,
        where=where,
        concurrency=_int_or_none(result.get("max_concurrency")),
        request_rate=request_rate,
        metrics=metrics,
        label=str(result.get("label") or result.get("model_id") or result.get("backend") or ""),
        input_len=_int_or_none(result.get("input_len") or result.get("random_input_len")) or _mean_of(
            result, "total_input_tokens"),
        output_len=_int_or_none(result.get("output_len") or result.get("random_output_len")) or _mean_of(
            result, "total_output_tokens"),
        spec_decode=spec,
        measured_at=_text(result.get("date")),
        model=_text(result.get("model_id") or result.get("model") or result.get("tokenizer_id")
                    or _served_model(result)),
        gpu=_text(result.get("gpu") or result.get("gpu_name") or result.get("device")),
        engine=engine_of_backend(result.get("backend")),
    )


def _mean_of(result: dict, total_key: str) -> int | None:
    """Tokens a request from a run's total and its completed requests (vLLM's current results state no lengths)."""
    total, completed = _number(result.get(total_key)), _number(result.get("completed"))
    return round(total / completed) if total is not None and completed else None


def _text(value) -> str:
    return value.strip() if isinstance(value, str) else ""


def run_from_one_batch(record: dict, where: str, file: str) -> BenchmarkRun:
    """One `sglang.bench_one_batch` record: a static batch, so its decode step time is the TPOT."""
    batch = _int_or_none(record.get("batch_size"))
    decode_tok_s = _number(record.get("median_decode_throughput"))
    if batch is None or decode_tok_s is None:
        raise ImportFileError(file, where, "expected batch_size and median_decode_throughput")
    metrics = {"output_tok_s": decode_tok_s}
    if _number(record.get("median_decode_latency")) is not None:
        metrics["tpot_ms"] = record["median_decode_latency"] * 1000
    if _number(record.get("prefill_latency")) is not None:
        metrics["ttft_ms"] = record["prefill_latency"] * 1000
    if _number(record.get("overall_throughput")) is not None:
        metrics["total_tok_s"] = record["overall_throughput"]
    return BenchmarkRun("sglang_one_batch", where, batch, None, metrics, str(record.get("run_name") or ""),
                        _int_or_none(record.get("input_len")), _int_or_none(record.get("output_len")),
                        engine="sglang")  # the engine's own offline benchmark: no server, no other engine


def parse_results_json(raw: BinaryIO | str, file: str, on_progress=None) -> list[BenchmarkRun]:
    """Every run of iter_results_json, in a list."""
    return list(iter_results_json(raw, file, on_progress))


def iter_results_json(raw: BinaryIO | str, file: str, on_progress=None) -> Iterator[BenchmarkRun]:
    """vLLM or SGLang results: one object, several appended objects, JSONL, or a list (sweep summary); read as a
    stream (tierplan/importers/json_values.py), so per-request arrays cost no memory, and given a run at a time, so
    a file of any number of runs does not either."""
    stream = CountingReader(io.BytesIO(raw.encode("utf-8")) if isinstance(raw, str) else raw, on_progress)
    found = 0
    for value, line in json_values(stream, file):
        items = value if isinstance(value, list) else [value]
        if isinstance(value, dict) and isinstance(value.get("results"), list):
            items = value["results"]
        for n, item in enumerate(items, start=1):
            where = f"line {line}" if len(items) == 1 else f"line {line}, item {n}"
            if not isinstance(item, dict):
                raise ImportFileError(file, where, "expected a JSON object of benchmark results")
            found += 1
            if "median_decode_throughput" in item:
                yield run_from_one_batch(item, where, file)
            else:
                yield run_from_result(item, _dialect(item), where, file)
    if not found:
        raise ImportFileError(file, "", "no benchmark result in the file")


def _dialect(item: dict) -> str:
    if "mean_e2e_latency_ms" in item or "total_output_tokens_retokenized" in item:
        return "sglang_bench_serving"
    if "request_goodput:" in item:
        return "vllm_legacy_json"
    return "vllm_json"


CONSOLE_LABELS = {
    "output token throughput (tok/s)": "output_tok_s",
    "total token throughput (tok/s)": "total_tok_s",
    "total throughput (tok/s)": "total_tok_s",
    "input token throughput (tok/s)": "input_tok_s",
    "request throughput (req/s)": "request_throughput",
    "request goodput (req/s)": "request_goodput",
    "acceptance rate (%)": "spec_decode_acceptance_rate",
    "acceptance length": "spec_decode_acceptance_length",
}
CONSOLE_LATENCY = re.compile(r"^(mean|median|std|p\d+(?:\.\d+)?) (ttft|tpot|itl|e2el|e2e latency) \(ms\)$")
CONSOLE_LINE = re.compile(r"^\s*([^:=]+?):\s+(\S+)\s*$")


def parse_console(text: str, file: str) -> list[BenchmarkRun]:
    """The "Serving Benchmark Result" block vLLM (or SGLang) prints, as a user pastes it."""
    metrics: dict[str, float] = {}
    concurrency, rate, engine = None, None, ""
    for number, line in enumerate(text.splitlines(), start=1):
        match = CONSOLE_LINE.match(line)
        if not match or set(line.strip()) <= set("=-"):
            continue
        label, raw = match.group(1).strip().lower(), match.group(2)
        if label in ("maximum request concurrency", "max request concurrency", "max concurrency"):
            concurrency = _int_or_none(raw)
            continue
        if label in ("request rate configured (rps)", "traffic request rate"):
            rate = raw
            continue
        if label == "backend":
            engine = raw
            continue
        name = CONSOLE_LABELS.get(label)
        latency = CONSOLE_LATENCY.match(label)
        if latency:
            stat, quantity = latency.groups()
            quantity = "e2el" if quantity == "e2e latency" else quantity
            name = f"{quantity}_ms" if stat == "mean" else f"{stat}_{quantity}_ms"
        if name is None:
            continue
        try:
            metrics[name] = float(raw)
        except ValueError:
            raise ImportFileError(file, f"line {number}", f"expected a number after {match.group(1).strip()!r}") from None
    if "output_tok_s" not in metrics:
        raise ImportFileError(file, "", "expected an 'Output token throughput (tok/s):' line")
    return [BenchmarkRun("vllm_console", "pasted block", concurrency, rate, metrics, engine=engine)]

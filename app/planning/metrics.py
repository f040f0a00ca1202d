"""The metrics a measurement or gate can name, with their units."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Metric:
    name: str
    unit: str
    label: str
    higher_is_better: bool


METRICS: dict[str, Metric] = {
    m.name: m
    for m in (
        Metric("output_tok_s", "tok/s", "output throughput", True),
        Metric("total_tok_s", "tok/s", "total token throughput", True),
        Metric("request_throughput", "req/s", "request throughput", True),
        Metric("tpot_ms", "ms", "time per output token", False),
        Metric("ttft_ms", "ms", "time to first token", False),
        Metric("itl_ms", "ms", "inter-token latency", False),
        Metric("e2el_ms", "ms", "end-to-end latency", False),
    )
}
THROUGHPUT_METRIC = "output_tok_s"

"""The metrics a measurement or gate can name, with their units."""

from __future__ import annotations

from dataclasses import dataclass

LATENCIES = (("ttft", "time to first token"), ("tpot", "time per output token"), ("itl", "inter-token latency"),
             ("e2el", "end-to-end latency"))
STATS = (("median", "median"), ("p90", "P90"), ("p99", "P99"), ("std", "std of"))


@dataclass(frozen=True)
class Metric:
    name: str
    unit: str
    label: str
    higher_is_better: bool
    zero_allowed: bool = False  # a spread or a goodput can be 0; a throughput or a latency cannot
    maximum: float | None = None  # a percentage tops out at 100


CAPACITY_METRIC = "slo_concurrency"  # computed from the other runs and the campaign's SLOs (planning/capacity.py)
PROFILE_METRIC = "profile_measured"  # 1 once the regime has a measured profile (a trace): gates judge it as a run


def _all() -> tuple[Metric, ...]:
    metrics = [
        Metric("output_tok_s", "tok/s", "output throughput", True),
        Metric("total_tok_s", "tok/s", "total token throughput", True),
        Metric("input_tok_s", "tok/s", "input token throughput", True),
        Metric("request_throughput", "req/s", "request throughput", True),
        Metric("request_goodput", "req/s", "request goodput", True, zero_allowed=True),
    ]
    for short, label in LATENCIES:
        metrics.append(Metric(f"{short}_ms", "ms", f"mean {label}", False))
    for short, label in LATENCIES:
        for stat, stat_label in STATS:
            metrics.append(Metric(f"{stat}_{short}_ms", "ms", f"{stat_label} {label}", False, zero_allowed=stat == "std"))
    metrics += [
        Metric("spec_decode_acceptance_rate", "%", "speculative-decoding acceptance rate", True, zero_allowed=True,
               maximum=100.0),
        Metric("spec_decode_acceptance_length", "tokens", "speculative-decoding acceptance length", True),
        Metric(CAPACITY_METRIC, "requests", "capacity at SLO (the highest concurrency meeting every SLO)", True,
               zero_allowed=True),
        Metric(PROFILE_METRIC, "", "measured profile (1 once a trace or measured split of the regime is stored)", True,
               zero_allowed=True, maximum=1.0),
    ]
    return tuple(metrics)


METRICS: dict[str, Metric] = {m.name: m for m in _all()}
THROUGHPUT_METRIC = "output_tok_s"
STEP_METRIC = "tpot_ms"  # mean time per output token: a decode step


def metric_unit(name: str) -> str:
    """The unit of a metric, also for percentiles not listed (p95_itl_ms is in ms)."""
    if name in METRICS:
        return METRICS[name].unit
    if name.endswith("_ms"):
        return "ms"
    if name.endswith("_tok_s"):
        return "tok/s"
    return ""


def metric_label(name: str) -> str:
    """A metric in words: "output throughput", "P95 inter-token latency" (also for percentiles not listed)."""
    if name in METRICS:
        return METRICS[name].label
    stat, _, rest = name.partition("_")
    latencies = dict(LATENCIES)
    if stat[:1] == "p" and stat[1:].isdigit() and rest.removesuffix("_ms") in latencies:
        return f"P{stat[1:]} {latencies[rest.removesuffix('_ms')]}"
    return name.replace("_", " ")

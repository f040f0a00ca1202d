"""Gates' and SLOs' conditions in words, written alike on the pages, in the export and in the change log."""

from __future__ import annotations

from typing import Any

from tierplan.planning.gates import GateResult, describe
from tierplan.planning.metrics import metric_unit
from tierplan.planning.model import Gate
from tierplan.text import formatting as fmt


def condition_text(result: GateResult) -> str:
    """"output throughput >= 40 tok/s", "median of the last 5 runs (3 needed): output throughput >= +30% over c1's
    baseline"."""
    return gate_condition(result.gate)


def gate_condition(gate: Gate) -> str:
    """A gate's condition in words, its numbers with their unit."""
    unit = metric_unit(gate.metric)
    return describe(gate, lambda value: fmt.number(value, unit), fmt.metric)


def slo_text(slo: Any) -> str:
    """"P99 time to first token <= 2,000 ms" (an SLO: a stored row, its public model or the core's)."""
    return f"{fmt.metric(slo.metric)} {slo.comparator} {fmt.number(slo.threshold, metric_unit(slo.metric))}"

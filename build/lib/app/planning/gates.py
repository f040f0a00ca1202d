"""Validation gates: pass, fail, or pending until a measurement after the tier began."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from app.planning.model import Comparator, Gate, Measurement, Tier


class GateStatus(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    PENDING = "pending"


@dataclass(frozen=True)
class GateResult:
    gate: Gate
    status: GateStatus
    evidence: Measurement | None  # the measurement the status rests on
    reason: str


def holds(comparator: Comparator, value: float, threshold: float) -> bool:
    """True when `value comparator threshold` holds."""
    if comparator is Comparator.AT_LEAST:
        return value >= threshold
    return value <= threshold


def evaluate_gate(gate: Gate, tier: Tier | None, measurements: Iterable[Measurement]) -> GateResult:
    """Judge a gate on the newest measurement of its regime and metric taken after its tier started."""
    if tier is None or tier.started_at is None:
        return GateResult(gate, GateStatus.PENDING, None, "tier not started")
    started_at = tier.started_at
    qualifying = [
        m
        for m in measurements
        if m.regime == gate.regime and m.metric == gate.metric and m.measured_at > started_at
    ]
    if not qualifying:
        return GateResult(gate, GateStatus.PENDING, None, "no measurement since the tier started")
    newest = max(qualifying, key=lambda m: m.measured_at)
    if holds(gate.comparator, newest.value, gate.threshold):
        return GateResult(gate, GateStatus.PASS, newest, "newest measurement meets the threshold")
    return GateResult(gate, GateStatus.FAIL, newest, "newest measurement misses the threshold")


def evaluate_gates(
    gates: Iterable[Gate], tiers: Iterable[Tier], measurements: Iterable[Measurement]
) -> tuple[GateResult, ...]:
    """Evaluate every gate against the tiers and all measurements."""
    by_key = {t.key: t for t in tiers}
    pool = tuple(measurements)
    return tuple(evaluate_gate(g, by_key.get(g.tier_key), pool) for g in gates)

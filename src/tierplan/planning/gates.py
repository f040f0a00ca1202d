"""Validation gates that know about noise: pass, warn, fail, inconclusive, or pending.

A gate judges the runs of its regime and metric taken after its tier started: the newest one, or the
median or mean of the last N. It can name an absolute threshold, a change relative to the baseline
(the runs of a regime before the tier started: "at least +30% over the batch-1 baseline"), or both.
With repeated runs it decides on the 90% bootstrap interval of its statistic (of the ratio, for a
relative gate): the interval wholly on the passing side passes, wholly on the failing side fails, and
one that straddles the threshold is inconclusive, as are fewer runs than the gate asks for. Never a
pass on a single lucky run when the gate asked for several. A warn gate that fails says warn.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from tierplan.planning.metrics import metric_label, metric_unit
from tierplan.planning.model import Comparator, Gate, Measurement, Severity, Tier
from tierplan.planning.stats import CONFIDENCE, Aggregation, aggregate, bootstrap_interval, ratio_interval


class GateStatus(StrEnum):
    PASS = "pass"
    WARN = "warn"
    FAIL = "fail"
    INCONCLUSIVE = "inconclusive"
    PENDING = "pending"


@dataclass(frozen=True)
class Criterion:
    """One test a gate makes: its statistic, interval and threshold, all in the same terms."""

    relative: bool  # False: the metric's own unit; True: a ratio to the reference statistic
    statistic: float
    interval: tuple[float, float]
    threshold: float  # the metric's value, or the ratio the gate asks for
    verdict: GateStatus  # PASS, FAIL or INCONCLUSIVE


@dataclass(frozen=True)
class GateResult:
    gate: Gate
    status: GateStatus
    samples: tuple[Measurement, ...]  # the runs judged, oldest first
    reference: tuple[Measurement, ...]  # a relative gate's baseline runs, oldest first
    criteria: tuple[Criterion, ...]
    reason: str

    @property
    def evidence(self) -> Measurement | None:
        """The newest run judged."""
        return self.samples[-1] if self.samples else None


def holds(comparator: Comparator, value: float, threshold: float) -> bool:
    """True when `value comparator threshold` holds."""
    if comparator is Comparator.AT_LEAST:
        return value >= threshold
    return value <= threshold


def required_ratio(gate: Gate) -> float | None:
    """The ratio to the reference a relative gate asks for (+30% -> 1.3)."""
    return None if gate.relative_pct is None else 1 + gate.relative_pct / 100


def describe(gate: Gate, number: Callable[[float], str] | None = None, name: Callable[[str], str] = metric_label) -> str:
    """The gate's condition in words, numbers written by `number` (default: 4 significant figures and the metric's
    unit) and the metric by `name`: "output throughput >= 40 tok/s", "median of the last 5 runs (3 needed): output
    throughput >= +30% over c1's baseline"."""
    unit = metric_unit(gate.metric)
    number = number or (lambda value: f"{value:,.4g} {unit}".strip())
    parts = []
    if gate.threshold is not None:
        parts.append(f"{gate.comparator.value} {number(gate.threshold)}")
    if gate.relative_pct is not None:
        whose = f"{gate.reference_regime}'s" if gate.reference_regime else "the"
        parts.append(f"{gate.comparator.value} {gate.relative_pct:+,.4g}% over {whose} baseline")
    condition = f"{name(gate.metric)} " + " and ".join(parts)
    if gate.aggregation is Aggregation.NEWEST:
        return condition
    return f"{gate.aggregation.value} of the last {gate.window} runs ({gate.min_samples} needed): {condition}"


def single_run_passes(gate: Gate, tier: Tier, value: float, measurements: Sequence[Measurement]) -> bool:
    """Whether one run of `value` would meet the gate's thresholds (the relative one against the runs
    before the tier started); False when a relative gate has no such runs."""
    ok = gate.threshold is None or holds(gate.comparator, value, gate.threshold)
    ratio = required_ratio(gate)
    if ratio is not None and tier.started_at is not None:
        started_at = tier.started_at
        before = [m for m in _runs(measurements, gate.reference_regime or gate.regime, gate.metric)
                  if m.measured_at <= started_at][-gate.window:]
        ok = ok and bool(before) and holds(gate.comparator, value, ratio * aggregate(_values(before), gate.aggregation))
    return ok


def _verdict(comparator: Comparator, interval: tuple[float, float], threshold: float) -> GateStatus:
    low, high = interval
    if holds(comparator, low, threshold) and holds(comparator, high, threshold):
        return GateStatus.PASS
    if not holds(comparator, low, threshold) and not holds(comparator, high, threshold):
        return GateStatus.FAIL
    return GateStatus.INCONCLUSIVE


def _runs(measurements: Sequence[Measurement], regime: str, metric: str) -> list[Measurement]:
    return sorted((m for m in measurements if m.regime == regime and m.metric == metric),
                  key=lambda m: m.measured_at)


def _values(runs: Sequence[Measurement]) -> list[float]:
    return [m.value for m in runs]


def _criteria(gate: Gate, samples: Sequence[Measurement], reference: Sequence[Measurement]) -> list[Criterion]:
    how, values = gate.aggregation, _values(samples)
    out: list[Criterion] = []
    if gate.threshold is not None:
        interval = bootstrap_interval(values, how)
        out.append(Criterion(False, aggregate(values, how), interval, gate.threshold,
                             _verdict(gate.comparator, interval, gate.threshold)))
    ratio = required_ratio(gate)
    if ratio is not None:
        base = _values(reference)
        interval = ratio_interval(values, base, how)
        statistic = aggregate(values, how) / aggregate(base, how)
        out.append(Criterion(True, statistic, interval, ratio, _verdict(gate.comparator, interval, ratio)))
    return out


def _combined(criteria: Sequence[Criterion]) -> GateStatus:
    verdicts = {c.verdict for c in criteria}
    if GateStatus.FAIL in verdicts:
        return GateStatus.FAIL
    if GateStatus.INCONCLUSIVE in verdicts:
        return GateStatus.INCONCLUSIVE
    return GateStatus.PASS


def _reason(gate: Gate, status: GateStatus, n: int) -> str:
    runs = "the newest run" if gate.aggregation is Aggregation.NEWEST else f"the {gate.aggregation.value} of {n} runs"
    across = "" if n == 1 else f" across its {CONFIDENCE:.0%} interval"
    if status is GateStatus.INCONCLUSIVE:
        return f"the {CONFIDENCE:.0%} interval of {runs} straddles the threshold: more runs are needed"
    if status is GateStatus.PASS:
        return f"{runs} meets the threshold{across}"
    warn = " (a warn gate: the tier can still be validated)" if status is GateStatus.WARN else ""
    return f"{runs} misses the threshold{across}{warn}"


def evaluate_gate(gate: Gate, tier: Tier | None, measurements: Sequence[Measurement]) -> GateResult:
    """Judge a gate on its regime's runs of the metric after its tier started (retracted runs left out
    by the caller); a relative gate against the reference regime's runs up to that start."""
    if tier is None or tier.started_at is None:
        return GateResult(gate, GateStatus.PENDING, (), (), (), "tier not started")
    started_at = tier.started_at
    runs = _runs(measurements, gate.regime, gate.metric)
    samples = tuple([m for m in runs if m.measured_at > started_at][-gate.window:])
    reference: tuple[Measurement, ...] = ()
    if gate.relative_pct is not None:
        before = _runs(measurements, gate.reference_regime or gate.regime, gate.metric)
        reference = tuple([m for m in before if m.measured_at <= started_at][-gate.window:])
    if not samples:
        return GateResult(gate, GateStatus.PENDING, (), reference, (), "no measurement since the tier started")
    if len(samples) < gate.min_samples:
        return GateResult(gate, GateStatus.INCONCLUSIVE, samples, reference, (),
                          f"{len(samples)} of the {gate.min_samples} runs it needs since the tier started")
    if gate.relative_pct is not None and not reference:
        where = gate.reference_regime or gate.regime
        return GateResult(gate, GateStatus.INCONCLUSIVE, samples, reference, (),
                          f"no baseline run of {where} from before the tier started to compare with")
    criteria = tuple(_criteria(gate, samples, reference))
    status = _combined(criteria)
    if status is GateStatus.FAIL and gate.severity is Severity.WARN:
        status = GateStatus.WARN
    return GateResult(gate, status, samples, reference, criteria, _reason(gate, status, len(samples)))


def evaluate_gates(
    gates: Iterable[Gate], tiers: Iterable[Tier], measurements: Iterable[Measurement]
) -> tuple[GateResult, ...]:
    """Evaluate every gate against the tiers and all measurements."""
    by_key = {t.key: t for t in tiers}
    pool = tuple(measurements)
    return tuple(evaluate_gate(g, by_key.get(g.tier_key), pool) for g in gates)


def tier_validated(tier_key: str, results: Iterable[GateResult]) -> bool:
    """A tier is validated when it has hard gates and all of them pass."""
    hard = [r for r in results if r.gate.tier_key == tier_key and r.gate.severity is Severity.HARD]
    return bool(hard) and all(r.status is GateStatus.PASS for r in hard)

"""Gate results in words and in records: the plan page, the export, the API and `tierplan gates` read these."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from tierplan.models.errors import NotFound
from tierplan.models.plan_rows import GatePublic
from tierplan.planning.gate_chances import EXPECTED, GateChance
from tierplan.planning.gates import Criterion, GateResult, GateStatus, tier_validated
from tierplan.planning.metrics import THROUGHPUT_METRIC, metric_unit
from tierplan.planning.model import Measurement, Severity, Tier
from tierplan.planning.projection import RegimeProjection
from tierplan.planning.stats import CONFIDENCE
from tierplan.text import formatting as fmt
from tierplan.text.conditions import condition_text

if TYPE_CHECKING:  # the CLI reads these views without loading the services
    from tierplan.services.plan import Plan


def _criterion_text(criterion: Criterion, result: GateResult, unit: str) -> str:
    low, high = criterion.interval
    several = len(result.samples) > 1 or len(result.reference) > 1
    if criterion.relative:
        change = f"{criterion.statistic - 1:+.1%}"
        interval = f" ({CONFIDENCE:.0%} interval {low - 1:+.1%} to {high - 1:+.1%})" if several else ""
        base = len(result.reference)
        return (f"{change} over the baseline ({base} run{'s' if base != 1 else ''}){interval}, needs "
                f"{criterion.threshold - 1:+.1%}")
    value = fmt.number(criterion.statistic, unit)
    interval = f" ({CONFIDENCE:.0%} interval {fmt.number(low, unit)} to {fmt.number(high, unit)})" if several else ""
    return f"{value}{interval}"


def evidence_text(result: GateResult) -> str:
    """What the status rests on: the runs, the statistic and its interval, and why."""
    unit = metric_unit(result.gate.metric)
    if not result.criteria:
        return result.reason
    newest = result.samples[-1]
    runs = (f"{fmt.number(newest.value, unit)} on {fmt.date(newest.measured_at)}" if len(result.samples) == 1
            else f"{len(result.samples)} runs {fmt.date(result.samples[0].measured_at)} to "
                 f"{fmt.date(newest.measured_at)}")
    tests = "; ".join(_criterion_text(c, result, unit) for c in result.criteria)
    if len(result.samples) == 1 and not any(c.relative for c in result.criteria):
        return f"{runs}: {result.reason}"
    return f"{runs}: {tests}. {result.reason[0].upper()}{result.reason[1:]}"


def tier_gates_text(tier_key: str, results: tuple[GateResult, ...] | list[GateResult]) -> str:
    """"validated: 2 of 2 hard gates pass", "not validated: 1 of 2 hard gates pass (1 inconclusive)"."""
    hard = [r for r in results if r.gate.tier_key == tier_key and r.gate.severity is Severity.HARD]
    if not hard:
        return "no hard gate: nothing can validate this tier"
    passing = sum(r.status is GateStatus.PASS for r in hard)
    others = [s for s in GateStatus if s is not GateStatus.PASS and any(r.status is s for r in hard)]
    detail = ", ".join(f"{sum(r.status is s for r in hard)} {s.value}" for s in others)
    verdict = "validated" if tier_validated(tier_key, hard) else "not validated"
    counted = f"{passing} of {len(hard)} hard gates pass" if len(hard) > 1 else f"{passing} of 1 hard gate passes"
    return f"{verdict}: {counted}" + (f" ({detail})" if detail else "")


class SampleOut(BaseModel):
    value: float
    measured_at: datetime
    kind: str


class CriterionOut(BaseModel):
    relative: bool = Field(description="true: statistic, interval and threshold are ratios to the baseline")
    statistic: float
    interval_low: float
    interval_high: float
    threshold: float
    verdict: str


class GateOut(BaseModel):
    """One gate's status with its evidence."""

    id: int | None = None
    tier: str
    regime: str
    metric: str
    comparator: str
    threshold: float | None
    relative_pct: float | None
    reference_regime: str | None
    aggregation: str
    window: int
    min_samples: int
    severity: str
    status: str = Field(description="pass, warn, fail, inconclusive or pending")
    condition: str
    evidence: str
    reason: str
    evidence_value: float | None = Field(description="the newest run judged")
    evidence_measured_at: datetime | None
    samples: list[SampleOut]
    baseline_samples: list[SampleOut]
    criteria: list[CriterionOut]
    p_pass: float | None = Field(default=None, description=(
        "pending gates on a projected metric: the share of the bands' Monte Carlo samples that pass it once its "
        "tier's work is in"))
    projected_p50: float | None = Field(default=None, description="the P50 of the value it judges, in its unit")
    expected_to_fail: bool = Field(default=False, description="the plan expects it to fail (p_pass below 0.5)")


class TierGatesOut(BaseModel):
    tier: str
    name: str
    validated: bool = Field(description="the tier has hard gates and every one passes")
    gates: list[GateOut]


def _samples(runs: Iterable[Measurement]) -> list[SampleOut]:
    return [SampleOut(value=m.value, measured_at=m.measured_at, kind=m.kind.value) for m in runs]


def gate_out(result: GateResult, gate_id: int | None = None, chance: GateChance | None = None) -> GateOut:
    gate = result.gate
    pending = chance is not None and result.status is GateStatus.PENDING
    return GateOut(
        p_pass=chance.p_pass if pending and chance else None,
        projected_p50=chance.projected_p50 if pending and chance else None,
        expected_to_fail=bool(pending and chance and chance.p_pass < EXPECTED),
        id=gate_id, tier=gate.tier_key, regime=gate.regime, metric=gate.metric, comparator=gate.comparator.value,
        threshold=gate.threshold, relative_pct=gate.relative_pct, reference_regime=gate.reference_regime,
        aggregation=gate.aggregation.value, window=gate.window, min_samples=gate.min_samples,
        severity=gate.severity.value, status=result.status.value, condition=condition_text(result),
        evidence=evidence_text(result), reason=result.reason, samples=_samples(result.samples),
        evidence_value=result.evidence.value if result.evidence else None,
        evidence_measured_at=result.evidence.measured_at if result.evidence else None,
        baseline_samples=_samples(result.reference),
        criteria=[CriterionOut(relative=c.relative, statistic=c.statistic, interval_low=c.interval[0],
                               interval_high=c.interval[1], threshold=c.threshold, verdict=c.verdict.value)
                  for c in result.criteria],
    )


@dataclass(frozen=True)
class GateSummary:
    """What CI needs from the gates: each tier's, and the exit code they add up to."""

    tiers: tuple[TierGatesOut, ...]
    partial: bool = False  # only the gates some runs decided (a push), not every gate of their tiers

    def only(self, keep: Callable[[GateOut], bool]) -> GateSummary:
        """The tiers that keep a gate, with only the gates kept (a tier's `validated` still counts all of its own)."""
        tiers = [t.model_copy(update={"gates": [g for g in t.gates if keep(g)]}) for t in self.tiers]
        return GateSummary(tuple(t for t in tiers if t.gates), partial=True)

    def results(self) -> list[GateOut]:
        return [g for t in self.tiers for g in t.gates]

    def exit_code(self, strict: bool = False) -> int:
        """0: every hard gate passes; 1: a hard gate fails (or, strict, a warn gate warns); 3: one is pending or
        inconclusive (and none fails)."""
        gates = self.results()
        if any(g.status == GateStatus.FAIL.value or (strict and g.status == GateStatus.WARN.value) for g in gates):
            return 1
        if any(g.status in (GateStatus.PENDING.value, GateStatus.INCONCLUSIVE.value)
               and (strict or g.severity == Severity.HARD.value) for g in gates):
            return 3
        return 0


def gate_summary(tiers: tuple[Tier, ...], results: tuple[GateResult, ...], names: dict[str, str],
                 ids: list[int | None], tier_key: str | None = None) -> GateSummary:
    """The gates tier by tier (only `tier_key`'s when given); `names` the tiers' names, `ids` the gates' row ids."""
    out = []
    for tier in sorted(tiers, key=lambda t: t.order):
        if tier_key is not None and tier.key != tier_key:
            continue
        mine = [(r, i) for r, i in zip(results, ids, strict=True) if r.gate.tier_key == tier.key]
        out.append(TierGatesOut(tier=tier.key, name=names.get(tier.key, tier.name),
                                validated=tier_validated(tier.key, [r for r, _ in mine]),
                                gates=[gate_out(r, i) for r, i in mine]))
    return GateSummary(tuple(out))



def summary_of(plan: Plan, *, tier_key: str | None = None,
               touched: Mapping[tuple[str, str], tuple[datetime, datetime]] | None = None) -> GateSummary:
    """The plan's gates tier by tier: only `tier_key`'s when given; with `touched` (regime, metric -> the first and
    last time of the new runs), only the gates whose samples hold a run of those times: the gates the new data
    decided. NotFound for a tier the campaign does not have."""
    tiers = plan.analysis.campaign.tiers
    if tier_key is not None and tier_key not in {t.key for t in tiers}:
        raise NotFound(f"campaign {plan.campaign_id} has no tier {tier_key!r} (it has {', '.join(t.key for t in tiers)})")
    summary = gate_summary(tiers, plan.analysis.gate_results, {t.key: t.name for t in plan.record.tiers},
                           [g.id for g in plan.record.gates], tier_key)
    if touched is None:
        return summary

    def decided(gate: GateOut) -> bool:
        span = touched.get((gate.regime, gate.metric))
        return span is not None and any(span[0] <= s.measured_at <= span[1] for s in gate.samples)

    return summary.only(decided)


@dataclass
class GateView:
    id: int
    tier_key: str
    regime: str
    metric: str
    condition_text: str  # "output_tok_s >= 40 tok/s"
    status: str
    severity: str
    evidence_text: str
    projected_text: str
    provenance: str
    chance_text: str = ""  # a pending gate on a projected metric: "P(pass) 12%"
    expected_fail: bool = False  # the plan expects it to fail


def gate_view(gate: GatePublic, result: GateResult, by_regime: dict[str, RegimeProjection], names: dict[int, str],
               chance: GateChance | None = None) -> GateView:
    projected = ""
    if gate.metric == THROUGHPUT_METRIC:
        step = by_regime[names[gate.regime_id]].after(result.gate.tier_key)
        if step is not None and step.tok_s is not None:
            projected = f"projected {fmt.tok_s(step.tok_s)}"
    chance_text, expected_fail = "", False
    if chance is not None and result.status is GateStatus.PENDING:
        if not projected:
            projected = f"projected P50 {fmt.number(chance.projected_p50, metric_unit(gate.metric))}"
        expected_fail = chance.p_pass < EXPECTED
        chance_text = f"P(pass) {fmt.probability(chance.p_pass)}" + (": expected to fail" if expected_fail else "")
    return GateView(
        id=gate.id,
        tier_key=result.gate.tier_key,
        regime=names[gate.regime_id],
        metric=gate.metric,
        condition_text=condition_text(result),
        status=result.status.value,
        severity=result.gate.severity.value,
        evidence_text=evidence_text(result),
        projected_text=projected,
        provenance=gate.provenance,
        chance_text=chance_text,
        expected_fail=expected_fail,
    )

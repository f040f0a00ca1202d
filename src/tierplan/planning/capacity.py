"""Capacity at the service-level objectives: the highest concurrency whose runs meet every SLO, and the goodput there.

The load points are the campaign's regimes, each with the newest run of every metric (a vLLM sweep, or several
SGLang runs, gives one a concurrency). A point meets the SLOs when every objective's metric was measured there and
holds; the capacity is the highest concurrency that meets them, and its goodput the output throughput measured
there. A miss below the capacity is reported, never hidden.

Per tier, each point is projected from the runs taken in its baseline's state: time per output token (TPOT) is
divided by the tier's gain a token, inter-token latency follows the step time, TTFT is taken as unchanged (decode
work does not touch prefill; an assumption the result states), and the point's throughput is multiplied by the
gain, capped at the regime's ceiling. A metric
the projection cannot carry (end-to-end latency, spreads) leaves that point unknown after the tier.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from tierplan.planning.gates import GateResult, evaluate_gates, holds
from tierplan.planning.metrics import CAPACITY_METRIC, PROFILE_METRIC, THROUGHPUT_METRIC
from tierplan.planning.model import Campaign, Measurement, Objective
from tierplan.planning.projection import RegimeProjection, Step

UNCHANGED_NOTE = "TTFT taken as unchanged by decode work"


@dataclass(frozen=True)
class LoadPoint:
    regime: str
    concurrency: int
    values: Mapping[str, float]  # metric -> the value there


@dataclass(frozen=True)
class PointCheck:
    point: LoadPoint
    meets: bool | None  # None: a metric an objective needs is not known there
    misses: tuple[tuple[Objective, float], ...]  # the objectives missed, with the value
    unknown: tuple[str, ...]  # metrics not known there


@dataclass(frozen=True)
class Capacity:
    """The capacity at SLO of one state (measured, or after a tier)."""

    tier_key: str | None  # None: as measured
    checks: tuple[PointCheck, ...]  # by concurrency
    concurrency: int | None  # the highest concurrency meeting every SLO; None: none does
    regime: str | None
    goodput_tok_s: float | None  # output throughput there
    next_miss: PointCheck | None  # the first point above the capacity that misses
    below_misses: tuple[PointCheck, ...]  # points below the capacity that miss (a non-monotone sweep)


def check_point(point: LoadPoint, objectives: Sequence[Objective]) -> PointCheck:
    unknown = tuple(o.metric for o in objectives if o.metric not in point.values)
    misses = tuple((o, point.values[o.metric]) for o in objectives
                   if o.metric in point.values and not holds(o.comparator, point.values[o.metric], o.threshold))
    meets = False if misses else (None if unknown else True)
    return PointCheck(point, meets, misses, unknown)


def capacity(points: Sequence[LoadPoint], objectives: Sequence[Objective], tier_key: str | None = None) -> Capacity:
    """The highest concurrency of `points` that meets every objective, and what it gives."""
    checks = tuple(check_point(p, objectives) for p in sorted(points, key=lambda p: p.concurrency))
    meeting = [c for c in checks if c.meets]
    best = meeting[-1] if meeting else None
    if best is None:
        return Capacity(tier_key, checks, None, None, None, next((c for c in checks if c.meets is False), None), ())
    above = [c for c in checks if c.point.concurrency > best.point.concurrency and c.meets is False]
    below = tuple(c for c in checks if c.point.concurrency < best.point.concurrency and c.meets is False)
    return Capacity(tier_key, checks, best.point.concurrency, best.point.regime,
                    best.point.values.get(THROUGHPUT_METRIC), above[0] if above else None, below)


def projected_values(values: Mapping[str, float], baseline: Step, step: Step,
                     ceiling_tok_s: float | None = None) -> dict[str, float]:
    """The metrics of a point after a tier, from the values measured in its baseline's state: its own throughput
    times the tier's gain (capped at the ceiling), its latencies as the module says."""
    out: dict[str, float] = {}
    step_ratio = step.step_rel / baseline.step_rel if baseline.step_rel else None
    token_ratio = baseline.gain / step.gain if step.gain else None  # time a token, after over before
    for metric, value in values.items():
        if metric == THROUGHPUT_METRIC:
            if token_ratio:
                gained = value / token_ratio
                out[metric] = min(gained, ceiling_tok_s) if ceiling_tok_s is not None else gained
        elif "tpot" in metric and not metric.startswith("std_") and token_ratio is not None:
            out[metric] = value * token_ratio
        elif "itl" in metric and not metric.startswith("std_") and step_ratio is not None:
            out[metric] = value * step_ratio
        elif "ttft" in metric and not metric.startswith("std_"):
            out[metric] = value
    return out


def projected_capacities(points: Sequence[LoadPoint], objectives: Sequence[Objective],
                         projections: Sequence[RegimeProjection]) -> tuple[Capacity, ...]:
    """The capacity after each tier, the points projected from their baselines' state."""
    by_regime = {p.regime: p for p in projections}
    tiers = [s.tier_key for s in projections[0].steps] if projections else []
    out = []
    for tier_key in tiers:
        projected = []
        for point in points:
            projection = by_regime.get(point.regime)
            step = projection.after(tier_key) if projection and tier_key else None
            if projection is None or step is None:
                continue
            projected.append(LoadPoint(point.regime, point.concurrency,
                                       projected_values(point.values, projection.baseline, step,
                                                        projection.ceiling_tok_s)))
        out.append(capacity(projected, objectives, tier_key))
    return tuple(out)


def load_points(campaign: Campaign, *, baseline_state: bool = False,
                until: datetime | None = None) -> tuple[LoadPoint, ...]:
    """Each regime with the newest run of every metric (retracted runs are not in `campaign`); with
    `baseline_state`, only runs taken with what its baseline includes (the runs a projection starts from); with
    `until`, only runs measured by then."""
    newest: dict[tuple[str, str], Measurement] = {}
    includes = {r.name: r.includes for r in campaign.regimes}
    for m in campaign.measurements:
        if until is not None and m.measured_at > until:
            continue
        if baseline_state and m.includes != includes.get(m.regime):
            continue
        key = (m.regime, m.metric)
        if key not in newest or m.measured_at > newest[key].measured_at:
            newest[key] = m
    return tuple(LoadPoint(r.name, r.concurrency, {metric: m.value for (regime, metric), m in newest.items()
                                                   if regime == r.name})
                 for r in campaign.regimes)


def capacity_runs(campaign: Campaign, objectives: Sequence[Objective], regime: str, *,
                  since: datetime | None = None, limit: int = 50) -> tuple[Measurement, ...]:
    """The capacity at SLO as it stood after each new run (the last `limit` moments after `since`), as runs of
    the metric `slo_concurrency` of `regime`: what a gate on the capacity judges. No value where no
    concurrency met the SLOs yet is 0."""
    if not objectives:
        return ()
    moments = sorted({m.measured_at for m in campaign.measurements if since is None or m.measured_at > since})
    out = []
    for moment in moments[-limit:]:
        found = capacity(load_points(campaign, until=moment), objectives)
        out.append(Measurement(regime, CAPACITY_METRIC, float(found.concurrency or 0), moment))
    return tuple(out)


def campaign_gate_results(campaign: Campaign) -> tuple[GateResult, ...]:
    """Every gate of the campaign judged; a gate on `slo_concurrency` judges the capacity at SLO as it stood
    after each run since its tier started."""
    runs = list(campaign.measurements)
    # a gate on a measured profile judges the regime's measured profile as a run of 1, dated when it was stored
    runs += [Measurement(r.name, PROFILE_METRIC, 1.0, r.profile_measured_at) for r in campaign.regimes
             if r.profile_measured_at is not None and any(g.metric == PROFILE_METRIC and g.regime == r.name
                                                          for g in campaign.gates)]
    tiers = {t.key: t for t in campaign.tiers}
    for regime in sorted({g.regime for g in campaign.gates if g.metric == CAPACITY_METRIC}):
        starts = [tiers[g.tier_key].started_at for g in campaign.gates
                  if g.metric == CAPACITY_METRIC and g.regime == regime and g.tier_key in tiers]
        known = [s for s in starts if s is not None]
        if known:
            runs += capacity_runs(campaign, campaign.objectives, regime, since=min(known))
    return evaluate_gates(campaign.gates, campaign.tiers, runs)

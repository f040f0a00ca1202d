"""Predicted against measured gain of the changes a campaign measured, its running bias and model-error scale.

Each throughput measurement records the interventions it includes. A measured change is a pair
in one regime: a measurement, and the newest earlier one whose includes are a proper subset of
its own (the largest such subset); the interventions in the difference are what changed. Its
predicted gain is what their likely effects do to the regime's profile on their own; the measured
gain is the newer value over the older. Per regime and set of interventions the newest pair counts.
The bias is measured / predicted (geometric mean over the pairs); the realised share is the measured
log-gain over the predicted log-gain, which is what applying the bias to the remaining projections
scales each effect's log-speedup by: each pair's share bounded to REALISED_RANGE and weighted by its
predicted log-gain, so a pair that predicted almost nothing cannot swing it by thousands of percent.
The same pairs set the scale of the model-error priors (model_error.py: each pair bounded too), and
each point says how far it moves that scale on its own (the scale with it over the scale without it).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace

from tierplan.planning.checks import out_of_line
from tierplan.planning.effects import apply_effect, magnitude, point_draw
from tierplan.planning.metrics import THROUGHPUT_METRIC
from tierplan.planning.model import Campaign, EffectKind, Intervention, Measurement, Regime, need
from tierplan.planning.model_error import MIN_KIND_PAIRS, Z_CAP, scale_from, sigma
from tierplan.planning.projection import ALREADY_IN_BASELINE, context_of, plan_order
from tierplan.planning.step import start_state

# a pair's realised share of its predicted log-gain, as the summary counts it: from a change that undid twice
# what it promised to one that did three times as much (beyond that, the pair is more likely wrong than the model)
REALISED_RANGE = (-2.0, 3.0)


@dataclass(frozen=True)
class CalibrationPoint:
    key: str  # the interventions that changed, "A1, A2"
    regime: str
    predicted_gain: float
    measured_gain: float | None
    before: Measurement | None
    after: Measurement | None
    reason: str  # why there is no measured gain yet, or ""
    predicted_sigma: float = 0.0  # the model error of the prediction, on ln(gain)
    moves_scale: float = 1.0  # the model-error scale with this point over the scale without it
    kind: EffectKind | None = None  # the kind of effect that carries most of the prediction's model error

    @property
    def bias(self) -> float | None:
        return None if self.measured_gain is None else self.measured_gain / self.predicted_gain

    @property
    def z(self) -> float | None:
        """How many of its prediction's standard deviations the measured change missed by."""
        if self.bias is None or self.predicted_sigma <= 0:
            return None
        return math.log(self.bias) / self.predicted_sigma

    @property
    def outlier(self) -> bool:
        """A miss calibration bounds (model_error.Z_CAP): more likely two setups than a model that far off."""
        return self.z is not None and abs(self.z) > Z_CAP


@dataclass(frozen=True)
class CalibrationSummary:
    points: tuple[CalibrationPoint, ...]
    bias: float | None  # geometric mean of measured / predicted
    realised: float | None  # sum of measured log-gains / sum of predicted log-gains
    error_scale: float = 1.0  # on the model-error priors
    error_points: int = 0  # how many measured changes set it
    kind_scales: tuple[tuple[EffectKind, float, int], ...] = ()  # a kind's own scale and its pairs, where enough


def calibrate(campaign: Campaign) -> CalibrationSummary:
    """Every measured change's predicted and measured gain, the bias, and the model-error scale."""
    points = []
    order = [i.key for _, members in plan_order(campaign) for i in members]
    by_key = {i.key: i for i in campaign.interventions}
    for regime in campaign.regimes:
        for before, after in _pairs(campaign, regime.name):
            changed = [k for k in order if k in after.includes - before.includes]
            changed += sorted(k for k in after.includes - before.includes if k not in order)
            predicted, spread, kind = predicted_gain([by_key[k] for k in changed if k in by_key], regime, campaign)
            flagged = _flagged(before, after)
            points.append(CalibrationPoint(", ".join(changed), regime.name, predicted,
                                           None if flagged else after.value / before.value, before, after, flagged,
                                           spread, kind=kind))
    points += _waiting(campaign)
    measured = [p for p in points if p.measured_gain is not None and abs(p.predicted_gain - 1) > 1e-9]
    if not measured:
        return CalibrationSummary(tuple(points), None, None)
    biases = [need(p.bias, "the measured gain") for p in measured]
    bias = math.exp(sum(math.log(b) for b in biases) / len(measured))
    z = [need(p.z, "the miss") for p in measured if p.z is not None]
    scale, used = scale_from(z)
    points = [_with_influence(p, z, scale) if p.z is not None else p for p in points]
    return CalibrationSummary(tuple(points), bias, realised_share(measured), scale, used, kind_scales(measured))


def kind_scales(measured: list[CalibrationPoint]) -> tuple[tuple[EffectKind, float, int], ...]:
    """Each kind's own model-error scale, from the measured changes it carries most of (MIN_KIND_PAIRS at least)."""
    by_kind: dict[EffectKind, list[float]] = {}
    for point in measured:
        if point.z is not None and point.kind is not None:
            by_kind.setdefault(point.kind, []).append(point.z)
    return tuple((kind, *scale_from(z)) for kind, z in by_kind.items() if len(z) >= MIN_KIND_PAIRS)


def realised_share(measured: list[CalibrationPoint]) -> float | None:
    """The share of the predicted log-gain the measured changes realised: each pair's share bounded to
    REALISED_RANGE, weighted by its predicted log-gain (with no pair bounded: measured over predicted log-gain)."""
    weights = [abs(math.log(p.predicted_gain)) for p in measured]
    if not sum(weights):
        return None
    low, high = REALISED_RANGE
    shares = [max(low, min(high, math.log(need(p.measured_gain, "the measured gain")) / math.log(p.predicted_gain)))
              for p in measured]
    return sum(w * s for w, s in zip(weights, shares, strict=True)) / sum(weights)


def _with_influence(point: CalibrationPoint, z_scores: list[float], scale: float) -> CalibrationPoint:
    """The point with how far it moves the model-error scale: the scale over the scale without its miss."""
    others = list(z_scores)
    others.remove(need(point.z, "the miss"))
    return replace(point, moves_scale=scale / scale_from(others)[0])


def _flagged(before: Measurement, after: Measurement) -> str:
    """Why a measured change is left out of calibration: the team left one of its runs out, or one was recorded
    over a warning that its value is out of line (checks.out_of_line); "" when both count."""
    for role, run in (("newer", after), ("older", before)):
        if run.left_out:
            return f"left out: the {role} run, {run.left_out}"
    for role, run in (("newer", after), ("older", before)):
        if out_of_line(run.confirmed):
            return f"left out: the {role} run was recorded over a warning ({run.confirmed})"
    return ""


def predicted_gain(interventions: Iterable[Intervention], regime: Regime, campaign: Campaign
                   ) -> tuple[float, float, EffectKind | None]:
    """The gain a token the interventions' likely effects give on the regime's profile alone, its model sigma, and
    the kind of effect that carries most of that model variance (None: no effect applies)."""
    state = start_state(regime.profile)
    context = context_of(regime, campaign)
    start = state.per_token()
    variances: dict[EffectKind, float] = {}
    for intervention in interventions:
        for effect in intervention.effects:
            if not effect.applies_to(regime.name):
                continue
            draw = point_draw(effect)
            before = state.per_token()
            if apply_effect(effect, draw, state, context) is None:
                moved = magnitude(effect, draw, before, state.per_token(), context)
                variances[effect.kind] = variances.get(effect.kind, 0.0) + (sigma(effect.kind) * moved) ** 2
    kind = max(variances, key=lambda k: variances[k]) if variances else None
    return float(start / state.per_token()), math.sqrt(sum(variances.values())), kind


def _waiting(campaign: Campaign) -> list[CalibrationPoint]:
    """Landed work no throughput measurement of a regime it touches includes yet."""
    out = []
    for intervention in campaign.interventions:
        if intervention.status not in ALREADY_IN_BASELINE:
            continue
        for regime in campaign.regimes:
            if not any(e.applies_to(regime.name) for e in intervention.effects):
                continue
            series = [m for m in campaign.measurements if m.regime == regime.name and m.metric == THROUGHPUT_METRIC]
            if any(intervention.key in m.includes for m in series):
                continue
            predicted, spread, _ = predicted_gain([intervention], regime, campaign)
            out.append(CalibrationPoint(intervention.key, regime.name, predicted, None, None, None,
                                        "no throughput measurement includes it yet", spread))
    return out


def changes_by_set(measurements: Iterable[Measurement], regime_name: str
                   ) -> dict[frozenset[str], tuple[Measurement, Measurement]]:
    """The measured changes of the regime's output throughput, by the set of interventions that changed: for each
    run, the newest earlier run whose includes are the largest proper subset of its own; per set, the newest pair.

    One pass in time order over the runs (retracted ones left out by the caller), keeping the newest run of each
    state (set of includes) measured before the current time: runs x states, not runs squared."""
    series = sorted(
        (m for m in measurements if m.regime == regime_name and m.metric == THROUGHPUT_METRIC and m.value > 0),
        key=lambda m: m.measured_at,
    )
    newest: dict[frozenset[str], tuple[Measurement, Measurement]] = {}
    # state -> (its newest run before the current time, that run's position); among runs measured at the same
    # time the first in `series` order stands, as max() over them would pick
    latest: dict[frozenset[str], tuple[Measurement, int]] = {}
    start = 0
    while start < len(series):
        end = start
        while end < len(series) and series[end].measured_at == series[start].measured_at:
            end += 1
        for after in series[start:end]:
            earlier = [(len(state), run.measured_at, -position, run) for state, (run, position) in latest.items()
                       if state < after.includes]
            if earlier:
                before = max(earlier, key=lambda c: c[:3])[3]
                newest[after.includes - before.includes] = (before, after)
        for position in range(start, end):
            run = series[position]
            if run.includes not in latest or latest[run.includes][0].measured_at < run.measured_at:
                latest[run.includes] = (run, position)
        start = end
    return newest


def measured_pairs(measurements: Iterable[Measurement], regime_name: str) -> list[tuple[Measurement, Measurement]]:
    """The regime's measured changes (changes_by_set), oldest first."""
    return sorted(changes_by_set(measurements, regime_name).values(), key=lambda pair: pair[1].measured_at)


def newer_changes(known: Iterable[Measurement], added: Iterable[Measurement], regime_name: str
                  ) -> dict[frozenset[str], tuple[Measurement, Measurement]]:
    """The measured changes whose newer run is one of `added`: what runs measured after every earlier run of the
    regime add to its changes. `known` must hold, for each state, the newest earlier run (more is harmless), and
    both come newest first as the history is read (among runs of one time, that order decides); a change of the
    result replaces the stored one of the same set, a set not in it keeps its stored change."""
    fresh = tuple(added)
    wanted = set(fresh)
    return {changed: pair for changed, pair in changes_by_set((*known, *fresh), regime_name).items()
            if pair[1] in wanted}


def _pairs(campaign: Campaign, regime_name: str) -> list[tuple[Measurement, Measurement]]:
    """The regime's measured changes: the campaign's own (kept as runs were written) or found in its runs."""
    if campaign.changes is None:
        return measured_pairs(campaign.measurements, regime_name)
    return sorted((pair for pair in campaign.changes if pair[1].regime == regime_name),
                  key=lambda pair: pair[1].measured_at)

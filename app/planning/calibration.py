"""Predicted against measured gain for landed interventions, and the campaign's running bias.

For an intervention that landed, in each regime its effects touch: the
predicted gain is what its likely effects do to that regime's profile on
their own; the measured gain is the newest output throughput after it
landed over the newest before it started. The bias is measured / predicted
(geometric mean over the pairs); the realised share is the measured
log-gain over the predicted log-gain, which is what applying the bias to the
remaining projections scales each effect's log-speedup by.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from app.planning.effects import apply_effect, point_draw
from app.planning.metrics import THROUGHPUT_METRIC
from app.planning.model import Campaign, Intervention, Measurement, Regime
from app.planning.projection import ALREADY_IN_BASELINE, baseline_step_ms, start_times


@dataclass(frozen=True)
class CalibrationPoint:
    key: str
    regime: str
    predicted_gain: float
    measured_gain: float | None
    before: Measurement | None
    after: Measurement | None
    reason: str  # why there is no measured gain yet, or ""

    @property
    def bias(self) -> float | None:
        return None if self.measured_gain is None else self.measured_gain / self.predicted_gain


@dataclass(frozen=True)
class CalibrationSummary:
    points: tuple[CalibrationPoint, ...]
    bias: float | None  # geometric mean of measured / predicted
    realised: float | None  # sum of measured log-gains / sum of predicted log-gains


def calibrate(campaign: Campaign) -> CalibrationSummary:
    """Every landed intervention's predicted and measured gain, per regime it touches."""
    points = []
    for intervention in campaign.interventions:
        if intervention.status not in ALREADY_IN_BASELINE or intervention.landed_at is None:
            continue
        for regime in campaign.regimes:
            if any(e.applies_to(regime.name) for e in intervention.effects):
                points.append(_point(intervention, regime, campaign.measurements))
    measured = [p for p in points if p.measured_gain is not None and p.predicted_gain != 1]
    if not measured:
        return CalibrationSummary(tuple(points), None, None)
    bias = math.exp(sum(math.log(p.bias) for p in measured) / len(measured))
    predicted_log = sum(math.log(p.predicted_gain) for p in measured)
    realised = sum(math.log(p.measured_gain) for p in measured) / predicted_log if predicted_log else None
    return CalibrationSummary(tuple(points), bias, realised)


def predicted_gain(intervention: Intervention, regime: Regime) -> float:
    """The whole-step gain the intervention's likely effects give on the regime's profile alone."""
    times = start_times(regime)
    for effect in intervention.effects:
        if effect.applies_to(regime.name):
            apply_effect(effect, point_draw(effect), times, regime.name, baseline_step_ms(regime))
    return 1 / sum(times.values())


def _point(intervention: Intervention, regime: Regime, measurements) -> CalibrationPoint:
    predicted = predicted_gain(intervention, regime)
    series = [m for m in measurements if m.regime == regime.name and m.metric == THROUGHPUT_METRIC]
    started = intervention.started_at or intervention.landed_at
    before = _newest(series, until=started)
    after = _newest([m for m in series if m.measured_at > intervention.landed_at])
    reason = ""
    if before is None:
        reason = "no throughput measured before it started"
    elif after is None:
        reason = "no throughput measured since it landed"
    measured = after.value / before.value if before and after else None
    return CalibrationPoint(intervention.key, regime.name, predicted, measured, before, after, reason)


def _newest(series: list[Measurement], until: datetime | None = None) -> Measurement | None:
    eligible = [m for m in series if until is None or m.measured_at <= until]
    return max(eligible, key=lambda m: m.measured_at) if eligible else None

"""Whether a measured value can be stored: errors refuse it, warnings need the user to confirm it.

Errors: a value that is not a finite number, not positive where the metric cannot be zero (a
throughput, a latency), above 100 for a percentage, or dated more than a day ahead of now.
Warnings, which the user may confirm in the same form: an output throughput above the regime's
hardware ceiling (with speculative decoding among what it includes, the ceiling with every draft
accepted), a value more than 10x away from the current baseline of its metric, and a throughput
baseline that passes a gate of a started tier whose interventions it does not say it includes: as a
baseline the plan would apply them again on top of it; a gate check dated before every tier whose gates judge
it started (it decides none of them).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from tierplan.planning.baselines import newest_baseline, newest_baselines
from tierplan.planning.effect_kinds import rule_of
from tierplan.planning.gates import describe, single_run_passes
from tierplan.planning.metrics import METRICS, THROUGHPUT_METRIC
from tierplan.planning.model import Campaign, Measurement, MeasurementKind, Status, need

ABSURD_FACTOR = 10.0
FUTURE_TOLERANCE = timedelta(days=1)


# the words of the value warnings, written once here: the messages use them and out_of_line() finds them again
ABOVE_CEILING = "is above the hardware ceiling of this regime"
OFF_BASELINE = "the current baseline ("
OTHER_SETUP = "its file names another setup"  # recorded on a run whose import named another model, GPU or engine


@dataclass(frozen=True)
class Problem:
    field: str  # the form field it belongs to: value, measured_at, kind
    message: str
    confirmable: bool  # a warning the user may override; False: an error


@dataclass(frozen=True)
class Reading:
    """A value about to be recorded."""

    regime: str
    metric: str
    value: float
    measured_at: datetime
    kind: MeasurementKind = MeasurementKind.BASELINE
    includes: frozenset[str] = frozenset()


def check_reading(reading: Reading, campaign: Campaign, *, now: datetime,
                  baselines: Mapping[tuple[str, str], Measurement] | None = None) -> list[Problem]:
    """Every problem with the reading, errors first. `baselines`: newest_baselines(campaign.measurements), when
    the caller checks many readings against one campaign."""
    errors = value_errors(reading, now)
    if errors:
        return errors
    current = (baselines.get((reading.regime, reading.metric)) if baselines is not None
               else newest_baseline(campaign.measurements, reading.regime, reading.metric))
    return (_ceiling(reading, campaign) + _jump(reading, current) + _double_count(reading, campaign)
            + _before_its_tiers(reading, campaign))


def check_readings(readings: Sequence[Reading], campaign: Campaign, *, now: datetime) -> list[list[Problem]]:
    """check_reading of each reading against the same campaign (an import of thousands of rows)."""
    baselines = newest_baselines(campaign.measurements)
    return [check_reading(r, campaign, now=now, baselines=baselines) for r in readings]


def value_errors(reading: Reading, now: datetime) -> list[Problem]:
    """The errors a reading has on its own, whatever the campaign (its regime may not even exist)."""
    value, metric = reading.value, METRICS.get(reading.metric)
    out = []
    if not math.isfinite(value):
        out.append(Problem("value", "must be a finite number", False))
    elif metric is not None and (value < 0 or (value == 0 and not metric.zero_allowed)):
        out.append(Problem("value", f"{metric.label} must be {'at least' if metric.zero_allowed else 'greater than'} 0",
                           False))
    elif metric is not None and metric.maximum is not None and value > metric.maximum:
        out.append(Problem("value", f"{metric.label} is at most {metric.maximum:g} {metric.unit}", False))
    if reading.measured_at > now + FUTURE_TOLERANCE:
        out.append(Problem("measured_at", f"{reading.measured_at:%Y-%m-%d %H:%M} UTC lies in the future", False))
    return out


def _ceiling(reading: Reading, campaign: Campaign) -> list[Problem]:
    if reading.metric != THROUGHPUT_METRIC:
        return []
    floor = campaign.floor_of(reading.regime)
    ceiling = campaign.ceiling_of(reading.regime)
    if ceiling is None:
        return []
    drafts = [
        need(e.spec, "the speculative decoding").draft_tokens for i in campaign.interventions if i.key in reading.includes
        for e in i.effects if rule_of(e.kind).tokens and e.applies_to(reading.regime)
    ]
    if drafts and floor is not None:  # every draft accepted: g + 1 tokens a step at the cost of verifying them
        g = max(drafts)
        ceiling = floor.ceiling_tok_s(g + 1, g + 1)
    if reading.value <= ceiling:
        return []
    return [Problem("value", f"{reading.value:,.4g} tok/s {ABOVE_CEILING} "
                             f"({ceiling:,.0f} tok/s): check the value and the specs", True)]


def _jump(reading: Reading, current: Measurement | None) -> list[Problem]:
    if current is None or current.value <= 0 or reading.value <= 0:
        return []
    ratio = reading.value / current.value
    if 1 / ABSURD_FACTOR <= ratio <= ABSURD_FACTOR:
        return []
    times = f"{ratio:,.3g} times" if ratio > 1 else f"1/{1 / ratio:,.3g} of"
    return [Problem("value", f"{times} {OFF_BASELINE}{current.value:,.4g}, "
                             f"{current.measured_at:%Y-%m-%d}): check the value and its unit", True)]


def out_of_line(confirmed: str) -> bool:
    """Whether a run was recorded over a warning that its value does not belong with the campaign's runs (above
    the hardware ceiling, ABSURD_FACTOR from the baseline, imported from a file that names another model, GPU or
    engine than the campaign's): such a run judges gates, but calibration leaves it out.
    A warning of another kind (a date before the tiers, a kind) says nothing of the value."""
    return any(words in confirmed for words in (ABOVE_CEILING, OFF_BASELINE, OTHER_SETUP))


def _before_its_tiers(reading: Reading, campaign: Campaign) -> list[Problem]:
    """A gate check older than the start of every tier whose gates judge its regime and metric decides none of
    them (a gate counts the runs since its tier started): a wrong date, most likely."""
    if reading.kind is not MeasurementKind.GATE_CHECK:
        return []
    starts = {t.key: t.started_at for t in campaign.tiers}
    judged = [starts.get(g.tier_key) for g in campaign.gates if g.regime == reading.regime and g.metric == reading.metric]
    started = [at for at in judged if at is not None]
    if not started or any(at < reading.measured_at for at in started):
        return []
    first = min(started)
    return [Problem("measured_at", f"dated {reading.measured_at:%Y-%m-%d %H:%M} UTC, before the tiers whose gates "
                                   f"judge it started ({first:%Y-%m-%d}): a gate counts only the runs since, so "
                                   "this gate check decides none. Correct the date, or confirm", True)]


def _double_count(reading: Reading, campaign: Campaign) -> list[Problem]:
    if reading.kind is not MeasurementKind.BASELINE or reading.metric != THROUGHPUT_METRIC:
        return []  # only a throughput baseline starts a projection
    tiers = {t.key: t for t in campaign.tiers}
    out = []
    for gate in campaign.gates:
        tier = tiers.get(gate.tier_key)
        if gate.regime != reading.regime or gate.metric != reading.metric or tier is None or tier.started_at is None:
            continue
        if reading.measured_at <= tier.started_at or not single_run_passes(gate, tier, reading.value,
                                                                            campaign.measurements):
            continue
        missing = [i.key for i in campaign.interventions
                   if i.tier_key == tier.key and i.status is not Status.REJECTED and i.key not in reading.includes]
        if missing:
            out.append(Problem("kind", (
                f"{reading.value:,.4g} passes the gate of tier {tier.key} ({describe(gate)}) but does "
                f"not include {', '.join(missing)}: as a baseline the plan would add "
                f"{'them' if len(missing) > 1 else 'it'} again on top. Record it as a gate check, tick what it "
                "includes, or confirm"), True))
            break
    return out

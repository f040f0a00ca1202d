"""What a measured value must be to be stored, and what needs the user to confirm it."""

from datetime import datetime, timedelta

import pytest

from tests.factories import make_campaign, make_intervention, make_measurement, make_regime, make_tier, step_effect
from tierplan.planning.checks import Reading, check_reading
from tierplan.planning.model import Comparator, Gate, MeasurementKind, Status

NOW = datetime(2026, 12, 1, 12)


def campaign(**overrides):
    tier = make_tier("A", 1, started_at=datetime(2026, 11, 16))
    gate = Gate("A", "batch 1", "output_tok_s", Comparator.AT_LEAST, 40.0)
    values = {"regimes": [make_regime()], "interventions": [make_intervention("A1", step_effect(4, "batch 1"))],
                  "tiers": (tier,), "gates": (gate,), "measurements": (make_measurement(10, datetime(2026, 11, 1)),)}
    values.update(overrides)
    base = make_campaign(**values)
    from dataclasses import replace

    return replace(base, ceilings_tok_s=(("batch 1", 500.0),))


def problems(value, metric="output_tok_s", kind=MeasurementKind.GATE_CHECK, includes=(), at=NOW, **overrides):
    return check_reading(Reading("batch 1", metric, value, at, kind, frozenset(includes)), campaign(**overrides), now=NOW)


@pytest.mark.parametrize("value, message", [
    (float("nan"), "must be a finite number"), (float("inf"), "must be a finite number"),
    (0.0, "output throughput must be greater than 0"), (-3.0, "output throughput must be greater than 0"),
])
def test_values_that_cannot_be_are_errors(value, message):
    (problem,) = problems(value)
    assert problem.field == "value" and message in problem.message and not problem.confirmable


def test_a_spread_may_be_zero_and_a_percentage_tops_out_at_100():
    assert problems(0.0, metric="std_tpot_ms") == []
    (problem,) = problems(101.0, metric="spec_decode_acceptance_rate")
    assert "at most 100 %" in problem.message


def test_a_date_more_than_a_day_ahead_is_an_error():
    (problem,) = problems(12.0, at=NOW + timedelta(days=2))
    assert problem.field == "measured_at" and not problem.confirmable
    assert problems(12.0, at=NOW + timedelta(hours=3)) == []


def test_1e308_is_above_the_ceiling_and_far_from_the_baseline_both_for_the_user_to_confirm():
    found = problems(1e308)
    assert [p.confirmable for p in found] == [True, True]
    assert "above the hardware ceiling of this regime (500 tok/s)" in found[0].message
    assert "times the current baseline (10, 2026-11-01)" in found[1].message


def test_a_tenth_of_the_baseline_is_flagged_too():
    (problem,) = problems(0.5)
    assert "1/20 of the current baseline" in problem.message


def test_a_gate_passing_baseline_without_its_tier_is_flagged_at_the_kind_field():
    (problem,) = problems(45.0, kind=MeasurementKind.BASELINE)
    assert problem.field == "kind" and problem.confirmable and "does not include A1" in problem.message
    assert "(output throughput >= 40 tok/s)" in problem.message  # the metric in words, the threshold with its unit
    assert problems(45.0, kind=MeasurementKind.BASELINE, includes={"A1"}) == []
    assert problems(45.0, kind=MeasurementKind.GATE_CHECK) == []
    rejected = [make_intervention("A1", step_effect(4, "batch 1"), status=Status.REJECTED)]
    assert problems(45.0, kind=MeasurementKind.BASELINE, interventions=rejected) == []


def test_a_gate_check_below_the_gate_and_a_baseline_before_the_tier_started_are_fine():
    assert problems(30.0, kind=MeasurementKind.BASELINE) == []
    assert problems(45.0, kind=MeasurementKind.BASELINE, at=datetime(2026, 11, 10)) == []

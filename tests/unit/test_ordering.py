"""Suggested order, overlaps, effort bands, what-if curves and calibration."""

import math
from dataclasses import replace
from datetime import datetime

import pytest

from tests.factories import bucket_effect, make_campaign, make_intervention, make_measurement, make_regime, step_effect
from tierplan.planning.calibration import calibrate
from tierplan.planning.checks import ABOVE_CEILING
from tierplan.planning.model import EffectKind, Profile, Status, ThreePoint
from tierplan.planning.tiering import effort_band, suggest_order
from tierplan.planning.whatif import what_if


def test_the_best_gain_per_day_comes_first():
    regime = make_regime(shares={"attention": 0.5, "moe": 0.5})
    slow = make_intervention("SLOW", bucket_effect("attention", 10.0), effort_days=ThreePoint(20, 20, 20))
    quick = make_intervention("QUICK", bucket_effect("moe", 1.5), effort_days=ThreePoint(1, 1, 1))
    order = suggest_order(make_campaign([regime], [slow, quick]))
    assert [p.key for p in order.picks] == ["QUICK", "SLOW"]
    # QUICK alone: 1 / (0.5 + 0.5/1.5) = 1.2x
    assert order.picks[0].gain == pytest.approx(1.2)
    assert order.picks[1].cumulative_days == 21


def test_gains_are_recomputed_after_each_pick():
    regime = make_regime(shares={"attention": 0.8, "other": 0.2})
    first = make_intervention("X1", bucket_effect("attention", 4.0), effort_days=ThreePoint(1, 1, 1))
    second = make_intervention("X2", bucket_effect("attention", 4.0), effort_days=ThreePoint(1, 1, 1))
    picks = suggest_order(make_campaign([regime], [first, second])).picks
    # first: 1 / (0.2 + 0.2) = 2.5x; second on what is left: 0.4 -> 0.25, 1.6x
    assert [round(p.gain, 4) for p in picks] == [2.5, 1.6]


def test_prerequisites_are_respected_and_missing_ones_reported():
    regime = make_regime()
    base = make_intervention("A1", bucket_effect("moe", 1.1), effort_days=ThreePoint(10, 10, 10))
    needs = make_intervention("A2", step_effect(3.0, "batch 1"), prerequisites=("A1",))
    orphan = make_intervention("A3", step_effect(3.0, "batch 1"), prerequisites=("Z9",))
    order = suggest_order(make_campaign([regime], [base, needs, orphan]))
    assert [p.key for p in order.picks] == ["A1", "A2"]
    assert order.blocked == (("A3", "needs Z9, which no intervention is called"),)


def test_interventions_on_the_same_bucket_are_flagged():
    b1 = make_intervention("B1", bucket_effect("attention", 2.5))
    c1 = make_intervention("C1", bucket_effect("attention", 1.2))
    b2 = make_intervention("B2", bucket_effect("moe", 2.0))
    order = suggest_order(make_campaign([make_regime()], [b1, c1, b2]))
    assert order.overlaps == (("attention", ("B1", "C1")),)


def test_effort_bands():
    assert effort_band(2) == ("A", "days")
    assert effort_band(15) == ("B", "weeks")
    assert effort_band(60) == ("C", "months")


def test_what_if_curves_answer_coz_question():
    curves = what_if(Profile.of({"attention": 0.63, "moe": 0.37}))
    attention = curves[0]
    assert attention.bucket == "attention"
    assert dict(attention.end_to_end)[3.0] == pytest.approx(1 / 0.58)
    assert attention.limit == pytest.approx(1 / 0.37)
    assert dict(curves[1].end_to_end)[math.inf] == pytest.approx(1 / 0.63)


def test_calibration_compares_predicted_and_measured_gain():
    regime = make_regime()
    landed = make_intervention("A1", step_effect(2.0, "batch 1"), status=Status.LANDED,
                               started_at=datetime(2026, 11, 10), landed_at=datetime(2026, 11, 20))
    measurements = (make_measurement(10, datetime(2026, 11, 1)),
                    make_measurement(15, datetime(2026, 11, 21), includes={"A1"}))
    summary = calibrate(make_campaign([regime], [landed], measurements=measurements))
    point = summary.points[0]
    assert point.key == "A1"
    assert (point.predicted_gain, point.measured_gain) == (pytest.approx(2.0), pytest.approx(1.5))
    assert summary.bias == pytest.approx(0.75)
    assert summary.realised == pytest.approx(math.log(1.5) / math.log(2))


def test_calibration_pairs_measurements_by_what_they_include_not_by_dates():
    regime = make_regime()
    a1 = make_intervention("A1", step_effect(2.0, "batch 1"))
    a2 = make_intervention("A2", step_effect(1.5, "batch 1"))
    measurements = (
        make_measurement(10, datetime(2026, 11, 1)),
        make_measurement(19, datetime(2026, 11, 5), includes={"A1"}),
        make_measurement(30, datetime(2026, 11, 9), includes={"A1", "A2"}),
    )
    points = calibrate(make_campaign([regime], [a1, a2], measurements=measurements)).points
    assert [(p.key, round(p.measured_gain, 3), p.predicted_gain) for p in points] == [
        ("A1", 1.9, pytest.approx(2.0)), ("A2", round(30 / 19, 3), pytest.approx(1.5))]


def test_calibration_waits_for_a_measurement_that_includes_the_landed_work():
    landed = make_intervention("A1", step_effect(2.0, "batch 1"), status=Status.LANDED,
                               landed_at=datetime(2026, 11, 20))
    after_but_without = make_measurement(11, datetime(2026, 11, 21))  # taken after it landed, but says not with it
    summary = calibrate(make_campaign([make_regime()], [landed],
                                      measurements=(make_measurement(10, datetime(2026, 11, 1)), after_but_without)))
    assert summary.bias is None and summary.points[0].reason == "no throughput measurement includes it yet"


def test_measured_changes_that_miss_widen_the_model_error_and_hits_narrow_it():
    regime = make_regime()
    a1 = make_intervention("A1", step_effect(2.0, "batch 1"))
    before = make_measurement(10, datetime(2026, 11, 1))
    missed = calibrate(make_campaign([regime], [a1], measurements=(
        before, make_measurement(12, datetime(2026, 11, 5), includes={"A1"}))))
    hit = calibrate(make_campaign([regime], [a1], measurements=(
        before, make_measurement(20, datetime(2026, 11, 5), includes={"A1"}))))
    # predicted 2x with sigma 0.25 x ln 2 = 0.173 on ln(gain); measured 1.2x is z = ln(0.6) / 0.173 = -2.95
    assert missed.error_scale == pytest.approx(math.sqrt((4 + (math.log(0.6) / (0.25 * math.log(2))) ** 2) / 5))
    assert missed.error_scale > 1 > hit.error_scale
    assert hit.error_scale == pytest.approx(math.sqrt(4 / 5))


def test_one_outlier_pair_moves_the_bands_by_a_bounded_factor_and_is_named():
    """A gate check from another setup marked as including A1: 100x measured where 2x was predicted."""
    regime = make_regime()
    a1 = make_intervention("A1", step_effect(2.0, "batch 1"))
    summary = calibrate(make_campaign([regime], [a1], measurements=(
        make_measurement(10, datetime(2026, 11, 1)), make_measurement(1000, datetime(2026, 11, 5), includes={"A1"}))))
    point = summary.points[0]
    assert point.z == pytest.approx(math.log(50) / (0.25 * math.log(2)))  # about 22.6 sigma
    assert point.outlier and summary.error_scale == pytest.approx(math.sqrt((4 + 3**2) / 5))  # 1.61x, not 10x
    assert point.moves_scale == pytest.approx(summary.error_scale)  # without it the priors stay as stated
    assert summary.realised == pytest.approx(3.0)  # bounded: not 664% of the predicted log-gain


def test_without_an_outlier_the_realised_share_is_measured_over_predicted_log_gain():
    regime = make_regime()
    a1 = make_intervention("A1", step_effect(2.0, "batch 1"))
    summary = calibrate(make_campaign([regime], [a1], measurements=(
        make_measurement(10, datetime(2026, 11, 1)), make_measurement(15, datetime(2026, 11, 5), includes={"A1"}))))
    assert summary.realised == pytest.approx(math.log(1.5) / math.log(2))
    assert not summary.points[0].outlier


def test_a_pair_with_a_run_recorded_over_a_value_warning_calibrates_nothing_and_says_why():
    regime = make_regime()
    a1 = make_intervention("A1", step_effect(2.0, "batch 1"))
    warned = f"30 tok/s {ABOVE_CEILING} (25 tok/s): check the value and the specs"
    flagged = replace(make_measurement(30, datetime(2026, 11, 5), includes={"A1"}), confirmed=warned)
    summary = calibrate(make_campaign([regime], [a1], measurements=(make_measurement(10, datetime(2026, 11, 1)),
                                                                    flagged)))
    point = summary.points[0]
    assert point.measured_gain is None and summary.bias is None and summary.error_points == 0
    assert point.reason == f"left out: the newer run was recorded over a warning ({warned})"
    dated = replace(flagged, confirmed="dated 2026-11-05 00:00 UTC, before the tiers whose gates it would judge")
    counted = calibrate(make_campaign([regime], [a1], measurements=(make_measurement(10, datetime(2026, 11, 1)),
                                                                    dated)))
    assert counted.bias == pytest.approx(1.5)  # a warning about its date says nothing of its value


def test_a_kind_with_three_measured_changes_of_its_own_gets_its_own_scale():
    """Three step effects that each missed (predicted 2x, measured 1.2x) widen the whole-step prior on their own;
    a bucket effect with no measured change keeps the campaign-wide scale."""
    regime = make_regime()
    keys = ("A1", "A2", "A3")
    interventions = [make_intervention(k, step_effect(2.0, "batch 1")) for k in keys]
    runs = [make_measurement(10 * 1.2**n, datetime(2026, 11, 1 + n), includes=set(keys[:n])) for n in range(4)]
    summary = calibrate(make_campaign([regime], interventions, measurements=tuple(runs)))
    z = math.log(0.6) / (0.25 * math.log(2))
    assert [(kind, pairs) for kind, _, pairs in summary.kind_scales] == [(EffectKind.STEP, 3)]
    assert summary.kind_scales[0][1] == pytest.approx(math.sqrt((4 + 3 * min(z * z, 9)) / 7))
    assert all(p.kind is EffectKind.STEP for p in summary.points)

"""Capacity at SLO on load points whose answer is worked out by hand."""

from tierplan.planning.capacity import LoadPoint, capacity, projected_values
from tierplan.planning.model import Comparator, Objective
from tierplan.planning.projection import Step, Verdict

TTFT = Objective("p99_ttft_ms", Comparator.AT_MOST, 2000.0)
TPOT = Objective("median_tpot_ms", Comparator.AT_MOST, 50.0)


def point(c, tok_s, ttft, tpot):
    return LoadPoint(f"c{c}", c, {"output_tok_s": tok_s, "p99_ttft_ms": ttft, "median_tpot_ms": tpot})


def test_the_highest_concurrency_meeting_every_objective():
    points = [point(32, 900, 2400, 45), point(1, 40, 300, 24), point(8, 300, 900, 31), point(16, 520, 1500, 38)]
    found = capacity(points, [TTFT, TPOT])
    assert (found.concurrency, found.regime, found.goodput_tok_s) == (16, "c16", 520)
    assert found.next_miss.point.concurrency == 32 and found.next_miss.misses[0][0] is TTFT
    assert found.below_misses == ()


def test_a_missing_metric_is_not_a_pass_and_no_point_meeting_says_so():
    unknown = LoadPoint("c4", 4, {"p99_ttft_ms": 500})
    found = capacity([unknown, point(8, 300, 2500, 30)], [TTFT, TPOT])
    assert found.concurrency is None and found.checks[0].meets is None and found.checks[0].unknown == ("median_tpot_ms",)
    assert found.next_miss.point.concurrency == 8


def test_a_miss_below_the_capacity_is_reported():
    found = capacity([point(4, 100, 2100, 20), point(8, 200, 1900, 30)], [TTFT])
    assert found.concurrency == 8 and [c.point.concurrency for c in found.below_misses] == [4]


def _step(step_rel, gain, tok_s=None):
    return Step("A", step_rel, gain, None, tok_s, (), "other", Verdict(None, None))


def test_projected_values_follow_the_gain_and_keep_ttft():
    baseline = _step(1.0, 1.0)
    after = _step(0.5, 2.0)  # half the step, twice the tokens a second
    values = {"output_tok_s": 100.0, "median_tpot_ms": 40.0, "p99_itl_ms": 60.0, "p99_ttft_ms": 900.0,
              "p99_e2el_ms": 9000.0}
    projected = projected_values(values, baseline, after, ceiling_tok_s=150.0)
    assert projected == {"output_tok_s": 150.0, "median_tpot_ms": 20.0, "p99_itl_ms": 30.0, "p99_ttft_ms": 900.0}

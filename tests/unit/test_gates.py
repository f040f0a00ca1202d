from datetime import datetime

import pytest

from tests.factories import make_gate, make_measurement, make_tier
from tierplan.planning.gates import GateStatus, evaluate_gate, tier_validated
from tierplan.planning.model import Comparator, PlanningError, Severity
from tierplan.planning.stats import Aggregation

STARTED = datetime(2026, 11, 16)


def test_a_gate_is_pending_before_its_tier_starts():
    result = evaluate_gate(make_gate(), make_tier(started_at=None), [make_measurement(50, datetime(2026, 11, 20))])
    assert result.status is GateStatus.PENDING


def test_a_gate_is_pending_without_a_measurement_after_the_start():
    result = evaluate_gate(make_gate(), make_tier(started_at=STARTED), [make_measurement(50, datetime(2026, 11, 1))])
    assert result.status is GateStatus.PENDING


def test_the_newest_measurement_after_the_start_decides():
    measurements = [make_measurement(45, datetime(2026, 11, 18)), make_measurement(38, datetime(2026, 11, 20))]
    result = evaluate_gate(make_gate(threshold=40), make_tier(started_at=STARTED), measurements)
    assert result.status is GateStatus.FAIL
    assert result.evidence.value == 38


def test_a_latency_gate_passes_at_or_below_its_threshold():
    gate = make_gate(metric="tpot_ms", comparator=Comparator.AT_MOST, threshold=25)
    measurements = [make_measurement(25, datetime(2026, 11, 18), metric="tpot_ms")]
    assert evaluate_gate(gate, make_tier(started_at=STARTED), measurements).status is GateStatus.PASS


def test_measurements_of_other_regimes_or_metrics_do_not_count():
    measurements = [
        make_measurement(90, datetime(2026, 11, 18), regime="concurrency 16"),
        make_measurement(90, datetime(2026, 11, 18), metric="ttft_ms"),
    ]
    assert evaluate_gate(make_gate(), make_tier(started_at=STARTED), measurements).status is GateStatus.PENDING


# gates that know about noise

def _runs(values, start=datetime(2026, 11, 17), regime="batch 1", metric="output_tok_s"):
    return [make_measurement(v, start.replace(day=start.day + i), regime=regime, metric=metric)
            for i, v in enumerate(values)]


def _median(**overrides):
    values = {"aggregation": Aggregation.MEDIAN, "window": 5, "min_samples": 3}
    values.update(overrides)
    return make_gate(**values)


def test_too_few_runs_is_inconclusive_never_pass():
    result = evaluate_gate(_median(threshold=40), make_tier(started_at=STARTED), _runs([90, 95]))
    assert result.status is GateStatus.INCONCLUSIVE
    assert "2 of the 3 runs" in result.reason


def test_the_median_of_runs_all_above_the_threshold_passes():
    result = evaluate_gate(_median(threshold=40), make_tier(started_at=STARTED), _runs([44, 47, 45, 46]))
    assert result.status is GateStatus.PASS
    assert result.criteria[0].statistic == 45.5
    assert len(result.samples) == 4


def test_an_interval_straddling_the_threshold_is_inconclusive():
    result = evaluate_gate(_median(threshold=40), make_tier(started_at=STARTED), _runs([36, 44, 38, 43, 41]))
    assert result.status is GateStatus.INCONCLUSIVE
    low, high = result.criteria[0].interval
    assert low < 40 < high


def test_the_window_keeps_the_last_runs():
    runs = _runs([10, 10, 10, 50, 51, 52])
    result = evaluate_gate(_median(threshold=40, window=3), make_tier(started_at=STARTED), runs)
    assert [m.value for m in result.samples] == [50, 51, 52]
    assert result.status is GateStatus.PASS


def test_a_relative_gate_compares_with_the_runs_before_the_tier_started():
    before = _runs([100, 102, 98, 101], start=datetime(2026, 11, 1))
    after = _runs([135, 138, 136, 137])
    gate = _median(threshold=None, relative_pct=30)
    result = evaluate_gate(gate, make_tier(started_at=STARTED), before + after)
    assert result.status is GateStatus.PASS
    assert [m.value for m in result.reference] == [100, 102, 98, 101]
    assert abs(result.criteria[0].statistic - 136.5 / 100.5) < 1e-12
    assert evaluate_gate(_median(threshold=None, relative_pct=40), make_tier(started_at=STARTED),
                         before + after).status is GateStatus.FAIL


def test_a_relative_gate_names_its_reference_regime():
    before = _runs([20, 21, 19], start=datetime(2026, 11, 1), regime="batch 1")
    after = _runs([30, 31, 29], regime="concurrency 16")
    gate = _median(regime="concurrency 16", threshold=None, relative_pct=30, reference_regime="batch 1")
    result = evaluate_gate(gate, make_tier(started_at=STARTED), before + after)
    assert result.status is GateStatus.PASS


def test_a_relative_gate_without_baseline_runs_is_inconclusive():
    gate = _median(threshold=None, relative_pct=30)
    result = evaluate_gate(gate, make_tier(started_at=STARTED), _runs([135, 138, 136]))
    assert result.status is GateStatus.INCONCLUSIVE
    assert "no baseline run of batch 1" in result.reason


def test_noisy_overlapping_samples_leave_a_relative_gate_inconclusive():
    before = _runs([100, 130, 90, 120], start=datetime(2026, 11, 1))
    after = _runs([125, 150, 115, 160])
    result = evaluate_gate(_median(threshold=None, relative_pct=20), make_tier(started_at=STARTED), before + after)
    assert result.status is GateStatus.INCONCLUSIVE


def test_a_failing_warn_gate_warns_and_does_not_block_the_tier():
    gate = make_gate(threshold=40, severity=Severity.WARN)
    hard = make_gate(threshold=30)
    runs = _runs([35])
    results = [evaluate_gate(g, make_tier(started_at=STARTED), runs) for g in (gate, hard)]
    assert [r.status for r in results] == [GateStatus.WARN, GateStatus.PASS]
    assert tier_validated("A", results)
    assert not tier_validated("A", results[:1])  # no hard gate: nothing validates the tier


def test_both_thresholds_must_hold():
    before = _runs([100, 100, 100], start=datetime(2026, 11, 1))
    after = _runs([140, 140, 140])
    gate = _median(threshold=150, relative_pct=30)
    result = evaluate_gate(gate, make_tier(started_at=STARTED), before + after)
    assert [c.verdict for c in result.criteria] == [GateStatus.FAIL, GateStatus.PASS]
    assert result.status is GateStatus.FAIL


def test_a_gate_refuses_impossible_settings_naming_the_field():
    with pytest.raises(PlanningError) as no_threshold:
        make_gate(threshold=None)
    assert no_threshold.value.field == "threshold"
    with pytest.raises(PlanningError) as newest:
        make_gate(min_samples=3)
    assert newest.value.field == "aggregation"
    with pytest.raises(PlanningError) as window:
        make_gate(aggregation=Aggregation.MEAN, window=2, min_samples=3)
    assert window.value.field == "window"

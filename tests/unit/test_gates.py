from datetime import datetime

from app.planning.gates import GateStatus, evaluate_gate
from app.planning.model import Comparator
from tests.factories import make_gate, make_measurement, make_tier

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

"""P(gate passes), from the same Monte Carlo samples as the bands."""

import pytest

from tests.factories import make_regime
from tierplan.planning.gate_chances import chances, threshold_of
from tierplan.planning.model import Campaign, Comparator, Effect, EffectKind, Gate, Intervention, ThreePoint, Tier
from tierplan.planning.uncertainty import simulate

REGIME = make_regime(shares={"attention": 1.0}, baseline_tok_s=10.0, concurrency=4)


def campaign(*gates: Gate) -> Campaign:
    twice = Effect(EffectKind.BUCKET, bucket="attention", speedup=ThreePoint(1.5, 2.0, 3.0))
    return Campaign((REGIME,), (Tier("A", "A", 1),),
                    (Intervention("A1", "kernel", ThreePoint(1, 1, 1), tier_key="A", effects=(twice,)),), gates=gates)


def gate(metric="output_tok_s", comparator=Comparator.AT_LEAST, threshold=None, relative_pct=None) -> Gate:
    return Gate("A", "batch 1", metric, comparator, threshold=threshold, relative_pct=relative_pct)


def judged(*gates: Gate):
    c = campaign(*gates)
    simulation = simulate(c, samples=20_000, seed=3)
    return chances(c, simulation), simulation.of("batch 1")[0]


def test_a_gate_the_plan_cannot_reach_has_a_small_chance_and_one_below_its_band_a_large_one():
    found, band = judged(gate(threshold=40.0), gate(threshold=15.0))
    assert found[0].p_pass < 0.001 and found[0].projected_p50 == pytest.approx(band.p50_tok_s)
    assert found[1].p_pass > 0.9


def test_the_chance_is_read_from_the_band_s_own_samples():
    _, band = judged()
    at_p10, _ = judged(gate(threshold=band.p10_tok_s))
    at_p50, _ = judged(gate(threshold=band.p50_tok_s))
    assert at_p10[0].p_pass == pytest.approx(0.9, abs=0.005)
    assert at_p50[0].p_pass == pytest.approx(0.5, abs=0.005)


def test_time_per_output_token_is_concurrency_over_throughput():
    _, band = judged()
    tpot_at_p50 = 4 * 1000 / band.p50_tok_s  # 4 sequences: ms a token each
    found, _ = judged(gate(metric="tpot_ms", comparator=Comparator.AT_MOST, threshold=tpot_at_p50),
                      gate(metric="tpot_ms", comparator=Comparator.AT_MOST, threshold=4 * 1000 / band.p90_tok_s))
    assert found[0].p_pass == pytest.approx(0.5, abs=0.005) and found[0].projected_p50 == pytest.approx(tpot_at_p50)
    assert found[1].p_pass == pytest.approx(0.1, abs=0.005)


def test_a_relative_gate_is_judged_against_its_reference_baseline():
    assert threshold_of(gate(relative_pct=50.0), campaign()) == pytest.approx(15.0)  # 1.5x the 10 tok/s baseline
    assert threshold_of(gate(relative_pct=50.0, threshold=18.0), campaign()) == pytest.approx(18.0)  # the stricter


def test_a_gate_on_a_metric_without_a_projection_has_no_chance():
    found, _ = judged(gate(metric="p99_ttft_ms", comparator=Comparator.AT_MOST, threshold=100.0))
    assert found == {}

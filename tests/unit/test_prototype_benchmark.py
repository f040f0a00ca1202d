"""Evidence from a prototype's benchmark: the share of the entered log-gain its throughput realised, carried to the
other regimes through each one's own profile."""

import math
from dataclasses import replace

import pytest

from tierplan.planning.model import (
    Campaign,
    Effect,
    EffectKind,
    Intervention,
    PlanningError,
    Profile,
    Regime,
    ThreePoint,
    Tier,
)
from tierplan.planning.projection import context_of, project_regime
from tierplan.planning.prototype_benchmark import Benchmark, benchmark_problem, fit, gain, sized_by_benchmarks
from tierplan.planning.uncertainty import simulate

# a split-K attention kernel entered at 3x on attention; attention is 50% of batch 1's step, 20% of batch 64's
KERNEL = Intervention("A1", "split-K attention", ThreePoint(2, 3, 5), tier_key="A", effects=(
    Effect(EffectKind.BUCKET, bucket="attention", speedup=ThreePoint(2, 3, 4)),))
BATCH_1 = Regime("batch 1", 1, 1e6, baseline_tok_s=100.0,
                 profile=Profile.of({"attention": 0.5, "dense_gemm": 0.5}))
BATCH_64 = Regime("batch 64", 64, 1e6, baseline_tok_s=3200.0,
                  profile=Profile.of({"attention": 0.2, "dense_gemm": 0.8}))
CAMPAIGN = Campaign((BATCH_1, BATCH_64), (Tier("A", "A", 1),), (KERNEL,))


def test_the_share_reproduces_the_prototype_s_throughput_where_it_ran():
    """Entered: 1 / (0.5 + 0.5 / 3) = 1.5x. The prototype measured 125 tok/s, 1.25x: the attention bucket sped up
    by s with 0.5 + 0.5 / s = 0.8, s = 5/3, and s = 3^share, share = ln(5/3) / ln 3."""
    found = fit(KERNEL, BATCH_1, context_of(BATCH_1, CAMPAIGN), 125.0, "proto.json")
    assert found.entered_gain == pytest.approx(1.5)
    assert found.measured_gain == pytest.approx(1.25)
    assert found.realised == pytest.approx(math.log(5 / 3) / math.log(3), rel=1e-9)
    assert not found.clamped
    assert gain(KERNEL, BATCH_1, context_of(BATCH_1, CAMPAIGN), found.realised) == pytest.approx(1.25)


def test_the_share_is_carried_to_each_regime_through_its_own_profile():
    sized = sized_by_benchmarks(CAMPAIGN, {"A1": (Benchmark("batch 1", 125.0, "proto.json"),)})
    assert project_regime(sized.regimes[0], sized).final.tok_s == pytest.approx(125.0)
    # batch 64: attention 20% at the same 5/3: 1 / (0.8 + 0.2 * 0.6) = 1.087x of 3200
    assert project_regime(sized.regimes[1], sized).final.tok_s == pytest.approx(3200 / (0.8 + 0.2 * 0.6))
    # without the benchmark, batch 64 would be planned at the entered 3x: 1 / (0.8 + 0.2 / 3)
    assert project_regime(BATCH_64, CAMPAIGN).final.tok_s == pytest.approx(3200 / (0.8 + 0.2 / 3))


def test_the_bands_use_the_share_too():
    sized = sized_by_benchmarks(CAMPAIGN, {"A1": (Benchmark("batch 1", 125.0, "proto.json"),)})
    p50 = dict(simulate(sized, samples=2000).regimes)["batch 1"][-1].p50_tok_s
    entered = dict(simulate(CAMPAIGN, samples=2000).regimes)["batch 1"][-1].p50_tok_s
    assert p50 < entered
    assert p50 == pytest.approx(125.0, rel=0.05)  # the input spread is the entered one, scaled by the share


def test_a_prototype_slower_than_the_baseline_plans_no_gain_and_says_the_share_stopped():
    found = fit(KERNEL, BATCH_1, context_of(BATCH_1, CAMPAIGN), 90.0, "proto.json")
    assert found.realised == 0 and found.clamped
    way_above = fit(KERNEL, BATCH_1, context_of(BATCH_1, CAMPAIGN), 199.0, "proto.json")
    assert way_above.realised == 4.0 and way_above.clamped  # 3^4 on half the step: 1.975x at most


def test_a_benchmark_where_the_effects_do_not_act_or_without_a_baseline_cannot_size_them():
    only_64 = Intervention("A1", "k", ThreePoint(1, 1, 1), tier_key="A", effects=(
        Effect(EffectKind.BUCKET, bucket="attention", speedup=ThreePoint(2, 3, 4), regimes=frozenset({"batch 64"})),))
    campaign = Campaign((BATCH_1, BATCH_64), (Tier("A", "A", 1),), (only_64,))
    problem = benchmark_problem(campaign, "A1", Benchmark("batch 1", 125.0, "p"))
    assert problem is not None and "A1's effects do not move batch 1's step" in problem
    no_baseline = Regime("batch 1", 1, 1e6, profile=BATCH_1.profile)
    with pytest.raises(PlanningError, match="no baseline throughput"):
        fit(KERNEL, no_baseline, context_of(no_baseline, CAMPAIGN), 125.0, "p")
    # the campaign keeps the estimates where the benchmark cannot size them
    kept = sized_by_benchmarks(campaign, {"A1": (Benchmark("batch 1", 125.0, "p"),)})
    assert kept.interventions[0].realised is None and kept.interventions[0].evidence is None


def test_where_a_benchmark_ran_the_band_is_the_inputs_and_the_replay_error_alone():
    """Batch 1 measured 125 tok/s: its band keeps the entered spread (scaled by the share) and the bucket kind's
    model error up to REPLAY_SIGMA (a 1.25x move's is below it); batch 64, never benchmarked, keeps that error."""
    sized = sized_by_benchmarks(CAMPAIGN, {"A1": (Benchmark("batch 1", 125.0, "proto.json"),)})
    assert sized.interventions[0].evidence.measured_in("batch 1")
    assert not sized.interventions[0].evidence.measured_in("batch 64")
    measured = dict(simulate(sized, samples=4000).regimes)
    without = dict(simulate(replace(sized, interventions=(replace(sized.interventions[0], evidence=None),)),
                            samples=4000).regimes)

    def width(regime: str, bands) -> float:
        return bands[regime][-1].p90_tok_s / bands[regime][-1].p10_tok_s

    assert width("batch 1", measured) <= width("batch 1", without) * (1 + 1e-9)
    assert width("batch 64", measured) == pytest.approx(width("batch 64", without), rel=1e-9)

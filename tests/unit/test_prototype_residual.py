"""A CUDA-graph prototype's benchmark where the graph step is GPU-bound: the GPU time it took beyond the launch
model's projection (the residual) is GPU work the path adds, carried with the sequences in flight, or the model's own
miss when it is small; the launch cost removed holds as entered."""

import numpy as np
import pytest

from tierplan.planning.model import (
    Campaign,
    Effect,
    EffectKind,
    Intervention,
    LaunchProfile,
    PlanningError,
    Profile,
    Regime,
    ThreePoint,
    Tier,
)
from tierplan.planning.projection import context_of, project_regime
from tierplan.planning.prototype_benchmark import Benchmark, benchmark_problem, fit, sized_by_benchmarks
from tierplan.planning.prototype_residual import carried_ms, works_in
from tierplan.planning.uncertainty import pert, simulate

GRAPHS = Intervention("A1", "CUDA graphs", ThreePoint(2, 3, 5), tier_key="A", effects=(
    Effect(EffectKind.LAUNCH_OVERHEAD, removed=ThreePoint(0.97, 0.97, 0.97)),))
# eager steps that wait for the host: 400 launches; GPU busy 2 ms of 10 at batch 1, 3.6 ms of 12 at batch 8, plus a
# 0.5 us gap an item (0.2 ms)
BATCH_1 = Regime("batch 1", 1, 1e6, baseline_tok_s=100.0, step_ms=10.0, profile=Profile.of(
    {"attention": 0.05, "dense_gemm": 0.15, "host_overhead": 0.8}, LaunchProfile(400, 400, 10.0, 0.5)))
BATCH_8 = Regime("batch 8", 8, 1e6, baseline_tok_s=8000 / 12, step_ms=12.0, profile=Profile.of(
    {"attention": 0.1, "dense_gemm": 0.2, "host_overhead": 0.7}, LaunchProfile(400, 400, 12.0, 0.5)))
CAMPAIGN = Campaign((BATCH_1, BATCH_8), (Tier("A", "A", 1),), (GRAPHS,))


def step_ms(campaign: Campaign, regime: int) -> float:
    return 1000 * campaign.regimes[regime].concurrency / project_regime(campaign.regimes[regime], campaign).final.tok_s


def test_the_launch_model_alone_projects_the_gpu_side():
    """Host 8 ms a step x 3% left = 0.24 ms; the GPU side binds: 2.2 ms at batch 1, 3.8 ms at batch 8."""
    assert step_ms(CAMPAIGN, 0) == pytest.approx(2.2)
    assert step_ms(CAMPAIGN, 1) == pytest.approx(3.8)


def test_a_residual_beyond_the_model_s_miss_is_work_carried_with_the_sequences():
    """Measured 3.2 ms at batch 1: 1.0 ms beyond the 2.2 projected (31% of the step). Batch 8 takes 8 x 1.0 ms."""
    found = fit(GRAPHS, BATCH_1, context_of(BATCH_1, CAMPAIGN), 1000 / 3.2, "proto.json")
    assert found.residual_ms == pytest.approx(1.0)
    assert found.realised == 1.0 and found.step_ms == pytest.approx(3.2)
    sized = sized_by_benchmarks(CAMPAIGN, {"A1": (Benchmark("batch 1", 1000 / 3.2, "proto.json"),)})
    assert step_ms(sized, 0) == pytest.approx(3.2)  # the benchmark, where it ran
    assert step_ms(sized, 1) == pytest.approx(3.8 + 8.0)
    assert sized.interventions[0].realised == 1.0  # the launch cost removed holds as entered


def test_a_residual_within_the_model_s_miss_is_carried_as_it_is():
    """Measured 2.5 ms at batch 1: 0.3 ms beyond (12%), the launch model's own miss, the same at batch 8."""
    sized = sized_by_benchmarks(CAMPAIGN, {"A1": (Benchmark("batch 1", 400.0, "proto.json"),)})
    assert step_ms(sized, 0) == pytest.approx(2.5)
    assert step_ms(sized, 1) == pytest.approx(3.8 + 0.3)


def test_carried_work_grows_with_the_sequences_its_band_from_their_square_root_to_their_1_5th_power():
    def points(work: ThreePoint) -> tuple[float, float, float]:
        return work.low, work.likely, work.high

    assert points(carried_ms(1.0, 3.2, 8.0)) == pytest.approx((8 ** 0.5, 8.0, 8 ** 1.5))  # work: 1.0 ms at batch 1
    assert points(carried_ms(1.0, 3.2, 0.125)) == pytest.approx((0.125 ** 1.5, 0.125, 0.125 ** 0.5))
    assert carried_ms(0.3, 2.5, 8.0) == ThreePoint(0.0, 0.3, 0.3)  # the model's miss: none of it to all of it
    assert carried_ms(-0.3, 2.5, 8.0) == ThreePoint(-0.3, -0.3, 0.0)


@pytest.mark.parametrize("measured, carried_to", [(BATCH_1, BATCH_8), (BATCH_8, BATCH_1)])
def test_the_middle_of_a_carried_band_is_the_likely_carry_up_and_down(measured, carried_to):
    """The power is what is uncertain, so the carry is drawn on a log scale: its median is r times the residual both
    ways. Drawn in milliseconds, the longer tail on the side of the smaller power put the median of a carry down
    20% above it and of a carry up below it."""
    proto_ms = {"batch 1": 3.2, "batch 8": 3.8 + 8.0}[measured.name]  # 1.0 ms of work a sequence, as above
    sized = sized_by_benchmarks(CAMPAIGN, {"A1": (Benchmark(measured.name, measured.concurrency * 1000 / proto_ms,
                                                            "p"),)})
    work = next(e for e in sized.interventions[0].effects if e.regimes == {carried_to.name})
    assert work.log_scale and work.gpu_ms is not None
    assert work.gpu_ms.likely == pytest.approx(1.0 * carried_to.concurrency)  # 1.0 ms a sequence in flight
    at = sized.regimes.index(carried_to)
    p50_ms = 1000 * carried_to.concurrency / dict(simulate(sized, samples=8000).regimes)[carried_to.name][-1].p50_tok_s
    assert p50_ms == pytest.approx(step_ms(sized, at), rel=0.04)


def test_an_estimate_drawn_on_a_log_scale_keeps_one_sign():
    Effect(EffectKind.GPU_WORK, regimes=frozenset({"b"}), gpu_ms=ThreePoint(-4, -2, -1), log_scale=True)
    for crossing in (ThreePoint(-1, 1, 2), ThreePoint(0, 1, 2)):
        with pytest.raises(PlanningError, match="one sign"):
            Effect(EffectKind.GPU_WORK, regimes=frozenset({"b"}), gpu_ms=crossing, log_scale=True)


def test_a_log_scale_draw_of_one_factor_either_side_has_the_likely_value_for_its_median():
    rng = np.random.default_rng(1)
    draws = pert(ThreePoint(0.5, 2.0, 8.0), rng, 20_000, log_scale=True)
    assert np.median(draws) == pytest.approx(2.0, rel=0.03)
    assert draws.min() >= 0.5 and draws.max() <= 8.0
    assert np.median(pert(ThreePoint(0.5, 2.0, 8.0), rng, 20_000)) > 2.6  # in plain units, the long tail pulls it
    negative = pert(ThreePoint(-8.0, -2.0, -0.5), rng, 20_000, log_scale=True)
    assert np.median(negative) == pytest.approx(-2.0, rel=0.03) and negative.max() < 0


def test_a_small_residual_settles_the_work_only_at_as_many_sequences_or_fewer():
    regimes = (BATCH_1, BATCH_8)
    assert works_in(1.0, 3.2, BATCH_1, regimes) == {"batch 1", "batch 8"}
    assert works_in(0.3, 2.5, BATCH_1, regimes) == {"batch 1"}  # batch 8's growth may be too small to show at 1
    assert works_in(0.3, 2.5, BATCH_8, regimes) == {"batch 1", "batch 8"}


def test_the_bands_keep_the_path_prior_where_the_benchmark_cannot_see_the_work():
    """At batch 8 a small residual at batch 1 leaves the prior for a graph path's unstated GPU work in the band
    (its P90 well above the likely step), a large one replaces it."""
    small = sized_by_benchmarks(CAMPAIGN, {"A1": (Benchmark("batch 1", 400.0, "p"),)})
    large = sized_by_benchmarks(CAMPAIGN, {"A1": (Benchmark("batch 1", 1000 / 3.2, "p"),)})
    small_8 = dict(simulate(small, samples=4000).regimes)["batch 8"][-1]
    large_8 = dict(simulate(large, samples=4000).regimes)["batch 8"][-1]
    assert small_8.risk_share > 0.9  # the path prior: nearly all of the band
    assert 8000 / small_8.p10_tok_s > 2 * 4.1  # its long tail of work the path may add at batch 8
    assert large_8.risk_share < 0.2  # only the side that binds moving; the residual's spread is an input's
    assert large_8.input_share > large_8.risk_share
    assert 8000 / large_8.p50_tok_s == pytest.approx(3.8 + 8.0, rel=0.15)


def test_a_step_the_host_still_binds_is_sized_by_the_share_as_before():
    """Half the launch cost removed leaves 4 ms of host at batch 1, above the GPU side: the residual says nothing of
    GPU work there, and the share of the removal's log-gain is fitted."""
    half = Intervention("A1", "CUDA graphs", ThreePoint(1, 2, 3), tier_key="A", effects=(
        Effect(EffectKind.LAUNCH_OVERHEAD, removed=ThreePoint(0.5, 0.5, 0.5)),))
    campaign = Campaign((BATCH_1, BATCH_8), (Tier("A", "A", 1),), (half,))
    found = fit(half, BATCH_1, context_of(BATCH_1, campaign), 200.0, "p")
    assert found.residual_ms is None and 0 < found.realised < 4


def test_benchmarks_at_two_concurrencies_split_the_work_into_fixed_and_a_sequence():
    """Measured 3.2 ms at batch 1 (1.0 ms beyond the launch model) and 11.8 ms at batch 8 (8.0 ms beyond): the line
    through them is 0 ms fixed plus 1.0 ms a sequence, so batch 4, benchmarked by neither, takes 4.0 ms beyond its
    own launch-model step."""
    batch_4 = Regime("batch 4", 4, 1e6, baseline_tok_s=4000 / 11, step_ms=11.0, profile=Profile.of(
        {"attention": 0.08, "dense_gemm": 0.18, "host_overhead": 0.74}, LaunchProfile(400, 400, 11.0, 0.5)))
    campaign = Campaign((BATCH_1, batch_4, BATCH_8), (Tier("A", "A", 1),), (GRAPHS,))
    plain_4 = step_ms(campaign, 1)
    sized = sized_by_benchmarks(campaign, {"A1": (Benchmark("batch 1", 1000 / 3.2, "one.json"),
                                                  Benchmark("batch 8", 8000 / 11.8, "eight.json"))})
    assert step_ms(sized, 0) == pytest.approx(3.2)
    assert step_ms(sized, 2) == pytest.approx(11.8)
    assert step_ms(sized, 1) == pytest.approx(plain_4 + 4.0)
    evidence = sized.interventions[0].evidence
    assert evidence.source == "one.json" and [f.source for f in evidence.also] == ["eight.json"]
    assert all(evidence.says_work_in(r.name) for r in campaign.regimes)


def test_two_benchmarks_in_one_regime_size_it_by_the_newest():
    sized = sized_by_benchmarks(CAMPAIGN, {"A1": (Benchmark("batch 1", 1000 / 3.2, "old.json"),
                                                  Benchmark("batch 1", 400.0, "new.json"))})
    assert step_ms(sized, 0) == pytest.approx(2.5)
    assert sized.interventions[0].evidence.source == "new.json"


def test_a_benchmark_whose_residual_cannot_be_carried_says_why():
    """A throughput of 1e-307 tok/s: a step of 1e310 ms, past any finite estimate of the work it adds."""
    problem = benchmark_problem(CAMPAIGN, "A1", Benchmark("batch 1", 1e-307, "p"))
    assert problem is not None and "is a step too long to carry: check the regime it ran in" in problem
    kept = sized_by_benchmarks(CAMPAIGN, {"A1": (Benchmark("batch 1", 1e-307, "p"),)})
    assert kept.interventions[0].evidence is None  # the estimates entered still hold

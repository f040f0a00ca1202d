"""Bands that know where the risk is: the side that binds after an effect, and GPU work a graph path adds unsaid."""

import numpy as np
import pytest

from tierplan.planning.bottleneck_risk import STRETCH_MEDIAN, STRETCH_P90, add_path_work, draw_path_work, padding_max
from tierplan.planning.model import (
    Campaign,
    Effect,
    EffectKind,
    Intervention,
    LaunchProfile,
    Profile,
    Regime,
    ThreePoint,
    Tier,
)
from tierplan.planning.projection import project_regime
from tierplan.planning.step import StepState
from tierplan.planning.uncertainty import simulate, stream


def same(x):
    return ThreePoint(x, x, x)


def regime(attention_share: float, concurrency: int = 8) -> Regime:
    """A host-bound eager step of 10 ms: 3 ms of GPU work (attention's share of it given), 500 launches."""
    busy = 0.3
    profile = Profile.of({"attention": busy * attention_share, "dense_gemm": busy * (1 - attention_share),
                          "host_overhead": 1 - busy}, LaunchProfile(500, 500, 10.0, 0.5))
    return Regime("r", concurrency, 1e9, baseline_tok_s=concurrency * 100.0, profile=profile, step_ms=10.0)


def campaign(*effects: Effect, r: Regime | None = None) -> Campaign:
    return Campaign((r or regime(0.5),), (Tier("A", "A", 1),),
                    (Intervention("A1", "CUDA graphs", same(2), tier_key="A", effects=effects),))


GRAPHS = Effect(EffectKind.LAUNCH_OVERHEAD, removed=same(0.99))


def band(c: Campaign):
    return simulate(c, samples=20_000, seed=7).of("r")[0]


def test_graphs_that_say_nothing_of_their_gpu_work_carry_its_prior_below_the_likely_projection():
    c = campaign(GRAPHS)
    likely = project_regime(c.regimes[0], c).final.tok_s
    spread = band(c)
    # the likely projection states the team's inputs: the GPU side alone, 3 ms + 500 x 0.5 us
    assert likely == pytest.approx(8 * 1000 / 3.25)
    # the prior only adds GPU work: the band's P10 lies well below it, and the risk has its share of the band
    assert spread.p10_tok_s < 0.6 * likely and spread.p50_tok_s < likely
    assert spread.risk_share > 0.5


def test_stating_the_gpu_work_replaces_the_prior():
    static_cache = Effect(EffectKind.GPU_WORK, gpu_ms_per_seq=same(0.25))  # 8 x 0.25 = 2 ms more
    spread = band(campaign(GRAPHS, static_cache))
    c = campaign(GRAPHS, static_cache)
    assert project_regime(c.regimes[0], c).final.tok_s == pytest.approx(8 * 1000 / 5.25)
    # only the move to the GPU side remains as risk: a 0.10 normal term in the samples where the side moved
    assert spread.p10_tok_s > 0.8 * 8 * 1000 / 5.25
    assert 0 < spread.risk_share < 0.5


def test_an_effect_that_moves_no_bottleneck_adds_no_risk():
    faster = Effect(EffectKind.BUCKET, bucket="attention", speedup=ThreePoint(1.5, 2, 3))
    assert band(campaign(faster)).risk_share is None or band(campaign(faster)).risk_share == pytest.approx(0)


def test_the_path_prior_grows_with_attention_and_with_the_batch_it_pads():
    low, high = band(campaign(GRAPHS, r=regime(0.05))), band(campaign(GRAPHS, r=regime(0.6)))
    assert high.p10_tok_s / high.p50_tok_s < low.p10_tok_s / low.p50_tok_s
    assert padding_max(1) == padding_max(2) == 0
    assert padding_max(8) == pytest.approx(0.25) and padding_max(64) == pytest.approx(7 / 64)


def test_the_stretch_is_the_stated_log_normal():
    stretch, unit = draw_path_work(stream(1, "x"), 200_000)
    assert np.median(stretch) == pytest.approx(STRETCH_MEDIAN, rel=0.02)
    assert np.percentile(stretch, 90) == pytest.approx(STRETCH_P90, rel=0.03)
    assert unit.min() >= 0 and unit.max() <= 1


def test_path_work_is_attention_share_times_stretch_plus_padding_on_the_gpu_buckets_only():
    state = StepState({"attention": 0.2, "dense_gemm": 0.6, "host_overhead": 0.2})
    add_path_work(state, 2.0, 1.0, 64)
    factor = 1 + 7 / 64 + 2.0 * 0.2 / 0.8
    assert state.buckets["attention"] == pytest.approx(0.2 * factor)
    assert state.buckets["dense_gemm"] == pytest.approx(0.6 * factor)
    assert state.buckets["host_overhead"] == pytest.approx(0.2)


def test_graphs_planned_from_a_prototype_s_trace_carry_no_path_prior():
    from dataclasses import replace

    from tierplan.planning.prototype import Evidence

    c = campaign(GRAPHS)
    traced = replace(c, interventions=(replace(c.interventions[0], evidence=Evidence("r", "a trace", (), ())),))
    assert band(traced).p10_tok_s > 0.8 * band(traced).p50_tok_s > band(c).p10_tok_s

"""GPU work a change adds or removes a step: time a step, time a sequence in flight, work items."""

import pytest

from tests.factories import make_regime
from tierplan.planning.effects import apply_effect, point_draw
from tierplan.planning.model import (
    Campaign,
    Effect,
    EffectKind,
    Intervention,
    LaunchProfile,
    PlanningError,
    Profile,
    ThreePoint,
    Tier,
)
from tierplan.planning.projection import project_regime
from tierplan.planning.step import start_state
from tierplan.planning.step_changes import ADDED_BUCKET, RegimeContext


def same(x):
    return ThreePoint(x, x, x)


def eager(step_ms=10.0, busy_share=0.3, items=500, gap_us=0.5) -> Profile:
    """A host-bound eager step: 3 ms of GPU work in a 10 ms step of 500 launches."""
    return Profile.of({"attention": busy_share / 3, "dense_gemm": 2 * busy_share / 3, "host_overhead": 1 - busy_share},
                      LaunchProfile(items, items, step_ms, gap_us))


def apply(state, effect, concurrency=8, step_ms=10.0):
    assert apply_effect(effect, point_draw(effect), state, RegimeContext("r", step_ms, None, concurrency)) is None
    return state


GRAPHS = Effect(EffectKind.LAUNCH_OVERHEAD, removed=same(1.0))


def test_work_a_sequence_adds_is_hidden_while_the_host_binds():
    state = apply(start_state(eager()), Effect(EffectKind.GPU_WORK, gpu_ms_per_seq=same(0.5)))
    # 8 sequences x 0.5 ms = 4 ms more GPU work: 3 + 4 + 500 x 0.5 us = 7.25 ms, still under the 10 ms host side
    assert state.buckets[ADDED_BUCKET] == pytest.approx(0.4)
    assert state.step() == pytest.approx(1.0)


def test_once_graphs_take_the_host_away_the_added_work_is_the_step():
    static_cache = Effect(EffectKind.GPU_WORK, gpu_ms_per_seq=same(0.5))
    alone = apply(start_state(eager()), GRAPHS)
    assert alone.step() == pytest.approx(0.325)  # 3 ms busy + 0.25 ms of gaps
    for concurrency, expected_ms in ((1, 3.75), (8, 7.25), (64, 35.25)):
        state = apply(apply(start_state(eager()), GRAPHS), static_cache, concurrency)
        assert state.step() * 10 == pytest.approx(expected_ms)


def test_removed_gpu_time_comes_off_the_gpu_buckets_in_proportion_never_the_host_share():
    state = start_state(Profile.of({"attention": 0.2, "dense_gemm": 0.4, "host_overhead": 0.4}))
    apply(state, Effect(EffectKind.GPU_WORK, gpu_ms=same(-3.0)))  # 3 of the 6 ms of GPU work
    assert state.buckets["attention"] == pytest.approx(0.1)
    assert state.buckets["dense_gemm"] == pytest.approx(0.2)
    assert state.buckets["host_overhead"] == pytest.approx(0.4)
    apply(state, Effect(EffectKind.GPU_WORK, gpu_ms=same(-30.0)))  # more than there is: none left, never below
    assert state.step() == pytest.approx(0.4)


def test_work_items_pay_the_gap_and_on_an_eager_path_their_launches():
    state = apply(start_state(eager()), Effect(EffectKind.GPU_WORK, gpu_items=same(100)))
    assert state.launch.gpu_items == 600 and state.launch.host_launches == pytest.approx(600)
    assert state.step() == pytest.approx(1.2)  # host-bound: 100 more launches at 20 us


def test_a_plan_shows_a_change_that_makes_the_step_slower():
    quantised = Effect(EffectKind.GPU_WORK, gpu_ms=ThreePoint(0.5, 1.0, 2.0))  # quantisation kernels before GEMMs
    regime = make_regime(shares={"dense_gemm": 0.9, "other": 0.1}, baseline_tok_s=100.0)  # a 10 ms step
    campaign = Campaign((regime,), (Tier("A", "A", 1),),
                        (Intervention("A1", "FP8 activations", same(3), tier_key="A", effects=(quantised,)),))
    after = project_regime(regime, campaign).after("A")
    assert after.step_ms == pytest.approx(11.0)
    assert after.tok_s == pytest.approx(1000 / 11.0)
    assert after.gain < 1


def test_an_effect_of_gpu_work_states_at_least_one_of_its_inputs():
    with pytest.raises(PlanningError) as raised:
        Effect(EffectKind.GPU_WORK)
    assert raised.value.field == "gpu_ms"

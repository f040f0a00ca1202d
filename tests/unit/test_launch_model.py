"""The launch model: host issue time overlapped with GPU work."""

import pytest

from tierplan.planning.effects import apply_effect, point_draw
from tierplan.planning.model import Effect, EffectKind, LaunchProfile, Profile, ThreePoint
from tierplan.planning.step import start_state
from tierplan.planning.step_changes import RegimeContext


def eager(step_ms=10.0, busy_share=0.15, items=500, gap_us=0.5) -> Profile:
    return Profile.of({"attention": busy_share / 3, "dense_gemm": 2 * busy_share / 3, "host_overhead": 1 - busy_share},
                      LaunchProfile(items, items, step_ms, gap_us))


def apply(state, effect):
    assert apply_effect(effect, point_draw(effect), state, RegimeContext("r", 10.0)) is None
    return state


def same(x):
    return ThreePoint(x, x, x)


def test_a_host_bound_step_takes_its_per_launch_cost_from_the_measured_step():
    state = start_state(eager())
    # the GPU side is 0.15 + 500 x 0.5 us / 10 ms = 0.175 of the step: the rest waits on 500 launches
    assert state.launch.host_cost * 10_000 == pytest.approx(20.0)  # us a launch
    assert state.step() == pytest.approx(1.0)


def test_a_faster_kernel_buys_nothing_while_the_host_binds():
    state = apply(start_state(eager()), Effect(EffectKind.BUCKET, bucket="attention", speedup=same(10)))
    assert state.step() == pytest.approx(1.0)


def test_removing_launch_cost_stops_at_the_gpu_side():
    state = apply(start_state(eager()), Effect(EffectKind.LAUNCH_OVERHEAD, removed=same(0.99)))
    # host 0.01 of the step; GPU 0.15 busy + 500 gaps of 0.5 us = 0.175 of the 10 ms step
    assert state.step() == pytest.approx(0.175)
    assert state.shares()["host_overhead"] == pytest.approx(0.025 / 0.175)


def test_fewer_launches_shorten_a_host_bound_step_in_proportion():
    state = apply(start_state(eager()), Effect(EffectKind.LAUNCH_COUNT, launches=same(-100)))
    assert state.step() == pytest.approx(0.8)
    assert state.launch.gpu_items == 400


def test_in_a_graph_replay_fewer_kernels_do_not_change_the_one_launch():
    graphs = Profile.of({"dense_gemm": 0.85, "host_overhead": 0.15}, LaunchProfile(600, 1, 2.0, 0.5))
    state = start_state(graphs)
    assert any("GPU-bound" in n for n in state.notes)
    apply(state, Effect(EffectKind.LAUNCH_COUNT, launches=same(-60)))
    assert state.launch.host_launches == pytest.approx(1 - 60 / 600)
    assert state.step() == pytest.approx(0.85 + 540 * 0.15 / 600)


def test_without_launch_counts_launch_overhead_comes_off_the_host_share():
    state = apply(start_state(Profile.of({"attention": 0.2, "host_overhead": 0.8})),
                  Effect(EffectKind.LAUNCH_OVERHEAD, removed=same(0.75)))
    assert state.step() == pytest.approx(0.4)

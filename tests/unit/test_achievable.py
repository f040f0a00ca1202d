"""The achievable ceiling: the physical floor at the efficiency the campaign's best measured step reached, and why a
step sits where it does."""

from dataclasses import replace
from datetime import datetime

import pytest

from tests.factories import make_campaign, make_measurement, make_regime
from tierplan.planning.achievable import DEFAULT_EFFICIENCY, achievable, best_efficiency, why_apart
from tierplan.planning.ceiling import GpuSpec, ModelSpec, StepFloor
from tierplan.planning.model import LaunchProfile, Profile

# a dense 8B model in bf16 on one H200-like GPU: 16 GB of weights at 4.8 TB/s is a 3.3 ms floor at batch 1
GPU = GpuSpec("H200", 1, 141, 4800, (("bf16", 990.0),), scaling_efficiency=1.0)
DENSE = ModelSpec("8B", 8.0, 8.0, 32, 0, 0, 0, 2.0, 2.0, 0.0, "bf16")


def campaign_with(step_ms_measured: float | None, profile: Profile | None = None):
    regime = make_regime(name="batch 1", concurrency=1, **({"profile": profile} if profile else {}))
    runs = () if step_ms_measured is None else (make_measurement(1000 / step_ms_measured, datetime(2026, 11, 1)),)
    floor = StepFloor(GPU, DENSE, 1, 1000.0)
    return replace(make_campaign([regime], [], measurements=runs), floors=(("batch 1", floor),)), floor


def test_the_best_measured_step_sets_the_efficiency_and_no_step_leaves_the_stated_default():
    campaign, floor = campaign_with(6.6)
    efficiency = best_efficiency(campaign)
    assert efficiency.share == pytest.approx(floor.floor_ms(1) / 6.6) and efficiency.regime == "batch 1"
    assert best_efficiency(campaign_with(None)[0]).share == DEFAULT_EFFICIENCY
    out = achievable(campaign, {"batch 1": 300.0}, {"batch 1": 6.6})["batch 1"]
    assert out.ceiling_tok_s == pytest.approx(300.0 * efficiency.share)


def test_why_a_step_sits_where_it_does():
    near, floor = campaign_with(5.0)
    assert why_apart(near.regimes[0], floor, 5.0).startswith("bandwidth-bound: the step is 1.5x its bandwidth floor")
    assert why_apart(near.regimes[0], floor, 40.0).startswith("latency-bound: the step is 12x its floor")
    host_bound = Profile.of({"attention": 0.05, "moe": 0.1, "host_overhead": 0.85}, LaunchProfile(400, 400, 10.0, 0.5))
    eager, floor = campaign_with(40.0, host_bound)
    assert why_apart(eager.regimes[0], floor, 40.0).startswith("launch-bound: the host issues")
    assert why_apart(eager.regimes[0], floor, None) == ""

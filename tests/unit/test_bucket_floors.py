"""The gap to the floor, bucket by bucket."""

import pytest

from tests.unit.test_ceiling import gpu, moe
from tierplan.planning.bucket_floors import bucket_floor_ms, floor_gap, gap_sentence
from tierplan.planning.ceiling import StepFloor
from tierplan.planning.model import LaunchProfile, Profile


def test_the_bucket_floors_add_up_to_the_step_floor_by_hand():
    # the toy MoE at 1 TB/s: 2e9 dense weights at 2 B = 4 ms; 2 experts of 1e8 in 10 layers at 1 B = 2 ms; KV 0
    floor = StepFloor(gpu(), moe(kv_bytes_per_token=1000), concurrency=1, context_tokens=1e6)
    floors = bucket_floor_ms(floor)
    assert floors["dense_gemm"] == pytest.approx(4.0)
    assert floors["moe"] == pytest.approx(2.0)
    assert floors["attention"] == pytest.approx(1.0)  # 1e6 tokens x 1,000 B
    assert sum(floors.values()) == pytest.approx(floor.floor_ms(1))


def test_what_no_floor_explains_and_what_to_measure_next():
    floor = StepFloor(gpu(), moe(), concurrency=1, context_tokens=0)
    profile = Profile.of({"moe": 0.2, "dense_gemm": 0.3, "host_overhead": 0.5})
    gap = floor_gap("batch 1", profile, 40.0, floor)
    by = {b.bucket: b for b in gap.buckets}
    assert by["moe"].efficiency == pytest.approx(2.0 / 8.0) and by["dense_gemm"].efficiency == pytest.approx(4 / 12)
    assert by["host_overhead"].floor_ms is None
    assert gap.unexplained_ms == pytest.approx(40 - 6)
    said = gap_sentence(gap, traced=False)
    assert said.startswith("the 40 ms step is 7x its 6 ms floor; host_overhead 20 ms (50%), no floor; dense_gemm 12 ms "
                           "at 33% of its 4 ms floor; moe 8 ms at 25% of its 2 ms floor")
    assert "85% of the step is explained by neither bytes nor FLOPs; measure next: a trace of this regime" in said
    traced = floor_gap("batch 1", Profile.of(dict(profile.shares), LaunchProfile(100, 100, 40.0, 0.5)), 40.0, floor)
    assert "measure next: what host_overhead is (20 ms a step with no floor)" in gap_sentence(traced, traced=True)

"""The memory- and compute-bound ceiling against hand computations."""

import pytest

from tests.factories import make_campaign, make_intervention, make_regime, step_effect
from tierplan.planning.ceiling import GpuSpec, ModelSpec, decode_ceiling, distinct_experts
from tierplan.planning.model import PlanningError
from tierplan.planning.projection import project_regime


def gpu(**overrides) -> GpuSpec:
    values = {"name": "test GPU", "count": 1, "memory_gb": 80, "bandwidth_gb_s": 1000, "tflops": (("bf16", 100.0),),
                  "scaling_efficiency": 1.0}
    values.update(overrides)
    return GpuSpec(**values)


def moe(**overrides) -> ModelSpec:
    # 10 layers x 8 experts of 1e8 params = 8e9 routed, 2e9 dense; 2 experts a token: 4e9 active
    values = {"name": "toy MoE", "total_params_b": 10, "active_params_b": 4, "layers": 10, "routed_experts": 8,
                  "experts_per_token": 2, "shared_experts": 0, "dense_bytes_per_weight": 2, "expert_bytes_per_weight": 1,
                  "kv_bytes_per_token": 0, "compute_dtype": "bf16"}
    values.update(overrides)
    return ModelSpec(**values)


def test_distinct_experts_follow_the_occupancy_formula():
    # 8 (1 - (1 - 2/8)^4) = 8 (1 - 0.31640625)
    assert distinct_experts(8, 2, 4) == pytest.approx(5.46875)
    assert distinct_experts(256, 6, 1) == pytest.approx(6.0)


def test_the_split_of_parameters_follows_from_total_and_active():
    assert moe().expert_params() == pytest.approx(1e8)
    assert moe().dense_params() == pytest.approx(2e9)


def test_batch_one_is_memory_bound_on_the_weights_it_touches():
    ceiling = decode_ceiling(gpu(), moe(), concurrency=1, context_tokens=1000)
    # 2e9 x 2 B dense + 10 layers x 2 experts x 1e8 x 1 B = 6e9 B at 1000 GB/s: 6 ms
    assert ceiling.weight_bytes == pytest.approx(6e9)
    assert ceiling.memory_floor_ms == pytest.approx(6.0)
    assert ceiling.compute_floor_ms == pytest.approx(0.08)  # 8e9 FLOP at 100 TFLOP/s
    assert ceiling.ceiling_tok_s == pytest.approx(1000 / 6)
    assert ceiling.bound == "memory"


def test_the_kv_cache_read_adds_to_the_floor():
    ceiling = decode_ceiling(gpu(), moe(kv_bytes_per_token=1e5), concurrency=4, context_tokens=5000)
    # 4 x 5000 x 1e5 = 2e9 B of KV
    assert ceiling.kv_bytes == pytest.approx(2e9)
    weights = 2e9 * 2 + 10 * 5.46875 * 1e8
    assert ceiling.memory_floor_ms == pytest.approx((weights + 2e9) / 1e12 * 1000)


def test_gpus_aggregate_at_their_stated_efficiency():
    one = decode_ceiling(gpu(), moe(), 1, 0)
    four = decode_ceiling(gpu(count=4, scaling_efficiency=0.8), moe(), 1, 0)
    assert four.ceiling_tok_s == pytest.approx(one.ceiling_tok_s * 3.2)


def test_a_large_batch_on_little_compute_is_compute_bound():
    ceiling = decode_ceiling(gpu(tflops=(("bf16", 1.0),)), moe(), concurrency=64, context_tokens=0)
    assert ceiling.bound == "compute"
    assert ceiling.ceiling_tok_s == pytest.approx(64 / (2 * 4e9 * 64 / 1e12 * 1000) * 1000)


def test_inconsistent_specs_are_refused():
    with pytest.raises(PlanningError):
        decode_ceiling(gpu(), moe(active_params_b=20), 1, 0)


def test_a_projection_above_the_ceiling_is_capped_and_says_so():
    regime = make_regime()
    campaign = make_campaign([regime], [make_intervention("X", step_effect(100.0, "batch 1"))])
    campaign = type(campaign)(**{**campaign.__dict__, "ceilings_tok_s": (("batch 1", 320.0),)})
    result = project_regime(regime, campaign)
    after = result.after("A")
    assert after.uncapped_tok_s == pytest.approx(1000.0)
    assert after.tok_s == pytest.approx(320.0) and after.capped
    assert result.ceiling_tok_s == pytest.approx(320.0)

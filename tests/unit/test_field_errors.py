"""The core checks each domain rule once, and its PlanningError names the input the rule is about."""

import pytest

from tierplan.planning.ceiling import GpuSpec, ModelSpec, check_gpu, check_model
from tierplan.planning.model import Effect, EffectKind, PlanningError, SpecDecode, ThreePoint

TP = ThreePoint(1.5, 2.0, 3.0)
RATE = ThreePoint(0.5, 0.7, 0.8)


@pytest.mark.parametrize(("build", "field"), [
    (lambda: ThreePoint.of("speedup", 3, 2, 4), "speedup"),
    (lambda: Effect(EffectKind.BUCKET), "speedup"),
    (lambda: Effect(EffectKind.BUCKET, speedup=ThreePoint(0, 1, 2), bucket="moe"), "speedup"),
    (lambda: Effect(EffectKind.BUCKET, speedup=TP), "bucket"),
    (lambda: Effect(EffectKind.STEP, speedup=TP), "regimes"),
    (lambda: Effect(EffectKind.TIME_SAVED, regimes=frozenset({"batch 1"})), "saved_ms"),
    (lambda: Effect(EffectKind.TIME_SAVED, saved_ms=ThreePoint(1, 2, 3)), "regimes"),
    (lambda: Effect(EffectKind.SPEC_DECODE), "draft_tokens"),
    (lambda: Effect(EffectKind.LAUNCH_OVERHEAD, removed=ThreePoint(0.9, 0.95, 1.2)), "removed"),
    (lambda: Effect(EffectKind.LAUNCH_COUNT), "launches"),
    (lambda: SpecDecode(0, acceptance=RATE), "draft_tokens"),
    (lambda: SpecDecode(1), "acceptance"),
    (lambda: SpecDecode(1, acceptance=ThreePoint(0.5, 0.9, 1.1)), "acceptance"),
    (lambda: SpecDecode(2, per_position=(0.5, 0.7)), "per_position"),
    (lambda: SpecDecode(3, per_position=(0.8, 0.6)), "per_position"),
    (lambda: SpecDecode(1, draft_cost=ThreePoint(-0.1, 0.1, 0.2), acceptance=RATE), "draft_cost"),
])
def test_an_effect_rule_names_its_input(build, field):
    with pytest.raises(PlanningError) as raised:
        build()
    assert raised.value.field == field


def model(**changes) -> ModelSpec:
    values = {"name": "m", "total_params_b": 284.0, "active_params_b": 13.0, "layers": 43, "routed_experts": 256,
              "experts_per_token": 6, "shared_experts": 1, "dense_bytes_per_weight": 1.0,
              "expert_bytes_per_weight": 0.53125, "kv_bytes_per_token": 5000.0}
    return ModelSpec(**(values | changes))


@pytest.mark.parametrize(("changes", "field"), [
    ({"active_params_b": 300.0}, "active_params_b"),
    ({"experts_per_token": 256}, "experts_per_token"),
    ({"routed_experts": 0, "experts_per_token": 0}, "routed_experts"),
    ({"routed_experts": 8, "experts_per_token": 6, "active_params_b": 1.0}, "total_params_b"),
])
def test_a_model_spec_rule_names_its_field(changes, field):
    check_model(model())
    with pytest.raises(PlanningError) as raised:
        check_model(model(**changes))
    assert raised.value.field == field


def test_a_gpu_spec_rule_names_its_field():
    gpu = GpuSpec("g", 1, 96.0, 1792.0, (("fp8", 1000.0),), scaling_efficiency=1.5)
    with pytest.raises(PlanningError) as raised:
        check_gpu(gpu)
    assert raised.value.field == "scaling_efficiency"

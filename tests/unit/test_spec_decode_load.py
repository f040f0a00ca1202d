"""Speculative decoding that follows load: the verification step costs what the hardware model says."""

import pytest

from tests.factories import make_regime
from tests.unit.test_ceiling import gpu, moe
from tierplan.planning.ceiling import StepFloor
from tierplan.planning.model import Campaign, Effect, EffectKind, Intervention, SpecDecode, ThreePoint, Tier
from tierplan.planning.projection import project_regime
from tierplan.services.presets import GPU_PRESETS, MODEL_PRESETS


def v4_floor(concurrency: int) -> StepFloor:
    from tierplan.db.mappers import to_gpu_spec, to_model_spec
    from tierplan.db.tables import HardwareSpec, ModelSpec

    hardware = HardwareSpec(campaign_id=0, name="RTX PRO 6000", count=4, scaling_efficiency=0.8,
                            **GPU_PRESETS["rtx-pro-6000"].values())
    model = ModelSpec(campaign_id=0, name="V4", **MODEL_PRESETS["deepseek-v4-flash"].values())
    return StepFloor(to_gpu_spec(hardware), to_model_spec(model), concurrency, 1024 + 128)


def test_verifying_drafts_costs_more_as_concurrency_grows():
    # one MTP draft: 2 tokens a sequence in flight touch more distinct experts, more so when many sequences share
    # a step (measured on a public DeepSeek-V4-Flash campaign: about 1.3x at concurrency 1, 1.8x at 24)
    at_1, at_24 = v4_floor(1).verify_cost(1), v4_floor(24).verify_cost(1)
    assert at_1 == pytest.approx(1.34, abs=0.01)
    assert at_24 == pytest.approx(1.51, abs=0.01)
    assert at_24 > at_1


def test_the_verification_cost_of_a_toy_moe_by_hand():
    floor = StepFloor(gpu(), moe(), concurrency=1, context_tokens=0)
    # 1 token: 4e9 B dense + 10 x 2 experts x 1e8 B = 6e9 B; 2 tokens: 8 (1 - (6/8)^2) = 3.5 experts: 7.5e9 B
    assert floor.verify_cost(1) == pytest.approx(7.5e9 / 6e9)


def spec_campaign(floor: StepFloor | None, draft_cost: ThreePoint | None = None) -> Campaign:
    regime = make_regime(shares={"moe": 0.5, "attention": 0.5}, concurrency=floor.concurrency if floor else 1)
    effect = Effect(kind=EffectKind.SPEC_DECODE,
                    spec=SpecDecode(draft_tokens=1, acceptance=ThreePoint(0.7, 0.7, 0.7), draft_cost=draft_cost))
    return Campaign((regime,), (Tier("A", "A", 1),), (Intervention("A2", "MTP", ThreePoint(1, 1, 1), tier_key="A",
                                                                    effects=(effect,)),),
                    floors=(("batch 1", floor),) if floor else ())


def test_without_a_draft_cost_the_hardware_model_prices_the_step():
    floor = StepFloor(gpu(), moe(), concurrency=1, context_tokens=0)
    campaign = spec_campaign(floor)
    after = project_regime(campaign.regimes[0], campaign).after("A")
    assert after.tokens_per_step == pytest.approx(1.7)
    assert after.step_rel == pytest.approx(1.25)
    assert after.tok_s == pytest.approx(10 * 1.7 / 1.25)


def test_a_draft_cost_set_for_the_regime_overrides_the_hardware_model():
    campaign = spec_campaign(StepFloor(gpu(), moe(), 1, 0), draft_cost=ThreePoint(0.1, 0.1, 0.1))
    assert project_regime(campaign.regimes[0], campaign).after("A").tok_s == pytest.approx(10 * 1.7 / 1.1)


def test_without_a_draft_cost_or_specs_the_effect_says_why_it_cannot_apply():
    campaign = spec_campaign(None)
    result = project_regime(campaign.regimes[0], campaign)
    assert result.after("A").tok_s == pytest.approx(10.0)
    assert any("no draft cost entered and no hardware and model specs" in n for n in result.notes)


def test_the_ceiling_caps_the_step_not_the_token():
    floor = StepFloor(gpu(), moe(), concurrency=1, context_tokens=0)
    plain_ceiling = floor.ceiling_tok_s()  # 1 token a 6 ms step: 166.7 tok/s

    def after_a(draft_cost):
        regime = make_regime(shares={"moe": 1.0}, baseline_tok_s=160.0)  # a 6.25 ms step
        effect = Effect(kind=EffectKind.SPEC_DECODE, spec=SpecDecode(
            draft_tokens=1, acceptance=ThreePoint(0.9, 0.9, 0.9), draft_cost=draft_cost))
        campaign = Campaign((regime,), (Tier("A", "A", 1),), (
            Intervention("A2", "MTP", ThreePoint(1, 1, 1), tier_key="A", effects=(effect,)),),
            floors=(("batch 1", floor),), ceilings_tok_s=(("batch 1", plain_ceiling),))
        return project_regime(regime, campaign).after("A")

    # E = 1.9 tokens from a step 1.25x as long (the hardware model): 243 tok/s, above the plain-decode ceiling
    priced = after_a(None)
    assert not priced.capped and priced.tok_s == pytest.approx(160 * 1.9 / 1.25)
    assert priced.tok_s > plain_ceiling
    # a draft cost entered as cheaper than the hardware allows: the 6.56 ms step is held to the floor of a step
    # verifying 2 tokens, 7.5 ms, so 1.9 tokens / 7.5 ms = 253 tok/s
    cheap = after_a(ThreePoint(0.05, 0.05, 0.05))
    assert cheap.capped and cheap.tok_s == pytest.approx(1.9 / 7.5e-3)

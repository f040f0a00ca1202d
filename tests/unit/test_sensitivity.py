"""How far one estimate moves the plan: its low and high ends, the rest at their likely points."""

import pytest

from tests.factories import make_regime
from tierplan.planning.model import Campaign, Effect, EffectKind, Intervention, SpecDecode, ThreePoint, Tier
from tierplan.planning.sensitivity import pinned, swings


def test_each_end_by_hand():
    regime = make_regime(shares={"attention": 0.5, "moe": 0.5}, baseline_tok_s=10.0, target_tok_s=100.0)
    attention = Effect(EffectKind.BUCKET, bucket="attention", speedup=ThreePoint(1.25, 2.0, 5.0))
    moe = Effect(EffectKind.BUCKET, bucket="moe", speedup=ThreePoint(2.0, 2.0, 2.0))
    campaign = Campaign((regime,), (Tier("A", "A", 1),), (Intervention(
        "A1", "kernels", ThreePoint(1, 1, 1), tier_key="A", effects=(attention, moe)),))
    (swing,) = swings(campaign, "A1", 0)
    # attention 0.5 / 1.25 + moe 0.25 = 0.65 of the step at the low end, 0.1 + 0.25 = 0.35 at the high end
    assert swing.low_tok_s == pytest.approx(10 / 0.65) and swing.high_tok_s == pytest.approx(10 / 0.35)
    assert swings(campaign, "A1", 1) == []  # a point estimate moves nothing


def test_speculative_decoding_pins_its_acceptance_too():
    effect = Effect(EffectKind.SPEC_DECODE, spec=SpecDecode(2, draft_cost=ThreePoint(0.05, 0.1, 0.2),
                                                            acceptance=ThreePoint(0.5, 0.7, 0.8)))
    low = pinned(effect, "low")
    assert low.spec.acceptance == ThreePoint(0.5, 0.5, 0.5) and low.spec.draft_cost == ThreePoint(0.05, 0.05, 0.05)

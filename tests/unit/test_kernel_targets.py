"""Effects that target kernels: their share split from the bucket, acted on alone; bucket-wide effects still reach
it."""

import pytest

from tierplan.planning.kernel_targets import kernel_share, split, target_of, with_kernel_parts
from tierplan.planning.model import Campaign, Effect, EffectKind, Intervention, PlanningError, Profile, Regime, ThreePoint, Tier
from tierplan.planning.projection import project_regime
from tierplan.planning.uncertainty import simulate

# attention is 40% of the step: the split-K Triton kernel 75% of it (30% of the step), flash decode the rest
KERNELS = (("_fwd_kernel_splitK_stage1", "attention", 0.75, 0.0), ("flash_fwd_splitkv_kernel", "attention", 0.25, 0.0),
           ("sm90_xmma_gemm_bf16", "dense_gemm", 1.0, 0.0))
PROFILE = Profile(Profile.of({"attention": 0.4, "dense_gemm": 0.6}).shares, kernels=KERNELS)
REGIME = Regime("batch 1", 1, 1e6, baseline_tok_s=100.0, profile=PROFILE)


def kernel_effect(speedup: float, pattern: str = "splitK_stage") -> Effect:
    return Effect(EffectKind.BUCKET, bucket="attention", kernels=pattern, speedup=ThreePoint(speedup, speedup, speedup))


def plan(*effects: Effect) -> Campaign:
    interventions = tuple(Intervention(f"A{n}", "x", ThreePoint(1, 1, 1), tier_key="A", effects=(e,))
                          for n, e in enumerate(effects, 1))
    return with_kernel_parts(Campaign((REGIME,), (Tier("A", "A", 1),), interventions))


def test_the_matched_kernels_leave_their_bucket_as_a_part_of_it():
    parts = dict(split(PROFILE, ["attention~splitk_stage"]).shares)
    assert parts["attention~splitk_stage"] == pytest.approx(0.30)  # case-insensitive: 75% of 40%
    assert parts["attention"] == pytest.approx(0.10)
    assert parts["dense_gemm"] == pytest.approx(0.6)
    assert kernel_share(PROFILE, kernel_effect(2)) == pytest.approx(0.30)


def test_a_kernel_effect_acts_on_its_kernels_share_alone():
    """2x on the split-K kernel: 0.10 + 0.15 + 0.6 = 0.85 of the step; on the whole bucket it would be 0.8."""
    campaign = plan(kernel_effect(2))
    assert project_regime(campaign.regimes[0], campaign).final.tok_s == pytest.approx(100 / 0.85)
    whole = plan(Effect(EffectKind.BUCKET, bucket="attention", speedup=ThreePoint(2, 2, 2)))
    assert project_regime(whole.regimes[0], whole).final.tok_s == pytest.approx(100 / 0.8)


def test_a_bucket_wide_effect_still_reaches_the_kernels_split_from_it():
    """The kernel 2x, then all attention 1.5x: (0.10 + 0.15) / 1.5 + 0.6."""
    campaign = plan(kernel_effect(2), Effect(EffectKind.BUCKET, bucket="attention", speedup=ThreePoint(1.5, 1.5, 1.5)))
    assert project_regime(campaign.regimes[0], campaign).final.tok_s == pytest.approx(100 / (0.25 / 1.5 + 0.6))
    bands = dict(simulate(campaign, samples=500).regimes)["batch 1"][-1]
    assert bands.p50_tok_s == pytest.approx(100 / (0.25 / 1.5 + 0.6), rel=0.03)


def test_without_a_kernel_list_a_kernel_effect_says_it_finds_nothing():
    bare = Regime("batch 1", 1, 1e6, baseline_tok_s=100.0, profile=Profile.of({"attention": 0.4, "dense_gemm": 0.6}))
    campaign = with_kernel_parts(Campaign((bare,), (Tier("A", "A", 1),), (
        Intervention("A1", "x", ThreePoint(1, 1, 1), tier_key="A", effects=(kernel_effect(2),)),)))
    projection = project_regime(campaign.regimes[0], campaign)
    assert projection.final.tok_s == pytest.approx(100.0)
    assert any("no kernel of the attention bucket in the profile matches 'splitK_stage'" in n for n in projection.notes)


def test_a_pattern_is_checked_where_it_is_entered():
    assert target_of(kernel_effect(2)) == "attention~splitK_stage"
    with pytest.raises(PlanningError, match="is not a pattern tierplan can match") as bad:
        kernel_effect(2, "split(K")
    assert bad.value.field == "kernels"
    with pytest.raises(PlanningError, match="only a bucket speedup can name kernels"):
        Effect(EffectKind.STEP, speedup=ThreePoint(1, 2, 3), regimes=frozenset({"batch 1"}), kernels="x")

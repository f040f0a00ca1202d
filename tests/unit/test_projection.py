import pytest

from tests.factories import bucket_effect, make_campaign, make_intervention, make_regime, make_tier, step_effect
from tierplan.planning.model import PlanningError, Profile, Status, ThreePoint
from tierplan.planning.projection import Verdict, amdahl_step_rel, project_regime, verdict


def project(regime, *interventions, tiers=None):
    return project_regime(regime, make_campaign([regime], interventions, tiers=tiers))


def test_amdahl_on_one_bucket_matches_the_formula():
    # 63% made 3x faster: 0.37 + 0.21 = 0.58 of the step
    assert amdahl_step_rel(0.63, 3.0) == pytest.approx(0.58)


def test_the_bottleneck_moves_from_attention_to_moe():
    regime = make_regime(shares={"attention": 0.63, "moe": 0.25, "other": 0.12})
    result = project(regime, make_intervention("B1", bucket_effect("attention", 3.0)))
    after = result.after("A")
    assert result.baseline.bottleneck == "attention"
    assert after.bottleneck == "moe"
    # attention 0.21, moe 0.25, other 0.12 of the old step: 0.58 in all
    assert after.step_rel == pytest.approx(0.58)
    assert dict(after.shares)["moe"] == pytest.approx(0.25 / 0.58)
    assert after.tok_s == pytest.approx(10 / 0.58)
    assert after.gain == pytest.approx(1 / 0.58)


def test_a_whole_step_multiplier_applies_only_in_its_regimes():
    b1 = make_regime("batch 1")
    c16 = make_regime("concurrency 16", concurrency=16, baseline_tok_s=23.0)
    a1 = make_intervention("A1", step_effect(4.5, "batch 1"))
    campaign = make_campaign([b1, c16], [a1])
    assert project_regime(b1, campaign).after("A").tok_s == pytest.approx(45.0)
    assert project_regime(c16, campaign).after("A").tok_s == pytest.approx(23.0)


def test_a_bucket_effect_limited_to_a_regime_leaves_the_others_alone():
    c16 = make_regime("concurrency 16", baseline_tok_s=23.0)
    result = project(c16, make_intervention("A1", bucket_effect("moe", 2.0, "batch 1")))
    assert result.after("A").step_rel == pytest.approx(1.0)


def test_two_effects_on_one_bucket_multiply_on_that_bucket_only():
    regime = make_regime(shares={"attention": 0.5, "moe": 0.5})
    result = project(
        regime,
        make_intervention("B1", bucket_effect("attention", 2.0)),
        make_intervention("C1", bucket_effect("attention", 2.0)),
    )
    # attention 0.5 / 4 = 0.125, moe untouched 0.5: 0.625, not 0.5 / 2 / 2 of the whole step
    assert result.after("A").step_rel == pytest.approx(0.625)


def test_a_speedup_of_one_changes_nothing():
    regime = make_regime()
    result = project(regime, make_intervention("X", bucket_effect("attention", 1.0), step_effect(1.0, "batch 1")))
    assert result.after("A").step_rel == pytest.approx(1.0)
    assert result.after("A").shares == result.baseline.shares


def test_tiers_apply_in_order_and_each_step_compounds():
    regime = make_regime(shares={"attention": 0.6, "moe": 0.4})
    tiers = (make_tier("B", 2), make_tier("A", 1))
    result = project(
        regime,
        make_intervention("A1", step_effect(2.0, "batch 1"), tier_key="A"),
        make_intervention("B1", bucket_effect("attention", 3.0), tier_key="B"),
        tiers=tiers,
    )
    assert [s.tier_key for s in result.steps] == ["A", "B"]
    assert result.after("A").tok_s == pytest.approx(20.0)
    # after A: attention 0.3, moe 0.2; B: attention 0.1 -> 0.3 of the baseline step
    assert result.after("B").step_rel == pytest.approx(0.3)
    assert result.after("B").tok_s == pytest.approx(10 / 0.3)


def test_step_time_follows_from_concurrency_and_throughput():
    regime = make_regime("concurrency 16", concurrency=16, baseline_tok_s=23.0)
    result = project(regime, make_intervention("A1", step_effect(2.0, "concurrency 16")))
    assert result.baseline.step_ms == pytest.approx(16 * 1000 / 23)
    assert result.after("A").step_ms == pytest.approx(16 * 1000 / 46)


def test_rejected_interventions_are_left_out():
    regime = make_regime()
    result = project(regime, make_intervention("X", step_effect(3.0, "batch 1"), status=Status.REJECTED))
    assert result.after("A").step_rel == pytest.approx(1.0)


def test_an_intervention_the_baseline_includes_is_not_applied_again():
    regime = make_regime(includes=frozenset({"A1"}))
    a1 = make_intervention("A1", step_effect(4.0, "batch 1"), status=Status.IN_PROGRESS)
    a2 = make_intervention("A2", step_effect(2.0, "batch 1"))
    result = project(regime, a1, a2)
    assert result.after("A").step_rel == pytest.approx(0.5)  # A2 only
    assert result.after("A").applied == ("A2",)
    assert result.includes == ("A1",)


def test_a_landed_intervention_the_baseline_does_not_include_is_still_applied():
    regime = make_regime()  # measured before A1 landed, and says so
    result = project(regime, make_intervention("A1", step_effect(4.0, "batch 1"), status=Status.LANDED))
    assert result.after("A").step_rel == pytest.approx(0.25)


def test_a_bucket_missing_from_the_profile_is_reported_not_silently_dropped():
    regime = make_regime(shares={"attention": 1.0})
    result = project(regime, make_intervention("B2", bucket_effect("moe", 2.0)))
    assert result.after("A").step_rel == pytest.approx(1.0)
    assert any("no 'moe' bucket" in note for note in result.notes)


def test_shares_below_one_give_the_remainder_to_other():
    profile = Profile.of({"attention": 0.63, "moe": 0.2})
    assert profile.as_dict()["other"] == pytest.approx(0.17)


def test_shares_above_one_are_an_error():
    with pytest.raises(PlanningError, match="more than 1"):
        Profile.of({"attention": 0.7, "moe": 0.4})


def test_negative_shares_are_an_error():
    with pytest.raises(PlanningError):
        Profile.of({"attention": -0.1})


def test_three_point_estimates_must_be_ordered():
    with pytest.raises(PlanningError):
        ThreePoint(3.0, 2.0, 4.0)


def test_verdict_says_how_far_short():
    assert verdict(232.0, 1000.0) == Verdict(reaches=False, ratio=pytest.approx(1000.0 / 232.0))
    assert verdict(1000.0, 1000.0).reaches is True
    assert verdict(None, 1000.0) == Verdict(reaches=None, ratio=None)


def test_a_regime_without_a_profile_still_takes_whole_step_effects():
    regime = make_regime(profile=None)
    result = project(regime, make_intervention("A2", step_effect(1.5, "batch 1"), bucket_effect("attention", 2.0)))
    assert result.after("A").tok_s == pytest.approx(15.0)
    assert any("no profile" in note for note in result.notes)


def test_each_intervention_is_credited_with_the_gain_after_it_and_the_last_is_the_tiers():
    regime = make_regime(shares={"attention": 0.5, "moe": 0.5})
    result = project(regime, make_intervention("A1", bucket_effect("attention", 2.0)),
                     make_intervention("A2", bucket_effect("moe", 2.0)))
    after = result.after("A")
    assert [key for key, _ in after.contributions] == ["A1", "A2"]
    assert dict(after.contributions)["A1"] == pytest.approx(1 / 0.75)
    assert after.contributions[-1][1] == pytest.approx(after.gain)

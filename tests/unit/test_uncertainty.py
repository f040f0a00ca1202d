"""The seeded Monte Carlo."""

import numpy as np
import pytest

from tests.factories import bucket_effect, make_campaign, make_intervention, make_regime, step_effect
from tierplan.planning.model import Effect, EffectKind, ThreePoint
from tierplan.planning.projection import project_regime
from tierplan.planning.uncertainty import pert, simulate


def spread_campaign():
    regime = make_regime()
    b1 = make_intervention("B1", Effect(kind=EffectKind.BUCKET, bucket="attention", speedup=ThreePoint(2, 2.5, 3)),
                           effort_days=ThreePoint(10, 15, 25))
    a1 = make_intervention("A1", Effect(kind=EffectKind.STEP, speedup=ThreePoint(4, 4.5, 5),
                                        regimes=frozenset({"batch 1"})), effort_days=ThreePoint(1, 2, 4))
    return make_campaign([regime], [a1, b1])


def test_pert_draws_have_the_pert_mean_and_stay_in_range():
    draws = pert(ThreePoint(2, 2.5, 4), np.random.default_rng(1), 200_000)
    assert draws.min() >= 2 and draws.max() <= 4
    assert draws.mean() == pytest.approx((2 + 4 * 2.5 + 4) / 6, rel=0.005)


def test_the_same_seed_gives_the_same_numbers():
    assert simulate(spread_campaign(), 2000, seed=7) == simulate(spread_campaign(), 2000, seed=7)
    assert simulate(spread_campaign(), 2000, seed=7) != simulate(spread_campaign(), 2000, seed=8)


def test_percentiles_are_ordered_and_bracket_the_likely_projection():
    campaign = spread_campaign()
    step = simulate(campaign, 5000, seed=1).of("batch 1")[0]
    likely = project_regime(campaign.regimes[0], campaign).after("A").tok_s
    assert step.p10_tok_s <= step.p50_tok_s <= step.p90_tok_s
    assert step.p10_tok_s < likely < step.p90_tok_s


def test_point_estimates_leave_only_the_model_error_in_the_band():
    import math

    regime = make_regime()
    campaign = make_campaign([regime], [make_intervention("A", step_effect(3.0, "batch 1"))])
    step = simulate(campaign, 20_000, seed=0).of("batch 1")[0]
    assert step.input_share == pytest.approx(0.0, abs=1e-9)
    # ln(tok/s) ~ N(ln 30, (0.25 ln 3)^2): P10 and P90 at 1.2816 standard deviations
    sigma = 0.25 * math.log(3)
    assert step.p50_tok_s == pytest.approx(30.0, rel=0.01)
    assert step.p10_tok_s == pytest.approx(30.0 * math.exp(-1.2816 * sigma), rel=0.01)
    assert step.p90_tok_s == pytest.approx(30.0 * math.exp(1.2816 * sigma), rel=0.01)
    assert step.p_target == 0.0


def test_an_effect_that_changes_nothing_adds_no_model_error():
    regime = make_regime()
    campaign = make_campaign([regime], [make_intervention("A", step_effect(1.0, "batch 1"))])
    step = simulate(campaign, 500, seed=0).of("batch 1")[0]
    assert step.p10_tok_s == step.p50_tok_s == step.p90_tok_s == pytest.approx(10.0)


def test_the_band_says_how_much_is_input_spread_and_how_much_model_error():
    regime = make_regime()
    wide = make_intervention("A", Effect(kind=EffectKind.BUCKET, bucket="attention", speedup=ThreePoint(1.2, 2.5, 8),
                                         regimes=frozenset()))
    step = simulate(make_campaign([regime], [wide]), 5000, seed=2).of("batch 1")[0]
    assert 0.5 < step.input_share < 1


def test_probability_of_the_target_counts_samples_at_or_above_it():
    regime = make_regime(target_tok_s=45.0)
    a1 = make_intervention("A1", Effect(kind=EffectKind.STEP, speedup=ThreePoint(4, 4.5, 5),
                                        regimes=frozenset({"batch 1"})))
    step = simulate(make_campaign([regime], [a1]), 20_000, seed=3).of("batch 1")[0]
    # PERT(4, 4.5, 5) is symmetric: half the draws lie above the likely 4.5x
    assert step.p_target == pytest.approx(0.5, abs=0.02)


def test_cumulative_effort_adds_tier_by_tier():
    regime = make_regime()
    from tests.factories import make_tier

    campaign = make_campaign(
        [regime],
        [make_intervention("A1", bucket_effect("moe", 2.0), effort_days=ThreePoint(2, 2, 2), tier_key="A"),
         make_intervention("B1", bucket_effect("moe", 2.0), effort_days=ThreePoint(10, 10, 10), tier_key="B")],
        tiers=(make_tier("A", 1), make_tier("B", 2)),
    )
    efforts = simulate(campaign, 100, seed=0).efforts
    assert [(e.tier_key, e.p50_days, e.p90_days) for e in efforts] == [("A", 2, 2), ("B", 12, 12)]


def test_an_estimate_edited_for_one_regime_leaves_every_other_regime_to_the_last_digit():
    """Each effect draws from its own stream: widening A1's batch 1 estimate (a beta draw with other shape
    parameters consumes the generator differently) must not jitter concurrency 16, which it does not touch."""
    regimes = [make_regime("batch 1"), make_regime("concurrency 16", concurrency=16)]

    def campaign(batch1_speedup: ThreePoint):
        a1 = make_intervention("A1", Effect(kind=EffectKind.STEP, speedup=batch1_speedup, regimes=frozenset({"batch 1"})),
                               Effect(kind=EffectKind.STEP, speedup=ThreePoint(1.2, 1.5, 2),
                                      regimes=frozenset({"concurrency 16"})), effort_days=ThreePoint(1, 2, 4))
        b1 = make_intervention("B1", Effect(kind=EffectKind.BUCKET, bucket="attention", speedup=ThreePoint(2, 2.5, 3)))
        return make_campaign(regimes, [a1, b1])

    before = simulate(campaign(ThreePoint(4, 4.5, 5)), 3000, seed=3)
    after = simulate(campaign(ThreePoint(3, 4.5, 7)), 3000, seed=3)
    assert after.of("concurrency 16") == before.of("concurrency 16")
    assert after.of("batch 1") != before.of("batch 1")
    assert after.efforts == before.efforts  # no effort changed

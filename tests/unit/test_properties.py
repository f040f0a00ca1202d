"""Properties of the planning core, checked by Hypothesis on random plans."""

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.factories import make_campaign, make_intervention, make_regime, make_tier
from tierplan.planning.model import Effect, EffectKind, ThreePoint
from tierplan.planning.projection import project_regime
from tierplan.planning.uncertainty import simulate

BUCKETS = ("attention", "moe", "dense_gemm", "other")


@st.composite
def profiles(draw):
    weights = [draw(st.floats(0.01, 1.0)) for _ in BUCKETS]
    total = sum(weights)
    return {b: w / total for b, w in zip(BUCKETS, weights, strict=False)}


@st.composite
def three_points(draw, low=1.0, high=20.0):
    values = sorted(draw(st.floats(low, high)) for _ in range(3))
    return ThreePoint(*values)


@st.composite
def effects(draw):
    speedup = draw(three_points())
    if draw(st.booleans()):
        return Effect(kind=EffectKind.BUCKET, bucket=draw(st.sampled_from(BUCKETS)), speedup=speedup)
    return Effect(kind=EffectKind.STEP, speedup=speedup, regimes=frozenset({"batch 1"}))


@st.composite
def campaigns(draw, ceiling=None):
    regime = make_regime(shares=draw(profiles()), baseline_tok_s=draw(st.floats(1, 500)))
    tiers = (make_tier("A", 1), make_tier("B", 2))
    interventions = [
        make_intervention(f"I{n}", *draw(st.lists(effects(), min_size=1, max_size=3)),
                          tier_key=draw(st.sampled_from(["A", "B"])))
        for n in range(draw(st.integers(1, 6)))
    ]
    ceilings = (("batch 1", ceiling),) if ceiling else ()
    return replace(make_campaign([regime], interventions, tiers=tiers), ceilings_tok_s=ceilings)


@settings(max_examples=150, deadline=None)
@given(campaigns())
def test_speedups_of_at_least_one_never_lower_a_projection(campaign):
    result = project_regime(campaign.regimes[0], campaign)
    throughputs = [result.baseline.tok_s] + [s.tok_s for s in result.steps]
    assert all(b >= a * (1 - 1e-12) for a, b in zip(throughputs, throughputs[1:], strict=False))


@settings(max_examples=150, deadline=None)
@given(st.floats(1, 2000).flatmap(lambda c: campaigns(ceiling=c)))
def test_no_projection_exceeds_the_ceiling(campaign):
    ceiling = campaign.ceiling_of("batch 1")
    result = project_regime(campaign.regimes[0], campaign)
    assert all(s.tok_s <= ceiling * (1 + 1e-12) for s in result.steps)
    assert all(s.p90_tok_s <= ceiling * (1 + 1e-12) for s in simulate(campaign, 200, seed=1).of("batch 1"))


@settings(max_examples=150, deadline=None)
@given(profiles(), three_points(), three_points(), st.sampled_from(BUCKETS), st.sampled_from(BUCKETS))
def test_disjoint_buckets_commute(shares, first, second, bucket_a, bucket_b):
    if bucket_a == bucket_b:
        return
    regime = make_regime(shares=shares)
    x = make_intervention("X", Effect(kind=EffectKind.BUCKET, bucket=bucket_a, speedup=first))
    y = make_intervention("Y", Effect(kind=EffectKind.BUCKET, bucket=bucket_b, speedup=second))
    forward = project_regime(regime, make_campaign([regime], [x, y])).final
    backward = project_regime(regime, make_campaign([regime], [y, x])).final
    assert abs(forward.tok_s - backward.tok_s) <= 1e-9 * forward.tok_s


@settings(max_examples=60, deadline=None)
@given(campaigns(), st.integers(0, 2**32 - 1))
def test_percentiles_are_ordered_and_a_seed_repeats(campaign, seed):
    first = simulate(campaign, 300, seed=seed)
    for step in first.of("batch 1"):
        assert step.p10_tok_s <= step.p50_tok_s <= step.p90_tok_s
    assert simulate(campaign, 300, seed=seed) == first


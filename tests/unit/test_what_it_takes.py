"""What it would take: the step the target needs, and what each bucket (or the fewest together) would have to do."""

import pytest

from tests.factories import make_regime
from tierplan.planning.model import Campaign, Effect, EffectKind, Intervention, ThreePoint, Tier
from tierplan.planning.projection import project_regime
from tierplan.planning.what_it_takes import sentence, what_it_takes


def projection(target: float):
    # a 100 ms step at concurrency 1 (10 tok/s): attention 60 ms, moe 30 ms, other 10 ms; the plan makes moe 2x faster
    regime = make_regime(shares={"attention": 0.6, "moe": 0.3, "other": 0.1}, baseline_tok_s=10.0,
                         target_tok_s=target)
    moe = Effect(EffectKind.BUCKET, bucket="moe", speedup=ThreePoint(2, 2, 2))
    campaign = Campaign((regime,), (Tier("A", "A", 1),),
                        (Intervention("A1", "moe", ThreePoint(1, 1, 1), tier_key="A", effects=(moe,)),))
    return project_regime(regime, campaign)


def test_by_hand_each_bucket_alone_and_the_fewest_together():
    need = what_it_takes(projection(20.0), concurrency=1)
    # after the plan: 60 + 15 + 10 = 85 ms; 20 tok/s needs 50 ms, so 35 ms must come off
    assert need.step_ms == pytest.approx(85.0) and need.needed_ms == pytest.approx(50.0)
    by_bucket = {b.bucket: b for b in need.buckets}
    assert by_bucket["attention"].speedup == pytest.approx(60 / 25)  # 60 ms to 25 ms
    assert by_bucket["moe"].speedup is None and by_bucket["other"].speedup is None  # 15 or 10 ms cannot give 35
    assert need.together == (("attention",), pytest.approx(2.4))
    text = sentence(need)
    assert text.startswith("batch 1: the target needs a 50 ms step against the 85 ms the plan leaves")
    assert "attention alone 2.4x faster (60 ms of it)" in text
    assert "moe alone cannot (15 ms of it: the others already take 70 ms)" in text


def test_when_no_bucket_alone_can_the_fewest_together_are_named():
    need = what_it_takes(projection(40.0), concurrency=1)  # 25 ms needed: 60 ms must come off 85
    assert all(b.speedup is None for b in need.buckets)
    names, speedup = need.together
    assert names == ("attention", "moe") and speedup == pytest.approx(75 / 15)  # 75 ms to 15 ms
    assert "together, attention, moe each 5x faster" in sentence(need)


def test_a_regime_the_plan_gets_there_needs_nothing():
    assert what_it_takes(projection(5.0), concurrency=1) is None

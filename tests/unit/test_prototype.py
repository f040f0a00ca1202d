"""Evidence from a prototype: a trace of it at one regime against that regime's own, carried to the others."""

import pytest

from tierplan.planning.model import Campaign, EffectKind, Intervention, LaunchProfile, Profile, Regime, ThreePoint, Tier
from tierplan.planning.projection import project_regime
from tierplan.planning.prototype import derive, gpu_ms, with_evidence
from tierplan.planning.uncertainty import REPLAY_SIGMA, simulate


def eager(step_ms: float, attention_ms: float, dense_ms: float) -> Profile:
    """A host-bound eager step: 500 launches, each item its own launch."""
    return Profile.of({"attention": attention_ms / step_ms, "dense_gemm": dense_ms / step_ms,
                       "host_overhead": 1 - (attention_ms + dense_ms) / step_ms}, LaunchProfile(500, 500, step_ms, 0.5))


BEFORE = eager(10.0, 1.0, 2.0)
# the prototype: CUDA graphs over a static cache at batch 8: one launch a step, attention 1.4 ms (the whole cache
# length), 0.3 ms of copies the eager path had not, 10 more items; the step 4.0 ms, GPU-bound
AFTER = Profile.of({"attention": 1.4 / 4.0, "dense_gemm": 2.0 / 4.0, "memory_copy": 0.3 / 4.0, "host_overhead": 0.075},
                   LaunchProfile(510, 1, 4.0, 0.5))


def regime(name: str, concurrency: int, profile: Profile, step_ms: float) -> Regime:
    return Regime(name, concurrency, 1e9, baseline_tok_s=concurrency * 1000 / step_ms, profile=profile,
                  step_ms=step_ms)


MEASURED = regime("batch 8", 8, BEFORE, 10.0)
OTHER = regime("batch 64", 64, eager(14.0, 6.0, 2.5), 14.0)


def test_the_pair_gives_bucket_ratios_launches_and_added_gpu_work():
    effects = derive(BEFORE, AFTER, MEASURED, [MEASURED, OTHER])
    measured = [e for e in effects if e.regimes == frozenset({"batch 8"})]
    by_kind = {e.kind: e for e in measured}
    assert by_kind[EffectKind.BUCKET].bucket == "attention"
    assert by_kind[EffectKind.BUCKET].speedup.likely == pytest.approx(1 / 1.4)
    assert by_kind[EffectKind.LAUNCH_OVERHEAD].removed.likely == pytest.approx(1 - 1 / 510)
    assert by_kind[EffectKind.LAUNCH_COUNT].launches.likely == 10
    assert by_kind[EffectKind.GPU_WORK].gpu_ms.likely == pytest.approx(0.3)
    assert not any(e.bucket == "dense_gemm" for e in effects)  # unchanged: no effect


def test_applied_to_the_measured_regime_the_derived_effects_give_the_prototype_s_step():
    campaign = Campaign((MEASURED,), (Tier("A", "A", 1),), (Intervention(
        "A1", "graphs", ThreePoint(1, 1, 1), tier_key="A", effects=derive(BEFORE, AFTER, MEASURED, [MEASURED])),))
    after = project_regime(MEASURED, campaign).final
    # GPU side 1.4 + 2.0 + 0.3 ms busy and 510 gaps of 0.5 us: 3.955 ms against the 4.0 ms measured
    assert after.step_ms == pytest.approx(3.955, rel=1e-3)
    assert after.step_ms == pytest.approx(4.0, rel=0.02)


def test_carried_over_the_ratios_scale_with_what_each_regime_holds():
    effects = derive(BEFORE, AFTER, MEASURED, [MEASURED, OTHER])
    carried = [e for e in effects if e.regimes == frozenset({"batch 64"})]
    attention = next(e for e in carried if e.kind is EffectKind.BUCKET)
    assert attention.speedup.likely == pytest.approx(1 / 1.4)
    assert attention.speedup.high / attention.speedup.likely == pytest.approx(1.15)  # wider than measured
    work = next(e for e in carried if e.kind is EffectKind.GPU_WORK)
    # 0.3 ms over 3 ms of GPU time at batch 8; batch 64 holds 8.5 ms of it
    assert gpu_ms(OTHER) == pytest.approx(8.5)
    assert work.gpu_ms.likely == pytest.approx(0.3 * 8.5 / 3.0)
    campaign = Campaign((MEASURED, OTHER), (Tier("A", "A", 1),), (Intervention(
        "A1", "graphs", ThreePoint(1, 1, 1), tier_key="A", effects=effects),))
    at_64 = project_regime(OTHER, campaign).final
    # attention 6 x 1.4 + dense 2.5 + copies 0.85 ms, 510 gaps of 0.5 us: GPU-bound at 12.005 ms
    assert at_64.step_ms == pytest.approx(6 * 1.4 + 2.5 + 0.85 + 0.255, rel=1e-3)


def test_a_profile_without_a_trace_cannot_be_compared():
    from tierplan.planning.model import PlanningError

    with pytest.raises(PlanningError, match="import the regime's own trace first"):
        derive(Profile.of({"attention": 0.5}), AFTER, MEASURED, [MEASURED])


def test_where_the_prototype_ran_the_band_is_its_replay_error_and_carried_over_the_kinds_model_error():
    """At batch 8 the prototype measured the step: the band there is the 3% spread of what the pair measured and one
    REPLAY_SIGMA (P10-P90 within +-10% of the P50), not the kinds' model error of a 2.5x move, which batch 64, carried
    over, keeps. The same intervention entered, not measured, draws that error at 8."""
    plain = Intervention("A1", "graphs", ThreePoint(1, 1, 1), tier_key="A")
    planned = with_evidence(plain, AFTER, MEASURED, (MEASURED, OTHER), "prototype.json")
    bands = dict(simulate(Campaign((MEASURED, OTHER), (Tier("A", "A", 1),), (planned,)), samples=4000).regimes)
    entered = Intervention("A1", "graphs", ThreePoint(1, 1, 1), tier_key="A", effects=planned.effects)
    unmeasured = dict(simulate(Campaign((MEASURED, OTHER), (Tier("A", "A", 1),), (entered,)), samples=4000).regimes)

    def width(band) -> float:
        return band[-1].p90_tok_s / band[-1].p10_tok_s

    assert REPLAY_SIGMA == 0.05
    assert width(bands["batch 8"]) < 1.2
    assert bands["batch 8"][-1].p50_tok_s == pytest.approx(8000 / 4.0, rel=0.03)  # the prototype's 4.0 ms step
    assert width(bands["batch 64"]) > 1.25 and width(unmeasured["batch 8"]) > 1.4
    assert width(bands["batch 64"]) == pytest.approx(width(unmeasured["batch 64"]), rel=1e-9)

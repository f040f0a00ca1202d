"""Speculative decoding and time-saved effects against hand computations."""

import pytest

from tests.factories import make_campaign, make_intervention, make_regime, same
from tierplan.planning.model import Effect, EffectKind, PlanningError, SpecDecode, ThreePoint
from tierplan.planning.projection import project_regime
from tierplan.planning.step_changes import spec_expected_tokens, spec_expected_tokens_from_positions, spec_speedup


def spec_effect(**spec) -> Effect:
    return Effect(kind=EffectKind.SPEC_DECODE, spec=SpecDecode(**spec))


def test_expected_tokens_follow_leviathan():
    # g = 3, a = 0.7: (1 - 0.7^4) / (1 - 0.7) = 0.7599 / 0.3
    assert spec_expected_tokens(0.7, 3) == pytest.approx(2.533, rel=1e-9)


def test_full_acceptance_gives_every_draft_plus_one():
    assert spec_expected_tokens(1.0, 4) == pytest.approx(5.0)


def test_speedup_divides_by_the_draft_and_verify_cost():
    spec = SpecDecode(draft_tokens=3, acceptance=same(0.7), draft_cost=same(0.1))
    # 2.533 / (1 + 3 * 0.1)
    assert spec_speedup(spec) == pytest.approx(2.533 / 1.3, rel=1e-9)


def test_per_position_rates_add_up_as_vllm_reports_them():
    spec = SpecDecode(draft_tokens=3, per_position=(0.8, 0.6, 0.4), draft_cost=same(0.05))
    assert spec_expected_tokens_from_positions(spec.per_position) == pytest.approx(2.8)
    assert spec_speedup(spec) == pytest.approx(2.8 / 1.15)


def test_per_position_rates_cannot_rise():
    with pytest.raises(PlanningError, match="cannot rise"):
        SpecDecode(draft_tokens=2, per_position=(0.5, 0.7), draft_cost=same(0.1))


def test_spec_decoding_in_a_projection_divides_the_whole_step():
    regime = make_regime()
    effect = spec_effect(draft_tokens=1, acceptance=same(0.8), draft_cost=same(0.1))
    result = project_regime(regime, make_campaign([regime], [make_intervention("A2", effect)]))
    # E = 1.8, cost 1.1: 10 tok/s x 1.6364
    assert result.after("A").tok_s == pytest.approx(10 * 1.8 / 1.1)


def test_time_saved_comes_off_the_step_in_milliseconds():
    regime = make_regime()  # 10 tok/s at concurrency 1: a 100 ms step
    effect = Effect(kind=EffectKind.TIME_SAVED, saved_ms=same(20.0), regimes=frozenset({"batch 1"}))
    result = project_regime(regime, make_campaign([regime], [make_intervention("T", effect)]))
    assert result.after("A").step_ms == pytest.approx(80.0)
    assert result.after("A").tok_s == pytest.approx(12.5)
    # the saving spreads over the buckets in proportion: shares stay as they were
    assert dict(result.after("A").shares)["attention"] == pytest.approx(0.63)


def test_time_saved_on_a_bucket_never_takes_it_below_zero():
    regime = make_regime(shares={"attention": 0.63, "moe": 0.2, "other": 0.17})
    effect = Effect(kind=EffectKind.TIME_SAVED, saved_ms=ThreePoint(10, 20, 30), bucket="other",
                    regimes=frozenset({"batch 1"}))
    result = project_regime(regime, make_campaign([regime], [make_intervention("T", effect)]))
    # other is 17 ms of the 100 ms step: 20 ms saved leaves it at 0, the step at 83 ms
    assert result.after("A").step_ms == pytest.approx(83.0)


def test_time_saved_without_a_baseline_is_reported():
    regime = make_regime(baseline_tok_s=None)
    effect = Effect(kind=EffectKind.TIME_SAVED, saved_ms=same(1.0), regimes=frozenset({"batch 1"}))
    result = project_regime(regime, make_campaign([regime], [make_intervention("T", effect)]))
    assert any("no baseline throughput" in n for n in result.notes)


def test_time_saved_must_name_its_regimes():
    with pytest.raises(PlanningError):
        Effect(kind=EffectKind.TIME_SAVED, saved_ms=same(1.0))


def test_time_saved_beyond_the_whole_step_leaves_it_at_zero_not_negative():
    regime = make_regime()
    effect = Effect(kind=EffectKind.TIME_SAVED, saved_ms=same(500.0), regimes=frozenset({"batch 1"}))
    again = Effect(kind=EffectKind.TIME_SAVED, saved_ms=same(1.0), regimes=frozenset({"batch 1"}))
    result = project_regime(regime, make_campaign([regime], [make_intervention("T", effect, again)]))
    assert result.after("A").step_ms == 0.0

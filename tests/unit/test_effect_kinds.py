"""The effect-kind registry: every kind has one entry, and each entry keeps the promises the projection, the Monte
Carlo and calibration rely on, checked the same way for every kind (a new kind is held to them by adding it here)."""

from dataclasses import fields

import pytest

from tierplan.planning.effect_kinds import KINDS, rule_of
from tierplan.planning.effects import apply_effect, calibrated, magnitude, point_draw, three_points
from tierplan.planning.model import Effect, EffectKind, LaunchProfile, PlanningError, Profile, SpecDecode, ThreePoint
from tierplan.planning.step import start_state
from tierplan.planning.step_changes import EffectDraw, RegimeContext

GPU_BOUND = Profile.of({"attention": 0.6, "moe": 0.3, "host_overhead": 0.02}, LaunchProfile(400, 40, 10.0, 0.5))
HOST_BOUND = Profile.of({"attention": 0.05, "moe": 0.1, "host_overhead": 0.85}, LaunchProfile(400, 400, 10.0, 0.5))
HOST_KINDS = {EffectKind.LAUNCH_OVERHEAD, EffectKind.LAUNCH_COUNT}  # they buy something where the host binds


def state_for(kind):
    return start_state(HOST_BOUND if kind in HOST_KINDS else GPU_BOUND)
CONTEXT = RegimeContext("c1", 10.0)
ONE_OF_EACH = {
    EffectKind.BUCKET: Effect(EffectKind.BUCKET, bucket="attention", speedup=ThreePoint(1.5, 2.0, 3.0)),
    EffectKind.STEP: Effect(EffectKind.STEP, speedup=ThreePoint(1.1, 1.2, 1.4), regimes=frozenset({"c1"})),
    EffectKind.TIME_SAVED: Effect(EffectKind.TIME_SAVED, saved_ms=ThreePoint(0.5, 1.0, 2.0), regimes=frozenset({"c1"})),
    EffectKind.SPEC_DECODE: Effect(EffectKind.SPEC_DECODE, spec=SpecDecode(
        2, draft_cost=ThreePoint(0.05, 0.1, 0.2), acceptance=ThreePoint(0.5, 0.7, 0.8))),
    EffectKind.LAUNCH_OVERHEAD: Effect(EffectKind.LAUNCH_OVERHEAD, removed=ThreePoint(0.5, 0.8, 0.9)),
    EffectKind.LAUNCH_COUNT: Effect(EffectKind.LAUNCH_COUNT, launches=ThreePoint(-200, -100, -50)),
    EffectKind.GPU_WORK: Effect(EffectKind.GPU_WORK, gpu_ms=ThreePoint(-0.5, -0.3, -0.1),
                                gpu_ms_per_seq=ThreePoint(-0.02, -0.01, 0.0), gpu_items=ThreePoint(-20, -10, 0)),
}


def test_every_kind_has_one_entry_and_one_example_here():
    assert set(KINDS) == set(EffectKind) == set(ONE_OF_EACH)
    assert all(rule.kind is kind for kind, rule in KINDS.items())
    assert all(0 < rule.prior_sigma < 1 for rule in KINDS.values())


@pytest.mark.parametrize("kind", list(EffectKind))
def test_an_entry_s_inputs_are_fields_of_a_draw_and_its_likely_point_speeds_the_step_up(kind):
    effect = ONE_OF_EACH[kind]
    assert set(three_points(effect)) <= {f.name for f in fields(EffectDraw)}
    assert set(three_points(effect)) <= set(rule_of(kind).estimates)  # what the forms ask and storage keeps
    state = state_for(kind)
    before = state.per_token()
    assert apply_effect(effect, point_draw(effect), state, CONTEXT) is None
    assert state.per_token() < before
    assert magnitude(effect, point_draw(effect), before, state.per_token(), CONTEXT) > 0


@pytest.mark.parametrize("kind", list(EffectKind))
def test_calibrated_to_nothing_realised_an_effect_leaves_the_step_as_it_was(kind):
    effect = ONE_OF_EACH[kind]
    state = state_for(kind)
    before = state.per_token()
    assert apply_effect(effect, calibrated(effect, point_draw(effect), 0.0), state, CONTEXT) is None
    assert state.per_token() == pytest.approx(before)


@pytest.mark.parametrize("kind", list(EffectKind))
def test_calibrated_to_half_an_effect_keeps_about_half_its_log_gain(kind):
    import math

    effect = ONE_OF_EACH[kind]
    whole, half = state_for(kind), state_for(kind)
    before = whole.per_token()
    apply_effect(effect, point_draw(effect), whole, CONTEXT)
    apply_effect(effect, calibrated(effect, point_draw(effect), 0.5), half, CONTEXT)
    full_gain, half_gain = math.log(before / whole.per_token()), math.log(before / half.per_token())
    assert 0 < half_gain < full_gain  # the launch and time-saved models are not log-linear: less, not exactly half


def test_a_kind_measured_in_some_regimes_must_name_them():
    needing = {kind for kind, rule in KINDS.items() if rule.needs_regimes}
    assert needing == {EffectKind.STEP, EffectKind.TIME_SAVED}
    with pytest.raises(PlanningError) as refused:
        Effect(EffectKind.STEP, speedup=ThreePoint(1, 2, 3))
    assert refused.value.field == "regimes"


def test_only_speculative_decoding_changes_the_tokens_a_step_yields():
    assert [kind for kind, rule in KINDS.items() if rule.tokens] == [EffectKind.SPEC_DECODE]
    assert rule_of(EffectKind.SPEC_DECODE).magnitude is not None


def test_every_kind_has_a_label_and_a_sentence_and_every_input_a_presentation():
    from tierplan.text.effect_kinds import ESTIMATES, KIND_TEXTS, effect_text

    assert set(KIND_TEXTS) == set(EffectKind)
    assert {name for rule in KINDS.values() for name in rule.estimates} == set(ESTIMATES)
    assert effect_text(ONE_OF_EACH[EffectKind.BUCKET], ()) == "attention 2x (1.5–3x) faster in every regime"
    assert all(effect_text(effect, ["c1"]).endswith(" in c1") for effect in ONE_OF_EACH.values())

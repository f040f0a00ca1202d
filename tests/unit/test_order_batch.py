"""The greedy order scores every candidate at once; each score is the one the candidate gets alone."""

import math
from dataclasses import replace

import numpy as np
import pytest

from tests.factories import make_regime, same
from tests.unit.test_ceiling import gpu, moe
from tierplan.planning.ceiling import StepFloor
from tierplan.planning.effects import apply_effect, calibrated, point_draw
from tierplan.planning.model import (
    Campaign,
    Effect,
    EffectKind,
    Intervention,
    LaunchProfile,
    Profile,
    Regime,
    SpecDecode,
    Status,
    ThreePoint,
    Tier,
)
from tierplan.planning.order_batch import groups_of, stack_log_gains, stacks_of
from tierplan.planning.projection import cap_tok_s, context_of
from tierplan.planning.step import StepState, start_state
from tierplan.planning.step_changes import EffectDraw, RegimeContext
from tierplan.planning.tiering import MIN_EFFORT_DAYS, suggest_order

BUCKETS = ("attention", "moe", "dense_gemm", "other")


def mixed_campaign(seed: int, with_floor: bool) -> Campaign:
    """Every effect kind, effects limited to some regimes, work already in one baseline, traces and floors, and a
    regime whose profile lacks a bucket the others have."""
    rng = np.random.default_rng(seed)
    names = ("batch 1", "concurrency 8", "concurrency 64", "concurrency 512")
    launches = LaunchProfile(gpu_items=400, host_launches=400, step_ms=12.0, gpu_gap_us=0.5, gap_measured=False)
    regimes = tuple(
        make_regime(name, dict(zip(BUCKETS[: 3 if n == 3 else 4], rng.dirichlet(np.ones(3 if n == 3 else 4)).tolist(),
                                   strict=True)),
                    concurrency=2 ** (3 * n), baseline_tok_s=10.0 * (n + 1), includes=frozenset({"K0"}) if n == 2 else
                    frozenset(), step_ms=12.0 if n == 0 else None)
        for n, name in enumerate(names)
    )
    traced = replace(regimes[0], profile=Profile.of(dict(regimes[0].profile.shares), launches))
    regimes = (traced, *regimes[1:])
    effects = [
        Effect(kind=EffectKind.BUCKET, bucket="attention", speedup=ThreePoint(1.5, 2, 3)),
        Effect(kind=EffectKind.BUCKET, bucket="host_overhead", speedup=same(3)),
        Effect(kind=EffectKind.STEP, speedup=same(1.3), regimes=frozenset(names[:2])),
        Effect(kind=EffectKind.TIME_SAVED, saved_ms=same(0.5), regimes=frozenset(names[1:])),
        Effect(kind=EffectKind.TIME_SAVED, bucket="moe", saved_ms=same(0.2), regimes=frozenset(names)),
        Effect(kind=EffectKind.LAUNCH_OVERHEAD, removed=same(0.95)),
        Effect(kind=EffectKind.LAUNCH_COUNT, launches=same(-74)),
        Effect(kind=EffectKind.SPEC_DECODE, spec=SpecDecode(draft_tokens=2, acceptance=ThreePoint(0.5, 0.7, 0.8),
                                                            draft_cost=same(0.1))),
        Effect(kind=EffectKind.SPEC_DECODE, spec=SpecDecode(draft_tokens=1, acceptance=same(0.7))),
        Effect(kind=EffectKind.SPEC_DECODE, spec=SpecDecode(draft_tokens=3, per_position=(0.8, 0.6, 0.4))),
        Effect(kind=EffectKind.BUCKET, bucket="sampling", speedup=same(2)),  # no such bucket: changes nothing
    ]
    interventions = []
    for n in range(24):
        chosen = rng.choice(len(effects), size=1 + n % 3, replace=False)
        interventions.append(Intervention(
            f"K{n}", f"candidate {n}", ThreePoint(1, 1 + n % 5, 9), tier_key="A",
            effects=tuple(effects[i] for i in chosen), prerequisites=("K3",) if n == 7 else ()))
    floors = tuple((r.name, StepFloor(gpu(), moe(), r.concurrency, 512)) for r in regimes) if with_floor else ()
    return Campaign(regimes, (Tier("A", "A", 1),), tuple(interventions), floors=floors,
                    ceilings_tok_s=() if with_floor else tuple((r.name, 400.0) for r in regimes))


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("with_floor", [False, True])
def test_each_batched_score_is_the_candidates_own_score(seed, with_floor):
    """Half the candidates keep a prototype's share of their log-gain (a speculative decoding's: of its tokens)."""
    campaign = mixed_campaign(seed, with_floor)
    todo = list(campaign.interventions)
    draws = {i.key: [calibrated(e, point_draw(e), 0.6 if n % 2 else None) for e in i.effects]
             for n, i in enumerate(todo)}
    regimes = list(campaign.regimes)
    states = {r.name: start_state(r.profile) for r in regimes}
    contexts = {r.name: context_of(r, campaign) for r in regimes}
    stacks = stacks_of(regimes, states, campaign)
    assert 1 < len(stacks) < len(regimes)  # a traced regime stands alone, the three others share a stack
    batched = sum(stack_log_gains(stack, groups_of(todo, draws, stack), states, campaign, len(todo)).log_gains.sum(axis=0)
                  for stack in stacks) / len(regimes)
    for n, candidate in enumerate(todo):
        alone, _ = score_alone(candidate, draws[candidate.key], regimes, states, contexts, campaign)
        assert batched[n] == pytest.approx(alone, rel=1e-12, abs=1e-15), candidate.key


def score_alone(intervention: Intervention, draws: list[EffectDraw], regimes: list[Regime],
                states: dict[str, StepState], contexts: dict[str, RegimeContext], campaign: Campaign
                ) -> tuple[float, dict[str, StepState]]:
    """One candidate scored by itself, effect by effect (what the planner did before batching): the mean
    log-throughput gain over regimes if it came next, and the states it leaves."""
    new_states: dict[str, StepState] = {}
    log_gains: list[float] = []
    for regime in regimes:
        before = states[regime.name]
        after = before.copy()
        if intervention.key not in regime.includes:
            for effect, draw in zip(intervention.effects, draws, strict=True):
                apply_effect(effect, draw, after, contexts[regime.name])
        new_states[regime.name] = after
        log_gains.append(math.log(tok_s_of(regime, after, campaign) / tok_s_of(regime, before, campaign)))
    return sum(log_gains) / len(log_gains), new_states


def tok_s_of(regime: Regime, state: StepState, campaign: Campaign) -> float:
    tok_s = float(regime.baseline_tok_s or 0) * float(state.tokens) / max(float(state.step()), 1e-12)
    cap = cap_tok_s(campaign, regime, state)
    return min(tok_s, float(cap)) if cap else tok_s


def greedy_one_by_one(campaign: Campaign) -> list[tuple[str, float]]:
    """The order as the planner made it before batching: every ready candidate scored alone, each round."""
    todo = [i for i in campaign.interventions if i.status is not Status.REJECTED]
    regimes = [r for r in campaign.regimes if r.baseline_tok_s]
    states = {r.name: start_state(r.profile) for r in regimes}
    contexts = {r.name: context_of(r, campaign) for r in regimes}
    draws = {i.key: [point_draw(e) for e in i.effects] for i in todo}
    placed: set[str] = set()
    order = []
    while ready := [i for i in todo if i.key not in placed and set(i.prerequisites) <= placed]:
        scored = [(score_alone(i, draws[i.key], regimes, states, contexts, campaign), n, i) for n, i in enumerate(ready)]
        (log_gain, states), _, best = max(scored, key=lambda s: (s[0][0] / max(s[2].effort_days.likely, MIN_EFFORT_DAYS),
                                                          -todo.index(s[2])))
        placed.add(best.key)
        order.append((best.key, math.exp(log_gain)))
    return order


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("with_floor", [False, True])
def test_the_batched_order_is_the_one_by_one_order(seed, with_floor):
    campaign = mixed_campaign(seed, with_floor)
    ordering = suggest_order(campaign)
    one_by_one = greedy_one_by_one(campaign)
    assert [p.key for p in ordering.picks] == [key for key, _ in one_by_one]
    assert [p.gain for p in ordering.picks] == pytest.approx([gain for _, gain in one_by_one], rel=1e-12)
    assert len({p.gain for p in ordering.picks}) > 3 and all(math.isfinite(p.gain) for p in ordering.picks)

"""A suggested order: greedy by marginal projected gain per effort day, recomputed after each pick.

The gain of a candidate is measured on the state the earlier picks leave
(so Amdahl's law shrinks the gain of a bucket already made fast), as the
mean over regimes with a baseline of the log-throughput it adds, capped at
the hardware ceiling. A candidate waits until its prerequisites are picked.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.planning.effects import EffectDraw, RegimeContext, apply_effect, point_draw
from app.planning.model import Campaign, EffectKind, Intervention, Regime, Status
from app.planning.order_batch import batch_log_gains, groups_of
from app.planning.projection import ALREADY_IN_BASELINE, cap_tok_s, context_of
from app.planning.step import StepState, start_state

MIN_EFFORT_DAYS = 0.1  # a zero-day estimate must not make the gain per day infinite
EFFORT_BANDS = ((5.0, "A", "days"), (30.0, "B", "weeks"), (math.inf, "C", "months"))


@dataclass(frozen=True)
class Pick:
    key: str
    title: str
    effort_days: float
    gain: float  # geometric-mean throughput factor this pick adds, given the earlier picks
    gain_per_day: float  # log-gain per effort day
    cumulative_days: float
    band: str  # suggested tier letter by effort band
    band_label: str


@dataclass(frozen=True)
class Ordering:
    picks: tuple[Pick, ...]
    overlaps: tuple[tuple[str, tuple[str, ...]], ...]  # bucket -> interventions that all speed it up
    blocked: tuple[tuple[str, str], ...]  # key -> why it could not be placed


def effort_band(effort_days: float) -> tuple[str, str]:
    """The suggested tier letter and label for a likely effort in days."""
    return next((letter, label) for limit, letter, label in EFFORT_BANDS if effort_days <= limit)


def same_bucket_overlaps(interventions: Iterable[Intervention]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Buckets that two or more live interventions speed up: their gains multiply on that bucket, they do not add."""
    by_bucket: dict[str, list[str]] = {}
    for intervention in interventions:
        if intervention.status is Status.REJECTED:
            continue
        for effect in intervention.effects:
            if effect.kind in (EffectKind.BUCKET, EffectKind.TIME_SAVED) and effect.bucket:
                keys = by_bucket.setdefault(effect.bucket, [])
                if intervention.key not in keys:
                    keys.append(intervention.key)
    return tuple((b, tuple(keys)) for b, keys in by_bucket.items() if len(keys) > 1)


def suggest_order(campaign: Campaign) -> Ordering:
    """Greedy order of the interventions still to do, with overlaps and blocked ones listed."""
    done = {i.key for i in campaign.interventions if i.status in ALREADY_IN_BASELINE}
    todo = [i for i in campaign.interventions if i.status is not Status.REJECTED and i.key not in done]
    known = {i.key for i in campaign.interventions}
    regimes = [r for r in campaign.regimes if r.baseline_tok_s]
    states = {r.name: start_state(r.profile) for r in regimes}
    contexts = {r.name: context_of(r, campaign) for r in regimes}
    draws = {i.key: [point_draw(e) for e in i.effects] for i in todo}
    groups = {r.name: groups_of(todo, draws, r) for r in regimes}
    by_regime: dict[str, Any] = {}  # regime -> every candidate's log-gain there, while its step is unchanged
    needs = [set(i.prerequisites) for i in todo]
    per_day = np.array([max(i.effort_days.likely, MIN_EFFORT_DAYS) for i in todo])
    picked: list[Pick] = []
    placed = set(done)
    total_days = 0.0
    while True:
        ready = np.array([i.key not in placed and needs[n] <= placed for n, i in enumerate(todo)], dtype=bool)
        if not ready.any():
            break
        # every candidate scored at once (order_batch.py), a regime again only once a pick changed its step;
        # the pick's own gain and states as _score gives them
        for r in regimes:
            if r.name not in by_regime:
                by_regime[r.name] = batch_log_gains(len(todo), groups[r.name], states[r.name], contexts[r.name], r,
                                                    campaign, _tok_s(r, states[r.name], campaign))
        gains = sum((by_regime[r.name] for r in regimes), np.zeros(len(todo))) / max(len(regimes), 1)
        best = todo[int(np.argmax(np.where(ready, gains / per_day, -np.inf)))]  # ties: the earliest in the plan
        log_gain, states = _score(best, draws[best.key], regimes, states, contexts, campaign)
        for r in regimes:
            if best.key not in r.includes and any(e.applies_to(r.name) for e in best.effects):
                by_regime.pop(r.name, None)
        placed.add(best.key)
        total_days += best.effort_days.likely
        letter, label = effort_band(best.effort_days.likely)
        picked.append(
            Pick(
                key=best.key,
                title=best.title,
                effort_days=best.effort_days.likely,
                gain=math.exp(log_gain),
                gain_per_day=log_gain / max(best.effort_days.likely, MIN_EFFORT_DAYS),
                cumulative_days=total_days,
                band=letter,
                band_label=label,
            )
        )
    blocked = tuple((i.key, _why_blocked(i, placed, known)) for i in todo if i.key not in placed)
    return Ordering(picks=tuple(picked), overlaps=same_bucket_overlaps(campaign.interventions), blocked=blocked)


def _score(intervention: Intervention, draws: list[EffectDraw], regimes: Iterable[Regime],
           states: dict[str, StepState], contexts: dict[str, RegimeContext], campaign: Campaign
           ) -> tuple[float, dict[str, StepState]]:
    """Mean log-throughput gain over regimes if this intervention came next, and the states it leaves."""
    new_states: dict[str, StepState] = {}
    log_gains: list[float] = []
    for regime in regimes:
        before = states[regime.name]
        after = before.copy()
        if intervention.key not in regime.includes:
            for effect, draw in zip(intervention.effects, draws, strict=False):
                apply_effect(effect, draw, after, contexts[regime.name])
        new_states[regime.name] = after
        log_gains.append(math.log(_tok_s(regime, after, campaign) / _tok_s(regime, before, campaign)))
    return (sum(log_gains) / len(log_gains) if log_gains else 0.0), new_states


def _tok_s(regime: Regime, state: StepState, campaign: Campaign) -> float:
    tok_s = float(regime.baseline_tok_s or 0) * float(state.tokens) / max(float(state.step()), 1e-12)
    cap = cap_tok_s(campaign, regime, state)
    return min(tok_s, float(cap)) if cap else tok_s


def _why_blocked(intervention: Intervention, placed: set[str], known: set[str]) -> str:
    missing = [k for k in intervention.prerequisites if k not in placed]
    unknown = [k for k in missing if k not in known]
    if unknown:
        return f"needs {', '.join(unknown)}, which no intervention is called"
    return f"waits for {', '.join(missing)} (rejected, blocked, or a cycle)"

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

import numpy as np

from tierplan.planning.effect_kinds import rule_of
from tierplan.planning.effects import calibrated, point_draw
from tierplan.planning.model import Campaign, Intervention, Status
from tierplan.planning.order_batch import Scores, groups_of, stack_log_gains, stacks_of, states_after
from tierplan.planning.projection import ALREADY_IN_BASELINE
from tierplan.planning.step import start_state

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
            if rule_of(effect.kind).on_bucket and effect.bucket:
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
    # a prototype's benchmark sized its effects: order on that size
    draws = {i.key: [calibrated(e, point_draw(e), i.realised) for e in i.effects] for i in todo}
    stacks = stacks_of(regimes, states, campaign)
    groups = [groups_of(todo, draws, stack) for stack in stacks]
    scored: dict[int, Scores] = {}  # stack -> its candidates' scores, while its steps are unchanged
    waiting = [set(i.prerequisites) - done for i in todo]
    dependents: dict[str, list[int]] = {}
    for n, keys in enumerate(waiting):
        for key in keys:
            dependents.setdefault(key, []).append(n)
    ready = np.array([not w for w in waiting], dtype=bool)
    per_day = np.array([max(i.effort_days.likely, MIN_EFFORT_DAYS) for i in todo])
    picked: list[Pick] = []
    placed = set(done)
    total_days = 0.0
    while ready.any():
        # every candidate in every regime scored at once (order_batch.py), a stack again only once a pick changed
        # one of its steps; the pick's column of each stack is the steps it leaves
        for s, stack in enumerate(stacks):
            if s not in scored:
                scored[s] = stack_log_gains(stack, groups[s], states, campaign, len(todo))
        gains = sum((scored[s].log_gains.sum(axis=0) for s in range(len(stacks))), np.zeros(len(todo)))
        gains = gains / max(len(regimes), 1)
        chosen = int(np.argmax(np.where(ready, gains / per_day, -np.inf)))  # ties: the earliest in the plan
        best, log_gain = todo[chosen], float(gains[chosen])
        for s, stack in enumerate(stacks):
            if any(best.key not in r.includes and any(e.applies_to(r.name) for e in best.effects) for r in stack.regimes):
                states = {**states, **states_after(stack, scored.pop(s), chosen, states)}
        placed.add(best.key)
        ready[chosen] = False
        for n in dependents.get(best.key, ()):
            waiting[n].discard(best.key)
            ready[n] = not waiting[n]
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


def _why_blocked(intervention: Intervention, placed: set[str], known: set[str]) -> str:
    missing = [k for k in intervention.prerequisites if k not in placed]
    unknown = [k for k in missing if k not in known]
    if unknown:
        return f"needs {', '.join(unknown)}, which no intervention is called"
    return f"waits for {', '.join(missing)} (rejected, blocked, or a cycle)"

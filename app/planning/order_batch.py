"""The greedy order's scores of every candidate at once: one array element a candidate.

Each candidate's effects are applied to its own element of the step (numpy broadcasts the scalar step); an effect leaves the
other elements as they are by taking its identity value there (a speedup of 1, nothing saved, no
launch cost removed, speculative decoding kept to the power 0). The arithmetic is apply_effect's,
so a candidate's score is the one `_score` in tiering.py computes for it alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from app.planning.effects import EffectDraw, RegimeContext, apply_effect, three_points
from app.planning.model import Campaign, Effect, EffectKind, Intervention, Regime
from app.planning.projection import cap_tok_s
from app.planning.step import StepState

IDENTITY = {"speedup": 1.0, "saved_ms": 0.0, "removed": 0.0, "launches": 0.0, "draft_cost": 0.0}


@dataclass(frozen=True)
class Group:
    """Effects at the same position of several candidates that take the same code path in one regime."""

    effect: Effect  # one of them: its kind, bucket and speculative-decoding shape stand for all
    draw: EffectDraw  # arrays over all candidates, identity where a candidate is not a member


def groups_of(candidates: list[Intervention], draws: dict[str, list[EffectDraw]], regime: Regime) -> list[Group]:
    """The groups to apply, in effect order, for `regime` (candidates that include their work in its baseline
    or whose effects do not hold there get the identity)."""
    n = len(candidates)
    depth = max((len(c.effects) for c in candidates), default=0)
    out: list[Group] = []
    for k in range(depth):
        members: dict[tuple[Any, ...], list[int]] = {}
        for j, candidate in enumerate(candidates):
            if k < len(candidate.effects) and candidate.key not in regime.includes:
                effect = candidate.effects[k]
                if effect.applies_to(regime.name):
                    members.setdefault(_shape(effect), []).append(j)
        for indices in members.values():
            first = candidates[indices[0]]
            effect = first.effects[k]
            values: dict[str, Any] = {}
            for name in three_points(effect):
                column = np.full(n, IDENTITY.get(name, 0.5))
                column[indices] = [getattr(draws[candidates[j].key][k], name) for j in indices]
                values[name] = column
            if effect.kind is EffectKind.SPEC_DECODE:
                keep = np.zeros(n)
                keep[indices] = 1.0
                values["realised"] = keep
            out.append(Group(effect, EffectDraw(**values)))
    return out


def _shape(effect: Effect) -> tuple[Any, ...]:
    spec = effect.spec
    if spec is None:
        return (effect.kind, effect.bucket)
    return (effect.kind, spec.draft_tokens, spec.per_position, spec.draft_cost is None, spec.acceptance is None)


def batch_log_gains(n: int, groups: list[Group], state: StepState, context: RegimeContext, regime: Regime,
                    campaign: Campaign, before_tok_s: float) -> Any:
    """Each candidate's log-throughput gain in this regime if it came next."""
    batch = state.copy()  # scalars: the first effect of a group turns what it touches into arrays (broadcasting)
    for group in groups:
        apply_effect(group.effect, group.draw, batch, context)
    return np.broadcast_to(np.log(batch_tok_s(regime, batch, campaign) / before_tok_s), (n,))


def batch_tok_s(regime: Regime, state: StepState, campaign: Campaign) -> Any:
    """Throughput of each element of a batched step, capped as `_tok_s` caps one."""
    tokens = np.asarray(state.tokens, dtype=float)
    tok_s = float(regime.baseline_tok_s or 0) * tokens / np.maximum(np.asarray(state.step(), dtype=float), 1e-12)
    verify = np.asarray(state.verify_tokens)
    if verify.ndim == 0:  # no candidate verifies drafts differently from the others
        found = cap_tok_s(campaign, regime, StepState({}, None, tokens, int(verify)))
        cap = np.zeros_like(tok_s) if found is None else np.broadcast_to(found, tok_s.shape)
    else:
        cap = np.zeros_like(tok_s)
        for value in sorted(set(verify.tolist())):  # one or two values: the plain step and g + 1
            chosen = verify == value
            found = cap_tok_s(campaign, regime, StepState({}, None, tokens[chosen], int(value)))
            cap[chosen] = 0.0 if found is None else found
    return np.where(cap != 0, np.minimum(tok_s, cap), tok_s)

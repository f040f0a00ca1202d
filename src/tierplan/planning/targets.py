"""What a regime's target is: the same speed read three ways at the regime's concurrency c.

The planner always plans against the aggregate output tok/s of the regime (all c sequences together). A team may
state its target as that aggregate, as tok/s each user sees (aggregate / c), or as the time per output token a user
sees (TPOT, 1000 / per-user tok/s, in ms). At the regime's own concurrency the three are one number; they part when
the concurrency changes (the concurrency curve, concurrency_curve.py): an aggregate target stays put, a per-user
or TPOT target asks c times the per-user speed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum


class TargetKind(StrEnum):
    AGGREGATE = "aggregate"
    PER_USER = "per_user"
    TPOT = "tpot"


@dataclass(frozen=True)
class TargetViews:
    """One target, every way it reads at a concurrency."""

    aggregate_tok_s: float
    per_user_tok_s: float
    tpot_ms: float


def views(aggregate_tok_s: float, concurrency: float) -> TargetViews:
    per_user = aggregate_tok_s / concurrency
    return TargetViews(aggregate_tok_s, per_user, 1000.0 / per_user if per_user > 0 else math.inf)


def aggregate_of(kind: TargetKind, value: float, concurrency: float) -> float:
    """The aggregate tok/s a target stated as `kind` (tok/s, tok/s per user or ms TPOT) asks at `concurrency`."""
    if kind is TargetKind.AGGREGATE:
        return value
    per_user = value if kind is TargetKind.PER_USER else 1000.0 / value
    return per_user * concurrency


def stated(kind: TargetKind, aggregate_tok_s: float, concurrency: float) -> float:
    """The number the team stated (in its kind's unit) for an aggregate target at `concurrency`."""
    seen = views(aggregate_tok_s, concurrency)
    return {TargetKind.AGGREGATE: seen.aggregate_tok_s, TargetKind.PER_USER: seen.per_user_tok_s,
            TargetKind.TPOT: seen.tpot_ms}[kind]


def aggregate_at(kind: TargetKind, aggregate_tok_s: float, own_concurrency: float, concurrency: float) -> float:
    """What the regime's target asks at another concurrency: the same aggregate, or the same per-user speed."""
    if kind is TargetKind.AGGREGATE:
        return aggregate_tok_s
    return aggregate_tok_s / own_concurrency * concurrency

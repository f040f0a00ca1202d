"""Core value types of the planning domain: frozen, unit-named, free of I/O."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum

SHARE_TOLERANCE = 1e-6
OTHER_BUCKET = "other"


class PlanningError(ValueError):
    """Inputs the planning core cannot compute from (the message says which)."""


class Provenance(str, Enum):
    """Where a stored number came from."""

    MEASURED = "measured"
    IMPORTED = "imported"
    REPORTED = "reported"
    ASSUMED = "assumed"


class Status(str, Enum):
    """Lifecycle of an intervention."""

    PROPOSED = "proposed"
    IN_PROGRESS = "in progress"
    LANDED = "landed"
    VALIDATED = "validated"
    REJECTED = "rejected"


class EffectKind(str, Enum):
    BUCKET = "bucket"  # speedup on one bucket of step time
    STEP = "step"  # whole-step multiplier, valid only in the regimes it names


class Comparator(str, Enum):
    AT_LEAST = ">="
    AT_MOST = "<="


@dataclass(frozen=True)
class ThreePoint:
    """A low / likely / high estimate; low <= likely <= high."""

    low: float
    likely: float
    high: float

    def __post_init__(self) -> None:
        values = (self.low, self.likely, self.high)
        if not all(math.isfinite(v) for v in values):
            raise PlanningError("estimates must be finite numbers")
        if not self.low <= self.likely <= self.high:
            raise PlanningError(
                f"estimate must satisfy low <= likely <= high, got {self.low} / {self.likely} / {self.high}"
            )


@dataclass(frozen=True)
class Profile:
    """Shares (0..1) of one step's time by bucket.

    Shares summing to less than 1 give the remainder to the "other" bucket;
    shares summing to more than 1 (beyond a 1e-6 tolerance) are an error.
    """

    shares: tuple[tuple[str, float], ...]

    @classmethod
    def of(cls, shares: dict[str, float]) -> Profile:
        """Build a normalised profile; raises PlanningError on negative shares or a sum above 1."""
        cleaned: dict[str, float] = {}
        for bucket, share in shares.items():
            if not math.isfinite(share) or share < 0:
                raise PlanningError(f"share of {bucket!r} must be a number >= 0, got {share}")
            cleaned[bucket] = cleaned.get(bucket, 0.0) + share
        total = sum(cleaned.values())
        if total > 1 + SHARE_TOLERANCE:
            raise PlanningError(f"shares sum to {total:.4f}, more than 1")
        remainder = 1.0 - total
        if remainder > SHARE_TOLERANCE:
            cleaned[OTHER_BUCKET] = cleaned.get(OTHER_BUCKET, 0.0) + remainder
        return cls(shares=tuple(cleaned.items()))

    def as_dict(self) -> dict[str, float]:
        return dict(self.shares)


@dataclass(frozen=True)
class Effect:
    """What an intervention does to step time.

    A bucket effect divides that bucket's time by `speedup`; empty `regimes`
    means every regime. A step effect divides the whole step and must name
    the regimes where it was measured or estimated.
    """

    kind: EffectKind
    speedup: ThreePoint
    bucket: str | None = None
    regimes: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        if self.speedup.low <= 0:
            raise PlanningError("a speedup must be greater than 0")
        if self.kind is EffectKind.BUCKET and not self.bucket:
            raise PlanningError("a bucket effect needs a bucket")
        if self.kind is EffectKind.STEP and not self.regimes:
            raise PlanningError("a whole-step multiplier must name the regimes it applies to")

    def applies_to(self, regime_name: str) -> bool:
        return not self.regimes or regime_name in self.regimes


@dataclass(frozen=True)
class Intervention:
    key: str
    title: str
    effort_days: ThreePoint
    status: Status = Status.PROPOSED
    tier_key: str | None = None
    effects: tuple[Effect, ...] = ()


@dataclass(frozen=True)
class Tier:
    key: str
    name: str
    order: int
    started_at: datetime | None = None


@dataclass(frozen=True)
class Regime:
    """One workload point; `baseline_tok_s` is the newest measured output throughput, if any."""

    name: str
    concurrency: int
    target_tok_s: float
    baseline_tok_s: float | None = None
    baseline_measured_at: datetime | None = None
    profile: Profile | None = None


@dataclass(frozen=True)
class Measurement:
    regime: str
    metric: str
    value: float
    measured_at: datetime


@dataclass(frozen=True)
class Gate:
    tier_key: str
    regime: str
    metric: str
    comparator: Comparator
    threshold: float


@dataclass(frozen=True)
class Campaign:
    """Everything the planner needs about one campaign."""

    regimes: tuple[Regime, ...]
    tiers: tuple[Tier, ...]
    interventions: tuple[Intervention, ...]
    gates: tuple[Gate, ...] = ()
    measurements: tuple[Measurement, ...] = field(default=())

"""Small factories for core values: defaults that read well, overrides by keyword."""

from __future__ import annotations

from datetime import datetime

from tierplan.planning.model import (
    Campaign,
    Comparator,
    Effect,
    EffectKind,
    Gate,
    Intervention,
    Measurement,
    MeasurementKind,
    Profile,
    Regime,
    Status,
    ThreePoint,
    Tier,
)


def same(value: float) -> ThreePoint:
    return ThreePoint(value, value, value)


def bucket_effect(bucket: str, speedup: float, *regimes: str) -> Effect:
    return Effect(kind=EffectKind.BUCKET, bucket=bucket, speedup=same(speedup), regimes=frozenset(regimes))


def step_effect(speedup: float, *regimes: str) -> Effect:
    return Effect(kind=EffectKind.STEP, speedup=same(speedup), regimes=frozenset(regimes))


def make_intervention(key: str = "X1", *effects: Effect, **overrides) -> Intervention:
    values = {"key": key, "title": f"intervention {key}", "effort_days": same(1), "tier_key": "A", "effects": effects}
    values.update(overrides)
    return Intervention(**values)


def make_regime(name: str = "batch 1", shares: dict[str, float] | None = None, **overrides) -> Regime:
    values = {
        "name": name,
        "concurrency": 1,
        "target_tok_s": 1000.0,
        "baseline_tok_s": 10.0,
        "baseline_measured_at": datetime(2026, 11, 1),
        "profile": Profile.of(shares if shares is not None else {"attention": 0.63, "moe": 0.2, "other": 0.17}),
    }
    values.update(overrides)
    return Regime(**values)


def make_tier(key: str = "A", order: int = 1, started_at: datetime | None = None) -> Tier:
    return Tier(key=key, name=f"tier {key}", order=order, started_at=started_at)


def make_campaign(regimes=(), interventions=(), tiers=None, gates=(), measurements=()) -> Campaign:
    return Campaign(
        regimes=tuple(regimes),
        tiers=tuple(tiers if tiers is not None else (make_tier("A", 1),)),
        interventions=tuple(interventions),
        gates=tuple(gates),
        measurements=tuple(measurements),
    )


def make_gate(regime: str = "batch 1", threshold: float = 40.0, **overrides) -> Gate:
    values = {"tier_key": "A", "regime": regime, "metric": "output_tok_s", "comparator": Comparator.AT_LEAST, "threshold": threshold}  # noqa: E501
    values.update(overrides)
    return Gate(**values)


def make_measurement(value: float, measured_at: datetime, regime: str = "batch 1", metric: str = "output_tok_s",
                     includes=(), kind: MeasurementKind = MeasurementKind.BASELINE) -> Measurement:
    return Measurement(regime=regime, metric=metric, value=value, measured_at=measured_at, kind=kind,
                       includes=frozenset(includes))


__all__ = ["Status", "make_campaign", "make_gate", "make_intervention", "make_measurement", "make_regime", "make_tier"]

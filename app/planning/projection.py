"""Amdahl composition of a plan, per regime, tier after tier."""

from __future__ import annotations

from dataclasses import dataclass

from app.planning.model import (
    Campaign,
    Effect,
    EffectKind,
    Intervention,
    Profile,
    Regime,
    Status,
    Tier,
)

UNPROFILED_BUCKET = "unprofiled"
ALREADY_IN_BASELINE = (Status.LANDED, Status.VALIDATED)


@dataclass(frozen=True)
class Verdict:
    """Projected throughput against the target; `ratio` is target / projected."""

    reaches: bool | None
    ratio: float | None
    text: str


@dataclass(frozen=True)
class Step:
    """The state of one regime after a tier (or at baseline, `tier_key` None)."""

    tier_key: str | None
    step_rel: float  # step time relative to the baseline step (1.0)
    gain: float  # baseline step time / this step time
    step_ms: float | None
    tok_s: float | None
    shares: tuple[tuple[str, float], ...]
    bottleneck: str
    verdict: Verdict
    applied: tuple[str, ...] = ()  # intervention keys whose effects this tier applied


@dataclass(frozen=True)
class RegimeProjection:
    regime: str
    target_tok_s: float
    baseline: Step
    steps: tuple[Step, ...]
    notes: tuple[str, ...]

    @property
    def final(self) -> Step:
        return self.steps[-1] if self.steps else self.baseline

    def after(self, tier_key: str) -> Step | None:
        return next((s for s in self.steps if s.tier_key == tier_key), None)


def verdict(tok_s: float | None, target_tok_s: float) -> Verdict:
    """Compare a throughput (tok/s) with the target; None means nothing measured."""
    if tok_s is None:
        return Verdict(reaches=None, ratio=None, text="no baseline measured")
    ratio = target_tok_s / tok_s
    if ratio <= 1:
        return Verdict(reaches=True, ratio=ratio, text="reaches the target")
    return Verdict(reaches=False, ratio=ratio, text=f"short by {ratio:.1f}x")


def amdahl_step_rel(share: float, speedup: float) -> float:
    """Step time (relative) after a bucket of `share` is made `speedup` times faster."""
    return (1.0 - share) + share / speedup


def plan_order(campaign: Campaign) -> list[tuple[Tier, list[Intervention]]]:
    """Tiers by their order, each with its interventions in stored order."""
    tiers = sorted(campaign.tiers, key=lambda t: (t.order, t.key))
    return [(t, [i for i in campaign.interventions if i.tier_key == t.key]) for t in tiers]


def project_campaign(campaign: Campaign) -> tuple[RegimeProjection, ...]:
    """Project every regime of the campaign through its tiers (likely values)."""
    return tuple(project_regime(regime, campaign) for regime in campaign.regimes)


def project_regime(regime: Regime, campaign: Campaign, pick: str = "likely") -> RegimeProjection:
    """Apply the tiers in order to one regime's profile, using the `pick` point of each estimate."""
    notes: list[str] = []
    profile = regime.profile
    if profile is None:
        profile = Profile.of({UNPROFILED_BUCKET: 1.0})
        notes.append(f"{regime.name} has no profile: bucket effects cannot apply, only whole-step ones")
    times = profile.as_dict()
    baseline_step_ms = (
        regime.concurrency * 1000.0 / regime.baseline_tok_s if regime.baseline_tok_s else None
    )
    baseline = _snapshot(None, times, regime, baseline_step_ms, ())
    steps = []
    for tier, interventions in plan_order(campaign):
        applied = []
        for intervention in interventions:
            if not _counts(intervention, tier, regime, notes):
                continue
            touched = False
            for effect in intervention.effects:
                touched |= _apply(effect, getattr(effect.speedup, pick), times, regime, intervention, notes)
            if touched:
                applied.append(intervention.key)
        steps.append(_snapshot(tier.key, times, regime, baseline_step_ms, tuple(applied)))
    return RegimeProjection(
        regime=regime.name,
        target_tok_s=regime.target_tok_s,
        baseline=baseline,
        steps=tuple(steps),
        notes=tuple(notes),
    )


def _counts(intervention: Intervention, tier: Tier, regime: Regime, notes: list[str]) -> bool:
    if intervention.status is Status.REJECTED:
        return False
    if intervention.status in ALREADY_IN_BASELINE and _measured_after_start(regime, tier):
        notes.append(
            f"{intervention.key} is {intervention.status.value} and the {regime.name} baseline was "
            f"measured after tier {tier.key} started: counted as already in the baseline"
        )
        return False
    return True


def _measured_after_start(regime: Regime, tier: Tier) -> bool:
    return (
        regime.baseline_measured_at is not None
        and tier.started_at is not None
        and regime.baseline_measured_at > tier.started_at
    )


def _apply(
    effect: Effect,
    speedup: float,
    times: dict[str, float],
    regime: Regime,
    intervention: Intervention,
    notes: list[str],
) -> bool:
    if not effect.applies_to(regime.name):
        return False
    if effect.kind is EffectKind.STEP:
        for bucket in times:
            times[bucket] /= speedup
        return True
    if effect.bucket not in times:
        if regime.profile is not None:
            notes.append(
                f"{intervention.key}: the {regime.name} profile has no {effect.bucket!r} bucket, "
                "so its effect there is not applied"
            )
        return False
    times[effect.bucket] /= speedup
    return True


def _snapshot(
    tier_key: str | None,
    times: dict[str, float],
    regime: Regime,
    baseline_step_ms: float | None,
    applied: tuple[str, ...],
) -> Step:
    step_rel = sum(times.values())
    shares = tuple((b, t / step_rel) for b, t in times.items())
    tok_s = regime.baseline_tok_s / step_rel if regime.baseline_tok_s else None
    return Step(
        tier_key=tier_key,
        step_rel=step_rel,
        gain=1.0 / step_rel,
        step_ms=baseline_step_ms * step_rel if baseline_step_ms is not None else None,
        tok_s=tok_s,
        shares=shares,
        bottleneck=max(shares, key=lambda bs: bs[1])[0],
        verdict=verdict(tok_s, regime.target_tok_s),
        applied=applied,
    )

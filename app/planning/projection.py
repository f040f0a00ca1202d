"""Amdahl composition of a plan, per regime, tier after tier, capped by the hardware ceiling."""

from __future__ import annotations

from dataclasses import dataclass

from app.planning.effects import apply_effect, calibrated, point_draw
from app.planning.model import Campaign, Intervention, Profile, Regime, Status, Tier

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
    tok_s: float | None  # after the ceiling cap
    shares: tuple[tuple[str, float], ...]
    bottleneck: str
    verdict: Verdict
    applied: tuple[str, ...] = ()  # intervention keys whose effects this tier applied
    uncapped_tok_s: float | None = None
    capped: bool = False


@dataclass(frozen=True)
class RegimeProjection:
    regime: str
    target_tok_s: float
    baseline: Step
    steps: tuple[Step, ...]
    notes: tuple[str, ...]
    ceiling_tok_s: float | None = None
    ceiling_verdict: str | None = None

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


def ceiling_verdict(target_tok_s: float, ceiling_tok_s: float | None) -> str | None:
    """Plain words when the target lies above what the hardware can do at all."""
    if ceiling_tok_s is None:
        return None
    if target_tok_s > ceiling_tok_s:
        return (
            f"target {target_tok_s / ceiling_tok_s:.1f}x above the hardware ceiling: "
            "not reachable on this hardware whatever the plan"
        )
    return f"target within the hardware ceiling ({target_tok_s / ceiling_tok_s:.0%} of it)"


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


def baseline_step_ms(regime: Regime) -> float | None:
    """One decode step of the whole batch: concurrency tokens at the baseline throughput."""
    return regime.concurrency * 1000.0 / regime.baseline_tok_s if regime.baseline_tok_s else None


def start_times(regime: Regime, notes: list[str] | None = None) -> dict[str, float]:
    """Bucket times of the baseline step (summing to 1)."""
    if regime.profile is None:
        if notes is not None:
            notes.append(f"{regime.name} has no profile: bucket effects cannot apply, only whole-step ones")
        return Profile.of({UNPROFILED_BUCKET: 1.0}).as_dict()
    return regime.profile.as_dict()


def counts(intervention: Intervention, tier: Tier, regime: Regime, notes: list[str] | None = None) -> bool:
    """Whether the intervention's effects are still to come in this regime's projection."""
    if intervention.status is Status.REJECTED:
        return False
    if intervention.status in ALREADY_IN_BASELINE and _measured_after_start(regime, tier):
        if notes is not None:
            notes.append(
                f"{intervention.key} is {intervention.status.value} and the {regime.name} baseline was "
                f"measured after tier {tier.key} started: counted as already in the baseline"
            )
        return False
    return True


def project_regime(regime: Regime, campaign: Campaign, pick: str = "likely") -> RegimeProjection:
    """Apply the tiers in order to one regime's profile, using the `pick` point of each estimate."""
    notes: list[str] = []
    times = start_times(regime, notes)
    step0_ms = baseline_step_ms(regime)
    ceiling = campaign.ceiling_of(regime.name)
    if ceiling is not None and regime.baseline_tok_s and regime.baseline_tok_s > ceiling:
        notes.append(
            f"the measured baseline ({regime.baseline_tok_s:g} tok/s) is above the computed ceiling "
            f"({ceiling:.0f} tok/s): check the hardware and model specs"
        )
    baseline = _snapshot(None, times, regime, step0_ms, (), ceiling)
    steps = []
    for tier, interventions in plan_order(campaign):
        applied = []
        for intervention in interventions:
            if not counts(intervention, tier, regime, notes):
                continue
            touched = False
            for effect in intervention.effects:
                if not effect.applies_to(regime.name):
                    continue
                draw = calibrated(effect, point_draw(effect, pick), campaign.calibration)
                problem = apply_effect(effect, draw, times, regime.name, step0_ms)
                if problem is None:
                    touched = True
                elif regime.profile is not None or "bucket" not in problem:
                    notes.append(f"{intervention.key} in {regime.name}: {problem}, so that effect is not applied")
            if touched:
                applied.append(intervention.key)
        steps.append(_snapshot(tier.key, times, regime, step0_ms, tuple(applied), ceiling))
    return RegimeProjection(
        regime=regime.name,
        target_tok_s=regime.target_tok_s,
        baseline=baseline,
        steps=tuple(steps),
        notes=tuple(notes),
        ceiling_tok_s=ceiling,
        ceiling_verdict=ceiling_verdict(regime.target_tok_s, ceiling),
    )


def _measured_after_start(regime: Regime, tier: Tier) -> bool:
    return (
        regime.baseline_measured_at is not None
        and tier.started_at is not None
        and regime.baseline_measured_at > tier.started_at
    )


def _snapshot(
    tier_key: str | None,
    times: dict[str, float],
    regime: Regime,
    step0_ms: float | None,
    applied: tuple[str, ...],
    ceiling: float | None,
) -> Step:
    step_rel = sum(times.values())
    shares = tuple((b, t / step_rel) if step_rel > 0 else (b, 0.0) for b, t in times.items())
    uncapped = regime.baseline_tok_s / step_rel if regime.baseline_tok_s and step_rel > 0 else None
    if regime.baseline_tok_s and step_rel <= 0:
        uncapped = float("inf")
    capped = ceiling is not None and uncapped is not None and uncapped > ceiling
    tok_s = ceiling if capped else uncapped
    return Step(
        tier_key=tier_key,
        step_rel=step_rel,
        gain=1.0 / step_rel if step_rel > 0 else float("inf"),
        step_ms=step0_ms * step_rel if step0_ms is not None else None,
        tok_s=tok_s,
        shares=shares,
        bottleneck=max(shares, key=lambda bs: bs[1])[0],
        verdict=verdict(tok_s, regime.target_tok_s),
        applied=applied,
        uncapped_tok_s=uncapped,
        capped=capped,
    )

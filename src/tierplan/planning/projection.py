"""Amdahl composition of a plan, per regime, tier after tier, capped by the hardware ceiling."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from tierplan.planning.effects import apply_effect, calibrated, point_draw
from tierplan.planning.model import Campaign, Intervention, Regime, Status, Tier
from tierplan.planning.step import UNPROFILED_BUCKET, StepState, start_state
from tierplan.planning.step_changes import RegimeContext

ALREADY_IN_BASELINE = (Status.LANDED, Status.VALIDATED)


@dataclass(frozen=True)
class Verdict:
    """Projected throughput against the target; `ratio` is target / projected."""

    reaches: bool | None
    ratio: float | None


@dataclass(frozen=True)
class Step:
    """The state of one regime after a tier (or at baseline, `tier_key` None)."""

    tier_key: str | None
    step_rel: float  # step time relative to the baseline step (1.0)
    gain: float  # baseline time a token / this time a token
    step_ms: float | None
    tok_s: float | None  # after the ceiling cap
    shares: tuple[tuple[str, float], ...]
    bottleneck: str
    verdict: Verdict
    applied: tuple[str, ...] = ()  # intervention keys whose effects this tier applied
    uncapped_tok_s: float | None = None
    capped: bool = False
    tokens_per_step: float = 1.0  # a sequence, with speculative decoding
    contributions: tuple[tuple[str, float], ...] = ()  # gain over baseline after each applied intervention, in order


@dataclass(frozen=True)
class RegimeProjection:
    regime: str
    target_tok_s: float
    baseline: Step
    steps: tuple[Step, ...]
    notes: tuple[str, ...]
    ceiling_tok_s: float | None = None
    includes: tuple[str, ...] = ()  # what the baseline was measured with, in plan order

    @property
    def final(self) -> Step:
        return self.steps[-1] if self.steps else self.baseline

    def after(self, tier_key: str) -> Step | None:
        return next((s for s in self.steps if s.tier_key == tier_key), None)


def verdict(tok_s: float | None, target_tok_s: float) -> Verdict:
    """Compare a throughput (tok/s) with the target; None means nothing measured."""
    if tok_s is None:
        return Verdict(reaches=None, ratio=None)
    if not tok_s > 0:  # nothing flows (a step that takes for ever): no target is reached
        return Verdict(reaches=False, ratio=math.inf)
    ratio = target_tok_s / tok_s
    return Verdict(reaches=ratio <= 1, ratio=ratio)


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
    """One decode step: the measured TPOT where there is one, else concurrency tokens at the baseline throughput."""
    if regime.step_ms:
        return regime.step_ms
    return regime.concurrency * 1000.0 / regime.baseline_tok_s if regime.baseline_tok_s else None


def context_of(regime: Regime, campaign: Campaign) -> RegimeContext:
    return RegimeContext(regime.name, baseline_step_ms(regime), campaign.floor_of(regime.name), regime.concurrency)


def counts(intervention: Intervention, regime: Regime) -> bool:
    """Whether the intervention's effects are still to come in this regime: not rejected, not in its baseline."""
    return intervention.status is not Status.REJECTED and intervention.key not in regime.includes


def cap_tok_s(campaign: Campaign, regime: Regime, state: StepState) -> Any:
    """The throughput cap for the state: the hardware floor on the step, for the tokens it yields and verifies."""
    floor = campaign.floor_of(regime.name)
    if floor is not None:
        return floor.ceiling_tok_s(state.tokens, state.verify_tokens)
    ceiling = campaign.ceiling_of(regime.name)
    return None if ceiling is None else ceiling * state.tokens


def project_regime(regime: Regime, campaign: Campaign, pick: str = "likely") -> RegimeProjection:
    """Apply the tiers in order to one regime's step, using the `pick` point of each estimate."""
    notes: list[str] = []
    if regime.profile is None:
        notes.append(f"{regime.name} has no profile: bucket effects cannot apply, only whole-step ones")
    state = start_state(regime.profile)
    notes += state.notes
    context = context_of(regime, campaign)
    ceiling = campaign.ceiling_of(regime.name)
    if ceiling is not None and regime.baseline_tok_s and regime.baseline_tok_s > ceiling:
        notes.append(
            f"the measured baseline ({regime.baseline_tok_s:g} tok/s) is above the computed ceiling "
            f"({ceiling:.0f} tok/s): check the hardware and model specs"
        )
    step0 = baseline_step_ms(regime)
    launches = regime.profile.launches if regime.profile else None
    if launches is not None and step0 and abs(launches.step_ms / step0 - 1) > 0.15:
        notes.append(f"the profile's shares are of a {launches.step_ms:.4g} ms step, the baseline's step is "
                     f"{step0:.4g} ms: profile the baseline's state again, or the shares may not hold")
    baseline = _snapshot(None, state, regime, campaign, ())
    steps = []
    for tier, interventions in plan_order(campaign):
        applied = []
        gains: list[tuple[str, float]] = []
        for intervention in interventions:
            if not counts(intervention, regime):
                continue
            touched = False
            for effect in intervention.effects:
                if not effect.applies_to(regime.name):
                    continue
                draw = calibrated(effect, point_draw(effect, pick), intervention.realised_share(campaign.calibration))
                problem = apply_effect(effect, draw, state, context)
                if problem is None:
                    touched = True
                elif regime.profile is not None or "bucket" not in problem:
                    notes.append(f"{intervention.key} in {regime.name}: {problem}, so that effect is not applied")
            if touched:
                applied.append(intervention.key)
                step_rel = float(state.step())
                gains.append((intervention.key, float(state.tokens) / step_rel if step_rel > 0 else float("inf")))
        notes += [f"{', '.join(applied)} in {regime.name}: {n}" for n in state.notes if n not in notes]
        state.notes.clear()
        steps.append(replace(_snapshot(tier.key, state, regime, campaign, tuple(applied)), contributions=tuple(gains)))
    order = [i.key for _, members in plan_order(campaign) for i in members]
    order += sorted(k for k in regime.includes if k not in order)
    return RegimeProjection(
        regime=regime.name,
        target_tok_s=regime.target_tok_s,
        baseline=baseline,
        steps=tuple(steps),
        notes=tuple(notes),
        ceiling_tok_s=ceiling,
        includes=tuple(k for k in order if k in regime.includes),
    )


def _snapshot(tier_key: str | None, state: StepState, regime: Regime, campaign: Campaign, applied: tuple[str, ...]) -> Step:
    step_rel = float(state.step())
    tokens = float(state.tokens)
    shares = tuple((b, float(s)) for b, s in state.shares().items()) if step_rel > 0 else ()
    uncapped = None
    if regime.baseline_tok_s:
        uncapped = regime.baseline_tok_s * tokens / step_rel if step_rel > 0 else float("inf")
    cap = cap_tok_s(campaign, regime, state)
    capped = cap is not None and uncapped is not None and uncapped > cap
    tok_s = float(cap) if capped else uncapped
    step0_ms = baseline_step_ms(regime)
    per_token = step_rel / tokens
    return Step(
        tier_key=tier_key,
        step_rel=step_rel,
        gain=1.0 / per_token if per_token > 0 else float("inf"),
        step_ms=step0_ms * step_rel if step0_ms is not None else None,
        tok_s=tok_s,
        shares=shares,
        bottleneck=max(shares, key=lambda bs: bs[1])[0] if shares else UNPROFILED_BUCKET,
        verdict=verdict(tok_s, regime.target_tok_s),
        applied=applied,
        uncapped_tok_s=uncapped,
        capped=capped,
        tokens_per_step=tokens,
    )

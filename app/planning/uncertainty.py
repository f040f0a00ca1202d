"""Seeded Monte Carlo over the three-point estimates: P10 / P50 / P90 after each tier.

Each low / likely / high estimate is drawn from a PERT-beta distribution
(shape parameter 4): unlike a triangular one it puts most of its weight near
the likely value and thins out towards the ends, which is how an engineer's
"2-3x, most likely 2.5x" reads, and its mean (low + 4 likely + high) / 6 is
the classic PERT estimate. Draws are independent across estimates; the same
seed gives the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.planning.effects import EffectDraw, apply_effect, calibrated, three_points
from app.planning.model import Campaign, Intervention, Status, ThreePoint
from app.planning.projection import baseline_step_ms, counts, plan_order, start_times

PERT_SHAPE = 4.0
DEFAULT_SAMPLES = 10_000


@dataclass(frozen=True)
class TierDistribution:
    tier_key: str
    p10_tok_s: float | None
    p50_tok_s: float | None
    p90_tok_s: float | None
    p_target: float | None  # share of samples at or above the target


@dataclass(frozen=True)
class EffortDistribution:
    tier_key: str
    p50_days: float  # cumulative effort up to and including this tier
    p90_days: float


@dataclass(frozen=True)
class Simulation:
    samples: int
    seed: int
    regimes: tuple[tuple[str, tuple[TierDistribution, ...]], ...]
    efforts: tuple[EffortDistribution, ...]

    def of(self, regime_name: str) -> tuple[TierDistribution, ...]:
        return dict(self.regimes)[regime_name]


def pert(estimate: ThreePoint, rng: np.random.Generator, samples: int) -> np.ndarray:
    """`samples` draws from the PERT-beta distribution of a three-point estimate."""
    low, likely, high = estimate.low, estimate.likely, estimate.high
    if high == low:
        return np.full(samples, likely)
    alpha = 1 + PERT_SHAPE * (likely - low) / (high - low)
    beta = 1 + PERT_SHAPE * (high - likely) / (high - low)
    return low + (high - low) * rng.beta(alpha, beta, samples)


def draw_effects(intervention: Intervention, rng: np.random.Generator, samples: int, realised: float | None):
    """One EffectDraw of arrays for each effect of the intervention (inputs drawn in name order)."""
    draws = []
    for effect in intervention.effects:
        values = {name: pert(tp, rng, samples) for name, tp in sorted(three_points(effect).items())}
        draws.append(calibrated(effect, EffectDraw(**values), realised))
    return draws


def simulate(campaign: Campaign, samples: int = DEFAULT_SAMPLES, seed: int = 0) -> Simulation:
    """P10 / P50 / P90 throughput (capped at the ceiling) and P(target) after each tier, per regime.

    Interventions are drawn in plan order, each one's draws applied to every
    regime and then dropped, so memory stays at regimes x buckets x samples.
    """
    rng = np.random.default_rng(seed)
    states = {r.name: {b: np.full(samples, t) for b, t in start_times(r).items()} for r in campaign.regimes}
    step0 = {r.name: baseline_step_ms(r) for r in campaign.regimes}
    spreads: dict[str, list[TierDistribution]] = {r.name: [] for r in campaign.regimes}
    effort_total = np.zeros(samples)
    efforts = []
    for tier, interventions in plan_order(campaign):
        for intervention in interventions:
            effort = pert(intervention.effort_days, rng, samples)
            draws = draw_effects(intervention, rng, samples, campaign.calibration)
            if intervention.status is Status.REJECTED:
                continue
            effort_total = effort_total + effort
            for regime in campaign.regimes:
                if counts(intervention, tier, regime):
                    for effect, draw in zip(intervention.effects, draws):
                        if effect.applies_to(regime.name):
                            apply_effect(effect, draw, states[regime.name], regime.name, step0[regime.name])
        for regime in campaign.regimes:
            spreads[regime.name].append(_distribution(
                tier.key, states[regime.name], regime.baseline_tok_s, regime.target_tok_s,
                campaign.ceiling_of(regime.name),
            ))
        p50, p90 = np.percentile(effort_total, [50, 90])
        efforts.append(EffortDistribution(tier.key, float(p50), float(p90)))
    return Simulation(
        samples=samples,
        seed=seed,
        regimes=tuple((name, tuple(tiers)) for name, tiers in spreads.items()),
        efforts=tuple(efforts),
    )


def _distribution(tier_key, times, baseline_tok_s, target_tok_s, ceiling) -> TierDistribution:
    if not baseline_tok_s:
        return TierDistribution(tier_key, None, None, None, None)
    step = sum(times.values())
    with np.errstate(divide="ignore"):
        tok_s = baseline_tok_s / step
    if ceiling is not None:
        tok_s = np.minimum(tok_s, ceiling)
    p10, p50, p90 = np.percentile(tok_s, [10, 50, 90])
    return TierDistribution(tier_key, float(p10), float(p50), float(p90), float(np.mean(tok_s >= target_tok_s)))

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
from app.planning.model import Campaign, Intervention, ThreePoint
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


def draw_all(campaign: Campaign, rng: np.random.Generator, samples: int):
    """Effort and effect draws of every intervention, in a fixed order (so a seed fixes them)."""
    efforts: dict[str, np.ndarray] = {}
    effects: dict[tuple[str, int], EffectDraw] = {}
    for intervention in campaign.interventions:
        efforts[intervention.key] = pert(intervention.effort_days, rng, samples)
        for index, effect in enumerate(intervention.effects):
            values = {name: pert(tp, rng, samples) for name, tp in sorted(three_points(effect).items())}
            effects[(intervention.key, index)] = calibrated(effect, EffectDraw(**values), campaign.calibration)
    return efforts, effects


def simulate(campaign: Campaign, samples: int = DEFAULT_SAMPLES, seed: int = 0) -> Simulation:
    """P10 / P50 / P90 throughput (capped at the ceiling) and P(target) after each tier, per regime."""
    rng = np.random.default_rng(seed)
    effort_draws, effect_draws = draw_all(campaign, rng, samples)
    order = plan_order(campaign)
    regimes = []
    for regime in campaign.regimes:
        times = {b: np.full(samples, t) for b, t in start_times(regime).items()}
        step0_ms = baseline_step_ms(regime)
        ceiling = campaign.ceiling_of(regime.name)
        tiers = []
        for tier, interventions in order:
            for intervention in interventions:
                if counts(intervention, tier, regime):
                    _apply_all(intervention, effect_draws, times, regime.name, step0_ms)
            tiers.append(_distribution(tier.key, times, regime.baseline_tok_s, regime.target_tok_s, ceiling))
        regimes.append((regime.name, tuple(tiers)))
    return Simulation(samples=samples, seed=seed, regimes=tuple(regimes), efforts=_efforts(order, effort_draws, samples))


def _apply_all(intervention: Intervention, draws, times, regime_name: str, step0_ms: float | None) -> None:
    for index, effect in enumerate(intervention.effects):
        if effect.applies_to(regime_name):
            apply_effect(effect, draws[(intervention.key, index)], times, regime_name, step0_ms)


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


def _efforts(order, effort_draws: dict[str, np.ndarray], samples: int) -> tuple[EffortDistribution, ...]:
    total = np.zeros(samples)
    out = []
    for tier, interventions in order:
        for intervention in interventions:
            if intervention.status.value != "rejected":
                total = total + effort_draws[intervention.key]
        p50, p90 = np.percentile(total, [50, 90])
        out.append(EffortDistribution(tier.key, float(p50), float(p90)))
    return tuple(out)

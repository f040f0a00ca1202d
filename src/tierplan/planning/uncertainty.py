"""Seeded Monte Carlo over the three-point estimates and the model's own error: P10 / P50 / P90 after each tier.

Each low / likely / high estimate is drawn from a PERT-beta distribution
(shape parameter 4): unlike a triangular one it puts most of its weight near
the likely value and thins out towards the ends, which is how an engineer's
"2-3x, most likely 2.5x" reads, and its mean (low + 4 likely + high) / 6 is
the classic PERT estimate. Draws are independent across estimates; the same
seed gives the same numbers. Each intervention's effort and each of its
effects draws from its own stream (seed, intervention key, effect position),
so editing one estimate moves only the regimes that estimate applies to: a
regime it does not touch keeps its band to the last digit. On top, each applied effect adds its model error
(model_error.py), so a band carries both what the team is unsure of and what
the model gets wrong; on top of both, the bottleneck risk (bottleneck_risk.py) where an effect moves the side of
the step that binds or changes GPU work along a path without saying how. The share of each in the band is reported.

Where a prototype of an intervention measured the step itself (its trace's regime, its benchmarks' regimes), its
effects there replay that measurement: they carry no risk of the side that binds, and their kinds' model error
draws at most REPLAY_SIGMA together (each of n effects capped at REPLAY_SIGMA / sqrt(n)). Derived from the 40 trace
pairs of bench/fidelity.py's cases, the projection at the prototype's own regime lands within 3.6% of the step it
measured, where the kinds' model error drew bands of -35% to +57%; a step measured again moves by a few percent
(tests/data/graphs_hf_inductor_4096's eager step at batch 1 took 45.6, 46.8 and 49.6 ms in three runs of 24
steps). 0.05: a band of about +-6% from it alone.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from tierplan.planning.bottleneck_risk import BINDING_SIGMA, add_path_work, binding, draw_path_work, moved
from tierplan.planning.effect_kinds import rule_of
from tierplan.planning.effects import apply_effect, calibrated, magnitude, three_points
from tierplan.planning.model import Campaign, EffectKind, Intervention, Regime, Status, ThreePoint
from tierplan.planning.model_error import sigma
from tierplan.planning.projection import cap_tok_s, context_of, counts, plan_order
from tierplan.planning.schedule import Schedule
from tierplan.planning.step import StepState, start_state
from tierplan.planning.step_changes import EffectDraw, RegimeContext

PERT_SHAPE = 4.0
REPLAY_SIGMA = 0.05  # model error on ln(time a token) where a prototype measured the step (see the docstring)
QUANTILES = np.linspace(0, 100, 201)  # kept of each band: P(gate passes) is read from them
DEFAULT_SAMPLES = 10_000


@dataclass(frozen=True)
class TierDistribution:
    tier_key: str
    p10_tok_s: float | None
    p50_tok_s: float | None
    p90_tok_s: float | None
    p_target: float | None  # share of samples at or above the target
    input_share: float | None = None  # of the band's log-variance, the part from the three-point inputs
    risk_share: float | None = None  # ... the part from the bottleneck risk (the rest: model error)
    quantiles: tuple[float, ...] = ()  # throughput at each of QUANTILES percent of the samples

    def share_below(self, tok_s: float) -> float | None:
        """The share of samples below `tok_s`, from the quantiles (within half a percent)."""
        if not self.quantiles:
            return None
        return float(np.interp(tok_s, self.quantiles, QUANTILES / 100, left=0.0, right=1.0))


@dataclass(frozen=True)
class EffortDistribution:
    tier_key: str
    p50_days: float  # cumulative effort up to and including this tier
    p90_days: float
    done_p50_days: float = 0.0  # working days from the plan's start until its last intervention is done (schedule.py)
    done_p90_days: float = 0.0


@dataclass(frozen=True)
class Simulation:
    samples: int
    seed: int
    regimes: tuple[tuple[str, tuple[TierDistribution, ...]], ...]
    efforts: tuple[EffortDistribution, ...]
    error_scale: float = 1.0

    def of(self, regime_name: str) -> tuple[TierDistribution, ...]:
        return dict(self.regimes)[regime_name]


def pert(estimate: ThreePoint, rng: np.random.Generator, samples: int, log_scale: bool = False) -> np.ndarray:
    """`samples` draws from the PERT-beta distribution of a three-point estimate; on a log scale (`log_scale`, an
    estimate of one sign) the PERT of the logarithms of its magnitude, so its median is its likely value where its
    ends are the same factor either side."""
    if log_scale:
        sign = 1.0 if estimate.likely > 0 else -1.0
        low, likely, high = sorted(math.log(abs(v)) for v in (estimate.low, estimate.likely, estimate.high))
        magnitude: np.ndarray = np.exp(pert(ThreePoint(low, likely, high), rng, samples))
        return sign * magnitude
    low, likely, high = estimate.low, estimate.likely, estimate.high
    if high == low:
        return np.full(samples, likely)
    alpha = 1 + PERT_SHAPE * (likely - low) / (high - low)
    beta = 1 + PERT_SHAPE * (high - likely) / (high - low)
    return low + (high - low) * rng.beta(alpha, beta, samples)


def stream(seed: int, *labels: str | int) -> np.random.Generator:
    """The generator of one input of the simulation, from the seed and the input's stable labels."""
    return np.random.default_rng([seed, *(zlib.crc32(str(label).encode()) for label in labels)])


@dataclass(frozen=True)
class EffectSamples:
    """One effect's samples: its inputs, its model-error draws, its binding-side draws and, for a path that changes
    GPU work unsaid, that work's stretch and padding (bottleneck_risk.py)."""

    draw: EffectDraw
    error_z: np.ndarray
    binding_z: np.ndarray
    path_work: tuple[np.ndarray, np.ndarray] | None


def draw_effects(intervention: Intervention, seed: int, samples: int, realised: float | None) -> list[EffectSamples]:
    """The samples of each effect of the intervention (inputs drawn in name order, then its error draws), every
    effect from its own stream."""
    # an effect of GPU work states what the path adds; a prototype's trace or benchmark measured it where it says so
    says_gpu_work = intervention.evidence is None and any(rule_of(e.kind).states_gpu_work for e in intervention.effects)
    out = []
    for position, effect in enumerate(intervention.effects):
        rng = stream(seed, intervention.key, position)
        values: dict[str, Any] = {name: pert(tp, rng, samples, effect.log_scale)
                                  for name, tp in sorted(three_points(effect).items())}
        draw = calibrated(effect, EffectDraw(**values), realised)
        error_z = rng.standard_normal(samples)
        binding_z = rng.standard_normal(samples)
        path = draw_path_work(rng, samples) if rule_of(effect.kind).gpu_path and not says_gpu_work else None
        out.append(EffectSamples(draw, error_z, binding_z, path))
    return out


def simulate(campaign: Campaign, samples: int = DEFAULT_SAMPLES, seed: int = 0) -> Simulation:
    """P10 / P50 / P90 throughput (capped at the ceiling) and P(target) after each tier, per regime.

    Interventions are drawn in plan order, each one's draws applied to every
    regime and then dropped, so memory stays at regimes x buckets x samples.
    """
    states = {r.name: start_state(r.profile).broadcast(samples) for r in campaign.regimes}
    for name, state in states.items():  # how much of a replay's idle time is a pause: either, as one trace says
        if state.launch is not None and np.any(state.launch.idle > 0):
            state.launch.pause_share = stream(seed, name, "pause").uniform(0.0, 1.0, samples)
    contexts = {r.name: context_of(r, campaign) for r in campaign.regimes}
    errors = {r.name: np.zeros(samples) for r in campaign.regimes}
    risks = {r.name: Risk(np.zeros(samples), np.zeros(samples)) for r in campaign.regimes}
    spreads: dict[str, list[TierDistribution]] = {r.name: [] for r in campaign.regimes}
    effort_total = np.zeros(samples)
    efforts = []
    team = Schedule(campaign.team_size, samples, tuple(i.assignee for _, members in plan_order(campaign)
                                                        for i in members if i.status is not Status.REJECTED))
    for tier, interventions in plan_order(campaign):
        tier_done = np.zeros(samples)
        for intervention in interventions:
            effort = pert(intervention.effort_days, stream(seed, intervention.key, "effort"), samples)
            drawn = draw_effects(intervention, seed, samples, intervention.realised_share(campaign.calibration))
            if intervention.status is Status.REJECTED:
                continue
            effort_total = effort_total + effort
            tier_done = np.maximum(tier_done, team.place(intervention, effort))
            for regime in campaign.regimes:
                if counts(intervention, regime):
                    _apply(intervention, drawn, states[regime.name], contexts[regime.name], errors[regime.name],
                           risks[regime.name], dict(campaign.kind_error_scales), campaign.model_error_scale)
        for regime in campaign.regimes:
            spreads[regime.name].append(_distribution(tier.key, states[regime.name], errors[regime.name],
                                                      risks[regime.name], regime, campaign))
        p50, p90 = np.percentile(effort_total, [50, 90])
        done50, done90 = np.percentile(tier_done, [50, 90])
        efforts.append(EffortDistribution(tier.key, float(p50), float(p90), float(done50), float(done90)))
    return Simulation(
        samples=samples,
        seed=seed,
        regimes=tuple((name, tuple(tiers)) for name, tiers in spreads.items()),
        efforts=tuple(efforts),
        error_scale=campaign.model_error_scale,
    )


@dataclass(frozen=True)
class Risk:
    """A regime's bottleneck risk so far, in ln(time a token): `binding` is added to the samples, `path` is already
    in the state (the GPU work a path adds) and only counted here."""

    binding: np.ndarray
    path: np.ndarray


def _measured_work(intervention: Intervention, regime: str) -> bool:
    """Whether a prototype's trace or benchmark measured the GPU work the intervention's path adds in `regime`."""
    evidence = intervention.evidence
    return evidence is not None and bool(evidence.says_work_in(regime))


def _measured_step(intervention: Intervention, regime: str) -> bool:
    """Whether a prototype of the intervention measured its step in `regime` (a trace's or a benchmark's)."""
    evidence = intervention.evidence
    return evidence is not None and bool(evidence.measured_in(regime))


def _apply(intervention: Intervention, drawn: list[EffectSamples], state: StepState, context: RegimeContext,
           error: Any, risk: Risk, scales: dict[EffectKind, float], scale: float) -> None:
    """The intervention's effects on the state, their model error (each kind's own scale, where it has one) and
    their bottleneck risk."""
    before = None
    cap = None  # where the prototype measured the step, its n effects there draw at most REPLAY_SIGMA together
    if _measured_step(intervention, context.name):
        cap = REPLAY_SIGMA / np.sqrt(max(1, sum(1 for e in intervention.effects if e.applies_to(context.name))))
    for effect, samples in zip(intervention.effects, drawn, strict=False):
        if not effect.applies_to(context.name):
            continue
        before = state.per_token() if before is None else before
        side = binding(state)
        if apply_effect(effect, samples.draw, state, context) is None:
            after = state.per_token()
            moved_by = magnitude(effect, samples.draw, before, after, context)
            coefficient = sigma(effect.kind, scales.get(effect.kind, scale)) * moved_by
            if cap is None:
                error += coefficient * samples.error_z
                risk.binding[:] += BINDING_SIGMA * moved(side, binding(state)) * samples.binding_z
            else:  # the prototype measured this step, and the side that binds in it
                error += np.minimum(coefficient, cap) * samples.error_z
            if samples.path_work is not None and not _measured_work(intervention, context.name):
                add_path_work(state, *samples.path_work, context.concurrency)
                with_path = state.per_token()
                risk.path[:] += np.log(with_path / after)
                after = with_path
            before = after


def _distribution(tier_key: str, state: StepState, error: Any, risk: Risk, regime: Regime, campaign: Campaign
                  ) -> TierDistribution:
    """The band after a tier, and its samples' quantiles (gate_chances.py reads P(gate passes) from them)."""
    if not regime.baseline_tok_s:
        return TierDistribution(tier_key, None, None, None, None)
    with np.errstate(divide="ignore"):
        modelled = regime.baseline_tok_s * state.tokens / state.step()
    tok_s = modelled * np.exp(error - risk.binding)  # both in ln(time a token), symmetric: the sign is moot
    cap = cap_tok_s(campaign, regime, state)
    if cap is not None:
        tok_s = np.minimum(tok_s, cap)
    p10, p50, p90 = np.percentile(tok_s, [10, 50, 90])
    quantiles = tuple(float(q) for q in np.percentile(tok_s, QUANTILES))
    logs = np.log(np.maximum(modelled, 1e-300)) + risk.path  # the inputs' part: without the path's work
    finite = np.isfinite(logs)
    input_var = float(np.var(logs[finite])) if finite.any() else 0.0
    error_var = float(np.var(error))
    risk_var = float(np.var(risk.binding + risk.path))
    total = input_var + error_var + risk_var
    p_target = float(np.mean(tok_s >= regime.target_tok_s))
    if total <= 1e-12:
        return TierDistribution(tier_key, float(p10), float(p50), float(p90), p_target, quantiles=quantiles)
    return TierDistribution(tier_key, float(p10), float(p50), float(p90), p_target, input_var / total,
                            risk_var / total, quantiles)

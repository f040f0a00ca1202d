"""The achievable ceiling beside the physical one, and why a regime's step is where it is.

The physical ceiling (ceiling.py) is what the bytes and FLOPs of a step allow at the hardware's full bandwidth:
no real step reaches it. The achievable ceiling is that floor at the efficiency this campaign has already seen
its hardware reach: the best of its baseline steps, as a share of its own floor (the floor over the step; a gate
check judges gates and moves no projection, so it moves no ceiling either). With no measured step on specs it has,
the stated DEFAULT_EFFICIENCY stands in, and the page says so.

Why a step sits where it does, in words, from what the campaign knows of it:
- launch-bound: its profile's launch model has the host issuing launches slower than the GPU runs them;
- bandwidth- (or compute-) bound: the step is within BOUND_RATIO of its floor;
- latency-bound: further off, without a host-bound launch model: fixed costs a step (launches inside graphs,
  collectives, small kernels that cannot fill the GPU) weigh more than the bytes the step moves.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tierplan.planning.ceiling import StepFloor, decode_ceiling
from tierplan.planning.metrics import THROUGHPUT_METRIC
from tierplan.planning.model import Campaign, MeasurementKind, Regime
from tierplan.planning.step import start_state

# Share of the physical floor a well-tuned decode step reaches when a campaign has measured none: memory-bound
# decode kernels stream weights at 60-80% of the datasheet bandwidth (a plain device-to-device copy moved 4.3 of
# the H200's 4.8 TB/s here, device/KINDS.md: 90% is the best a kernel sees), and a step adds launches and
# synchronisation on top; 0.5 is the middle of what tuned engines show, stated, not measured.
DEFAULT_EFFICIENCY = 0.5
BOUND_RATIO = 2.0  # a step within 2x of its floor is bound by what the floor counts


@dataclass(frozen=True)
class Efficiency:
    """The share of its physical floor the campaign's best measured step reached (or the stated default)."""

    share: float
    regime: str | None = None  # where that step was measured (None: DEFAULT_EFFICIENCY)
    step_ms: float | None = None
    floor_ms: float | None = None


@dataclass(frozen=True)
class Achievable:
    """One regime: its achievable ceiling, and why its measured step is as far from its floor as it is."""

    ceiling_tok_s: float  # the physical ceiling at the campaign's efficiency
    efficiency: Efficiency
    floor_ms: float
    step_ms: float | None  # the measured step (None: no baseline)
    why: str  # "launch-bound: ...", "" without a measured step


def best_efficiency(campaign: Campaign) -> Efficiency:
    """The best share of its floor any baseline throughput run of the campaign reached (at most 1)."""
    floors = dict(campaign.floors)
    regimes = {r.name: r for r in campaign.regimes}
    best: Efficiency | None = None
    for run in campaign.measurements:
        if (run.metric != THROUGHPUT_METRIC or run.kind is not MeasurementKind.BASELINE or run.value <= 0
                or run.regime not in floors):
            continue
        step_ms = regimes[run.regime].concurrency / run.value * 1000
        floor_ms = floors[run.regime].floor_ms(1)
        share = min(1.0, floor_ms / step_ms) if math.isfinite(step_ms) else 0.0
        if share > 0 and (best is None or share > best.share):
            best = Efficiency(share, run.regime, step_ms, floor_ms)
    return best or Efficiency(DEFAULT_EFFICIENCY)


def why_apart(regime: Regime, floor: StepFloor, step_ms: float | None) -> str:
    """Why the regime's measured step is where it is against its floor, in words ("" without a measured step)."""
    if not step_ms or not math.isfinite(step_ms):
        return ""
    floor_ms = floor.floor_ms(1)
    ratio = step_ms / floor_ms
    if regime.profile is not None and regime.profile.launches is not None:
        state = start_state(regime.profile)
        if state.launch is not None and float(state.launch.host()) >= float(state.step()) - 1e-9:
            return (f"launch-bound: the host issues the step's launches slower than the GPU runs them, {ratio:.0f}x "
                    "its floor; CUDA graphs or fewer launches close that gap, faster kernels do not")
    ceiling = decode_ceiling(floor.gpu, floor.model, floor.concurrency, floor.context_tokens)
    bound = "compute" if ceiling.bound == "compute" else "bandwidth"
    if ratio <= BOUND_RATIO:
        return f"{bound}-bound: the step is {ratio:.1f}x its {bound} floor"
    return (f"latency-bound: the step is {ratio:.0f}x its floor at concurrency {regime.concurrency}; fixed costs a "
            "step (launches, collectives, small kernels that cannot fill the GPU) weigh more than the bytes it moves")


def achievable(campaign: Campaign, ceilings_tok_s: dict[str, float], step_ms: dict[str, float | None]
               ) -> dict[str, Achievable]:
    """Each regime with a floor: its achievable ceiling and why its step is where it is."""
    efficiency = best_efficiency(campaign)
    floors = dict(campaign.floors)
    out = {}
    for regime in campaign.regimes:
        floor = floors.get(regime.name)
        if floor is None or regime.name not in ceilings_tok_s:
            continue
        step = step_ms.get(regime.name)
        out[regime.name] = Achievable(ceilings_tok_s[regime.name] * efficiency.share, efficiency, floor.floor_ms(1),
                                      step, why_apart(regime, floor, step))
    return out

"""Evidence from a prototype's benchmark: an intervention's effect sized by the throughput a prototype of it measured
at one regime, against that regime's own baseline, and carried to the other regimes.

A benchmark says how much faster the step became, not where the time went, so the effects the team entered keep
their shape (which bucket, which kind of change) and the benchmark sets their size: the share of their predicted
log-gain that the prototype realised, found so that the entered effects, applied to the measured regime's step with
that share, give the measured gain (the same share calibration applies, planning/effects.py `calibrated`). The share
then holds in every regime the effects touch, each regime's own profile deciding how much its step moves; in the
measured regime the projection therefore reproduces the prototype's throughput.

Where the prototype was slower than the baseline, or its effects would need more than MAX_REALISED times their
predicted log-gain, the share stops at 0 or MAX_REALISED and `Fit.clamped` says so. A trace of a prototype says more
(planning/prototype.py): with both, the trace is used.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass, replace

from tierplan.planning.effects import apply_effect, calibrated, point_draw
from tierplan.planning.model import Campaign, Intervention, PlanningError, Regime
from tierplan.planning.projection import context_of
from tierplan.planning.step import start_state
from tierplan.planning.step_changes import RegimeContext

MAX_REALISED = 4.0  # a prototype that needs more than 4x the entered log-gain says the estimates were not its shape
UNCHANGED = 1e-6  # |ln gain| under this: the entered effects do not move the regime's step


@dataclass(frozen=True)
class Fit:
    """How a prototype's benchmark sized an intervention's entered effects."""

    regime: str  # where the prototype ran
    source: str  # the benchmark, as its import names it
    baseline_tok_s: float  # the regime's baseline it is compared with
    prototype_tok_s: float  # what the prototype measured
    entered_gain: float  # the gain the entered estimates projected there (likely values)
    realised: float  # the share of their predicted log-gain the prototype realised
    clamped: bool = False  # the share stopped at 0 or MAX_REALISED

    @property
    def measured_gain(self) -> float:
        return self.prototype_tok_s / self.baseline_tok_s


def gain(intervention: Intervention, regime: Regime, context: RegimeContext, realised: float) -> float:
    """Tokens a second after over before when the intervention's effects, with `realised` of their log-gain, act
    on the regime's baseline step (likely values; uncapped)."""
    state = start_state(regime.profile)
    for effect in intervention.effects:
        apply_effect(effect, calibrated(effect, point_draw(effect), realised), state, context)
    step = float(state.step())
    return float(state.tokens) / step if step > 0 else math.inf


def fit(intervention: Intervention, regime: Regime, context: RegimeContext, prototype_tok_s: float,
        source: str) -> Fit:
    """The share of the entered log-gain that gives the prototype's measured throughput at `regime`. Raises
    PlanningError when the regime has no baseline or the entered effects do not move its step."""
    if not regime.baseline_tok_s:
        raise PlanningError(f"{regime.name} has no baseline throughput to compare the prototype with")
    if not (math.isfinite(prototype_tok_s) and prototype_tok_s > 0):
        raise PlanningError("a prototype's throughput is a positive number of tokens a second")
    entered = gain(intervention, regime, context, 1.0)
    if not math.isfinite(entered) or abs(math.log(entered)) < UNCHANGED:
        raise PlanningError(f"{intervention.key}'s effects do not move {regime.name}'s step, so a benchmark there "
                            "cannot size them: give the regimes its effects act on")
    wanted = math.log(prototype_tok_s / regime.baseline_tok_s)

    def miss(share: float) -> float:
        return math.log(gain(intervention, regime, context, share)) - wanted

    low, high = 0.0, MAX_REALISED
    at_low, at_high = miss(low), miss(high)
    if at_low * at_high > 0:  # no share in range reaches it: the nearer end
        share = low if abs(at_low) <= abs(at_high) else high
        return Fit(regime.name, source, regime.baseline_tok_s, prototype_tok_s, entered, share, clamped=True)
    for _ in range(60):
        middle = (low + high) / 2
        at_middle = miss(middle)
        if at_middle == 0:
            low = high = middle
            break
        if (at_middle > 0) == (at_high > 0):
            high, at_high = middle, at_middle
        else:
            low = middle
    return Fit(regime.name, source, regime.baseline_tok_s, prototype_tok_s, entered, (low + high) / 2)


def with_benchmark(intervention: Intervention, measured: Regime, context: RegimeContext, prototype_tok_s: float,
                   source: str) -> Intervention:
    """The intervention planned with the share its prototype's benchmark realised (`Intervention.realised`), its
    `evidence` the fit. Raises PlanningError as `fit` does."""
    found = fit(intervention, measured, context, prototype_tok_s, source)
    return replace(intervention, realised=found.realised, evidence=found)


@dataclass(frozen=True)
class Benchmark:
    """A prototype's benchmark as stored: where it ran, what it measured, where that came from."""

    regime: str
    tok_s: float
    source: str


def sized_by_benchmarks(campaign: Campaign, benchmarks: Mapping[str, Benchmark]) -> Campaign:
    """The campaign with each intervention that has a prototype's benchmark (and no prototype's trace, which says
    more) sized by it; one whose benchmark cannot size it (no baseline there, effects that do not act there) keeps
    its estimates (`benchmark_problem` says why)."""
    regimes = {r.name: r for r in campaign.regimes}
    planned = []
    for intervention in campaign.interventions:
        found = benchmarks.get(intervention.key)
        if found is not None and intervention.evidence is None and found.regime in regimes:
            regime = regimes[found.regime]
            with suppress(PlanningError):  # benchmark_problem says why; the import refused it then
                intervention = with_benchmark(intervention, regime, context_of(regime, campaign), found.tok_s,
                                              found.source)
        planned.append(intervention)
    return replace(campaign, interventions=tuple(planned))


def benchmark_problem(campaign: Campaign, key: str, benchmark: Benchmark) -> str | None:
    """Why a prototype's benchmark cannot size the intervention `key` (None: it can)."""
    intervention = next((i for i in campaign.interventions if i.key == key), None)
    regime = next((r for r in campaign.regimes if r.name == benchmark.regime), None)
    if intervention is None or regime is None:
        return f"no intervention {key!r} or regime {benchmark.regime!r} in this campaign"
    try:
        fit(intervention, regime, context_of(regime, campaign), benchmark.tok_s, benchmark.source)
    except PlanningError as exc:
        return str(exc)
    return None

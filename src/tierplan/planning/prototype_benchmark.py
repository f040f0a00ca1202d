"""Evidence from a prototype's benchmark: an intervention's effect sized by the throughput a prototype of it measured
at one regime, against that regime's own baseline, and carried to the other regimes.

A benchmark says how much faster the step became, not where the time went, so the effects the team entered keep
their shape (which bucket, which kind of change) and the benchmark sets their size: the share of their predicted
log-gain that the prototype realised, found so that the entered effects, applied to the measured regime's step with
that share, give the measured gain (the same share calibration applies, planning/effects.py `calibrated`). The share
then holds in every regime the effects touch, each regime's own profile deciding how much its step moves; in the
measured regime the projection therefore reproduces the prototype's throughput. A speculative decoding's share is of
its tokens a step (step_changes.spec_decode): the acceptance is what one concurrency's benchmark shows, while what
drafting and verifying cost grows with the sequences in flight and stays priced in each regime. As a share of the
whole log-gain, cost included, an acceptance entered at 0.3 where EAGLE's was 0.65 took the share to its bound and
carried a slowdown from concurrency 1 to 64 where the fit gives 1.39x (tests/unit/test_spec_decode_load.py).

Where the prototype was slower than the baseline, or its effects would need more than MAX_REALISED times their
predicted log-gain, the share stops at 0 or MAX_REALISED and `Fit.clamped` says so. A trace of a prototype says more
(planning/prototype.py): with both, the trace is used.

One shape the share cannot carry: an implementation path that changes GPU work without saying how (CUDA graphs
entered as launch cost removed, with no GPU work stated: effect_kinds `gpu_path`). Where the entered effects leave
the measured regime's step GPU-bound, the benchmark says nothing of the host side (the host no longer binds); what
it says is the GPU time the path took beyond what the entered effects project: the residual (`Fit.residual_ms`).
Fitted as a share of the launch cost removed instead, a residual measured at batch 64 left 11% of the eager path's
host cost at batch 1, where it binds: 115% long on tests/data/graphs_batches. So the entered effects hold as
entered, and the residual is GPU work a step (prototype_residual.py carries it to the other regimes).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, replace

from tierplan.planning.effect_kinds import rule_of
from tierplan.planning.effects import apply_effect, calibrated, point_draw
from tierplan.planning.model import Campaign, Effect, Intervention, PlanningError, Regime
from tierplan.planning.projection import context_of
from tierplan.planning.prototype_residual import is_noise, line, line_effects, residual_effects, works_in
from tierplan.planning.step import StepState, start_state
from tierplan.planning.step_changes import RegimeContext, spec_tokens

MAX_REALISED = 4.0  # a prototype that needs more than 4x the entered log-gain says the estimates were not its shape
UNCHANGED = 1e-6  # |ln gain| under this: the entered effects do not move the regime's step
HELD_FLOOR = 1e-9  # a speculative decoding's least share: its cost paid, next to none of its tokens (0: not held)


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
    residual_ms: float | None = None  # GPU time a step beyond the entered effects' projection (None: sized by share)
    step_ms: float | None = None  # the prototype's step (ms), where the residual sized it
    settles: frozenset[str] | None = None  # the regimes whose GPU work the residual settles (None: every regime)
    also: tuple[Fit, ...] = ()  # benchmarks at other regimes that sized it with this one (a residual line)
    line_ms: tuple[float, float] | None = None  # that line: GPU ms a step fixed, and a sequence in flight
    entered: tuple[Effect, ...] | None = None  # the team's own estimates, where the residual adds GPU work beside them
    of_tokens: bool = False  # a speculative decoding's share is of its tokens a step; what it costs stays priced

    @property
    def noise(self) -> bool:
        """Whether its residual is within the launch model's own miss (prototype_residual.py)."""
        return self.residual_ms is not None and self.step_ms is not None and is_noise(self.residual_ms, self.step_ms)

    def says_work_in(self, regime: str) -> bool:
        """Whether the benchmark settles the GPU work the path adds in `regime` (else the bands keep its prior)."""
        return self.settles is None or regime in self.settles

    def measured_in(self, regime: str) -> bool:
        """Whether a benchmark of the prototype (this one or one fitted with it) measured its step in `regime`."""
        return regime == self.regime or any(fit.regime == regime for fit in self.also)

    @property
    def measured_gain(self) -> float:
        return self.prototype_tok_s / self.baseline_tok_s


def _after(intervention: Intervention, regime: Regime, context: RegimeContext, realised: float) -> StepState:
    state = start_state(regime.profile)
    for effect in intervention.effects:
        apply_effect(effect, calibrated(effect, point_draw(effect), realised), state, context)
    return state


def gain(intervention: Intervention, regime: Regime, context: RegimeContext, realised: float) -> float:
    """Tokens a second after over before when the intervention's effects, with `realised` of their log-gain, act
    on the regime's baseline step (likely values; uncapped)."""
    state = _after(intervention, regime, context, realised)
    step = float(state.step())
    return float(state.tokens) / step if step > 0 else math.inf


def _residual_ms(intervention: Intervention, regime: Regime, context: RegimeContext,
                 prototype_tok_s: float) -> float | None:
    """The GPU time a step the prototype took beyond the entered effects' projection, where that is what its
    benchmark can say (the module's docstring): a path that changes GPU work without saying how, the step left
    GPU-bound; else None."""
    rules = [rule_of(e.kind) for e in intervention.effects if e.applies_to(regime.name)]
    if not any(r.gpu_path for r in rules) or any(r.states_gpu_work or r.tokens for r in rules) or not context.step_ms:
        return None
    state = _after(intervention, regime, context, 1.0)
    launch = state.launch
    if launch is None or float(launch.host()) >= float(launch.gpu_side(state.gpu())):
        return None
    measured = need_baseline(regime) / prototype_tok_s  # relative to the baseline step, as the state is
    return (measured - float(state.step())) * float(context.step_ms)


def need_baseline(regime: Regime) -> float:
    if not regime.baseline_tok_s:
        raise PlanningError(f"{regime.name} has no baseline throughput to compare the prototype with")
    return regime.baseline_tok_s


def fit(intervention: Intervention, regime: Regime, context: RegimeContext, prototype_tok_s: float,
        source: str) -> Fit:
    """The share of the entered log-gain that gives the prototype's measured throughput at `regime`. Raises
    PlanningError when the regime has no baseline or the entered effects do not move its step."""
    baseline_tok_s = need_baseline(regime)
    if not (math.isfinite(prototype_tok_s) and prototype_tok_s > 0):
        raise PlanningError("a prototype's throughput is a positive number of tokens a second")
    entered = gain(intervention, regime, context, 1.0)
    if not math.isfinite(entered) or abs(math.log(entered)) < UNCHANGED:
        raise PlanningError(f"{intervention.key}'s effects do not move {regime.name}'s step, so a benchmark there "
                            "cannot size them: give the regimes its effects act on")
    residual = _residual_ms(intervention, regime, context, prototype_tok_s)
    if residual is not None:
        step_ms = float(context.step_ms) * baseline_tok_s / prototype_tok_s
        if not (math.isfinite(step_ms) and math.isfinite(residual)):
            raise PlanningError(f"a prototype's {prototype_tok_s:g} tok/s against {regime.name}'s baseline of "
                                f"{baseline_tok_s:g} is a step too long to carry: check the regime it ran in")
        return Fit(regime.name, source, baseline_tok_s, prototype_tok_s, entered, 1.0, residual_ms=residual,
                   step_ms=step_ms)
    wanted = math.log(prototype_tok_s / baseline_tok_s)
    of_tokens = any(rule_of(e.kind).tokens for e in intervention.effects if e.applies_to(regime.name))

    def miss(share: float) -> float:
        return math.log(gain(intervention, regime, context, share)) - wanted

    low, high = (HELD_FLOOR if of_tokens else 0.0), tokens_bound(intervention, regime)
    at_low, at_high = miss(low), miss(high)
    if at_low * at_high > 0:  # no share in range reaches it: the nearer end
        share = low if abs(at_low) <= abs(at_high) else high
        return Fit(regime.name, source, baseline_tok_s, prototype_tok_s, entered, share, clamped=True,
                   of_tokens=of_tokens)
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
    return Fit(regime.name, source, baseline_tok_s, prototype_tok_s, entered, (low + high) / 2, of_tokens=of_tokens)


def tokens_bound(intervention: Intervention, regime: Regime) -> float:
    """The largest share a benchmark may give: MAX_REALISED, and for a speculative decoding the share that yields g + 1
    tokens a step (every draft accepted); a benchmark beyond it shows something else changed the step."""
    bound = MAX_REALISED
    for effect in intervention.effects:
        if effect.spec is not None and effect.applies_to(regime.name):
            tokens = float(spec_tokens(effect.spec))
            if tokens > 1:
                bound = min(bound, math.log(effect.spec.draft_tokens + 1) / math.log(tokens))
    return bound


def with_benchmark(intervention: Intervention, measured: Regime, context: RegimeContext, prototype_tok_s: float,
                   source: str, regimes: tuple[Regime, ...] = ()) -> Intervention:
    """The intervention planned with the share its prototype's benchmark realised (`Intervention.realised`), or with
    the GPU work its residual shows in each of `regimes` (the measured one among them); its `evidence` the fit.
    Raises PlanningError as `fit` does."""
    found = fit(intervention, measured, context, prototype_tok_s, source)
    if found.residual_ms is None or found.step_ms is None:
        return replace(intervention, realised=found.realised, evidence=found)
    regimes = regimes or (measured,)
    added = residual_effects(found.residual_ms, found.step_ms, measured, regimes)
    found = replace(found, settles=works_in(found.residual_ms, found.step_ms, measured, regimes),
                    entered=intervention.effects)
    return replace(intervention, realised=1.0, evidence=found, effects=intervention.effects + added)


@dataclass(frozen=True)
class Benchmark:
    """A prototype's benchmark as stored: where it ran, what it measured, where that came from."""

    regime: str
    tok_s: float
    source: str


def sized_by_benchmarks(campaign: Campaign, benchmarks: Mapping[str, Sequence[Benchmark]]) -> Campaign:
    """The campaign with each intervention that has prototype benchmarks (oldest first; and no prototype's trace,
    which says more) sized by them: by the newest, or, where each shows the GPU work a path adds (a residual) and
    they ran at two or more concurrencies, by all (`with_residual_line`). One whose benchmark cannot size it (no
    baseline there, effects that do not act there) keeps its estimates (`benchmark_problem` says why)."""
    regimes = {r.name: r for r in campaign.regimes}
    planned = []
    for intervention in campaign.interventions:
        found = [b for b in benchmarks.get(intervention.key, ()) if b.regime in regimes]
        if found and intervention.evidence is None:
            with suppress(PlanningError):  # benchmark_problem says why; the import refused it then
                intervention = _sized(intervention, campaign, [(regimes[b.regime], b) for b in found])
        planned.append(intervention)
    return replace(campaign, interventions=tuple(planned))


def _sized(intervention: Intervention, campaign: Campaign, found: list[tuple[Regime, Benchmark]]) -> Intervention:
    fits = []
    for regime, benchmark in found:
        with suppress(PlanningError):
            fits.append((regime, fit(intervention, regime, context_of(regime, campaign), benchmark.tok_s,
                                     benchmark.source)))
    if len(fits) >= 2 and all(f.residual_ms is not None for _, f in fits):
        newest = {regime.name: (regime, f) for regime, f in fits}  # one a regime: its newest
        if len({regime.concurrency for regime, _ in newest.values()}) >= 2:
            by_concurrency = sorted(newest.values(), key=lambda pair: pair[0].concurrency)
            return with_residual_line(intervention, by_concurrency, campaign.regimes)
    regime, benchmark = found[-1]
    return with_benchmark(intervention, regime, context_of(regime, campaign), benchmark.tok_s, benchmark.source,
                          campaign.regimes)


def with_residual_line(intervention: Intervention, fits: list[tuple[Regime, Fit]],
                       regimes: tuple[Regime, ...]) -> Intervention:
    """The intervention planned with the GPU work its benchmarks' residuals show at two or more concurrencies: a
    fixed part and a part a sequence in flight, fitted through them (prototype_residual.line_effects); its evidence
    the first fit, the others beside it."""
    points = [(regime, need_residual(f), need_step(f)) for regime, f in fits]
    fitted = line([(regime.concurrency, residual) for regime, residual, _ in points])
    added = line_effects(points, fitted, regimes)
    first, *others = [f for _, f in fits]
    evidence = replace(first, also=tuple(others), settles=None, line_ms=fitted, entered=intervention.effects)
    return replace(intervention, realised=1.0, evidence=evidence, effects=intervention.effects + added)


def need_residual(found: Fit) -> float:
    if found.residual_ms is None:
        raise PlanningError("the benchmark did not measure the GPU work the path adds")
    return found.residual_ms


def need_step(found: Fit) -> float:
    if found.step_ms is None:
        raise PlanningError("the benchmark did not measure a step")
    return found.step_ms


def benchmark_problem(campaign: Campaign, key: str, benchmark: Benchmark) -> str | None:
    """Why a prototype's benchmark cannot size the intervention `key` (None: it can)."""
    intervention = next((i for i in campaign.interventions if i.key == key), None)
    regime = next((r for r in campaign.regimes if r.name == benchmark.regime), None)
    if intervention is None or regime is None:
        return f"no intervention {key!r} or regime {benchmark.regime!r} in this campaign"
    try:  # sized as the plan would size it: its fit, and the GPU work a residual carries to every regime
        with_benchmark(intervention, regime, context_of(regime, campaign), benchmark.tok_s, benchmark.source,
                       campaign.regimes)
    except PlanningError as exc:
        return str(exc)
    return None

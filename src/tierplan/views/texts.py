"""Texts of the plan's rows for pages and export: what a baseline includes, its step, its launches, each effect."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tierplan.models.measurements import MeasurementPublic
from tierplan.planning.metrics import THROUGHPUT_METRIC
from tierplan.planning.model import Effect, EffectKind, Regime, ThreePoint, need
from tierplan.planning.projection import RegimeProjection, Step
from tierplan.planning.step import host_cost_us, start_state
from tierplan.planning.step_changes import spec_cost, spec_tokens
from tierplan.services.analysis import Analysis
from tierplan.services.records import PlanRecord
from tierplan.text import formatting as fmt


def band_text(input_share: float | None) -> str:
    """"band: 35% input spread, 65% model error" (shares of its log-variance)."""
    if input_share is None:
        return ""
    return f"band: {input_share * 100:.0f}% input spread, {(1 - input_share) * 100:.0f}% model error"


def baseline_row(record: PlanRecord, core_regime: Regime) -> MeasurementPublic | None:
    """The measurement the core took as the regime's baseline (newest baseline-kind, not retracted)."""
    return next(
        (m for m in record.measurements if m.regime == core_regime.name and m.metric == THROUGHPUT_METRIC
         and m.kind == "baseline" and m.retracted_at is None and m.measured_at == core_regime.baseline_measured_at),
        None,
    )


def includes_text(projection: RegimeProjection, baseline: MeasurementPublic | None) -> str:
    if baseline is None:
        return ""
    taken = f"baseline of {fmt.date(baseline.measured_at)}"
    if projection.includes:
        return f"{taken} includes {', '.join(projection.includes)}: the plan applies only the rest"
    return f"{taken} includes none of the plan's interventions: the plan applies all of them"


def step_text(core_regime: Regime, step: Step) -> str:
    if step.step_ms is None:
        return ""
    if core_regime.step_ms:
        return f"Baseline step {fmt.number(step.step_ms, 'ms')}: the {core_regime.step_source}"
    return (f"Baseline step {fmt.number(step.step_ms, 'ms')}: concurrency {core_regime.concurrency} over "
            f"{fmt.tok_s(core_regime.baseline_tok_s)} (no TPOT measured in the baseline's state)")


def launch_text(core_regime: Regime) -> str:
    profile = core_regime.profile
    if profile is None or profile.launches is None:
        return ""
    launches = profile.launches
    state = start_state(profile)
    host = float(state.launch.host()) if state.launch is not None else 0.0
    bound = "host-bound" if host >= float(state.step()) - 1e-9 else "GPU-bound"
    gap = f"{fmt.plain(launches.gpu_gap_us)} µs ({'measured' if launches.gap_measured else 'assumed'})"
    return (f"{fmt.plain(launches.host_launches)} launch calls and {fmt.plain(launches.gpu_items)} GPU work items a "
            f"step of {fmt.plain(launches.step_ms)} ms; host {fmt.plain(need(host_cost_us(profile), 'host cost'))} µs a launch, "
            f"GPU gap {gap} an item, fixed host time {fmt.number(launches.host_fixed_ms, 'ms')}: {bound}")


def _three(tp: ThreePoint | None, suffix: str = "", scale: float = 1.0) -> str:
    tp = need(tp, "the estimate")
    return fmt.three_point(tp.low * scale, tp.likely * scale, tp.high * scale, suffix)


Sentence = Callable[[Effect, Sequence[str], "Analysis | None"], str]

# Each kind of effect in words, as the plan lists it (where it holds is added after): its presentation entry.
SENTENCES: dict[EffectKind, Sentence] = {
    EffectKind.BUCKET: lambda e, names, a: f"{e.bucket} {_three(e.speedup, 'x')} faster",
    EffectKind.STEP: lambda e, names, a: f"whole step {_three(e.speedup, 'x')} faster",
    EffectKind.TIME_SAVED: lambda e, names, a: (f"{_three(e.saved_ms, ' ms')} "
                                                f"{f'off {e.bucket}' if e.bucket else 'off each step'}"),
    EffectKind.SPEC_DECODE: lambda e, names, a: spec_decode_text(e, names, a),
    EffectKind.LAUNCH_OVERHEAD: lambda e, names, a: (f"launch overhead: {_three(e.removed, '%', 100)} of each "
                                                     "launch's host cost removed"),
    EffectKind.LAUNCH_COUNT: lambda e, names, a: f"launches a step changed by {_three(e.launches)}",
}


def effect_text(effect: Effect, regime_names: Sequence[str], analysis: Analysis | None = None) -> str:
    """One effect as the plan lists it: "attention 2.5x (2-3x) faster in every regime"."""
    where = f"in {', '.join(regime_names)}" if regime_names else "in every regime"
    return f"{SENTENCES[effect.kind](effect, regime_names, analysis)} {where}"


def spec_decode_text(effect: Effect, regime_names: Sequence[str] = (), analysis: Analysis | None = None) -> str:
    """"speculative decoding, g = 1, acceptance 0.7 (0.5–0.85), c = 0.1: E 1.70, cost 1.10, 1.55x"."""
    spec = need(effect.spec, "the speculative decoding")
    if spec.per_position:
        acceptance = "per-position acceptance " + ", ".join(fmt.plain(r) for r in spec.per_position)
    else:
        acceptance = "acceptance " + _three(spec.acceptance)
    tokens = spec_tokens(spec)
    head = f"speculative decoding, g = {spec.draft_tokens}, {acceptance}"
    if spec.draft_cost is not None:
        cost = fmt.three_point(spec.draft_cost.low, spec.draft_cost.likely, spec.draft_cost.high)
        step_cost = spec_cost(spec)
        return (f"{head}, draft cost c = {cost}: E = {tokens:.2f} tokens a step, step cost {step_cost:.2f}, "
                f"{fmt.factor(tokens / step_cost)} faster")
    floors = dict(analysis.campaign.floors) if analysis else {}
    names = list(regime_names) or list(floors)
    costs = [(n, floors[n].verify_cost(spec.draft_tokens)) for n in names if n in floors]
    if not costs:
        return f"{head}, draft cost from the hardware model (enter the specs to see it): E = {tokens:.2f} tokens a step"
    per_regime = ", ".join(f"{c:.2f} in {n} ({fmt.factor(tokens / c)} faster)" for n, c in costs)
    return (f"{head}: E = {tokens:.2f} tokens a step; verifying {spec.draft_tokens + 1} tokens a sequence costs, "
            f"by the hardware model, {per_regime}")

"""One entry per kind of effect: its inputs and their rules, how it changes a regime's step, how calibration scales
it, how far it moves the step, and the prior on the model's own error (model_error.py says where each comes from).

Everything that differs between kinds is here; effects.py, the projection, the greedy order, the Monte Carlo and
calibration read the entry and never ask which kind they hold. A new kind is an entry here (and its EffectKind
value and inputs on Effect), its presentation in the views, and its tests.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from tierplan.planning.kernel_targets import check_pattern, target_of
from tierplan.planning.model import Effect, EffectKind, PlanningError, ThreePoint, need
from tierplan.planning.step import StepState, Value
from tierplan.planning.step_changes import (
    EffectDraw,
    RegimeContext,
    change_gpu_work,
    change_launches,
    remove_launch_overhead,
    save_time,
    scale_all,
    spec_cost,
    spec_decode,
    spec_tokens,
    speed_up_bucket,
)

Change = Callable[[Effect, EffectDraw, StepState, RegimeContext], "str | None"]
Magnitude = Callable[[Effect, EffectDraw, RegimeContext], Value]


@dataclass(frozen=True)
class KindRule:
    """What one kind of effect is and does.

    `estimates`: the names of the three-point inputs a user gives it (the forms and storage iterate them);
    `inputs`: those it holds, by EffectDraw field; `check`: its rules on an Effect (PlanningError naming the
    field); `change`: what it does to the step once it holds in the regime; `calibrate`: the draw with only a share
    `realised` of its predicted log-gain; `magnitude`: how far it moves ln(time a token) when that is not the
    step's own change (None: measured on the step); `headline`: the input the plan's cell shows and edits in place;
    `prior_sigma`: the model error a unit of that change carries;
    `on_bucket`: it acts on the bucket it names (two on one bucket compound); `tokens`: it changes the tokens a
    step yields (speculative decoding); `gpu_path`: its implementation path changes the GPU work in ways the team
    may not state, so without a `states_gpu_work` effect beside it the bands carry a prior for that work
    (bottleneck_risk.py)."""

    kind: EffectKind
    prior_sigma: float
    inputs: Callable[[Effect], dict[str, ThreePoint]]
    check: Callable[[Effect], None]
    change: Change
    calibrate: Callable[[EffectDraw, float], EffectDraw]
    headline: str  # the input the plan shows for the effect and edits in place
    estimates: tuple[str, ...]  # the three-point inputs a user gives, by name (stored a row each)
    magnitude: Magnitude | None = None
    needs_regimes: bool = False
    on_bucket: bool = False
    tokens: bool = False
    gpu_path: bool = False  # its implementation path changes GPU work (CUDA graphs: static shapes)
    states_gpu_work: bool = False  # it says what GPU work a change adds (no path prior for its intervention)


def _speedup(effect: Effect) -> dict[str, ThreePoint]:
    return {"speedup": need(effect.speedup, "the speedup", "speedup")}


def _check_speedup(effect: Effect) -> None:
    if _speedup(effect)["speedup"].low <= 0:
        raise PlanningError("a speedup must be greater than 0", "speedup")


def _check_bucket(effect: Effect) -> None:
    _check_speedup(effect)
    if not effect.bucket:
        raise PlanningError("a bucket speedup needs the bucket it speeds up", "bucket")
    if effect.kernels:
        check_pattern(effect.kernels)


def _speedup_share(draw: EffectDraw, realised: float) -> EffectDraw:
    return EffectDraw(speedup=draw.speedup**realised)


BUCKET = KindRule(
    EffectKind.BUCKET, prior_sigma=0.15, inputs=_speedup, check=_check_bucket,
    change=lambda e, d, s, r: speed_up_bucket(s, target_of(e), d.speedup),
    calibrate=_speedup_share, headline="speedup", estimates=("speedup",), on_bucket=True)


def _scale_step(effect: Effect, draw: EffectDraw, state: StepState, regime: RegimeContext) -> str | None:
    scale_all(state, 1 / draw.speedup)
    return None


STEP = KindRule(EffectKind.STEP, prior_sigma=0.25, inputs=_speedup, check=_check_speedup, change=_scale_step,
                calibrate=_speedup_share, headline="speedup", estimates=("speedup",),
                needs_regimes=True)


def _saved(effect: Effect) -> dict[str, ThreePoint]:
    return {"saved_ms": need(effect.saved_ms, "the time saved", "saved_ms")}


def _check_saved(effect: Effect) -> None:
    if _saved(effect)["saved_ms"].low < 0:
        raise PlanningError("time saved must be >= 0 ms", "saved_ms")


TIME_SAVED = KindRule(
    EffectKind.TIME_SAVED, prior_sigma=0.15, inputs=_saved, check=_check_saved,
    change=lambda e, d, s, r: save_time(s, e.bucket, d.saved_ms, r.step_ms),
    calibrate=lambda d, realised: EffectDraw(saved_ms=d.saved_ms * realised), headline="saved_ms",
    estimates=("saved_ms",), needs_regimes=True, on_bucket=True)


def _spec_inputs(effect: Effect) -> dict[str, ThreePoint]:
    spec = need(effect.spec, "the speculative decoding", "draft_tokens")
    points = {}
    if spec.draft_cost is not None:
        points["draft_cost"] = spec.draft_cost
    if not spec.per_position:
        points["acceptance"] = need(spec.acceptance, "the acceptance rate")
    return points


def _check_spec(effect: Effect) -> None:
    need(effect.spec, "the speculative decoding", "draft_tokens")  # SpecDecode checks its own values


def _spec_magnitude(effect: Effect, draw: EffectDraw, regime: RegimeContext) -> Value:
    """|ln E| + |ln cost|: the tokens gained and the cost paid both carry the model's error."""
    spec = need(effect.spec, "the speculative decoding")
    cost = spec_cost(spec, draw.draft_cost, regime.floor, regime.step_ms)
    if cost is None:
        return 0.0
    return np.abs(np.log(spec_tokens(spec, draw.acceptance))) + np.abs(np.log(cost))


SPEC_DECODE = KindRule(
    EffectKind.SPEC_DECODE, prior_sigma=0.20, inputs=_spec_inputs, check=_check_spec,
    change=lambda e, d, s, r: spec_decode(s, need(e.spec, "the speculative decoding"), d, r),
    calibrate=lambda d, realised: EffectDraw(acceptance=d.acceptance, draft_cost=d.draft_cost, realised=realised),
    headline="acceptance", estimates=("acceptance", "draft_cost"), magnitude=_spec_magnitude, tokens=True)


def _removed(effect: Effect) -> dict[str, ThreePoint]:
    return {"removed": need(effect.removed, "the share removed", "removed")}


def _check_removed(effect: Effect) -> None:
    removed = _removed(effect)["removed"]
    if removed.low < 0 or removed.high > 1:
        raise PlanningError("a share of the launch cost lies between 0 and 1", "removed")


LAUNCH_OVERHEAD = KindRule(
    EffectKind.LAUNCH_OVERHEAD, prior_sigma=0.10, inputs=_removed, check=_check_removed,
    change=lambda e, d, s, r: remove_launch_overhead(s, d.removed),
    calibrate=lambda d, realised: EffectDraw(removed=1 - (1 - d.removed) ** realised), headline="removed",
    estimates=("removed",), gpu_path=True)


def _launches(effect: Effect) -> dict[str, ThreePoint]:
    return {"launches": need(effect.launches, "the launches a step added", "launches")}


def _check_launches(effect: Effect) -> None:
    _launches(effect)  # any number: negative removes launches


LAUNCH_COUNT = KindRule(
    EffectKind.LAUNCH_COUNT, prior_sigma=0.10, inputs=_launches, check=_check_launches,
    change=lambda e, d, s, r: change_launches(s, d.launches),
    calibrate=lambda d, realised: EffectDraw(launches=d.launches * realised), headline="launches",
    estimates=("launches",))

GPU_WORK_INPUTS = ("gpu_ms", "gpu_ms_per_seq", "gpu_items")


def _gpu_work(effect: Effect) -> dict[str, ThreePoint]:
    return {name: point for name in GPU_WORK_INPUTS if (point := getattr(effect, name)) is not None}


def _check_gpu_work(effect: Effect) -> None:
    if not _gpu_work(effect):
        raise PlanningError("give the GPU time it adds a step, a sequence, or the work items it adds", "gpu_ms")


def _gpu_work_share(draw: EffectDraw, realised: float) -> EffectDraw:
    return EffectDraw(**{name: None if (value := getattr(draw, name)) is None else value * realised
                         for name in GPU_WORK_INPUTS})


GPU_WORK = KindRule(
    EffectKind.GPU_WORK, prior_sigma=0.15, inputs=_gpu_work, check=_check_gpu_work,
    change=lambda e, d, s, r: change_gpu_work(s, d, r), calibrate=_gpu_work_share, headline="gpu_ms",
    estimates=GPU_WORK_INPUTS, states_gpu_work=True)

KINDS: dict[EffectKind, KindRule] = {rule.kind: rule for rule in
                                     (BUCKET, STEP, TIME_SAVED, SPEC_DECODE, LAUNCH_OVERHEAD, LAUNCH_COUNT, GPU_WORK)}


def rule_of(kind: EffectKind) -> KindRule:
    """The kind's entry (every EffectKind has one: a test holds it)."""
    return KINDS[kind]

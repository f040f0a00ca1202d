"""What one effect does to a regime's step (see step.py for the step's shape).

The same arithmetic serves the likely-value projection, the greedy order and the Monte Carlo: the
inputs of an effect arrive as floats (a point) or as numpy arrays of samples.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from tierplan.planning.model import Effect, EffectKind, Profile, SpecDecode, ThreePoint, need
from tierplan.planning.step import HOST_BUCKET, StepState, Value, maximum, start_state


@dataclass(frozen=True)
class EffectDraw:
    """The values one effect takes in one evaluation: floats (a point) or arrays (samples)."""

    speedup: Any = None
    saved_ms: Any = None
    acceptance: Any = None
    draft_cost: Any = None
    removed: Any = None
    launches: Any = None
    realised: Any = None  # calibration: the share of its log-gain a spec-decode effect keeps (arrays: order_batch)


class VerifyCost(Protocol):
    """What speculative decoding asks of a hardware model (a StepFloor; a stack of them in order_batch.py)."""

    def verify_cost(self, draft_tokens: int) -> Value: ...


@dataclass(frozen=True)
class RegimeContext:
    """What an effect needs to know of its regime besides the step: its name, step time and hardware model."""

    name: str
    step_ms: Value  # the baseline step (ms), to turn milliseconds into a share of it; None without a baseline
    floor: VerifyCost | None = None


def spec_expected_tokens(acceptance: Value, draft_tokens: int) -> Value:
    """Expected tokens per verification step, E = (1 - a^(g+1)) / (1 - a); g + 1 when a = 1."""
    a = np.asarray(acceptance, dtype=float)
    near_one = np.abs(a - 1.0) <= 1e-8 + 1e-5  # np.isclose(a, 1.0), without its overhead on small arrays
    safe = np.where(near_one, 0.5, a)
    tokens = np.where(near_one, draft_tokens + 1.0, (1 - safe ** (draft_tokens + 1)) / (1 - safe))
    return float(tokens) if tokens.ndim == 0 else tokens


def spec_expected_tokens_from_positions(per_position: tuple[float, ...]) -> float:
    """E = 1 + sum of per-position acceptance rates (the bonus token plus each accepted draft)."""
    return 1.0 + float(sum(per_position))


def spec_step_cost(draft_tokens: int, draft_cost: Value) -> Value:
    """Cost of a draft-and-verify step relative to a plain step: 1 + g c."""
    return 1.0 + draft_tokens * draft_cost


def spec_tokens(spec: SpecDecode, acceptance: Value = None) -> Value:
    """E for the given (or likely) acceptance."""
    if spec.per_position:
        return spec_expected_tokens_from_positions(spec.per_position)
    if acceptance is None:
        acceptance = need(spec.acceptance, "the acceptance rate").likely
    return spec_expected_tokens(acceptance, spec.draft_tokens)


def spec_cost(spec: SpecDecode, draft_cost: Value = None, floor: VerifyCost | None = None) -> Value:
    """The draft-and-verify step over a plain one: 1 + g c with a draft cost, else the hardware model's ratio."""
    if spec.draft_cost is not None:
        return spec_step_cost(spec.draft_tokens, spec.draft_cost.likely if draft_cost is None else draft_cost)
    if floor is not None:
        return floor.verify_cost(spec.draft_tokens)
    return None


def spec_speedup(spec: SpecDecode, acceptance: Value = None, draft_cost: Value = None,
                 floor: VerifyCost | None = None) -> Value:
    """E / step cost for the given (or likely) acceptance and draft cost; None without a cost to go on."""
    cost = spec_cost(spec, draft_cost, floor)
    return None if cost is None else spec_tokens(spec, acceptance) / cost


def three_points(effect: Effect) -> dict[str, ThreePoint]:
    """The uncertain inputs of an effect, by EffectDraw field name."""
    if effect.kind is EffectKind.TIME_SAVED:
        return {"saved_ms": need(effect.saved_ms, "the time saved")}
    if effect.kind is EffectKind.LAUNCH_OVERHEAD:
        return {"removed": need(effect.removed, "the share removed")}
    if effect.kind is EffectKind.LAUNCH_COUNT:
        return {"launches": need(effect.launches, "the launches changed")}
    if effect.kind is EffectKind.SPEC_DECODE:
        spec = need(effect.spec, "the speculative decoding")
        points = {}
        if spec.draft_cost is not None:
            points["draft_cost"] = spec.draft_cost
        if not spec.per_position:
            points["acceptance"] = need(spec.acceptance, "the acceptance rate")
        return points
    return {"speedup": need(effect.speedup, "the speedup")}


def point_draw(effect: Effect, pick: str = "likely") -> EffectDraw:
    """The draw that takes the `pick` (low / likely / high) value of every input."""
    return EffectDraw(**{name: getattr(tp, pick) for name, tp in three_points(effect).items()})


def apply_effect(effect: Effect, draw: EffectDraw, state: StepState, regime: RegimeContext) -> str | None:
    """Apply one effect to the state in place; returns why it could not apply (None: it did, or is not for this regime)."""
    if not effect.applies_to(regime.name):
        return None
    return change_step(effect, draw, state, regime)


def change_step(effect: Effect, draw: EffectDraw, state: StepState, regime: RegimeContext) -> str | None:
    """What apply_effect does once it knows the effect holds in the regime (order_batch.py has checked that itself)."""
    kind = effect.kind
    if kind is EffectKind.BUCKET:
        return _speed_up_bucket(state, need(effect.bucket, "the bucket"), draw.speedup)
    if kind is EffectKind.STEP:
        _scale_all(state, 1 / draw.speedup)
        return None
    if kind is EffectKind.TIME_SAVED:
        return _save_time(state, effect.bucket, draw.saved_ms, regime.step_ms)
    if kind is EffectKind.SPEC_DECODE:
        return _spec_decode(state, need(effect.spec, "the speculative decoding"), draw, regime.floor)
    if kind is EffectKind.LAUNCH_OVERHEAD:
        return _remove_launch_overhead(state, draw.removed)
    return _change_launches(state, draw.launches)


def has_bucket(state: StepState, bucket: str) -> bool:
    """Whether a bucket effect can act on this step: a share of the profile, or the host side of its launch model."""
    return bucket in state.buckets or (bucket == HOST_BUCKET and state.launch is not None)


def missing_bucket(profile: Profile | None, bucket: str) -> bool:
    """Whether an effect on `bucket` finds nothing to act on in a regime with this profile (None: no profile)."""
    return not has_bucket(start_state(profile), bucket)


def _speed_up_bucket(state: StepState, bucket: str, speedup: Value) -> str | None:
    if not has_bucket(state, bucket):
        return f"the profile has no {bucket!r} bucket"
    if bucket in state.buckets:
        state.buckets[bucket] = state.buckets[bucket] / speedup
    elif state.launch is not None:  # host time made faster: the host side only
        state.launch.host_cost = state.launch.host_cost / speedup
        state.launch.host_fixed = state.launch.host_fixed / speedup
    return None


def _scale_all(state: StepState, factor: Value) -> None:
    for bucket in state.buckets:
        state.buckets[bucket] = state.buckets[bucket] * factor
    if state.launch is not None:
        state.launch.host_cost = state.launch.host_cost * factor
        state.launch.host_fixed = state.launch.host_fixed * factor
        state.launch.gap = state.launch.gap * factor


def _save_time(state: StepState, bucket: str | None, saved_ms: Value, step_ms: float | None) -> str | None:
    if step_ms is None:
        return "no baseline throughput to turn milliseconds into a share of the step"
    saved = saved_ms / step_ms
    if bucket is None:
        step = state.step()
        _scale_all(state, _ratio(maximum(step - saved, 0.0), step))
        return None
    if not has_bucket(state, bucket):
        return f"the profile has no {bucket!r} bucket"
    if bucket in state.buckets:
        state.buckets[bucket] = maximum(state.buckets[bucket] - saved, 0.0)
    elif state.launch is not None:
        host = state.launch.host()
        factor = _ratio(maximum(host - saved, 0.0), host)
        state.launch.host_cost = state.launch.host_cost * factor
        state.launch.host_fixed = state.launch.host_fixed * factor
    return None


def _ratio(top: Value, bottom: Value) -> Value:
    if isinstance(bottom, np.ndarray):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(bottom > 0, top / np.maximum(bottom, 1e-300), 0.0)
    return top / bottom if bottom > 0 else 0.0


def _spec_decode(state: StepState, spec: SpecDecode, draw: EffectDraw, floor: VerifyCost | None) -> str | None:
    keep = 1.0 if draw.realised is None else draw.realised
    tokens = spec_tokens(spec, draw.acceptance) ** keep
    if spec.draft_cost is not None:
        _scale_all(state, spec_step_cost(spec.draft_tokens, draw.draft_cost) ** keep)
    elif floor is not None:
        # the verification step's GPU work follows the hardware model; host work and launches stay as they are
        cost = floor.verify_cost(spec.draft_tokens) ** keep
        for bucket in state.buckets:
            if bucket != HOST_BUCKET:
                state.buckets[bucket] = state.buckets[bucket] * cost
        if state.launch is not None:
            state.launch.gap = state.launch.gap * cost
    else:
        return "no draft cost entered and no hardware and model specs to estimate it"
    state.tokens = state.tokens * tokens
    verify = spec.draft_tokens + 1
    if isinstance(keep, np.ndarray):  # a batch of candidates (order_batch.py): only the members verify more
        state.verify_tokens = np.where(keep > 0, np.maximum(state.verify_tokens, verify), state.verify_tokens)
    else:
        state.verify_tokens = max(state.verify_tokens, verify)
    return None


def _remove_launch_overhead(state: StepState, removed: Value) -> str | None:
    if state.launch is not None:
        state.launch.host_factor = state.launch.host_factor * (1 - removed)
        return None
    if HOST_BUCKET in state.buckets:
        state.buckets[HOST_BUCKET] = state.buckets[HOST_BUCKET] * (1 - removed)
        state.notes.append("no launch counts in the profile: taken off its host_overhead share instead")
        return None
    return "the profile has no launch counts and no host_overhead share (import a trace of this regime)"


def _change_launches(state: StepState, launches: Value) -> str | None:
    launch = state.launch
    if launch is None:
        return "the profile has no launch counts (import a trace of this regime)"
    per_item = _ratio(launch.host_launches, launch.gpu_items)  # host calls per GPU item: 1 eager, ~0 in a graph
    items = maximum(launch.gpu_items + launches, 0.0)
    launch.host_launches = maximum(launch.host_launches + launches * per_item, 0.0)
    launch.gpu_items = items
    return None


def magnitude(effect: Effect, draw: EffectDraw, before: Value, after: Value, floor: VerifyCost | None = None) -> Value:
    """How far an effect moves the step: |ln| of the per-token step change (spec decoding: |ln E| + |ln cost|)."""
    if effect.kind is EffectKind.SPEC_DECODE:
        spec = need(effect.spec, "the speculative decoding")
        cost = spec_cost(spec, draw.draft_cost, floor)
        tokens = spec_tokens(spec, draw.acceptance)
        if cost is None:
            return 0.0
        return np.abs(np.log(tokens)) + np.abs(np.log(cost))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(np.asarray(after) > 0, np.asarray(before) / np.maximum(np.asarray(after), 1e-300), 1.0)
    value = np.abs(np.log(np.maximum(ratio, 1e-300)))
    return float(value) if np.ndim(value) == 0 else value


def calibrated(effect: Effect, draw: EffectDraw, realised: float | None) -> EffectDraw:
    """The draw with only `realised` of its predicted log-gain (None or 1: unchanged)."""
    if realised is None or realised == 1:
        return draw
    kind = effect.kind
    if kind is EffectKind.TIME_SAVED:
        return EffectDraw(saved_ms=draw.saved_ms * realised)
    if kind is EffectKind.LAUNCH_OVERHEAD:
        return EffectDraw(removed=1 - (1 - draw.removed) ** realised)
    if kind is EffectKind.LAUNCH_COUNT:
        return EffectDraw(launches=draw.launches * realised)
    if kind is EffectKind.SPEC_DECODE:
        return EffectDraw(acceptance=draw.acceptance, draft_cost=draw.draft_cost, realised=realised)
    return EffectDraw(speedup=draw.speedup**realised)

"""What one effect does to a regime's bucket times.

Times are relative to the baseline step (the baseline step is 1.0) and may
be floats or numpy arrays of Monte Carlo samples: the same arithmetic serves
the likely-value projection and the simulation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from app.planning.model import Effect, EffectKind, SpecDecode, ThreePoint


@dataclass(frozen=True)
class EffectDraw:
    """The values one effect takes in one evaluation: floats (a point) or arrays (samples)."""

    speedup: Any = None
    saved_ms: Any = None
    acceptance: Any = None
    draft_cost: Any = None


def spec_expected_tokens(acceptance, draft_tokens: int):
    """Expected tokens per verification step, E = (1 - a^(g+1)) / (1 - a); g + 1 when a = 1."""
    a = np.asarray(acceptance, dtype=float)
    near_one = np.isclose(a, 1.0)
    safe = np.where(near_one, 0.5, a)
    tokens = np.where(near_one, draft_tokens + 1.0, (1 - safe ** (draft_tokens + 1)) / (1 - safe))
    return float(tokens) if tokens.ndim == 0 else tokens


def spec_expected_tokens_from_positions(per_position: tuple[float, ...]) -> float:
    """E = 1 + sum of per-position acceptance rates (the bonus token plus each accepted draft)."""
    return 1.0 + float(sum(per_position))


def spec_step_cost(draft_tokens: int, draft_cost):
    """Cost of a draft-and-verify step relative to a plain step: 1 + g c."""
    return 1.0 + draft_tokens * draft_cost


def spec_speedup(spec: SpecDecode, acceptance=None, draft_cost=None):
    """E / (1 + g c) for the given (or likely) acceptance and draft cost."""
    cost = spec.draft_cost.likely if draft_cost is None else draft_cost
    if spec.per_position:
        tokens = spec_expected_tokens_from_positions(spec.per_position)
    else:
        tokens = spec_expected_tokens(spec.acceptance.likely if acceptance is None else acceptance, spec.draft_tokens)
    return tokens / spec_step_cost(spec.draft_tokens, cost)


def three_points(effect: Effect) -> dict[str, ThreePoint]:
    """The uncertain inputs of an effect, by EffectDraw field name."""
    if effect.kind is EffectKind.TIME_SAVED:
        return {"saved_ms": effect.saved_ms}
    if effect.kind is EffectKind.SPEC_DECODE:
        points = {"draft_cost": effect.spec.draft_cost}
        if not effect.spec.per_position:
            points["acceptance"] = effect.spec.acceptance
        return points
    return {"speedup": effect.speedup}


def point_draw(effect: Effect, pick: str = "likely") -> EffectDraw:
    """The draw that takes the `pick` (low / likely / high) value of every input."""
    return EffectDraw(**{name: getattr(tp, pick) for name, tp in three_points(effect).items()})


def step_speedup(effect: Effect, draw: EffectDraw):
    """The divisor an effect applies: to its bucket, or to the whole step."""
    if effect.kind is EffectKind.SPEC_DECODE and draw.speedup is None:
        return spec_speedup(effect.spec, draw.acceptance, draw.draft_cost)
    return draw.speedup


def apply_effect(
    effect: Effect, draw: EffectDraw, times: dict[str, Any], regime_name: str, baseline_step_ms: float | None
) -> str | None:
    """Apply one effect in place; returns why it could not apply, or None when it did (or does not concern the regime)."""
    if not effect.applies_to(regime_name):
        return None
    if effect.kind is EffectKind.TIME_SAVED:
        return _save_time(effect, draw.saved_ms, times, baseline_step_ms)
    if effect.kind is EffectKind.BUCKET:
        if effect.bucket not in times:
            return f"the profile has no {effect.bucket!r} bucket"
        times[effect.bucket] = times[effect.bucket] / draw.speedup
        return None
    divisor = step_speedup(effect, draw)
    for bucket in times:
        times[bucket] = times[bucket] / divisor
    return None


def _save_time(effect: Effect, saved_ms, times: dict[str, Any], baseline_step_ms: float | None) -> str | None:
    if baseline_step_ms is None:
        return "no baseline throughput to turn milliseconds into a share of the step"
    if isinstance(saved_ms, float | int) and all(isinstance(t, float | int) for t in times.values()):
        return _save_time_point(effect.bucket, saved_ms / baseline_step_ms, times)
    saved_rel = np.asarray(saved_ms, dtype=float) / baseline_step_ms
    if effect.bucket is not None:
        if effect.bucket not in times:
            return f"the profile has no {effect.bucket!r} bucket"
        times[effect.bucket] = _floor(times[effect.bucket] - saved_rel)
        return None
    step = sum(times.values())
    # no bucket named: the saving comes off the whole step, in proportion, and never below zero
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(np.asarray(step) > 0, _floor(step - saved_rel) / np.maximum(step, 1e-300), 0.0)
    scale = float(scale) if np.ndim(scale) == 0 else scale
    for bucket in times:
        times[bucket] = times[bucket] * scale
    return None


def _save_time_point(bucket: str | None, saved_rel: float, times: dict[str, float]) -> str | None:
    """The same arithmetic on plain floats (the likely-value projection and the greedy order)."""
    if bucket is not None:
        if bucket not in times:
            return f"the profile has no {bucket!r} bucket"
        times[bucket] = max(times[bucket] - saved_rel, 0.0)
        return None
    step = sum(times.values())
    scale = max(step - saved_rel, 0.0) / step if step > 0 else 0.0
    for name in times:
        times[name] = times[name] * scale
    return None


def _floor(value):
    floored = np.maximum(value, 0.0)
    return float(floored) if np.ndim(floored) == 0 else floored


def calibrated(effect: Effect, draw: EffectDraw, realised: float | None) -> EffectDraw:
    """The draw with only `realised` of its predicted log-gain (None or 1: unchanged)."""
    if realised is None or realised == 1:
        return draw
    if effect.kind is EffectKind.TIME_SAVED:
        return EffectDraw(saved_ms=draw.saved_ms * realised)
    if effect.kind is EffectKind.SPEC_DECODE:
        return EffectDraw(speedup=step_speedup(effect, draw) ** realised)
    return EffectDraw(speedup=draw.speedup**realised)

"""What one effect does to a regime's step, whatever its kind: its inputs, a point draw, applying it, calibrating
it and how far it moved the step. Each asks the kind's entry in effect_kinds.py; the step changes themselves are
in step_changes.py.

The same arithmetic serves the likely-value projection, the greedy order and the Monte Carlo: the
inputs of an effect arrive as floats (a point) or as numpy arrays of samples.
"""

from __future__ import annotations

import numpy as np

from tierplan.planning.effect_kinds import rule_of
from tierplan.planning.model import Effect, ThreePoint
from tierplan.planning.step import StepState, Value
from tierplan.planning.step_changes import EffectDraw, RegimeContext


def three_points(effect: Effect) -> dict[str, ThreePoint]:
    """The uncertain inputs of an effect, by EffectDraw field name."""
    return rule_of(effect.kind).inputs(effect)


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
    return rule_of(effect.kind).change(effect, draw, state, regime)


def magnitude(effect: Effect, draw: EffectDraw, before: Value, after: Value, regime: RegimeContext) -> Value:
    """How far an effect moves the step: |ln| of the per-token step change, unless its kind measures it otherwise
    (spec decoding: |ln E| + |ln cost|)."""
    own = rule_of(effect.kind).magnitude
    if own is not None:
        return own(effect, draw, regime)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(np.asarray(after) > 0, np.asarray(before) / np.maximum(np.asarray(after), 1e-300), 1.0)
    value = np.abs(np.log(np.maximum(ratio, 1e-300)))
    return float(value) if np.ndim(value) == 0 else value


def calibrated(effect: Effect, draw: EffectDraw, realised: float | None) -> EffectDraw:
    """The draw with only `realised` of its predicted log-gain (None or 1: unchanged)."""
    if realised is None or realised == 1:
        return draw
    return rule_of(effect.kind).calibrate(draw, realised)

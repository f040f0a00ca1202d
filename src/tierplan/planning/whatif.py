"""What-if curves: the end-to-end speedup if one bucket alone became s times faster (Coz's question).

With launch counts in the profile the step follows the launch model, so in a host-bound step a
GPU bucket buys nothing however fast it gets, and the host side's own curve shows what would.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tierplan.planning.effects import apply_effect
from tierplan.planning.model import Effect, EffectKind, Profile, ThreePoint
from tierplan.planning.step import start_state
from tierplan.planning.step_changes import EffectDraw, RegimeContext

WHAT_IF_SPEEDUPS = (1.25, 1.5, 2.0, 3.0, 5.0, 10.0, math.inf)


@dataclass(frozen=True)
class WhatIf:
    bucket: str
    share: float
    end_to_end: tuple[tuple[float, float], ...]  # (bucket speedup, whole-step speedup)

    @property
    def limit(self) -> float:
        """The whole-step speedup if the bucket took no time at all."""
        return self.end_to_end[-1][1]


def end_to_end_speedup(share: float, bucket_speedup: float) -> float:
    """1 / ((1 - p) + p / s); infinite s gives 1 / (1 - p), and p = 1 with infinite s gives infinity."""
    remaining = (1 - share) + (0.0 if math.isinf(bucket_speedup) else share / bucket_speedup)
    return math.inf if remaining <= 0 else 1 / remaining


def what_if(profile: Profile, speedups: tuple[float, ...] = WHAT_IF_SPEEDUPS) -> tuple[WhatIf, ...]:
    """For each bucket, largest first, the end-to-end speedup at each bucket speedup."""
    base = start_state(profile)
    step = float(base.step())
    buckets = sorted(base.shares().items(), key=lambda bs: -bs[1])
    curves = []
    for bucket, share in buckets:
        points = []
        for s in speedups:
            state = base.copy()
            effect = Effect(kind=EffectKind.BUCKET, bucket=bucket, speedup=ThreePoint(1, 1, 1))
            draw = EffectDraw(speedup=s)
            apply_effect(effect, draw, state, RegimeContext("", None))
            after = float(state.step())
            points.append((s, math.inf if after <= 0 else step / after))
        curves.append(WhatIf(bucket, float(share), tuple(points)))
    return tuple(curves)

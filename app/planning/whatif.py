"""What-if curves: the end-to-end speedup if one bucket alone became s times faster (Coz's question)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from app.planning.model import Profile

WHAT_IF_SPEEDUPS = (1.25, 1.5, 2.0, 3.0, 5.0, 10.0, math.inf)


@dataclass(frozen=True)
class WhatIf:
    bucket: str
    share: float
    end_to_end: tuple[tuple[float, float], ...]  # (bucket speedup, whole-step speedup)

    @property
    def limit(self) -> float:
        """The whole-step speedup if the bucket took no time at all: 1 / (1 - share)."""
        return self.end_to_end[-1][1]


def end_to_end_speedup(share: float, bucket_speedup: float) -> float:
    """1 / ((1 - p) + p / s); infinite s gives 1 / (1 - p), and p = 1 with infinite s gives infinity."""
    remaining = (1 - share) + (0.0 if math.isinf(bucket_speedup) else share / bucket_speedup)
    return math.inf if remaining <= 0 else 1 / remaining


def what_if(profile: Profile, speedups: tuple[float, ...] = WHAT_IF_SPEEDUPS) -> tuple[WhatIf, ...]:
    """For each bucket, largest first, the end-to-end speedup at each bucket speedup."""
    buckets = sorted(profile.shares, key=lambda bs: -bs[1])
    return tuple(
        WhatIf(bucket, share, tuple((s, end_to_end_speedup(share, s)) for s in speedups)) for bucket, share in buckets
    )

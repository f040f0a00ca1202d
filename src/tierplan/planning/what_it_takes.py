"""What it would take: for a regime the plan leaves short of its target, the step time the target needs, the
speedup each bucket alone would need to get there, and the fewest of the plan's buckets that could together.

After the plan a step of `T` ms yields `E` tokens a sequence for `c` sequences: throughput c E 1000 / T. The target
needs a step of c E 1000 / target ms, `T'`. A bucket holding `t` ms of the step, made `s` times faster while the rest
stays, gives T - t + t / s: it alone gets there with s = t / (t - (T - T')), and cannot when the other buckets
already take more than T' ("impossible: the others already take X ms"). Together, the k largest buckets holding `K`
ms need a speedup K / (K - (T - T')) each; the fewest that need at most PLAUSIBLE is named, else the fewest that can
at all. Host time (`host_overhead`) is a bucket here like the others: what the step waits on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tierplan.planning.projection import RegimeProjection

PLAUSIBLE = 10.0  # a speedup a bucket's kernels can plausibly get from engineering, not a new algorithm


@dataclass(frozen=True)
class BucketNeed:
    bucket: str
    ms: float  # its time in the step the plan leaves
    speedup: float | None  # what it alone would need; None: impossible, the others exceed the target step


@dataclass(frozen=True)
class WhatItTakes:
    regime: str
    step_ms: float  # the step the plan leaves
    needed_ms: float  # the step the target needs
    buckets: tuple[BucketNeed, ...]  # largest first
    together: tuple[tuple[str, ...], float] | None  # the fewest buckets that could, and the speedup each needs
    floor_ms: float | None = None  # the hardware floor of that step, where the specs give one


def what_it_takes(projection: RegimeProjection, concurrency: int, floor_ms: float | None = None) -> WhatItTakes | None:
    """None when the plan reaches the target, or its step is not known in milliseconds."""
    final = projection.final
    if final.tok_s is None or final.step_ms is None or final.tok_s >= projection.target_tok_s:
        return None
    step = final.step_ms
    needed = concurrency * final.tokens_per_step * 1000.0 / projection.target_tok_s
    cut = step - needed  # what must come off
    times = sorted(((b, share * step) for b, share in final.shares if share > 0), key=lambda bt: -bt[1])
    room = 1e-9 * step  # a bucket exactly the size of the cut would have to take no time at all
    buckets = tuple(BucketNeed(b, ms, ms / (ms - cut) if ms - cut > room else None) for b, ms in times)
    together = None
    held = 0.0
    for k, (_, ms) in enumerate(times, start=1):
        held += ms
        if held - cut > room:
            speedup = held / (held - cut)
            names = tuple(b for b, _ in times[:k])
            if together is None or speedup <= PLAUSIBLE:
                together = (names, speedup)
            if speedup <= PLAUSIBLE:
                break
    return WhatItTakes(projection.regime, step, needed, buckets, together, floor_ms)


def sentence(need: WhatItTakes) -> str:
    """The whole answer in words, as the page and the export say it."""
    head = (f"{need.regime}: the target needs a {need.needed_ms:.3g} ms step against the {need.step_ms:.3g} ms the "
            "plan leaves")
    if need.floor_ms is not None and need.needed_ms < need.floor_ms:
        head += (f", below the {need.floor_ms:.3g} ms a step's bytes and FLOPs take at the hardware's peak: out of "
                 "reach on this hardware")
    parts = []
    for b in need.buckets[:4]:
        if b.speedup is None:
            parts.append(f"{b.bucket} alone cannot ({b.ms:.3g} ms of it: the others already take "
                         f"{need.step_ms - b.ms:.3g} ms)")
        else:
            parts.append(f"{b.bucket} alone {b.speedup:.3g}x faster ({b.ms:.3g} ms of it)")
    text = head + "; " + "; ".join(parts)
    if need.together is not None:
        names, speedup = need.together
        if len(names) > 1 and math.isfinite(speedup):
            text += f"; together, {', '.join(names)} each {speedup:.3g}x faster"
    return text

"""The concurrency curve of a campaign: from one sequence to the most whose KV cache fits beside the weights, the
hardware ceiling, the measured baselines and the projection after each tier, and where each regime's target first
lies within the ceiling and within the plan's reach.

Ceiling: the floor of a step at that concurrency (ceiling.py), with the mean context of the regime nearest in
concurrency; it stops where the KV cache of that many sequences no longer fits (spec_break_even.kv_fit_concurrency,
at the largest regime's context). Projections are known at the regimes' own concurrencies; between two regimes a
stage's efficiency (throughput over the ceiling) is interpolated linearly in log concurrency, and each point says
which it is (measured, projected, interpolated). Beyond the regimes nothing is projected: how a step scales past
the last measured concurrency is what a measurement there would tell, so the curve shows only the ceiling there and
the reach says where the regimes stop.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tierplan.planning.ceiling import StepFloor
from tierplan.planning.model import Regime
from tierplan.planning.projection import RegimeProjection
from tierplan.planning.spec_break_even import kv_fit_concurrency
from tierplan.planning.targets import TargetKind, aggregate_at

MAX_POINTS_CONCURRENCY = 65536  # the grid stops here whatever fits (a sweep beyond it is not a decode regime)


@dataclass(frozen=True)
class StageCurve:
    stage: str  # "baseline" or a tier's key
    tok_s: tuple[float | None, ...]  # at each of the curve's concurrencies
    how: tuple[str, ...]  # "measured", "projected", "interpolated" ("" beyond the regimes: not projected)


@dataclass(frozen=True)
class Reach:
    """Where one regime's target lies within the ceiling and within the plan's reach, along the curve."""

    regime: str
    kind: TargetKind
    target_tok_s: float  # at the regime's own concurrency (aggregate)
    within_ceiling_from: int | None  # the smallest concurrency whose ceiling holds the target (None: none)
    plan_reaches_from: int | None  # the smallest where the plan's last stage holds it (None: none the regimes span)
    best_share: float  # the plan's last stage over the target, at its best concurrency
    best_at: int
    span: tuple[int, int]  # the concurrencies the regimes span: projections hold between them only


@dataclass(frozen=True)
class ConcurrencyCurve:
    concurrencies: tuple[int, ...]
    ceiling_tok_s: tuple[float, ...]
    stages: tuple[StageCurve, ...]  # baseline first, then each tier in plan order
    measured: tuple[tuple[str, int, float], ...]  # (regime, concurrency, baseline tok/s)
    kv_fit: int  # the most sequences whose KV cache fits
    reaches: tuple[Reach, ...]

    def target_tok_s(self, reach: Reach, own_concurrency: int) -> tuple[float, ...]:
        """What the regime's target asks at each of the curve's concurrencies."""
        return tuple(aggregate_at(reach.kind, reach.target_tok_s, own_concurrency, c) for c in self.concurrencies)


def _grid(kv_fit: int, regimes: Sequence[int]) -> tuple[int, ...]:
    top = min(kv_fit, MAX_POINTS_CONCURRENCY)
    powers = [2**k for k in range(int(math.log2(top)) + 1)]
    return tuple(sorted({*powers, *(c for c in regimes if c <= top), top}))


def _nearest(regimes: Sequence[Regime], concurrency: int) -> Regime:
    return min(regimes, key=lambda r: (abs(math.log(r.concurrency / concurrency)), r.concurrency))


def _stage(anchors: Sequence[tuple[int, float]], grid: Sequence[int], ceilings: Sequence[float],
           ceiling_at: Mapping[int, float], own: str) -> tuple[tuple[float | None, ...], tuple[str, ...]]:
    """A stage's throughput along the grid from its values at the anchors' concurrencies (see the module)."""
    ratios = [(c, v / ceiling_at[c]) for c, v in anchors]
    points = sorted((c, math.log(r)) for c, r in ratios if 0 < r < math.inf)  # a stored 5e-324 is no anchor
    if not points:
        return tuple(None for _ in grid), tuple("" for _ in grid)
    values: list[float | None] = []
    hows: list[str] = []
    for c, ceiling in zip(grid, ceilings, strict=True):
        exact = next((e for a, e in points if a == c), None)
        if exact is not None:
            values.append(math.exp(exact) * ceiling)
            hows.append(own)
            continue
        below = [(a, e) for a, e in points if a < c]
        above = [(a, e) for a, e in points if a > c]
        if below and above:
            (c0, e0), (c1, e1) = below[-1], above[0]
            share = (math.log(c) - math.log(c0)) / (math.log(c1) - math.log(c0))
            efficiency, how = e0 + (e1 - e0) * share, "interpolated"
        else:  # beyond the regimes: not projected
            values.append(None)
            hows.append("")
            continue
        values.append(math.exp(efficiency) * ceiling)
        hows.append(how)
    return tuple(values), tuple(hows)


def concurrency_curve(regimes: Sequence[Regime], floors: Mapping[str, StepFloor],
                      projections: Sequence[RegimeProjection]) -> ConcurrencyCurve | None:
    """The campaign's curve (None without the specs' hardware model or a regime to anchor it)."""
    placed = [r for r in regimes if r.name in floors]
    if not placed:
        return None
    widest = max(placed, key=lambda r: floors[r.name].context_tokens)
    kv_fit = kv_fit_concurrency(floors[widest.name])
    grid = _grid(kv_fit, [r.concurrency for r in placed])

    def ceiling(c: int) -> float:
        near = floors[_nearest(placed, c).name]
        return float(StepFloor(near.gpu, near.model, c, near.context_tokens).ceiling_tok_s(1.0, 1))

    ceilings = tuple(ceiling(c) for c in grid)
    if not all(0 < c < math.inf for c in ceilings):  # specs stored outside their bounds: no curve
        return None
    at = dict(zip(grid, ceilings, strict=True)) | {r.concurrency: ceiling(r.concurrency) for r in placed}
    by_name = {p.regime: p for p in projections}
    order = ["baseline", *dict.fromkeys(s.tier_key for p in projections for s in p.steps if s.tier_key)]
    stages = []
    for stage in order:
        anchors = []
        for regime in placed:
            projection = by_name.get(regime.name)
            step = None if projection is None else next(
                (s for s in (projection.baseline, *projection.steps) if (s.tier_key or "baseline") == stage), None)
            if step is not None and step.tok_s and step.tok_s > 0:
                anchors.append((regime.concurrency, step.tok_s))
        values, hows = _stage(anchors, grid, ceilings, at, "measured" if stage == "baseline" else "projected")
        stages.append(StageCurve(stage, values, hows))
    measured = tuple((r.name, r.concurrency, r.baseline_tok_s) for r in placed if r.baseline_tok_s)
    final = stages[-1]
    span = (min(r.concurrency for r in placed), max(r.concurrency for r in placed))
    reaches = []
    for regime in placed:
        asks = [aggregate_at(regime.target_kind, regime.target_tok_s, regime.concurrency, c) for c in grid]
        within = next((c for c, top, t in zip(grid, ceilings, asks, strict=True) if top >= t), None)
        shares = [(v / t, c) for c, v, t in zip(grid, final.tok_s, asks, strict=True) if v is not None]
        reached = next((c for share, c in shares if share >= 1), None)
        best_share, best_at = max(shares, key=lambda sc: (sc[0], -sc[1]), default=(0.0, regime.concurrency))
        reaches.append(Reach(regime.name, regime.target_kind, regime.target_tok_s, within, reached, best_share,
                             best_at, span))
    return ConcurrencyCurve(grid, ceilings, tuple(stages), measured, kv_fit, tuple(reaches))

"""The concurrency curve on the plan page and in the export: the chart (log concurrency, log tok/s), a sentence a
regime's target saying where it fits the ceiling and where the plan reaches it, and the figures as a table."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from markupsafe import Markup, escape

from tierplan.models.plan_rows import RegimePublic
from tierplan.planning.concurrency_curve import ConcurrencyCurve, Reach
from tierplan.planning.model import Regime
from tierplan.planning.spec_break_even import MEMORY_USABLE
from tierplan.planning.targets import TargetKind, views
from tierplan.text import formatting as fmt
from tierplan.views.charts import HEIGHT, LEFT, PALETTE, WIDTH, Scale, _attr, check_drawable, drawable, y_grid

CURVE_RIGHT = 170  # room for the line labels
KIND_WORDS = {TargetKind.AGGREGATE: "aggregate", TargetKind.PER_USER: "per user", TargetKind.TPOT: "TPOT"}


@dataclass
class CurveView:
    chart: Markup
    sentences: list[str]
    head: list[str]  # the table's columns: concurrency, ceiling, each stage, each target
    rows: list[list[str]] = field(default_factory=list)
    note: str = ""


def target_text(regime: Regime | RegimePublic) -> str:
    """"1,000 tok/s aggregate (62.5 tok/s per user, TPOT 16 ms at concurrency 16)", the team's own statement first."""
    seen = views(regime.target_tok_s, regime.concurrency)
    parts = {TargetKind.AGGREGATE: f"{fmt.tok_s(seen.aggregate_tok_s)} aggregate",
             TargetKind.PER_USER: f"{fmt.tok_s(seen.per_user_tok_s)} per user",
             TargetKind.TPOT: f"TPOT {fmt.number(seen.tpot_ms, 'ms')}"}
    first = parts.pop(TargetKind(regime.target_kind))
    return f"{first} ({', '.join(parts.values())} at concurrency {regime.concurrency})"


def target_note(regime: Regime | RegimePublic) -> str:
    """What an aggregate target reads as per user: "aggregate: 62.5 tok/s per user, TPOT 16 ms at concurrency 16;
    stated per user"."""
    seen = views(regime.target_tok_s, regime.concurrency)
    stated = {TargetKind.AGGREGATE: "as the aggregate", TargetKind.PER_USER: "per user",
              TargetKind.TPOT: "as TPOT"}[TargetKind(regime.target_kind)]
    return (f"aggregate: {fmt.tok_s(seen.per_user_tok_s)} per user, TPOT {fmt.number(seen.tpot_ms, 'ms')} at "
            f"concurrency {regime.concurrency}; stated {stated}")


def reach_sentence(reach: Reach, curve: ConcurrencyCurve, regime: Regime, names: str) -> str:
    """Where a target (of the regimes `names`) fits the ceiling and where the plan reaches it, in words."""
    stated = target_text(regime).split(" (")[0]
    top = curve.concurrencies[-1]
    low, high = reach.span
    spanned = f"concurrency {low:,}" if low == high else f"concurrency {low:,} to {high:,}"
    if reach.within_ceiling_from is None:
        return (f"{names}: {stated} lies above the hardware ceiling at every concurrency up to {top:,} (where the KV "
                "cache of more sequences no longer fits beside the weights)")
    within = f"within the hardware ceiling from concurrency {reach.within_ceiling_from:,}"
    if reach.plan_reaches_from is not None:
        return f"{names}: {stated}, {within}; the plan reaches it from concurrency {reach.plan_reaches_from:,}"
    beyond = (f"; beyond {high:,} no regime is measured, so the plan is not projected there: measure one where the "
              f"ceiling holds the target" if high < top else "")
    return (f"{names}: {stated}, {within}; the plan reaches it nowhere the regimes span ({spanned}): "
            f"{fmt.share(reach.best_share)} of it at best, at concurrency {reach.best_at:,}{beyond}")


def _targets(curve: ConcurrencyCurve, by_name: dict[str, Regime]) -> list[tuple[Reach, list[str], tuple[float, ...]]]:
    """Each distinct target (regimes that ask the same at every concurrency share one), with its regimes."""
    out: list[tuple[Reach, list[str], tuple[float, ...]]] = []
    for reach in curve.reaches:
        asks = curve.target_tok_s(reach, by_name[reach.regime].concurrency)
        same = next((t for t in out if t[2] == asks), None)
        if same is None:
            out.append((reach, [reach.regime], asks))
        else:
            same[1].append(reach.regime)
    return out


def curve_view(curve: ConcurrencyCurve | None, regimes: tuple[Regime, ...]) -> CurveView | None:
    if curve is None:
        return None
    by_name = {r.name: r for r in regimes}
    targets = _targets(curve, by_name)
    owners = {id(r): " and ".join(names) + "'s target" for r, names, _ in targets}
    head = ["concurrency", "ceiling", *(s.stage for s in curve.stages),
            *(f"{owners[id(r)]} ({KIND_WORDS[r.kind]})" for r, _, _ in targets)]
    rows = []
    for n, c in enumerate(curve.concurrencies):
        stages = [f"{fmt.tok_s(s.tok_s[n])}{' ~' if s.how[n] == 'interpolated' else ''}"
                  if s.tok_s[n] is not None else "—" for s in curve.stages]
        rows.append([f"{c:,}", fmt.tok_s(curve.ceiling_tok_s[n]), *stages, *(fmt.tok_s(a[n]) for _, _, a in targets)])
    return CurveView(
        chart=curve_chart(curve, [("target" if len(targets) == 1 else f"target of {names[0]}", asks)
                                  for _, names, asks in targets], "curve-table"),
        sentences=[f"the KV cache of up to {curve.kv_fit:,} sequences fits beside the weights (at the widest "
                   f"regime's mean context, in {MEMORY_USABLE:.0%} of the GPUs' memory): the curve stops there",
                   *(reach_sentence(r, curve, by_name[r.regime], owners[id(r)]) for r, _, _ in targets)],
        head=head, rows=rows,
        note=("~: interpolated in efficiency (throughput over the ceiling) between two regimes; measured or "
              "projected at a regime; —: beyond the regimes, not projected"))


@drawable
def curve_chart(curve: ConcurrencyCurve, asks: list[tuple[str, tuple[float, ...]]], table_id: str) -> Markup:
    """Throughput against concurrency, both on log axes: ceiling, baseline, the last tier and each target (`asks`:
    its line label and what it asks at each concurrency)."""
    cs = curve.concurrencies
    lines: list[tuple[str, tuple[float | None, ...], str]] = [("ceiling", curve.ceiling_tok_s, "ceiling")]
    shown = [curve.stages[0], curve.stages[-1]] if len(curve.stages) > 1 else [curve.stages[0]]
    lines += [(f"after {s.stage}" if s.stage != "baseline" else "baseline", s.tok_s, "stage") for s in shown]
    lines += [(label, a, "target") for label, a in asks]
    values = [v for _, ys, _ in lines for v in ys if v is not None and v > 0]
    check_drawable(values)
    scale = Scale(10 ** math.floor(math.log10(min(values))), 10 ** math.ceil(math.log10(max(values))), True)
    span = math.log10(cs[-1]) or 1.0

    def x(c: int) -> float:
        return LEFT + math.log10(c) / span * (WIDTH - LEFT - CURVE_RIGHT)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart curve-chart" id="curve-chart" '
             f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-labelledby="curve-chart-title curve-chart-desc">',
             '<title id="curve-chart-title">Output throughput against concurrency</title>',
             f'<desc id="curve-chart-desc">From 1 sequence to {cs[-1]:,} (the most whose KV cache fits): the hardware '
             f'ceiling, the measured baseline, the projection after the last tier and each regime\'s target; the '
             f'table {escape(table_id)} holds the figures.</desc>']
    parts += y_grid(scale, unit="tok/s", right=WIDTH - CURVE_RIGHT)
    for c in cs:
        if c == cs[-1] or (math.log2(c) % 2 == 0 and x(cs[-1]) - x(c) > 40):  # none crowding the last
            parts.append(f'<text class="axis" x="{x(c):.1f}" y="{HEIGHT - 12}" text-anchor="middle">{c:,}</text>')
    parts.append(f'<text class="axis-unit" x="{WIDTH - CURVE_RIGHT:.1f}" y="{HEIGHT - 1}" text-anchor="end">'
                 'concurrency</text>')
    previous: float | None = None
    ends = []
    for i, (label, ys, cls) in enumerate(lines):
        points = [(c, v) for c, v in zip(cs, ys, strict=True) if v is not None and v > 0]
        if not points:
            continue
        colour = {"ceiling": "#6b7280", "target": "#be123c"}.get(cls, PALETTE[i % len(PALETTE)])
        if len(points) == 1:  # one regime: a point, not a line
            (c, v), = points
            parts.append(f'<circle class="point" cx="{x(c):.1f}" cy="{scale.y(v):.1f}" r="4" fill="{colour}" '
                         f'data-line="{escape(label)}" data-tok-s="{_attr(v)}"/>')
        d = " ".join(f"{'M' if j == 0 else 'L'}{x(c):.1f},{scale.y(v):.1f}" for j, (c, v) in enumerate(points))
        parts.append(f'<path class="curve curve-{cls}" d="{d}" stroke="{colour}" data-line="{escape(label)}" '
                     f'data-tok-s="{escape(" ".join(_attr(v) for _, v in points))}"/>')
        ends.append((scale.y(points[-1][1]) + 4, label, colour))
    for y, label, colour in sorted(ends, reverse=True):
        label_y = y if previous is None else min(y, previous - 13)
        previous = label_y
        parts.append(f'<text class="line-label" x="{WIDTH - CURVE_RIGHT + 6}" y="{label_y:.1f}" fill="{colour}">'
                     f'{escape(label)}</text>')
    for regime, c, tok_s in curve.measured:
        if c in cs:
            parts.append(f'<circle class="point measured" cx="{x(c):.1f}" cy="{scale.y(tok_s):.1f}" r="4" '
                         f'data-regime="{escape(regime)}" data-tok-s="{_attr(tok_s)}"><title>{escape(regime)}: '
                         f'{escape(fmt.tok_s(tok_s))} measured</title></circle>')
    parts.append("</svg>")
    return Markup("".join(parts))

"""Charts as server-rendered SVG: every user string escaped here (Jinja does not autoescape what it is handed as
Markup), each chart with a title, a description and the data table beside it as its text alternative.

Each drawn value carries its number in a data attribute, so a test reads back what the chart drew.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup, escape

from tierplan.text import formatting as fmt

WIDTH, HEIGHT = 640, 240
LEFT, RIGHT, TOP, BOTTOM = 64, 150, 18, 34  # margins: axis labels left, line labels right
LABEL_CHAR_PX = 7.0  # a character of a bold 11 px line label, with room (DejaVu Sans Bold: 6.9 px measured)
LOG_SPAN = 10.0  # a log scale when the values span more than 10x


@dataclass(frozen=True)
class TierPoint:
    label: str  # "baseline", "A", ...
    tok_s: float | None
    p10_tok_s: float | None = None
    p90_tok_s: float | None = None


@dataclass(frozen=True)
class Scale:
    low: float
    high: float
    log: bool

    def y(self, value: float) -> float:
        """The SVG y of a value (top is high); on a log scale, a value at or below its low end (0 tok/s) sits on
        the axis."""
        if self.log:
            value = max(value, self.low)
            share = (math.log10(value) - math.log10(self.low)) / (math.log10(self.high) - math.log10(self.low))
        else:
            share = (value - self.low) / (self.high - self.low)
        return TOP + (1 - share) * (HEIGHT - TOP - BOTTOM)

    def ticks(self) -> list[float]:
        if self.log:
            first, last = math.floor(math.log10(self.low)), math.ceil(math.log10(self.high))
            return [10.0**e for e in range(first, last + 1) if self.low <= 10.0**e <= self.high]
        step = _nice((self.high - self.low) / 4)
        start = math.ceil(self.low / step) * step
        return [start + i * step for i in range(int((self.high - start) / step) + 1)]


def _tick(value: float) -> str:
    return f"{value:,.0f}" if value >= 10 or value == int(value) else f"{value:,.2g}"


def y_grid(scale: Scale, label: Callable[[float], str] | None = None, right: float = WIDTH - RIGHT,
           unit: str = "") -> list[str]:
    """A chart's horizontal grid lines, one a tick of `scale`, each with its label on the left axis, and the
    axis's unit above them."""
    label = label or _tick
    head = [f'<text class="axis-unit" x="{LEFT - 6}" y="{TOP - 10}" text-anchor="end">{escape(unit)}</text>'] if unit else []
    return head + [f'<line class="grid" x1="{LEFT}" x2="{right}" y1="{scale.y(tick):.1f}" y2="{scale.y(tick):.1f}"/>'
                   f'<text class="axis" x="{LEFT - 6}" y="{scale.y(tick) + 4:.1f}" text-anchor="end">'
                   f'{escape(label(tick))}</text>' for tick in scale.ticks()]


def _nice(raw: float) -> float:
    power = 10 ** math.floor(math.log10(raw))
    return float(next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw))


DRAWABLE = (1e-12, 1e12)  # values a chart scales; outside them (a stored 5e-324 or 1e308) the figures are text


class Undrawable(ValueError):
    """A value no chart can scale: the chart is replaced by a note, the table beside it holds the figures."""


def drawable(chart: Callable[..., Markup]) -> Callable[..., Markup]:
    """A chart, or in its place a note saying why it cannot be drawn (never an error on the page)."""

    @functools.wraps(chart)
    def draw(*args: Any, **kwargs: Any) -> Markup:
        try:
            return chart(*args, **kwargs)
        except Undrawable as exc:
            return Markup('<p class="chart-note muted small">This chart cannot be drawn: {} The figures are in '
                          'the table.</p>').format(str(exc))
    return draw


def check_drawable(values: Sequence[float]) -> None:
    odd = next((v for v in values if not (v == 0 or DRAWABLE[0] <= abs(v) <= DRAWABLE[1])), None)
    if odd is not None:
        raise Undrawable(f"{odd:g} lies outside what a chart can scale ({DRAWABLE[0]:g} to {DRAWABLE[1]:g}).")


def scale_of(values: Sequence[float]) -> Scale:
    """A y scale holding every value: log when they span more than 10x, linear from 0 otherwise; Undrawable for a
    value outside DRAWABLE (or not a number)."""
    check_drawable(values)
    positive = [v for v in values if v > 0]
    if not positive:
        raise Undrawable("no value above zero.")
    low, high = min(positive), max(positive)
    if high / low > LOG_SPAN:
        return Scale(10 ** math.floor(math.log10(low)), 10 ** math.ceil(math.log10(high)), True)
    top = high * 1.1
    return Scale(0.0, _nice(top / 4) * 4 if top > 0 else 1.0, False)


def _attr(value: float | None) -> str:
    return "" if value is None else repr(float(value))


@drawable
def projection_chart(chart_id: str, regime: str, points: Sequence[TierPoint], target_tok_s: float,
                     ceiling_tok_s: float | None, table_id: str) -> Markup:
    """Projected output throughput after each tier as steps, with the P10-P90 band, the target and the ceiling."""
    drawn = [p for p in points if p.tok_s is not None]
    if not drawn:
        return Markup("")
    values = [v for p in drawn for v in (p.tok_s, p.p10_tok_s, p.p90_tok_s) if v is not None]
    values += [target_tok_s] + ([ceiling_tok_s] if ceiling_tok_s else [])
    scale = scale_of(values)
    slot = (WIDTH - LEFT - RIGHT) / len(points)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart projection-chart" id="{escape(chart_id)}" '
             f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-labelledby="{escape(chart_id)}-title {escape(chart_id)}-desc" '
             f'data-scale="{"log" if scale.log else "linear"}">',
             f'<title id="{escape(chart_id)}-title">Projected output throughput of {escape(regime)} after each tier'
             '</title>',
             f'<desc id="{escape(chart_id)}-desc">{escape(_describe(regime, drawn, target_tok_s, ceiling_tok_s))} '
             f'The table {escape(table_id)} holds the same figures.</desc>']
    parts += y_grid(scale, unit="tok/s")
    path, previous = [], None
    for i, p in enumerate(points):
        x0, x1 = LEFT + i * slot, LEFT + (i + 1) * slot
        parts.append(f'<text class="axis" x="{(x0 + x1) / 2:.1f}" y="{HEIGHT - 12}" text-anchor="middle">'
                     f'{escape(p.label)}</text>')
        if p.tok_s is None:
            continue
        if p.p10_tok_s is not None and p.p90_tok_s is not None:
            top, bottom = scale.y(p.p90_tok_s), scale.y(max(p.p10_tok_s, scale.low or p.p10_tok_s))
            parts.append(f'<rect class="band" x="{x0 + 4:.1f}" y="{top:.1f}" width="{slot - 8:.1f}" '
                         f'height="{max(bottom - top, 1):.1f}" data-tier="{escape(p.label)}" '
                         f'data-p10="{_attr(p.p10_tok_s)}" data-p90="{_attr(p.p90_tok_s)}"/>')
        y = scale.y(p.tok_s)
        path.append(f"{'M' if previous is None else 'L'}{x0:.1f},{(previous if previous is not None else y):.1f}")
        path.append(f"L{x0:.1f},{y:.1f} L{x1:.1f},{y:.1f}")
        previous = y
        parts.append(f'<circle class="point" cx="{(x0 + x1) / 2:.1f}" cy="{y:.1f}" r="3" '
                     f'data-tier="{escape(p.label)}" data-tok-s="{_attr(p.tok_s)}"/>')
    parts.append(f'<path class="steps" d="{" ".join(path)}"/>')
    for cls, value, label in (("target", target_tok_s, "target"), ("ceiling", ceiling_tok_s, "ceiling")):
        if value:
            y = scale.y(value)
            parts.append(f'<line class="{cls}" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}" '
                         f'data-tok-s="{_attr(value)}"/><text class="line-label {cls}" x="{WIDTH - RIGHT + 6}" '
                         f'y="{y + 4:.1f}">{label} {escape(fmt.tok_s(value))}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))


def _describe(regime: str, points: Sequence[TierPoint], target: float, ceiling: float | None) -> str:
    steps = ", ".join(f"{p.label} {fmt.tok_s(p.tok_s)}" for p in points)
    limit = f", hardware ceiling {fmt.tok_s(ceiling)}" if ceiling else ""
    return f"{regime}: {steps}; target {fmt.tok_s(target)}{limit}."


PALETTE = ("#2c4aa0", "#0d6b6b", "#b45309", "#7c3aed", "#be123c", "#4d7c0f", "#0369a1", "#a16207", "#6b7280")


@drawable
def shares_chart(chart_id: str, regime: str, steps: Sequence[tuple[str, Sequence[tuple[str, float]]]],
                 table_id: str) -> Markup:
    """The step's time by bucket before and after each tier, a stacked bar a step (each bar the whole step, so the
    bottleneck's shift shows); a bucket keeps its colour across bars."""
    if not steps or not any(shares for _, shares in steps):
        return Markup("")
    odd = next((v for _, shares in steps for _, v in shares if not 0 <= v <= 1 + 1e-9), None)
    if odd is not None:  # NaN too
        raise Undrawable(f"a share of {odd:g} is no part of a step.")
    buckets: list[str] = []
    for _, shares in steps:
        buckets += [b for b, _ in sorted(shares, key=lambda s: -s[1]) if b not in buckets]
    colour = {b: PALETTE[i % len(PALETTE)] for i, b in enumerate(buckets)}
    cid = escape(chart_id)
    slot = (WIDTH - LEFT - RIGHT) / len(steps)
    height = HEIGHT - TOP - BOTTOM
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart shares-chart" id="{cid}" '
             f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-labelledby="{cid}-title {cid}-desc">',
             f'<title id="{cid}-title">Where the step time of {escape(regime)} goes, before and after each tier'
             '</title>',
             f'<desc id="{cid}-desc">Each bar is one step split by bucket; the table {escape(table_id)} holds the '
             'shares.</desc>']
    for i, (label, shares) in enumerate(steps):
        x = LEFT + i * slot + 8
        y = float(TOP)
        for bucket, share in sorted(shares, key=lambda s: buckets.index(s[0])):
            h = share * height
            parts.append(f'<rect class="share" x="{x:.1f}" y="{y:.1f}" width="{slot - 16:.1f}" height="{h:.1f}" '
                         f'fill="{colour[bucket]}" data-step="{escape(label)}" data-bucket="{escape(bucket)}" '
                         f'data-share="{_attr(share)}"><title>{escape(label)}: {escape(bucket)} '
                         f'{escape(fmt.share(share))}</title></rect>')
            if h >= 14:
                parts.append(f'<text class="share-label" x="{x + (slot - 16) / 2:.1f}" y="{y + h / 2 + 4:.1f}" '
                             f'text-anchor="middle">{escape(fmt.share(share))}</text>')
            y += h
        parts.append(f'<text class="axis" x="{LEFT + (i + 0.5) * slot:.1f}" y="{HEIGHT - 12}" '
                     f'text-anchor="middle">{escape(label)}</text>')
    for i, bucket in enumerate(buckets[:12]):
        y = TOP + 6 + i * 15
        parts.append(f'<rect x="{WIDTH - RIGHT + 10}" y="{y:.1f}" width="10" height="10" fill="{colour[bucket]}"/>'
                     f'<text class="legend" x="{WIDTH - RIGHT + 26}" y="{y + 9:.1f}">{escape(bucket)}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))


def shares_rows(steps: Sequence[tuple[str, Sequence[tuple[str, float]]]]) -> list[tuple[str, list[str]]]:
    """The shares chart's data as table rows: a bucket a row, its share in each step ("—" where it has none)."""
    buckets: list[str] = []
    for _, shares in steps:
        buckets += [b for b, _ in sorted(shares, key=lambda s: -s[1]) if b not in buckets]
    return [(b, [fmt.share(dict(shares)[b]) if b in dict(shares) else "—" for _, shares in steps]) for b in buckets]


@drawable
def whatif_chart(chart_id: str, regime: str, curves: Sequence[tuple[str, Sequence[tuple[float, float]]]],
                 table_id: str) -> Markup:
    """Whole-step speedup against one bucket's speedup (log axis), a curve a bucket, each labelled with its limit
    (the bucket taking no time at all)."""
    finite = [[(s, g) for s, g in points if math.isfinite(s) and math.isfinite(g)] for _, points in curves]
    if not curves or not any(len(p) > 1 for p in finite):
        return Markup("")
    xs = [s for points in finite for s, _ in points]
    check_drawable(xs)
    if min(xs) <= 0:
        raise Undrawable(f"a bucket speedup of {min(xs):g} has no place on a log axis.")
    x_low, x_high = math.log10(min(xs)), math.log10(max(xs))
    gains = [g for points in finite for _, g in points]
    check_drawable(gains)
    scale = Scale(1.0, max(_nice(max(gains) / 4) * 4, 1.5), False) if max(gains) > 1 else Scale(0.0, 2.0, False)

    labels = {name: f"{name} → {'∞' if math.isinf(full[-1][1]) else fmt.factor(full[-1][1])}"
              for name, full in curves if full}
    right = max(RIGHT, 12 + LABEL_CHAR_PX * max(len(label) for label in labels.values()))  # the longest label fits

    def x(s: float) -> float:
        return LEFT + (math.log10(s) - x_low) / ((x_high - x_low) or 1) * (WIDTH - LEFT - right)

    cid = escape(chart_id)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart whatif-chart" id="{cid}" '
             f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-labelledby="{cid}-title {cid}-desc">',
             f'<title id="{cid}-title">What if one bucket of {escape(regime)} got faster</title>',
             f'<desc id="{cid}-desc">Whole-step speedup if only that bucket became s times faster, a curve a '
             f'bucket; the table {escape(table_id)} holds the figures.</desc>']
    parts += y_grid(scale, lambda tick: f"{tick:g}x")
    for s in sorted(set(xs)):
        parts.append(f'<text class="axis" x="{x(s):.1f}" y="{HEIGHT - 12}" text-anchor="middle">{s:g}x</text>')
    previous: float | None = None
    ends = sorted(((name, points) for (name, _), points in zip(curves, finite, strict=True) if points),
                  key=lambda c: scale.y(min(c[1][-1][1], scale.high)), reverse=True)
    for i, (name, points) in enumerate(ends):
        colour = PALETTE[i % len(PALETTE)]
        d = " ".join(f"{'M' if j == 0 else 'L'}{x(s):.1f},{scale.y(min(g, scale.high)):.1f}"
                     for j, (s, g) in enumerate(points))
        parts.append(f'<path class="curve" d="{d}" stroke="{colour}" data-bucket="{escape(name)}" '
                     f'data-gains="{escape(" ".join(repr(g) for _, g in points))}"/>')
        y = scale.y(min(points[-1][1], scale.high)) + 4
        label_y = y if previous is None else min(y, previous - 13)
        previous = label_y
        parts.append(f'<text class="line-label" x="{WIDTH - right + 6}" y="{label_y:.1f}" fill="{colour}">'
                     f'{escape(labels[name])}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))


@dataclass(frozen=True)
class Bar:
    label: str
    start: float
    end: float
    kind: str  # "total" (from 0), "gain", "loss" (the ceiling's cap)


def waterfall_bars(baseline_tok_s: float, tiers: Sequence[tuple[str, float | None, Sequence[tuple[str, float]]]]
                   ) -> list[Bar]:
    """The waterfall of a regime: its baseline, each applied intervention's gain in plan order (baseline x the gain
    after it, less before it), the ceiling's cut where a tier is capped, and each tier's total. `tiers`: key,
    projected tok/s after it, (intervention, gain over baseline after it)."""
    bars = [Bar("baseline", 0.0, baseline_tok_s, "total")]
    level = baseline_tok_s
    for key, tok_s, contributions in tiers:
        for intervention, gain in contributions:
            uncapped = baseline_tok_s * gain
            bars.append(Bar(intervention, level, uncapped, "gain" if uncapped >= level else "loss"))
            level = uncapped
        if tok_s is not None and tok_s < level * (1 - 1e-9):
            bars.append(Bar(f"{key} ceiling", level, tok_s, "loss"))
        level = level if tok_s is None else tok_s  # the plan's own figure, not its product of gains
        bars.append(Bar(f"after {key}", 0.0, level, "total"))
    return bars


@drawable
def waterfall_chart(chart_id: str, regime: str, bars: Sequence[Bar], table_id: str) -> Markup:
    """Where each tier's gain comes from: a floating bar an intervention, a full bar after each tier."""
    if len(bars) < 2:
        return Markup("")
    check_drawable([v for b in bars for v in (b.start, b.end)])  # max() would pass over a NaN
    scale = scale_of([max(b.start, b.end) for b in bars])
    if scale.log:
        scale = Scale(0.0, _nice(max(max(b.start, b.end) for b in bars) * 1.1 / 4) * 4, False)
    cid = escape(chart_id)
    slot = (WIDTH - LEFT - 20) / len(bars)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart waterfall-chart" id="{cid}" '
             f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-labelledby="{cid}-title {cid}-desc">',
             f'<title id="{cid}-title">Where each tier\'s gain in {escape(regime)} comes from</title>',
             f'<desc id="{cid}-desc">Output tok/s: the baseline, each intervention\'s gain in plan order, the '
             f'ceiling\'s cut, and the total after each tier; the table {escape(table_id)} holds the figures.</desc>']
    parts += y_grid(scale, right=WIDTH - 20, unit="tok/s")
    for i, bar in enumerate(bars):
        x = LEFT + i * slot + 3
        top, bottom = scale.y(max(bar.start, bar.end)), scale.y(min(bar.start, bar.end))
        parts.append(f'<rect class="bar {bar.kind}" x="{x:.1f}" y="{top:.1f}" width="{slot - 6:.1f}" '
                     f'height="{max(bottom - top, 1):.1f}" data-label="{escape(bar.label)}" '
                     f'data-start="{_attr(bar.start)}" data-end="{_attr(bar.end)}"><title>{escape(bar.label)}: '
                     f'{escape(fmt.tok_s(bar.start))} → {escape(fmt.tok_s(bar.end))}</title></rect>')
        parts.append(f'<text class="axis" x="{x + (slot - 6) / 2:.1f}" y="{HEIGHT - 12}" text-anchor="middle">'
                     f'{escape(bar.label)}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))

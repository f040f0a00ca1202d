"""A regime's runs of one metric over time as a chart (server-rendered SVG; every user string escaped)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from markupsafe import Markup, escape

from tierplan.models.measurements import RunStretch
from tierplan.text import formatting as fmt
from tierplan.views.charts import BOTTOM, HEIGHT, LEFT, RIGHT, TOP, WIDTH, _attr, drawable, scale_of, y_grid


@dataclass(frozen=True)
class Run:
    at: datetime
    value: float
    retracted: bool = False
    kind: str = "baseline"


@drawable
def history_chart(chart_id: str, regime: str, metric: str, unit: str, runs: Sequence[Run],
                  thresholds: Sequence[tuple[str, float]], landed: Sequence[tuple[str, datetime]],
                  table_id: str, stretches: Sequence[RunStretch] = (), total: int | None = None) -> Markup:
    """A regime's runs of one metric over time: retracted runs hollow, gate thresholds as lines, landed
    interventions as marks. A history longer than a chart draws comes as `stretches` of time instead of `runs`:
    each drawn as a bar from its lowest to its highest run (a spike stays visible) on a line through the means;
    `total` counts every run."""
    if len(runs) < 2 and not stretches:
        return Markup("")
    times = [r.at for r in runs] + [s.start for s in stretches] + [s.end for s in stretches]
    start, end = min(times), max(times)
    marks = [(key, at) for key, at in landed if start <= at <= end]
    span_s = max((end - start).total_seconds(), 1.0)
    scale = scale_of([r.value for r in runs] + [v for s in stretches for v in (s.low, s.high)]
                     + [v for _, v in thresholds])

    def x(at: datetime) -> float:
        return LEFT + (at - start).total_seconds() / span_s * (WIDTH - LEFT - RIGHT)

    cid = escape(chart_id)
    kept = [r for r in runs if not r.retracted]
    if stretches:
        shown = (f"{total or sum(s.runs for s in stretches):,} runs from {escape(fmt.date(start))} to "
                 f"{escape(fmt.date(end))}, drawn as {len(stretches)} stretches of time, each from its lowest to its "
                 "highest run on a line through their means (retracted runs left out)")
        listed = "lists the runs a page at a time"
    else:
        shown = (f"{len(kept)} runs from {escape(fmt.date(start))} to {escape(fmt.date(end))}"
                 f"{f', {len(runs) - len(kept)} retracted' if len(kept) < len(runs) else ''}")
        listed = "lists every run"
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart history-chart" id="{cid}" '
             f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-labelledby="{cid}-title {cid}-desc" '
             f'data-metric="{escape(metric)}" data-scale="{"log" if scale.log else "linear"}">',
             f'<title id="{cid}-title">{escape(fmt.metric(metric))} of {escape(regime)} over time</title>',
             f'<text class="chart-title" x="{LEFT}" y="11">{escape(fmt.metric(metric))}'
             f'{f" ({escape(unit)})" if unit else ""}</text>',
             f'<desc id="{cid}-desc">{shown}; {len(thresholds)} gate thresholds, {len(marks)} interventions landed. '
             f'The table {escape(table_id)} {listed}.</desc>']
    parts += y_grid(scale)
    for at, anchor in ((start, "start"), (end, "end")):
        parts.append(f'<text class="axis" x="{x(at):.1f}" y="{HEIGHT - 12}" text-anchor="{anchor}">'
                     f'{escape(fmt.date(at))}</text>')
    for key, at in marks:
        parts.append(f'<line class="landed" x1="{x(at):.1f}" x2="{x(at):.1f}" y1="{TOP}" y2="{HEIGHT - BOTTOM}" '
                     f'data-at="{escape(at.isoformat())}"/><text class="mark" x="{x(at) + 3:.1f}" y="{TOP + 10}">'
                     f'{escape(key)}</text>')
    previous: float | None = None
    for label, value in sorted(thresholds, key=lambda t: scale.y(t[1]), reverse=True):  # lowest line first
        y = scale.y(value)
        label_y = y + 4 if previous is None else min(y + 4, previous - 13)  # labels never overlap
        previous = label_y
        parts.append(f'<line class="threshold" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}" '
                     f'data-value="{_attr(value)}"/><text class="line-label threshold" x="{WIDTH - RIGHT + 6}" '
                     f'y="{label_y:.1f}">{escape(label)}</text>')
    if stretches:
        parts += _stretches(stretches, x, scale)
    if len(kept) > 1:
        line = " ".join(f"{'M' if i == 0 else 'L'}{x(r.at):.1f},{scale.y(r.value):.1f}"
                        for i, r in enumerate(sorted(kept, key=lambda r: r.at)))
        parts.append(f'<path class="history" d="{line}"/>')
    for r in runs:
        state = "run retracted" if r.retracted else f"run {'gate-check' if r.kind == 'gate check' else 'baseline'}"
        parts.append(f'<circle class="{state}" cx="{x(r.at):.1f}" cy="{scale.y(r.value):.1f}" r="3.2" '
                     f'data-value="{_attr(r.value)}" data-at="{escape(r.at.isoformat())}">'
                     f'<title>{escape(fmt.date(r.at))}: {escape(fmt.number(r.value, unit))}'
                     f'{" (retracted)" if r.retracted else ""}</title></circle>')
    parts.append("</svg>")
    return Markup("".join(parts))


def _stretches(stretches: Sequence[RunStretch], x: Callable[[datetime], float], scale: Any) -> list[str]:
    """Each stretch's lowest-to-highest bar (data-low, data-high: its values) and one line through the means."""
    middle = [(s, s.start + (s.end - s.start) / 2) for s in stretches]
    bars = "".join(f'<line class="stretch" x1="{x(at):.1f}" x2="{x(at):.1f}" y1="{scale.y(s.low):.1f}" '
                   f'y2="{scale.y(s.high):.1f}" data-low="{_attr(s.low)}" data-high="{_attr(s.high)}" '
                   f'data-runs="{s.runs}"/>' for s, at in middle)
    line = " ".join(f"{'M' if i == 0 else 'L'}{x(at):.1f},{scale.y(s.mean):.1f}" for i, (s, at) in enumerate(middle))
    return [f'<g class="stretches">{bars}</g>', f'<path class="history" d="{line}"/>']

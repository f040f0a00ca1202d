"""The plan's history as a chart: projected P50 after the last tier, with its P10-P90 band, as it stood after each
change, against the throughput measured over the same weeks (server-rendered SVG; every user string escaped)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from markupsafe import Markup, escape

from tierplan.models.measurements import RunStretch
from tierplan.text import formatting as fmt
from tierplan.views.charts import HEIGHT, LEFT, RIGHT, WIDTH, _attr, drawable, scale_of, y_grid


@dataclass(frozen=True)
class Projected:
    """The projection after the last tier from `at` on, until the next change."""

    at: datetime
    p50_tok_s: float | None
    p10_tok_s: float | None
    p90_tok_s: float | None


@drawable
def timeline_chart(chart_id: str, regime: str, projected: Sequence[Projected], measured: Sequence[tuple[datetime, float]],
                   target_tok_s: float, end: datetime, table_id: str, stretches: Sequence[RunStretch] = ()) -> Markup:
    """Projected P50 (a step line: each change holds until the next) in its band, measured runs as points (or, for
    a long history, `stretches` of time as bars from their lowest to their highest run), the target as a line;
    from the first snapshot or run to `end` (now)."""
    drawn = [p for p in projected if p.p50_tok_s is not None]
    if not drawn and not measured and not stretches:
        return Markup("")
    times = [p.at for p in drawn] + [at for at, _ in measured] + [s.start for s in stretches] + [end]
    start = min(times)
    span_s = max((end - start).total_seconds(), 1.0)
    values = ([v for p in drawn for v in (p.p50_tok_s, p.p10_tok_s, p.p90_tok_s) if v] + [v for _, v in measured]
              + [v for s in stretches for v in (s.low, s.high)])
    scale = scale_of(values + [target_tok_s])

    def x(at: datetime) -> float:
        return LEFT + (at - start).total_seconds() / span_s * (WIDTH - LEFT - RIGHT)

    cid = escape(chart_id)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart timeline-chart" id="{cid}" '
             f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-labelledby="{cid}-title {cid}-desc" '
             f'data-scale="{"log" if scale.log else "linear"}">',
             f'<title id="{cid}-title">Projected and measured output throughput of {escape(regime)} over time</title>',
             f'<desc id="{cid}-desc">{len(drawn)} projections after the last tier (P50 with its P10-P90 band) and '
             f'{_measured_text(measured, stretches)} from {escape(fmt.date(start))} to {escape(fmt.date(end))}; target '
             f'{escape(fmt.tok_s(target_tok_s))}. The table {escape(table_id)} holds the same figures.</desc>',
             f'<g class="legend-row"><rect class="band" x="{LEFT}" y="2" width="14" height="10"/>'
             f'<line class="steps" x1="{LEFT}" x2="{LEFT + 14}" y1="7" y2="7"/>'
             f'<text class="legend" x="{LEFT + 19}" y="11">projected P50 in its P10–P90 band</text>'
             f'<circle class="run measured" cx="{LEFT + 230}" cy="7" r="3.2"/>'
             f'<text class="legend" x="{LEFT + 238}" y="11">measured</text></g>']
    parts += y_grid(scale, unit="tok/s")
    for at, anchor in ((start, "start"), (end, "end")):
        parts.append(f'<text class="axis" x="{x(at):.1f}" y="{HEIGHT - 12}" text-anchor="{anchor}">'
                     f'{escape(fmt.date(at))}</text>')
    line = []
    for i, p in enumerate(drawn):
        x0, x1 = x(p.at), x(drawn[i + 1].at) if i + 1 < len(drawn) else x(end)
        if p.p10_tok_s and p.p90_tok_s:
            top, bottom = scale.y(p.p90_tok_s), scale.y(max(p.p10_tok_s, scale.low or p.p10_tok_s))
            parts.append(f'<rect class="band" x="{x0:.1f}" y="{top:.1f}" width="{max(x1 - x0, 1):.1f}" '
                         f'height="{max(bottom - top, 1):.1f}" data-p10="{_attr(p.p10_tok_s)}" '
                         f'data-p90="{_attr(p.p90_tok_s)}"/>')
        y = scale.y(p.p50_tok_s or 0)
        line.append(f"{'M' if i == 0 else 'L'}{x0:.1f},{y:.1f} L{max(x1, x0 + 1):.1f},{y:.1f}")
        parts.append(f'<circle class="point projected" cx="{x0:.1f}" cy="{y:.1f}" r="2.5" '
                     f'data-p50="{_attr(p.p50_tok_s)}" data-at="{escape(p.at.isoformat())}">'
                     f'<title>{escape(fmt.timestamp(p.at))}: projected P50 {escape(fmt.tok_s(p.p50_tok_s))}</title>'
                     '</circle>')
    if line:
        parts.append(f'<path class="steps" d="{" ".join(line)}"/>')
    y = target_y = scale.y(target_tok_s)
    parts.append(f'<line class="target" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" y2="{y:.1f}" '
                 f'data-tok-s="{_attr(target_tok_s)}"/><text class="line-label target" x="{WIDTH - RIGHT + 6}" '
                 f'y="{y + 4:.1f}">target {escape(fmt.tok_s(target_tok_s))}</text>')
    if drawn:
        last = drawn[-1]
        y = scale.y(last.p50_tok_s or 0)
        if abs(y - target_y) < 13:  # the two labels never overlap: the projection's goes to the other side
            y = target_y + (13 if y >= target_y else -13)
        parts.append(f'<text class="line-label projected" x="{WIDTH - RIGHT + 6}" '
                     f'y="{y + 4:.1f}">projected {escape(fmt.tok_s(last.p50_tok_s))}</text>')
    for s in stretches:
        middle = x(s.start + (s.end - s.start) / 2)
        parts.append(f'<line class="stretch" x1="{middle:.1f}" x2="{middle:.1f}" y1="{scale.y(s.low):.1f}" '
                     f'y2="{scale.y(s.high):.1f}" data-low="{_attr(s.low)}" data-high="{_attr(s.high)}" '
                     f'data-runs="{s.runs}"/>')
    for at, value in measured:
        parts.append(f'<circle class="run measured" cx="{x(at):.1f}" cy="{scale.y(value):.1f}" r="3.2" '
                     f'data-value="{_attr(value)}" data-at="{escape(at.isoformat())}">'
                     f'<title>{escape(fmt.timestamp(at))}: measured {escape(fmt.tok_s(value))}</title></circle>')
    parts.append("</svg>")
    return Markup("".join(parts))


def _measured_text(measured: Sequence[tuple[datetime, float]], stretches: Sequence[RunStretch]) -> str:
    if stretches:
        return (f"{sum(s.runs for s in stretches):,} measured runs drawn as {len(stretches)} stretches of time, each a "
                "bar from its lowest to its highest run,")
    return f"{len(measured)} measured runs"

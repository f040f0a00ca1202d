"""A regime's measurement history as the regime page and the retraction form show it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup

from tierplan.models.measurements import MeasurementPublic
from tierplan.planning.metrics import METRICS, metric_unit
from tierplan.services.records import PlanRecord
from tierplan.services.runs import ChartSeries
from tierplan.text import formatting as fmt
from tierplan.text.formatting import measured, number, timestamp, tok_s
from tierplan.views.charts import waterfall_bars, waterfall_chart
from tierplan.views.history_chart import Run, history_chart
from tierplan.views.plan import RegimeView


@dataclass(frozen=True)
class HistoryRow:
    id: int
    measured_at: str
    metric: str
    value: str
    unit: str
    provenance: str
    source: str
    note: str
    kind: str
    includes: str  # "A1, A2" or "none"
    confirmed: str
    recorded_by: str  # "by ana", or "" in single-user mode
    retracted: bool
    metric_name: str  # output_tok_s, as the API and the importers name it
    exact: str  # the value as stored, every digit (2249.25) where the page shows 2,249
    retraction: str  # "retracted 2026-12-01 10:00 UTC by ana: typo", or ""


def history_row(m: MeasurementPublic) -> HistoryRow:
    retraction = f"retracted {timestamp(m.retracted_at)} by {m.retracted_by}: {m.retraction_reason}" if m.retracted_at else ""
    return HistoryRow(id=m.id, measured_at=timestamp(m.measured_at), metric=fmt.metric(m.metric), metric_name=m.metric,
                      value=fmt.number(m.value), exact=measured(m.value),
                      unit=m.unit, provenance=m.provenance, source=m.source, note=m.note, kind=m.kind,
                      includes=", ".join(m.includes) or "none", confirmed=m.confirmed,
                      recorded_by=f"by {m.recorded_by}" if m.recorded_by else "",
                      retracted=m.retracted_at is not None, retraction=retraction)


def history_view(runs: Sequence[MeasurementPublic]) -> list[HistoryRow]:
    """A page of the regime's measurements, newest first, retracted ones struck through."""
    return [history_row(m) for m in runs]


def metric_choices() -> list[tuple[str, str]]:
    """The metrics a history can be filtered by, in words: ("output_tok_s", "output throughput")."""
    return [(name, fmt.metric(name)) for name in METRICS]


CHARTED = ("output_tok_s", "tpot_ms")  # always charted when measured twice; gated metrics too


def charted_metrics(record: PlanRecord, regime_id: int) -> list[str]:
    """The metrics the regime page charts: throughput and TPOT, and every metric a gate of the regime judges."""
    gated = {g.metric for g in record.gates if g.regime_id == regime_id and g.threshold is not None}
    return list(CHARTED) + sorted(gated - set(CHARTED))


def history_charts(record: PlanRecord, regime_id: int, series: Sequence[ChartSeries]) -> list[Markup]:
    """A chart a metric of the regime with two runs or more, with its gates' thresholds and the interventions
    landed meanwhile."""
    regime = next(r.name for r in record.regimes if r.id == regime_id)
    gates = [g for g in record.gates if g.regime_id == regime_id and g.threshold is not None]
    tiers = {t.id: t.key for t in record.tiers}
    landed = [(i.key, i.landed_at) for i in record.interventions if i.landed_at is not None]
    charts = []
    for s in series:
        metric = s.metric
        runs = [Run(m.measured_at, m.value, m.retracted, m.kind) for m in s.runs]
        thresholds = [(f"gate {tiers.get(g.tier_id, '?')} {g.comparator.value} "
                       f"{number(g.threshold or 0, metric_unit(metric))}",
                       g.threshold or 0.0) for g in gates if g.metric == metric]
        chart = history_chart(f"history-{metric}", regime, metric, metric_unit(metric), runs, thresholds, landed,
                              "history-table", s.stretches, s.total)
        if chart:
            charts.append(chart)
    return charts


def waterfall_view(view: RegimeView) -> dict:
    """The regime page's waterfall: the chart and its table rows (step, from, to, change)."""
    baseline = view.steps[0].tok_s
    if baseline is None:
        return {"waterfall": None, "waterfall_rows": []}
    bars = waterfall_bars(baseline, [(str(s.tier_key), s.tok_s, s.contributions) for s in view.steps[1:]])
    return {"waterfall": waterfall_chart(f"waterfall-{view.id}", view.name, bars, "waterfall-table"),
            "waterfall_rows": [(b.label, tok_s(b.start) if b.kind != "total" else "", tok_s(b.end),
                                tok_s(b.end - b.start) if b.kind != "total" else "") for b in bars]}

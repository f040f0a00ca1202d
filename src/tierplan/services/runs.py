"""A campaign's measurement history as pages and the API read it: a page of runs at a time, newest first, and one
metric's runs for a chart; each bounded by what it shows, whatever the length of the history."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from typing import Any

from sqlmodel import Session

from tierplan.db import history, history_reads, repo
from tierplan.db.tables import Measurement, Regime, pk
from tierplan.models.errors import Conflicting, NotFound
from tierplan.models.fields import parse_form
from tierplan.models.measurements import HistoryQuery, MeasurementPublic, RunPoint, RunStretch
from tierplan.services.kept import kept
from tierplan.services.records import measurement_public

PAGE_RUNS = 50  # a page of the regime's history
MAX_PAGE_RUNS = 1000  # the most the API gives at once (about 0.5 MB of JSON)
CHART_POINTS = 1000  # runs a chart draws one by one; above, the stretches of time


@dataclass(frozen=True)
class RunsPage:
    runs: list[MeasurementPublic]  # newest first
    next_before: int | None  # pass as `before` for the next, older page; None: none


@dataclass(frozen=True)
class ChartSeries:
    metric: str
    runs: list[RunPoint]  # every run, oldest first (when at most CHART_POINTS)
    stretches: list[RunStretch]  # else the runs summed up a stretch of time
    total: int  # runs of the metric, retracted ones included


def _regimes(session: Session, campaign_id: int, regime: str | None) -> list[Regime]:
    regimes = repo.regimes_of(session, campaign_id=campaign_id)
    if regime is None:
        return regimes
    named = [r for r in regimes if r.name == regime]
    if not named:
        raise NotFound(f"campaign {campaign_id} has no regime {regime!r}")
    return named


def _public(session: Session, campaign_id: int, rows: list[Measurement], names: dict[int, str]) -> list[MeasurementPublic]:
    keys = {pk(i): i.key for i in repo.interventions_of(session, campaign_id=campaign_id)}
    return [measurement_public(m, names[m.regime_id], keys, history.key_ids(m.includes_key)) for m in rows]


def history_query(data: Mapping[str, Any]) -> HistoryQuery:
    """A history page's filters from its query string; FormInvalid names each bad one."""
    return parse_form(HistoryQuery, data)


def runs_page(session: Session, campaign_id: int, *, regime: str | None = None,
              query: HistoryQuery | None = None, limit: int = PAGE_RUNS) -> RunsPage:
    """Up to `limit` runs of the campaign (of one regime; of the query's metric and dates), newest first, older
    than the query's `before` run; NotFound for an unknown regime, Conflicting for a `before` run that is gone."""
    query = query or HistoryQuery()
    regimes = _regimes(session, campaign_id, regime)
    since = datetime.combine(query.since, time(), tzinfo=UTC) if query.since else None
    until = datetime.combine(query.until + timedelta(days=1), time(), tzinfo=UTC) if query.until else None
    try:
        page = history_reads.runs_page(session, regime_ids=[pk(r) for r in regimes], metric=query.metric or None,
                                       since=since, until=until, before_id=query.before,
                                       limit=min(max(limit, 1), MAX_PAGE_RUNS))
    except LookupError as exc:
        raise Conflicting({"before": str(exc)}) from None
    return RunsPage(_public(session, campaign_id, page.rows, {pk(r): r.name for r in regimes}), page.next_before)


def chart_series(session: Session, regime: Regime, metric: str, max_points: int = CHART_POINTS,
                 summaries: Sequence[tuple] | None = None) -> ChartSeries:
    """One metric's runs of the regime as a chart draws them: every run up to `max_points`, else stretches; kept
    until the history of that metric changes. `summaries`: the regime's series summaries, when the caller read
    them (for several charts at once)."""
    if summaries is None:
        summaries = history_reads.series_summaries(session, regime_ids=[pk(regime)])
    mine = [row for row in summaries if row[0] == pk(regime) and row[1] == metric]

    def draw() -> ChartSeries:
        found = history_reads.chart_runs(session, regime_id=pk(regime), metric=metric, max_points=max_points)
        runs = [RunPoint(measured_at=r.measured_at, value=r.value, retracted=r.retracted, kind=r.kind)
                for r in found.runs]
        stretches = [RunStretch(start=s.start, end=s.end, runs=s.runs, low=s.low, high=s.high, mean=s.mean)
                     for s in found.stretches]
        return ChartSeries(metric, runs, stretches, found.total)

    return kept(session, ("chart", pk(regime), metric, max_points, history_reads.version_of(mine)), draw)


def series_of(session: Session, regimes: Sequence[Regime]) -> list[tuple]:
    """The series summaries of these regimes (for chart_series)."""
    return history_reads.series_summaries(session, regime_ids=[pk(r) for r in regimes])


def measurement_of(session: Session, campaign_id: int, measurement_id: int) -> MeasurementPublic:
    """One run of the campaign as the pages show it; NotFound if the campaign has no such run."""
    row = repo.measurement_in(session, campaign_id=campaign_id, measurement_id=measurement_id)
    if row is None:
        raise NotFound(f"no measurement {measurement_id} in campaign {campaign_id}")
    regime = session.get(Regime, row.regime_id)
    return _public(session, campaign_id, [row], {row.regime_id: regime.name if regime else ""})[0]

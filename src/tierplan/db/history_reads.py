"""Reads of a measurement history for the pages and the API, each bounded by what it shows: a page of runs
(newest first, after a cursor), the newest run of each metric, and one metric's runs for a chart, at most
`max_points` of them (above that, the lowest and highest run of each stretch of time, so a spike survives)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Float, and_, cast, func, or_, union_all
from sqlalchemy import select as select_columns
from sqlmodel import Session, col, select

from tierplan.db.history_tables import MeasurementSeries
from tierplan.db.tables import Measurement

STRETCHES = 240  # stretches of time a long history is drawn as


@dataclass(frozen=True)
class RunsPage:
    rows: list[Measurement]  # newest first, retracted ones included
    next_before: int | None  # the id to ask `before` for the next (older) page; None: this is the last


def _before(session: Session, before_id: int | None) -> ColumnElement[bool] | None:
    """The rows older than run `before_id` in (measured_at, id) order; None for no cursor. LookupError if that run
    is gone."""
    if before_id is None:
        return None
    cursor = session.get(Measurement, before_id)
    if cursor is None:
        raise LookupError(f"run {before_id} no longer exists: start from the newest")
    return or_(col(Measurement.measured_at) < cursor.measured_at,
               and_(col(Measurement.measured_at) == cursor.measured_at, col(Measurement.id) < before_id))


def runs_page(session: Session, *, regime_ids: Sequence[int], metric: str | None = None,
              since: datetime | None = None, until: datetime | None = None, before_id: int | None = None,
              limit: int = 50) -> RunsPage:
    """Up to `limit` runs of the regimes, newest first, measured in [since, until), older than the run
    `before_id`; each regime's runs read through its own index range, so the cost is regimes x limit."""
    if not regime_ids:
        return RunsPage([], None)
    older = _before(session, before_id)
    terms = []
    for regime_id in regime_ids:
        query = select(col(Measurement.id), col(Measurement.measured_at)).where(col(Measurement.regime_id) == regime_id)
        if metric is not None:
            query = query.where(col(Measurement.metric) == metric)
        if since is not None:
            query = query.where(col(Measurement.measured_at) >= since)
        if until is not None:
            query = query.where(col(Measurement.measured_at) < until)
        if older is not None:
            query = query.where(older)
        terms.append(query.order_by(col(Measurement.measured_at).desc(), col(Measurement.id).desc()).limit(limit + 1))
    found: list = []
    for start in range(0, len(terms), 200):
        chunk = [select(t.subquery()) for t in terms[start:start + 200]]
        found += session.execute(chunk[0] if len(chunk) == 1 else union_all(*chunk)).all()
    found.sort(key=lambda r: (r[1], r[0]), reverse=True)
    wanted = [r[0] for r in found[:limit + 1]]
    rows = list(session.exec(select(Measurement).where(col(Measurement.id).in_(wanted))).all()) if wanted else []
    rows.sort(key=lambda m: (m.measured_at, m.id), reverse=True)
    more = len(rows) > limit
    rows = rows[:limit]
    return RunsPage(rows, int(rows[-1].id or 0) if more and rows else None)


@dataclass(frozen=True)
class Stretch:
    """The runs of one stretch of time, when a chart has more runs than it draws: how many, and their range."""

    start: datetime
    end: datetime
    runs: int
    low: float
    high: float
    mean: float


@dataclass(frozen=True)
class ChartRun:
    measured_at: datetime
    value: float
    retracted: bool
    kind: str


@dataclass(frozen=True)
class ChartRuns:
    runs: list[ChartRun]  # every run, oldest first, when there are at most max_points (retracted ones too)
    stretches: list[Stretch]  # else the not-retracted runs summed up a stretch of time, oldest first
    total: int  # runs of the metric (retracted ones left out when summed up in stretches)


def chart_runs(session: Session, *, regime_id: int, metric: str, max_points: int = 1000) -> ChartRuns:
    """One metric's runs of a regime for a chart: all of them up to `max_points`, else at most STRETCHES stretches
    of equal time (about 2 px each on a chart), each with its lowest, highest and mean run (the lowest and highest
    keep a spike on the chart; every statistic still counts every run)."""
    of_metric = and_(col(Measurement.regime_id) == regime_id, col(Measurement.metric) == metric)
    newest_first = (col(Measurement.measured_at).desc(), col(Measurement.id).desc())
    beyond = session.execute(select_columns(col(Measurement.id)).where(of_metric).order_by(*newest_first)
                             .offset(max_points).limit(1)).first()
    if beyond is None:
        rows = session.execute(select_columns(col(Measurement.measured_at), col(Measurement.value),
                                              col(Measurement.retracted_at), col(Measurement.kind))
                               .where(of_metric).order_by(*newest_first)).all()
        return ChartRuns([ChartRun(at, value, retracted is not None, kind) for at, value, retracted, kind in rows[::-1]],
                         [], len(rows))
    first = session.exec(select(col(Measurement.measured_at)).where(of_metric)
                         .order_by(col(Measurement.measured_at)).limit(1)).one()
    last = session.exec(select(col(Measurement.measured_at)).where(of_metric).order_by(*newest_first).limit(1)).one()
    count = min(max(1, max_points // 2), STRETCHES)
    width_s = max((last - first).total_seconds() / count, 1e-6)
    bucket = func.floor(seconds_since(session, col(Measurement.measured_at), first) / width_s)
    live = and_(of_metric, col(Measurement.retracted_at).is_(None))
    rows = session.execute(select_columns(bucket, func.count(), func.min(col(Measurement.value)),
                                          func.max(col(Measurement.value)), func.avg(col(Measurement.value)))
                           .where(live).group_by(bucket).order_by(bucket)).all()
    stretches = []
    for index, runs, low, high, mean in rows:
        n = min(int(index), count - 1)
        start = first + timedelta(seconds=n * width_s)
        stretches.append(Stretch(start, start + timedelta(seconds=width_s), int(runs), float(low), float(high),
                                 float(mean)))
    return ChartRuns([], stretches, sum(s.runs for s in stretches))


def seconds_since(session: Session, column: Any, first: datetime) -> ColumnElement[float]:
    """Seconds from `first` to the time in `column`, in the database's own date arithmetic."""
    if session.get_bind().dialect.name == "sqlite":
        start = first.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
        return (func.julianday(column) - func.julianday(start)) * 86400.0
    return cast(func.extract("epoch", column - first), Float)


def series_summaries(session: Session, *, regime_ids: Sequence[int]) -> list[tuple[int, str, str, str, int, int, int]]:
    """Each (regime, metric, kind, state) series of the regimes as (regime id, metric, kind, includes key, runs,
    newest id, stamp): the stamp moves whenever a run of it is written, retracted or removed."""
    if not regime_ids:
        return []
    query = select_columns(col(MeasurementSeries.regime_id), col(MeasurementSeries.metric), col(MeasurementSeries.kind),
                           col(MeasurementSeries.includes_key), col(MeasurementSeries.runs),
                           col(MeasurementSeries.newest_id), col(MeasurementSeries.stamp)
                           ).where(col(MeasurementSeries.regime_id).in_(regime_ids))
    return [tuple(row) for row in session.execute(query).all()]  # type: ignore[misc]


def version_of(summaries: Sequence[tuple]) -> tuple:
    """What changes whenever a run of these series is written, retracted or removed: each series' kind, state,
    runs, newest run and stamp (from series_summaries; the stamp alone would do, the rest reads well in a key)."""
    return tuple(sorted(tuple(row[2:]) for row in summaries))


def newest_runs(session: Session, *, regime_id: int, metric: str, limit: int) -> list[tuple[int, datetime, float, str]]:
    """The newest `limit` runs of one metric of a regime (not retracted), oldest first, as (id, measured at, value,
    kind): what the metric's index holds, so the table is not read."""
    rows = session.execute(select_columns(col(Measurement.id), col(Measurement.measured_at), col(Measurement.value),
                                          col(Measurement.kind)).where(
        col(Measurement.regime_id) == regime_id, col(Measurement.metric) == metric,
        col(Measurement.retracted_at).is_(None))
        .order_by(col(Measurement.measured_at).desc(), col(Measurement.id).desc()).limit(limit)).all()
    return [(int(i), at, float(value), str(kind)) for i, at, value, kind in rows[::-1]]

"""The measurement history, read and kept so that what a page costs does not grow with it.

Upkeep (nothing here commits): after runs are inserted and flushed, `added` brings the series summaries and the
measured changes up to date; `retracted` after a retraction; `rebuild` after anything that removes runs or changes
their states (an import undone, an intervention deleted, a backup restored). Runs written after every earlier
run of their regime, the nightly case, cost a few indexed statements; anything else rebuilds the regimes it
touched from their runs.

tierplan/db/planning_runs.py reads what the planner needs of the history through these summaries.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import and_, delete, func, insert, update
from sqlalchemy import select as select_columns
from sqlmodel import Session, col, select

from tierplan.db.history_tables import MeasuredChange, MeasurementSeries
from tierplan.db.revision import current_revision
from tierplan.db.tables import Measurement, MeasurementInclude
from tierplan.planning import model as core
from tierplan.planning.calibration import changes_by_set, newer_changes
from tierplan.planning.metrics import THROUGHPUT_METRIC

CHUNK = 500  # ids a statement names (well inside SQLite's and PostgreSQL's limits on bound parameters)


def includes_key(intervention_ids: Iterable[int]) -> str:
    """The state of a run as measurement.includes_key stores it: "3,7", "" for none."""
    return ",".join(str(i) for i in sorted(set(intervention_ids)))


def key_ids(key: str) -> list[int]:
    """The intervention ids of an includes key."""
    return [int(part) for part in key.split(",") if part]


@dataclass(frozen=True)
class Run:
    """A stored run as the upkeep reads it."""

    id: int
    regime_id: int
    metric: str
    kind: str
    includes_key: str
    measured_at: datetime
    value: float

    @classmethod
    def of(cls, row: Measurement) -> Run:
        return cls(int(row.id or 0), row.regime_id, row.metric, row.kind, row.includes_key, row.measured_at, row.value)

    def core(self) -> core.Measurement:
        """As the calibration's rules read it: the regime and the includes by id."""
        return core.Measurement(str(self.regime_id), self.metric, self.value, self.measured_at,
                                core.MeasurementKind(self.kind), frozenset(self.includes_key.split(",")) - {""},
                                ref=self.id)


RUN_COLUMNS = (col(Measurement.id), col(Measurement.regime_id), col(Measurement.metric), col(Measurement.kind),
               col(Measurement.includes_key), col(Measurement.measured_at), col(Measurement.value))


def _runs(session: Session, query) -> list[Run]:
    return [Run(*row) for row in session.execute(query).all()]


def _newest_first(runs: Iterable[Run]) -> list[Run]:
    return sorted(runs, key=lambda r: (r.measured_at, r.id), reverse=True)


def added(session: Session, runs: Sequence[Run], *, later: set[int] | None = None) -> None:
    """Bring the summaries up to date with `runs`, just inserted and flushed (not retracted). A regime whose
    measured changes must be found again from all its runs is done at once, or, given `later`, added to it for
    the caller to pass to rebuild_changes once its last chunk is in (an import)."""
    if not runs:
        return
    regime_ids = sorted({r.regime_id for r in runs})
    series = series_of(session, regime_ids)
    rebuild_ids = []
    for regime_id in regime_ids:
        fresh = [r for r in runs if r.regime_id == regime_id and r.metric == THROUGHPUT_METRIC and r.value > 0]
        if not fresh or (later is not None and regime_id in later):
            continue
        known = [s for s in series if s.regime_id == regime_id and s.metric == THROUGHPUT_METRIC]
        if known and min(r.measured_at for r in fresh) <= max(s.newest_at for s in known):
            rebuild_ids.append(regime_id)  # not after every earlier run: the changes are found again
            continue
        newest = _runs(session, select_columns(*RUN_COLUMNS).where(col(Measurement.id).in_([s.newest_id for s in known])))
        # both newest first, as the history is read: among runs of one time the order decides the change
        found = newer_changes([r.core() for r in _newest_first(newest)], [r.core() for r in _newest_first(fresh)],
                              str(regime_id))
        _store_changes(session, regime_id, found, replace_all=False)
    stamp = current_revision(session)
    by_series: dict[tuple[int, str, str, str], list[Run]] = {}
    for run in runs:
        by_series.setdefault((run.regime_id, run.metric, run.kind, run.includes_key), []).append(run)
    stored = {(s.regime_id, s.metric, s.kind, s.includes_key): s for s in series}
    for key, members in by_series.items():
        top = max(members, key=lambda r: (r.measured_at, r.id))
        row = stored.get(key)
        if row is None:
            session.add(MeasurementSeries(regime_id=key[0], metric=key[1], kind=key[2], includes_key=key[3],
                                          runs=len(members), newest_id=top.id, newest_at=top.measured_at, stamp=stamp))
            continue
        row.runs += len(members)
        row.stamp = stamp
        if (top.measured_at, top.id) > (_aware(row.newest_at, top.measured_at), row.newest_id):
            row.newest_id, row.newest_at = top.id, top.measured_at
        session.add(row)
    session.flush()
    if later is not None:
        later.update(rebuild_ids)
    elif rebuild_ids:
        rebuild_changes(session, rebuild_ids)


def insert_includes(session: Session, links: Sequence[dict]) -> None:
    """Link runs to the interventions each ran with (measurement_id, intervention_id), in one statement."""
    if links:
        session.execute(insert(MeasurementInclude), links)


def insert_runs(session: Session, values: Sequence[dict]) -> list[int]:
    """Insert measurement rows (column -> value), in one statement's worth of work; their ids, in order. SQLite
    takes them as one executemany (RETURNING there would go a row at a time) and they are then read back: the
    write lock is held, so the new ids are the ones above the largest before; PostgreSQL gives them back from
    the INSERT."""
    if not values:
        return []
    if session.get_bind().dialect.name != "sqlite":
        return list(session.execute(insert(Measurement).returning(col(Measurement.id), sort_by_parameter_order=True),
                                    values).scalars().all())
    before = session.execute(select_columns(func.max(col(Measurement.id)))).scalar() or 0
    session.execute(insert(Measurement), values)
    return list(session.execute(select_columns(col(Measurement.id)).where(col(Measurement.id) > before)
                                .order_by(col(Measurement.id))).scalars().all())


def retracted(session: Session, row: Measurement) -> None:
    """Take a run just marked retracted (and flushed) out of its series, and its measured changes."""
    series = session.exec(select(MeasurementSeries).where(
        col(MeasurementSeries.regime_id) == row.regime_id, col(MeasurementSeries.metric) == row.metric,
        col(MeasurementSeries.kind) == row.kind, col(MeasurementSeries.includes_key) == row.includes_key)).first()
    if series is not None:
        series.runs -= 1
        series.stamp = current_revision(session)
        if series.runs <= 0:
            session.delete(series)
        elif series.newest_id == row.id:
            top = _runs(session, _series_runs(row.regime_id, row.metric, row.kind, row.includes_key)
                        .order_by(col(Measurement.measured_at).desc(), col(Measurement.id).desc()).limit(1))
            if top:
                series.newest_id, series.newest_at = top[0].id, top[0].measured_at
                session.add(series)
            else:
                session.delete(series)
        session.flush()
    if row.metric == THROUGHPUT_METRIC:
        rebuild_changes(session, [row.regime_id])


def rebuild(session: Session, regime_ids: Sequence[int]) -> None:
    """Find the series and measured changes of these regimes again from their runs (after runs were removed, or
    their states changed); costs a pass over their runs."""
    if not regime_ids:
        return
    session.execute(delete(MeasurementSeries).where(col(MeasurementSeries.regime_id).in_(regime_ids)))
    live = and_(col(Measurement.regime_id).in_(regime_ids), col(Measurement.retracted_at).is_(None))
    group = (col(Measurement.regime_id), col(Measurement.metric), col(Measurement.kind), col(Measurement.includes_key))
    counts = session.execute(select_columns(*group, func.count(), func.max(col(Measurement.measured_at)))
                             .where(live).group_by(*group)).all()
    stamp = current_revision(session)
    for regime_id, metric, kind, key, runs, newest_at in counts:
        top = _runs(session, _series_runs(regime_id, metric, kind, key)
                    .where(col(Measurement.measured_at) == newest_at).order_by(col(Measurement.id).desc()).limit(1))
        if top:
            session.add(MeasurementSeries(regime_id=regime_id, metric=metric, kind=kind, includes_key=key, runs=runs,
                                          newest_id=top[0].id, newest_at=top[0].measured_at, stamp=stamp))
    session.flush()
    rebuild_changes(session, regime_ids)


def rebuild_changes(session: Session, regime_ids: Sequence[int]) -> None:
    """The measured changes of these regimes found again from their throughput runs."""
    for regime_id in regime_ids:
        runs = _runs(session, select_columns(*RUN_COLUMNS).where(
            col(Measurement.regime_id) == regime_id, col(Measurement.metric) == THROUGHPUT_METRIC,
            col(Measurement.retracted_at).is_(None)))
        found = changes_by_set([r.core() for r in _newest_first(runs)], str(regime_id))
        _store_changes(session, regime_id, found, replace_all=True)


def rekey(session: Session, measurement_ids: Sequence[int]) -> None:
    """Write measurement.includes_key again from the measurement_include rows (after includes were removed)."""
    for start in range(0, len(measurement_ids), CHUNK):
        chunk = list(measurement_ids[start:start + CHUNK])
        links: dict[int, list[int]] = {mid: [] for mid in chunk}
        for mid, iid in session.execute(select(col(MeasurementInclude.measurement_id),
                                               col(MeasurementInclude.intervention_id))
                                        .where(col(MeasurementInclude.measurement_id).in_(chunk))).all():
            links[mid].append(iid)
        for mid, iids in links.items():
            session.execute(update(Measurement).where(col(Measurement.id) == mid)
                            .values(includes_key=includes_key(iids)))


def before_intervention_deleted(session: Session, intervention_id: int) -> tuple[list[int], list[int]]:
    """The runs that include the intervention and their regimes, read before it is deleted: pass them to
    `after_intervention_deleted` once the delete is flushed."""
    rows = session.execute(select(col(Measurement.id), col(Measurement.regime_id))
                           .join(MeasurementInclude, col(MeasurementInclude.measurement_id) == col(Measurement.id))
                           .where(col(MeasurementInclude.intervention_id) == intervention_id)).all()
    return [r[0] for r in rows], sorted({r[1] for r in rows})


def after_intervention_deleted(session: Session, affected: tuple[list[int], list[int]]) -> None:
    measurement_ids, regime_ids = affected
    rekey(session, measurement_ids)
    rebuild(session, regime_ids)


def _store_changes(session: Session, regime_id: int, found, *, replace_all: bool) -> None:
    if replace_all:
        session.execute(delete(MeasuredChange).where(col(MeasuredChange.regime_id) == regime_id))
    stored = {} if replace_all else {c.changed_key: c for c in session.exec(
        select(MeasuredChange).where(col(MeasuredChange.regime_id) == regime_id)).all()}
    for changed, (before, after) in found.items():
        key = includes_key(int(i) for i in changed)
        row = stored.get(key) or MeasuredChange(regime_id=regime_id, changed_key=key, before_id=0, after_id=0)
        row.before_id, row.after_id = int(before.ref or 0), int(after.ref or 0)
        session.add(row)
    session.flush()


def series_of(session: Session, regime_ids: Sequence[int]) -> list[MeasurementSeries]:
    if not regime_ids:
        return []
    return list(session.exec(select(MeasurementSeries).where(col(MeasurementSeries.regime_id).in_(regime_ids))).all())


def _series_runs(regime_id: int, metric: str, kind: str, key: str):
    return select_columns(*RUN_COLUMNS).where(
        col(Measurement.regime_id) == regime_id, col(Measurement.metric) == metric, col(Measurement.kind) == kind,
        col(Measurement.includes_key) == key, col(Measurement.retracted_at).is_(None))


def _aware(stored: datetime, like: datetime) -> datetime:
    """A stored time comparable with `like` (SQLite gives naive UTC back where PostgreSQL gives aware)."""
    if stored.tzinfo is None and like.tzinfo is not None:
        return stored.replace(tzinfo=like.tzinfo)
    return stored

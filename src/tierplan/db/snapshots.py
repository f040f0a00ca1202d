"""Queries and writes of plan snapshots. Keyword-only; nothing here commits."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import and_, event, func, or_, update
from sqlalchemy.orm import Session as OrmSession
from sqlmodel import Session, col, select

from tierplan.db.history_reads import seconds_since
from tierplan.db.snapshot_tables import PlanSnapshot


def _kept(campaign_id: int):
    """The campaign's snapshots whose figures are written (a change's row waits for them until it commits)."""
    return and_(col(PlanSnapshot.campaign_id) == campaign_id, col(PlanSnapshot.figures).is_not(None))


def snapshots_of(session: Session, *, campaign_id: int, after_id: int | None = None,
                 limit: int | None = None) -> list[PlanSnapshot]:
    """The campaign's snapshots, oldest first (those newer than snapshot `after_id`, at most `limit`)."""
    query = select(PlanSnapshot).where(_kept(campaign_id))
    if after_id is not None:
        cursor = session.get(PlanSnapshot, after_id)
        if cursor is None:
            raise LookupError(f"snapshot {after_id} no longer exists")
        query = query.where(or_(col(PlanSnapshot.taken_at) > cursor.taken_at,
                                and_(col(PlanSnapshot.taken_at) == cursor.taken_at, col(PlanSnapshot.id) > after_id)))
    query = query.order_by(col(PlanSnapshot.taken_at), col(PlanSnapshot.id))
    return list(session.exec(query.limit(limit) if limit is not None else query).all())


def newest_snapshots(session: Session, *, campaign_id: int, since: datetime | None = None,
                     before_id: int | None = None, limit: int = 50) -> list[PlanSnapshot]:
    """Up to `limit` of the campaign's snapshots, newest first: taken at or after `since`, older than snapshot
    `before_id` (LookupError when that one is gone)."""
    query = select(PlanSnapshot).where(_kept(campaign_id))
    if since is not None:
        query = query.where(col(PlanSnapshot.taken_at) >= since)
    if before_id is not None:
        query = query.where(_older_than(session, before_id))
    order = (col(PlanSnapshot.taken_at).desc(), col(PlanSnapshot.id).desc())
    return list(session.exec(query.order_by(*order).limit(limit)).all())


def _older_than(session: Session, snapshot_id: int):
    cursor = session.get(PlanSnapshot, snapshot_id)
    if cursor is None:
        raise LookupError(f"snapshot {snapshot_id} no longer exists")
    return or_(col(PlanSnapshot.taken_at) < cursor.taken_at,
               and_(col(PlanSnapshot.taken_at) == cursor.taken_at, col(PlanSnapshot.id) < snapshot_id))


def newest_snapshot(session: Session, *, campaign_id: int, before: datetime | None = None,
                    before_id: int | None = None) -> PlanSnapshot | None:
    """The campaign's latest snapshot (the latest taken before `before`, or older than snapshot `before_id`)."""
    query = select(PlanSnapshot).where(_kept(campaign_id))
    if before is not None:
        query = query.where(col(PlanSnapshot.taken_at) < before)
    if before_id is not None:
        query = query.where(_older_than(session, before_id))
    return session.exec(query.order_by(col(PlanSnapshot.taken_at).desc(), col(PlanSnapshot.id).desc())).first()


def chart_snapshots(session: Session, *, campaign_id: int, max_points: int) -> list[PlanSnapshot]:
    """The snapshots a chart of the plan over time draws, oldest first: all of them up to `max_points`, else the
    last one of each of `max_points` stretches of time (what the plan was at the end of each)."""
    newest = list(session.exec(select(PlanSnapshot).where(_kept(campaign_id)).order_by(
        col(PlanSnapshot.taken_at).desc(), col(PlanSnapshot.id).desc()).limit(max_points + 1)).all())
    if len(newest) <= max_points:
        return newest[::-1]
    first = session.exec(select(col(PlanSnapshot.taken_at)).where(_kept(campaign_id))
                         .order_by(col(PlanSnapshot.taken_at)).limit(1)).one()
    width_s = max((newest[0].taken_at - first).total_seconds() / max_points, 1e-6)
    bucket = func.floor(seconds_since(session, col(PlanSnapshot.taken_at), first) / width_s)
    last_ids = session.execute(select(func.max(col(PlanSnapshot.id))).where(_kept(campaign_id))
                               .group_by(bucket)).scalars().all()
    rows = list(session.exec(select(PlanSnapshot).where(col(PlanSnapshot.id).in_(list(last_ids)))).all())
    return sorted(rows, key=lambda r: (r.taken_at, r.id))


def snapshot_in(session: Session, *, campaign_id: int, snapshot_id: int) -> PlanSnapshot | None:
    snapshot = session.get(PlanSnapshot, snapshot_id)
    found = snapshot is not None and snapshot.campaign_id == campaign_id and snapshot.figures is not None
    return snapshot if found else None


UNCOMMITTED, COMMITTED = "tierplan_snapshots_uncommitted", "tierplan_snapshots_committed"  # Session.info keys


def add_snapshot(session: Session, *, campaign_id: int, taken_at: datetime, by: str, cause: str) -> None:
    """A change's snapshot, its figures to come (fill_pending); once the session commits, `committed` names its
    campaign."""
    session.add(PlanSnapshot(campaign_id=campaign_id, taken_at=taken_at, by=by[:100], cause=cause[:300]))
    session.info.setdefault(UNCOMMITTED, set()).add(campaign_id)


def committed(session: Session) -> list[int]:
    """The campaigns whose snapshots this session committed without figures (and forgets them)."""
    return sorted(session.info.pop(COMMITTED, set()))


def _after_commit(session: OrmSession) -> None:
    session.info.setdefault(COMMITTED, set()).update(session.info.pop(UNCOMMITTED, set()))


def _after_rollback(session: OrmSession) -> None:
    session.info.pop(UNCOMMITTED, None)


def install() -> None:
    """Listen on every Session for the commits and rollbacks of snapshots (idempotent)."""
    for name, listener in (("after_commit", _after_commit), ("after_soft_rollback", _after_rollback_soft)):
        if not event.contains(OrmSession, name, listener):
            event.listen(OrmSession, name, listener)


def _after_rollback_soft(session: OrmSession, previous_transaction) -> None:
    _after_rollback(session)


def fill_pending(session: Session, *, campaign_id: int, figures: str, upto: int) -> int:
    """Write `figures` into the campaign's snapshots up to id `upto` still waiting for theirs; how many there were."""
    result = session.execute(update(PlanSnapshot).where(col(PlanSnapshot.campaign_id) == campaign_id,
                                                        col(PlanSnapshot.id) <= upto,
                                                        col(PlanSnapshot.figures).is_(None)).values(figures=figures))
    return int(getattr(result, "rowcount", 0) or 0)


def newest_id(session: Session, *, campaign_id: int) -> int | None:
    """The id of the campaign's newest snapshot, its figures written or not."""
    return session.exec(select(col(PlanSnapshot.id)).where(col(PlanSnapshot.campaign_id) == campaign_id)
                        .order_by(col(PlanSnapshot.id).desc()).limit(1)).first()

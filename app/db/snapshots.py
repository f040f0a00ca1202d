"""Queries and writes of plan snapshots. Keyword-only; nothing here commits."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, col, select

from app.db.snapshot_tables import PlanSnapshot


def snapshots_of(session: Session, *, campaign_id: int, since: datetime | None = None) -> list[PlanSnapshot]:
    """The campaign's snapshots, oldest first (from `since` on, when given)."""
    query = select(PlanSnapshot).where(PlanSnapshot.campaign_id == campaign_id)
    if since is not None:
        query = query.where(col(PlanSnapshot.taken_at) >= since)
    return list(session.exec(query.order_by(col(PlanSnapshot.taken_at), col(PlanSnapshot.id))).all())


def newest_snapshot(session: Session, *, campaign_id: int, before: datetime | None = None) -> PlanSnapshot | None:
    """The campaign's latest snapshot (the latest taken before `before`, when given)."""
    query = select(PlanSnapshot).where(PlanSnapshot.campaign_id == campaign_id)
    if before is not None:
        query = query.where(col(PlanSnapshot.taken_at) < before)
    return session.exec(query.order_by(col(PlanSnapshot.taken_at).desc(), col(PlanSnapshot.id).desc())).first()


def snapshot_in(session: Session, *, campaign_id: int, snapshot_id: int) -> PlanSnapshot | None:
    snapshot = session.get(PlanSnapshot, snapshot_id)
    return snapshot if snapshot is not None and snapshot.campaign_id == campaign_id else None


def add_snapshot(session: Session, *, campaign_id: int, taken_at: datetime, by: str, cause: str,
                 figures: str) -> None:
    session.add(PlanSnapshot(campaign_id=campaign_id, taken_at=taken_at, by=by[:100], cause=cause[:300],
                             figures=figures))

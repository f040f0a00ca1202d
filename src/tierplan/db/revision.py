"""A database-wide revision number: any flush that writes a row moves it, in the same transaction.

Every process that writes through a Session (the server, `tierplan import`, the demo loader) moves it, so a
page rendered at revision n is still right while the revision is n.
"""

from __future__ import annotations

from sqlalchemy import Connection, event, select, update
from sqlalchemy.orm import Session as OrmSession
from sqlmodel import col

from tierplan.db.tables import PlanRevision


def _bump(session: OrmSession, flush_context, instances) -> None:
    if session.new or session.deleted or any(session.is_modified(o) for o in session.dirty):
        session.execute(update(PlanRevision).values(revision=PlanRevision.revision + 1))


def install() -> None:
    """Listen on every Session (idempotent)."""
    if not event.contains(OrmSession, "before_flush", _bump):
        event.listen(OrmSession, "before_flush", _bump)


def current_revision(session: OrmSession | Connection) -> int:
    """The revision now (-1 before the migration that adds it)."""
    value = session.execute(select(col(PlanRevision.revision)).where(col(PlanRevision.id) == 1)).scalar()
    return -1 if value is None else int(value)

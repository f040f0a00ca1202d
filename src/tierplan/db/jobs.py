"""Reads and writes of import jobs: plain statements on the caller's connection (a request's, or a short
`engine.begin()` of the worker process and its watcher); nothing here commits. A state moves only forward
(compare-and-set: waiting -> parsing -> done, failed or cancelled), so a cancelled job stays cancelled whatever
its parser writes afterwards."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import Connection, delete, func, insert, select, update
from sqlmodel import col

from tierplan.db.job_tables import ImportJob


def wall_clock() -> datetime:
    """A job's times are the wall clock of whichever process wrote them (the parse's, a worker's)."""
    return datetime.now(UTC)


def add_job(connection: Connection, *, token: str, campaign_id: int, total_bytes: int, form: str) -> None:
    now = wall_clock()
    connection.execute(insert(ImportJob).values(token=token, campaign_id=campaign_id, state="waiting",
                                                total_bytes=total_bytes, read_bytes=0, form=form, errors="{}",
                                                created_at=now, updated_at=now))


def job_of(connection: Connection, *, token: str) -> ImportJob | None:
    table = ImportJob.__table__  # type: ignore[attr-defined]
    row = connection.execute(select(table).where(col(ImportJob.token) == token)).mappings().first()
    return ImportJob(**row) if row is not None else None


def state_of(connection: Connection, *, token: str) -> str | None:
    return connection.execute(select(col(ImportJob.state)).where(col(ImportJob.token) == token)).scalar()


def _move(connection: Connection, token: str, from_states: tuple[str, ...], **values) -> bool:
    result = connection.execute(update(ImportJob).where(col(ImportJob.token) == token,
                                                        col(ImportJob.state).in_(from_states))
                                .values(updated_at=wall_clock(), **values))
    return bool(result.rowcount == 1)


def keep_waiting(connection: Connection, *, token: str) -> bool:
    """A job waiting for a parse slot says it is still there; False when it was cancelled meanwhile."""
    return _move(connection, token, ("waiting",))


def begin_parse(connection: Connection, *, token: str) -> bool:
    return _move(connection, token, ("waiting",), state="parsing")


def record_progress(connection: Connection, *, token: str, read_bytes: int) -> bool:
    """Store how far the parse has read; False when the job is no longer parsing (cancelled, or given up)."""
    return _move(connection, token, ("parsing",), read_bytes=read_bytes)


def finish(connection: Connection, *, token: str, preview: str) -> bool:
    return _move(connection, token, ("parsing",), state="done", preview=preview)


def fail(connection: Connection, *, token: str, errors: str) -> bool:
    return _move(connection, token, ("waiting", "parsing"), state="failed", errors=errors)


def cancel(connection: Connection, *, token: str) -> bool:
    """Cancel a job still parsing or waiting to be confirmed."""
    return _move(connection, token, ("waiting", "parsing", "done"), state="cancelled", preview=None)


def mark_imported(connection: Connection, *, token: str) -> None:
    """In the confirming transaction: the preview is spent (a confirm sent again finds it imported)."""
    connection.execute(update(ImportJob).where(col(ImportJob.token) == token)
                       .values(state="imported", preview=None, updated_at=wall_clock()))


def waiting_ahead(connection: Connection, *, token: str) -> int:
    """How many jobs, of any campaign, have waited for a parse slot longer than this one."""
    created = select(col(ImportJob.created_at)).where(col(ImportJob.token) == token).scalar_subquery()
    query = select(func.count()).select_from(ImportJob).where(col(ImportJob.state) == "waiting",
                                                              col(ImportJob.created_at) < created)
    return int(connection.execute(query).scalar() or 0)


def remove(connection: Connection, *, token: str) -> None:
    connection.execute(delete(ImportJob).where(col(ImportJob.token) == token))


def remove_older_than(connection: Connection, *, age: timedelta) -> list[str]:
    """Remove the jobs untouched for `age`; returns their tokens (their folders go too, by the caller)."""
    cutoff = wall_clock() - age
    tokens = list(connection.execute(select(col(ImportJob.token)).where(col(ImportJob.updated_at) < cutoff))
                  .scalars())
    if tokens:
        connection.execute(delete(ImportJob).where(col(ImportJob.token).in_(tokens)))
    return tokens

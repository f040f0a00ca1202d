"""An import job's writes outside its parse: abandoned uploads cleared, a failed job dropped once its errors are
shown, a silent one ended, a cancel. Each commits on its own; the parse itself is tierplan/services/parse_jobs.py."""

from __future__ import annotations

import shutil
import time
from datetime import timedelta
from pathlib import Path

from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session

from tierplan.db import jobs
from tierplan.db.job_tables import ImportJob
from tierplan.services.parse_jobs import ParseLimits, errors_json

UPLOAD_TTL_S = 24 * 3600  # a preview nobody confirmed or cancelled: its files are removed after a day


def remove_stale_uploads(root: Path, max_age_s: float = UPLOAD_TTL_S) -> list[str]:
    """Remove the upload folders untouched for `max_age_s` (abandoned previews); returns their names."""
    if not root.is_dir():
        return []
    cutoff, removed = time.time() - max_age_s, []
    for folder in root.iterdir():
        if folder.is_dir() and folder.name.isalnum() and folder.stat().st_mtime < cutoff:
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder.name)
    return removed


def clear_abandoned(engine: Engine, root: Path, max_age_s: float = UPLOAD_TTL_S) -> list[str]:
    """Abandoned uploads: their import jobs and their folders, untouched for `max_age_s` (only the folders while
    the database is not migrated yet). Returns the tokens removed."""
    try:
        with Session(engine) as session:
            tokens = jobs.remove_older_than(session.connection(), age=timedelta(seconds=max_age_s))
            session.commit()
    except SQLAlchemyError:  # no job table yet: no jobs to clear
        tokens = []
    for token in tokens:
        shutil.rmtree(root / token, ignore_errors=True)
    return sorted(set(tokens) | set(remove_stale_uploads(root, max_age_s)))


def drop_job(session: Session, token: str) -> None:
    """Forget a job: a failed one whose errors the page now shows, or the API's, answered at once."""
    jobs.remove(session.connection(), token=token)
    session.commit()


def end_if_silent(session: Session, job: ImportJob, limits: ParseLimits) -> bool:
    """A job still parsing with no word from its process for longer than the wall-time limit (its server was
    stopped, say): marked failed. True when it was. Its times are the wall clock the parse wrote them with."""
    silent_s = (jobs.wall_clock() - job.updated_at).total_seconds()
    if job.state not in ("waiting", "parsing") or silent_s <= limits.wall_s + 60:
        return False
    ended = jobs.fail(session.connection(), token=job.token, errors=errors_json(
        {"files": "the parse stopped without a result (was the server restarted?): upload the files again"}))
    session.commit()
    return ended


def cancel_job(session: Session, campaign_id: int, token: str, root: Path) -> None:
    """Cancel a parse under way (whichever worker watches it stops its process) or a preview, and remove its
    files; nothing for a token of another campaign or none."""
    job = jobs.job_of(session.connection(), token=token) if token.isalnum() else None
    if job is None or job.campaign_id != campaign_id:
        return
    jobs.cancel(session.connection(), token=token)
    session.commit()
    shutil.rmtree(root / token, ignore_errors=True)

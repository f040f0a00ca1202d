"""Background parses of uploads: their state, progress and finished preview, in the database so that any worker
(or any server on the same database and upload folder) can poll, cancel and confirm them."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Text
from sqlmodel import Field, SQLModel

JOB_STATES = ("waiting", "parsing", "done", "failed", "cancelled", "imported")


class ImportJob(SQLModel, table=True):
    """One upload: parsed in a worker process, then previewed, then confirmed (or cancelled, or failed).

    Written with plain statements (tierplan/db/jobs.py), never through a Session's flush, so its progress does not
    move the plan revision the page cache keys on."""

    __tablename__ = "import_job"

    token: str = Field(primary_key=True, max_length=64)  # also the name of its folder under the upload folder
    campaign_id: int = Field(foreign_key="campaign.id", ondelete="CASCADE", index=True)
    state: str = Field(max_length=12)  # one of JOB_STATES
    total_bytes: int = Field(sa_type=BigInteger)
    read_bytes: int = Field(default=0, sa_type=BigInteger)
    form: str = Field(default="{}", sa_type=Text)  # JSON: what the import form held, to show it again
    errors: str = Field(default="{}", sa_type=Text)  # JSON: field -> message, when it failed
    preview: str | None = Field(default=None, sa_type=Text)  # JSON: the Preview, once parsed
    created_at: datetime  # wall clock: when the upload arrived
    updated_at: datetime  # wall clock: the last progress; a job silent for long is taken as stopped

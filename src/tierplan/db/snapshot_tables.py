"""The plan's own history: its figures as they stood after each change that could move them."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index, Text
from sqlmodel import Field, SQLModel


class PlanSnapshot(SQLModel, table=True):
    """The plan's figures right after one saved change (a measurement, an import, an edit), with what the change
    was: the row is written in the change's own transaction, its figures right after it commits. `figures` is JSON
    written and read by tierplan/services/snapshots.py."""

    __tablename__ = "plan_snapshot"
    __table_args__ = (Index("ix_plan_snapshot_campaign_time", "campaign_id", "taken_at", "id"),)  # pages by time

    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", ondelete="CASCADE")
    taken_at: datetime  # wall clock of the change
    by: str = Field(default="", max_length=100)  # blank in single-user mode
    cause: str = Field(max_length=300)  # "measurement: output throughput = 512 tok/s of batch 1"
    # JSON: per regime its baseline, target, ceiling and each tier's band; None until the change's commit is
    # followed by its analysis (tierplan/services/snapshots.py's settle), which no write transaction waits for
    figures: str | None = Field(default=None, sa_type=Text)

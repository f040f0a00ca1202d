"""The plan's own history: its figures as they stood after each change that could move them."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Text
from sqlmodel import Field, SQLModel


class PlanSnapshot(SQLModel, table=True):
    """The plan's figures right after one saved change (a measurement, an import, an edit), in that change's own
    transaction, with what the change was. `figures` is JSON written and read by app/services/snapshots.py."""

    __tablename__ = "plan_snapshot"

    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", ondelete="CASCADE", index=True)
    taken_at: datetime  # wall clock of the change
    by: str = Field(default="", max_length=100)  # blank in single-user mode
    cause: str = Field(max_length=300)  # "measurement: output throughput = 512 tok/s of batch 1"
    figures: str = Field(sa_type=Text)  # JSON: per regime its baseline, target, ceiling and each tier's band

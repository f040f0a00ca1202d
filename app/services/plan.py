"""The plan of a campaign: its rows loaded once, mapped to the core and analysed."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session

from app.db import repo
from app.db.repo import CampaignRows
from app.db.tables import pk
from app.services.analysis import Analysis, analyse
from app.services.errors import NotFound


@dataclass(frozen=True)
class Plan:
    """What the views format: the core's analysis, and the stored rows it was made from (read, never queried)."""

    rows: CampaignRows
    analysis: Analysis

    @property
    def campaign_id(self) -> int:
        return pk(self.rows.campaign)

    @property
    def name(self) -> str:
        return self.rows.campaign.name


def plan_of(session: Session, *, campaign_id: int) -> Plan:
    """Load, map and analyse the campaign; NotFound if it does not exist."""
    rows = repo.load_campaign(session, campaign_id=campaign_id)
    if rows is None:
        raise NotFound(f"no campaign {campaign_id}")
    return Plan(rows=rows, analysis=analyse(rows))

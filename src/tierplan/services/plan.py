"""The plan of a campaign: its rows loaded once, mapped to the core and analysed."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session

from tierplan.db import repo
from tierplan.db.repo import CampaignRows
from tierplan.models.errors import NotFound
from tierplan.services.analysis import Analysis, analyse
from tierplan.services.records import PlanRecord, record_of


@dataclass(frozen=True)
class Plan:
    """What the views format: the stored rows as their public models (`record`) and the core's analysis of them.
    `rows` are the same rows loaded once, for the services that check a change against them (a measurement);
    the views never read them."""

    record: PlanRecord
    analysis: Analysis
    rows: CampaignRows

    @property
    def campaign_id(self) -> int:
        return self.record.campaign.id

    @property
    def name(self) -> str:
        return self.record.campaign.name


def record_for(session: Session, *, campaign_id: int) -> PlanRecord:
    """The campaign's stored rows as their public models (no analysis); NotFound if it does not exist."""
    rows = repo.load_campaign(session, campaign_id=campaign_id)
    if rows is None:
        raise NotFound(f"no campaign {campaign_id}")
    return record_of(rows)


def plan_of(session: Session, *, campaign_id: int) -> Plan:
    """Load, map and analyse the campaign; NotFound if it does not exist."""
    rows = repo.load_campaign(session, campaign_id=campaign_id)
    if rows is None:
        raise NotFound(f"no campaign {campaign_id}")
    return Plan(record=record_of(rows), analysis=analyse(rows), rows=rows)

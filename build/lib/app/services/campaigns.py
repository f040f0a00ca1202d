"""Campaigns: list, create, look up."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlmodel import Session

from app.db import repo
from app.db.tables import Campaign
from app.models.fields import form_fields, parse_form
from app.models.plan_rows import CampaignCreate
from app.services.errors import NotFound

CAMPAIGN_FIELDS = form_fields(CampaignCreate)


def list_campaigns(session: Session) -> list[Campaign]:
    return list(repo.list_campaigns(session))


def get_campaign(session: Session, campaign_id: int) -> Campaign:
    """The campaign, or NotFound."""
    campaign = repo.get_campaign(session, campaign_id=campaign_id)
    if campaign is None:
        raise NotFound(f"no campaign {campaign_id}")
    return campaign


def create_campaign(session: Session, data: Mapping[str, Any], *, now: datetime) -> Campaign:
    """Validate and store a new campaign; raises FormInvalid and writes nothing on bad input."""
    return store_campaign(session, parse_form(CampaignCreate, data), now=now)


def store_campaign(session: Session, values: CampaignCreate, *, now: datetime) -> Campaign:
    """Store a checked new campaign (form or API); one commit."""
    campaign = Campaign(**values.model_dump(), created_at=now)
    session.add(campaign)
    session.commit()
    session.refresh(campaign)
    return campaign

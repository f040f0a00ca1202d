"""Campaigns: list, create, look up."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlmodel import Session

from app.db import repo
from app.db.tables import Campaign
from app.services.errors import NotFound
from app.services.forms import Field, check

CAMPAIGN_FIELDS = (
    Field("name", "Name", max_length=200, placeholder="DeepSeek-V4-Flash on 8x RTX PRO 6000"),
    Field("model", "Model", required=False, max_length=500),
    Field("hardware", "Hardware", required=False, max_length=1000),
    Field("gpu_count", "GPU count", kind="int", minimum=1),
    Field("notes", "Notes", kind="textarea", required=False),
)


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
    values = check(CAMPAIGN_FIELDS, data)
    campaign = Campaign(
        name=values["name"],
        model=values["model"] or "",
        hardware=values["hardware"] or "",
        gpu_count=values["gpu_count"],
        notes=values["notes"] or "",
        created_at=now,
    )
    session.add(campaign)
    session.commit()
    session.refresh(campaign)
    return campaign

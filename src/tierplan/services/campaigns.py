"""Campaigns: list, create, look up."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlmodel import Session

from tierplan.db import links, repo
from tierplan.db.tables import Campaign, Submission, pk
from tierplan.models.errors import NotFound
from tierplan.models.fields import form_fields, parse_form
from tierplan.models.forms import idempotency_key
from tierplan.models.plan_rows import CampaignCreate, CampaignPublic
from tierplan.services.records import public
from tierplan.services.snapshots import keep_snapshot

CAMPAIGN_FIELDS = form_fields(CampaignCreate)


def list_campaigns(session: Session) -> list[CampaignPublic]:
    return [public(CampaignPublic, row) for row in repo.list_campaigns(session)]


def get_campaign(session: Session, campaign_id: int) -> CampaignPublic:
    """The campaign, or NotFound."""
    campaign = repo.get_campaign(session, campaign_id=campaign_id)
    if campaign is None:
        raise NotFound(f"no campaign {campaign_id}")
    return public(CampaignPublic, campaign)


def create_campaign(session: Session, data: Mapping[str, Any], *, now: datetime) -> CampaignPublic:
    """Validate and store a new campaign; raises FormInvalid and writes nothing on bad input."""
    return store_campaign(session, parse_form(CampaignCreate, data), now=now,
                          key=idempotency_key(data.get("idempotency_key")))


def store_campaign(session: Session, values: CampaignCreate, *, now: datetime, key: str | None = None
                   ) -> CampaignPublic:
    """Store a checked new campaign (form or API); one commit. `key`: its idempotency key (the same key again
    returns the campaign the first stored)."""
    if key:
        links.hold_name(session, name=f"idempotency:{key}")  # the same key at once: the later finds the first's
    done = links.submission(session, key=key) if key else None
    if done is not None and done.kind == "campaign":
        earlier = repo.get_campaign(session, campaign_id=done.result_id)
        if earlier is not None:
            return public(CampaignPublic, earlier)
    campaign = Campaign(**values.model_dump(), created_at=now)
    session.add(campaign)
    session.flush()
    if key and done is None:
        session.add(Submission(key=key, kind="campaign", result_id=pk(campaign), created_at=now))
    keep_snapshot(session, pk(campaign), "created campaign", now=now)
    session.commit()
    session.refresh(campaign)
    return public(CampaignPublic, campaign)

"""Back up a campaign as one JSON document and restore it as a new campaign (the CLI's export --json and
import-campaign)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session

from tierplan.db import backup
from tierplan.db.tables import Campaign
from tierplan.models.errors import FormInvalid, NotFound
from tierplan.models.plan_rows import CampaignPublic
from tierplan.services.records import public


def export_campaign(session: Session, campaign_id: int) -> dict[str, Any]:
    """The campaign's backup document; NotFound if there is no such campaign."""
    if session.get(Campaign, campaign_id) is None:
        raise NotFound(f"no campaign {campaign_id}")
    return backup.dump_campaign(session, campaign_id=campaign_id)


def import_campaign(session: Session, document: Any) -> CampaignPublic:
    """Restore a backup as a new campaign in one commit; FormInvalid naming the table and row, nothing written."""
    try:
        campaign = backup.load_campaign(session, document=document)
        backup.rebuild_history(session, campaign_id=campaign.id or 0)
        session.commit()
    except backup.BadDocument as exc:
        session.rollback()
        raise FormInvalid({"file": str(exc)}) from None
    except SQLAlchemyError as exc:
        session.rollback()
        raise FormInvalid({"file": f"the database refused a row of the backup ({type(exc).__name__})"}) from None
    return public(CampaignPublic, campaign)

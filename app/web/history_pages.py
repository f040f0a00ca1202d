"""The plan's own history: projected against measured over time, what changed since a date, two plans compared."""

from __future__ import annotations

from datetime import UTC, date, datetime

from fastapi import APIRouter, Request

from app.db import repo
from app.db.tables import pk
from app.services import snapshots
from app.services.errors import NotFound
from app.services.plan import plan_of
from app.views.plan_history import (
    changes_since,
    compare,
    describe,
    heading,
    since_default,
    snapshot_choices,
    timelines,
)
from app.web.deps import CampaignDep, NowDep, SessionDep
from app.web.templating import render

router = APIRouter(include_in_schema=False)


def _since(raw: str | None, history, now: datetime) -> tuple[datetime, str]:
    """The start of "what changed since" from the form, or why it cannot be read."""
    if not raw:
        return since_default(history, now), ""
    try:
        return datetime.combine(date.fromisoformat(raw), datetime.min.time(), tzinfo=UTC), ""
    except ValueError:
        return since_default(history, now), f"{raw!r} is not a date: write it as 2026-12-01"


@router.get("/campaigns/{campaign_id:id}/history", name="plan_history")
def history_page(request: Request, campaign_id: int, campaign: CampaignDep, session: SessionDep, now: NowDep,
                 since: str | None = None):
    """Projected P50 against measured throughput over time per regime, and what each change did since a date."""
    plan = plan_of(session, campaign_id=pk(campaign))
    history = snapshots.history_of(session, campaign_id)
    current = snapshots.current(plan.analysis, now)
    start, error = _since(since, history, now)
    listed = [s for s in history if s.taken_at >= start]
    context = {"campaign": campaign, "timelines": timelines(history, current, plan.record.measurements),
               "changes": changes_since(listed, snapshots.snapshot_before(session, campaign_id, start)),
               "since": start.date().isoformat(), "since_error": error, "stored": len(history)}
    return render(request, "history.html", context, status=422 if error else 200)


@router.get("/campaigns/{campaign_id:id}/compare", name="compare")
def compare_page(request: Request, campaign_id: int, campaign: CampaignDep, session: SessionDep, now: NowDep,
                 other: str = ""):
    """This plan as it stands beside another: another campaign as it stands ("campaign-3"), or one of this
    campaign's snapshots ("snapshot-12")."""
    left = snapshots.current(plan_of(session, campaign_id=campaign_id).analysis, now)
    kind, _, number = other.partition("-")
    right_label, right, error, right_name = "", None, "", campaign.name
    same = kind == "snapshot"  # this plan beside an earlier state of itself
    if other and not (kind in ("campaign", "snapshot") and number.isdigit()):
        error = f"{other!r} is neither a campaign nor a snapshot of this one: pick one from the list"
    elif kind == "campaign":
        found = repo.get_campaign(session, campaign_id=int(number))
        if found is None:
            raise NotFound(f"no campaign {number}")
        right = snapshots.current(plan_of(session, campaign_id=int(number)).analysis, now)
        right_label, right_name = describe(right, found.name), found.name
    elif kind == "snapshot":
        right = snapshots.snapshot_of(session, campaign_id, int(number))
        right_label = describe(right, campaign.name)
    context = {"campaign": campaign, "other": other, "error": error, "left_label": describe(left, campaign.name),
               "right_label": right_label, "left_head": heading(left, campaign.name, same),
               "right_head": heading(right, right_name, same) if right else "",
               "regimes": compare(left, right) if right else [],
               "campaigns": [c for c in repo.list_campaigns(session) if c.id != campaign_id],
               "snapshots": snapshot_choices(snapshots.history_of(session, campaign_id))}
    return render(request, "compare.html", context, status=422 if error else 200)

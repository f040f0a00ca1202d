"""The plan's own history: projected against measured over time, what changed since a date, two plans compared."""

from __future__ import annotations

from datetime import UTC, date, datetime
from urllib.parse import urlencode

from fastapi import APIRouter, Query, Request, Response

from tierplan.db import repo
from tierplan.models.errors import FormInvalid, NotFound
from tierplan.models.fields import INT32_MAX
from tierplan.planning.metrics import THROUGHPUT_METRIC
from tierplan.services import runs, snapshots
from tierplan.services.plan import plan_of
from tierplan.text import formatting as fmt
from tierplan.views.plan_history import (
    changes_since,
    compare,
    describe,
    heading,
    since_default,
    snapshot_choices,
    timelines,
)
from tierplan.views.plan_json import schedule_of
from tierplan.web.deps import CampaignDep, NowDep, SessionDep
from tierplan.web.templating import path_for, render

router = APIRouter(include_in_schema=False)


SNAPSHOT_CHOICES = 200  # the newest snapshots the compare page offers
TIMELINE_POINTS = 100  # projections a timeline draws, and runs (above, stretches of time)
CHANGES_PAGE = 50  # changes listed a page


def _since(raw: str | None, first: datetime | None, now: datetime) -> tuple[datetime, str]:
    """The start of "what changed since" from the form, or why it cannot be read."""
    if not raw:
        return since_default(first, now), ""
    try:
        return datetime.combine(date.fromisoformat(raw), datetime.min.time(), tzinfo=UTC), ""
    except ValueError:
        return since_default(first, now), f"{raw!r} is not a date: write it as 2026-12-01"


@router.get("/campaigns/{campaign_id:id}/history", name="plan_history")
def history_page(request: Request, campaign_id: int, campaign: CampaignDep, session: SessionDep, now: NowDep,
                 since: str | None = None, before: int | None = Query(None, ge=1, le=INT32_MAX)) -> Response:
    """Projected P50 against measured throughput over time per regime (each drawn from at most 100 points), and
    what each change did since a date, 50 changes a page (newest first; `before`: the change the page follows)."""
    plan = plan_of(session, campaign_id=campaign.id)
    current = snapshots.current(plan.analysis, now)
    first = snapshots.history_of(session, campaign_id, limit=1)
    start, error = _since(since, first[0].taken_at if first else None, now)
    try:
        page = snapshots.newest_history(session, campaign_id, since=start, before=before, limit=CHANGES_PAGE + 1)
    except FormInvalid as exc:
        page, error = [], exc.errors["before"]
    listed = page[:CHANGES_PAGE][::-1]
    previous = snapshots.snapshot_before(session, campaign_id, before=listed[0].id) if listed else None
    here = path_for(request.app, "plan_history", campaign_id=campaign_id)
    query = {"since": start.date().isoformat()}
    older = (f"{here}?{urlencode({**query, 'before': listed[0].id})}#changes-since"
             if len(page) > CHANGES_PAGE and listed else "")
    summaries = runs.series_of(session, plan.rows.regimes)
    measured = {r.name: runs.chart_series(session, r, THROUGHPUT_METRIC, TIMELINE_POINTS, summaries)
                for r in plan.rows.regimes}
    context = {"campaign": campaign,
               "timelines": timelines(snapshots.chart_history(session, campaign_id, TIMELINE_POINTS), current,
                                      measured),
               "changes": changes_since(listed, previous), "older": older,
               "newest": f"{here}?{urlencode(query)}#changes-since" if before else "",
               "since": start.date().isoformat(), "since_error": error,
               "first": fmt.date(first[0].taken_at) if first else "", "timeline_points": TIMELINE_POINTS,
               "schedule": schedule_of(plan)}
    return render(request, "history.html", context, status=422 if error else 200)


@router.get("/campaigns/{campaign_id:id}/compare", name="compare")
def compare_page(request: Request, campaign_id: int, campaign: CampaignDep, session: SessionDep, now: NowDep,
                 other: str = "") -> Response:
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
               "snapshots": snapshot_choices(snapshots.newest_history(session, campaign_id, limit=SNAPSHOT_CHOICES))}
    return render(request, "compare.html", context, status=422 if error else 200)

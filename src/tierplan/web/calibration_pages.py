"""Leaving a run out of calibration (or counting it again), from the plan's calibration table."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi import APIRouter, Request, Response
from starlette.concurrency import run_in_threadpool

from tierplan.db.engine import Sessions
from tierplan.models.errors import FormInvalid
from tierplan.models.fields import form_fields, parse_form
from tierplan.models.forms import Form
from tierplan.models.measurements import LeaveOutCreate, MeasurementPublic
from tierplan.models.plan_rows import CampaignPublic
from tierplan.services import campaigns as campaign_service
from tierplan.services import runs
from tierplan.services.measurements import leave_out_of_calibration
from tierplan.web.deps import CampaignDep, IsHtmx, NowDep, SessionDep, SessionsDep, user_of
from tierplan.web.pages import redirect
from tierplan.web.templating import form_page, path_for

router = APIRouter(include_in_schema=False)
LEAVE_OUT_FIELDS = form_fields(LeaveOutCreate)


def _page(request: Request, campaign: CampaignPublic, run: MeasurementPublic, form: Form, htmx: bool = False,
          status: int = 200) -> Response:
    title = f"Calibration and the {run.value:,.6g} {run.unit} run of {run.regime}"
    state = (f"Left out now: {run.left_out}. A blank reason counts it again." if run.left_out else
             "Calibration counts it now: each measured change it is part of moves the running bias and the bands.")
    lede = (f"Measured {run.measured_at:%Y-%m-%d %H:%M} UTC as a {run.kind}, taken with "
            f"{', '.join(run.includes) or 'none of the plan'}. Left out, it still starts projections or judges gates; "
            f"only calibration stops counting it. {state}")
    back = path_for(request.app, "plan", campaign_id=campaign.id) + "#fold-calibration"
    return form_page(request, campaign=campaign, form=form, title=title, noun="calibration", back=back, htmx=htmx,
                     status=status, lede=lede, submit="Save")


@router.get("/campaigns/{campaign_id:id}/measurements/{measurement_id:id}/calibration", name="leave_out_form")
def leave_out_form(request: Request, campaign_id: int, campaign: CampaignDep, measurement_id: int,
                   session: SessionDep) -> Response:
    run = runs.measurement_of(session, campaign_id, measurement_id)
    initial = {"reason": run.left_out.rsplit(" (", 1)[0] if run.left_out else "", "by": user_of(request) or ""}
    return _page(request, campaign, run, Form(LEAVE_OUT_FIELDS, raw=initial))


@router.post("/campaigns/{campaign_id:id}/measurements/{measurement_id:id}/calibration", name="save_leave_out")
async def save_leave_out(request: Request, campaign_id: int, measurement_id: int, sessions: SessionsDep,
                         htmx: IsHtmx, now: NowDep) -> Response:
    data = await request.form()
    return await run_in_threadpool(_save, request, campaign_id, measurement_id, sessions, htmx, now, data)


def _save(request: Request, campaign_id: int, measurement_id: int, sessions: Sessions, htmx: bool, now: datetime,
          data: Any) -> Response:
    with sessions.reader() as session:
        campaign = campaign_service.get_campaign(session, campaign_id)
        run = runs.measurement_of(session, campaign_id, measurement_id)
    try:
        leave_out_of_calibration(sessions, campaign_id, measurement_id, parse_form(LeaveOutCreate, data), now=now)
    except FormInvalid as exc:
        return _page(request, campaign, run, Form.rejected(LEAVE_OUT_FIELDS, data, exc), htmx, 422)
    return redirect(path_for(request.app, "plan", campaign_id=campaign_id) + "#fold-calibration", htmx)

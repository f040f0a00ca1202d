"""HTML pages: campaigns, the plan, measurements and the regime history."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from app.db import repo
from app.exporters.markdown import render_roadmap
from app.services import campaigns as campaign_service
from app.services.errors import FormInvalid, NotFound
from app.services.forms import Form, raw_values
from app.services.formatting import measured, timestamp
from app.services.measurements import measurement_fields, record_measurement
from app.services.report import build_plan
from app.web.deps import IsHtmx, NowDep, SessionDep
from app.web.templating import render

router = APIRouter(include_in_schema=False)


def redirect(url: str, htmx: bool) -> Response:
    """After a successful form: htmx follows HX-Redirect, a plain browser a 303."""
    if htmx:
        return Response(status_code=204, headers={"HX-Redirect": url})
    return RedirectResponse(url, status_code=303)


@router.get("/")
def campaign_list(request: Request, session: SessionDep):
    form = Form(campaign_service.CAMPAIGN_FIELDS, raw={"gpu_count": "1"})
    return _campaigns_page(request, session, form, block=False)


def _campaigns_page(request, session, form: Form, block: bool, status: int = 200):
    campaigns = campaign_service.list_campaigns(session)
    rows = [{"id": c.id, "name": c.name, "model": c.model, "gpu_count": c.gpu_count,
             "created": timestamp(c.created_at)} for c in campaigns]
    return render(request, "campaigns.html", {"campaigns": rows, "form": form},
                  block="campaign_form" if block else None, status=status)


@router.post("/campaigns")
async def create_campaign(request: Request, session: SessionDep, htmx: IsHtmx, now: NowDep):
    data = await request.form()
    try:
        campaign = campaign_service.create_campaign(session, data, now=now)
    except FormInvalid as exc:
        form = Form(campaign_service.CAMPAIGN_FIELDS, raw_values(campaign_service.CAMPAIGN_FIELDS, data), exc.errors)
        return _campaigns_page(request, session, form, htmx, status=422)
    return redirect(f"/campaigns/{campaign.id}", htmx)


def plan_context(session, campaign_id: int, form: Form | None = None, saved: str = "") -> dict:
    plan = build_plan(session, campaign_id)
    regimes = repo.regimes_of(session, campaign_id=campaign_id)
    if form is None:
        form = Form(measurement_fields(regimes), raw={"metric": "output_tok_s"})
    return {"plan": plan, "form": form, "saved": saved}


@router.get("/campaigns/{campaign_id:int}")
def plan_page(request: Request, campaign_id: int, session: SessionDep, htmx: IsHtmx):
    return render(request, "plan.html", plan_context(session, campaign_id), block="plan_body" if htmx else None)


@router.post("/campaigns/{campaign_id:int}/measurements")
async def add_measurement(request: Request, campaign_id: int, session: SessionDep, htmx: IsHtmx, now: NowDep):
    campaign_service.get_campaign(session, campaign_id)
    data = await request.form()
    try:
        measurement = record_measurement(session, campaign_id, data, now=now)
    except FormInvalid as exc:
        fields = measurement_fields(repo.regimes_of(session, campaign_id=campaign_id))
        form = Form(fields, raw_values(fields, data), exc.errors)
        context = plan_context(session, campaign_id, form)
        return render(request, "plan.html", context, block="plan_body" if htmx else None, status=422)
    if not htmx:
        return RedirectResponse(f"/campaigns/{campaign_id}", status_code=303)
    saved = f"Recorded {measurement.metric} = {measurement.value:g} {measurement.unit}."
    context = plan_context(session, campaign_id, saved=saved)
    context["form"].raw["regime"] = data.get("regime", "")
    context["form"].raw["metric"] = measurement.metric
    return render(request, "plan.html", context, block="plan_body")


@router.get("/campaigns/{campaign_id:int}/regimes/{regime_id:int}")
def regime_page(request: Request, campaign_id: int, regime_id: int, session: SessionDep):
    campaign = campaign_service.get_campaign(session, campaign_id)
    regime = next((r for r in repo.regimes_of(session, campaign_id=campaign_id) if r.id == regime_id), None)
    if regime is None:
        raise NotFound(f"no regime {regime_id} in campaign {campaign_id}")
    plan = build_plan(session, campaign_id)
    view = next(r for r in plan.regimes if r.id == regime_id)
    history = [
        {"measured_at": timestamp(m.measured_at), "metric": m.metric, "value": measured(m.value), "unit": m.unit,
         "provenance": m.provenance, "source": m.source, "note": m.note}
        for m in repo.measurements_of(session, regime_ids=[regime_id])
    ]
    what_ifs = [w for w in plan.what_ifs if w.regime == regime.name]
    context = {"campaign": campaign, "regime": view, "history": history, "what_ifs": what_ifs}
    return render(request, "regime.html", context)


@router.get("/campaigns/{campaign_id:int}/roadmap.md")
def roadmap_markdown(campaign_id: int, session: SessionDep, now: NowDep):
    plan = build_plan(session, campaign_id)
    filename = f"roadmap-campaign-{campaign_id}.md"
    return Response(
        render_roadmap(plan, generated_at=now),
        media_type="text/markdown; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )

"""HTML pages: campaigns, the plan, measurements and the regime history."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlmodel import Session

from tierplan.db import repo
from tierplan.db.engine import Sessions, new_session
from tierplan.db.links import changes_of
from tierplan.db.revision import current_revision
from tierplan.db.tables import Measurement, pk
from tierplan.exporters.markdown import render_roadmap
from tierplan.models.errors import FormInvalid, NotFound
from tierplan.models.fields import parse_form
from tierplan.models.forms import Field, Form, idempotency_key
from tierplan.models.measurements import RetractionCreate
from tierplan.models.plan_rows import CampaignPublic
from tierplan.planning.model import need
from tierplan.planning.regressions import MIN_SAMPLES
from tierplan.services import campaigns as campaign_service
from tierplan.services import runs
from tierplan.services.measurements import (
    CONFIRM,
    RETRACT_FIELDS,
    measurement_defaults,
    measurement_fields,
    parse_measurement_form,
    record_measurement,
    retract_measurement,
)
from tierplan.services.plan import Plan, plan_of
from tierplan.services.profiles import largest_kernels
from tierplan.services.regressions import changes_in
from tierplan.text import formatting as fmt
from tierplan.text.formatting import timestamp
from tierplan.views.charts import shares_chart, shares_rows
from tierplan.views.history import (
    charted_metrics,
    history_charts,
    history_row,
    history_view,
    metric_choices,
    waterfall_view,
)
from tierplan.views.kernels import SHOWN, kernel_rows
from tierplan.views.plan import plan_view
from tierplan.views.regressions import searched_out
from tierplan.web.deps import CampaignDep, IsHtmx, NowDep, SessionDep, SessionsDep, user_of
from tierplan.web.fragments import changed_parts, plan_parts
from tierplan.web.templating import form_page, path_for, render

router = APIRouter(include_in_schema=False)


def redirect(url: str, htmx: bool) -> Response:
    """After a successful form: htmx follows HX-Redirect, a plain browser a 303."""
    if htmx:
        return Response(status_code=204, headers={"HX-Redirect": url})
    return RedirectResponse(url, status_code=303)


@router.get("/", name="campaigns")
def campaign_list(request: Request, session: SessionDep) -> Response:
    form = Form(campaign_service.CAMPAIGN_FIELDS, raw={"gpu_count": "1"})
    return _campaigns_page(request, session, form, block=False)


def _campaigns_page(request: Request, session: Session, form: Form, block: bool, status: int = 200) -> Response:
    campaigns = campaign_service.list_campaigns(session)
    rows = [{"id": c.id, "name": c.name, "model": c.model, "gpu_count": c.gpu_count,
             "created": timestamp(c.created_at)} for c in campaigns]
    return render(request, "campaigns.html", {"campaigns": rows, "form": form},
                  block="campaign_form" if block else None, status=status)


@router.post("/campaigns", name="add_campaign")
async def create_campaign(request: Request, session: SessionDep, htmx: IsHtmx, now: NowDep) -> Response:
    data = await request.form()
    try:
        campaign = campaign_service.create_campaign(session, data, now=now)
    except FormInvalid as exc:
        form = Form.rejected(campaign_service.CAMPAIGN_FIELDS, data, exc)
        return _campaigns_page(request, session, form, htmx, status=422)
    return redirect(path_for(request.app, "plan", campaign_id=campaign.id), htmx)


def _measure_fields(plan: Plan) -> tuple[Field, ...]:
    return measurement_fields(plan.record.regimes, plan.record.interventions)


def plan_context(session: Session | None, campaign_id: int, now: datetime, form: Form | None = None, saved: str = "",
                 plan: Plan | None = None) -> dict[str, Any]:
    """The plan page's context, from `plan` when the caller loaded it (loaded here otherwise)."""
    if plan is None:
        plan = plan_of(need(session, "a session when no plan is given"), campaign_id=campaign_id)
    if form is None:
        form = Form(_measure_fields(plan), raw=measurement_defaults(plan.record.interventions, now))
    return {"plan": plan_view(plan), "form": form, "saved": saved, "confirm_field": CONFIRM}


PAGE_CACHE_SIZE = 64


@router.get("/campaigns/{campaign_id:id}", name="plan")
async def plan_page(request: Request, campaign_id: int, htmx: IsHtmx, now: NowDep) -> Response:
    """The plan page. Rendered once a database revision (and minute, for the form's default time): a repeat
    is served from memory, and a browser holding the same ETag gets 304. Asking the revision is one indexed
    read of one row, done on the event loop; rendering runs in the thread pool."""
    if htmx:
        return await run_in_threadpool(_render_plan, request, campaign_id, now, "plan_body")
    with request.app.state.revision_engine.connect() as connection:  # used by the event loop alone
        revision = current_revision(connection)
    etag = f'W/"plan-{campaign_id}-{revision}-{now:%Y%m%d%H%M}"'
    headers = {"ETag": etag, "Cache-Control": "no-cache", "Vary": "HX-Request"}
    if request.headers.get("if-none-match") == etag:
        return Response(status_code=304, headers=headers)
    cache: dict = request.app.state.page_cache
    who = request.scope.get("state", {})
    key = (etag, str(request.base_url), who.get("user"), who.get("registered"))  # the header says who is in
    body = cache.get(key)
    if body is None:
        body = (await run_in_threadpool(_render_plan, request, campaign_id, now)).body
        if len(cache) >= PAGE_CACHE_SIZE:
            cache.clear()
        cache[key] = body
    return Response(body, media_type="text/html; charset=utf-8", headers=headers)


def _render_plan(request: Request, campaign_id: int, now: datetime, block: str | None = None) -> Response:
    with new_session(request.app.state.engine) as session:
        return render(request, "plan.html", plan_context(session, campaign_id, now), block=block)


@router.post("/campaigns/{campaign_id:id}/measurements", name="add_measurement")
async def add_measurement(request: Request, campaign_id: int, sessions: SessionsDep, htmx: IsHtmx, now: NowDep) -> Response:
    """Record a measurement. htmx gets the form back (with its messages on a 422) and, after a save, only the
    blocks of the plan the measurement moved, swapped out of band. The campaign is read and the value checked
    before the write; the write takes the lock for its own rows; the plan it left is analysed once, after."""
    data = await request.form()
    return await run_in_threadpool(_add_measurement, request, campaign_id, sessions, htmx, now, data)


def _add_measurement(request: Request, campaign_id: int, sessions: Sessions, htmx: bool, now: datetime, data: Any) -> Response:
    parts = request.app.state.templates.env.globals["parts"]
    with sessions.reader() as session:
        loaded = plan_of(session, campaign_id=campaign_id)
    before = plan_view(loaded)
    try:
        recorded = record_measurement(sessions, campaign_id, parse_measurement_form(data, now=now), now=now,
                                      idempotency_key=idempotency_key(data.get("idempotency_key")),
                                      by=user_of(request), rows=loaded.rows)
    except FormInvalid as exc:
        form = Form.rejected(_measure_fields(loaded), data, exc)
        if not htmx:
            return render(request, "plan.html", plan_context(None, campaign_id, now, form, plan=loaded), status=422)
        return HTMLResponse(str(parts.measure_form(before, form, "", CONFIRM)), status_code=422)
    if not htmx:
        return RedirectResponse(path_for(request.app, "plan", campaign_id=campaign_id), status_code=303)
    measurement, after_plan = recorded.measurement, recorded.plan
    if after_plan is None:  # saved, but the plan could not be analysed again: the page loads it afresh
        return Response(status_code=204, headers={"HX-Refresh": "true"})
    saved = (f"Recorded {fmt.metric(measurement.metric)} = {fmt.number(measurement.value, measurement.unit)} as a "
             f"{measurement.kind}.")
    context = plan_context(None, campaign_id, now, saved=saved, plan=after_plan)
    context["form"].raw["regime"] = data.get("regime", "")
    context["form"].raw["metric"] = measurement.metric
    after = context["plan"]
    moved = changed_parts(plan_parts(parts, before), plan_parts(parts, after))
    body = str(parts.measure_form(after, context["form"], saved, CONFIRM)) + "\n".join(moved)
    return HTMLResponse(body, headers={"Vary": "HX-Request"})


@router.get("/campaigns/{campaign_id:id}/regimes/{regime_id:id}", name="regime")
def regime_page(request: Request, campaign_id: int, campaign: CampaignDep, regime_id: int, session: SessionDep,
                metric: str = "", since: str = "", until: str = "", before: str = "") -> Response:
    """A regime: its projection, profile, charts, the changes in its history, and its runs a page at a time
    (newest first; `metric`, `since` and `until` (dates, UTC) filter them, `before` is the run the page follows)."""
    return _regime_page(request, session, campaign, regime_id, {"metric": metric, "since": since, "until": until,
                                                                 "before": before})


def _regime_page(request: Request, session: Session, campaign: CampaignPublic, regime_id: int, asked: dict[str, str]) -> Response:
    plan = plan_of(session, campaign_id=campaign.id)
    regime = next((r for r in plan.record.regimes if r.id == regime_id), None)
    if regime is None:
        raise NotFound(f"no regime {regime_id} in campaign {campaign.id}")
    report = plan_view(plan)
    view = next(r for r in report.regimes if r.id == regime_id)
    what_ifs = [w for w in report.what_ifs if w.regime == regime.name]
    steps = [(s.label, s.shares) for s in view.steps]
    row = next(r for r in plan.rows.regimes if r.id == regime_id)
    summaries = runs.series_of(session, [row])
    series = [runs.chart_series(session, row, m, summaries=summaries) for m in charted_metrics(plan.record, regime_id)]
    page, errors = runs.RunsPage([], None), {}
    try:
        page = runs.runs_page(session, campaign.id, regime=regime.name, query=runs.history_query(asked))
    except FormInvalid as exc:
        errors = exc.errors
    link = {k: v for k, v in asked.items() if v and k != "before" and k not in errors}
    here = path_for(request.app, "regime", campaign_id=campaign.id, regime_id=regime_id)
    older = f"{here}?{urlencode({**link, 'before': page.next_before})}#history" if page.next_before else ""
    newest = f"{here}?{urlencode(link)}#history" if link else f"{here}#history"
    context = {"campaign": campaign, "regime": view, "history": history_view(page.runs), "what_ifs": what_ifs,
               "changes": searched_out(changes_in(session, campaign.id, regime=regime.name)), "min_samples": MIN_SAMPLES,
               "charts": history_charts(plan.record, regime_id, series), "asked": asked, "filter_errors": errors,
               "older": older, "newest": newest, "paged": bool(asked.get("before")), "metric_choices": metric_choices(),
               "page_size": runs.PAGE_RUNS, "chart_points": runs.CHART_POINTS,
               "shares_chart": shares_chart(f"shares-{regime_id}", regime.name, steps, "shares-table"),
               "shares_rows": shares_rows(steps) if view.profile else [], **waterfall_view(view),
               "kernels": kernel_rows(largest_kernels(plan.rows, regime_id, SHOWN))}
    return render(request, "regime.html", context, status=422 if errors else 200)


def _measurement(session: Session, campaign_id: int, measurement_id: int) -> Measurement:
    measurement = repo.measurement_in(session, campaign_id=campaign_id, measurement_id=measurement_id)
    if measurement is None:
        raise NotFound(f"no measurement {measurement_id} in campaign {campaign_id}")
    return measurement


def _retract_page(request: Request, session: Session, campaign: CampaignPublic, measurement: Measurement, form: Form,
                  htmx: bool = False, status: int = 200) -> Response:
    public = runs.measurement_of(session, campaign.id, pk(measurement))
    regime = public.regime
    row = history_row(public)
    title = f"Retract {row.metric} = {row.exact} {row.unit} of {regime}"
    lede = (f"Measured {row.measured_at} as a {row.kind}, taken with {row.includes}; {row.source}. "
            "It stays in the history, struck through with your reason; no baseline, gate or calibration uses it.")
    if row.retracted:
        lede = f"Already {row.retraction}."
    history = path_for(request.app, "regime", campaign_id=campaign.id, regime_id=measurement.regime_id) + "#history"
    return form_page(request, campaign=campaign, form=form, title=title, noun="retraction", back=history, htmx=htmx,
                     status=status, lede=lede, submit="Retract measurement")


@router.get("/campaigns/{campaign_id:id}/measurements/{measurement_id:id}/retract", name="retract_form")
def retract_form(request: Request, campaign_id: int, campaign: CampaignDep, measurement_id: int, session: SessionDep) -> Response:
    measurement = _measurement(session, campaign_id, measurement_id)
    return _retract_page(request, session, campaign, measurement, Form(RETRACT_FIELDS))


@router.post("/campaigns/{campaign_id:id}/measurements/{measurement_id:id}/retract", name="save_retraction")
async def retract(request: Request, campaign_id: int, measurement_id: int, sessions: SessionsDep, htmx: IsHtmx,
                  now: NowDep) -> Response:
    data = await request.form()
    return await run_in_threadpool(_retract, request, campaign_id, measurement_id, sessions, htmx, now, data)


def _retract(request: Request, campaign_id: int, measurement_id: int, sessions: Sessions, htmx: bool, now: datetime,
             data: Any) -> Response:
    with sessions.reader() as session:
        campaign = campaign_service.get_campaign(session, campaign_id)
        measurement = _measurement(session, campaign_id, measurement_id)
    try:
        retract_measurement(sessions, campaign_id, measurement_id, parse_form(RetractionCreate, data), now=now)
    except FormInvalid as exc:
        form = Form.rejected(RETRACT_FIELDS, data, exc)
        with sessions.reader() as session:
            return _retract_page(request, session, campaign, measurement, form, htmx, 422)
    return redirect(path_for(request.app, "regime", campaign_id=campaign_id, regime_id=measurement.regime_id) + "#history",
                    htmx)


@router.get("/campaigns/{campaign_id:id}/changes", name="changes")
def changes_page(request: Request, campaign_id: int, campaign: CampaignDep, session: SessionDep) -> Response:
    """The campaign's edits, newest first: when, who, what (measurements are in each regime's history)."""
    rows = [{"at": timestamp(c.at), "by": c.by or "—", "what": f"{c.action} {c.label}",
             "href": _change_link(request, campaign_id, c) if c.action != "deleted" else ""}
            for c in changes_of(session, campaign_id=campaign_id)]
    return render(request, "changes.html", {"campaign": campaign, "changes": rows})


def _change_link(request: Request, campaign_id: int, change: Any) -> str:
    """Where the changed thing is edited now ("" when it has no page of its own: the campaign, a profile)."""
    if change.kind == "specs":
        return path_for(request.app, "specs", campaign_id=campaign_id)
    if change.kind == "kernel rules":
        return path_for(request.app, "kernel_rules", campaign_id=campaign_id)
    if change.kind in ("campaign", "profiles"):
        return ""
    return path_for(request.app, "edit_row", campaign_id=campaign_id, kind=change.kind, row_id=change.row_id)


@router.get("/campaigns/{campaign_id:id}/roadmap.md", name="roadmap")
def roadmap_markdown(campaign_id: int, session: SessionDep, now: NowDep) -> Response:
    plan = plan_view(plan_of(session, campaign_id=campaign_id), ranked=True)
    filename = f"roadmap-campaign-{campaign_id}.md"
    return Response(
        render_roadmap(plan, generated_at=now),
        media_type="text/markdown; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )

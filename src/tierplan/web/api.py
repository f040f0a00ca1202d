"""The JSON API under /api: the same services as the pages."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Query, Request, Response
from pydantic import BaseModel, Field

from tierplan.models.fields import INT32_MAX, validated
from tierplan.models.forms import idempotency_key
from tierplan.models.measurements import (
    HistoryQuery,
    LeaveOutCreate,
    MeasurementCreate,
    MeasurementPublic,
    RetractionCreate,
)
from tierplan.models.plan_rows import CampaignPublic, SloPublic
from tierplan.planning.regressions import MIN_SAMPLES
from tierplan.services import campaigns as campaign_service
from tierplan.services import runs, snapshots
from tierplan.services.measurements import leave_out_of_calibration, record_measurement, retract_measurement
from tierplan.services.plan import plan_of
from tierplan.services.regressions import changes_in
from tierplan.services.snapshots import Snapshot
from tierplan.views.capacity import CapacityOut, capacity_out
from tierplan.views.gates import TierGatesOut, summary_of
from tierplan.views.plan_json import PlanOut, plan_out
from tierplan.views.regressions import SeriesOut, searched_out
from tierplan.views.regressions import exit_code as regressions_exit
from tierplan.web.deps import CampaignDep, NowDep, SessionDep, SessionsDep, known_query, user_of
from tierplan.web.problems import PROBLEM_RESPONSES

router = APIRouter(prefix="/api", responses=PROBLEM_RESPONSES, dependencies=[Depends(known_query)])


class GatesOut(BaseModel):
    campaign_id: int
    exit_code: int = Field(description="0 every hard gate passes, 1 a gate fails, 3 one is pending or inconclusive")
    tiers: list[TierGatesOut]


class CapacityReportOut(BaseModel):
    campaign_id: int
    slos: list[SloPublic]
    measured: CapacityOut | None
    tiers: list[CapacityOut]


class RegressionsOut(BaseModel):
    campaign_id: int
    exit_code: int = Field(description="0 no regression, 1 a regression, 3 no history long enough to judge")
    series: list[SeriesOut]


@router.get("/campaigns", response_model=list[CampaignPublic], tags=["campaigns"])
def list_campaigns(session: SessionDep) -> Any:
    """All campaigns, newest first."""
    return [CampaignPublic.model_validate(c) for c in campaign_service.list_campaigns(session)]


@router.get("/campaigns/{campaign_id:id}/plan", response_model=PlanOut, tags=["plan"])
def get_plan(campaign_id: int, session: SessionDep) -> Any:
    """The projection of every regime after each tier (likely values and P10-P90), and every gate's status."""
    return plan_out(plan_of(session, campaign_id=campaign_id))


@router.get("/campaigns/{campaign_id:id}/gates/status", response_model=GatesOut, tags=["plan"])
def get_gates(campaign_id: int, session: SessionDep,
              tier: Annotated[str | None, Query(max_length=20, description="only this tier's gates (its key)")] = None) -> Any:
    """Every gate's status (pass, warn, fail, inconclusive, pending) with its evidence, tier by tier, and the exit
    code `tierplan gates` gives: 0 every hard gate passes, 1 one fails, 3 one is pending or inconclusive."""
    summary = summary_of(plan_of(session, campaign_id=campaign_id), tier_key=tier)
    return GatesOut(campaign_id=campaign_id, exit_code=summary.exit_code(), tiers=list(summary.tiers))


@router.get("/campaigns/{campaign_id:id}/capacity", response_model=CapacityReportOut, tags=["plan"])
def get_capacity(campaign_id: int, session: SessionDep) -> Any:
    """The capacity at the campaign's SLOs: the highest concurrency whose newest runs meet every one, the output
    throughput there, each load point, and the capacity projected after each tier (null without SLOs)."""
    plan = plan_of(session, campaign_id=campaign_id)
    measured = plan.analysis.capacity
    return CapacityReportOut(campaign_id=campaign_id, slos=list(plan.record.slos),
                             measured=capacity_out(measured) if measured else None,
                             tiers=[capacity_out(t) for t in plan.analysis.tier_capacities])


@router.get("/campaigns/{campaign_id:id}/regressions", response_model=RegressionsOut, tags=["plan"])
def get_regressions(
    campaign_id: int, session: SessionDep,
    regime: Annotated[str | None, Query(max_length=100, description="only this regime's histories")] = None,
    metric: Annotated[str | None, Query(max_length=50, description="only this metric's histories")] = None,
    min_samples: Annotated[int, Query(ge=2, le=1000, description="runs each side of a change")] = MIN_SAMPLES,
    min_change_pct: Annotated[float | None, Query(gt=0, le=1000, description=(
        "smallest change reported, % (default 5, 20 for std_* metrics)"))] = None,
) -> Any:
    """Steps up or down in every regime's history of every metric (rank-based binary segmentation), each with the
    first run after it and the size of the change with its 90% interval; exit_code as `tierplan regressions`."""
    series = searched_out(changes_in(session, campaign_id, regime=regime, metric=metric, min_samples=min_samples,
                            min_change=None if min_change_pct is None else min_change_pct / 100))
    return RegressionsOut(campaign_id=campaign_id, exit_code=regressions_exit(series), series=series)


@router.post("/campaigns/{campaign_id:id}/measurements", status_code=201, response_model=MeasurementPublic,
             tags=["measurements"])
def post_measurement(request: Request, campaign_id: int, body: MeasurementCreate, sessions: SessionsDep, now: NowDep,
                     key: Annotated[str | None, Header(alias="Idempotency-Key", description=(
                         "8-64 letters, digits or dashes, new for each measurement: a retry with the same key "
                         "stores nothing and answers with the first"))] = None) -> Any:
    """Record a measurement of a regime: what it includes, and whether it is a baseline or a gate check.

    422 with a message per field when invalid, nothing stored; when the only problems are warnings (above the
    hardware ceiling, more than 10x the current baseline, a baseline passing a gate without the tier's work),
    the 422 says `confirmable: true` and the same body with `confirm: true` records it. A 201 means it is
    stored; a 503 (the database too busy) means it is not.
    """
    recorded = record_measurement(sessions, campaign_id, body, now=now, source="api",
                                  idempotency_key=idempotency_key(key), by=user_of(request), with_plan=False)
    return recorded.measurement


@router.post("/campaigns/{campaign_id:id}/measurements/{measurement_id:id}/retract", response_model=MeasurementPublic,
             tags=["measurements"])
def retract(campaign_id: int, measurement_id: int, body: RetractionCreate, sessions: SessionsDep,
            now: NowDep) -> MeasurementPublic:
    """Retract a measurement with a reason: it stays in the history and no baseline, gate or calibration uses it."""
    return retract_measurement(sessions, campaign_id, measurement_id, body, now=now)


@router.post("/campaigns/{campaign_id:id}/measurements/{measurement_id:id}/calibration",
             response_model=MeasurementPublic, tags=["measurements"])
def leave_out(campaign_id: int, measurement_id: int, body: LeaveOutCreate, sessions: SessionsDep,
              now: NowDep) -> MeasurementPublic:
    """Leave a run out of calibration with a reason (a blank reason counts it again): the measured changes it is
    part of stop moving the bias and the bands, and say why; it stays a baseline or gate check."""
    return leave_out_of_calibration(sessions, campaign_id, measurement_id, body, now=now)


@router.get("/campaigns/{campaign_id:id}/snapshots", response_model=list[Snapshot], tags=["plan"])
def list_snapshots(
    request: Request, response: Response, campaign_id: int, _campaign: CampaignDep, session: SessionDep,
    limit: Annotated[int, Query(ge=1, le=1000, description="snapshots a page")] = 100,
    after: Annotated[int | None, Query(ge=1, le=INT32_MAX, description=(
        "the id of the last snapshot of the previous page: this page holds the ones after it"))] = None,
) -> Any:
    """The plan's history a page at a time, oldest first: after each measurement, import and edit, what it was
    (`cause`) and the figures it left (per regime baseline, target, ceiling, and each tier's projection with
    P10-P50-P90 and P(target), to 4 significant figures). When there are more, the `Link` header names the next
    page (`rel="next"`)."""
    found = snapshots.history_of(session, campaign_id, after=after, limit=limit + 1)
    if len(found) > limit:
        found = found[:limit]
        response.headers["Link"] = f'<{request.url.include_query_params(after=found[-1].id)}>; rel="next"'
    return found


@router.get("/campaigns/{campaign_id:id}/measurements", response_model=list[MeasurementPublic], tags=["measurements"])
def list_measurements(
    request: Request, response: Response, campaign_id: int, _campaign: CampaignDep, session: SessionDep,
    limit: Annotated[int, Query(ge=1, le=runs.MAX_PAGE_RUNS, description="runs a page")] = 100,
    before: Annotated[int | None, Query(ge=1, le=INT32_MAX, description=(
        "the id of the last run of the previous page: this page holds the runs older than it"))] = None,
    regime: Annotated[str | None, Query(max_length=100, description="only this regime's runs")] = None,
    metric: Annotated[str | None, Query(max_length=50, description="only this metric's runs")] = None,
    since: Annotated[date | None, Query(description="only runs measured on or after this day (UTC)")] = None,
    until: Annotated[date | None, Query(description="only runs measured on or before this day (UTC)")] = None,
) -> Any:
    """The campaign's measurements a page at a time, newest first, retracted ones included (with who, when and
    why). When there are more, the `Link` header names the next page (`rel="next"`): the same query with `before`
    set to the last run of this one."""
    query = validated(HistoryQuery, {"metric": metric or "", "since": since, "until": until, "before": before})
    page = runs.runs_page(session, campaign_id, regime=regime, query=query, limit=limit)
    if page.next_before is not None:
        response.headers["Link"] = f'<{request.url.include_query_params(before=page.next_before)}>; rel="next"'
    return page.runs

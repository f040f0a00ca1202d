"""The JSON API under /api: the same services as the pages."""

from __future__ import annotations

from datetime import datetime

from fastapi import APIRouter
from pydantic import BaseModel

from app.db.tables import CampaignPublic, MeasurementPublic
from app.services import campaigns as campaign_service
from app.services.measurements import record_measurement
from app.services.report import build_plan
from app.web.deps import NowDep, SessionDep

router = APIRouter(prefix="/api", tags=["api"])


class TierProjection(BaseModel):
    tier: str
    tok_s: float | None
    gain: float
    step_ms: float | None
    bottleneck: str
    verdict: str


class RegimePlan(BaseModel):
    name: str
    concurrency: int
    baseline_tok_s: float | None
    target_tok_s: float
    projections: list[TierProjection]
    verdict: str
    reaches_target: bool | None
    notes: list[str]


class GateStatusOut(BaseModel):
    tier: str
    regime: str
    metric: str
    comparator: str
    threshold: float
    status: str
    evidence_value: float | None
    evidence_measured_at: datetime | None


class PlanOut(BaseModel):
    campaign_id: int
    name: str
    regimes: list[RegimePlan]
    gates: list[GateStatusOut]


class MeasurementIn(BaseModel):
    regime: str
    metric: str
    value: float | str
    note: str = ""
    measured_at: datetime | None = None


@router.get("/campaigns", response_model=list[CampaignPublic])
def list_campaigns(session: SessionDep):
    """All campaigns, newest first."""
    return [CampaignPublic.model_validate(c, from_attributes=True) for c in campaign_service.list_campaigns(session)]


@router.get("/campaigns/{campaign_id}/plan", response_model=PlanOut)
def get_plan(campaign_id: int, session: SessionDep):
    """The projection of every regime after each tier (likely values), and every gate's status."""
    plan = build_plan(session, campaign_id)
    regimes = []
    for projection in plan.projections:
        final = projection.final
        regimes.append(
            RegimePlan(
                name=projection.regime,
                concurrency=next(r.concurrency for r in plan.regimes if r.name == projection.regime),
                baseline_tok_s=projection.baseline.tok_s,
                target_tok_s=projection.target_tok_s,
                projections=[
                    TierProjection(tier=s.tier_key, tok_s=s.tok_s, gain=s.gain, step_ms=s.step_ms,
                                   bottleneck=s.bottleneck, verdict=s.verdict.text)
                    for s in projection.steps
                ],
                verdict=final.verdict.text,
                reaches_target=final.verdict.reaches,
                notes=list(projection.notes),
            )
        )
    gates = [
        GateStatusOut(
            tier=r.gate.tier_key, regime=r.gate.regime, metric=r.gate.metric, comparator=r.gate.comparator.value,
            threshold=r.gate.threshold, status=r.status.value,
            evidence_value=r.evidence.value if r.evidence else None,
            evidence_measured_at=r.evidence.measured_at if r.evidence else None,
        )
        for r in plan.gate_results
    ]
    return PlanOut(campaign_id=plan.campaign_id, name=plan.name, regimes=regimes, gates=gates)


@router.post("/campaigns/{campaign_id}/measurements", status_code=201, response_model=MeasurementPublic)
def post_measurement(campaign_id: int, body: MeasurementIn, session: SessionDep, now: NowDep):
    """Record a measurement of a regime (422 with a message per field when invalid; nothing stored)."""
    campaign_service.get_campaign(session, campaign_id)
    data = body.model_dump()
    if body.measured_at is not None:
        data["measured_at"] = body.measured_at.isoformat()
    measurement = record_measurement(session, campaign_id, data, now=now, source="api")
    return MeasurementPublic(regime=body.regime, **measurement.model_dump(exclude={"regime_id"}))

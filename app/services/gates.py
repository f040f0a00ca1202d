"""What CI reads of a campaign: every tier's gates judged on the stored runs."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from sqlmodel import Session

from app.services.errors import NotFound
from app.services.plan import Plan, plan_of
from app.views.gates import GateSummary, gate_summary


def summary_of(plan: Plan, *, tier_key: str | None = None,
               touched: Mapping[tuple[str, str], tuple[datetime, datetime]] | None = None) -> GateSummary:
    """The plan's gates tier by tier: only `tier_key`'s when given; with `touched` (regime, metric -> the first and
    last time of the new runs), only the gates whose samples hold a run of those times: the gates the new data
    decided. NotFound for a tier the campaign does not have."""
    tiers = plan.analysis.campaign.tiers
    if tier_key is not None and tier_key not in {t.key for t in tiers}:
        raise NotFound(f"campaign {plan.campaign_id} has no tier {tier_key!r} (it has {', '.join(t.key for t in tiers)})")
    summary = gate_summary(tiers, plan.analysis.gate_results, {t.key: t.name for t in plan.record.tiers},
                           [g.id for g in plan.record.gates], tier_key)
    if touched is None:
        return summary
    def decided(gate) -> bool:
        span = touched.get((gate.regime, gate.metric))
        return span is not None and any(span[0] <= s.measured_at <= span[1] for s in gate.samples)

    return summary.only(decided)


def gates_of(session: Session, campaign_id: int, *, tier_key: str | None = None) -> GateSummary:
    """Every gate of the campaign (or of one tier) with its status and evidence; NotFound for no such campaign."""
    return summary_of(plan_of(session, campaign_id=campaign_id), tier_key=tier_key)

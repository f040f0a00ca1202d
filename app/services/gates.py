"""What CI reads of a campaign: every tier's gates judged on the stored runs, and the changes in its histories."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlmodel import Session

from app.planning.regressions import MIN_SAMPLES, find_changes
from app.services.errors import NotFound
from app.services.plan import Plan, plan_of
from app.views.gates import GateSummary, gate_summary
from app.views.regressions import SeriesOut, series_out


def summary_of(plan: Plan, *, tier_key: str | None = None,
               touched: Iterable[tuple[str, str, datetime]] | None = None) -> GateSummary:
    """The plan's gates tier by tier: only `tier_key`'s when given; with `touched` (regime, metric, measured at of
    new runs), only the gates those runs are among the samples of: the gates the new data decided. NotFound for a
    tier the campaign does not have."""
    tiers = plan.analysis.campaign.tiers
    if tier_key is not None and tier_key not in {t.key for t in tiers}:
        raise NotFound(f"campaign {plan.campaign_id} has no tier {tier_key!r} (it has {', '.join(t.key for t in tiers)})")
    summary = gate_summary(tiers, plan.analysis.gate_results, {t.key: t.name for t in plan.record.tiers},
                           [g.id for g in plan.record.gates], tier_key)
    if touched is None:
        return summary
    wanted = set(touched)
    return summary.only(lambda g: any((g.regime, g.metric, s.measured_at) in wanted for s in g.samples))


def gates_of(session: Session, campaign_id: int, *, tier_key: str | None = None) -> GateSummary:
    """Every gate of the campaign (or of one tier) with its status and evidence; NotFound for no such campaign."""
    return summary_of(plan_of(session, campaign_id=campaign_id), tier_key=tier_key)


def changes_in(plan: Plan, *, regime: str | None = None, metric: str | None = None, min_samples: int = MIN_SAMPLES,
               min_change: float | None = None) -> list[SeriesOut]:
    """The changes in the plan's histories (one regime's, one metric's when given)."""
    runs = [m for m in plan.analysis.campaign.measurements
            if (regime is None or m.regime == regime) and (metric is None or m.metric == metric)]
    return [series_out(s) for s in find_changes(runs, min_samples=min_samples, min_change=min_change)]


def regressions_of(session: Session, campaign_id: int, *, regime: str | None = None, metric: str | None = None,
                   min_samples: int = MIN_SAMPLES, min_change: float | None = None) -> list[SeriesOut]:
    """The changes in every history of the campaign (or one regime's, one metric's); NotFound for no such
    campaign or regime."""
    plan = plan_of(session, campaign_id=campaign_id)
    names = {r.name for r in plan.analysis.campaign.regimes}
    if regime is not None and regime not in names:
        raise NotFound(f"campaign {campaign_id} has no regime {regime!r}")
    return changes_in(plan, regime=regime, metric=metric, min_samples=min_samples, min_change=min_change)

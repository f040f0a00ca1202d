"""The editors of the plan's own rows: regimes, tiers, interventions (with their prerequisites), gates,
service-level objectives and the campaign; how each stores checked values and which checks need the database.
Effects and profiles have theirs in editing_effects.py and profiles.py."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlmodel import Session

from tierplan.db import links, repo
from tierplan.db.tables import Campaign, Gate, Intervention, Regime, Slo, Tier, pk
from tierplan.models import plan_rows as m
from tierplan.models.errors import AgainstCampaign
from tierplan.models.fields import Options
from tierplan.planning import model as core
from tierplan.planning.model import Comparator, PlanningError, Severity, Status, ThreePoint
from tierplan.planning.stats import Aggregation
from tierplan.services.editing import Applied, Editor, _set, _unique
from tierplan.services.row_labels import gate_label, slo_label


def _own_campaign(session: Session, row: Any) -> int:
    return int(row.campaign_id)


def _tier_options(session: Session, campaign_id: int) -> tuple[tuple[str, str], ...]:
    return tuple((str(t.id), f"{t.key}: {t.name}") for t in repo.tiers_of(session, campaign_id=campaign_id))


def _regime_options(session: Session, campaign_id: int) -> tuple[tuple[str, str], ...]:
    return tuple((str(r.id), r.name) for r in repo.regimes_of(session, campaign_id=campaign_id))


def _intervention_options(session: Session, campaign_id: int) -> tuple[tuple[str, str], ...]:
    interventions = repo.interventions_of(session, campaign_id=campaign_id)
    return tuple((str(i.id), f"{i.key}: {i.title}") for i in interventions)


# regimes

def _regime_apply(session: Session, campaign_id: int, row: Any, values: dict[str, Any], now: datetime) -> Applied:
    row = row or Regime(campaign_id=campaign_id, name="", concurrency=1, input_tokens=1, output_tokens=1,
                        target_tok_s=1)
    errors = _unique(session, Regime, campaign_id, row if row.id else None, "name", values["name"], "regime")
    _set(row, values, tuple(m.RegimeCreate.model_fields))
    return row, errors


# tiers

def _tier_apply(session: Session, campaign_id: int, row: Any, values: dict[str, Any], now: datetime) -> Applied:
    row = row or Tier(campaign_id=campaign_id, key="", name="")
    errors = _unique(session, Tier, campaign_id, row if row.id else None, "key", values["key"], "tier")
    _set(row, values, tuple(m.TierCreate.model_fields))
    return row, errors


# interventions

def _intervention_options_of(session: Session, campaign_id: int) -> Options:
    return {"tier_id": _tier_options(session, campaign_id),
            "prerequisite_ids": _intervention_options(session, campaign_id)}


def _intervention_current(session: Session, row: Intervention) -> dict[str, Any]:
    return {"prerequisite_ids": repo.prerequisites_of(session, intervention_ids=[pk(row)])[pk(row)]}


def _intervention_apply(session: Session, campaign_id: int, row: Any, values: dict[str, Any], now: datetime) -> Applied:
    row = row or Intervention(campaign_id=campaign_id, key="", title="", effort_low_days=0,
                              effort_likely_days=0, effort_high_days=0)
    errors = _unique(session, Intervention, campaign_id, row if row.id else None, "key", values["key"],
                     "intervention")
    try:  # the core's rule for an estimate
        ThreePoint.of("effort_days", values["effort_low_days"], values["effort_likely_days"], values["effort_high_days"])
    except PlanningError as exc:
        errors["effort_likely_days"] = str(exc)
    required = values.pop("prerequisite_ids")
    _set(row, values, tuple(values))
    if row.landed_at is None and row.status in (Status.LANDED.value, Status.VALIDATED.value):
        row.landed_at = now
    if row.id is not None and row.id in required:
        errors["prerequisite_ids"] = AgainstCampaign("an intervention cannot need itself")
    elif row.id is not None and _creates_cycle(session, row.id, required):
        errors["prerequisite_ids"] = AgainstCampaign(
            "that would make a cycle: one of these already needs this intervention")
    if errors:
        return row, errors
    session.add(row)
    session.flush()
    links.replace_prerequisites(session, intervention_id=row.id, required_ids=required)
    return row, errors


def _creates_cycle(session: Session, intervention_id: int, required: list[int]) -> bool:
    """True when some required intervention already needs `intervention_id`, directly or not."""
    seen, stack = set(), list(required)
    while stack:
        current = stack.pop()
        if current == intervention_id:
            return True
        if current in seen:
            continue
        seen.add(current)
        stack.extend(repo.prerequisites_of(session, intervention_ids=[current])[current])
    return False


# gates

def _gate_apply(session: Session, campaign_id: int, row: Any, values: dict[str, Any], now: datetime) -> Applied:
    """The core's Gate checks the combination of fields (a threshold or a change; runs enough for the window)."""
    errors = {}
    try:
        core.Gate("", "", values["metric"], Comparator(values["comparator"]), threshold=values["threshold"],
                  relative_pct=values["relative_pct"], aggregation=Aggregation(values["aggregation"]),
                  window=values["window"], min_samples=values["min_samples"], severity=Severity(values["severity"]))
    except PlanningError as exc:
        errors[exc.field or "threshold"] = str(exc)
    row = row or Gate(tier_id=0, regime_id=0, metric="")
    _set(row, values, tuple(m.GateCreate.model_fields))
    return row, errors


def _campaign_of_gate(session: Session, gate: Gate) -> int:
    tier = session.get(Tier, gate.tier_id)
    return tier.campaign_id if tier is not None else -1


# service-level objectives

def _slo_apply(session: Session, campaign_id: int, row: Any, values: dict[str, Any], now: datetime) -> Applied:
    row = row or Slo(campaign_id=campaign_id, metric="", threshold=0)
    _set(row, values, tuple(m.SloCreate.model_fields))
    return row, {}


# the campaign itself

def _campaign_apply(session: Session, campaign_id: int, row: Any, values: dict[str, Any], now: datetime) -> Applied:
    row = row or Campaign(name="", created_at=now)
    _set(row, values, tuple(values))
    return row, {}


REGIME_EDITOR = (Editor("regimes", "regime", Regime, m.RegimeCreate, m.RegimeUpdate, m.RegimePublic, _regime_apply,
                _own_campaign))
TIER_EDITOR = (Editor("tiers", "tier", Tier, m.TierCreate, m.TierUpdate, m.TierPublic, _tier_apply, _own_campaign))
INTERVENTION_EDITOR = (Editor("interventions", "intervention", Intervention, m.InterventionCreate, m.InterventionUpdate,
                m.InterventionPublic, _intervention_apply, _own_campaign, options=_intervention_options_of,
                current=_intervention_current, own_rows="prerequisite_ids"))
GATE_EDITOR = (Editor("gates", "gate", Gate, m.GateCreate, m.GateUpdate, m.GatePublic, _gate_apply, _campaign_of_gate,
                options=lambda s, c: {"tier_id": _tier_options(s, c), "regime_id": _regime_options(s, c),
                                      "reference_regime_id": _regime_options(s, c), "metric": m.METRIC_OPTIONS},
                label=gate_label))
SLO_EDITOR = (Editor("slos", "service-level objective", Slo, m.SloCreate, m.SloUpdate, m.SloPublic, _slo_apply,
               _own_campaign, options=lambda s, c: {"metric": m.SLO_METRIC_OPTIONS}, label=slo_label))
CAMPAIGN_EDITOR = (Editor("campaign", "campaign", Campaign, m.CampaignSettings, m.CampaignUpdate, m.CampaignPublic,
                _campaign_apply, lambda session, row: row.id, deletable=True))

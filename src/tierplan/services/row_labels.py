"""How the change log and the plan's history name a row that has no key or name of its own: a gate ("gate of
tier A on batch 1 (output throughput >= 40.0 tok/s)"), an objective, an effect ("effect of A1 (bucket on
attention)"). The conditions are written as the plan page writes them."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from tierplan.db.mappers import to_core_gate
from tierplan.db.tables import Intervention, Regime, Tier
from tierplan.text.conditions import gate_condition, slo_text


def gate_label(session: Session, gate: Any) -> str:
    tier = session.get(Tier, gate.tier_id)
    regimes = {r: session.get(Regime, r) for r in (gate.regime_id, gate.reference_regime_id) if r}
    names = {r: row.name for r, row in regimes.items() if row is not None}
    if tier is None or gate.regime_id not in names:
        return ""
    core = to_core_gate(gate, {gate.tier_id: tier.key}, names)
    return f"of tier {tier.key} on {core.regime} ({gate_condition(core)})"


def slo_label(session: Session, slo: Any) -> str:
    return slo_text(slo)


def effect_label(session: Session, effect: Any) -> str:
    intervention = session.get(Intervention, effect.intervention_id)
    on = f" on {effect.bucket}" if effect.bucket else ""
    return f"of {intervention.key} ({effect.kind.replace('_', ' ')}{on})" if intervention else ""

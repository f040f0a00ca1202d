"""A regime's measurement history as the regime page and the retraction form show it."""

from __future__ import annotations

from dataclasses import dataclass

from app.models.measurements import MeasurementPublic
from app.services.records import PlanRecord
from app.views.formatting import measured, timestamp


@dataclass(frozen=True)
class HistoryRow:
    id: int
    measured_at: str
    metric: str
    value: str
    unit: str
    provenance: str
    source: str
    note: str
    kind: str
    includes: str  # "A1, A2" or "none"
    confirmed: str
    recorded_by: str  # "by ana", or "" in single-user mode
    retracted: bool
    retraction: str  # "retracted 2026-12-01 10:00 UTC by ana: typo", or ""


def history_row(m: MeasurementPublic) -> HistoryRow:
    retraction = f"retracted {timestamp(m.retracted_at)} by {m.retracted_by}: {m.retraction_reason}" if m.retracted_at else ""
    return HistoryRow(id=m.id, measured_at=timestamp(m.measured_at), metric=m.metric, value=measured(m.value),
                      unit=m.unit, provenance=m.provenance, source=m.source, note=m.note, kind=m.kind,
                      includes=", ".join(m.includes) or "none", confirmed=m.confirmed,
                      recorded_by=f"by {m.recorded_by}" if m.recorded_by else "",
                      retracted=m.retracted_at is not None, retraction=retraction)


def history_view(record: PlanRecord, regime: str) -> list[HistoryRow]:
    """Every measurement of the regime, newest first, retracted ones struck through."""
    return [history_row(m) for m in record.measurements if m.regime == regime]

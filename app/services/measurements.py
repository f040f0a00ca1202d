"""Recording measurements; history is kept, nothing is overwritten."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlmodel import Session

from app.db import repo
from app.db.tables import Measurement, Regime
from app.planning.metrics import METRICS
from app.services.errors import FormInvalid
from app.services.forms import Field, raw_values, validate

METRIC_OPTIONS = tuple((m.name, f"{m.name} ({m.unit})") for m in METRICS.values())


def measurement_fields(regimes: list[Regime]) -> tuple[Field, ...]:
    return (
        Field("regime", "Regime", kind="select", options=tuple((r.name, r.name) for r in regimes)),
        Field("metric", "Metric", kind="select", options=METRIC_OPTIONS),
        Field("value", "Value", kind="float", minimum=0, exclusive_minimum=True, placeholder="e.g. 45.2"),
        Field("measured_at", "Measured at (UTC)", kind="datetime", required=False, help="blank: now"),
        Field("note", "Note", required=False, max_length=2000, placeholder="configuration, commit, flags"),
    )


def record_measurement(
    session: Session, campaign_id: int, data: Mapping[str, Any], *, now: datetime, source: str = "form"
) -> Measurement:
    """Validate and store one measurement of a regime of the campaign; FormInvalid writes nothing."""
    regimes = repo.regimes_of(session, campaign_id=campaign_id)
    fields = measurement_fields(regimes)
    raw = raw_values(fields, data)
    values, errors = validate(fields, raw)
    if "regime" in errors and raw.get("regime"):
        errors["regime"] = f"unknown regime {raw['regime']!r}; this campaign has: " + ", ".join(
            r.name for r in regimes
        )
    if errors:
        raise FormInvalid(errors)
    regime = next(r for r in regimes if r.name == values["regime"])
    measurement = Measurement(
        regime_id=regime.id,
        metric=values["metric"],
        value=values["value"],
        unit=METRICS[values["metric"]].unit,
        measured_at=values["measured_at"] or now,
        provenance="measured",
        source=source,
        note=values["note"] or "",
    )
    session.add(measurement)
    session.commit()
    session.refresh(measurement)
    return measurement

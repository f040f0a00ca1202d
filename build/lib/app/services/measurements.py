"""Recording measurements and retracting them; history is kept, nothing is overwritten or deleted."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlmodel import Session

from app.db import repo
from app.db.tables import Intervention, Measurement, MeasurementInclude
from app.planning.checks import Problem, Reading, check_reading, value_errors
from app.planning.metrics import METRICS
from app.planning.model import MeasurementKind, Status
from app.services.analysis import core_campaign
from app.services.errors import FormInvalid, NotFound
from app.services.forms import Field, raw_values, validate

METRIC_OPTIONS = tuple((m.name, f"{m.name} ({m.unit})") for m in METRICS.values())
KIND_OPTIONS = (("baseline", "baseline: the projection starts from it"),
                ("gate check", "gate check: judges gates, leaves the baseline as it is"))
CONFIRM = Field("confirm", "Record it anyway: I checked the values flagged above", kind="checkbox", required=False)
RETRACT_FIELDS = (
    Field("reason", "Why it is wrong", kind="textarea", max_length=2000, placeholder="wrong unit, debug build, ..."),
    Field("by", "Your name", max_length=200),
)


def measurement_fields(regimes, interventions) -> tuple[Field, ...]:
    return (
        Field("regime", "Regime", kind="select", options=tuple((r.name, r.name) for r in regimes)),
        Field("metric", "Metric", kind="select", options=METRIC_OPTIONS),
        Field("value", "Value", kind="float", placeholder="e.g. 45.2"),
        Field("kind", "Recorded as", kind="select", options=KIND_OPTIONS),
        Field("includes", "Taken with", kind="multiselect", required=False,
              options=tuple((i.key, f"{i.key}: {i.title}") for i in interventions),
              help="the interventions in place when it was measured; the projection applies only the others"),
        Field("measured_at", "Measured at (UTC)", kind="datetime", required=False, help="blank: now"),
        Field("note", "Note", required=False, max_length=2000, placeholder="configuration, commit, flags"),
    )


def default_includes(interventions: list[Intervention], measured_at: datetime) -> list[str]:
    """What a measurement taken at `measured_at` includes unless told otherwise: the work landed or validated by then."""
    return [
        i.key for i in interventions
        if i.status in (Status.LANDED.value, Status.VALIDATED.value) and (i.landed_at is None or i.landed_at <= measured_at)
    ]


def measurement_defaults(interventions: list[Intervention], now: datetime) -> dict[str, Any]:
    """The form's starting values."""
    return {"metric": "output_tok_s", "kind": "baseline", "includes": default_includes(interventions, now)}


def problems_of(session: Session, campaign_id: int, readings: list[Reading], *, now: datetime) -> list[list[Problem]]:
    """The checks of the core for each reading, against the campaign as stored."""
    rows = repo.load_campaign(session, campaign_id=campaign_id)
    if rows is None:
        raise NotFound(f"no campaign {campaign_id}")
    campaign, _, _ = core_campaign(rows)
    return [check_reading(r, campaign, now=now) for r in readings]


def raise_for(problems: list[Problem], confirmed: bool) -> str:
    """FormInvalid for errors, or for warnings not confirmed; the confirmed warnings' text otherwise."""
    errors = [p for p in problems if not p.confirmable]
    if errors:
        raise FormInvalid(_by_field(errors))
    if problems and not confirmed:
        raise FormInvalid(_by_field(problems), confirmable=True)
    return "; ".join(p.message for p in problems)


def _by_field(problems: list[Problem]) -> dict[str, str]:
    out: dict[str, str] = {}
    for p in problems:
        out[p.field] = f"{out[p.field]} {p.message}" if p.field in out else p.message
    return out


def record_measurement(
    session: Session, campaign_id: int, data: Mapping[str, Any], *, now: datetime, source: str = "form"
) -> Measurement:
    """Validate and store one measurement with what it includes; FormInvalid writes nothing."""
    regimes = repo.regimes_of(session, campaign_id=campaign_id)
    interventions = repo.interventions_of(session, campaign_id=campaign_id)
    fields = measurement_fields(regimes, interventions) + (CONFIRM,)
    raw = raw_values(fields, data)
    raw["kind"] = raw["kind"] or MeasurementKind.BASELINE.value
    values, errors = validate(fields, raw)
    if "regime" in errors and raw.get("regime"):
        errors["regime"] = f"unknown regime {raw['regime']!r}; this campaign has: " + ", ".join(r.name for r in regimes)
    if "includes" in errors:
        errors["includes"] += "; this campaign's interventions are " + ", ".join(i.key for i in interventions)
    if errors:
        if values.get("value") is not None and values.get("metric"):  # say what is wrong with the value too
            own = value_errors(Reading("", values["metric"], values["value"], values.get("measured_at") or now), now)
            errors |= {p.field: p.message for p in own if p.field not in errors}
        raise FormInvalid(errors)
    measured_at = values["measured_at"] or now
    given = data.get("includes_given") or (not hasattr(data, "getlist") and data.get("includes") is not None)
    includes = values["includes"] if given else default_includes(interventions, measured_at)
    reading = Reading(values["regime"], values["metric"], values["value"], measured_at,
                      MeasurementKind(values["kind"]), frozenset(includes))
    confirmed = raise_for(problems_of(session, campaign_id, [reading], now=now)[0], values["confirm"])
    regime = next(r for r in regimes if r.name == values["regime"])
    measurement = Measurement(
        regime_id=regime.id, metric=values["metric"], value=values["value"], unit=METRICS[values["metric"]].unit,
        measured_at=measured_at, provenance="measured", source=source, note=values["note"] or "",
        kind=values["kind"], confirmed=confirmed,
    )
    session.add(measurement)
    session.flush()
    by_key = {i.key: i.id for i in interventions}
    session.add_all(MeasurementInclude(measurement_id=measurement.id, intervention_id=by_key[k]) for k in includes)
    session.commit()
    session.refresh(measurement)
    return measurement


def retract_measurement(
    session: Session, campaign_id: int, measurement_id: int, data: Mapping[str, Any], *, now: datetime
) -> Measurement:
    """Mark a measurement retracted, with who and why; it stays in the history and nothing uses it again."""
    measurement = repo.measurement_in(session, campaign_id=campaign_id, measurement_id=measurement_id)
    if measurement is None:
        raise NotFound(f"no measurement {measurement_id} in campaign {campaign_id}")
    values, errors = validate(RETRACT_FIELDS, raw_values(RETRACT_FIELDS, data))
    if measurement.retracted_at is not None:
        errors["reason"] = (f"already retracted on {measurement.retracted_at:%Y-%m-%d %H:%M} UTC by "
                            f"{measurement.retracted_by}: {measurement.retraction_reason}")
    if errors:
        raise FormInvalid(errors)
    measurement.retracted_at, measurement.retracted_by = now, values["by"]
    measurement.retraction_reason = values["reason"]
    session.add(measurement)
    session.commit()
    session.refresh(measurement)
    return measurement

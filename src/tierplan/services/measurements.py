"""Recording measurements and retracting them; history is kept, nothing is overwritten or deleted."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from tierplan.db import history, links, repo
from tierplan.db import snapshots as snapshot_rows
from tierplan.db.engine import Sessions
from tierplan.db.repo import CampaignRows
from tierplan.db.tables import Intervention, Measurement, MeasurementInclude, Regime, Submission, pk
from tierplan.models.errors import Conflicting, FormInvalid, NotFound
from tierplan.models.fields import Options, check_options, form_fields, parse_form
from tierplan.models.forms import Field
from tierplan.models.measurements import LeaveOutCreate, MeasurementCreate, MeasurementPublic, RetractionCreate
from tierplan.models.plan_rows import METRIC_OPTIONS, InterventionPublic
from tierplan.planning.checks import Problem, Reading, check_readings, value_errors
from tierplan.planning.metrics import METRICS
from tierplan.planning.model import Status
from tierplan.services import runs, snapshots
from tierplan.services.analysis import core_campaign
from tierplan.services.plan import Plan, plan_of
from tierplan.services.snapshots import keep_snapshot, measurement_cause

MEASUREMENT_FIELDS = form_fields(MeasurementCreate)
CONFIRM = next(f for f in MEASUREMENT_FIELDS if f.name == "confirm")
RETRACT_FIELDS = form_fields(RetractionCreate)
log = logging.getLogger(__name__)


def measurement_options(regimes: Iterable[Any], interventions: Iterable[Any]) -> Options:
    return {"regime": tuple((r.name, r.name) for r in regimes), "metric": METRIC_OPTIONS,
            "includes": tuple((i.key, f"{i.key}: {i.title}") for i in interventions)}


def measurement_fields(regimes: Iterable[Any], interventions: Iterable[Any]) -> tuple[Field, ...]:
    """The measurement form's fields (the confirm box shows only when a warning asks for it)."""
    return tuple(f for f in form_fields(MeasurementCreate, measurement_options(regimes, interventions))
                 if f.name != "confirm")


def default_includes(interventions: Sequence[Intervention | InterventionPublic], measured_at: datetime) -> list[str]:
    """What a measurement taken at `measured_at` includes unless told otherwise: the work landed or validated by then."""
    return [
        i.key for i in interventions
        if i.status in (Status.LANDED.value, Status.VALIDATED.value) and (i.landed_at is None or i.landed_at <= measured_at)
    ]


def measurement_defaults(interventions: Sequence[Intervention | InterventionPublic], now: datetime) -> dict[str, Any]:
    """The form's starting values."""
    return {"metric": "output_tok_s", "kind": "baseline", "includes": default_includes(interventions, now)}


def problems_of(rows: CampaignRows, readings: list[Reading], *, now: datetime) -> list[list[Problem]]:
    """The checks of the core for each reading, against the campaign as loaded."""
    campaign, _, _ = core_campaign(rows)
    return check_readings(readings, campaign, now=now)


def load_rows(session: Session, campaign_id: int) -> CampaignRows:
    """The campaign's rows and the runs of its history the planner needs, loaded once; NotFound if there is no
    such campaign."""
    rows = repo.load_campaign(session, campaign_id=campaign_id)
    if rows is None:
        raise NotFound(f"no campaign {campaign_id}")
    return rows


def raise_for(problems: list[Problem], confirmed: bool, reading: Reading, now: datetime) -> str:
    """FormInvalid for an error of the reading itself (a value its metric cannot take); Conflicting for an error
    against the campaign or the clock (a date in the future), or for warnings not confirmed; the confirmed
    warnings' text otherwise."""
    errors = [p for p in problems if not p.confirmable]
    own = [p for p in value_errors(reading, now) if p.field == "value"]
    if errors:
        raise (FormInvalid if any(p in own for p in errors) else Conflicting)(_by_field(errors))
    if problems and not confirmed:
        raise Conflicting(_by_field(problems), confirmable=True)
    return "; ".join(p.message for p in problems)


def _by_field(problems: list[Problem]) -> dict[str, str]:
    out: dict[str, str] = {}
    for p in problems:
        out[p.field] = f"{out[p.field]} {p.message}" if p.field in out else p.message
    return out


def parse_measurement_form(data: Mapping[str, Any], *, now: datetime) -> MeasurementCreate:
    """The measurement form's values; its "Taken with" counts only when the form says it showed them."""
    try:
        values = parse_form(MeasurementCreate, data)
    except FormInvalid as exc:
        raise FormInvalid(exc.errors | _value_problems(data, exc.errors, now)) from None
    given = bool(data.get("includes_given"))
    return values if given else values.model_copy(update={"includes": None})


def _value_problems(data: Mapping[str, Any], errors: dict[str, str], now: datetime) -> dict[str, str]:
    """While other fields are wrong, what the core says of the value too (so one round trip shows all)."""
    metric = str(data.get("metric") or "output_tok_s")
    try:
        value = float(str(data.get("value")))
    except ValueError:
        return {}
    if "value" in errors or metric not in METRICS:
        return {}
    return {p.field: p.message for p in value_errors(Reading("", metric, value, now), now) if p.field not in errors}


@dataclass(frozen=True)
class Recorded:
    """What recording a measurement gives back: the run as stored, and the plan it left (None when the plan could
    not be analysed after the commit: the run is saved all the same)."""

    measurement: MeasurementPublic
    plan: Plan | None
    replayed: bool = False  # the idempotency key was seen before: nothing new was stored


def record_measurement(
    sessions: Sessions, campaign_id: int, values: MeasurementCreate, *, now: datetime, source: str = "form",
    rows: CampaignRows | None = None, idempotency_key: str | None = None, by: str = "", with_plan: bool = True,
) -> Recorded:
    """Check and store one measurement with what it includes (form or API); FormInvalid writes nothing.

    Reading the campaign and checking the value happen before the write; the write holds the lock for its own
    rows alone; the plan it leaves is analysed after the commit, once, and kept in the plan's history. Nothing
    after the commit can turn the saved run into an error. `rows`: the campaign as the caller already loaded it.
    `idempotency_key`: the client's key for this submission; the same key again stores nothing and answers with
    what the first stored. `with_plan`: give back the plan it left (a page shows it; the API does not)."""
    if idempotency_key:
        with sessions.reader() as session:
            done = _submitted(session, campaign_id, idempotency_key)
            if done is not None:
                plan = after_change(session, campaign_id) if with_plan else None
                return Recorded(runs.measurement_of(session, campaign_id, pk(done)), plan, replayed=True)
    if rows is None:
        with sessions.reader() as session:
            rows = load_rows(session, campaign_id)
    row, includes = _checked(rows, values, now=now, source=source, by=by)
    cause = measurement_cause(row.metric, row.value, row.unit, values.regime, row.kind)
    with sessions.writer() as session:
        stored, replayed = _store(session, campaign_id, row, includes, idempotency_key, cause, now=now, by=by)
    with sessions.reader() as session:
        upto = snapshot_rows.newest_id(session, campaign_id=campaign_id)
        plan = after_change(session, campaign_id) if with_plan else None
        # the run is the newest of its series, so among the runs the plan read; looked up on its own otherwise
        public = next((m for m in plan.record.measurements if m.id == stored), None) if plan else None
        public = public or runs.measurement_of(session, campaign_id, stored)
    snapshots.settle_soon(sessions, campaign_id, plan.analysis if plan else None, upto if plan else None)
    return Recorded(public, plan, replayed=replayed)


def _checked(rows: CampaignRows, values: MeasurementCreate, *, now: datetime, source: str, by: str
             ) -> tuple[Measurement, list[int]]:
    """The row to store and the ids of what it includes, or FormInvalid with every problem at its field."""
    regimes, interventions = rows.regimes, rows.interventions
    try:
        check_options(values, measurement_options(regimes, interventions))
    except FormInvalid as exc:
        errors = dict(exc.errors)
        if "regime" in errors:
            errors["regime"] = (f"unknown regime {values.regime!r}; this campaign has: "
                                + ", ".join(r.name for r in regimes))
        if "includes" in errors:
            errors["includes"] += "; this campaign's interventions are " + ", ".join(i.key for i in interventions)
        more = _value_problems(values.model_dump(), errors, now)
        kind = Conflicting if isinstance(exc, Conflicting) and not more else FormInvalid
        raise kind(errors | more) from None
    measured_at = values.measured_at or now
    includes = values.includes if values.includes is not None else default_includes(interventions, measured_at)
    reading = Reading(values.regime, values.metric, values.value, measured_at, values.kind, frozenset(includes))
    confirmed = raise_for(problems_of(rows, [reading], now=now)[0], values.confirm, reading, now)
    regime = next(r for r in regimes if r.name == values.regime)
    by_key = {i.key: pk(i) for i in interventions}
    ids = [by_key[k] for k in includes]
    return Measurement(
        regime_id=pk(regime), metric=values.metric, value=values.value, unit=METRICS[values.metric].unit,
        measured_at=measured_at, provenance="measured", source=source, note=values.note,
        kind=values.kind.value, confirmed=confirmed, recorded_by=by, includes_key=history.includes_key(ids),
    ), ids


def _store(session: Session, campaign_id: int, row: Measurement, includes: list[int], key: str | None, cause: str,
           *, now: datetime, by: str) -> tuple[int, bool]:
    """Write the run, its includes, its place in the history's summaries and the plan's history, and commit; the
    id stored, and whether it is the first request's (a request with the same key committed first). Writers of
    one campaign go one at a time from here (on PostgreSQL too): the first runs of a new series, sent at once,
    would otherwise both insert its summary row, and one be refused."""
    links.lock_campaign(session, campaign_id=campaign_id)
    if key:
        done = _submitted(session, campaign_id, key)
        if done is not None:
            return pk(done), True
    session.add(row)
    session.flush()
    session.add_all(MeasurementInclude(measurement_id=pk(row), intervention_id=i) for i in includes)
    history.added(session, [history.Run.of(row)])
    if key:
        session.add(Submission(key=key, kind="measurement", result_id=pk(row), created_at=now))
    keep_snapshot(session, campaign_id, cause, now=now, by=by)
    stored = pk(row)
    try:
        session.commit()
    except IntegrityError:  # the same key committed by a request running alongside: that one's is the answer
        session.rollback()
        done = _submitted(session, campaign_id, key) if key else None
        if done is None:
            raise
        return pk(done), True
    return stored, False


def after_change(session: Session, campaign_id: int) -> Plan | None:
    """The plan as a committed change left it (one bounded analysis); None when it cannot be analysed, which
    never undoes the change."""
    try:
        return plan_of(session, campaign_id=campaign_id)
    except Exception as exc:
        log.warning("campaign %s could not be analysed after a change: %s", campaign_id, exc)
        return None


def _submitted(session: Session, campaign_id: int, key: str) -> Measurement | None:
    """The measurement an earlier request with this key stored, if any (of this campaign: NotFound otherwise)."""
    found = links.submission(session, key=key)
    if found is None or found.kind != "measurement":
        return None
    measurement = repo.measurement_in(session, campaign_id=campaign_id, measurement_id=found.result_id)
    if measurement is None:
        raise NotFound("that idempotency key belongs to another campaign's measurement")
    return measurement


def retract_measurement(
    sessions: Sessions, campaign_id: int, measurement_id: int, values: RetractionCreate, *, now: datetime
) -> MeasurementPublic:
    """Mark a measurement retracted, with who and why; it stays in the history and nothing uses it again. The
    plan it leaves is analysed after the commit."""
    with sessions.writer() as session:
        measurement = repo.measurement_in(session, campaign_id=campaign_id, measurement_id=measurement_id)
        if measurement is None:
            raise NotFound(f"no measurement {measurement_id} in campaign {campaign_id}")
        if measurement.retracted_at is not None:
            raise Conflicting({"reason": f"already retracted on {measurement.retracted_at:%Y-%m-%d %H:%M} UTC by "
                                         f"{measurement.retracted_by}: {measurement.retraction_reason}"})
        measurement.retracted_at, measurement.retracted_by = now, values.by
        measurement.retraction_reason = values.reason
        session.add(measurement)
        session.flush()
        history.retracted(session, measurement)
        regime = session.get(Regime, measurement.regime_id)
        cause = measurement_cause(measurement.metric, measurement.value, measurement.unit,
                                  regime.name if regime else "", measurement.kind)
        keep_snapshot(session, campaign_id, f"retracted: {cause.removeprefix('measured ')}", now=now, by=values.by)
        session.commit()
    snapshots.settle_soon(sessions, campaign_id)
    with sessions.reader() as session:
        return runs.measurement_of(session, campaign_id, measurement_id)


def leave_out_of_calibration(sessions: Sessions, campaign_id: int, measurement_id: int, values: LeaveOutCreate, *,
                             now: datetime) -> MeasurementPublic:
    """Leave a run out of calibration with the team's reason (blank: count it again); it stays a baseline or gate
    check. One commit, in the change log."""
    with sessions.writer() as session:
        measurement = repo.measurement_in(session, campaign_id=campaign_id, measurement_id=measurement_id)
        if measurement is None:
            raise NotFound(f"no measurement {measurement_id} in campaign {campaign_id}")
        if measurement.retracted_at is not None:
            raise Conflicting({"reason": "retracted: nothing counts it already"})
        reason = f"{values.reason.strip()} ({values.by}, {now:%Y-%m-%d})" if values.reason.strip() else ""
        measurement.left_out = reason[:500]
        session.add(measurement)
        session.flush()
        regime = session.get(Regime, measurement.regime_id)
        cause = measurement_cause(measurement.metric, measurement.value, measurement.unit,
                                  regime.name if regime else "", measurement.kind).removeprefix("measured ")
        done = f"left out of calibration: {cause}" if reason else f"counted by calibration again: {cause}"
        keep_snapshot(session, campaign_id, done, now=now, by=values.by)
        session.commit()
    snapshots.settle_soon(sessions, campaign_id)
    with sessions.reader() as session:
        return runs.measurement_of(session, campaign_id, measurement_id)

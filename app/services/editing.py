"""Create and edit forms for the rows of a plan: one Editor per kind of row.

An editor knows its fields (which may depend on the campaign: the regimes
to choose from), the values a row shows in its form, and how to check and
store what comes back. `save` commits once, or raises FormInvalid and
writes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlmodel import Session, SQLModel, select

from app.db import repo
from app.db.tables import Campaign, Gate, Intervention, Prerequisite, Regime, Tier
from app.planning.metrics import METRICS
from app.planning.model import Status
from app.services.errors import FormInvalid, NotFound
from app.services.formatting import datetime_input, plain
from app.services.forms import PROVENANCE_OPTIONS, Field, raw_values, three_point_errors, validate

STATUS_OPTIONS = tuple((s.value, s.value) for s in Status)
COMPARATOR_OPTIONS = ((">=", ">= (at least)"), ("<=", "<= (at most)"))
METRIC_OPTIONS = tuple((m.name, f"{m.name} ({m.unit})") for m in METRICS.values())


@dataclass(frozen=True)
class Editor:
    kind: str  # URL segment: "regimes", "tiers", ...
    noun: str  # "regime", shown in titles
    table: type[SQLModel]
    fields: Callable[[Session, int], tuple[Field, ...]]
    initial: Callable[[Session, SQLModel], dict[str, Any]]
    apply: Callable[[Session, int, SQLModel | None, dict[str, Any]], tuple[SQLModel, dict[str, str]]]
    campaign_of: Callable[[Session, SQLModel], int]


def load_row(session: Session, editor: Editor, campaign_id: int, row_id: int) -> SQLModel:
    """The row, if it exists and belongs to the campaign; NotFound otherwise."""
    row = session.get(editor.table, row_id)
    if row is None or editor.campaign_of(session, row) != campaign_id:
        raise NotFound(f"no {editor.noun} {row_id} in campaign {campaign_id}")
    return row


def save(
    session: Session, editor: Editor, campaign_id: int, row: SQLModel | None, data: Mapping[str, Any]
) -> SQLModel:
    """Validate `data` and create (row None) or update the row; commits once."""
    fields = editor.fields(session, campaign_id)
    values, errors = validate(fields, raw_values(fields, data))
    if errors:
        raise FormInvalid(errors)
    stored, errors = editor.apply(session, campaign_id, row, values)
    if errors:
        session.rollback()
        raise FormInvalid(errors)
    session.add(stored)
    session.commit()
    session.refresh(stored)
    return stored


def _options(rows, label=lambda r: r.name) -> tuple[tuple[str, str], ...]:
    return tuple((str(r.id), label(r)) for r in rows)


def _set(row: SQLModel, values: dict[str, Any], names: tuple[str, ...], blank: Mapping[str, Any] = {}) -> None:
    for name in names:
        value = values[name]
        setattr(row, name, blank.get(name, value) if value is None else value)


def _unique(session, table, campaign_id, row, column: str, value: str, noun: str) -> dict[str, str]:
    for other in session.exec(_select_by(table, campaign_id, column, value)).all():
        if row is None or other.id != row.id:
            return {column: f"{value!r} is already the {column} of another {noun}"}
    return {}


def _select_by(table, campaign_id, column, value):
    return select(table).where(table.campaign_id == campaign_id, getattr(table, column) == value)


def _start(values: dict[str, Any]) -> datetime | None:
    return values.get("started_at")


# regimes

def _regime_fields(session: Session, campaign_id: int) -> tuple[Field, ...]:
    return (
        Field("name", "Name", max_length=100, placeholder="batch 1"),
        Field("concurrency", "Concurrency", kind="int", minimum=1),
        Field("input_tokens", "Input tokens", kind="int", minimum=1),
        Field("output_tokens", "Output tokens", kind="int", minimum=1),
        Field("workload_provenance", "Workload comes from", kind="select", options=PROVENANCE_OPTIONS),
        Field("target_tok_s", "Target output tok/s", kind="float", minimum=0, exclusive_minimum=True),
        Field("target_provenance", "Target comes from", kind="select", options=PROVENANCE_OPTIONS),
        Field("position", "Position", kind="int", minimum=0, required=False, help="order on the plan page"),
        Field("notes", "Notes", kind="textarea", required=False),
    )


def _regime_initial(session: Session, row: Regime) -> dict[str, Any]:
    return {
        "name": row.name, "concurrency": str(row.concurrency), "input_tokens": str(row.input_tokens),
        "output_tokens": str(row.output_tokens), "workload_provenance": row.workload_provenance,
        "target_tok_s": plain(row.target_tok_s),
        "target_provenance": row.target_provenance, "position": str(row.position), "notes": row.notes,
    }


def _regime_apply(session, campaign_id, row, values):
    row = row or Regime(campaign_id=campaign_id, name="", concurrency=1, input_tokens=1, output_tokens=1, target_tok_s=1)
    errors = _unique(session, Regime, campaign_id, row if row.id else None, "name", values["name"], "regime")
    _set(row, values, ("name", "concurrency", "input_tokens", "output_tokens", "workload_provenance", "target_tok_s",
                       "target_provenance", "position", "notes"), {"position": 0, "notes": ""})
    return row, errors


# tiers

def _tier_fields(session: Session, campaign_id: int) -> tuple[Field, ...]:
    return (
        Field("key", "Key", max_length=20, placeholder="A"),
        Field("name", "Name", max_length=200, placeholder="Claim existing upstream wins"),
        Field("position", "Order", kind="int", minimum=0, help="tiers apply in this order"),
        Field("description", "Description and expected outcome", kind="textarea", required=False),
        Field("started_at", "Work started at (UTC)", kind="datetime", required=False,
              help="gates count measurements taken after this; blank: not started"),
    )


def _tier_initial(session: Session, row: Tier) -> dict[str, Any]:
    return {"key": row.key, "name": row.name, "position": str(row.position), "description": row.description,
            "started_at": datetime_input(row.started_at)}


def _tier_apply(session, campaign_id, row, values):
    row = row or Tier(campaign_id=campaign_id, key="", name="")
    errors = _unique(session, Tier, campaign_id, row if row.id else None, "key", values["key"], "tier")
    _set(row, values, ("key", "name", "position", "description"), {"description": ""})
    row.started_at = _start(values)
    return row, errors


# interventions

def _intervention_fields(session: Session, campaign_id: int) -> tuple[Field, ...]:
    tiers = repo.tiers_of(session, campaign_id=campaign_id)
    return (
        Field("key", "Key", max_length=20, placeholder="A1"),
        Field("title", "Title", max_length=300),
        Field("tier_id", "Tier", kind="select", required=False,
              options=_options(tiers, lambda t: f"{t.key}: {t.name}"), help="blank: not in the plan yet"),
        Field("status", "Status", kind="select", options=STATUS_OPTIONS),
        Field("effort_low_days", "Effort low (days)", kind="float", minimum=0),
        Field("effort_likely_days", "Effort likely (days)", kind="float", minimum=0),
        Field("effort_high_days", "Effort high (days)", kind="float", minimum=0),
        Field("effort_provenance", "Effort comes from", kind="select", options=PROVENANCE_OPTIONS),
        Field("position", "Order in its tier", kind="int", minimum=0, required=False),
        Field("started_at", "Started at (UTC)", kind="datetime", required=False),
        Field("landed_at", "Landed at (UTC)", kind="datetime", required=False,
              help="blank when marked landed: now. Calibration compares throughput before and after"),
        Field("prerequisite_ids", "Needs first", kind="multiselect", required=False,
              options=_options(repo.interventions_of(session, campaign_id=campaign_id), lambda i: f"{i.key}: {i.title}"),
              help="interventions that must be done before this one can start"),
        Field("description", "Description", kind="textarea", required=False),
        Field("links", "References", kind="textarea", required=False, help="one link or citation a line"),
    )


def _intervention_initial(session: Session, row: Intervention) -> dict[str, Any]:
    return {
        "key": row.key, "title": row.title, "tier_id": "" if row.tier_id is None else str(row.tier_id),
        "status": row.status, "effort_low_days": plain(row.effort_low_days),
        "effort_likely_days": plain(row.effort_likely_days), "effort_high_days": plain(row.effort_high_days),
        "effort_provenance": row.effort_provenance, "position": str(row.position),
        "started_at": datetime_input(row.started_at), "description": row.description, "links": row.links,
        "landed_at": datetime_input(row.landed_at),
        "prerequisite_ids": [str(r) for r in repo.prerequisites_of(session, intervention_ids=[row.id])[row.id]],
    }


def _intervention_apply(session, campaign_id, row, values):
    row = row or Intervention(campaign_id=campaign_id, key="", title="", effort_low_days=0,
                              effort_likely_days=0, effort_high_days=0)
    errors = _unique(session, Intervention, campaign_id, row if row.id else None, "key", values["key"], "intervention")
    errors |= three_point_errors(values, ("effort_low_days", "effort_likely_days", "effort_high_days"), "effort")
    _set(row, values, ("key", "title", "status", "effort_low_days", "effort_likely_days", "effort_high_days",
                       "effort_provenance", "position", "description", "links"),
         {"position": 0, "description": "", "links": ""})
    row.tier_id = int(values["tier_id"]) if values["tier_id"] else None
    row.started_at = _start(values)
    row.landed_at = values["landed_at"]
    if row.landed_at is None and row.status in ("landed", "validated"):
        row.landed_at = _now()
    required = [int(r) for r in values["prerequisite_ids"]]
    if row.id is not None and row.id in required:
        errors["prerequisite_ids"] = "an intervention cannot need itself"
    elif row.id is not None and _creates_cycle(session, row.id, required):
        errors["prerequisite_ids"] = "that would make a cycle: one of these already needs this intervention"
    if errors:
        return row, errors
    session.add(row)
    session.flush()
    for link in session.exec(select(Prerequisite).where(Prerequisite.intervention_id == row.id)).all():
        session.delete(link)
    session.flush()
    session.add_all(Prerequisite(intervention_id=row.id, requires_id=r) for r in required)
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


def _now() -> datetime:
    return datetime.now(UTC)


# gates

def _gate_fields(session: Session, campaign_id: int) -> tuple[Field, ...]:
    tiers = repo.tiers_of(session, campaign_id=campaign_id)
    regimes = repo.regimes_of(session, campaign_id=campaign_id)
    return (
        Field("tier_id", "Tier", kind="select", options=_options(tiers, lambda t: f"{t.key}: {t.name}")),
        Field("regime_id", "Regime", kind="select", options=_options(regimes)),
        Field("metric", "Metric", kind="select", options=METRIC_OPTIONS),
        Field("comparator", "Passes when the value is", kind="select", options=COMPARATOR_OPTIONS),
        Field("threshold", "Threshold", kind="float", minimum=0),
        Field("provenance", "Threshold comes from", kind="select", options=PROVENANCE_OPTIONS),
        Field("note", "Note", required=False, max_length=2000),
    )


def _gate_initial(session: Session, row: Gate) -> dict[str, Any]:
    return {"tier_id": str(row.tier_id), "regime_id": str(row.regime_id), "metric": row.metric,
            "comparator": row.comparator, "threshold": plain(row.threshold), "provenance": row.provenance,
            "note": row.note}


def _gate_apply(session, campaign_id, row, values):
    row = row or Gate(tier_id=0, regime_id=0, metric="", threshold=0)
    _set(row, values, ("metric", "comparator", "threshold", "provenance", "note"), {"note": ""})
    row.tier_id, row.regime_id = int(values["tier_id"]), int(values["regime_id"])
    return row, {}


def _campaign_of_gate(session: Session, gate: Gate) -> int:
    return session.get(Tier, gate.tier_id).campaign_id


# the campaign itself

CAMPAIGN_SIMULATION_FIELDS = (
    Field("seed", "Monte Carlo seed", kind="int", minimum=0, help="the same seed gives the same numbers"),
    Field("samples", "Monte Carlo samples", kind="int", minimum=100, help="100 to 200,000"),
    Field("apply_calibration", "Apply calibration to pending work", kind="select",
          options=(("no", "no: project with the estimates as entered"),
                   ("yes", "yes: scale pending gains by the share realised so far"))),
)


def _campaign_fields(session: Session, campaign_id: int) -> tuple[Field, ...]:
    from app.services.campaigns import CAMPAIGN_FIELDS

    return CAMPAIGN_FIELDS + CAMPAIGN_SIMULATION_FIELDS


def _campaign_initial(session: Session, row: Campaign) -> dict[str, Any]:
    return {"name": row.name, "model": row.model, "hardware": row.hardware, "gpu_count": str(row.gpu_count),
            "notes": row.notes, "seed": str(row.seed), "samples": str(row.samples),
            "apply_calibration": "yes" if row.apply_calibration else "no"}


def _campaign_apply(session, campaign_id, row, values):
    _set(row, values, ("name", "model", "hardware", "gpu_count", "notes", "seed", "samples"),
         {"model": "", "hardware": "", "notes": ""})
    row.apply_calibration = values["apply_calibration"] == "yes"
    errors = {"samples": "at most 200,000"} if values["samples"] > 200_000 else {}
    return row, errors


def _own_campaign(session, row) -> int:
    return row.campaign_id


EDITORS: dict[str, Editor] = {}


def register(editor: Editor) -> Editor:
    EDITORS[editor.kind] = editor
    return editor


register(Editor("regimes", "regime", Regime, _regime_fields, _regime_initial, _regime_apply, _own_campaign))
register(Editor("tiers", "tier", Tier, _tier_fields, _tier_initial, _tier_apply, _own_campaign))
register(Editor("interventions", "intervention", Intervention, _intervention_fields, _intervention_initial,
                _intervention_apply, _own_campaign))
register(Editor("gates", "gate", Gate, _gate_fields, _gate_initial, _gate_apply, _campaign_of_gate))
register(Editor("campaign", "campaign", Campaign, _campaign_fields, _campaign_initial, _campaign_apply,
                lambda session, row: row.id))

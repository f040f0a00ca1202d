"""Forms for a campaign's hardware and model specs, and the presets that fill them."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from pydantic import BaseModel
from sqlmodel import Session

from tierplan.db import repo
from tierplan.db.mappers import to_gpu_spec, to_model_spec
from tierplan.db.tables import HardwareSpec, ModelSpec
from tierplan.models.errors import FormInvalid, NotFound
from tierplan.models.fields import form_fields, parse_form, plain_values
from tierplan.models.forms import version_of
from tierplan.models.specs import HardwareSpecCreate, ModelSpecCreate
from tierplan.planning.ceiling import check_gpu, check_model
from tierplan.planning.model import PlanningError
from tierplan.services.editing import claim, note_change
from tierplan.services.presets import GPU_PRESETS, MODEL_PRESETS
from tierplan.services.snapshots import keep_snapshot
from tierplan.text.formatting import input_number

HARDWARE_FIELDS = form_fields(HardwareSpecCreate)
MODEL_FIELDS = form_fields(ModelSpecCreate)

SPEC_FORMS = {
    "hardware": (HardwareSpec, HARDWARE_FIELDS, GPU_PRESETS, repo.hardware_of),
    "model": (ModelSpec, MODEL_FIELDS, MODEL_PRESETS, repo.model_spec_of),
}
SPEC_MODELS: dict[str, type[BaseModel]] = {"hardware": HardwareSpecCreate, "model": ModelSpecCreate}


def _spec_row(session: Session, which: str, campaign_id: int) -> Any:
    return SPEC_FORMS[which][3](session, campaign_id=campaign_id)


def spec_of(session: Session, which: str, campaign_id: int) -> dict[str, Any] | None:
    """The campaign's hardware or model spec as the API shows it (its id and checked fields); None for none."""
    row = _spec_row(session, which, campaign_id)
    return None if row is None else _public(which, row)


def _public(which: str, row: Any) -> dict[str, Any]:
    model = SPEC_MODELS[which]
    return {"id": row.id, **model.model_validate({n: getattr(row, n) for n in model.model_fields}).model_dump()}


def spec_initial(session: Session, which: str, campaign_id: int, preset_key: str | None) -> dict[str, Any]:
    """The form's values: a preset's figures when one is chosen, else the stored row, else defaults."""
    _, fields, presets, _ = SPEC_FORMS[which]
    row = _spec_row(session, which, campaign_id)
    campaign = repo.get_campaign(session, campaign_id=campaign_id)
    gpus = str(campaign.gpu_count) if campaign is not None else "1"  # a preset is one GPU; the campaign says how many
    values: dict[str, Any] = {"provenance": "reported", "scaling_efficiency": "0.8", "count": gpus,
                              "compute_dtype": "fp8", "shared_experts": "0", "routed_experts": "0",
                              "experts_per_token": "0", "kv_bytes_per_token": "0"}
    if row is not None:
        values |= {f.name: _text(getattr(row, f.name)) for f in fields}
    if row is not None:
        values["version"] = row.version
    if preset_key in presets:
        preset = presets[preset_key]
        values |= {name: _text(value) for name, value in preset.values().items()}
        values |= {"name": preset.name, "sources": preset.sources(), "provenance": "reported"}
    return values


def _text(value: Any) -> str:
    if value is None:
        return ""
    return input_number(value) if isinstance(value, float) else str(value)


def save_spec(session: Session, which: str, campaign_id: int, data: Mapping[str, Any], *, now: datetime,
              by: str = "") -> None:
    """Create or replace the campaign's spec row from a form; FormInvalid writes nothing, Stale when the spec
    was saved since the form was opened (its hidden version)."""
    store_spec(session, which, campaign_id, parse_form(SPEC_MODELS[which], data),
               seen_version=version_of(data.get("version")), now=now, by=by)


def store_spec(session: Session, which: str, campaign_id: int, spec: BaseModel, seen_version: int | None = None, *,
               now: datetime, by: str = "") -> dict[str, Any]:
    """Create or replace the campaign's spec row from checked values (form or API); one commit, in the change
    log."""
    table = SPEC_FORMS[which][0]
    row = _spec_row(session, which, campaign_id)
    action = "updated" if row is not None else "created"
    if row is not None:
        claim(session, table, row, f"{which} spec", seen_version)
    row = row or table(campaign_id=campaign_id)
    for name, value in plain_values(spec).items():
        setattr(row, name, value)
    try:  # the core's rules for these figures, on the field they name
        if which == "model":
            check_model(to_model_spec(row))
        else:
            check_gpu(to_gpu_spec(row))
    except PlanningError as exc:
        session.rollback()
        raise FormInvalid({exc.field or "name": str(exc)}) from None
    session.add(row)
    session.flush()
    line = note_change(session, campaign_id, "specs", row.id, action, f"{which} spec {row.name}", now, by)
    keep_snapshot(session, campaign_id, line, now=now, by=by)
    session.commit()
    session.refresh(row)
    return _public(which, row)


def delete_spec(session: Session, which: str, campaign_id: int, *, now: datetime, by: str = "") -> None:
    """Remove the campaign's hardware or model spec (the plan then says the ceiling is unknown); one commit."""
    row = _spec_row(session, which, campaign_id)
    if row is None:
        raise NotFound(f"campaign {campaign_id} has no {which} spec")
    line = note_change(session, campaign_id, "specs", row.id, "deleted", f"{which} spec {row.name}", now, by)
    session.delete(row)
    keep_snapshot(session, campaign_id, line, now=now, by=by)
    session.commit()

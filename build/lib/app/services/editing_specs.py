"""Forms for a campaign's hardware and model specs, and the presets that fill them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlmodel import Session

from app.db import repo
from app.db.tables import HardwareSpec, ModelSpec
from app.services.errors import FormInvalid
from app.services.formatting import plain
from app.services.forms import PROVENANCE_OPTIONS, Field, raw_values, validate
from app.services.presets import GPU_PRESETS, MODEL_PRESETS

DTYPE_OPTIONS = (("bf16", "BF16"), ("fp8", "FP8"), ("fp4", "FP4"))

HARDWARE_FIELDS = (
    Field("name", "GPU", max_length=200),
    Field("count", "GPUs a decode step spans", kind="int", minimum=1),
    Field("memory_gb", "Memory per GPU (GB)", kind="float", minimum=0, exclusive_minimum=True),
    Field("bandwidth_gb_s", "Memory bandwidth per GPU (GB/s)", kind="float", minimum=0, exclusive_minimum=True),
    Field("tflops_bf16", "Dense BF16 (TFLOP/s)", kind="float", minimum=0, required=False),
    Field("tflops_fp8", "Dense FP8 (TFLOP/s)", kind="float", minimum=0, required=False),
    Field("tflops_fp4", "Dense FP4 (TFLOP/s)", kind="float", minimum=0, required=False),
    Field("sm_count", "SMs", kind="int", minimum=1, required=False),
    Field("interconnect", "Interconnect", required=False, max_length=200),
    Field("scaling_efficiency", "Scaling efficiency (0-1)", kind="float", minimum=0, exclusive_minimum=True,
          help="share of count x one GPU's bandwidth and FLOP/s a step really gets"),
    Field("provenance", "Figures come from", kind="select", options=PROVENANCE_OPTIONS),
    Field("sources", "Source of each figure", kind="textarea", required=False,
          help="one 'figure: datasheet / measured / derived and how' a line"),
)

MODEL_FIELDS = (
    Field("name", "Model", max_length=200),
    Field("total_params_b", "Total parameters (B)", kind="float", minimum=0, exclusive_minimum=True),
    Field("active_params_b", "Active parameters a token (B)", kind="float", minimum=0, exclusive_minimum=True),
    Field("layers", "MoE layers (all layers if dense)", kind="int", minimum=1),
    Field("routed_experts", "Routed experts E (0 if dense)", kind="int", minimum=0),
    Field("experts_per_token", "Experts a token k", kind="int", minimum=0),
    Field("shared_experts", "Shared experts", kind="int", minimum=0),
    Field("dense_bytes_per_weight", "Bytes a dense weight", kind="float", minimum=0, exclusive_minimum=True),
    Field("expert_bytes_per_weight", "Bytes an expert weight", kind="float", minimum=0, exclusive_minimum=True),
    Field("kv_bytes_per_token", "KV-cache bytes a token (all layers)", kind="float", minimum=0),
    Field("compute_dtype", "Compute data type", kind="select", options=DTYPE_OPTIONS),
    Field("provenance", "Figures come from", kind="select", options=PROVENANCE_OPTIONS),
    Field("sources", "Source of each figure", kind="textarea", required=False),
)

SPEC_FORMS = {
    "hardware": (HardwareSpec, HARDWARE_FIELDS, GPU_PRESETS, repo.hardware_of),
    "model": (ModelSpec, MODEL_FIELDS, MODEL_PRESETS, repo.model_spec_of),
}


def spec_row(session: Session, which: str, campaign_id: int):
    return SPEC_FORMS[which][3](session, campaign_id=campaign_id)


def spec_initial(session: Session, which: str, campaign_id: int, preset_key: str | None) -> dict[str, Any]:
    """The form's values: a preset's figures when one is chosen, else the stored row, else defaults."""
    _, fields, presets, _ = SPEC_FORMS[which]
    row = spec_row(session, which, campaign_id)
    values: dict[str, Any] = {"provenance": "reported", "scaling_efficiency": "0.8", "count": "1",
                              "compute_dtype": "fp8", "shared_experts": "0", "routed_experts": "0",
                              "experts_per_token": "0", "kv_bytes_per_token": "0"}
    if row is not None:
        values |= {f.name: _text(getattr(row, f.name)) for f in fields}
    if preset_key in presets:
        preset = presets[preset_key]
        values |= {name: _text(value) for name, value in preset.values().items()}
        values |= {"name": preset.name, "sources": preset.sources(), "provenance": "reported"}
    return values


def _text(value) -> str:
    if value is None:
        return ""
    return plain(value) if isinstance(value, float) else str(value)


def save_spec(session: Session, which: str, campaign_id: int, data: Mapping[str, Any]):
    """Create or replace the campaign's spec row; FormInvalid writes nothing."""
    table, fields, _, _ = SPEC_FORMS[which]
    values, errors = validate(fields, raw_values(fields, data))
    if not errors and which == "model":
        errors |= _model_errors(values)
    if not errors and which == "hardware" and values["scaling_efficiency"] > 1:
        errors["scaling_efficiency"] = "at most 1"
    if errors:
        raise FormInvalid(errors)
    row = spec_row(session, which, campaign_id) or table(campaign_id=campaign_id)
    for f in fields:
        value = values[f.name]
        setattr(row, f.name, "" if value is None and f.kind in ("text", "textarea") else value)
    session.add(row)
    session.commit()
    return row


def _model_errors(values: dict[str, Any]) -> dict[str, str]:
    if values["active_params_b"] > values["total_params_b"]:
        return {"active_params_b": "cannot exceed the total"}
    experts, k = values["routed_experts"], values["experts_per_token"]
    if experts and not 0 < k < experts:
        return {"experts_per_token": "between 1 and the routed experts minus one"}
    if not experts and values["active_params_b"] != values["total_params_b"]:
        return {"routed_experts": "a dense model (no routed experts) has active = total parameters"}
    return {}

"""Effects (what an intervention buys) and profiles (where a regime's step time goes)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from pydantic import BaseModel, create_model
from sqlmodel import AutoString, SQLModel
from sqlmodel import Field as SQLField

from tierplan.models.fields import Input, Int, Number, example, field, update_model
from tierplan.models.plan_rows import Public, Versioned, provenance, text
from tierplan.planning.effect_kinds import KINDS
from tierplan.planning.model import EffectKind, Provenance
from tierplan.text.effect_kinds import ESTIMATES, KIND_TEXTS

KIND_LABELS = {kind.value: text.label for kind, text in KIND_TEXTS.items()}
# the three-point inputs of each kind, as the core's registry names them
KIND_INPUTS = {rule.kind.value: rule.estimates for rule in KINDS.values()}
POINTS = ("low", "likely", "high")


def point_name(name: str, point: str) -> str:
    """The form and API field of one point of an estimate: speedup_likely."""
    return f"{name}_{point}"


def flat(estimates: Mapping[str, tuple[float, float, float]]) -> dict[str, float | None]:
    """An effect's stored estimates as the form and API fields they fill (every field named, blank where the
    effect has no such input)."""
    return {point_name(name, point): (estimates[name][i] if name in estimates else None)
            for name in ESTIMATES for i, point in enumerate(POINTS)}


def _estimate_fields() -> dict[str, Any]:
    """The low, likely and high field of every estimate, shown for the kinds that have it."""
    fields: dict[str, Any] = {}
    for name, estimate in ESTIMATES.items():
        kinds = tuple(kind for kind, inputs in KIND_INPUTS.items() if name in inputs)
        for point in POINTS:
            fields[point_name(name, point)] = (Number | None, field(
                f"{estimate.label} {point} ({estimate.unit})", default=None, show_for=kinds,
                help=estimate.help if point == "likely" else "", **estimate.bounds))
    return fields


_ON_BUCKET = tuple(kind.value for kind, rule in KINDS.items() if rule.on_bucket)
_KERNELS = (EffectKind.BUCKET.value,)  # a bucket speedup may act on named kernels alone (planning/kernel_targets.py)
_SPEC = tuple(kind.value for kind, rule in KINDS.items() if rule.tokens)  # speculative decoding's own fields


class EffectHead(SQLModel):
    """The fields an effect of any kind has, before its estimates (the effect table's columns with EffectTail)."""

    intervention_id: int = field("Intervention", foreign_key="intervention.id", ondelete="CASCADE", index=True)
    kind: EffectKind = field("Kind", default=EffectKind.BUCKET, labels=KIND_LABELS, sa_type=AutoString)
    bucket: str | None = field(
        "Bucket", default=None, max_length=100, placeholder="attention", show_for=_ON_BUCKET,
        help="bucket speedup: the profile bucket it makes faster; time saved: the bucket it comes off "
             "(blank: the whole step)")
    kernels: str = text(
        "Only the kernels matching", max_length=200, placeholder="splitK|stage1", show_for=_KERNELS,
        help="bucket speedup: a pattern over the kernel names of the regime's traced profile (RE2, case-insensitive); "
             "the speedup then acts on their share of the bucket alone. Blank: the whole bucket")
    draft_tokens: Int | None = field("Draft length g", default=None, ge=1, show_for=_SPEC)


class EffectTail(SQLModel):
    """The fields an effect of any kind has, after its estimates."""

    acceptance_per_position: str = text(
        "Per-position acceptance", max_length=500, placeholder="0.82, 0.61, 0.43", show_for=_SPEC,
        help="instead of one rate: vLLM's spec_decode_per_position_acceptance_rates, one a draft position")
    provenance: Provenance = provenance("Estimate comes from", Provenance.ASSUMED)
    note: str = text("Note", max_length=2000)


# the estimates' fields, generated: a new input is an entry of ESTIMATES, not three fields here (each estimate is
# stored as a row of effect_estimate)
_WithEstimates: Any = create_model("EffectEstimates", __base__=EffectHead, **_estimate_fields())


class EffectCreate(EffectTail, _WithEstimates, Input):  # type: ignore[misc]
    """One effect of an intervention; which three-point inputs it needs depends on its kind (the core's registry
    says which: KIND_INPUTS; ESTIMATES says how each is asked)."""

    model_config = example(intervention_id=3, kind="bucket", bucket="attention", speedup_low=2.0, speedup_likely=2.5,
                           speedup_high=3.0, provenance="reported", note="bounded 2-3x on the kernel")

    regime_ids: list[int] = field("Regimes", default_factory=list,
                                  help="none chosen: every regime (not for whole-step or time-saved effects)")


EffectUpdate = update_model(EffectCreate, "EffectUpdate", {"speedup_likely": 2.2, "provenance": "measured"})


class EffectPublic(EffectCreate, Versioned):
    id: int


class ProfileCreate(Input):
    """A new split of a regime's step time (earlier ones stay on record)."""

    model_config = example(shares="attention, 63%, reported\nmoe, 15%\ndense_gemm, 10%\ncommunication, 5%",
                           source="nsys run of 2026-11-20, commit abc123")

    shares: str = field(
        "Shares of step time", min_length=1, max_length=20_000, widget="textarea",
        help="one bucket a line: name, share (0.63 or 63%), and optionally where it comes from "
             "(measured, imported, reported, assumed; default assumed). Shares below 100% leave the rest to 'other'.")
    source: str = field("Source", default="form", max_length=300, placeholder="nsys run of 2026-11-20, commit abc123")


class ShareOut(BaseModel):
    bucket: str
    share: float = field("Share of step time", ge=0, le=1)
    provenance: Provenance


class ProfileFields(SQLModel):
    """What a stored profile holds, declared once: the profile table derives from it (adding its keys) and so does
    ProfilePublic. What one step launches is there when a trace gave it (the launch model needs all of the first
    four)."""

    source: str = SQLField(default="form", max_length=300)
    created_at: datetime
    step_ms: float | None = None  # the measured step the shares are of
    gpu_items: float | None = None  # kernels, memcpys and memsets a step
    host_launches: float | None = None  # launch calls a step
    gpu_gap_us: float | None = None  # GPU time before each item
    gap_measured: bool = False  # measured between queued items, else the prior
    host_fixed_ms: float = 0.0  # host time a step that is not per launch (assumed)
    gpu_busy_ms: float | None = None  # a decode step's GPU time in the trace
    trace_idle_ms: float | None = None  # a decode step's GPU idle time in the trace (profiler-inflated)
    host_busy_ms: float | None = None  # a decode step's host time apart from waits: its share of the trace's step
    steps: int | None = None  # decode steps counted
    passes: str = ""  # how the trace was split, and what was left out
    device: str = SQLField(default="", max_length=200)


class ProfilePublic(ProfileFields, Public):
    """A regime's profile: the share of step time each bucket takes, and what one step launches when a trace
    gave it (the launch model needs step_ms, gpu_items, host_launches and gpu_gap_us)."""

    id: int
    regime: str
    shares: list[ShareOut]

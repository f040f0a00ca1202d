"""Effects (what an intervention buys) and profiles (where a regime's step time goes)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel

from tierplan.models.fields import Input, Int, Number, example, field, update_model
from tierplan.models.plan_rows import Public, Versioned, provenance
from tierplan.planning.model import EffectKind, Provenance

KIND_LABELS = {
    "bucket": "speedup of one bucket",
    "step": "whole-step multiplier (measured in named regimes)",
    "time_saved": "milliseconds saved a step (named regimes)",
    "spec_decode": "speculative decoding",
    "launch_overhead": "launch overhead removed (CUDA graphs)",
    "launch_count": "launches a step changed (a fused or SDPA path)",
}
# the three-point inputs of each kind, and the kinds each input belongs to
KIND_INPUTS = {"bucket": ("speedup",), "step": ("speedup",), "time_saved": ("saved_ms",),
               "spec_decode": ("acceptance", "draft_cost"), "launch_overhead": ("removed",),
               "launch_count": ("launches",)}
THREE_POINTS = ("speedup", "saved_ms", "acceptance", "draft_cost", "removed", "launches")
POINTS = ("low", "likely", "high")
_SPEEDUP = ("bucket", "step")
_SPEC = ("spec_decode",)


def _point(label: str, unit: str, point: str, show_for: tuple[str, ...], help: str = "", **bounds) -> float | None:
    return field(f"{label} {point} ({unit})", default=None, show_for=show_for, help=help if point == "likely" else "",
                 **bounds)


class EffectCreate(Input):
    """One effect of an intervention; which three-point inputs it needs depends on its kind."""

    model_config = example(intervention_id=3, kind="bucket", bucket="attention", speedup_low=2.0, speedup_likely=2.5,
                           speedup_high=3.0, provenance="reported", note="bounded 2-3x on the kernel")

    intervention_id: int = field("Intervention")
    kind: EffectKind = field("Kind", default=EffectKind.BUCKET, labels=KIND_LABELS)
    bucket: str | None = field(
        "Bucket", default=None, max_length=100, placeholder="attention", show_for=("bucket", "time_saved"),
        help="bucket speedup: the profile bucket it makes faster; time saved: the bucket it comes off "
             "(blank: the whole step)")
    speedup_low: Number | None = _point("Speedup", "x", "low", _SPEEDUP, gt=0)
    speedup_likely: Number | None = _point("Speedup", "x", "likely", _SPEEDUP, gt=0)
    speedup_high: Number | None = _point("Speedup", "x", "high", _SPEEDUP, gt=0)
    saved_ms_low: Number | None = _point("Time saved", "ms a step", "low", ("time_saved",), ge=0)
    saved_ms_likely: Number | None = _point("Time saved", "ms a step", "likely", ("time_saved",), ge=0)
    saved_ms_high: Number | None = _point("Time saved", "ms a step", "high", ("time_saved",), ge=0)
    draft_tokens: Int | None = field("Draft length g", default=None, ge=1, show_for=_SPEC)
    acceptance_low: Number | None = _point("Acceptance rate", "0..1", "low", _SPEC, ge=0, le=1)
    acceptance_likely: Number | None = _point("Acceptance rate", "0..1", "likely", _SPEC, ge=0, le=1)
    acceptance_high: Number | None = _point("Acceptance rate", "0..1", "high", _SPEC, ge=0, le=1)
    acceptance_per_position: str = field(
        "Per-position acceptance", default="", max_length=500, placeholder="0.82, 0.61, 0.43", show_for=_SPEC,
        help="instead of one rate: vLLM's spec_decode_per_position_acceptance_rates, one a draft position")
    draft_cost_low: Number | None = _point("Draft cost c", "of a step", "low", _SPEC, ge=0)
    draft_cost_likely: Number | None = _point(
        "Draft cost c", "of a step", "likely", _SPEC, ge=0,
        help="all three blank: the hardware model gives the cost of verifying g + 1 tokens a sequence "
             "(it grows with concurrency)")
    draft_cost_high: Number | None = _point("Draft cost c", "of a step", "high", _SPEC, ge=0)
    removed_low: Number | None = _point("Share of per-launch host cost removed", "0..1", "low",
                                        ("launch_overhead",), ge=0, le=1)
    removed_likely: Number | None = _point(
        "Share of per-launch host cost removed", "0..1", "likely", ("launch_overhead",), ge=0, le=1,
        help="CUDA graphs replay a step with one launch: most of each launch's host cost goes (0.9-0.99)")
    removed_high: Number | None = _point("Share of per-launch host cost removed", "0..1", "high",
                                         ("launch_overhead",), ge=0, le=1)
    launches_low: Number | None = _point("Launches a step added", "negative: removed", "low", ("launch_count",))
    launches_likely: Number | None = _point(
        "Launches a step added", "negative: removed", "likely", ("launch_count",),
        help="GPU kernels, memcpys and memsets a step, as the regime's trace counts them: SDPA instead of "
             "eager attention removes about 9 a layer")
    launches_high: Number | None = _point("Launches a step added", "negative: removed", "high", ("launch_count",))
    regime_ids: list[int] = field("Regimes", default_factory=list,
                                  help="none chosen: every regime (not for whole-step or time-saved effects)")
    provenance: Provenance = provenance("Estimate comes from", Provenance.ASSUMED)
    note: str = field("Note", default="", max_length=2000)


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


class ProfilePublic(Public):
    """A regime's profile: the share of step time each bucket takes, and what one step launches when a trace
    gave it (the launch model needs step_ms, gpu_items, host_launches and gpu_gap_us)."""

    id: int
    regime: str
    source: str
    created_at: datetime
    shares: list[ShareOut]
    step_ms: float | None = None
    gpu_items: float | None = None
    host_launches: float | None = None
    gpu_gap_us: float | None = None
    gap_measured: bool = False
    host_fixed_ms: float = 0.0

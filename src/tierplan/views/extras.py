"""Views of the ceiling, specs, suggested order, what-if curves and calibration, formatted for pages and export."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup

from tierplan.planning.achievable import Achievable
from tierplan.planning.calibration import CalibrationPoint
from tierplan.planning.ceiling import Ceiling
from tierplan.planning.model import need
from tierplan.planning.model_error import Z_CAP
from tierplan.planning.projection import RegimeProjection
from tierplan.services.analysis import Analysis
from tierplan.services.records import PlanRecord
from tierplan.text import formatting as fmt
from tierplan.text.effect_kinds import KIND_TEXTS
from tierplan.views.charts import whatif_chart


@dataclass
class SpecsView:
    hardware: list[tuple[str, str]]  # label, value
    model: list[tuple[str, str]]
    hardware_sources: list[str]
    model_sources: list[str]
    hardware_provenance: str
    model_provenance: str
    problem: str


@dataclass
class PickView:
    rank: int
    key: str
    title: str
    effort_text: str
    gain_text: str
    per_day_text: str
    cumulative_text: str
    band: str
    team_tier: str


@dataclass
class OrderingView:
    picks: list[PickView]
    overlaps: list[str]
    blocked: list[str]


@dataclass
class WhatIfView:
    regime: str
    speedups: list[str]  # column headings
    rows: list[tuple[str, str, list[str]]]  # bucket, share, end-to-end speedups
    chart: Markup = Markup("")
    table_id: str = ""


@dataclass
class CalibrationView:
    rows: list[dict[str, str]] = field(default_factory=list)
    bias_text: str = ""
    realised_text: str = ""
    applied: bool = False
    available: bool = False
    error_text: str = ""  # how the model-error priors stand after the campaign's own measured changes
    outlier_text: str = ""  # the measured changes calibration bounds, and what to check


def moves_text(point: CalibrationPoint) -> str:
    """How far one measured change moves the model-error priors on its own: "1.61x wider", "—"."""
    if point.z is None or abs(point.moves_scale - 1) < 0.005:
        return "—"
    return f"{fmt.factor(point.moves_scale)} wider" if point.moves_scale > 1 else \
        f"{fmt.factor(1 / point.moves_scale)} narrower"


def ceiling_texts(ceiling: Ceiling | None, projection: RegimeProjection, reached: Achievable | None = None) -> dict:
    """The ceiling cells of a regime view: the physical ceiling, the achievable one, why the step is where it is."""
    if ceiling is None:
        return {}
    compute = f", compute floor {fmt.number(ceiling.compute_floor_ms, 'ms')}" if ceiling.compute_floor_ms else ""
    achievable = reached.ceiling_tok_s if reached else None
    return {
        "ceiling_text": fmt.tok_s(ceiling.ceiling_tok_s),
        "ceiling_detail": (
            f"{ceiling.bound}-bound: {fmt.size(ceiling.weight_bytes)} of weights "
            f"({fmt.number(ceiling.distinct_experts, '')} distinct experts a layer) and "
            f"{fmt.size(ceiling.kv_bytes)} of KV cache a step, memory floor "
            f"{fmt.number(ceiling.memory_floor_ms, 'ms')}{compute}"
        ),
        "achievable_text": fmt.tok_s(achievable) if achievable is not None else "",
        "achievable_detail": achievable_detail(reached) if reached else "",
        "why_text": reached.why if reached else "",
        "ceiling_verdict": fmt.ceiling_verdict(projection.target_tok_s, projection.ceiling_tok_s, achievable,
                                               projection.final.tok_s) or "",
        "target_above_ceiling": projection.target_tok_s > ceiling.ceiling_tok_s,
    }


def achievable_detail(reached: Achievable) -> str:
    """Where the achievable ceiling's efficiency comes from."""
    efficiency = reached.efficiency
    if efficiency.regime is None:
        return (f"the hardware ceiling at a stated {fmt.share(efficiency.share)} of its floor (no step measured on "
                "these specs yet: the share a tuned decode step reaches)")
    return (f"the hardware ceiling at {fmt.share(efficiency.share)} of its floor, the campaign's best: "
            f"{efficiency.regime}'s {fmt.number(efficiency.step_ms, 'ms')} step against its "
            f"{fmt.number(efficiency.floor_ms, 'ms')} floor")


HARDWARE_LABELS = (
    ("name", "GPU", ""), ("count", "GPUs a decode step spans", "count"), ("memory_gb", "memory", "GB"),
    ("bandwidth_gb_s", "memory bandwidth", "GB/s"), ("tflops_bf16", "dense BF16", "TFLOP/s"),
    ("tflops_fp8", "dense FP8", "TFLOP/s"), ("tflops_fp4", "dense FP4", "TFLOP/s"), ("sm_count", "SMs", "count"),
    ("interconnect", "interconnect", ""), ("scaling_efficiency", "scaling efficiency", "share"),
)
MODEL_LABELS = (
    ("name", "model", ""), ("total_params_b", "total parameters", "params"), ("active_params_b", "active parameters", "params"),
    ("layers", "MoE layers", "count"), ("routed_experts", "routed experts E", "count"),
    ("experts_per_token", "experts a token k", "count"), ("shared_experts", "shared experts", "count"),
    ("dense_bytes_per_weight", "dense weights", "weight"), ("expert_bytes_per_weight", "expert weights", "weight"),
    ("kv_bytes_per_token", "KV cache a token", "bytes"), ("compute_dtype", "compute data type", ""),
)
_SPEC_FORMATS = {
    "params": fmt.params, "bytes": fmt.size, "weight": fmt.weight_size, "count": fmt.count, "share": fmt.share,
}


def _spec_value(value: float, unit: str) -> str:
    """A spec figure as every page writes numbers: 1,792 GB/s, 284B params, 4.25 bits a weight, 80%."""
    return _SPEC_FORMATS[unit](value) if unit in _SPEC_FORMATS else fmt.number(value, unit)


EXPERT_FIGURES = {"routed_experts", "experts_per_token", "shared_experts", "expert_bytes_per_weight"}


def _pairs(row: Any, labels: Sequence[tuple[str, str, str]]) -> list[tuple[str, str]]:
    """A spec's figures in words; a dense model's (no routed experts) says "layers" and leaves the experts out."""
    dense = getattr(row, "routed_experts", None) == 0
    out = []
    for name, label, unit in labels:
        value = getattr(row, name)
        if value in (None, "") or (dense and name in EXPERT_FIGURES):
            continue
        label = "layers (dense)" if dense and name == "layers" else label
        text = value if isinstance(value, str) else _spec_value(value, unit)
        out.append((label, text))
    return out


_FIGURE_LABELS = {name: label for name, label, _ in HARDWARE_LABELS + MODEL_LABELS}


def source_lines(spec: Any) -> list[str]:
    """A spec's sources a line each, each figure named in words as the page lists it: "memory bandwidth:
    datasheet ..." for the stored "bandwidth_gb_s: datasheet ..."."""
    out = []
    for line in (spec.sources.splitlines() if spec else []):
        name, colon, rest = line.strip().partition(":")
        if line.strip():
            out.append(f"{_FIGURE_LABELS[name]}:{rest}" if colon and name in _FIGURE_LABELS else line.strip())
    return out


def specs_view(record: PlanRecord, analysis: Analysis) -> SpecsView:
    hw, model = record.hardware, record.model_spec
    return SpecsView(
        hardware=_pairs(hw, HARDWARE_LABELS) if hw else [],
        model=_pairs(model, MODEL_LABELS) if model else [],
        hardware_sources=source_lines(hw),
        model_sources=source_lines(model),
        hardware_provenance=hw.provenance if hw else "",
        model_provenance=model.provenance if model else "",
        problem=analysis.ceiling_problem or "",
    )


def ordering_view(analysis: Analysis) -> OrderingView:
    tiers = {i.key: i.tier_key or "—" for i in analysis.campaign.interventions}
    picks = [
        PickView(
            rank=n,
            key=p.key,
            title=p.title,
            effort_text=fmt.days(p.effort_days),
            gain_text=fmt.factor(p.gain),
            per_day_text=f"{p.gain_per_day * 100:.1f}% a day" if p.gain_per_day < 10 else "very high",
            cumulative_text=fmt.days(round(p.cumulative_days, 1)),
            band=f"{p.band} ({p.band_label})",
            team_tier=tiers.get(p.key, "—"),
        )
        for n, p in enumerate(analysis.ordering.picks, start=1)
    ]
    overlaps = [
        f"{' and '.join(keys) if len(keys) == 2 else ', '.join(keys)} {'both' if len(keys) == 2 else 'all'} speed up {bucket}: their gains multiply on that bucket's share only, they do not add"  # noqa: E501
        for bucket, keys in analysis.ordering.overlaps
    ]
    blocked = [f"{key}: {why}" for key, why in analysis.ordering.blocked]
    return OrderingView(picks=picks, overlaps=overlaps, blocked=blocked)


def _speedup_label(s: float) -> str:
    return "∞" if math.isinf(s) else f"{fmt.plain(s)}x"


def what_if_views(analysis: Analysis) -> list[WhatIfView]:
    views: list[WhatIfView] = []
    for regime, curves in analysis.what_ifs.items():
        if not curves:
            continue
        speedups = [_speedup_label(s) for s, _ in curves[0].end_to_end]
        rows = [
            (c.bucket, fmt.share(c.share), ["∞" if math.isinf(g) else fmt.factor(g) for _, g in c.end_to_end])
            for c in curves
        ]
        table_id = f"whatif-{len(views)}"
        chart = whatif_chart(f"{table_id}-chart", regime, [(c.bucket, c.end_to_end) for c in curves], table_id)
        views.append(WhatIfView(regime=regime, speedups=speedups, rows=rows, chart=chart, table_id=table_id))
    return views


def calibration_view(analysis: Analysis) -> CalibrationView:
    summary = analysis.calibration
    view = CalibrationView(applied=analysis.calibration_applied, available=summary.realised is not None)
    for point in summary.points:
        view.rows.append({
            "key": point.key,
            "regime": point.regime,
            "predicted": fmt.factor(point.predicted_gain),
            "measured": fmt.factor(point.measured_gain) if point.measured_gain else "—",
            "bias": fmt.factor(point.bias) if point.bias else "—",
            "evidence": "; ".join(part for part in (
                f"{fmt.digits(point.before.value)} → {fmt.tok_s(point.after.value)} "
                f"({fmt.date(point.before.measured_at)} → {fmt.date(point.after.measured_at)})"
                if point.before and point.after else "", point.reason) if part),
            "sigma": f"±{(math.exp(point.predicted_sigma) - 1) * 100:.0f}%" if point.predicted_sigma else "—",
            "moves": moves_text(point),
            "run_id": str(point.after.ref) if point.after and point.after.ref is not None else "",
            "left_out": "yes" if point.after and point.after.left_out else "",
        })
    outliers = [p for p in summary.points if p.outlier]
    if outliers:
        view.outlier_text = (
            "; ".join(f"{p.key} in {p.regime} missed by {abs(need(p.z, 'the miss')):.0f}σ" for p in outliers)
            + f": each counted as a {Z_CAP:.0f}σ miss. Check that both runs are of the same setup (model, GPU, "
              "engine) and that the newer one really includes the work; retract a run that does not belong")
    if summary.bias is not None:
        view.bias_text = f"measured / predicted {fmt.factor(summary.bias)}"
    if summary.realised is not None:
        view.realised_text = f"{summary.realised * 100:.0f}% of the predicted log-gain realised"
    if summary.error_points:
        direction = "widens" if summary.error_scale > 1 else "narrows"
        view.error_text = (f"{summary.error_points} measured change{'s' if summary.error_points > 1 else ''} "
                           f"{direction} the model-error priors by {fmt.factor(summary.error_scale)}")
        own = [f"{KIND_TEXTS[kind].label} x{scale:.2f} from its own {pairs} changes"
               for kind, scale, pairs in summary.kind_scales]
        if own:
            view.error_text += f"; with enough changes of their own: {', '.join(own)}"
    else:
        view.error_text = "model-error priors as stated (no measured change to calibrate them yet)"
    return view

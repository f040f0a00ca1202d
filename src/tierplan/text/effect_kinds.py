"""How each kind of effect is presented: its label in the kind menu, how its three-point inputs are asked, and the
sentence the plan and the export list it by. The core's registry (tierplan/planning/effect_kinds.py) says what a
kind does; this says how it reads. A new kind is an entry in each, and its tests."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tierplan.planning.model import Effect, EffectKind, ThreePoint, need
from tierplan.planning.step_changes import VerifyCost, spec_cost, spec_tokens
from tierplan.text import formatting as fmt

Floors = Mapping[str, VerifyCost]  # regime name -> its hardware model (the verify cost of speculative decoding)
Sentence = Callable[[Effect, Sequence[str], Floors], str]


@dataclass(frozen=True)
class Estimate:
    """How the forms ask for one three-point input: its label and unit, the help under its likely point, and the
    bounds each point is held to on its own (the core's rules judge the three together)."""

    label: str
    unit: str
    help: str = ""
    bounds: Mapping[str, Any] = field(default_factory=dict)  # pydantic's gt, ge, le


@dataclass(frozen=True)
class KindText:
    label: str  # the kind menu's words for it
    sentence: Sentence  # the effect in words, before where it holds


ESTIMATES = {
    "speedup": Estimate("Speedup", "x", bounds={"gt": 0}),
    "saved_ms": Estimate("Time saved", "ms a step", bounds={"ge": 0}),
    "acceptance": Estimate("Acceptance rate", "0..1", bounds={"ge": 0, "le": 1}),
    "draft_cost": Estimate(
        "Draft cost c", "of a step", bounds={"ge": 0},
        help="the drafter's own time a draft token, of a plain step (a draft model's or EAGLE head's forward); "
             "verifying the drafts is priced by the hardware model besides. Blank: no drafter time (n-gram)"),
    "removed": Estimate(
        "Share of per-launch host cost removed", "0..1", bounds={"ge": 0, "le": 1},
        help="CUDA graphs replay a step with one launch: most of each launch's host cost goes (0.9-0.99)"),
    "launches": Estimate(
        "Launches a step added", "negative: removed",
        help="GPU kernels, memcpys and memsets a step, as the regime's trace counts them: SDPA instead of "
             "eager attention removes about 9 a layer"),
    "gpu_ms": Estimate(
        "GPU time a step added", "ms, negative: removed",
        help="work the change puts on the GPU whatever the batch: quantisation kernels in front of every GEMM "
             "(a few µs each, times the GEMMs of a step), a static cache's extra copies; a prototype's trace "
             "against the baseline's says how much"),
    "gpu_ms_per_seq": Estimate(
        "GPU time added per sequence in flight", "ms, negative: removed",
        help="work that grows with the batch: attention over a static cache's whole length instead of the "
             "tokens so far, padding to a captured batch size; multiplied by each regime's concurrency"),
    "gpu_items": Estimate(
        "GPU work items a step added", "negative: removed",
        help="kernels, memcpys and memsets the change adds a step (each pays the GPU's gap, and a launch where "
             "the step is launched op by op)"),
}


def three(tp: ThreePoint | None, suffix: str = "", scale: float = 1.0) -> str:
    """"2x (1.5–3x)": the likely point, then the range."""
    tp = need(tp, "the estimate")
    return fmt.three_point(tp.low * scale, tp.likely * scale, tp.high * scale, suffix)


def spec_decode_text(effect: Effect, regime_names: Sequence[str] = (), floors: Floors | None = None) -> str:
    """"speculative decoding, g = 1, acceptance 0.7 (0.5–0.85), draft cost c = 0.1: E = 1.70 tokens a step, the drafts
    cost 1.10x a step; verifying 2 tokens a sequence adds, by the hardware model, 0.06 ms in batch 1 of GPU time"."""
    spec = need(effect.spec, "the speculative decoding")
    if spec.per_position:
        acceptance = "per-position acceptance " + ", ".join(fmt.plain(r) for r in spec.per_position)
    else:
        acceptance = "acceptance " + three(spec.acceptance)
    tokens = spec_tokens(spec)
    head = f"speculative decoding, g = {spec.draft_tokens}, {acceptance}"
    floors = floors or {}
    names = list(regime_names) or list(floors)
    added = [(n, floors[n].verify_added_ms(spec.draft_tokens)) for n in names if n in floors]
    per_regime = ", ".join(f"{fmt.number(ms, 'ms')} in {n}" for n, ms in added)
    verify = (f"verifying {spec.draft_tokens + 1} tokens a sequence adds, by the hardware model, {per_regime} of GPU "
              "time to the step")
    if spec.draft_cost is not None:
        cost = fmt.three_point(spec.draft_cost.low, spec.draft_cost.likely, spec.draft_cost.high)
        drafts = spec_cost(spec)
        text = f"{head}, draft cost c = {cost}: E = {tokens:.2f} tokens a step, the drafts cost {drafts:.2f}x a step"
        if not added:
            return f"{text}, {fmt.factor(tokens / drafts)} faster (the verify step unpriced: enter the specs)"
        return f"{text}; {verify}"
    if not added:
        return f"{head}, draft cost from the hardware model (enter the specs to see it): E = {tokens:.2f} tokens a step"
    return f"{head}, no drafter time entered: E = {tokens:.2f} tokens a step; {verify}"


def bucket_text(effect: Effect) -> str:
    """"attention 2.5x (2–3x) faster", or, below 1x, "attention 6.9x (6.7–7.1x) slower"."""
    speedup = need(effect.speedup, "the speedup")
    what = f"{effect.bucket} kernels matching '{effect.kernels}'" if effect.kernels else effect.bucket
    if speedup.likely >= 1 or speedup.low <= 0:
        return f"{what} {three(speedup, 'x')} faster"
    slower = ThreePoint(1 / speedup.high, 1 / speedup.likely, 1 / speedup.low)
    return f"{what} {three(slower, 'x')} slower"


def gpu_work_text(effect: Effect) -> str:
    """"GPU work: +0.3 ms (0.2–0.5 ms) a step, +0.05 ms (0.03–0.08 ms) a sequence in flight, +64 items a step"."""
    parts = []
    if effect.gpu_ms is not None:
        parts.append(f"{three(effect.gpu_ms, ' ms')} a step")
    if effect.gpu_ms_per_seq is not None:
        parts.append(f"{three(effect.gpu_ms_per_seq, ' ms')} a sequence in flight")
    if effect.gpu_items is not None:
        parts.append(f"{three(effect.gpu_items)} work items a step")
    return "GPU work added (negative: removed): " + ", ".join(parts)


KIND_TEXTS: dict[EffectKind, KindText] = {
    EffectKind.BUCKET: KindText("speedup of one bucket", lambda e, names, floors: bucket_text(e)),
    EffectKind.STEP: KindText(
        "whole-step multiplier (measured in named regimes)",
        lambda e, names, floors: f"whole step {three(e.speedup, 'x')} faster"),
    EffectKind.TIME_SAVED: KindText(
        "milliseconds saved a step (named regimes)",
        lambda e, names, floors: f"{three(e.saved_ms, ' ms')} {f'off {e.bucket}' if e.bucket else 'off each step'}"),
    EffectKind.SPEC_DECODE: KindText("speculative decoding", spec_decode_text),
    EffectKind.LAUNCH_OVERHEAD: KindText(
        "launch overhead removed (CUDA graphs)",
        lambda e, names, floors: f"launch overhead: {three(e.removed, '%', 100)} of each launch's host cost removed"),
    EffectKind.LAUNCH_COUNT: KindText(
        "launches a step changed (a fused or SDPA path)",
        lambda e, names, floors: f"launches a step changed by {three(e.launches)}"),
    EffectKind.GPU_WORK: KindText("GPU work a step added or removed (a static cache, quantisation kernels)",
                                  lambda e, names, floors: gpu_work_text(e)),
}


def effect_text(effect: Effect, regime_names: Sequence[str], floors: Floors | None = None) -> str:
    """One effect as the plan lists it: "attention 2.5x (2-3x) faster in every regime"."""
    where = f"in {', '.join(regime_names)}" if regime_names else "in every regime"
    return f"{KIND_TEXTS[effect.kind].sentence(effect, regime_names, floors or {})} {where}"

"""The ways an effect can change a regime's step (see step.py for the step's shape): a bucket made faster, the
whole step scaled, milliseconds saved, a draft-and-verify step, launch cost removed, launches added. Which kind of
effect uses which is effect_kinds.py's registry.

The same arithmetic serves the likely-value projection, the greedy order and the Monte Carlo: the
inputs of an effect arrive as floats (a point) or as numpy arrays of samples.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from tierplan.planning.kernel_targets import PART, covers
from tierplan.planning.model import Profile, SpecDecode, need
from tierplan.planning.step import HOST_BUCKET, StepState, Value, maximum, start_state

VERIFY_BUCKET = "spec_verify"  # the GPU time verifying drafts adds a step (no draft cost entered)
ADDED_BUCKET = "added_gpu_work"  # GPU time a change adds a step (a static cache's copies, quantisation kernels)


@dataclass(frozen=True)
class EffectDraw:
    """The values one effect takes in one evaluation: floats (a point) or arrays (samples)."""

    speedup: Any = None
    saved_ms: Any = None
    acceptance: Any = None
    draft_cost: Any = None
    removed: Any = None
    launches: Any = None
    gpu_ms: Any = None
    gpu_ms_per_seq: Any = None
    gpu_items: Any = None
    realised: Any = None  # calibration: the share of its log-gain a spec-decode effect keeps (arrays: order_batch)


class VerifyCost(Protocol):
    """What speculative decoding asks of a hardware model (a StepFloor; a stack of them in order_batch.py)."""

    def verify_added_ms(self, draft_tokens: int) -> Value: ...


@dataclass(frozen=True)
class RegimeContext:
    """What an effect needs to know of its regime besides the step: its name, step time and hardware model."""

    name: str
    step_ms: Value  # the baseline step (ms), to turn milliseconds into a share of it; None without a baseline
    floor: VerifyCost | None = None
    concurrency: Value = 1  # sequences in flight a step


HORNER_MAX_DRAFTS = 16  # up to this many draft tokens, E is summed term by term (no special case at a = 1)


def spec_expected_tokens(acceptance: Value, draft_tokens: int) -> Value:
    """Expected tokens per verification step, E = 1 + a + ... + a^g = (1 - a^(g+1)) / (1 - a); g + 1 when a = 1."""
    a = np.asarray(acceptance, dtype=float)
    if 0 <= draft_tokens <= HORNER_MAX_DRAFTS:
        horner: Any = np.ones_like(a)
        for _ in range(draft_tokens):
            horner = 1.0 + a * horner
        return float(horner) if horner.ndim == 0 else horner
    near_one = np.abs(a - 1.0) <= 1e-8 + 1e-5  # np.isclose(a, 1.0), without its overhead on small arrays
    safe = np.where(near_one, 0.5, a)
    tokens = np.where(near_one, draft_tokens + 1.0, (1 - safe ** (draft_tokens + 1)) / (1 - safe))
    return float(tokens) if tokens.ndim == 0 else tokens


def spec_expected_tokens_from_positions(per_position: tuple[float, ...]) -> float:
    """E = 1 + sum of per-position acceptance rates (the bonus token plus each accepted draft)."""
    return 1.0 + float(sum(per_position))


def spec_step_cost(draft_tokens: int, draft_cost: Value) -> Value:
    """Cost of a draft-and-verify step relative to a plain step: 1 + g c."""
    return 1.0 + draft_tokens * draft_cost


def spec_tokens(spec: SpecDecode, acceptance: Value = None) -> Value:
    """E for the given (or likely) acceptance."""
    if spec.per_position:
        return spec_expected_tokens_from_positions(spec.per_position)
    if acceptance is None:
        acceptance = need(spec.acceptance, "the acceptance rate").likely
    return spec_expected_tokens(acceptance, spec.draft_tokens)


def spec_cost(spec: SpecDecode, draft_cost: Value = None, floor: VerifyCost | None = None,
              step_ms: Value = None) -> Value:
    """The draft-and-verify step over a plain one: the measured step (`step_ms`) plus the GPU time the hardware model
    says verifying g + 1 tokens a sequence adds, over that step, plus g c with a draft cost c; 1 + g c with a draft
    cost and no hardware model; None with neither."""
    drafts = None
    if spec.draft_cost is not None:
        drafts = spec_step_cost(spec.draft_tokens, spec.draft_cost.likely if draft_cost is None else draft_cost)
    if floor is None or step_ms is None:
        return drafts
    return (1.0 if drafts is None else drafts) + floor.verify_added_ms(spec.draft_tokens) / step_ms


def spec_speedup(spec: SpecDecode, acceptance: Value = None, draft_cost: Value = None,
                 floor: VerifyCost | None = None, step_ms: Value = None) -> Value:
    """E / step cost for the given (or likely) acceptance and draft cost; None without a cost to go on."""
    cost = spec_cost(spec, draft_cost, floor, step_ms)
    return None if cost is None else spec_tokens(spec, acceptance) / cost


def has_bucket(state: StepState, bucket: str) -> bool:
    """Whether a bucket effect can act on this step: a share of the profile (or a part split from one:
    kernel_targets.py), or the host side of its launch model."""
    return any(covers(bucket, b) for b in state.buckets) or (bucket == HOST_BUCKET and state.launch is not None)


def missing_bucket(profile: Profile | None, bucket: str) -> bool:
    """Whether an effect on `bucket` finds nothing to act on in a regime with this profile (None: no profile)."""
    return not has_bucket(start_state(profile), bucket)


def speed_up_bucket(state: StepState, bucket: str, speedup: Value) -> str | None:
    """The bucket's time divided by `speedup` (the host side of the launch model, for the host bucket)."""
    if not has_bucket(state, bucket):
        if PART in bucket:
            return "no kernel of the {} bucket in the profile matches {!r} (a trace or kernel table names them)".format(
                *bucket.split(PART, 1))
        return f"the profile has no {bucket!r} bucket"
    parts = [b for b in state.buckets if covers(bucket, b)]
    for part in parts:
        state.buckets[part] = state.buckets[part] / speedup
    if not parts and state.launch is not None:  # host time made faster: the host side only
        state.launch.host_cost = state.launch.host_cost / speedup
        state.launch.host_fixed = state.launch.host_fixed / speedup
    return None


def scale_all(state: StepState, factor: Value) -> None:
    """Every part of the step multiplied by `factor`."""
    for bucket in state.buckets:
        state.buckets[bucket] = state.buckets[bucket] * factor
    if state.launch is not None:
        state.launch.host_cost = state.launch.host_cost * factor
        state.launch.host_fixed = state.launch.host_fixed * factor
        state.launch.gap = state.launch.gap * factor
        state.launch.idle = state.launch.idle * factor


def save_time(state: StepState, bucket: str | None, saved_ms: Value, step_ms: float | None) -> str | None:
    """`saved_ms` off each step (off `bucket` when named), as a share of the baseline step; never below zero."""
    if step_ms is None:
        return "no baseline throughput to turn milliseconds into a share of the step"
    saved = saved_ms / step_ms
    if bucket is None:
        step = state.step()
        scale_all(state, _ratio(maximum(step - saved, 0.0), step))
        return None
    if not has_bucket(state, bucket):
        return f"the profile has no {bucket!r} bucket"
    if bucket in state.buckets:
        state.buckets[bucket] = maximum(state.buckets[bucket] - saved, 0.0)
    elif state.launch is not None:
        host = state.launch.host()
        factor = _ratio(maximum(host - saved, 0.0), host)
        state.launch.host_cost = state.launch.host_cost * factor
        state.launch.host_fixed = state.launch.host_fixed * factor
    return None


def _ratio(top: Value, bottom: Value) -> Value:
    if isinstance(bottom, np.ndarray):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(bottom > 0, top / np.maximum(bottom, 1e-300), 0.0)
    return top / bottom if bottom > 0 else 0.0


def spec_decode(state: StepState, spec: SpecDecode, draw: EffectDraw, regime: RegimeContext) -> str | None:
    """E tokens a step at the draft-and-verify cost (`realised`: the share of the log-gain calibration keeps).

    The verify step is the step as it stands plus the GPU time of g more tokens a sequence in flight (the hardware
    model's, StepFloor.verify_added_ms), added as its own bucket: fixed costs a step (launches, collectives, small
    kernels) do not grow with the tokens verified, and on a host-bound step the added GPU work is hidden until the GPU
    side binds. A draft cost c (the drafter's own time for each draft token, of a plain step: a draft model's forward)
    makes the step 1 + g c times as long besides; without the hardware model it is the whole price.

    `realised` (a prototype's benchmark, or calibration) is the share of the expected tokens' log a step keeps: E to
    that power, as an acceptance other than the one entered would give. What drafting and verifying cost stays as
    priced: the acceptance is what a benchmark at one concurrency can tell, the cost is not (it grows with the
    sequences in flight). A share of 0 leaves the step as it was (order_batch.py: a candidate that does not hold it)."""
    keep = 1.0 if draw.realised is None else draw.realised
    tokens = spec_tokens(spec, draw.acceptance) ** keep
    held = np.where(keep > 0, 1.0, 0.0) if isinstance(keep, np.ndarray) else float(keep > 0)
    floor, step_ms = regime.floor, regime.step_ms
    if spec.draft_cost is None and floor is None:
        return "no draft cost entered and no hardware and model specs to estimate it"
    if spec.draft_cost is None and step_ms is None:
        return "no draft cost entered and no baseline step to add the verify step's GPU time to"
    if spec.draft_cost is not None:
        scale_all(state, 1 + (spec_step_cost(spec.draft_tokens, draw.draft_cost) - 1) * held)
    if floor is not None and step_ms is not None:
        added = floor.verify_added_ms(spec.draft_tokens) / step_ms * held
        state.buckets[VERIFY_BUCKET] = state.buckets.get(VERIFY_BUCKET, 0.0) + added
    else:
        state.notes.append("no hardware and model specs or no baseline step: the verify step's added GPU time is not "
                           "priced, only the draft cost entered")
    state.tokens = state.tokens * tokens
    verify = spec.draft_tokens + 1
    if isinstance(keep, np.ndarray):  # a batch of candidates (order_batch.py): only the members verify more
        state.verify_tokens = np.where(keep > 0, np.maximum(state.verify_tokens, verify), state.verify_tokens)
    else:
        state.verify_tokens = max(state.verify_tokens, verify)
    return None


def remove_launch_overhead(state: StepState, removed: Value) -> str | None:
    """The share `removed` of the per-launch host cost gone (the host_overhead share when there are no counts)."""
    if state.launch is not None:
        state.launch.host_factor = state.launch.host_factor * (1 - removed)
        return None
    if HOST_BUCKET in state.buckets:
        state.buckets[HOST_BUCKET] = state.buckets[HOST_BUCKET] * (1 - removed)
        state.notes.append("no launch counts in the profile: taken off its host_overhead share instead")
        return None
    return "the profile has no launch counts and no host_overhead share (import a trace of this regime)"


def change_launches(state: StepState, launches: Value) -> str | None:
    """`launches` GPU work items added a step (negative: removed), their host calls in proportion."""
    launch = state.launch
    if launch is None:
        return "the profile has no launch counts (import a trace of this regime)"
    per_item = _ratio(launch.host_launches, launch.gpu_items)  # host calls per GPU item: 1 eager, ~0 in a graph
    items = maximum(launch.gpu_items + launches, 0.0)
    launch.host_launches = maximum(launch.host_launches + launches * per_item, 0.0)
    launch.gpu_items = items
    return None


def change_gpu_work(state: StepState, draw: EffectDraw, regime: RegimeContext) -> str | None:
    """GPU time added a step (`gpu_ms`, plus `gpu_ms_per_seq` a sequence in flight), as a share of the baseline
    step, in a bucket of its own; negative time comes off the GPU buckets in proportion (never below zero). Work
    items added (`gpu_items`) each pay the GPU's gap, and their launches on an eager path (as a launch count)."""
    per_step = 0.0 if draw.gpu_ms is None else draw.gpu_ms
    per_seq = 0.0 if draw.gpu_ms_per_seq is None else draw.gpu_ms_per_seq * regime.concurrency
    added_ms = per_step + per_seq
    if not (np.all(np.asarray(added_ms) == 0)):
        if regime.step_ms is None:
            return "no baseline step to turn the GPU time it adds into a share of the step"
        added = added_ms / regime.step_ms
        more = maximum(added, 0.0)
        state.buckets[ADDED_BUCKET] = state.buckets.get(ADDED_BUCKET, 0.0) + more
        less = more - added  # what it removes (>= 0)
        gpu = [bucket for bucket in state.buckets if bucket != HOST_BUCKET]
        busy = sum(state.buckets[bucket] for bucket in gpu)
        factor = _ratio(maximum(busy - less, 0.0), busy)
        for bucket in gpu:
            state.buckets[bucket] = state.buckets[bucket] * factor
    if draw.gpu_items is not None and not np.all(np.asarray(draw.gpu_items) == 0):
        if state.launch is None:
            state.notes.append("no launch counts in the profile: the work items it adds are not priced")
        else:
            change_launches(state, draw.gpu_items)
    return None

"""Where speculative decoding stops paying: the concurrency a team would put in the engine's disable-by-batch-size
setting (vLLM's `speculative_config` `disable_by_batch_size`).

At concurrency c a plain step takes step(c) and a verify step step(c) (1 + g d) + added(c), where added(c) is the GPU
time of g more tokens a sequence (ceiling.StepFloor.verify_added_ms) and d the drafter's own cost a draft token, of a
step, where one is entered (0 else). Drafting pays while E step(c) > step(c) (1 + g d) + added(c). The
regime's measured step anchors step(c): it moves from the measured one by what c sequences add in bytes and FLOPs
(StepFloor.additive_ms), never below the floor. added(c) grows with c (more tokens to compute, more experts
touched) while the fixed part of the step does not, so the speedup falls with concurrency; the search stops at the
concurrency the KV cache fits beside the weights.
"""

from __future__ import annotations

from dataclasses import dataclass

from tierplan.planning.ceiling import StepFloor

MEMORY_USABLE = 0.9  # share of the GPUs' memory an engine gives weights and KV cache (vLLM's default utilisation)


@dataclass(frozen=True)
class BreakEven:
    """Speculative decoding against one regime's measured step: its speedup there, and where it stops paying."""

    regime: str
    speedup: float  # at the regime's own concurrency
    stops_at: int | None  # the smallest concurrency where E no longer pays for the verify step; None: pays up to...
    limit: int  # ...the largest concurrency the KV cache fits (the search's end)


def kv_fit_concurrency(floor: StepFloor) -> int:
    """The most sequences of the regime's mean context whose KV cache fits beside the weights (at least 1)."""
    model, gpu = floor.model, floor.gpu
    experts = model.layers * model.routed_experts * model.expert_params()
    weights = model.dense_params() * model.dense_bytes_per_weight + experts * model.expert_bytes_per_weight
    free = gpu.count * gpu.memory_gb * 1e9 * MEMORY_USABLE - weights
    per_sequence = max(floor.context_tokens, 1.0) * model.kv_bytes_per_token
    return max(1, int(free // per_sequence)) if per_sequence > 0 else 1


def speedup_at(floor: StepFloor, step_ms: float, tokens: float, draft_tokens: int, concurrency: int,
               draft_cost: float = 0.0) -> float:
    """E tokens over the verify step's cost at `concurrency`, the step moved from the regime's measured one."""
    step = step_ms + floor.additive_ms(1, concurrency) - floor.additive_ms(1, floor.concurrency)
    step = max(step, StepFloor(floor.gpu, floor.model, concurrency, floor.context_tokens).floor_ms(1))
    return tokens * step / (step * (1 + draft_tokens * draft_cost) + floor.verify_added_ms(draft_tokens, concurrency))


def break_even(regime: str, floor: StepFloor, step_ms: float, tokens: float, draft_tokens: int,
               draft_cost: float = 0.0) -> BreakEven:
    """Where drafting g tokens that yield E a step (each draft token costing `draft_cost` of a step) stops paying,
    from one regime's measured step (a bisection: the speedup falls as concurrency grows)."""
    limit = kv_fit_concurrency(floor)
    here = speedup_at(floor, step_ms, tokens, draft_tokens, floor.concurrency, draft_cost)

    def pays(c: int) -> bool:
        return speedup_at(floor, step_ms, tokens, draft_tokens, c, draft_cost) > 1.0

    if pays(limit):
        return BreakEven(regime, here, None, limit)
    if not pays(1):
        return BreakEven(regime, here, 1, limit)
    low, high = 1, limit  # pays at low, not at high
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if pays(middle) else (low, middle)
    return BreakEven(regime, here, high, limit)

"""The hardware ceiling on decode throughput: memory-bound and compute-bound floors on step time.

A decode step of T tokens in flight reads at least the weights it touches
and the KV cache it attends to. Dense (non-routed) weights are read once a
step; an MoE layer with E routed experts and top-k routing touches
E (1 - (1 - k/E)^T) distinct experts on average. The KV cache is read at
the regime's mean decode context, input + output / 2 tokens. The compute
floor counts 2 FLOPs per active parameter per token (attention FLOPs are
left out, so it is a floor). Several GPUs aggregate their bandwidth and
FLOP/s at a stated scaling efficiency.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tierplan.planning.model import PlanningError

# Share of the datasheet bandwidth and peak FLOP/s the kernels of a verify step reach. SpecDecode-Bench's step-time
# fit for Llama-3.1-8B on one H100 under vLLM (github.com/SpecDecode-Bench/simulator, predictor.py, fitted on its
# measured runs at batch 1-64) costs each batched token 21.0 us and each KV token 0.039 us on top of 5.9 ms: 16 GFLOP a
# token at the H100's 989 TFLOP/s is 16.2 us (0.77 of peak), 128 KiB of KV at 3.35 TB/s is 0.039 us (1.0), its 16 GB
# of weights 4.8 ms (0.81 of the fixed part). 0.8 is that, stated.
VERIFY_EFFICIENCY = 0.8


@dataclass(frozen=True)
class GpuSpec:
    name: str
    count: int  # GPUs the decode step runs across
    memory_gb: float
    bandwidth_gb_s: float  # per GPU
    tflops: tuple[tuple[str, float], ...]  # dense peak TFLOP/s by data type, per GPU
    sm_count: int = 0
    interconnect: str = ""
    scaling_efficiency: float = 1.0  # 0..1: share of count x per-GPU figures a step really gets

    def peak_tflops(self, dtype: str) -> float | None:
        return dict(self.tflops).get(dtype)


@dataclass(frozen=True)
class ModelSpec:
    name: str
    total_params_b: float
    active_params_b: float
    layers: int  # MoE layers (all layers for a dense model)
    routed_experts: int  # E; 0 for a dense model
    experts_per_token: int  # k
    shared_experts: int
    dense_bytes_per_weight: float
    expert_bytes_per_weight: float
    kv_bytes_per_token: float  # over all layers
    compute_dtype: str = "fp8"

    def expert_params(self) -> float:
        """Parameters of one routed expert in one layer: (total - active) / (L (E - k))."""
        if self.routed_experts == 0:
            return 0.0
        return (self.total_params_b - self.active_params_b) * 1e9 / (
            self.layers * (self.routed_experts - self.experts_per_token)
        )

    def dense_params(self) -> float:
        """Parameters read every step whatever the routing (attention, shared experts, embeddings)."""
        return self.total_params_b * 1e9 - self.layers * self.routed_experts * self.expert_params()


@dataclass(frozen=True)
class Ceiling:
    tokens_in_flight: int
    distinct_experts: float  # per MoE layer
    weight_bytes: float
    kv_bytes: float
    memory_floor_ms: float
    compute_floor_ms: float | None
    ceiling_tok_s: float
    bound: str  # "memory" or "compute"


def distinct_experts(routed_experts: int, experts_per_token: int, tokens: int) -> float:
    """Expected distinct experts an MoE layer touches for `tokens` tokens: E (1 - (1 - k/E)^T)."""
    if routed_experts == 0:
        return 0.0
    return routed_experts * (1 - (1 - experts_per_token / routed_experts) ** tokens)


def validate_specs(gpu: GpuSpec, model: ModelSpec) -> None:
    """Raise PlanningError when the specs cannot give a ceiling."""
    check_gpu(gpu)
    check_model(model)


def check_gpu(gpu: GpuSpec) -> None:
    """PlanningError, naming the field, when the GPU figures cannot give a ceiling."""
    if gpu.count < 1:
        raise PlanningError("at least one GPU", "count")
    if gpu.bandwidth_gb_s <= 0:
        raise PlanningError("memory bandwidth must be positive", "bandwidth_gb_s")
    if not 0 < gpu.scaling_efficiency <= 1:
        raise PlanningError("scaling efficiency lies in (0, 1]", "scaling_efficiency")


def check_model(model: ModelSpec) -> None:
    """PlanningError, naming the field, when the model's shape does not add up."""
    if model.active_params_b <= 0:
        raise PlanningError("active parameters must be positive", "active_params_b")
    if model.active_params_b > model.total_params_b:
        raise PlanningError("cannot exceed the total", "active_params_b")
    if model.routed_experts and not 0 < model.experts_per_token < model.routed_experts:
        raise PlanningError("between 1 and the routed experts minus one", "experts_per_token")
    if not model.routed_experts and model.active_params_b != model.total_params_b:
        raise PlanningError("a dense model (no routed experts) has active = total parameters", "routed_experts")
    if model.routed_experts and model.dense_params() < 0:
        raise PlanningError("total and active parameters do not fit the expert counts", "total_params_b")


def decode_ceiling(
    gpu: GpuSpec, model: ModelSpec, concurrency: int, context_tokens: float, tokens_per_sequence: int = 1
) -> Ceiling:
    """The ceiling (tok/s) of a decode step of `concurrency` sequences at `context_tokens`.

    Each sequence has `tokens_per_sequence` tokens in flight (g + 1 when a step verifies g drafts):
    they touch more experts and take more FLOPs, but read the sequence's KV cache once.
    """
    validate_specs(gpu, model)
    tokens = concurrency * tokens_per_sequence
    experts = distinct_experts(model.routed_experts, model.experts_per_token, tokens)
    weight_bytes = (
        model.dense_params() * model.dense_bytes_per_weight
        + model.layers * experts * model.expert_params() * model.expert_bytes_per_weight
    )
    kv_bytes = concurrency * context_tokens * model.kv_bytes_per_token
    bandwidth_bytes_s = gpu.count * gpu.bandwidth_gb_s * 1e9 * gpu.scaling_efficiency
    memory_ms = (weight_bytes + kv_bytes) / bandwidth_bytes_s * 1000
    peak = gpu.peak_tflops(model.compute_dtype)
    compute_ms = None
    if peak:
        flops = 2 * model.active_params_b * 1e9 * tokens
        compute_ms = flops / (gpu.count * peak * 1e12 * gpu.scaling_efficiency) * 1000
    floor_ms = max(memory_ms, compute_ms or 0.0)
    return Ceiling(
        tokens_in_flight=tokens,
        distinct_experts=experts,
        weight_bytes=weight_bytes,
        kv_bytes=kv_bytes,
        memory_floor_ms=memory_ms,
        compute_floor_ms=compute_ms,
        ceiling_tok_s=tokens / floor_ms * 1000,
        bound="compute" if compute_ms and compute_ms > memory_ms else "memory",
    )


def mean_decode_context(input_tokens: int, output_tokens: int) -> float:
    """Mean context length over a request's decode: input plus half the output."""
    return input_tokens + output_tokens / 2


@dataclass(frozen=True)
class StepFloor:
    """The hardware model of one regime: the floor on its step time for any tokens a sequence in flight."""

    gpu: GpuSpec
    model: ModelSpec
    concurrency: int
    context_tokens: float

    def floor_ms(self, tokens_per_sequence: int = 1) -> float:
        ceiling = decode_ceiling(self.gpu, self.model, self.concurrency, self.context_tokens, tokens_per_sequence)
        return max(ceiling.memory_floor_ms, ceiling.compute_floor_ms or 0.0)

    def verify_cost(self, draft_tokens: int) -> float:
        """A step verifying g drafts a sequence over a plain step, as the floors see it (>= 1)."""
        return self.floor_ms(draft_tokens + 1) / self.floor_ms(1)

    def verify_added_ms(self, draft_tokens: int, concurrency: int | None = None) -> float:
        """GPU time (ms) a step verifying g drafts a sequence adds to a plain one, at `concurrency` (the regime's when
        None): the bytes its extra tokens read (experts they touch) plus the FLOPs they take, each at
        VERIFY_EFFICIENCY. The two add rather than overlap: a real step's FLOPs grow with the tokens in flight on top
        of its weight streaming (the SpecDecode-Bench fit above is of that shape), where the floor's max() would call
        them free until compute binds."""
        return self.additive_ms(draft_tokens + 1, concurrency) - self.additive_ms(1, concurrency)

    def additive_ms(self, tokens_per_sequence: int = 1, concurrency: int | None = None) -> float:
        """A step's bytes at the bandwidth plus its FLOPs at the peak (ms), each at VERIFY_EFFICIENCY."""
        ceiling = decode_ceiling(self.gpu, self.model, self.concurrency if concurrency is None else concurrency,
                                 self.context_tokens, tokens_per_sequence)
        return (ceiling.memory_floor_ms + (ceiling.compute_floor_ms or 0.0)) / VERIFY_EFFICIENCY

    def ceiling_tok_s(self, tokens_per_step: Any = 1.0, verify_tokens: int = 1) -> Any:
        """Throughput cap when a step yields `tokens_per_step` a sequence with `verify_tokens` in flight."""
        return self.concurrency * tokens_per_step / self.floor_ms(verify_tokens) * 1000

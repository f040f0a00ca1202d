"""The gap to the floor, bucket by bucket: what each bucket of a measured step takes against the least its bytes and
FLOPs allow, and what no bucket's floor explains.

The floors a step's buckets can be held to (ceiling.py's arithmetic, split): `attention` reads the KV cache (the
regime's concurrency x mean context x KV bytes a token); `moe` reads the distinct experts its tokens touch and takes 2
FLOPs a routed parameter a token; `dense_gemm` reads the dense weights (attention projections, shared experts,
embeddings) and takes 2 FLOPs a dense active parameter a token. Each at the GPUs' full bandwidth and peak, the larger
of the two. Other buckets (host overhead, elementwise, communication, sampling, other) have no floor tierplan can
compute: their whole time is unexplained by bytes or FLOPs.
"""

from __future__ import annotations

from dataclasses import dataclass

from tierplan.planning.ceiling import StepFloor, distinct_experts
from tierplan.planning.kernel_targets import parent_of
from tierplan.planning.model import Profile
from tierplan.planning.step import HOST_BUCKET

FLOORED = ("attention", "moe", "dense_gemm")
LARGE_UNEXPLAINED = 0.5  # a step more than half unexplained: the plan says what to measure next


@dataclass(frozen=True)
class BucketGap:
    bucket: str
    ms: float  # its time in the measured step
    floor_ms: float | None  # None: no floor tierplan can compute

    @property
    def efficiency(self) -> float | None:
        return None if self.floor_ms is None or self.ms <= 0 else self.floor_ms / self.ms


@dataclass(frozen=True)
class FloorGap:
    regime: str
    step_ms: float
    floor_ms: float  # the whole step's (ceiling.py)
    buckets: tuple[BucketGap, ...]  # largest first

    @property
    def unexplained_ms(self) -> float:
        """The step less the floors of its floored buckets: time neither bytes nor FLOPs account for."""
        return max(0.0, self.step_ms - sum(b.floor_ms or 0.0 for b in self.buckets))


def bucket_floor_ms(floor: StepFloor) -> dict[str, float]:
    """Each floored bucket's floor (ms) for a plain step of the regime, at the full bandwidth and peak."""
    gpu, model = floor.gpu, floor.model
    bandwidth = gpu.count * gpu.bandwidth_gb_s * 1e9 * gpu.scaling_efficiency  # bytes a second
    peak = (gpu.peak_tflops(model.compute_dtype) or 0.0) * 1e12 * gpu.count * gpu.scaling_efficiency
    tokens = floor.concurrency
    experts = distinct_experts(model.routed_experts, model.experts_per_token, tokens)
    expert_params = model.layers * model.expert_params()
    routed_active = model.layers * model.experts_per_token * model.expert_params()

    def ms(n_bytes: float, flops: float) -> float:
        compute = flops / peak if peak else 0.0
        return max(n_bytes / bandwidth, compute) * 1000

    out = {
        "attention": ms(floor.concurrency * floor.context_tokens * model.kv_bytes_per_token, 0.0),
        "dense_gemm": ms(model.dense_params() * model.dense_bytes_per_weight,
                         2 * (model.active_params_b * 1e9 - routed_active) * tokens),
    }
    if model.routed_experts:
        out["moe"] = ms(experts * expert_params * model.expert_bytes_per_weight, 2 * routed_active * tokens)
    return out


def floor_gap(regime: str, profile: Profile | None, step_ms: float | None, floor: StepFloor) -> FloorGap | None:
    """The measured step's buckets against their floors (None without a profile and a step in ms)."""
    if profile is None or not step_ms:
        return None
    floors = bucket_floor_ms(floor)
    whole: dict[str, float] = {}
    for bucket, share in profile.shares:  # kernels split from a bucket (kernel_targets.py) are of its floor
        whole[parent_of(bucket)] = whole.get(parent_of(bucket), 0.0) + share
    buckets = tuple(sorted((BucketGap(b, s * step_ms, floors.get(b) if b != HOST_BUCKET else None)
                            for b, s in whole.items() if s > 0), key=lambda g: -g.ms))
    return FloorGap(regime, step_ms, floor.floor_ms(1), buckets)


def gap_sentence(gap: FloorGap, traced: bool) -> str:
    """The gap in words, and what to measure next when most of the step is unexplained."""
    parts = []
    for b in gap.buckets[:5]:
        if b.floor_ms is None:
            parts.append(f"{b.bucket} {b.ms:.3g} ms ({b.ms / gap.step_ms:.0%}), no floor")
        else:
            parts.append(f"{b.bucket} {b.ms:.3g} ms at {_percent(b.efficiency)} of its {b.floor_ms:.3g} ms floor")
    unexplained = gap.unexplained_ms / gap.step_ms
    text = (f"the {gap.step_ms:.3g} ms step is {gap.step_ms / gap.floor_ms:.0f}x its {gap.floor_ms:.3g} ms floor; "
            + "; ".join(parts) + f"; {unexplained:.0%} of the step is explained by neither bytes nor FLOPs")
    if unexplained > LARGE_UNEXPLAINED:
        text += f"; measure next: {_next_measurement(gap, traced)}"
    return text


def _next_measurement(gap: FloorGap, traced: bool) -> str:
    if not traced:
        return "a trace of this regime (torch.profiler with ProfilerStep markers), to split host time from kernels"
    largest = gap.buckets[0]
    if largest.floor_ms is None:
        return (f"what {largest.bucket} is ({largest.ms:.3g} ms a step with no floor): the host side with Python "
                "stacks if it is host overhead, the kernels in it with Nsight Compute otherwise")
    return (f"the {largest.bucket} kernels with Nsight Compute (grid, occupancy, DRAM throughput): they run at "
            f"{_percent(largest.efficiency)} of their floor")


def _percent(share: float | None) -> str:
    """12%, or 0.0016% for a share below 1% (two figures)."""
    if share is None:
        return "—"
    return f"{share:.0%}" if share >= 0.01 else f"{share * 100:.2g}%"

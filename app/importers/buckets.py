"""Kernel name -> bucket through ordered regular-expression rules, and shares of step time.

Shares are of the step, not of GPU time: given the regime's measured step time and the number of
steps the profile covers, the GPU-idle remainder is the "host / launch overhead" bucket (at batch 1
an eager decode is mostly idle GPU).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.importers.records import KernelSummary

HOST_BUCKET = "host_overhead"
OTHER_BUCKET = "other"

# (pattern, bucket), first match wins; matched case-insensitively against the full kernel name
DEFAULT_RULES: tuple[tuple[str, str], ...] = (
    (r"nccl|all_?reduce|all_?gather|reduce_?scatter|alltoall|all2all|deepep|cross_device", "communication"),
    (r"memcpy|memset|copy_kernel|Memcpy|Memset", "memory_copy"),
    (r"moe|expert|fused_experts|grouped_gemm|group_gemm|topk_softmax|moe_align|cutlass_moe|marlin_moe", "moe"),
    (r"attn|attention|flash|fmha|mla|paged|decode_kernel|sparse_decode|indexer|softmax|rotary|rope", "attention"),
    (r"gemm|gemv|matmul|cublas|cutlass|sm\d+_xmma|ampere_|hopper_|nvjet|wgmma|deep_?gemm|splitk|scaled_mm", "dense_gemm"),
    (r"norm|silu|gelu|act_and_mul|elementwise|vectorized|reduce|index|gather|scatter|cat|fill|add|mul", "elementwise"),
)


@dataclass(frozen=True)
class Rule:
    pattern: str
    bucket: str


@dataclass
class BucketedKernel:
    name: str
    bucket: str
    total_us: float
    count: int
    share_of_gpu: float


@dataclass
class Bucketing:
    kernels: list[BucketedKernel]  # by total time, largest first
    bucket_us: dict[str, float]
    unmatched: list[str]
    gpu_time_us: float


def compile_rules(rules) -> list[tuple[re.Pattern, str]]:
    """Compile (pattern, bucket) pairs; raises ValueError naming the bad pattern."""
    compiled = []
    for pattern, bucket in rules:
        try:
            compiled.append((re.compile(pattern, re.IGNORECASE), bucket))
        except re.error as exc:
            raise ValueError(f"rule {pattern!r}: {exc}") from None
    return compiled


def bucket_kernels(summary: KernelSummary, rules=DEFAULT_RULES) -> Bucketing:
    """Assign each kernel to the bucket of the first rule that matches it, else to "other"."""
    compiled = compile_rules(rules)
    total = summary.gpu_time_us or 1.0
    kernels, bucket_us, unmatched = [], {}, []
    for name, (time_us, count) in sorted(summary.kernels.items(), key=lambda kv: -kv[1][0]):
        bucket = next((b for regex, b in compiled if regex.search(name)), None)
        if bucket is None:
            bucket = OTHER_BUCKET
            unmatched.append(name)
        bucket_us[bucket] = bucket_us.get(bucket, 0.0) + time_us
        kernels.append(BucketedKernel(name, bucket, time_us, count, time_us / total))
    return Bucketing(kernels, bucket_us, unmatched, summary.gpu_time_us)


def step_shares(bucketing: Bucketing, *, ranks: int, step_ms: float | None, steps: int | None) -> tuple[dict[str, float], str]:
    """Shares of step time by bucket, and how they were computed.

    With the step time and step count, GPU time per rank over the covered step time gives each
    bucket's share and the idle remainder becomes host / launch overhead. Without them the shares
    are of GPU time only, which overstates every GPU bucket when the GPU idles.
    """
    gpu_us_per_rank = {b: us / ranks for b, us in bucketing.bucket_us.items()}
    busy_us = sum(gpu_us_per_rank.values())
    if step_ms and steps:
        covered_us = step_ms * 1000 * steps
        if busy_us > covered_us * 1.02:
            raise ValueError(
                f"the trace holds {busy_us / 1000:.2f} ms of GPU time a rank, more than {steps} steps of "
                f"{step_ms:g} ms ({covered_us / 1000:.2f} ms): check the step time and the step count"
            )
        shares = {b: us / covered_us for b, us in gpu_us_per_rank.items()}
        shares[HOST_BUCKET] = max(0.0, 1 - sum(shares.values()))
        how = (f"GPU time over {steps} steps of {step_ms:g} ms; the idle "
               f"{shares[HOST_BUCKET] * 100:.0f}% is host / launch overhead")
        return _normalised(shares), how
    shares = {b: us / busy_us for b, us in gpu_us_per_rank.items()}
    return _normalised(shares), "shares of GPU time only (no step time and step count given): GPU idle time is not counted"


def _normalised(shares: dict[str, float]) -> dict[str, float]:
    total = sum(shares.values())
    return {b: s / total for b, s in sorted(shares.items(), key=lambda kv: -kv[1])} if total else shares

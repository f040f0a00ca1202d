"""Kernel name -> bucket through ordered regular-expression rules, and shares of step time.

Shares are of the step, not of GPU time: given the regime's measured step time and the number of
steps the profile covers, the GPU-idle remainder is the "host / launch overhead" bucket (at batch 1
an eager decode is mostly idle GPU).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tierplan.importers.records import KernelSummary
from tierplan.patterns import compile_pattern

HOST_BUCKET = "host_overhead"
OTHER_BUCKET = "other"
UNLISTED_BUCKET = "unlisted"  # kernel time a truncated table (nsys Time (%) below 100) does not list

# (pattern, bucket), first match wins; matched case-insensitively anywhere in the kernel name. Names checked
# against the tools' own sources: vLLM csrc/moe (topkGatingSoftmax, moeSoftmax, moe_align_block_size,
# marlin_moe_wna16::Marlin), fused_moe_kernel (Triton), SGLang moe_fused_gate, CUTLASS 3 grouped GEMMs
# (GemmUniversal<GroupProblemShape ...>, KernelPtrArray... schedules, as torch._grouped_mm launches them),
# DeepGEMM (GemmType::MGroupedContiguous / MGroupedMasked), vLLM paged_attention_v*_kernel,
# reshape_and_cache_flash_kernel, kernel_unified_attention_2d, cross_device_reduce_1stage, FlashInfer
# BatchDecodeWithPagedKVCacheKernel, flash-attn / pytorch_flash flash_fwd_*, PyTorch SDPA
# (fmha_cutlassF_*, cudnn_generated_fort_native_sdpa_*), FlashMLA. "[router] " marks kernels a trace shows
# were launched by a softmax or sigmoid followed by top-k: an MoE router in eager PyTorch; "[attention] " kernels
# launched inside an attention function (eager attention's matmuls and softmax: trace_tags.ATTENTION_SPAN).
DEFAULT_RULES: tuple[tuple[str, str], ...] = (
    (r"nccl|all_?reduce|all_?gather|reduce_?scatter|alltoall|all2all|deep_?ep|cross_device_reduce|one_shot|two_shot",
     "communication"),
    (r"^\[attention\]", "attention"),
    (r"^\[router\]|moe|expert|topkgating|topk_softmax|grouped_topk|fused_gate", "moe"),
    (r"groupproblemshape|ptrarray|grouped_?gemm|group_gemm|grouped_mm|mgrouped|kgrouped|groupedmasked", "moe"),
    (r"memcpy|memset|copy_kernel", "memory_copy"),
    (r"attn|attention|flash|fmha|mla|paged|sdpa|decode_kernel|sparse_decode|indexer|softmax|rotary|rope"
     r"|reshape_and_cache|concat_and_cache|batchdecode|batchprefill|singleprefill|_fwd_kernel|merge_state", "attention"),
    (r"sampl|argmax|top_?p|topk|gathertopk|radixselect|multinomial|distribution_|bitonicsort", "sampling"),
    (r"gemm|gemv|matmul|cublas|cutlass|sm\d+_xmma|ampere_|hopper_|nvjet|wgmma|deep_?gemm|splitk|scaled_mm|marlin"
     r"|machete", "dense_gemm"),
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


KEPT_KERNELS = 200  # stored with a profile, for effects that target kernels (the largest; the rest are the tail)


def kept_kernels(bucketing: Bucketing, steps: int | None) -> list[tuple[str, str, float, float]]:
    """The largest KEPT_KERNELS kernels as a profile keeps them: name, bucket, fraction of that bucket's time, and
    launches a step (0 where the step count is not known)."""
    return [(k.name[:1000], k.bucket, k.total_us / bucketing.bucket_us[k.bucket], k.count / steps if steps else 0.0)
            for k in bucketing.kernels[:KEPT_KERNELS] if bucketing.bucket_us.get(k.bucket)]


def kept_blocks(bucketing: Bucketing, blocks_per_sm: dict[str, float]) -> dict[str, float]:
    """The kept kernels' mean blocks per SM, by the name kept_kernels gives them, where the trace said."""
    return {k.name[:1000]: blocks_per_sm[k.name] for k in bucketing.kernels[:KEPT_KERNELS]
            if k.name in blocks_per_sm and bucketing.bucket_us.get(k.bucket)}


def compile_rules(rules) -> list[tuple[Any, str]]:
    """Compile (pattern, bucket) pairs; raises ValueError naming the bad pattern."""
    return [(compile_pattern(pattern), bucket) for pattern, bucket in rules]


def bucket_kernels(summary: KernelSummary, rules=DEFAULT_RULES) -> Bucketing:
    """Assign each kernel to the bucket of the first rule that matches it, else to "other"."""
    compiled = compile_rules(rules)
    total = summary.gpu_time_us or 1.0
    kernels: list[BucketedKernel] = []
    bucket_us: dict[str, float] = {}
    unmatched: list[str] = []
    for name, (time_us, count) in sorted(summary.kernels.items(), key=lambda kv: -kv[1][0]):
        bucket = next((b for regex, b in compiled if regex.search(name)), None)
        if bucket is None:
            bucket = OTHER_BUCKET
            unmatched.append(name)
        bucket_us[bucket] = bucket_us.get(bucket, 0.0) + time_us
        kernels.append(BucketedKernel(name, bucket, time_us, int(count), time_us / total))
    return Bucketing(kernels, bucket_us, unmatched, summary.gpu_time_us)


def step_shares(
    bucketing: Bucketing, *, ranks: int, step_ms: float | None, steps: int | None, listed_share: float | None = None
) -> tuple[dict[str, float], str]:
    """Shares of step time by bucket, and how they were computed.

    With the step time and step count, GPU time per rank over the covered step time gives each
    bucket's share and the idle remainder becomes host / launch overhead. Without them the shares
    are of GPU time only, which overstates every GPU bucket when the GPU idles. A table that lists
    only part of the kernel time (`listed_share` below 1) keeps the rest as "unlisted".
    """
    gpu_us_per_rank = {b: us / ranks for b, us in bucketing.bucket_us.items()}
    listed_us = sum(gpu_us_per_rank.values())
    unlisted = ""
    if listed_share is not None and 0 < listed_share < 0.995:
        gpu_us_per_rank[UNLISTED_BUCKET] = listed_us * (1 / listed_share - 1)
        unlisted = f"; the table lists {listed_share * 100:.1f}% of kernel time, the rest is kept as unlisted"
    busy_us = sum(gpu_us_per_rank.values())
    if step_ms and steps:
        covered_us = step_ms * 1000 * steps
        if busy_us > covered_us * 1.02:
            raise ValueError(
                f"the trace holds {busy_us / 1000:.2f} ms of GPU time a rank, more than {steps} steps of "
                f"{step_ms:.4g} ms ({covered_us / 1000:.2f} ms): check the step time and the step count"
            )
        scale = min(1.0, covered_us / busy_us) if busy_us else 1.0  # within 2% over: the GPU filled the step
        shares = {b: us * scale / covered_us for b, us in gpu_us_per_rank.items()}
        shares[HOST_BUCKET] = max(0.0, 1 - sum(shares.values()))
        how = (f"GPU time over {steps} steps of {step_ms:.4g} ms; the idle "
               f"{shares[HOST_BUCKET] * 100:.0f}% is host / launch overhead{unlisted}")
        return _sorted(shares), how
    shares = {b: us / busy_us for b, us in gpu_us_per_rank.items()} if busy_us else {}
    return _sorted(shares), ("shares of GPU time only (no step time and step count given): GPU idle time is not "
                             f"counted{unlisted}")


def _sorted(shares: dict[str, float]) -> dict[str, float]:
    return dict(sorted(shares.items(), key=lambda kv: -kv[1]))

"""Bottleneck risk: what the bands add where an effect moves the side of the step that binds, or changes the GPU work
along an implementation path without saying how. The projection states the team's inputs; these are the Monte
Carlo's alone, reported as their own share of each band ("bottleneck risk").

1. The side that now binds. An effect that takes a step from host-bound to GPU-bound (CUDA graphs, fewer launches)
   or back (kernels made faster than the host issues them) leaves it resting on the other side's time, which the
   baseline never measured as the bottleneck: each such move adds a normal term of BINDING_SIGMA to ln(time a token)
   in the samples where it moves. 0.10: the GPU side of an eager trace is measured busy time plus a gap a kernel; on
   the shared H200 pair the gap prior was 0.2 us a kernel high and the graph path's GPU time 7% above the eager
   trace's, and the host side of the dense H100 traces moved by 6% between two runs of the same step
   (tests/data/dense/README.md: 7.43 and 7.00 ms).
2. GPU work along a path. CUDA graphs need static shapes: a graph-captured decode pads the batch to a captured size
   and, on a static KV cache, attends over the cache's whole length where the eager path attends over the tokens so
   far. A launch-overhead effect whose intervention states no GPU work (a gpu_work effect) draws that work as a
   share of the GPU time the step holds when it applies: attention's share of it times a stretch, plus padding.
   The stretch is log-normal, median STRETCH_MEDIAN, P90 STRETCH_P90 (a static cache of max_len over a mean
   context of max_len / (1 + stretch): vLLM's paged graphs add none; transformers' static cache of 4096 positions
   over a 512-token context adds 7, as the cuDNN sweep of tests/data/graphs measured (its attention 5.5x the eager
   path's); a cache sized to the model's whole context, Llama-3's 8192 positions, over a chat's 630-token mean
   context adds 12; and a masked attention that falls off its fused kernel adds far more, as the math-attention
   sweep of tests/data/graphs_no_cudnn did, beyond any band worth drawing). The P90 is 50: a static cache sized to
   a 32k-position context over that chat adds 51, and it is what the seven measured graph paths of bench/fidelity.py
   call for. Entered as launch cost removed with no GPU work, 30 of their cases are judged by their band alone; at
   a P90 of 20 (set from the issue that asked for this prior: 41% to 239% added at batch 8 to 64) 7 of the 30 fell
   above it, among them the blind 4096-position reduce-overhead sweep (tests/data/graphs_hf_inductor_4096: 3.8x and
   5.3x the launch model's step at batches 32 and 64); at 50, 3 do (10%, as a P90 should): math attention at batches 8
   and 64, and the cudagraphs backend's copies at batch 8. Earlier sweeps inside it: Llama-3.2-1B's shape
   (tests/data/graphs_1b) and transformers' reduce-overhead path (tests/data/graphs_hf_inductor, 1.3x to 3.0x the
   launch model's step at batches 8 to 64). Padding is uniform on
   [0, min(PADDING_MAX, 7 / concurrency)] above concurrency 2 (vLLM captures batch sizes 1, 2, 4 and then
   multiples of 8: a batch of c pads to at most c + 7, none at 1 and 2).
   A regime whose profile has no attention bucket takes UNKNOWN_ATTENTION_SHARE.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tierplan.planning.kernel_targets import covers
from tierplan.planning.step import HOST_BUCKET, StepState

BINDING_SIGMA = 0.10
STRETCH_MEDIAN = 1.0
STRETCH_P90 = 50.0
PADDING_MAX = 0.25
UNKNOWN_ATTENTION_SHARE = 0.3
ATTENTION_BUCKET = "attention"
_Z90 = 1.2815515655446004


def binding(state: StepState) -> Any:
    """Per sample: whether the host side binds the step (None without a launch model)."""
    if state.launch is None:
        return None
    return np.asarray(state.launch.host()) >= np.asarray(state.launch.gpu_side(state.gpu()))


def moved(before: Any, after: Any) -> Any:
    """Per sample: 1.0 where the binding side changed, else 0.0 (0 without a launch model)."""
    if before is None or after is None:
        return 0.0
    return (np.asarray(before) != np.asarray(after)).astype(float)


def draw_path_work(rng: np.random.Generator, samples: int) -> tuple[np.ndarray, np.ndarray]:
    """The stretch and a uniform 0..1 draw of the padding, of one undescribed graph path, a value a sample."""
    sigma = np.log(STRETCH_P90 / STRETCH_MEDIAN) / _Z90
    stretch = STRETCH_MEDIAN * np.exp(sigma * rng.standard_normal(samples))
    return stretch, rng.uniform(0.0, 1.0, samples)


def padding_max(concurrency: Any) -> Any:
    """The largest share of a step's batch a graph path pads, at this concurrency."""
    c = np.asarray(concurrency, dtype=float)
    return np.where(c > 2, np.minimum(PADDING_MAX, 7.0 / np.maximum(c, 1.0)), 0.0)


def add_path_work(state: StepState, stretch: Any, unit: Any, concurrency: Any) -> None:
    """The GPU buckets grown by padding plus the stretch times attention's share of the GPU time."""
    padding = unit * padding_max(concurrency)
    gpu = [bucket for bucket in state.buckets if bucket != HOST_BUCKET]
    busy = sum(state.buckets[bucket] for bucket in gpu)
    share: Any = UNKNOWN_ATTENTION_SHARE
    attention = [bucket for bucket in gpu if covers(ATTENTION_BUCKET, bucket)]  # with kernels split from it
    if attention:
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(np.asarray(busy) > 0, sum(state.buckets[b] for b in attention) / np.maximum(busy, 1e-300),
                             0.0)
    factor = 1.0 + padding + stretch * share
    for bucket in gpu:
        state.buckets[bucket] = state.buckets[bucket] * factor

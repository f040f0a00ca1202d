"""The time of one decode step, as the effects of a plan change it.

Times are relative to the baseline step (1.0) and may be floats or numpy arrays of Monte Carlo
samples. Two shapes of profile:

- shares only: the step is the sum of its buckets (Amdahl's law; a `host_overhead` bucket is
  just another share);
- shares and launch counts (a trace gave them): the host issues `L` launches a step at `c` each,
  plus a fixed `h`, while the GPU runs its buckets' busy time `G` and pays a gap `r` before each
  of its `N` work items. Host issue overlaps GPU work, so

      step = max(L c + h, G + N r + p (s + (1 - s) N / N0))

  A host-bound step (an eager decode at batch 1) does not get faster when a kernel does; removing
  launch cost (CUDA graphs) or launches (a fused path) does, until the GPU side binds. `c` is
  found from the measured step: when the GPU side leaves idle time, the host is what the step
  waits for, so L c + h = step. When it does not, the step is GPU-bound: `c` is the host time its trace
  measured apart from waits for the GPU, over its launches (importers/trace_host.py), else a prior. Idle GPU
  time the measured gaps do not account for is, for the items a replay queued (1 - L / N of them), `p`. It is a
  pause a step (the sampled token read back, the next replay launched) that no change to the GPU work moves, or the
  GPU waiting on the graph's nodes as the host submits them, which grows with the nodes: cudaGraphLaunch took 0.6
  ms for 328 nodes and 1.0-1.3 ms for 576 in tests/data/fp8_batches, where the FP8 path's 576 nodes idled 0.3 ms at
  batch 1 and the bf16 path's 328 none. One trace cannot tell the two apart: the projection takes half of each
  (PAUSE_SHARE), and the band draws the share on 0..1. For the items each launched by a call of their own, and where
  the gap was not measured, idle time is more gap before each item.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from tierplan.planning.model import OTHER_BUCKET, PlanningError, Profile

HOST_BUCKET = "host_overhead"
UNPROFILED_BUCKET = "unprofiled"
HOST_COST_PRIOR_US = 5.0  # per launch, when a GPU-bound trace cannot show it (assumed: a CUDA launch call)
# The GPU's own time before each queued kernel, where a trace cannot show it (every kernel was waiting for its
# launch): NVIDIA's "Getting Started with CUDA Graphs" measures about 0.5 us a kernel left with graphs (3.4 us
# against 2.9 us of kernel); the shared H200 graph replays show 0.42 us between queued kernels.
GPU_GAP_PRIOR_US = 0.5
# Of the idle time a replay leaves beyond its items' gaps, the share that is a pause a step; the band draws it on 0..1
PAUSE_SHARE = 0.5
HOST_SLACK = 1e-9  # a step whose GPU side is this share short of it leaves idle time
# A step whose trace's host time (apart from waits for the GPU) is less than this share of it is not host-bound. On the
# H100 sweeps of tests/data, eager steps spend 97.6-100% of their traced step on the host, graph replays 0.6-47%.
HOST_BOUND_SHARE = 0.9


Value = Any  # a float (a point) or a numpy array (samples)


def maximum(a: Value, b: Value) -> Value:
    """The larger of two points, or the element-wise larger of samples."""
    return np.maximum(a, b) if isinstance(a, np.ndarray) or isinstance(b, np.ndarray) else max(a, b)


@dataclass
class LaunchState:
    gpu_items: Any  # N: work items the GPU runs a step
    host_launches: Any  # L: launch calls the host makes a step
    host_cost: Any  # c: host time per launch call (relative)
    host_fixed: Any  # h: host time a step that is not per launch (relative)
    gap: Any  # r: GPU time the GPU itself spends before each item (relative)
    host_factor: Any = 1.0  # share of the per-launch host cost left (CUDA graphs lower it)
    idle: Any = 0.0  # p: the baseline's idle GPU time between a replay's items beyond their gaps (relative)
    idle_items: Any = 1.0  # the baseline's GPU items that idle time was spread over
    pause_share: Any = PAUSE_SHARE  # of that idle time, a pause a step; the rest grows with the items

    def host(self) -> Value:
        return self.host_launches * self.host_cost * self.host_factor + self.host_fixed

    def gpu_side(self, busy: Value) -> Value:
        """The GPU side of the step around `busy` GPU time: a gap before each item, and the idle time a replay
        leaves, a pause in part and in part per item (see the module's docstring)."""
        per_item = self.gpu_items / self.idle_items
        return busy + self.gpu_items * self.gap + self.idle * (self.pause_share + (1 - self.pause_share) * per_item)


@dataclass
class StepState:
    """Bucket times of one step (relative), the launch model if any, and tokens a sequence per step."""

    buckets: dict[str, Any]  # GPU buckets; with shares only, host_overhead is one of them
    launch: LaunchState | None = None
    tokens: Any = 1.0  # tokens each sequence gains a step (speculative decoding makes it E)
    verify_tokens: Any = 1  # tokens each sequence has in flight a step (g + 1 when verifying drafts)
    notes: list[str] = field(default_factory=list)

    def gpu(self) -> Value:
        """The GPU buckets' sum, added in place once it is an array of the samples (a Monte Carlo sums it often)."""
        total: Any = 0.0
        for value in self.buckets.values():
            if isinstance(total, np.ndarray) and np.shape(value) == total.shape:
                total += value
            else:
                total = total + value
        return total

    def step(self) -> Value:
        """The step time (relative to the baseline step)."""
        if self.launch is None:
            return self.gpu()
        return maximum(self.launch.host(), self.launch.gpu_side(self.gpu()))

    def per_token(self) -> Value:
        return self.step() / self.tokens

    def shares(self) -> dict[str, Any]:
        """Each bucket's share of the step; with launches, idle GPU time is `host_overhead`."""
        step = self.step()
        out = {b: t / step for b, t in self.buckets.items()}
        if self.launch is not None:
            out[HOST_BUCKET] = (step - self.gpu()) / step
        return out

    def copy(self) -> StepState:
        launch = replace(self.launch) if self.launch is not None else None
        return StepState(dict(self.buckets), launch, self.tokens, self.verify_tokens, [])

    def broadcast(self, samples: int) -> StepState:
        """The same state as arrays of `samples` equal values (the Monte Carlo's start)."""
        def full(v: Any) -> Any:
            return np.full(samples, float(v))
        launch = None
        if self.launch is not None:
            la = self.launch
            launch = LaunchState(full(la.gpu_items), full(la.host_launches), full(la.host_cost),
                                 full(la.host_fixed), full(la.gap), full(la.host_factor), full(la.idle),
                                 full(la.idle_items), full(la.pause_share))
        return StepState({b: full(t) for b, t in self.buckets.items()}, launch, full(self.tokens), self.verify_tokens)


def start_state(profile: Profile | None) -> StepState:
    """The baseline step of a regime: its profile, with the launch model when the profile has launch counts."""
    if profile is None:
        return StepState({UNPROFILED_BUCKET: 1.0})
    shares = profile.as_dict()
    launches = profile.launches
    if launches is None or launches.gpu_items <= 0:
        return StepState(shares)
    busy = {b: s for b, s in shares.items() if b != HOST_BUCKET}
    gpu = sum(busy.values())
    step_us = launches.step_ms * 1000
    gap = launches.gpu_gap_us / step_us
    fixed = launches.host_fixed_ms * 1000 / step_us
    notes, replay_idle = [], 0.0
    if host_bound(profile):
        if fixed >= 1:
            raise PlanningError("the fixed host time a step is longer than the step itself")
        cost = (1 - fixed) / max(launches.host_launches, 1e-9)  # the step waits for the host
    else:
        idle = 1 - gpu - launches.gpu_items * gap
        if idle > 0 and launches.gap_measured:
            # items queued in a replay, not each behind a call of its own: their idle time is a pause between steps
            # (the token read back, the next replay launched); the rest waits on launches, a gap before each item
            queued = min(max(1 - launches.host_launches / launches.gpu_items, 0.0), 1.0)
            replay_idle = idle * queued
            gap += idle * (1 - queued) / launches.gpu_items
        else:  # GPU-bound: the gaps are what idle time there is
            gap = max(1 - gpu, 0.0) / launches.gpu_items
        most = (1 - fixed) / max(launches.host_launches, 1e-9)
        if launches.host_busy_ms is None:
            cost = min(HOST_COST_PRIOR_US / step_us, most)
            notes.append(f"the step is GPU-bound: per-launch host cost taken as {HOST_COST_PRIOR_US:g} µs (assumed)")
        else:  # the host time its trace measured apart from waits
            cost = min(max(launches.host_busy_ms * 1000 / step_us - fixed, 0.0) / max(launches.host_launches, 1e-9),
                       most)
            notes.append(f"the step is GPU-bound: per-launch host cost {cost * step_us:.3g} µs, from its host time "
                         f"of {launches.host_busy_ms:.3g} ms a step apart from waits for the GPU (measured: its "
                         "share of the traced step)")
    launch = LaunchState(launches.gpu_items, launches.host_launches, cost, fixed, gap, idle=replay_idle,
                         idle_items=launches.gpu_items)
    return StepState(busy, launch, notes=notes)


def host_bound(profile: Profile, slack: float = HOST_SLACK) -> bool:
    """Whether a traced step waits for its host. Where its trace measured the host's own time (apart from waits for
    the GPU), the step does not when that time is clearly shorter (HOST_BOUND_SHARE): the GPU's idle time then is what
    the step pays between its work (the sampled token read back, the next replay launched), not a host that binds
    (tests/data/graphs' graph path at batch 8: 26% of the traced step on the host, 93% of the measured step GPU
    work and gaps). Else it does when its GPU side (busy time and a gap an item) leaves idle time, `slack` of the step
    or more."""
    launches = profile.launches
    if launches is None or launches.gpu_items <= 0 or launches.host_launches <= 0:
        return False
    if launches.host_busy_ms is not None and launches.host_busy_ms < launches.step_ms * HOST_BOUND_SHARE:
        return False
    gpu = sum(s for b, s in profile.shares if b != HOST_BUCKET)
    return gpu + launches.gpu_items * launches.gpu_gap_us / (launches.step_ms * 1000) < 1 - slack


def host_cost_us(profile: Profile | None) -> float | None:
    """The per-launch host cost (µs) the baseline implies, for display."""
    state = start_state(profile)
    if state.launch is None or profile is None or profile.launches is None:
        return None
    return float(state.launch.host_cost) * profile.launches.step_ms * 1000


__all__ = ["HOST_BUCKET", "OTHER_BUCKET", "UNPROFILED_BUCKET", "LaunchState", "StepState", "host_bound",
           "host_cost_us", "start_state"]

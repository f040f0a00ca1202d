"""Evidence from a prototype: an intervention's effect derived from a trace of a prototype of it at one regime,
against that regime's own trace, and carried to the other regimes.

Both traces give a step's launch model (profile shares of a measured step, GPU work items, host launch calls). The
pair says, in the measured regime:
- GPU side: each bucket's time before and after (share x step). A bucket in both that changed by more than 2% is a
  bucket speedup (before / after); what buckets new to the prototype add, less what buckets it no longer has took,
  and the difference in the GPU's own gap before each item (measured between a graph replay's queued items, where
  the eager trace could only assume it), is GPU work added a step.
- Host side: the launch calls a GPU item (a graph replay issues one for hundreds) fall: a launch-overhead effect
  removing that share of the per-launch host cost, or, where the prototype's step is host-bound, the share that
  leaves its host side at its measured step (a launch's cost falling, never rising); the GPU work items change by
  their difference (a launch count).
- The idle time a replay leaves beyond its gaps (replay_idle_ms: a pause a step, or nodes waiting on their
  submission) changes too: more graph nodes idled 0.53 ms at batch 1 in tests/data/fp8_1b_batches' FP8 path, none in
  its bf16 path. The change is GPU time a step at the measured regime; a carried regime takes IDLE_CARRIED of it, its
  band from none of it to all of it, widened either way by the larger idle time of the two traces (how far a replay's
  idle time moved between batches in the H100 sweeps: 0 to 0.55 ms).
The same effects applied to the measured regime's own profile give the prototype's step (a test holds it) where a
launch's cost did not rise.

Carried over, where the three profiles list their kernels: the GPU time the change makes kernel by kernel
(planning/prototype_kernels.py: kernels dropped take their own time there, kernels kept change by their ratio, new
kernels' work grows with the sequences in flight). Where a profile lists none, bucket speedups are ratios, so each
regime's bucket shrinks in proportion to what its profile holds, and the added GPU work is scaled by the regime's GPU
time over the measured regime's. Item and launch changes hold as they are. The measured
regime's effects carry +-MEASURED_SPREAD (run-to-run noise of a step), the carried ones +-CARRIED_SPREAD (how far a
ratio moves between batch sizes: on the shared H200 pair, attention's share of GPU time moved 2x between batches
1 and 64), of what the carry moves where that is more than its net (_around_parts); the model error of each kind
comes on top in the bands.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from tierplan.planning.model import Effect, EffectKind, Intervention, PlanningError, Profile, Regime, ThreePoint, need
from tierplan.planning.prototype_kernels import (
    BUFFER_EXPONENTS,
    FITTED,
    LATENCY_US_HIGH,
    LATENCY_US_LOW,
    buffer_copies_ms,
    carried_gpu_ms,
    carried_parts_ms,
    new_copies_ms,
)
from tierplan.planning.step import HOST_BUCKET, host_bound, start_state

MEASURED_SPREAD = 0.03
CARRIED_SPREAD = 0.15
CHANGED = 0.02  # a bucket whose time moved by less than this is taken as unchanged
# new copies worth a word where the prototype is carried: a tenth of its GPU time. In the H100 sweeps at batch 8:
# the weights and cache copied at each replay in tests/data/graphs_hf, 70%; math attention's copies of the cache in
# tests/data/graphs_no_cudnn, which do grow with the batch, 45%; the cuDNN sweeps' graph paths, none
NEW_COPIES_SHARE = 0.10
IDLE_CARRIED = 0.5  # of the change in a replay's idle time at the measured regime, what a carried regime takes


@dataclass(frozen=True)
class Evidence:
    """Where an intervention's planned effects come from when a prototype was traced."""

    regime: str  # where the prototype ran
    source: str  # the trace, as its import names it
    carried: tuple[str, ...]  # the regimes its effects are carried over to (those with a traced step)
    entered: tuple[Effect, ...]  # the team's own estimates, superseded where the evidence holds
    untraced: tuple[str, ...] = ()  # the regimes without a traced step: the estimates entered still hold there
    new_copies_ms: float = 0.0  # copies new in the prototype (GPU ms a step), when NEW_COPIES_SHARE of its GPU time
    buffer_copies_ms: float = 0.0  # of those, whole buffers copied (device-to-device memcpys), fixed or not

    def says_work_in(self, regime: str) -> bool:
        """Whether the trace pair settles the GPU work the path adds in `regime` (its regime and those carried to)."""
        return regime == self.regime or regime in self.carried

    def measured_in(self, regime: str) -> bool:
        """Whether the prototype's step was measured in `regime` (its effects there replay it)."""
        return regime == self.regime


def _around(value: float, spread: float) -> ThreePoint:
    return ThreePoint(value / (1 + spread), value, value * (1 + spread))


def _around_signed(value: float, spread: float) -> ThreePoint:
    low, high = value * (1 - spread), value * (1 + spread)
    return ThreePoint(min(low, high), value, max(low, high))


def _times_ms(profile: Profile) -> dict[str, float]:
    launches = profile.launches
    if launches is None:
        raise PlanningError("a prototype is compared with a traced step: both profiles need launch counts and a step "
                            "time (import the regime's own trace first)")
    return {b: s * launches.step_ms for b, s in profile.shares if b != HOST_BUCKET}


def gpu_ms(regime: Regime) -> float | None:
    """A regime's GPU time a step (ms), from its profile and measured step; None without both."""
    if regime.profile is None:
        return None
    if regime.profile.launches is not None:
        return sum(_times_ms(regime.profile).values())
    step = regime.step_ms or (regime.concurrency * 1000 / regime.baseline_tok_s if regime.baseline_tok_s else None)
    return None if step is None else step * sum(s for b, s in regime.profile.shares if b != HOST_BUCKET)


def derive(before: Profile, after: Profile, measured: Regime, regimes: Sequence[Regime]) -> tuple[Effect, ...]:
    """The effects the prototype's trace (`after`) shows against the measured regime's (`before`), for the measured
    regime and carried to the others (see the module's docstring)."""
    t0, t1 = _times_ms(before), _times_ms(after)
    b0, b1 = before.launches, after.launches
    assert b0 is not None and b1 is not None  # _times_ms checked
    others = frozenset(r.name for r in regimes if r.name != measured.name)
    effects: list[Effect] = []
    for spread, where in ((MEASURED_SPREAD, frozenset({measured.name})), (CARRIED_SPREAD, others)):
        if not where:
            continue
        by_kernel = {r.name: _carried(before, after, measured, r, spread) for r in regimes if r.name in where
                     and r.name != measured.name}
        for name, added in by_kernel.items():
            if added is not None:
                effects.append(Effect(EffectKind.GPU_WORK, regimes=frozenset({name}), gpu_ms=added))
        ratio_where = frozenset(w for w in where if by_kernel.get(w) is None)
        for bucket in sorted(t0.keys() & t1.keys()) if ratio_where else ():
            if t0[bucket] > 0 and t1[bucket] > 0 and abs(t1[bucket] / t0[bucket] - 1) > CHANGED:
                effects.append(Effect(EffectKind.BUCKET, bucket=bucket, regimes=ratio_where,
                                      speedup=_around(t0[bucket] / t1[bucket], spread)))
        host = _host_share_removed(before, after)
        if host > 0:  # the spread is of the host cost that remains (1 - host), what moves from batch to batch
            kept = 1 - host
            effects.append(Effect(EffectKind.LAUNCH_OVERHEAD, regimes=where, removed=ThreePoint(
                max(0.0, 1 - kept * (1 + spread)), host, min(1.0, 1 - kept * (1 - spread)))))
        if b1.gpu_items != b0.gpu_items:
            effects.append(Effect(EffectKind.LAUNCH_COUNT, regimes=where,
                                  launches=_around_signed(b1.gpu_items - b0.gpu_items, spread)))
        idle_before, idle_after = replay_idle_ms(before), replay_idle_ms(after)
        idle_ms, moves_ms = idle_after - idle_before, max(idle_before, idle_after)
        if abs(idle_ms) > CHANGED * min(b0.step_ms, b1.step_ms):  # the change a replay's idle time shows, carried
            effects.append(Effect(EffectKind.GPU_WORK, regimes=where, gpu_ms=(
                _around_signed(idle_ms, spread) if spread == MEASURED_SPREAD else ThreePoint(
                    min(0.0, idle_ms) - moves_ms, idle_ms * IDLE_CARRIED, max(0.0, idle_ms) + moves_ms))))
    added_ms = sum(t for b, t in t1.items() if b not in t0) - sum(t for b, t in t0.items() if b not in t1)
    # the GPU's own time before each item as the prototype's trace shows it (a graph replay's queued items), where
    # the baseline's could only assume it
    added_ms += b1.gpu_items * (b1.gpu_gap_us - b0.gpu_gap_us) / 1000
    if abs(added_ms) > CHANGED * sum(t0.values()):
        base = sum(t0.values())
        effects.append(Effect(EffectKind.GPU_WORK, regimes=frozenset({measured.name}),
                              gpu_ms=_around_signed(added_ms, MEASURED_SPREAD)))
        for regime in regimes:
            own = gpu_ms(regime)
            if regime.name != measured.name and own is not None and base > 0 and carried_gpu_ms(
                    before, after, measured, regime) is None:
                effects.append(Effect(EffectKind.GPU_WORK, regimes=frozenset({regime.name}),
                                      gpu_ms=_around_signed(added_ms * own / base, CARRIED_SPREAD)))
    return tuple(effects)


def _carried(before: Profile, after: Profile, measured: Regime, regime: Regime, spread: float) -> ThreePoint | None:
    """The GPU work carried to `regime` kernel by kernel, +-`spread`: the mean of kept kernels moved by their ratio
    and by their work above a launch's latency, its range widened to both readings, to whole-buffer copies that stay
    fixed and that grow with the sequences in flight (prototype_kernels.BUFFER_EXPONENTS) and to new kernels'
    launches whose latency is either end of its band; None where a profile lists no kernels."""
    likely, plain, above = (carried_parts_ms(before, after, measured, regime, kept_latency_us=kept)
                            for kept in (FITTED, 0.0, LATENCY_US_LOW))
    if likely is None:
        return None
    values = [likely, plain, above, *(carried_parts_ms(before, after, measured, regime, exponent, latency, kept)
                                      for exponent in BUFFER_EXPONENTS for latency in (LATENCY_US_LOW, LATENCY_US_HIGH)
                                      for kept in (0.0, LATENCY_US_LOW, FITTED))]
    ends = [_around_parts(parts, spread) for parts in values if parts is not None]
    return ThreePoint(min(e.low for e in ends), ends[0].likely, max(e.high for e in ends))


def _around_parts(parts: Sequence[float], spread: float) -> ThreePoint:
    """Their sum +-`spread` of the larger of its size and the root sum of squares of the parts: a change that nets
    out (an FP8 GEMM's time saved, its input's quantisation's added) is as uncertain as what it moves."""
    total = sum(parts)
    half = spread * max(abs(total), sum(p * p for p in parts) ** 0.5)
    return ThreePoint(total - half, total, total + half)


def replay_idle_ms(profile: Profile) -> float:
    """The idle time (ms) a step leaves between a replay's queued items beyond their gaps, where the host does not
    bind: a pause a step, or the GPU waiting on the graph's nodes as the host submits them (planning/step.py)."""
    state = start_state(profile)
    if state.launch is None or profile.launches is None:
        return 0.0
    return float(state.launch.idle) * profile.launches.step_ms


def _host_share_removed(before: Profile, after: Profile) -> float:
    """The share of the per-launch host cost the prototype removed: its launch calls an item over the baseline's,
    times what a launch costs in its trace over the baseline's: both traces' host time a step apart from waits, or,
    where one did not measure it and both steps are host-bound, their measured steps. A GPU-bound prototype hides its
    host cost from its step, not from its trace: the 129 calls a step of tests/data/graphs_hf's compiled path take
    6.0 ms of host time at batch 64, 46 us a call against the eager path's 157. A launch's cost may fall, never rise:
    a graph replay's 3 calls a step beside a step of GPU time and a fixed pause between replays are not 1.8 ms a call,
    and counted so, the host side carried from batch 64 to 8 made tests/data/graphs_1b's graph path 91% long (3% with
    the cap)."""
    b0, b1 = before.launches, after.launches
    assert b0 is not None and b1 is not None
    per_item_before = b0.host_launches / max(b0.gpu_items, 1e-9)
    per_item_after = b1.host_launches / max(b1.gpu_items, 1e-9)
    if per_item_before <= 0 or b1.host_launches <= 0:
        return 0.0
    kept = per_item_after / per_item_before
    if b0.host_busy_ms is not None and b1.host_busy_ms is not None:
        host_before, host_after = b0.host_busy_ms, b1.host_busy_ms
    elif host_bound(before, CHANGED) and host_bound(after, CHANGED):
        host_before, host_after = b0.step_ms, b1.step_ms
    else:
        return min(1.0, max(0.0, 1 - kept))
    per_launch_before = (host_before - b0.host_fixed_ms) / b0.host_launches
    per_launch_after = (host_after - b1.host_fixed_ms) / b1.host_launches
    if per_launch_before > 0 and per_launch_after > 0:  # the per-launch cost moved too, never up
        kept *= min(1.0, per_launch_after / per_launch_before)
    return min(1.0, max(0.0, 1 - kept))


def with_evidence(intervention: Intervention, trace: Profile, measured: Regime, regimes: Sequence[Regime],
                  source: str) -> Intervention:
    """The intervention planned from its prototype's trace at `measured`: the derived effects in that regime and in
    each regime with a traced step of its own (the launch side needs one), the estimates entered in the others.
    Raises PlanningError when the measured regime's own profile is no trace to compare with."""
    traced = [r for r in regimes if r.profile is not None and r.profile.launches is not None]
    effects = derive(need(measured.profile, "the regime's own profile"), trace, measured, traced)
    rest = frozenset(r.name for r in regimes) - frozenset(r.name for r in traced)
    entered = intervention.entered
    kept = tuple(replace(e, regimes=(e.regimes or rest) & rest) for e in entered if (e.regimes or rest) & rest)
    carried = tuple(r.name for r in traced if r.name != measured.name)
    before = need(measured.profile, "the regime's own profile")
    copies_ms = new_copies_ms(before, trace) if carried else 0.0
    trace_gpu_ms = sum(_times_ms(trace).values())
    worth_saying = trace_gpu_ms > 0 and copies_ms >= NEW_COPIES_SHARE * trace_gpu_ms
    evidence = Evidence(measured.name, source, carried, entered, tuple(r.name for r in regimes if r.name in rest),
                        copies_ms if worth_saying else 0.0, buffer_copies_ms(before, trace) if worth_saying else 0.0)
    return replace(intervention, effects=effects + kept, evidence=evidence)

"""A decode step's host time in a trace: the launching thread's time apart from waiting for the GPU
(importers/trace_host.py), and what the prototype carry makes of it."""

from __future__ import annotations

import io
import json
import statistics

import pytest

from tests.sweep_traces import imported, raw_events, regime, step_ms
from tierplan.importers.torch_trace import parse_trace
from tierplan.planning.model import Campaign, EffectKind, Intervention, Regime, ThreePoint, Tier
from tierplan.planning.projection import project_regime
from tierplan.planning.prototype import derive, replay_idle_ms
from tierplan.planning.step import PAUSE_SHARE, host_bound, start_state


def synthetic_trace(steps: int, wait_us: float, read_back_us: float) -> bytes:
    """`steps` ProfilerSteps of 1000 us: 10 kernels launched, a token read back (a DtoH copy whose call waits
    `read_back_us`), then a stream synchronisation of `wait_us`; another thread waits all the time."""
    events, corr = [], 1
    for step in range(steps):
        t = 10_000.0 * step
        events.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{step}", "ts": t, "dur": 1000,
                       "pid": 1, "tid": 1})
        for k in range(10):
            events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": t + 10 * k, "dur": 5,
                           "pid": 1, "tid": 1, "args": {"correlation": corr}})
            events.append({"ph": "X", "cat": "kernel", "name": "gemm", "ts": t + 200 + 20 * k, "dur": 15,
                           "pid": 0, "tid": 7, "args": {"correlation": corr, "stream": 7}})
            corr += 1
        events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "ts": t + 150,
                       "dur": read_back_us, "pid": 1, "tid": 1, "args": {"correlation": corr}})
        events.append({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pinned)", "ts": t + 420,
                       "dur": 2, "pid": 0, "tid": 7, "args": {"correlation": corr, "stream": 7}})
        events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "ts": t + 300,
                       "dur": wait_us, "pid": 1, "tid": 1, "args": {"correlation": corr + 1}})
        events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "ts": t,
                       "dur": 1000, "pid": 1, "tid": 2, "args": {"correlation": corr + 2}})
        corr += 3
    return json.dumps({"traceEvents": events}).encode()


def test_a_step_s_host_time_is_its_span_less_its_waits_on_the_launching_thread():
    raw = synthetic_trace(4, wait_us=600, read_back_us=100)
    steps = parse_trace(io.BytesIO(raw), "synthetic.json").steps
    assert steps.host_share == pytest.approx((1000 - 600 - 100) / 1000)


def host_shares(sweep: str, name: str) -> list[float]:
    """Each ProfilerStep's span less its synchronisations and read-back copies, of its span, counted from the trace's
    own events."""
    events = raw_events(sweep, name)
    markers = [e for e in events if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep")]
    read_backs = {e["args"]["correlation"] for e in events if e.get("cat") == "gpu_memcpy" and "DtoH" in e["name"]}
    syncs = [e for e in events if e.get("cat") == "cuda_runtime"
             and ("Synchronize" in e["name"] or e["args"].get("correlation") in read_backs)]
    return [1 - sum(s["dur"] for s in syncs if m["ts"] <= s["ts"] < m["ts"] + m["dur"]) / m["dur"] for m in markers]


@pytest.mark.parametrize("sweep, name", [("graphs_hf", "trace_graphs_b64"), ("graphs_hf", "trace_eager_b8"),
                                         ("graphs", "trace_graphs_b8")])
def test_the_sweeps_host_share_is_the_median_step_less_its_waits(sweep, name):
    path, batch = name.removeprefix("trace_").split("_b")
    profile, _, stats = imported(sweep, path, batch)
    assert stats.host_share == pytest.approx(statistics.median(host_shares(sweep, name)), rel=1e-6)
    assert profile.launches is not None and profile.launches.host_busy_ms == pytest.approx(
        stats.host_share * profile.launches.step_ms)  # that share of the step measured without the profiler


def test_a_gpu_bound_step_hides_host_time_its_trace_shows():
    """The compiled path of tests/data/graphs_hf at batch 64: a 39.7 ms step whose host issues 129 calls in 15% of
    it; the eager path at batch 8 waits for its host the whole step."""
    graphs, _, graph_stats = imported("graphs_hf", "graphs", "64")
    eager, _, eager_stats = imported("graphs_hf", "eager", "8")
    assert graph_stats.host_share is not None and 0.1 < graph_stats.host_share < 0.2
    assert eager_stats.host_share is not None and eager_stats.host_share > 0.99
    assert not host_bound(graphs) and host_bound(eager)
    state = start_state(graphs)
    assert state.launch is not None and graphs.launches is not None
    assert float(state.launch.host()) == pytest.approx(graph_stats.host_share)
    assert "host time of" in state.notes[0]


def test_a_prototype_traced_gpu_bound_prices_its_launches_from_its_trace():
    """Carried from batch 64 to 8, the compiled path's 129 calls a step cost what its trace says a call costs
    (about 46 us) against the eager path's (about 157 us): the launch-overhead effect removes
    that share of a call's cost besides the calls it saves."""
    before, _, before_stats = imported("graphs_hf", "eager", "64")
    after, _, after_stats = imported("graphs_hf", "graphs", "64")
    measured, target = regime("graphs_hf", "eager", "64"), regime("graphs_hf", "eager", "8")
    removed = next(e.removed for e in derive(before, after, measured, [measured, target])
                   if e.kind is EffectKind.LAUNCH_OVERHEAD and e.regimes == {"b8"})
    calls = (after_stats.host_launches / after_stats.gpu_items) / (before_stats.host_launches / before_stats.gpu_items)
    assert after.launches is not None and before.launches is not None
    after_ms, before_ms = after.launches.host_busy_ms, before.launches.host_busy_ms
    assert after_ms is not None and before_ms is not None
    cost = (after_ms / after_stats.host_launches) / (before_ms / before_stats.host_launches)
    assert cost < 0.35
    assert removed is not None and removed.likely == pytest.approx(1 - calls * cost)


def test_a_graph_replay_whose_host_time_is_a_quarter_of_its_step_gets_faster_with_its_kernels():
    """tests/data/graphs' graph path at batch 8: 26% of the traced step on the host, in a 3.0 ms step whose GPU work
    and gaps leave 7% of it idle. Read as host-bound (what the idle GPU time alone says), no kernel made faster could
    shorten it; the trace's host time says the idle time is the replay's (a pause, or nodes waiting on their
    submission), which stays as the items do, while the GPU work halves."""
    profile, busy_ms, stats = imported("graphs", "graphs", "8")
    launches = profile.launches
    assert launches is not None and stats.host_share is not None
    assert stats.host_share < 0.5 and not host_bound(profile)
    state = start_state(profile)
    assert state.launch is not None
    idle_ms = launches.step_ms * (1 - sum(state.buckets.values())) - launches.gpu_items * launches.gpu_gap_us / 1000
    replay_ms = float(state.launch.idle) * launches.step_ms
    queued = 1 - launches.host_launches / launches.gpu_items  # 3 calls for 320 items: all but 3 queued in a replay
    assert replay_ms == pytest.approx(idle_ms * queued) == pytest.approx(replay_idle_ms(profile))
    assert 0 < replay_ms < 0.1 * launches.step_ms
    gemm_ms = state.buckets["dense_gemm"] * launches.step_ms
    faster = state.copy()
    faster.buckets["dense_gemm"] /= 2
    assert float(faster.step()) * launches.step_ms == pytest.approx(launches.step_ms - gemm_ms / 2)


def test_a_replay_s_idle_time_is_half_a_pause_and_half_grown_with_its_items():
    """Idle time beyond the gaps (here 0.1 of the step) is either a pause a step or nodes waiting on their submission;
    the projection takes half of each, so twice the items add half of it again, and the band draws the share."""
    profile, _, _ = imported("graphs", "graphs", "8")
    state = start_state(profile)
    assert state.launch is not None and state.launch.pause_share == PAUSE_SHARE == 0.5
    idle = float(state.launch.idle)
    more = state.copy()
    assert more.launch is not None
    more.launch.gpu_items = more.launch.gpu_items * 2
    gaps = float(state.launch.gpu_items * state.launch.gap)
    assert float(more.step()) == pytest.approx(1 + gaps + idle / 2)


@pytest.mark.parametrize("traced, target", [("1", "8"), ("8", "1"), ("64", "1")])
def test_an_fp8_prototype_s_idle_time_is_carried_as_half_its_change(traced, target):
    """tests/data/fp8_1b_batches: the FP8 path's graph has 1144 nodes against the bf16 path's 632, and its replay idles
    0.53 ms at batch 1 where bf16's idles none. At the regime it was traced at the change is the prototype's own; a
    carried regime takes half of it, its band from none of it to all of it, widened by the larger idle of the two."""
    before, after = imported("fp8_1b_batches", "bf16", traced)[0], imported("fp8_1b_batches", "fp8", traced)[0]
    measured, other = regime("fp8_1b_batches", "bf16", traced), regime("fp8_1b_batches", "bf16", target)
    change = replay_idle_ms(after) - replay_idle_ms(before)
    widest = max(replay_idle_ms(after), replay_idle_ms(before))
    idle = [e.gpu_ms for e in derive(before, after, measured, [measured, other])
            if e.kind is EffectKind.GPU_WORK and e.regimes == {f"b{target}"} and e.gpu_ms is not None
            and e.gpu_ms.likely == pytest.approx(change / 2)]
    assert len(idle) == 1
    assert idle[0].low == pytest.approx(min(0.0, change) - widest) and idle[0].high == pytest.approx(
        max(0.0, change) + widest)


@pytest.mark.parametrize("sweep, before_path, after_path, batch", [
    ("fp8_1b_batches", "bf16", "fp8", "1"), ("fp8_batches", "bf16", "fp8", "8"), ("graphs_batches", "eager", "graphs", "1"),
    ("graphs_cache8192", "graphs", "graphs", "64")])
def test_applied_where_it_was_traced_the_prototype_gives_its_own_step(sweep, before_path, after_path, batch):
    """The derived effects, idle time included, reproduce the step the prototype measured (the cache4096 path as the
    cache8192 path's prototype), within 3%."""
    after_sweep = "graphs_cache4096" if sweep == "graphs_cache8192" else sweep
    before, after = imported(sweep, before_path, batch)[0], imported(after_sweep, after_path, batch)[0]
    before_ms = step_ms(sweep, before_path, batch)
    measured = Regime(f"b{batch}", int(batch), 1e9, baseline_tok_s=int(batch) * 1000 / before_ms, profile=before,
                      step_ms=before_ms)
    campaign = Campaign((measured,), (Tier("A", "A", 1),), (Intervention(
        "P", "prototype", ThreePoint(1, 1, 1), tier_key="A", effects=derive(before, after, measured, [measured])),))
    assert project_regime(measured, campaign).final.step_ms == pytest.approx(
        step_ms(after_sweep, after_path, batch), rel=0.03)

"""tests/data/graphs_hf: transformers' decoder on an H100, eager and under torch.compile's cudagraphs backend, whose
cudagraph trees copy the weights and the static cache into the graph's buffers at every replay (README there).
Expectations are counted from each trace's own events."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.sweep_traces import imported, raw_events, regime, step_ms
from tierplan.planning.model import Regime
from tierplan.planning.prototype_kernels import carried_gpu_ms

SWEEP = "graphs_hf"
GPU_CATEGORIES = ("kernel", "gpu_memcpy", "gpu_memset")


@pytest.mark.parametrize("batch", ["8", "64"])
def test_a_cudagraph_tree_replay_is_read_as_one_step_with_its_copies_launched_from_the_host(batch):
    events = raw_events(SWEEP, f"trace_graphs_b{batch}")
    markers = [e for e in events if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep")]
    calls = Counter(e["name"] for e in events if e.get("cat") == "cuda_runtime")
    issued = calls["cudaGraphLaunch"] + calls["cudaMemcpyAsync"] + calls["cudaLaunchKernel"]
    gpu_items = sum(1 for e in events if e.get("cat") in GPU_CATEGORIES)
    gpu_us = sum(e["dur"] for e in events if e.get("cat") in GPU_CATEGORIES)

    _, gpu_ms, stats = imported(SWEEP, "graphs", batch)

    assert stats.decode_steps == len(markers) == calls["cudaGraphLaunch"] == 6
    assert stats.host_launches == pytest.approx(issued / 6)  # one replay, 127 copies and one kernel a step
    assert stats.gpu_items == pytest.approx(gpu_items / 6)
    assert gpu_ms == pytest.approx(gpu_us / 6 / 1000, rel=1e-6)


def test_the_copies_of_the_graph_path_are_its_memory_copy_share_of_the_step():
    events = raw_events(SWEEP, "trace_graphs_b64")
    copies_us = sum(e["dur"] for e in events if e.get("cat") == "gpu_memcpy")
    copies_us += sum(e["dur"] for e in events if e.get("cat") == "kernel" and "direct_copy_kernel" in e["name"])
    measured_ms = step_ms(SWEEP, "graphs", "64")

    profile, _, _ = imported(SWEEP, "graphs", "64")

    assert profile.as_dict()["memory_copy"] == pytest.approx(copies_us / 6 / 1000 / measured_ms, rel=0.02)


def test_carried_to_its_own_batch_the_prototype_gives_the_gpu_time_its_trace_added():
    """The carry's anchor: at the batch it was traced at, the prototype adds what the pair of traces differ by (the
    kernels a profile keeps, and the gaps between them)."""
    (before, before_ms, _), (after, after_ms, _) = imported(SWEEP, "eager", "8"), imported(SWEEP, "graphs", "8")
    measured = Regime("b8", 8, 1e9, baseline_tok_s=1, profile=before)

    added_ms = carried_gpu_ms(before, after, measured, measured)

    assert added_ms == pytest.approx(after_ms - before_ms, rel=0.1)


@pytest.mark.parametrize("folder, buffers", [("graphs_hf", True), ("graphs_no_cudnn", False), ("graphs", False)])
def test_carried_to_batch_64_whole_buffer_copies_widen_the_band_to_what_the_trace_there_added(folder, buffers):
    """Traced at batch 8 and carried to 64: where the prototype copies whole buffers (graphs_hf: weights and cache,
    142 memcpys a step), the GPU work's band runs from those copies staying the same to their growing 8x, and holds
    what the pair of traces at 64 differ by; without such copies (the other sweeps' copy kernels grow) their power
    changes nothing."""
    from tierplan.planning.model import EffectKind
    from tierplan.planning.prototype import derive

    (before, _, _), (after, _, _) = imported(folder, "eager", "8"), imported(folder, "graphs", "8")
    (own, own_ms, _), (_, after_64_ms, _) = imported(folder, "eager", "64"), imported(folder, "graphs", "64")
    measured = Regime("b8", 8, 1e9, baseline_tok_s=1, profile=before)
    other = Regime("b64", 64, 1e9, baseline_tok_s=1, profile=own)

    work = next(e.gpu_ms for e in derive(before, after, measured, (measured, other))
                if e.kind is EffectKind.GPU_WORK and e.regimes == {"b64"})

    assert work is not None
    if buffers:
        assert work.low < after_64_ms - own_ms < work.high
        assert work.likely == pytest.approx(after_64_ms - own_ms, rel=0.15)
        assert work.high / work.low > 2
    else:
        assert carried_gpu_ms(before, after, measured, other, 0.0) == carried_gpu_ms(before, after, measured, other, 1.0)


@pytest.mark.parametrize("folder, says_copies", [("graphs_hf", True), ("graphs", False), ("graphs_long", False)])
def test_a_prototype_carried_says_when_its_new_copies_are_a_tenth_of_its_gpu_time(folder, says_copies):
    """The copies new in the prototype (memcpys and copy kernels the eager trace does not run) are carried as work a
    sequence; where they are NEW_COPIES_SHARE of its GPU time the evidence keeps their time for the plan to say."""
    from tierplan.planning.model import Intervention, ThreePoint
    from tierplan.planning.prototype import NEW_COPIES_SHARE, with_evidence

    measured, other = regime(folder, "eager", "8"), regime(folder, "eager", "64")
    after, after_gpu_ms, _ = imported(folder, "graphs", "8")
    plain = Intervention("A1", "graphs", ThreePoint(1, 1, 1), tier_key="A")

    evidence = with_evidence(plain, after, measured, (measured, other), "trace").evidence

    assert evidence is not None and (evidence.new_copies_ms > 0) is says_copies
    if says_copies:
        assert evidence.new_copies_ms >= NEW_COPIES_SHARE * after_gpu_ms

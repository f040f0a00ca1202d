"""A prototype carried on the H100 sweeps the carry's rules were not shaped by (tests/data/fp8, graphs_1b,
graphs_hf_inductor; their READMEs say what ran). Each expectation is counted from the traces' own events or from what
the pair of traces at the other batch measured."""

from __future__ import annotations

import statistics

import pytest

from tests.sweep_traces import imported, raw_events, regime
from tierplan.planning.model import EffectKind
from tierplan.planning.prototype import derive
from tierplan.planning.prototype_kernels import LATENCY_US_HIGH, carried_gpu_ms


def gpu_with_gaps_ms(sweep: str, path: str, batch: str) -> float:
    """A traced step's GPU side (ms): busy time and the gap before each item, as the carry counts it."""
    profile, busy_ms, _ = imported(sweep, path, batch)
    assert profile.launches is not None
    return busy_ms + profile.launches.gpu_items * profile.launches.gpu_gap_us / 1000


def carried_and_measured(sweep: str, before: str, after: str, traced: str, target: str) -> tuple[float, float]:
    """The GPU work (ms) the prototype traced at `traced` is carried as at `target`, and what the two paths' traces
    at `target` differ by."""
    carried = carried_gpu_ms(imported(sweep, before, traced)[0], imported(sweep, after, traced)[0],
                             regime(sweep, before, traced), regime(sweep, before, target))
    assert carried is not None
    return carried, gpu_with_gaps_ms(sweep, after, target) - gpu_with_gaps_ms(sweep, before, target)


def kernel_durations_us(sweep: str, name: str, part: str) -> list[float]:
    return [e["dur"] for e in raw_events(sweep, name) if e.get("cat") == "kernel" and part in e["name"]]


def test_cublas_names_a_batch_s_gemms_by_their_shapes():
    """Why a kernel a regime names that neither trace runs stands for the ones it does not name."""
    names = {batch: {e["name"] for e in raw_events("fp8", f"trace_bf16_b{batch}")
                     if e.get("cat") == "kernel" and e["name"].startswith("nvjet_sm90_tst")} for batch in ("8", "64")}
    assert names["8"] and names["64"] and not names["8"] & names["64"]


def test_the_fp8_input_s_absolute_maximum_takes_the_same_time_at_batch_64_as_at_8():
    """A reduction to one value: its time a launch is latency, not work (prototype_kernels.LATENCY_US_HIGH)."""
    amax = {batch: kernel_durations_us("fp8", f"trace_fp8_b{batch}", "func_wrapper_t") for batch in ("8", "64")}
    assert len(amax["8"]) == len(amax["64"]) == 6 * 32  # in front of each of the 32 GEMMs, 6 replays
    at_8, at_64 = statistics.median(amax["8"]), statistics.median(amax["64"])
    assert at_64 < at_8 * 1.2 and at_8 <= LATENCY_US_HIGH


@pytest.mark.parametrize("traced, target", [("8", "64"), ("64", "8")])
def test_an_fp8_prototype_s_gemms_move_as_the_bf16_ones_they_replace(traced, target):
    """The FP8 path adds 0.05-0.2 ms of GPU time a step to the bf16 one at either batch. Carried as work per sequence
    (the rule before this sweep), its new GEMMs alone would add 4.2 ms at batch 64; as the bf16 GEMMs they replace
    move, the carry lands within 0.55 ms of what the traces there differ by (a tenth of the 5.4 ms step)."""
    carried, measured = carried_and_measured("fp8", "bf16", "fp8", traced, target)
    assert abs(measured) < 0.25
    assert carried == pytest.approx(measured, abs=0.55)


def test_a_change_that_nets_out_is_as_uncertain_as_what_it_moves():
    """Traced at batch 64 and carried to 8, the FP8 prototype nets to 0.07 ms of GPU work (1.6 ms of bf16 GEMMs gone,
    1.0 ms of FP8 GEMMs and 0.6 ms of quantisation added); the traces at batch 8 differ by 0.16 ms. A band of 15% of
    the net would be 0.02 ms wide; 15% of what moves holds the measured difference."""
    before, after = imported("fp8", "bf16", "64")[0], imported("fp8", "fp8", "64")[0]
    measured_regime, target = regime("fp8", "bf16", "64"), regime("fp8", "bf16", "8")
    work = next(e.gpu_ms for e in derive(before, after, measured_regime, [measured_regime, target])
                if e.kind is EffectKind.GPU_WORK and e.regimes == {"b8"})
    _, measured = carried_and_measured("fp8", "bf16", "fp8", "64", "8")
    assert work is not None and abs(work.likely) < 0.1
    assert work.low < measured < work.high


def test_inductor_s_graph_path_traced_at_8_is_carried_to_32_as_its_trace_there_measured():
    """The sweep's third traced batch: fused Triton kernels new in the prototype and cuDNN's attention over the whole
    2048-position cache, carried from batch 8 (3.6 ms of GPU work) to 32 (4.2 ms more than the eager path's)."""
    carried, measured = carried_and_measured("graphs_hf_inductor", "eager", "graphs", "8", "32")
    assert measured == pytest.approx(4.24, abs=0.01)
    assert carried == pytest.approx(measured, rel=0.05)


def test_a_replay_s_idle_time_is_not_the_cost_of_its_few_launches():
    """Llama-3.2-1B's graph path at batch 64: 3 host calls a step beside a step of GPU time and a pause between
    replays. The share of the per-launch host cost it removes is its calls an item over the eager path's (3 / 615
    against 549 / 549), never less because its step left the GPU idle."""
    measured = regime("graphs_1b", "eager", "64")
    before, after = imported("graphs_1b", "eager", "64")[0], imported("graphs_1b", "graphs", "64")[0]

    removed = [e.removed for e in derive(before, after, measured, [measured]) if e.kind is EffectKind.LAUNCH_OVERHEAD]

    assert len(removed) == 1 and removed[0] is not None
    assert removed[0].likely == pytest.approx(1 - (3 / 615) / (549 / 549), abs=1e-4)


@pytest.mark.parametrize("traced, target", [("8", "64"), ("64", "8")])
def test_cudnn_attention_on_the_graph_path_drops_math_attention_s_gemv_whatever_its_index_width(traced, target):
    """Two runs of one script (tests/data/graphs and graphs_no_cudnn): math attention's matrix-vector products are
    cuBLAS's gemv over int indices at batch 8 and over long ones at 64. Carried from either batch, the cuDNN prototype
    drops the other batch's gemv whole and keeps its weight GEMMs, so the carry lands within 3% of the GPU time the
    two graph paths' traces differ by there."""
    before, after = imported("graphs_no_cudnn", "graphs", traced)[0], imported("graphs", "graphs", traced)[0]
    measured, other = regime("graphs_no_cudnn", "graphs", traced), regime("graphs_no_cudnn", "graphs", target)
    carried = carried_gpu_ms(before, after, measured, other)
    there = gpu_with_gaps_ms("graphs", "graphs", target) - gpu_with_gaps_ms("graphs_no_cudnn", "graphs", target)
    assert carried is not None and carried == pytest.approx(there, rel=0.03)

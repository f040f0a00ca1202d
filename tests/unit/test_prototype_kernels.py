"""A prototype's change carried kernel by kernel: dropped kernels take their own time, kept ones their ratio, new
ones grow with the sequences in flight or move as the kernels they replace. Every figure is worked by hand."""

import dataclasses

import pytest

from tierplan.planning.model import EffectKind, LaunchProfile, Profile, Regime
from tierplan.planning.prototype import derive
from tierplan.planning.prototype_kernels import (
    BUFFER_COPY,
    FITTED,
    FULL_GRID_BLOCKS,
    KEPT_NOISE,
    LATENCY_US,
    LATENCY_US_LOW,
    REDUCTION,
    REDUCTION_LATENCY,
    WORK_BOUND_LATENCY_US,
    buffer_copies_ms,
    carried_gpu_ms,
    carried_parts_ms,
    family,
    fitted_latency_us,
    grown_ms,
    kernel_ms,
)


def traced(step_ms: float, times_ms: dict[str, dict[str, float]], items: int = 300, launches: int = 300) -> Profile:
    """A traced step: each bucket's kernels and their ms a step (8 launches each); the rest of the step is host
    time."""
    buckets = {b: sum(k.values()) for b, k in times_ms.items()}
    shares = {b: t / step_ms for b, t in buckets.items()} | {"host_overhead": 1 - sum(buckets.values()) / step_ms}
    kernels = tuple((name, b, t / buckets[b], 8.0) for b, k in times_ms.items() for name, t in k.items())
    return dataclasses.replace(Profile.of(shares, LaunchProfile(items, launches, step_ms, 1.0)), kernels=kernels)


# eager at batch 8: cuDNN attention (tagged by the reader: launched inside an attention function), the dynamic
# cache's cat copies, an add, the weight GEMMs
BEFORE = traced(10.0, {"attention": {"[attention] sdpa": 1.0}, "elementwise": {"cat": 1.5, "add": 1.5},
                       "dense_gemm": {"gemm": 5.0}})
# the CUDA-graph prototype at batch 8: attention over the whole static cache (4x), no cat, the add as it was, a
# static cache write that is new (0.5 ms: 62.5 us a launch), a tiny new kernel (0.016 ms: 2 us a launch, under the
# launch floor), the GEMMs as they were
AFTER = traced(11.5, {"attention": {"sdpa": 4.0}, "elementwise": {"add": 1.5, "fill": 0.016},
                      "memory_copy": {"index_copy": 0.5}, "dense_gemm": {"gemm": 5.0}}, items=310, launches=3)
# eager at batch 64: the cat copies grew with the batch, the GEMMs did not
OWN_64 = traced(24.0, {"attention": {"[attention] sdpa": 4.0}, "elementwise": {"cat": 10.0, "add": 2.0},
                       "dense_gemm": {"gemm": 5.0}})
MEASURED = Regime("batch 8", 8, 1e9, baseline_tok_s=800, profile=BEFORE, step_ms=10.0)
OTHER = Regime("batch 64", 64, 1e9, baseline_tok_s=64000 / 24, profile=OWN_64, step_ms=24.0)


def test_kernel_times_are_read_untagged_from_the_profile():
    assert {name: ms for name, (ms, _) in kernel_ms(BEFORE).items()} == pytest.approx(
        {"sdpa": 1.0, "cat": 1.5, "add": 1.5, "gemm": 5.0})
    assert {calls for _, calls in kernel_ms(BEFORE).values()} == {8.0}
    assert kernel_ms(Profile.of({"attention": 0.5})) == {}  # no launch counts, no kernels: nothing to carry


def test_dropped_kernels_take_their_own_time_kept_ones_their_ratio_new_ones_grow_with_the_batch():
    # sdpa 4.0 x (4/1 - 1) = +12; add 2.0 x (1.5/1.5 - 1) = 0; cat's own 10 ms gone; index_copy: 8 launches at a
    # 10 us latency (0.08 ms) and the other 0.42 ms x 64/8 (3.36 ms); fill: 8 x 2 us, under the latency, stays 0.016
    assert carried_gpu_ms(BEFORE, AFTER, MEASURED, OTHER, latency_us=10.0) == pytest.approx(
        12 + (0.08 + 3.36) + 0.016 - 10)
    # the band's end of most growth: a 3 us latency, 0.024 ms and 0.476 ms x 8
    assert carried_gpu_ms(BEFORE, AFTER, MEASURED, OTHER, latency_us=3.0) == pytest.approx(
        12 + (0.024 + 0.476 * 8) + 0.016 - 10)
    # at the measured regime itself the same reading gives the pair's own difference: 11.016 ms of GPU time against 9
    assert carried_gpu_ms(BEFORE, AFTER, MEASURED, MEASURED) == pytest.approx(2.016)


def test_a_kept_kernel_moves_by_its_ratio_or_by_the_ratio_of_its_work_above_its_launches_latency():
    """sdpa: 1 ms in 8 launches at batch 8 (125 us each), 4 ms in the prototype (500 us), 4 ms at batch 64 eager
    (500 us). By its ratio it takes 16 ms at 64; by the work above 3 us a launch, 8 x (3 + 497 x 497 / 122) us. A
    launch at the measured regime holding less work than latency (125 us against 200) gives no ratio of work to
    trust: its ratio holds."""
    assert carried_parts_ms(BEFORE, AFTER, MEASURED, OTHER)[0] == pytest.approx(12)
    assert carried_parts_ms(BEFORE, AFTER, MEASURED, OTHER, kept_latency_us=3.0)[0] == pytest.approx(
        8 * (3 + 497 * 497 / 122) / 1000 - 4)
    assert carried_parts_ms(BEFORE, AFTER, MEASURED, OTHER, kept_latency_us=200.0)[0] == pytest.approx(12)


def test_the_gpu_gap_before_each_item_becomes_the_prototype_s():
    """A graph replay queues its items 0.4 us apart where the eager trace had 1 us: over batch 64's 300 items and the
    prototype's 10 more, 310 x -0.6 us."""
    closer = dataclasses.replace(AFTER, launches=dataclasses.replace(AFTER.launches, gpu_gap_us=0.4))
    assert carried_gpu_ms(BEFORE, closer, MEASURED, OTHER) == pytest.approx(
        carried_gpu_ms(BEFORE, AFTER, MEASURED, OTHER) - 310 * 0.6 / 1000)


def test_a_new_kernel_whose_launches_were_not_counted_grows_whole():
    assert grown_ms(0.5, 0.0, 8) == pytest.approx(4.0)
    assert grown_ms(0.5, 8.0, 8, latency_us=10.0) == pytest.approx(0.08 + 0.42 * 8)


@pytest.mark.parametrize("name, whole_buffer", [
    ("Memcpy DtoD (Device -> Device)", True),  # torch.profiler's
    ("[CUDA memcpy DtoD]", True),  # nvprof's
    ("[CUDA memcpy Device-to-Device]", True),  # Nsight Systems'
    ("Memcpy HtoD (Pageable -> Device)", False),
    ("void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda>", False),
])
def test_a_device_to_device_memcpy_is_a_whole_buffer_copied(name, whole_buffer):
    assert bool(BUFFER_COPY.search(name)) is whole_buffer


def test_a_new_whole_buffer_copy_grows_between_not_at_all_and_with_the_sequences_in_flight():
    """The prototype also copies 1.0 ms of buffers a step (8 memcpys) that the eager path does not: at batch 64 over
    batch 8 the carry grows what is above its launches' latency (8 x 10 us) by 8 ** 0.5, the band's ends by 1 and 8."""
    copying = traced(12.5, {"attention": {"sdpa": 4.0}, "elementwise": {"add": 1.5, "fill": 0.016},
                            "memory_copy": {"index_copy": 0.5, "Memcpy DtoD (Device -> Device)": 1.0},
                            "dense_gemm": {"gemm": 5.0}}, items=318, launches=11)
    without = traced(11.5, {"attention": {"sdpa": 4.0}, "elementwise": {"add": 1.5, "fill": 0.016},
                            "memory_copy": {"index_copy": 0.5}, "dense_gemm": {"gemm": 5.0}}, items=318, launches=11)
    assert buffer_copies_ms(BEFORE, copying) == pytest.approx(1.0) and buffer_copies_ms(BEFORE, without) == 0
    base = carried_gpu_ms(BEFORE, without, MEASURED, OTHER, latency_us=10.0)
    added = {e: carried_gpu_ms(BEFORE, copying, MEASURED, OTHER, e, 10.0) - base for e in (0.0, 0.5, 1.0)}
    assert added == pytest.approx({0.0: 0.08 + 0.92, 0.5: 0.08 + 0.92 * 8 ** 0.5, 1.0: 0.08 + 0.92 * 8})


# an FP8 prototype at batch 8: the bf16 GEMMs dropped for FP8 ones (3 ms), each GEMM's input quantised in front of
# it (0.4 ms of new elementwise kernels, 8 launches), the rest as the eager path ran it
FP8 = traced(8.9, {"attention": {"sdpa": 1.0}, "elementwise": {"cat": 1.5, "add": 1.5, "quantise": 0.4},
                   "dense_gemm": {"fp8_gemm": 3.0}})


def test_a_new_gemm_that_replaces_dropped_ones_moves_as_they_do():
    """At batch 64 the bf16 GEMMs take 5 ms, as at 8 (weights read once a step): the FP8 GEMMs that replace them move
    as they do (3 x 5 / 5), not with the sequences in flight; the quantisation in front of them grows (8 launches at
    their 10 us latency, the other 0.32 ms x 8)."""
    assert carried_gpu_ms(BEFORE, FP8, MEASURED, OTHER, latency_us=10.0) == pytest.approx(-5 + 3 + (0.08 + 0.32 * 8))


def test_a_kernel_the_regime_names_that_neither_trace_runs_stands_for_the_ones_it_does_not_name():
    """Batch 64's GEMM is cuBLAS's other pick, "gemm_b64" (5.5 ms): it stands for batch 8's "gemm", which batch 64
    does not name. Kept by the graph prototype, it changes by gemm's ratio (1: nothing); dropped by the FP8 one, it is
    removed, and the FP8 GEMMs move to 3 x 5.5 / 5."""
    renamed = traced(24.5, {"attention": {"[attention] sdpa": 4.0}, "elementwise": {"cat": 10.0, "add": 2.0},
                            "dense_gemm": {"gemm_b64": 5.5}})
    other = dataclasses.replace(OTHER, profile=renamed)
    assert carried_gpu_ms(BEFORE, AFTER, MEASURED, other) == pytest.approx(
        carried_gpu_ms(BEFORE, AFTER, MEASURED, OTHER))
    assert carried_gpu_ms(BEFORE, FP8, MEASURED, other, latency_us=10.0) == pytest.approx(
        -5.5 + 3 * 5.5 / 5 + (0.08 + 0.32 * 8))


def test_a_renamed_kernel_stands_for_the_missing_kernels_of_its_own_family_first():
    """Math attention's matrix-vector product is cuBLAS's gemv over int indices at batch 8 and over long ones at 64
    (tests/data/graphs_no_cudnn): batch 64's gemv (8 ms) stands for batch 8's, which a cuDNN prototype dropped, and
    its GEMM of another tile ("gemm_x", 5 ms) for the GEMM the prototype kept. Pooled by bucket alone, the dropped
    share of both would be 1 / 6 of their 13 ms."""
    before = traced(10.0, {"dense_gemm": {"gemv<int, int, float>": 1.0, "gemm": 5.0}})
    after = traced(9.0, {"dense_gemm": {"gemm": 5.0}, "attention": {"sdpa": 0.5}})
    own = traced(30.0, {"dense_gemm": {"gemv<long, long, float>": 8.0, "gemm_x": 5.0}})
    measured = Regime("batch 8", 8, 1e9, baseline_tok_s=800, profile=before, step_ms=10.0)
    other = Regime("batch 64", 64, 1e9, baseline_tok_s=64000 / 30, profile=own, step_ms=30.0)
    parts = carried_parts_ms(before, after, measured, other)
    assert parts is not None
    changed, _, dropped, _ = parts
    assert dropped == pytest.approx(-8.0) and changed == pytest.approx(0.0)
    assert family("gemv<long, long, float>") == family("gemv<int, int, float>") == "gemv"
    assert family("nvjet_sm90_tst_224x64_64x5_2x1_v_bz_NNN") == family("nvjet_sm90_tst_64x8_64x16_4x1_v_bz_NNT")


def test_a_new_reduction_waits_longer_on_its_launches_than_another_kernel():
    """A reduction over the grid (the absolute maximum in front of an FP8 GEMM) waits on its blocks' partial results:
    8 launches of 8 us (0.064 ms) at batch 8 are all latency at the carry's 10 us a launch, and stay 0.064 ms at 64;
    named as an elementwise kernel, 2.5 us of each launch would grow 8-fold."""
    after = traced(10.1, {"attention": {"sdpa": 1.0}, "elementwise": {"cat": 1.5, "add": 1.5},
                          "dense_gemm": {"gemm": 5.0}, "other": {"void at::native::reduce_kernel<512, 1>": 0.064}})
    plain = traced(10.1, {"attention": {"sdpa": 1.0}, "elementwise": {"cat": 1.5, "add": 1.5},
                          "dense_gemm": {"gemm": 5.0}, "other": {"amax": 0.064}})
    assert REDUCTION.search("void at::native::reduce_kernel<512, 1>") and REDUCTION.search("triton_red_fused_mean_0")
    assert round(LATENCY_US * REDUCTION_LATENCY, 9) == 10.0
    kept = carried_gpu_ms(BEFORE, BEFORE, MEASURED, OTHER)
    assert carried_gpu_ms(BEFORE, after, MEASURED, OTHER) == pytest.approx(kept + 0.064)
    assert carried_gpu_ms(BEFORE, plain, MEASURED, OTHER) == pytest.approx(
        kept + 8 * LATENCY_US / 1000 + (0.064 - 8 * LATENCY_US / 1000) * 8)


def test_a_new_kernel_that_filled_the_gpu_is_work_and_grows_all_but_the_gpus_floor():
    """A fused mask over a whole static cache: 8 launches of 15 us (0.12 ms) at batch 8. Said to run 124 blocks an SM
    there, it is work: 1 us a launch stays and 14 us grows 8-fold to batch 64. Said to run 0.1 block an SM (or not
    said), it keeps the carry's latency of LATENCY_US a launch. Carried down to batch 1 (an eighth), a mask of 4.5
    blocks an SM keeps one wave's time: its 14 us a launch shrinks by 1 / 4.5, not by 8."""
    def prototype(blocks: float | None) -> Profile:
        after = traced(10.12, {"attention": {"sdpa": 1.0}, "elementwise": {"cat": 1.5, "add": 1.5},
                               "dense_gemm": {"gemm": 5.0}, "other": {"triton_poi_fused_mask": 0.12}})
        return after if blocks is None else dataclasses.replace(after, blocks_per_sm=(("triton_poi_fused_mask", blocks),))

    kept = carried_gpu_ms(BEFORE, BEFORE, MEASURED, OTHER)
    assert FULL_GRID_BLOCKS <= 124 and WORK_BOUND_LATENCY_US == 1.0
    assert carried_gpu_ms(BEFORE, prototype(124.0), MEASURED, OTHER) == pytest.approx(kept + (8 * 1 + 8 * 14 * 8) / 1000)
    latency_bound = kept + grown_ms(0.12, 8, 8.0)
    assert carried_gpu_ms(BEFORE, prototype(0.1), MEASURED, OTHER) == pytest.approx(latency_bound)
    assert carried_gpu_ms(BEFORE, prototype(None), MEASURED, OTHER) == pytest.approx(latency_bound)
    one = Regime("batch 1", 1, 1e9, baseline_tok_s=100, profile=BEFORE, step_ms=10.0)
    assert carried_gpu_ms(BEFORE, prototype(4.5), MEASURED, one) == pytest.approx(
        carried_gpu_ms(BEFORE, BEFORE, MEASURED, one) + (8 * 1 + 8 * 14 / 4.5) / 1000)


def test_a_kept_kernel_launched_more_often_carries_its_new_launches_as_new_ones():
    """A memset the prototype launches 34 times where the baseline launched it twice (0.8 us each, at the measured
    regime): the 2 kept launches move by their ratio a launch (0.79 / 0.85), the 32 new ones are new work under the
    launch latency, 0.0253 ms wherever carried. Scaled by the launch ratio (17x), the other regime's own 2 memsets of
    4.2 us would have become 0.13 ms."""
    def profile(memset_ms: float, calls: float, step_ms: float = 5.0) -> Profile:
        shares = {"memory_copy": memset_ms / step_ms, "dense_gemm": 2.0 / step_ms}
        kernels = (("Memset (Unknown)", "memory_copy", 1.0, calls), ("gemm", "dense_gemm", 1.0, 8.0))
        return dataclasses.replace(Profile.of(shares, LaunchProfile(300, 3, step_ms, 1.0)), kernels=kernels)

    before, after, own = profile(0.0017, 2), profile(0.0269, 34), profile(0.0084, 2)
    measured = Regime("batch 64", 64, 1e9, baseline_tok_s=64000 / 5, profile=before, step_ms=5.0)
    other = Regime("batch 8", 8, 1e9, baseline_tok_s=8000 / 5, profile=own, step_ms=5.0)
    parts = carried_parts_ms(before, after, measured, other)
    assert parts is not None
    changed, added, dropped, _ = parts
    assert changed == pytest.approx(0.0084 * ((0.0269 * 2 / 34) / 0.0017 - 1))
    assert added == pytest.approx(0.0269 * 32 / 34) and dropped == 0


def test_a_profile_without_kernels_is_carried_by_bucket_ratios_as_before():
    bare = dataclasses.replace(OTHER, profile=dataclasses.replace(OWN_64, kernels=()))
    assert carried_gpu_ms(BEFORE, AFTER, MEASURED, bare) is None
    effects = derive(BEFORE, AFTER, MEASURED, [MEASURED, bare])
    assert any(e.kind is EffectKind.BUCKET and e.regimes == frozenset({"batch 64"}) for e in effects)


def test_the_carried_regime_gets_the_kernel_reading_as_gpu_work_and_the_measured_one_its_bucket_ratios():
    effects = derive(BEFORE, AFTER, MEASURED, [MEASURED, OTHER])
    carried = [e for e in effects if e.regimes == frozenset({"batch 64"})]
    work = [e for e in carried if e.kind is EffectKind.GPU_WORK]
    latency_ms = 8 * LATENCY_US / 1000  # index_copy's 8 launches; the rest of its 0.5 ms grows 8x
    # sdpa kept: by its ratio (+12 ms), by the ratio of its work above 3 us a launch (125 -> 500 us at batch 8, 500
    # us at 64: 8 launches of 3 + 497 x 497 / 122 us, +12.22 ms), or, the carry, above its own latency as eager's
    # 125 us at batch 8 and 500 us at 64 put it: 125 - 375 / 56 x 8 = 71.4 us a launch
    above = 8 * (3 + 497 * 497 / 122) / 1000 - 4
    assert carried_parts_ms(BEFORE, AFTER, MEASURED, OTHER, kept_latency_us=3.0)[0] == pytest.approx(above)
    own_latency = 125 - (500 - 125) / (64 - 8) * 8
    assert fitted_latency_us(125, 8, 500, 64) == pytest.approx(own_latency)
    fitted = 8 * (own_latency + (500 - own_latency) ** 2 / (125 - own_latency)) / 1000 - 4
    expected = fitted + (latency_ms + (0.5 - latency_ms) * 8) + 0.016 - 10
    assert len(work) == 1 and work[0].gpu_ms.likely == pytest.approx(expected)
    # the band's ends: sdpa's readings (here the ratio's and its own latency's) and new launches' latency 10 us and
    # 3 us, each +-15% of what the carry
    # moves (the root sum of squares of sdpa's change, the new kernels' time and cat's -10: more than their sum)
    least_added, most_added = 0.08 + 0.42 * 8 + 0.016, 0.024 + 0.476 * 8 + 0.016
    half = {(kept, added): 0.15 * (kept ** 2 + added ** 2 + 10 ** 2) ** 0.5
            for kept in (12, fitted) for added in (least_added, most_added)}
    assert work[0].gpu_ms.low == pytest.approx(12 + least_added - 10 - half[(12, least_added)])
    assert work[0].gpu_ms.high == pytest.approx(fitted + most_added - 10 + half[(fitted, most_added)])
    assert not any(e.kind is EffectKind.BUCKET for e in carried)  # the kernels said it; no ratio on top
    measured = {e.bucket for e in effects if e.kind is EffectKind.BUCKET and e.regimes == frozenset({"batch 8"})}
    assert measured == {"attention", "elementwise"}


@pytest.mark.parametrize("folder, within", [("graphs", 0.05), ("graphs_no_cudnn", 0.05)])
def test_on_the_h100_sweep_the_b8_prototype_carried_to_b64_gives_the_gpu_time_measured_there(folder, within):
    """tests/data/graphs*: traces of one decoder, eager and CUDA graphs, at batches 8 and 64 (H100). Batch 8's pair,
    carried kernel by kernel to batch 64's eager trace, against batch 64's graph trace's own GPU time."""
    import json
    from pathlib import Path

    from tierplan.importers.buckets import bucket_kernels, kept_kernels, step_shares
    from tierplan.importers.torch_trace import parse_trace

    data = Path(__file__).parent.parent / "data" / folder
    steps = json.loads((data / "step_times.json").read_text())["paths"]

    def profile(name: str, path: str, batch: str) -> tuple[Profile, float]:
        with open(data / f"trace_{name}_b{batch}.json.gz", "rb") as handle:
            summary = parse_trace(handle, name)
        step_ms = steps[path][batch]["tokens_1"]["median_step_ms"]
        bucketing = bucket_kernels(summary)
        shares, _ = step_shares(bucketing, ranks=1, step_ms=step_ms, steps=summary.steps.decode_steps)
        kernels = tuple(kept_kernels(bucketing, summary.steps.decode_steps))
        launches = LaunchProfile(summary.steps.gpu_items, summary.steps.host_launches, step_ms, 1.0)
        gpu_ms = bucketing.gpu_time_us / summary.steps.decode_steps / 1000
        return dataclasses.replace(Profile.of(shares, launches), kernels=kernels), gpu_ms

    (before, _), (after, _) = profile("eager", "eager", "8"), profile("graphs", "graphs", "8")
    (own, own_gpu_ms), (_, measured_gpu_ms) = profile("eager", "eager", "64"), profile("graphs", "graphs", "64")
    measured = Regime("b8", 8, 1e9, baseline_tok_s=1, profile=before)
    other = Regime("b64", 64, 1e9, baseline_tok_s=1, profile=own)
    carried = own_gpu_ms + carried_gpu_ms(before, after, measured, other)
    assert carried == pytest.approx(measured_gpu_ms, rel=within)


def test_a_kept_kernel_s_own_latency_is_fitted_from_its_times_in_the_two_regimes():
    """tests/data/graphs_hf_inductor_4096's eager cuDNN attention: 5.73 us a launch at batch 1, 105.7 at 64: 4.14 us of
    latency. No latency is read where the regimes share a concurrency, where the time grows by less than half, or
    where the line puts it outside the shorter launch (a time that grows faster than the sequences)."""
    assert fitted_latency_us(5.73, 1, 105.7, 64) == pytest.approx(5.73 - 99.97 / 63, rel=1e-9)
    assert fitted_latency_us(105.7, 64, 5.73, 1) == fitted_latency_us(5.73, 1, 105.7, 64)
    assert fitted_latency_us(5.73, 8, 105.7, 8) is None
    assert fitted_latency_us(5.73, 1, 8.0, 64) is None
    assert fitted_latency_us(1.0, 1, 200.0, 64) is None  # the line would put it below 0


def test_carried_from_batch_1_a_kept_kernel_near_its_latency_grows_as_its_work_above_it():
    """The graph path's attention over a whole static cache: 28.7 us a launch at batch 1 where the eager kernel took
    5.73 (4.14 of it latency, as batch 64's 105.7 us puts it). Above that latency the graph kernel does 15.4 times the
    eager one's work, not the 5 times its plain ratio says: 4.14 + 24.56 x 15.4 us a launch at 64. A kernel the
    prototype moved by under KEPT_NOISE keeps the mean of the ratio and the work above LATENCY_US_LOW: amplified by
    5.73 / 1.59, the noise between two traces would read as work."""
    def one(attention_us: float, calls: float = 8.0, step_ms: float = 10.0) -> Profile:
        ms = attention_us * calls / 1000
        shares = {"attention": ms / step_ms, "dense_gemm": 2.0 / step_ms}
        kernels = (("sdpa", "attention", 1.0, calls), ("gemm", "dense_gemm", 1.0, 8.0))
        return dataclasses.replace(Profile.of(shares, LaunchProfile(300, 300, step_ms, 1.0)), kernels=kernels)

    before, own = one(5.73), one(105.7)
    measured = Regime("batch 1", 1, 1e9, baseline_tok_s=100, profile=before, step_ms=10.0)
    other = Regime("batch 64", 64, 1e9, baseline_tok_s=6400, profile=own, step_ms=10.0)
    latency = 5.73 - 99.97 / 63
    grown = 8 * (latency + (105.7 - latency) * (28.7 - latency) / (5.73 - latency)) / 1000
    assert carried_parts_ms(before, one(28.7), measured, other, kept_latency_us=FITTED)[0] == pytest.approx(
        grown - 8 * 105.7 / 1000)
    assert carried_parts_ms(before, one(28.7), measured, other)[0] == pytest.approx(8 * 105.7 / 1000 * (28.7 / 5.73 - 1))
    near = one(5.73 * 1.05)
    assert carried_parts_ms(before, near, measured, other, kept_latency_us=FITTED)[0] == pytest.approx(
        (carried_parts_ms(before, near, measured, other)[0]
         + carried_parts_ms(before, near, measured, other, kept_latency_us=LATENCY_US_LOW)[0]) / 2)
    assert KEPT_NOISE == 0.10


def test_a_kernel_the_regime_names_beside_its_family_s_other_variant_goes_with_its_family():
    """The dynamic cache's copies: batch 8 runs torch.cat as CatArrayBatchedCopy_vectorized, batch 64 as that and as
    CatArrayBatchedCopy (ATen picks the variant by alignment). The prototype drops the cat: at batch 64 both variants
    go (1.0 and 3.0 ms), not only the one named at batch 8."""
    def profile(kernels_ms: dict[str, float], step_ms: float = 10.0) -> Profile:
        ms = sum(kernels_ms.values())
        shares = {"elementwise": ms / step_ms, "dense_gemm": 2.0 / step_ms}
        kernels = tuple((name, "elementwise", t / ms, 8.0) for name, t in kernels_ms.items()) + (
            ("gemm", "dense_gemm", 1.0, 8.0),)
        return dataclasses.replace(Profile.of(shares, LaunchProfile(300, 300, step_ms, 1.0)), kernels=kernels)

    vectorized = "void at::native::(anonymous namespace)::CatArrayBatchedCopy_vectorized<OpaqueType<2u>, 4>(x)"
    plain = "void at::native::(anonymous namespace)::CatArrayBatchedCopy<OpaqueType<2u>, 3>(x)"
    assert family(vectorized) == family(plain) == family(plain.replace("Copy<", "Copy_aligned16_contig<"))
    before, after = profile({vectorized: 0.5, "add": 0.5}), profile({"add": 0.5})
    own = profile({vectorized: 1.0, plain: 3.0, "add": 0.5})
    measured = Regime("batch 8", 8, 1e9, baseline_tok_s=800, profile=before, step_ms=10.0)
    other = Regime("batch 64", 64, 1e9, baseline_tok_s=6400, profile=own, step_ms=10.0)
    changed, _, dropped, _ = carried_parts_ms(before, after, measured, other)
    assert dropped == pytest.approx(-4.0) and changed == pytest.approx(0.0)

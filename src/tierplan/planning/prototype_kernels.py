"""A prototype's change carried kernel by kernel, where the traces name their kernels.

A bucket's time before and after a change mixes work of different kinds: a CUDA-graph path drops the dynamic cache's
copies (their time grows with the batch), keeps the weight GEMMs (their time does not) and adds a static cache's
writes and attention over the whole cache (grows with the batch again). A ratio of bucket times measured at one batch
moves all of it alike, and at another batch it is wrong: on the H100 sweep in tests/data/graphs_no_cudnn, carrying
batch 8's ratios to batch 64 gave a quarter of the step measured there. Matched by name (a trace reader's "[attention] "
tag aside), the kernels tell the three apart:

- a kernel the prototype no longer runs takes, in each regime, the time its own profile gives it there;
- a kernel in both changes by its ratio at the measured regime, applied to its time in each regime's own profile
  (launches the prototype added to it are a new kernel's, below),
  or by the ratio of its work above LATENCY_US_LOW a launch (a launch's latency does not scale with its work): the
  carry takes the mean of the two, the band both. On tests/data/graphs_1b the graph path's cuDNN attention over the
  whole 4096-position cache took 4.1x the eager kernel's time at batch 8, where the eager kernel's launches are
  short (6 us), and 5.3x at 64;
- a kernel a regime's profile names that neither trace runs stands for the measured regime's kernels of its bucket
  that the regime does not name: cuBLAS picks a GEMM by its shapes, so batch 64's GEMMs are named differently from
  batch 8's (every H100 sweep in tests/data), and flash attention splits its keys at batch 8 and not at 64
  (tests/data/graphs_no_cudnn). It is dropped and kept in their shares of the measured time, the kept part changed
  by their joint ratio;
- a kernel new in the prototype, in a bucket whose work the model's shapes fix (REPLACING_BUCKETS: GEMMs,
  attention), does in another form the work of the kernels of its bucket the prototype dropped (an FP8 GEMM for a
  bf16 one): up to their time at the measured regime it moves as they do, to their time in each regime;
- the rest of a new kernel is work added for the sequences in flight: each of its launches a step takes a latency
  however little it does, and the rest of its time grows with the regime's concurrency over the measured one's.
  Where the trace did not count its launches, all of its time grows. The band's ends take LATENCY_US_LOW and
  LATENCY_US_HIGH a launch, the carry their geometric middle, LATENCY_US; a reduction over the grid, which waits on
  its blocks' partial results, REDUCTION_LATENCY times as much. A kernel whose launches at the measured regime held
  FULL_GRID_BLOCKS blocks an SM or more (torch.profiler's "blocks per SM") ran in waves its grid set: its time was
  work, and its latency is only the GPU's floor, WORK_BOUND_LATENCY_US (carried to fewer sequences, one wave's time
  at least). Inductor's fused mask over tests/data/graphs_hf_inductor_4096's whole static cache held 124 blocks an SM
  at batch 1 (14.7 us a launch) and took 7.7x and 62x that at 8 and 64; the kernels the FP8 path of
  tests/data/fp8_batches added held 0.01-0.12 at batch 1 and stayed at 1-3 us to 64;
- a device-to-device memcpy new in the prototype copies a whole buffer: the weights or a buffer of fixed size (the
  same at every batch), or a cache (it grows with the sequences in flight). A trace at one batch cannot tell which,
  so its time above the launch floor grows as the concurrency ratio to a power drawn on 0..1: BUFFER_EXPONENTS gives
  the carry (0.5) and the band's ends (0: fixed, 1: a sequence's). In tests/data/graphs_hf, where cudagraph trees
  copy the weights and the static cache into the graph's buffers at each replay, these copies grew 2.5x from batch 8
  to 64 (a power of 0.44), while the cache copy kernels beside them grew 7.9x;
- the GPU's own gap before each item becomes the prototype's (a graph replay queues its items closer than an eager
  path launches them), over the regime's items as the change leaves them.

Only the kernels a profile lists (a trace keeps its 200 largest) take part; the rest of a bucket's time is unchanged.
"""

from __future__ import annotations

import re
from collections import defaultdict

from tierplan.planning.model import Profile, Regime
from tierplan.planning.step import HOST_BUCKET

TAG = re.compile(r"^\[[a-z]+\] ")  # a reader's tag for where a kernel was launched from, not part of its name
# What a launch takes on the GPU however little it does (us), its latency. Hopper runs an empty kernel in 1-3 us; in
# the H100 traces of tests/data/graphs the smallest kernels take 0.7-1.5 us, and the static cache's writes (2.7 us a
# launch) took the same time at batch 64 as at 8 while the graph path's attention (355 us a launch) grew 8x. A
# reduction to one value over the grid takes longer: the absolute maximum in front of each FP8 GEMM
# (tests/data/fp8) took 8.3 us a launch at batch 8 and 6.2 at 64, and a reduction kernel of tests/data/graphs_no_cudnn
# 10.7 and 11.3. Yet kernels of 4-6 us grew 6-7x there (softmax over the whole static cache), and Inductor's fused mask over
# a whole static cache (tests/data/graphs_hf_inductor, 57 us a launch at batch 8) grew as if it had 1 us of latency.
LATENCY_US_LOW = 3.0
LATENCY_US_HIGH = 10.0
LATENCY_US = (LATENCY_US_LOW * LATENCY_US_HIGH) ** 0.5
# A launch of a grid of several waves is work, not latency (see the module's docstring): the smallest kernels of the
# H100 traces in tests/data take 0.7-1.5 us a launch.
FULL_GRID_BLOCKS = 4.0
WORK_BOUND_LATENCY_US = 1.0
# A reduction over the grid (ATen's reduce_kernel, Triton's red and per kernels) waits on its blocks' partial results:
# its latency band is the band above times this (5.5-18 us, the carry 10 us). The two ATen reductions prototypes
# added in the H100 sweeps did not grow with the batch (tests/data/fp8's absolute maximum, 8.3 us a launch at batch 8
# and 6.2 at 64; tests/data/graphs_no_cudnn's, 10.7 and 11.4), nor did Inductor's RMSNorm reductions (2-3 us).
REDUCTION_LATENCY = LATENCY_US_HIGH / LATENCY_US
REDUCTION = re.compile(r"reduce_kernel|triton_(red|per)_", re.IGNORECASE)
COPY_BUCKET = "memory_copy"
REPLACING_BUCKETS = frozenset({"dense_gemm", "moe", "attention"})  # work fixed by the model's shapes
BUFFER_COPY = re.compile(r"memcpy\W*(dtod|device.{0,4}to.{0,4}device)", re.IGNORECASE)  # torch's and Nsight's names
BUFFER_EXPONENTS = (0.0, 0.5, 1.0)  # the band's low end, the carry, the high end (see the module's docstring)
CARRY = 1  # the index in BUFFER_EXPONENTS of the carry
ATEN_VARIANT = re.compile(r"(_(vectorized|contig|aligned))+$")  # an ATen kernel's variant by alignment (family())
MORE_LAUNCHES = "(launches the prototype added)"  # the new part of a kept kernel launched more often


Kernels = dict[str, tuple[float, float]]  # GPU ms a step and launches a step, by untagged name


def kernel_ms(profile: Profile | None) -> Kernels:
    """Each listed kernel's GPU time a step (ms) and launches a step (0: not counted), by its untagged name; empty
    without kernels or launch counts."""
    if profile is None or profile.launches is None or not profile.kernels:
        return {}
    step_ms = profile.launches.step_ms
    bucket_ms = {b: s * step_ms for b, s in profile.shares if b != HOST_BUCKET}
    times: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for name, bucket, fraction, calls in profile.kernels:
        entry = times[TAG.sub("", name)]
        entry[0] += fraction * bucket_ms.get(bucket, 0.0)
        entry[1] += calls
    return {name: (ms, calls) for name, (ms, calls) in times.items()}


def new_copies_ms(before: Profile, after: Profile) -> float:
    """GPU time a step (ms) of the copies new in the prototype (its memory_copy kernels the baseline does not run).
    They are carried as work a sequence, but a copy of the weights or of any buffer of fixed size stays the same at
    every batch (tests/data/graphs_hf: cudagraph trees copying the weights at each replay)."""
    if after.launches is None or not after.kernels:
        return 0.0
    known = {TAG.sub("", name) for name, *_ in before.kernels}
    bucket_ms = dict(after.shares).get(COPY_BUCKET, 0.0) * after.launches.step_ms
    return sum(fraction * bucket_ms for name, bucket, fraction, _ in after.kernels
               if bucket == COPY_BUCKET and TAG.sub("", name) not in known)


def buffer_copies_ms(before: Profile, after: Profile) -> float:
    """GPU time a step (ms) of the device-to-device memcpys new in the prototype: whole buffers copied, which may or
    may not grow with the batch (see the module's docstring)."""
    k0, k1 = kernel_ms(before), kernel_ms(after)
    return sum(ms for name, (ms, _) in k1.items() if name not in k0 and BUFFER_COPY.search(name))


def blocks_per_sm(profile: Profile | None) -> dict[str, float]:
    """Each listed kernel's blocks per SM at its launches, by untagged name (the most, where tags split it)."""
    out: dict[str, float] = {}
    for name, blocks in profile.blocks_per_sm if profile is not None else ():
        key = TAG.sub("", name)
        out[key] = max(blocks, out.get(key, 0.0))
    return out


def grown_ms(ms: float, calls: float, scale: float, latency_us: float = LATENCY_US) -> float:
    """A new kernel's time a step at `scale` times the sequences in flight: its launches' latency, and the rest
    grown."""
    floor_ms = min(ms, calls * latency_us / 1000)
    return floor_ms + (ms - floor_ms) * scale


def kernel_buckets(profile: Profile | None) -> dict[str, str]:
    """Each listed kernel's bucket by its untagged name (the bucket holding most of its time)."""
    if profile is None:
        return {}
    largest: dict[str, tuple[float, str]] = {}
    for name, bucket, fraction, _ in profile.kernels:
        key = TAG.sub("", name)
        if fraction >= largest.get(key, (-1.0, ""))[0]:
            largest[key] = (fraction, bucket)
    return {name: bucket for name, (_, bucket) in largest.items()}


FITTED = -1.0  # kept_latency_us: each kept kernel's own latency, fitted from its times in the two regimes
MIN_GROWTH = 1.5  # a kernel's time a launch must grow this much between two regimes to fit its latency
# a kept kernel whose time a launch the prototype moved by less than this is the same work: the fitted reading would
# amplify the noise between two traces by a0 / (a0 - latency) (the FP8 paths' norms and attention moved 0-5% at batch 1)
KEPT_NOISE = 0.10


def fitted_latency_us(a0: float, c0: float, a_own: float, c_own: float) -> float | None:
    """A kernel's latency a launch (us) from its time a launch in two regimes of the baseline (a0 at c0 sequences in
    flight, a_own at c_own), as a latency plus work that grows with the sequences; None where the two do not show it
    (one concurrency, a time that grows by less than MIN_GROWTH, a latency outside 0..the shorter launch).
    tests/data/graphs_hf_inductor_4096's eager cuDNN attention took 5.7, 15.7 and 105.7 us a launch at batches 1, 8
    and 64: 4.1 us of latency, and the line through 1 and 64 gives batch 8 within 7%."""
    if c_own == c0 or min(a0, a_own) <= 0:
        return None
    (a_low, c_low), (a_high, c_high) = sorted(((a0, c0), (a_own, c_own)), key=lambda pair: pair[1])
    if a_high < MIN_GROWTH * a_low:
        return None
    latency = a_low - (a_high - a_low) / (c_high - c_low) * c_low
    return latency if 0 < latency < a_low else None


def _kept_ms(before: tuple[float, float], after: tuple[float, float], there: tuple[float, float],
             latency_us: float, concurrency: tuple[float, float] = (1.0, 1.0)) -> float:
    """A kept kernel's time (ms) in a regime whose own trace gives it `there`: by its ratio at the measured regime,
    or, with `latency_us`, by the ratio of the work above its launches' latency (each pair: ms and launches a step).
    The latter needs a launch at the measured regime to hold at least as much work as latency (which bounds it to
    twice the ratio's reading): a shorter one gives no ratio of work to trust. FITTED, the carry, takes the kernel's
    own latency (fitted_latency_us, from its times at the measured and the regime's `concurrency`) and trusts its
    ratio of work however short the launch; where the two regimes do not show a latency, the mean of the ratio and
    the work above LATENCY_US_LOW."""
    (t0, c0), (t1, c1), (own, calls) = before, after, there
    if latency_us != FITTED and latency_us <= 0 or min(c0, c1, calls) <= 0:
        return own * t1 / t0
    a0, a1, a_own = (1000 * t / c for t, c in ((t0, c0), (t1, c1), (own, calls)))
    if latency_us == FITTED:
        latency = fitted_latency_us(a0, concurrency[0], a_own, concurrency[1])
        if latency is None or min(a1, a_own) <= latency or abs(a1 / a0 - 1) < KEPT_NOISE:
            return (own * t1 / t0 + _kept_ms(before, after, there, LATENCY_US_LOW)) / 2
    else:
        latency = latency_us
        if min(a1, a_own) <= latency or a0 < 2 * latency:
            return own * t1 / t0
    return calls * c1 / c0 * (latency + (a_own - latency) * (a1 - latency) / (a0 - latency)) / 1000


def _there(k0: Kernels, k1: Kernels, own: Kernels, where0: dict[str, str], where_own: dict[str, str],
           kept_latency_us: float = 0.0, concurrency: tuple[float, float] = (1.0, 1.0)
           ) -> tuple[dict[str, float], float]:
    """In a regime (`own`): the time (ms) of the kernels the prototype dropped, by bucket, and what the kernels it
    kept change by (ms), named kernels and the ones it names that neither trace runs alike (see the module's
    docstring)."""
    dropped: dict[str, float] = defaultdict(float)
    changed = 0.0
    for name in k0.keys() & own.keys():
        if name not in k1:
            dropped[where0[name]] += own[name][0]
        elif k0[name][0] > 0:
            changed += _kept_ms(k0[name], k1[name], own[name], kept_latency_us, concurrency) - own[name][0]
    missing = {name for name in k0 if name not in own}
    unnamed: dict[tuple[str, str], float] = defaultdict(float)  # by bucket and family, or bucket alone ("")
    families = {family(name) for name in k0}  # the regime may name a family's other variant beside this one
    for name in own.keys() - k0.keys() - k1.keys():
        unnamed[where_own[name], family(name) if family(name) in families else ""] += own[name][0]
    for (bucket, kind), ms in sorted(unnamed.items(), key=lambda item: item[0][1] == ""):
        standing = ([name for name in k0 if where0[name] == bucket and family(name) == kind] if kind else
                    [name for name in missing if where0[name] == bucket])
        kept_ms = sum(k0[name][0] for name in standing if name in k1)
        gone_ms = sum(k0[name][0] for name in standing if name not in k1)
        if kind:  # a family's kernels stand for its own only
            missing -= set(standing)
        if kept_ms + gone_ms <= 0:
            continue
        dropped[bucket] += ms * gone_ms / (kept_ms + gone_ms)
        if kept_ms > 0:
            ratio = sum(k1[name][0] for name in standing if name in k1) / kept_ms
            changed += ms * kept_ms / (kept_ms + gone_ms) * (ratio - 1)
    return dropped, changed


def family(name: str) -> str:
    """A kernel's name without its template arguments and parameters, up to its first number, and without ATen's
    variant suffixes: the one template instantiated for other index widths (cuBLAS's gemv over int indices at batch 8
    and long ones at 64), one library's kernels tuned for other shapes (cuBLAS's nvjet GEMMs, whose tiles and layouts
    follow the batch), or one ATen kernel in the variant its tensors' alignment picks (torch.cat's
    CatArrayBatchedCopy, _contig, _aligned16_contig or _vectorized: the dynamic cache's copies ran as the last at
    batch 1 and as the first at 64 in tests/data/graphs_batches)."""
    depth, out = 0, []
    for char in name:
        if char in "<(":
            depth += 1
        elif char in ">)":
            depth = max(depth - 1, 0)
        elif depth == 0:
            out.append(char)
    return ATEN_VARIANT.sub("", re.split(r"\d", "".join(out), maxsplit=1)[0].strip())


def _more_launches_apart(k0: Kernels, k1: Kernels, where1: dict[str, str]) -> tuple[Kernels, dict[str, str]]:
    """A kept kernel the prototype launches more often: its launches beyond the baseline's are new ones (their time a
    launch as the prototype's trace gives it, carried as a new kernel's), the rest kept. Scaled by the launch ratio,
    the regime's own launches would stand for the new ones: tests/data/fp8_qwen_batches' FP8 path runs 34 memsets of
    0.8 us where its bf16 path ran 2, and batch 8's own memsets take 4.2 us each."""
    out, where = dict(k1), dict(where1)
    for name in k0.keys() & k1.keys():
        (_, c0), (t1, c1) = k0[name], k1[name]
        if c0 > 0 and c1 > c0:
            out[name] = (t1 * c0 / c1, c0)
            out[f"{name} {MORE_LAUNCHES}"] = (t1 * (c1 - c0) / c1, c1 - c0)
            where[f"{name} {MORE_LAUNCHES}"] = where1[name]
    return out, where


def carried_gpu_ms(before: Profile, after: Profile, measured: Regime, regime: Regime,
                   buffer_exponent: float = BUFFER_EXPONENTS[CARRY], latency_us: float = LATENCY_US) -> float | None:
    """The GPU time a step (ms; negative: removed) the change makes in `regime`, kernel by kernel, with new whole-buffer
    copies grown as the concurrency ratio to `buffer_exponent` and `latency_us` a launch that does not grow (see the
    module's docstring); None where one of the three profiles lists no kernels."""
    parts = carried_parts_ms(before, after, measured, regime, buffer_exponent, latency_us)
    return None if parts is None else sum(parts)


def carried_parts_ms(before: Profile, after: Profile, measured: Regime, regime: Regime,
                     buffer_exponent: float = BUFFER_EXPONENTS[CARRY], latency_us: float = LATENCY_US,
                     kept_latency_us: float = 0.0) -> tuple[float, float, float, float] | None:
    """What carried_gpu_ms adds up (ms): the kept kernels' change, the new kernels' time, the dropped kernels' time
    (negative) and the change in the gaps before each item."""
    k0, k1, own = kernel_ms(before), kernel_ms(after), kernel_ms(regime.profile)
    if not (k0 and k1 and own) or measured.concurrency <= 0:
        return None
    scale = regime.concurrency / measured.concurrency
    where0, where1 = kernel_buckets(before), kernel_buckets(after)
    k1, where1 = _more_launches_apart(k0, k1, where1)
    dropped_there, changed = _there(k0, k1, own, where0, kernel_buckets(regime.profile), kept_latency_us,
                                    (measured.concurrency, regime.concurrency))
    dropped: dict[str, float] = defaultdict(float)  # at the measured regime, by bucket
    for name in k0.keys() - k1.keys():
        dropped[where0[name]] += k0[name][0]
    new = k1.keys() - k0.keys()
    blocks1 = blocks_per_sm(after)
    new_ms: dict[str, float] = defaultdict(float)
    for name in new:
        new_ms[where1[name]] += k1[name][0]
    added = 0.0
    for name in new:
        (ms, calls), bucket = k1[name], where1[name]
        replaced = dropped[bucket] if bucket in REPLACING_BUCKETS and new_ms[bucket] > 0 else 0.0
        share = min(1.0, replaced / new_ms[bucket]) if replaced > 0 else 0.0
        moved = share * ms * dropped_there[bucket] / replaced if replaced > 0 else 0.0
        growth = scale ** buffer_exponent if BUFFER_COPY.search(name) else scale
        latency = latency_us * REDUCTION_LATENCY if REDUCTION.search(name) else latency_us
        blocks = blocks1.get(name.removesuffix(f" {MORE_LAUNCHES}"), 0.0)
        if blocks >= FULL_GRID_BLOCKS:  # work-bound: one wave's time at least
            latency, growth = WORK_BOUND_LATENCY_US, max(growth, 1 / blocks)
        added += moved + grown_ms((1 - share) * ms, (1 - share) * calls, growth, latency)
    b0, b1 = before.launches, after.launches
    own_launches = regime.profile.launches if regime.profile is not None else None
    assert b0 is not None and b1 is not None and own_launches is not None  # kernel_ms checked all three
    items = max(own_launches.gpu_items + b1.gpu_items - b0.gpu_items, 0.0)
    gaps = items * (b1.gpu_gap_us - own_launches.gpu_gap_us) / 1000
    return changed, added, -sum(dropped_there.values()), gaps

"""A prototype's change carried kernel by kernel, where the traces name their kernels.

A bucket's time before and after a change mixes work of different kinds: a CUDA-graph path drops the dynamic cache's
copies (their time grows with the batch), keeps the weight GEMMs (their time does not) and adds a static cache's
writes and attention over the whole cache (grows with the batch again). A ratio of bucket times measured at one batch
moves all of it alike, and at another batch it is wrong: on the H100 sweep in tests/data/graphs_no_cudnn, carrying
batch 8's ratios to batch 64 gave a quarter of the step measured there. Matched by name (a trace reader's "[attention] "
tag aside), the kernels tell the three apart:

- a kernel the prototype no longer runs takes, in each regime, the time its own profile gives it there;
- a kernel in both changes by its ratio at the measured regime, applied to its time in each regime's own profile;
- a kernel new in the prototype is work added for the sequences in flight: its time at the measured regime scaled
  by the regime's concurrency over the measured one's (what grows with the batch grows in proportion).

Only the kernels a profile lists (a trace keeps its 200 largest) take part; the rest of a bucket's time is unchanged.
"""

from __future__ import annotations

import re
from collections import defaultdict

from tierplan.planning.model import Profile, Regime
from tierplan.planning.step import HOST_BUCKET

TAG = re.compile(r"^\[[a-z]+\] ")  # a reader's tag for where a kernel was launched from, not part of its name


def kernel_ms(profile: Profile | None) -> dict[str, float]:
    """Each listed kernel's GPU time a step (ms), by its untagged name; empty without kernels or launch counts."""
    if profile is None or profile.launches is None or not profile.kernels:
        return {}
    step_ms = profile.launches.step_ms
    bucket_ms = {b: s * step_ms for b, s in profile.shares if b != HOST_BUCKET}
    times: dict[str, float] = defaultdict(float)
    for name, bucket, fraction in profile.kernels:
        times[TAG.sub("", name)] += fraction * bucket_ms.get(bucket, 0.0)
    return dict(times)


def carried_gpu_ms(before: Profile, after: Profile, measured: Regime, regime: Regime) -> float | None:
    """The GPU time a step (ms; negative: removed) the change makes in `regime`, kernel by kernel (see the module's
    docstring); None where one of the three profiles lists no kernels."""
    k0, k1, own = kernel_ms(before), kernel_ms(after), kernel_ms(regime.profile)
    if not (k0 and k1 and own) or measured.concurrency <= 0:
        return None
    removed = sum(own.get(name, 0.0) for name in k0.keys() - k1.keys())
    changed = sum(own[name] * (k1[name] / k0[name] - 1) for name in k0.keys() & k1.keys() if name in own and k0[name] > 0)
    added = sum(k1[name] for name in k1.keys() - k0.keys()) * regime.concurrency / measured.concurrency
    return changed + added - removed

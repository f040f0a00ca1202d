"""The model's own error, per effect kind: a stated prior (each kind's entry in effect_kinds.py) that calibration
narrows or widens.

A projection composes simple models (Amdahl on a profiled bucket, the launch model, the hardware
floor for speculative decoding); each is wrong by some amount even when its inputs are right. That
error is put into the bands: every effect that applies adds a normal term to ln(time a token),
with standard deviation sigma x m, where m is how far the effect moves the step (|ln| of its
per-token change; for speculative decoding |ln E| + |ln cost|). An effect that predicts 2x with
sigma 0.15 is thus uncertain by a factor exp(0.15 ln 2) = 1.11 at one standard deviation on top of
its three-point spread; one that moves nothing adds nothing.

Where the priors come from (and why they differ):
- bucket 0.15: Amdahl assumes the bucket shrinks alone; overlap, launch gaps and clocks move with
  it. Replayed on the shared H200 traces, an attention path entered as an attention speedup missed
  by 11%, about 0.15 of its log-gain.
- step 0.25: an end-to-end claim carried from where it was measured (an upstream report, another
  machine) transfers worst.
- time_saved 0.15: as bucket, milliseconds measured on one configuration.
- spec_decode 0.20: acceptance measured offline and the draft step's load-dependent cost; the
  public DeepSeek-V4-Flash MTP runs cost 1.3x a plain step at concurrency 1 and 1.8x at 24, where
  a fixed draft cost missed by 34%.
- launch_overhead 0.10 and launch_count 0.10: the launch model's residual once the host is off the
  critical path is the GPU side, busy time plus a gap a kernel. On the shared H200 pair the gap prior
  (0.5 us) was 0.2 us high and SDPA with a static cache added 0.13 ms of GPU time a step: each about
  8% of the 1.8 ms step, about 0.05 of the 1.86 log-change CUDA graphs made; 0.10 leaves room for both
  to go the same way.
Calibration: for each change the campaign measured (a baseline or gate check that includes
interventions an earlier one did not), z = ln(measured / predicted gain) / sigma of the prediction.
The scale on every prior is sqrt((4 + sum z^2) / (4 + n)): the prior counts as four agreeing
replays, so two landed changes that missed widen the bands and several that hit narrow them.
A kind of effect with MIN_KIND_PAIRS measured changes of its own (each change counted for the kind
that carries most of its predicted model error) gets its own scale from them; the others keep the
campaign-wide one. Each z counts at most as a 3-sigma miss (Z_CAP, a Huber-style bound): a pair that misses by more is
more likely two runs of different setups (another model, GPU or engine, a wrong "includes") than a
model that far off, so one such pair can widen every band by at most sqrt((4 + 9) / 5) = 1.61x,
and the plan names it instead of letting it set the bands.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from tierplan.planning.effect_kinds import rule_of
from tierplan.planning.model import EffectKind

PRIOR_WEIGHT = 4.0  # pseudo-observations the priors count as
Z_CAP = 3.0  # a measured change counts at most as a miss of this many standard deviations
MIN_KIND_PAIRS = 3  # measured changes a kind needs before it gets a scale of its own


def sigma(kind: EffectKind, scale: float = 1.0) -> float:
    """The model error's standard deviation on ln(time a token) per unit of |ln| change, for an effect kind."""
    return rule_of(kind).prior_sigma * scale


def bounded(z: float) -> float:
    """A standardised miss as calibration counts it: at most Z_CAP in size."""
    return max(-Z_CAP, min(Z_CAP, z))


def scale_from(z_scores: Iterable[float]) -> tuple[float, int]:
    """The factor on every prior from standardised residuals of measured changes (each bounded), and how many
    there were."""
    values = [bounded(z) for z in z_scores if math.isfinite(z)]
    return math.sqrt((PRIOR_WEIGHT + sum(z * z for z in values)) / (PRIOR_WEIGHT + len(values))), len(values)

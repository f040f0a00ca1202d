"""The GPU work a prototype's benchmark shows beyond the entered effects, carried to the other regimes.

A benchmark of a CUDA-graph prototype at one regime, where the graph step is GPU-bound, measures the GPU time the
path takes beyond what the launch model projects (prototype_benchmark.py): the residual. A step time cannot say
whether that work is the same at every batch (a fixed copy, a longer pause) or grows with the sequences in flight (a
static cache's attention over its whole length, padding): a regime at a concurrency r times the measured one takes
between the residual and r times it.

- A residual within RESIDUAL_NOISE of the prototype's step is the launch model's own miss, not work the path adds:
  on the H100 sweeps whose graph paths add no GPU work to speak of (SDPA on cuDNN: tests/data/graphs_batches,
  graphs_1b_batches, graphs_qwen_batches, graphs, graphs_1b, graphs_long), the launch model left -6% to +17% of the
  graph step unexplained, at every batch from 1 to 64. It is carried as it is, its band from none of it to all of
  it. Such a benchmark shows that the path adds no work at its regime, so no work at fewer sequences in flight;
  at more, work that grows with them (a static cache's attention over its whole length) may be too small to show
  where it ran: there the bands keep the prior for a path's unstated GPU work (bottleneck_risk.py), as without a
  benchmark (`works_in`).
- A larger residual is work the path adds, and it grows with the sequences in flight: r times it, its band from r to
  the power 0.5 to r to the power 1.5 (GROWTH_EXPONENTS), drawn on a log scale, so that what is uncertain is the
  power and the middle of the band is the middle of the draws. Between traced batches the H100 sweeps' residuals grew
  as r to the power 0.67 to 1.24: math attention over the whole static cache (tests/data/graphs_no_cudnn, 13.6 ms at
  batch 8, 108 at 64: 1.0), Inductor's fused mask and cuDNN attention over a 2048- or 4096-position cache
  (tests/data/graphs_hf_inductor, graphs_hf_inductor_qwen, graphs_hf_inductor_4096: 0.93 to 1.24 between batches
  8, 32 and 64; 1.03 to 1.14 from 8 to 64), and torch.compile's cudagraphs backend, which copies the weights at each
  replay besides the cache (tests/data/graphs_hf: 8.6 ms at batch 8, 34 at 64: 0.67). Work that stays the same at
  every batch (a path that copied only the weights) would fall outside the band; a benchmark at a second regime, or
  the prototype's trace, tells them apart.
  - The band was first drawn from the same time at every batch (a power of 0) to r times it, and the draws' long tail
    put the middle of a carry from batch 64 down to 1 at twice the measured step.
  - Then from 0.5 to 1.25, drawn in milliseconds: the longer tail of the milliseconds on the side of the smaller
    power put the middle of each carry from batch 64 down 12% to 19% above the measured step (the likely carry: 7%),
    and of each carry up below it.

Benchmarks at two or more concurrencies settle it: the residuals are fitted by least squares as a fixed part and a
part a sequence in flight (`line_effects`), each benchmark's regime keeping its own residual; the other regimes take
the line, +-CARRIED_SPREAD of what it gives, widened by a step's run-to-run noise (MEASURED_SPREAD of the mean
prototype step).
"""

from __future__ import annotations

from collections.abc import Sequence

from tierplan.planning.model import Effect, EffectKind, Regime, ThreePoint
from tierplan.planning.prototype import CARRIED_SPREAD, MEASURED_SPREAD

RESIDUAL_NOISE = 0.2  # of the prototype's step: a residual this small is the launch model's own miss
# The residual a regime at r times the sequences in flight takes: r to these powers (the band's ends and the carry)
GROWTH_EXPONENTS = (0.5, 1.0, 1.5)


def is_noise(residual_ms: float, step_ms: float) -> bool:
    """Whether a residual is within the launch model's own miss (the module's docstring)."""
    return abs(residual_ms) <= RESIDUAL_NOISE * step_ms


def carried_ms(residual_ms: float, step_ms: float, ratio: float) -> ThreePoint:
    """The residual's GPU time a step (ms) in a regime at `ratio` times the measured one's sequences in flight."""
    if is_noise(residual_ms, step_ms):
        return ThreePoint(min(0.0, residual_ms), residual_ms, max(0.0, residual_ms))
    low, likely, high = sorted(residual_ms * ratio ** k for k in GROWTH_EXPONENTS)
    return ThreePoint(low, likely, high)


def works_in(residual_ms: float, step_ms: float, measured: Regime, regimes: Sequence[Regime]) -> frozenset[str]:
    """The regimes whose GPU work the residual settles: all, unless it is the model's own miss, then those at the
    measured regime's sequences in flight or fewer (the module's docstring)."""
    if not is_noise(residual_ms, step_ms):
        return frozenset(r.name for r in regimes) | {measured.name}
    return frozenset(r.name for r in regimes if r.concurrency <= measured.concurrency) | {measured.name}


def residual_effects(residual_ms: float, step_ms: float, measured: Regime,
                     regimes: Sequence[Regime]) -> tuple[Effect, ...]:
    """The residual as GPU work in each regime: as measured (+-MEASURED_SPREAD of the prototype's step, a step's
    run-to-run noise) where the prototype ran, carried in the others."""
    effects = []
    for regime in regimes:
        if regime.name == measured.name:
            spread = MEASURED_SPREAD * step_ms
            work = ThreePoint(residual_ms - spread, residual_ms, residual_ms + spread)
        else:
            work = carried_ms(residual_ms, step_ms, regime.concurrency / max(measured.concurrency, 1e-9))
        if work.low != 0 or work.high != 0:
            grows = regime.name != measured.name and not is_noise(residual_ms, step_ms)
            effects.append(Effect(EffectKind.GPU_WORK, regimes=frozenset({regime.name}), gpu_ms=work, log_scale=grows))
    return tuple(effects)


def line(points: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """The least-squares fixed part and part a sequence (ms) through (concurrency, residual ms) points at two or
    more concurrencies."""
    n = len(points)
    mean_c = sum(c for c, _ in points) / n
    mean_r = sum(r for _, r in points) / n
    spread = sum((c - mean_c) ** 2 for c, _ in points)
    per_seq = sum((c - mean_c) * (r - mean_r) for c, r in points) / spread
    return mean_r - per_seq * mean_c, per_seq


def line_effects(points: Sequence[tuple[Regime, float, float]], fitted: tuple[float, float],
                 regimes: Sequence[Regime]) -> tuple[Effect, ...]:
    """GPU work in each regime from residuals measured at two or more concurrencies ((regime, residual ms,
    prototype step ms) each): as measured where a benchmark ran, on the `fitted` line (`line`) in the others."""
    fixed, per_seq = fitted
    noise = MEASURED_SPREAD * sum(step for _, _, step in points) / len(points)
    measured = {r.name: (residual, step) for r, residual, step in points}
    effects = []
    for regime in regimes:
        if regime.name in measured:
            residual, step = measured[regime.name]
            work = ThreePoint(residual - MEASURED_SPREAD * step, residual, residual + MEASURED_SPREAD * step)
        else:
            on_line = fixed + per_seq * regime.concurrency
            width = CARRIED_SPREAD * abs(on_line) + noise
            work = ThreePoint(on_line - width, on_line, on_line + width)
        effects.append(Effect(EffectKind.GPU_WORK, regimes=frozenset({regime.name}), gpu_ms=work))
    return tuple(effects)

"""How a prototype's benchmark sized an intervention's effects, in words (the plan's evidence line and the import's
preview say the same)."""

from __future__ import annotations

from tierplan.planning.prototype_benchmark import Fit
from tierplan.planning.prototype_residual import GROWTH_EXPONENTS, RESIDUAL_NOISE
from tierplan.text import formatting as fmt


def _measured(fit: Fit) -> str:
    return f"{fit.regime} ({fit.source})"


def _beyond(fit: Fit) -> str:
    residual, step = fit.residual_ms or 0.0, fit.step_ms or 0.0
    return f"{step:.3g} ms a step measured, {residual:+.3g} ms against the {step - residual:.3g} ms projected"


def benchmark_sentence(fit: Fit) -> str:
    """The fit in one or two sentences: the share of the log-gain it realised, or the GPU work its residual shows."""
    if fit.line_ms is not None:
        fits = (fit, *fit.also)
        fixed, per_seq = fit.line_ms
        return (f"Sized by prototype benchmarks in {', '.join(_measured(f) for f in fits)}: "
                f"{'; '.join(_beyond(f) for f in fits)} with the launch cost removed as entered. The GPU work the path "
                f"adds, fitted through them, is {fixed:.3g} ms a step plus {per_seq:.3g} ms a sequence in flight in "
                "the other regimes")
    if fit.residual_ms is not None:
        head = (f"Sized by a prototype's benchmark in {_measured(fit)}: {_beyond(fit)} with the launch cost removed as "
                "entered (the graph step is GPU-bound there, so the benchmark tells the GPU work the path adds)")
        if fit.noise:
            return (f"{head}. That is within the launch model's own miss ({RESIDUAL_NOISE:.0%} of the step): carried "
                    f"as it is, and at more sequences in flight than {fit.regime}'s the bands keep the prior for "
                    "work the path may add there. A benchmark at a second concurrency settles it")
        low, _, high = GROWTH_EXPONENTS
        return (f"{head}. It is carried with the sequences in flight, its band from their {_power(low)} to their "
                f"{_power(high)}; a benchmark at a second concurrency splits it into fixed and per-sequence parts")
    clamped = " (the nearest share the estimates allow: check their shape)" if fit.clamped else ""
    if fit.clamped and fit.of_tokens and fit.realised > 1:
        clamped = (" (every draft accepted, g + 1 tokens a step, is as far as drafting goes: something else made the "
                   "benchmarked step faster)")
    return (f"Sized by a prototype's benchmark in {_measured(fit)}: it measured {fmt.tok_s(fit.prototype_tok_s)}, "
            f"{fit.measured_gain:.3g}x the baseline's {fmt.tok_s(fit.baseline_tok_s)}, where the estimates entered "
            f"projected {fit.entered_gain:.3g}x; "
            f"planned with {fit.realised:.0%} of their predicted log-gain in every regime they act on{clamped}"
            f"{TOKENS_SHARE if fit.of_tokens else ''}")


TOKENS_SHARE = ("; a speculative decoding's share is of its tokens a step (the acceptance the benchmark shows), what "
                "drafting and verifying cost stays priced in each regime")


def _power(exponent: float) -> str:
    """"square root", "1.5th power": a power of the sequences in flight, in words."""
    return "square root" if exponent == 0.5 else f"{exponent:g}th power"

"""Which measurement a regime's projection starts from, and the step time that goes with it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from tierplan.planning.metrics import STEP_METRIC, THROUGHPUT_METRIC
from tierplan.planning.model import Campaign, Measurement, MeasurementKind, Regime


def newest_baseline(measurements: Iterable[Measurement], regime: str, metric: str = THROUGHPUT_METRIC
                    ) -> Measurement | None:
    """The newest baseline (not a gate check) of the regime and metric; retracted ones never reach the core."""
    found = [m for m in measurements if m.regime == regime and m.metric == metric and m.kind is MeasurementKind.BASELINE]
    return max(found, key=lambda m: m.measured_at) if found else None


def newest_baselines(measurements: Iterable[Measurement]) -> dict[tuple[str, str], Measurement]:
    """newest_baseline of every (regime, metric) at once."""
    newest: dict[tuple[str, str], Measurement] = {}
    for m in measurements:
        if m.kind is MeasurementKind.BASELINE:
            key = (m.regime, m.metric)
            if key not in newest or m.measured_at > newest[key].measured_at:
                newest[key] = m
    return newest


def baseline_step(measurements: Iterable[Measurement], regime: str, baseline: Measurement | None) -> tuple[float | None, str]:
    """The baseline's step time from a mean TPOT measured in the same state (same includes), and where it came from.

    Without one the projection takes concurrency / throughput (None here)."""
    if baseline is None:
        return None, ""
    same_state = [
        m for m in measurements
        if m.regime == regime and m.metric == STEP_METRIC and m.kind is MeasurementKind.BASELINE
        and m.includes == baseline.includes and m.value > 0
    ]
    if not same_state:
        return None, ""
    # the TPOT of the same run when there is one, else the newest in that state
    tpot = min(same_state, key=lambda m: (abs((m.measured_at - baseline.measured_at).total_seconds()),
                                          -m.measured_at.timestamp()))
    return tpot.value, f"mean TPOT of {tpot.measured_at:%Y-%m-%d %H:%M}"


def rebased(regime: Regime, measurements: Iterable[Measurement]) -> Regime:
    """The regime with its baseline, includes and step time taken from `measurements`."""
    pool = tuple(measurements)
    baseline = newest_baseline(pool, regime.name)
    step_ms, step_source = baseline_step(pool, regime.name, baseline)
    return replace(
        regime,
        baseline_tok_s=baseline.value if baseline else None,
        baseline_measured_at=baseline.measured_at if baseline else None,
        includes=baseline.includes if baseline else frozenset(),
        step_ms=step_ms,
        step_source=step_source,
    )


def with_measurements(campaign: Campaign, added: Iterable[Measurement]) -> Campaign:
    """The campaign as it would be with `added` recorded: every regime rebased on the larger history."""
    pool = campaign.measurements + tuple(added)
    return replace(campaign, measurements=pool, regimes=tuple(rebased(r, pool) for r in campaign.regimes))

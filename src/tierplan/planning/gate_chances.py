"""P(gate passes): each pending gate on a projected metric judged against the Monte Carlo's throughput samples of
its regime after its tier, the same samples the bands are read from (their quantiles, uncertainty.py).

A gate on output throughput compares the throughput with its threshold; one on time per output token compares
concurrency x 1000 / throughput (a sequence's time a token), so it passes where the throughput is at least
concurrency x 1000 / threshold. A relative gate's threshold is its ratio times its reference regime's baseline (the
runs before its tier started are that baseline, as the projection starts from it). A gate on another metric (TTFT, a
percentile, the capacity at SLO) has no projection to judge and gets no chance. The plan expects a gate to fail when
its chance is below EXPECTED.
"""

from __future__ import annotations

from dataclasses import dataclass

from tierplan.planning.gates import required_ratio
from tierplan.planning.metrics import STEP_METRIC, THROUGHPUT_METRIC
from tierplan.planning.model import Campaign, Comparator, Gate, Regime
from tierplan.planning.uncertainty import Simulation

EXPECTED = 0.5  # below this chance the plan expects the gate to fail
TPOT_METRICS = {STEP_METRIC, "median_tpot_ms", "mean_tpot_ms"}


@dataclass(frozen=True)
class GateChance:
    """One gate's chance of passing once its tier's work is in, and the P50 of the value it judges."""

    gate: int  # its position in the campaign's gates
    p_pass: float
    projected_p50: float


def _to_metric(gate: Gate, regime: Regime, tok_s: float) -> float:
    """A throughput as the value the gate judges."""
    if gate.metric == THROUGHPUT_METRIC:
        return tok_s
    return regime.concurrency * 1000.0 / tok_s if tok_s > 0 else float("inf")


def threshold_of(gate: Gate, campaign: Campaign) -> float | None:
    """The gate's absolute threshold in the judged metric, or None when neither it nor its reference gives one."""
    if gate.relative_pct is None:
        return gate.threshold
    reference = next((r for r in campaign.regimes if r.name == (gate.reference_regime or gate.regime)), None)
    ratio = required_ratio(gate)
    if reference is None or not reference.baseline_tok_s or ratio is None:
        return None
    relative = _to_metric(gate, reference, reference.baseline_tok_s) * ratio
    if gate.threshold is None:
        return relative
    stricter = max if gate.comparator is Comparator.AT_LEAST else min
    return stricter(relative, gate.threshold)


def chances(campaign: Campaign, simulation: Simulation) -> dict[int, GateChance]:
    """Each gate judging a projected metric, by its position in the campaign's gates: its chance of passing."""
    out = {}
    regimes = {r.name: r for r in campaign.regimes}
    for position, gate in enumerate(campaign.gates):
        regime = regimes.get(gate.regime)
        if regime is None or not (gate.metric == THROUGHPUT_METRIC or gate.metric in TPOT_METRICS):
            continue
        band = next((d for d in dict(simulation.regimes).get(gate.regime, ()) if d.tier_key == gate.tier_key), None)
        threshold = threshold_of(gate, campaign)
        if band is None or band.p50_tok_s is None or threshold is None or threshold <= 0:
            continue
        # in throughput terms: at least `tok_s` passes a floor on throughput and a ceiling on time a token
        higher_passes = (gate.metric == THROUGHPUT_METRIC) == (gate.comparator is Comparator.AT_LEAST)
        tok_s = threshold if gate.metric == THROUGHPUT_METRIC else regime.concurrency * 1000.0 / threshold
        below = band.share_below(tok_s)
        if below is None:
            continue
        p_pass = 1.0 - below if higher_passes else below
        out[position] = GateChance(position, p_pass, _to_metric(gate, regime, band.p50_tok_s))
    return out

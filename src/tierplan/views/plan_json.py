"""The plan as the JSON API gives it: the core's figures, unrounded, with what each means."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from tierplan.planning.projection import Step
from tierplan.planning.uncertainty import EffortDistribution, TierDistribution
from tierplan.services.plan import Plan
from tierplan.text import formatting as fmt
from tierplan.views.gates import GateOut, gate_out
from tierplan.views.texts import gap_text, takes_text


class TierProjection(BaseModel):
    tier: str
    tok_s: float | None = Field(description="likely-value projection, capped at the ceiling")
    uncapped_tok_s: float | None
    capped: bool
    gain: float
    step_ms: float | None
    bottleneck: str
    verdict: str
    p10_tok_s: float | None
    p50_tok_s: float | None
    p90_tok_s: float | None
    p_target: float | None = Field(description="share of Monte Carlo samples at or above the target")
    band_input_share: float | None = Field(
        description="of the P10-P90 band's log-variance, the share from the three-point inputs")
    band_risk_share: float | None = Field(
        default=None, description="... the share from the bottleneck risk: an effect that moves the side of the step "
                                  "that binds, or a path that changes GPU work unsaid (the rest is model error)")
    tokens_per_step: float = Field(description="tokens a sequence each step yields (speculative decoding: E)")
    effort_p50_days: float | None = Field(description="cumulative effort through this tier")
    effort_p90_days: float | None
    done_p50_days: float | None = Field(default=None, description=(
        "working days from the plan's start until the team (the campaign's team_size, prerequisites first) is done "
        "with this tier's work"))
    done_p90_days: float | None = None


class RegimePlan(BaseModel):
    name: str
    concurrency: int
    baseline_tok_s: float | None
    baseline_measured_at: datetime | None
    includes: list[str] = Field(description="interventions the baseline was measured with: not applied again")
    step_ms: float | None = Field(description="the baseline's step time")
    step_source: str = Field(description="where the step time comes from: a mean TPOT, or concurrency / throughput")
    target_tok_s: float
    ceiling_tok_s: float | None
    ceiling_bound: str | None
    achievable_tok_s: float | None = Field(
        default=None, description="the hardware ceiling at the share of its floor the campaign's best step reached")
    step_vs_floor: str = Field(default="", description="why the measured step is as far from its floor as it is")
    gap_to_floor: str = Field(default="", description=(
        "the measured step against its physical floor bucket by bucket (attention: the KV cache it reads; moe: the "
        "experts its tokens touch; dense_gemm: the dense weights), what no floor explains, and what to measure next"))
    what_it_would_take: str = Field(default="", description=(
        "short of the target after the plan: the step time the target needs, the speedup each bucket alone would "
        "need (or why it cannot), and the fewest buckets that could together"))
    ceiling_verdict: str | None
    projections: list[TierProjection]
    verdict: str
    reaches_target: bool | None
    notes: list[str]


class OrderPick(BaseModel):
    key: str
    effort_days: float
    gain: float
    cumulative_days: float
    suggested_tier: str


class PlanOut(BaseModel):
    campaign_id: int
    name: str
    seed: int
    samples: int
    regimes: list[RegimePlan]
    gates: list[GateOut]
    suggested_order: list[OrderPick]
    calibration_bias: float | None
    calibration_applied: bool


def _tier_projection(s: Step, spread: TierDistribution, effort: EffortDistribution) -> TierProjection:
    return TierProjection(
        tier=str(s.tier_key), tok_s=s.tok_s, uncapped_tok_s=s.uncapped_tok_s, capped=s.capped, gain=s.gain,
        step_ms=s.step_ms, bottleneck=s.bottleneck, verdict=fmt.verdict(s.verdict), p10_tok_s=spread.p10_tok_s,
        p50_tok_s=spread.p50_tok_s, p90_tok_s=spread.p90_tok_s, p_target=spread.p_target,
        band_input_share=spread.input_share, band_risk_share=spread.risk_share, tokens_per_step=s.tokens_per_step,
        effort_p50_days=effort.p50_days, effort_p90_days=effort.p90_days, done_p50_days=effort.done_p50_days,
        done_p90_days=effort.done_p90_days,
    )


def plan_out(plan: Plan) -> PlanOut:
    """The API view of a plan (pure: reads the core's analysis only)."""
    analysis = plan.analysis
    efforts = {e.tier_key: e for e in analysis.simulation.efforts}
    regimes = []
    for projection in analysis.projections:
        final = projection.final
        spreads = {d.tier_key: d for d in analysis.simulation.of(projection.regime)}
        ceiling = analysis.ceilings.get(projection.regime)
        reached = analysis.achievable.get(projection.regime)
        core_regime = next(r for r in analysis.campaign.regimes if r.name == projection.regime)
        regimes.append(
            RegimePlan(
                name=projection.regime,
                concurrency=core_regime.concurrency,
                baseline_tok_s=projection.baseline.tok_s,
                baseline_measured_at=core_regime.baseline_measured_at,
                includes=list(projection.includes),
                step_ms=projection.baseline.step_ms,
                step_source=core_regime.step_source or (
                    f"concurrency {core_regime.concurrency} over the baseline throughput" if core_regime.baseline_tok_s
                    else ""),
                target_tok_s=projection.target_tok_s,
                ceiling_tok_s=projection.ceiling_tok_s,
                ceiling_bound=ceiling.bound if ceiling else None,
                achievable_tok_s=reached.ceiling_tok_s if reached else None,
                step_vs_floor=reached.why if reached else "",
                what_it_would_take=takes_text(projection, core_regime, analysis.campaign),
                gap_to_floor=gap_text(projection, core_regime, analysis.campaign),
                ceiling_verdict=fmt.ceiling_verdict(projection.target_tok_s, projection.ceiling_tok_s,
                                                    reached.ceiling_tok_s if reached else None, final.tok_s),
                projections=[_tier_projection(s, spreads[str(s.tier_key)], efforts[str(s.tier_key)])
                             for s in projection.steps],
                verdict=fmt.verdict(final.verdict),
                reaches_target=final.verdict.reaches,
                notes=list(projection.notes),
            )
        )
    gates = [gate_out(r, g.id, analysis.gate_chances.get(i))
             for i, (r, g) in enumerate(zip(analysis.gate_results, plan.record.gates, strict=True))]
    order = [
        OrderPick(key=p.key, effort_days=p.effort_days, gain=p.gain, cumulative_days=p.cumulative_days,
                  suggested_tier=p.band)
        for p in analysis.ordering.picks
    ]
    return PlanOut(
        campaign_id=plan.campaign_id, name=plan.name, seed=analysis.simulation.seed,
        samples=analysis.simulation.samples, regimes=regimes, gates=gates, suggested_order=order,
        calibration_bias=analysis.calibration.bias, calibration_applied=analysis.calibration_applied,
    )

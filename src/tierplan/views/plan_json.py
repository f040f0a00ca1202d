"""The plan as the JSON API gives it: the core's figures, unrounded, with what each means."""

from __future__ import annotations

from datetime import date, datetime

from pydantic import BaseModel, Field

from tierplan.planning.concurrency_curve import ConcurrencyCurve
from tierplan.planning.projection import Step
from tierplan.planning.schedule import working_day, working_days_between
from tierplan.planning.targets import views
from tierplan.planning.uncertainty import EffortDistribution, TierDistribution
from tierplan.services.plan import Plan
from tierplan.text import formatting as fmt
from tierplan.views.gates import GateOut, gate_out
from tierplan.views.texts import gap_text, plan_start, takes_text, team_of


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
    target_tok_s: float = Field(description="the aggregate output tok/s the plan is judged against")
    target_kind: str = Field(description="how the team states it: aggregate, per_user or tpot")
    target_per_user_tok_s: float = Field(description="the target as each user sees it: aggregate / concurrency")
    target_tpot_ms: float = Field(description="the target as a time per output token: 1000 / per-user tok/s")
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


class CurveReach(BaseModel):
    regime: str
    within_ceiling_from: int | None = Field(description="the smallest concurrency whose ceiling holds the target")
    plan_reaches_from: int | None = Field(description=(
        "the smallest concurrency where the plan's last tier holds it (None: nowhere the regimes span)"))
    best_share: float = Field(description="the last tier's projection over the target where it comes closest")
    best_at: int


class CurvePoint(BaseModel):
    concurrency: int
    ceiling_tok_s: float
    tok_s: dict[str, float | None] = Field(description="baseline and each tier (None beyond the regimes)")
    how: dict[str, str] = Field(description="measured, projected or interpolated, by stage")


class CurveOut(BaseModel):
    kv_fit_concurrency: int = Field(description="the most sequences whose KV cache fits beside the weights")
    points: list[CurvePoint]
    reaches: list[CurveReach]


class TierSchedule(BaseModel):
    tier: str
    done_p50: date = Field(description="P50 of the day the team is done with the tier (working days, prerequisites first)")
    done_p90: date
    first_done_p50: date | None = Field(description="the P50 done date of the tier's first schedule")
    first_done_p90: date | None
    slip_working_days: int | None = Field(description="P50 now against the first schedule's (negative: earlier)")


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
    concurrency_curve: CurveOut | None = None
    team: int = Field(default=1, description="the people the schedule has: the team size, or more names assigned")
    schedule: list[TierSchedule] = Field(default_factory=list)


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
                target_kind=core_regime.target_kind.value,
                target_per_user_tok_s=views(projection.target_tok_s, core_regime.concurrency).per_user_tok_s,
                target_tpot_ms=views(projection.target_tok_s, core_regime.concurrency).tpot_ms,
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
        concurrency_curve=_curve_out(analysis.curve),
        team=team_of(plan.record), schedule=schedule_of(plan),
    )


def schedule_of(plan: Plan) -> list[TierSchedule]:
    start = plan_start(plan.record)
    efforts = {e.tier_key: e for e in plan.analysis.simulation.efforts}
    out = []
    for tier in plan.record.tiers:
        effort = efforts.get(tier.key)
        if effort is None:
            continue
        p50 = working_day(start, effort.done_p50_days)
        first = tier.first_done_p50
        out.append(TierSchedule(tier=tier.key, done_p50=p50, done_p90=working_day(start, effort.done_p90_days),
                                first_done_p50=first, first_done_p90=tier.first_done_p90,
                                slip_working_days=working_days_between(first, p50) if first else None))
    return out


def _curve_out(curve: ConcurrencyCurve | None) -> CurveOut | None:
    if curve is None:
        return None
    points = [CurvePoint(concurrency=c, ceiling_tok_s=curve.ceiling_tok_s[n],
                         tok_s={s.stage: s.tok_s[n] for s in curve.stages},
                         how={s.stage: s.how[n] for s in curve.stages if s.how[n]})
              for n, c in enumerate(curve.concurrencies)]
    reaches = [CurveReach(regime=r.regime, within_ceiling_from=r.within_ceiling_from,
                          plan_reaches_from=r.plan_reaches_from, best_share=r.best_share, best_at=r.best_at)
               for r in curve.reaches]
    return CurveOut(kv_fit_concurrency=curve.kv_fit, points=points, reaches=reaches)

"""The plan of a campaign laid out for the pages and the markdown export: texts, rounded numbers, units."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup

from tierplan.models.plan_rows import InterventionPublic, RegimePublic
from tierplan.planning.gates import GateResult, tier_validated
from tierplan.planning.model import Effect
from tierplan.planning.projection import RegimeProjection, Step
from tierplan.planning.prototype_benchmark import Fit
from tierplan.planning.uncertainty import TierDistribution
from tierplan.services.analysis import Analysis
from tierplan.services.plan import Plan
from tierplan.services.records import PlanRecord
from tierplan.text import formatting as fmt
from tierplan.views.assumptions import assumptions, ranked_assumptions
from tierplan.views.capacity import CapacityView, capacity_view
from tierplan.views.charts import TierPoint, projection_chart
from tierplan.views.curve import CurveView, curve_view, target_note
from tierplan.views.extras import (
    CalibrationView,
    OrderingView,
    SpecsView,
    WhatIfView,
    calibration_view,
    ceiling_texts,
    ordering_view,
    specs_view,
    what_if_views,
)
from tierplan.views.gates import GateView, gate_view, tier_gates_text
from tierplan.views.summary import NextGate, RegimeSummary, TierProgress, next_gate, regime_summary, tier_progress
from tierplan.views.texts import (
    band_text,
    baseline_row,
    effect_text,
    evidence_lines,
    gap_text,
    includes_text,
    launch_text,
    plan_start,
    profile_warning,
    schedule_text,
    step_text,
    takes_text,
    team_of,
)


@dataclass
class StepView:
    label: str  # "baseline" or "after A"
    tier_key: str | None
    tok_s: float | None
    tok_s_text: str
    gain_text: str
    step_ms_text: str
    bottleneck: str
    bottleneck_share_text: str
    verdict_text: str
    reaches: bool | None
    applied: list[str]
    capped: bool = False
    uncapped_text: str = ""
    p10_text: str = ""
    p50_text: str = ""
    p90_text: str = ""
    p_target_text: str = ""
    p_target: float | None = None
    p10_tok_s: float | None = None
    p90_tok_s: float | None = None
    shares: tuple[tuple[str, float], ...] = ()  # of the step's time, by bucket
    contributions: tuple[tuple[str, float], ...] = ()  # gain over baseline after each applied intervention
    band_text: str = ""  # how much of the band is input spread and how much model error


@dataclass
class RegimeView:
    id: int
    name: str
    concurrency: int
    workload_text: str
    workload_provenance: str
    target_tok_s: float
    target_text: str
    target_provenance: str
    target_views: str  # the aggregate target read per user and as TPOT, and how the team states it
    baseline_text: str
    baseline_detail: str  # date, provenance, source
    steps: list[StepView]
    verdict_text: str
    reaches: bool | None
    notes: list[str]
    profile: list[tuple[str, str, str]]  # bucket, share, provenance
    profile_source: str
    ceiling_text: str = "—"
    ceiling_detail: str = ""
    ceiling_verdict: str = ""
    achievable_text: str = ""  # the physical ceiling at the campaign's efficiency
    achievable_detail: str = ""
    why_text: str = ""  # why the measured step is as far from its floor as it is
    target_above_ceiling: bool = False
    includes_text: str = ""  # "baseline of 2026-12-01 includes A1, A2"
    step_text: str = ""  # the step time and where it comes from
    launch_text: str = ""  # what the profile says one step launches, when a trace gave it
    takes_text: str = ""  # short of the target: the step it needs and what each bucket would have to do
    profile_warning: str = ""  # the projection rests on a profile nobody measured, or one older than the baseline
    gap_text: str = ""  # the measured step against its floor, bucket by bucket, and what to measure next
    chart: Markup = Markup("")  # projected throughput after each tier (tierplan/views/charts.py)
    ceiling_tok_s: float | None = None


@dataclass
class InterventionView:
    id: int
    key: str
    title: str
    description: str
    links: list[str]
    status: str
    effort_text: str
    effort_provenance: str
    effects: list[tuple[int, str, str]]  # effect id, text, provenance
    evidence: list[tuple[str, str]] = field(default_factory=list)  # a prototype's trace, then each derived effect
    evidence_untraced: str = ""  # the regimes where the estimates entered still hold beside that evidence
    evidence_sized: bool = False  # a prototype's benchmark sized the estimates entered (they are still planned)
    assignee: str = ""  # who does it ("": whoever is free)


@dataclass
class TierView:
    id: int
    key: str
    name: str
    description: str
    started_text: str
    interventions: list[InterventionView]
    gates: list[GateView]
    gates_text: str  # "validated: both hard gates pass"
    outcome: list[str]  # per regime, what the tier should buy
    effort_text: str
    effort_range_text: str = ""  # cumulative effort P50 / P90 through this tier
    schedule_text: str = ""  # when the team is done with it, P50 and P90 dates
    progress: TierProgress | None = None


@dataclass
class PlanReport:
    campaign_id: int
    name: str
    model: str
    hardware: str
    gpu_count: int
    notes: str
    regimes: list[RegimeView]
    tiers: list[TierView]
    unassigned: list[InterventionView]
    assumptions: list[str] = field(default_factory=list)
    ranked_assumptions: list[str] = field(default_factory=list)  # the export's: by how far each moves a projection
    gate_results: list[GateResult] = field(default_factory=list)
    projections: tuple[RegimeProjection, ...] = ()
    specs: SpecsView | None = None
    ordering: OrderingView | None = None
    what_ifs: list[WhatIfView] = field(default_factory=list)
    calibration: CalibrationView | None = None
    capacity: CapacityView | None = None
    simulation_text: str = ""
    analysis: Analysis | None = None
    summary: list[RegimeSummary] = field(default_factory=list)
    next_gate: NextGate | None = None
    curve: CurveView | None = None


def plan_view(plan: Plan, ranked: bool = False) -> PlanReport:
    """The page and export view of a plan (pure: formats what the service computed); `ranked`: the assumed
    estimates ranked by how far each moves a projection too (the export's: a projection a pair of points each)."""
    record, analysis = plan.record, plan.analysis
    projections, results = analysis.projections, analysis.gate_results
    regimes = [_regime_view(r, p, record, analysis) for r, p in zip(record.regimes, projections, strict=True)]
    by_regime = {p.regime: p for p in projections}
    regime_names = {r.id: r.name for r in record.regimes}
    gate_views = [gate_view(g, res, by_regime, regime_names, analysis.gate_chances.get(i))
                  for i, (g, res) in enumerate(zip(record.gates, results, strict=True))]
    core_effects = _core_effects(record, analysis)
    interventions = {i.id: _intervention_view(i, record, analysis, core_effects) for i in record.interventions}
    efforts = {e.tier_key: e for e in analysis.simulation.efforts}
    team = team_of(record)
    tiers = []
    for tier in record.tiers:
        members = [interventions[i.id] for i in record.interventions if i.tier_id == tier.id]
        tier_gates = [g for g in gate_views if g.tier_key == tier.key]
        likely_days = sum(i.effort_likely_days for i in record.interventions if i.tier_id == tier.id)
        tiers.append(
            TierView(
                id=tier.id,
                key=tier.key,
                name=tier.name,
                description=tier.description,
                started_text=f"started {fmt.date(tier.started_at)}" if tier.started_at else "not started",
                interventions=members,
                gates=tier_gates,
                progress=tier_progress(members, tier_gates, tier_validated(tier.key, results)),
                gates_text=tier_gates_text(tier.key, results),
                outcome=[_outcome(p, tier.key) for p in projections],
                effort_text=f"{fmt.plain(likely_days)} d likely" if members else "no interventions",
                effort_range_text=(
                    f"{fmt.number(efforts[tier.key].p50_days, 'd')} P50, "
                    f"{fmt.number(efforts[tier.key].p90_days, 'd')} P90 cumulative"
                ),
                schedule_text=schedule_text(efforts[tier.key], team, plan_start(record), tier.first_done_p50),
            )
        )
    c = record.campaign
    return PlanReport(
        campaign_id=c.id,
        name=c.name,
        model=c.model,
        hardware=c.hardware,
        gpu_count=c.gpu_count,
        notes=c.notes,
        regimes=regimes,
        tiers=tiers,
        unassigned=[interventions[i.id] for i in record.interventions if i.tier_id is None],
        assumptions=assumptions(record, analysis, core_effects, results),
        ranked_assumptions=ranked_assumptions(record, analysis) if ranked else [],
        gate_results=list(results),
        capacity=capacity_view(record.slos, analysis.capacity, analysis.tier_capacities),
        projections=projections,
        specs=specs_view(record, analysis),
        ordering=ordering_view(analysis),
        what_ifs=what_if_views(analysis),
        calibration=calibration_view(analysis),
        simulation_text=(
            f"{analysis.simulation.samples:,} PERT-beta samples of every three-point estimate with each effect's "
            "model error, "
            f"seed {analysis.simulation.seed}"
        ),
        analysis=analysis,
        summary=[regime_summary(r) for r in regimes],
        next_gate=next_gate(tiers),
        curve=curve_view(analysis.curve, analysis.campaign.regimes),
    )


def _step_view(step: Step, label: str, spread: TierDistribution | None = None) -> StepView:
    shares = dict(step.shares)
    spread_texts: dict[str, Any] = {}
    if spread is not None and spread.p50_tok_s is not None:
        spread_texts = {
            "p10_text": fmt.tok_s(spread.p10_tok_s), "p50_text": fmt.tok_s(spread.p50_tok_s),
            "p90_text": fmt.tok_s(spread.p90_tok_s), "p_target_text": fmt.probability(spread.p_target),
            "p_target": spread.p_target, "band_text": band_text(spread.input_share, spread.risk_share),
            "p10_tok_s": spread.p10_tok_s, "p90_tok_s": spread.p90_tok_s,
        }
    return StepView(
        shares=step.shares,
        contributions=step.contributions,
        capped=step.capped,
        uncapped_text=fmt.tok_s(step.uncapped_tok_s) if step.capped else "",
        **spread_texts,
        label=label,
        tier_key=step.tier_key,
        tok_s=step.tok_s,
        tok_s_text=fmt.tok_s(step.tok_s),
        gain_text=fmt.factor(step.gain),
        step_ms_text=fmt.number(step.step_ms, "ms") + (
            f", {step.tokens_per_step:.2f} tokens" if step.tokens_per_step > 1.001 and step.step_ms is not None else ""),
        bottleneck=step.bottleneck,
        bottleneck_share_text=fmt.share(shares[step.bottleneck]) if step.bottleneck in shares else "—",
        verdict_text=fmt.verdict(step.verdict),
        reaches=step.verdict.reaches,
        applied=list(step.applied),
    )


def _regime_view(regime: RegimePublic, projection: RegimeProjection, record: PlanRecord, analysis: Analysis
                 ) -> RegimeView:
    core_regime = next(r for r in analysis.campaign.regimes if r.name == regime.name)
    baseline = baseline_row(record, core_regime)
    profile = record.profiles.get(regime.id)
    shares = profile.shares if profile else []
    final = projection.final
    spreads = {d.tier_key: d for d in analysis.simulation.of(regime.name)}
    steps = [_step_view(projection.baseline, "baseline")] + [
        _step_view(s, f"after {s.tier_key}", spreads.get(str(s.tier_key))) for s in projection.steps
    ]
    ceiling = analysis.ceilings.get(regime.name)
    points = [TierPoint(s.tier_key or "baseline", s.tok_s, s.p10_tok_s, s.p90_tok_s) for s in steps]
    return RegimeView(
        chart=projection_chart(f"chart-{regime.id}", regime.name, points, regime.target_tok_s,
                               ceiling.ceiling_tok_s if ceiling else None, f"projection-{regime.id}"),
        ceiling_tok_s=ceiling.ceiling_tok_s if ceiling else None,
        **ceiling_texts(ceiling, projection, analysis.achievable.get(regime.name)),
        id=regime.id,
        name=regime.name,
        concurrency=regime.concurrency,
        workload_text=fmt.workload(regime.concurrency, regime.input_tokens, regime.output_tokens),
        workload_provenance=regime.workload_provenance,
        target_tok_s=regime.target_tok_s,
        target_text=fmt.tok_s(regime.target_tok_s),
        target_views=target_note(regime),
        target_provenance=regime.target_provenance,
        baseline_text=fmt.tok_s(baseline.value if baseline else None),
        baseline_detail=(
            f"{baseline.provenance}, {fmt.date(baseline.measured_at)}, {baseline.source}"
            if baseline
            else "no output_tok_s baseline yet"
        ),
        steps=steps,
        verdict_text=fmt.verdict(final.verdict),
        reaches=final.verdict.reaches,
        notes=list(projection.notes),
        profile=[(s.bucket, fmt.share(s.share), s.provenance) for s in shares],
        profile_source=profile.source if profile else "no profile",
        includes_text=includes_text(projection, baseline),
        step_text=step_text(core_regime, projection.baseline),
        launch_text=launch_text(core_regime),
        takes_text=takes_text(projection, core_regime, analysis.campaign),
        profile_warning=profile_warning(profile, baseline),
        gap_text=gap_text(projection, core_regime, analysis.campaign),
    )


def _core_effects(record: PlanRecord, analysis: Analysis) -> dict[int, Effect]:
    """Each stored effect's core value (the analysis keeps an intervention's effects in their stored order)."""
    by_key = {i.key: i for i in analysis.campaign.interventions}
    out: dict[int, Effect] = {}
    for intervention in record.interventions:
        stored = [e for e in record.effects if e.intervention_id == intervention.id]
        out |= {e.id: c for e, c in zip(stored, by_key[intervention.key].entered, strict=True)}
    return out


def _intervention_view(intervention: InterventionPublic, record: PlanRecord, analysis: Analysis,
                       core_effects: dict[int, Effect]) -> InterventionView:
    names = {r.id: r.name for r in record.regimes}
    effects = [
        (e.id, effect_text(core_effects[e.id], [names[rid] for rid in e.regime_ids], analysis), e.provenance.value)
        for e in record.effects
        if e.intervention_id == intervention.id
    ]
    i = intervention
    core = next(c for c in analysis.campaign.interventions if c.key == i.key)
    return InterventionView(
        id=i.id,
        key=i.key,
        title=i.title,
        description=i.description,
        links=[line.strip() for line in i.links.splitlines() if line.strip()],
        status=i.status,
        effort_text=fmt.three_point(i.effort_low_days, i.effort_likely_days, i.effort_high_days, " d"),
        effort_provenance=i.effort_provenance,
        effects=effects,
        evidence=evidence_lines(core, analysis),
        evidence_untraced=", ".join(getattr(core.evidence, "untraced", ())),
        evidence_sized=isinstance(core.evidence, Fit),
        assignee=i.assignee,
    )


def _outcome(projection: RegimeProjection, tier_key: str) -> str:
    steps = [projection.baseline, *projection.steps]
    index = next(n for n, s in enumerate(steps) if s.tier_key == tier_key)
    before, after = steps[index - 1], steps[index]
    # a token: speculative decoding makes a step longer and yield more
    gain = fmt.factor(after.gain / before.gain) if before.gain > 0 else "—"
    return (
        f"{projection.regime}: {fmt.tok_s(before.tok_s)} → {fmt.tok_s(after.tok_s)} "
        f"({gain}), bottleneck then {after.bottleneck}"
    )

"""Texts of the plan's rows for pages and export: what a baseline includes, its step, its launches, each effect."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from tierplan.models.effects import ProfilePublic
from tierplan.models.measurements import MeasurementPublic
from tierplan.planning.bucket_floors import floor_gap, gap_sentence
from tierplan.planning.metrics import THROUGHPUT_METRIC
from tierplan.planning.model import Campaign, Effect, Intervention, Regime, need
from tierplan.planning.projection import RegimeProjection, Step, baseline_step_ms
from tierplan.planning.prototype import Evidence
from tierplan.planning.prototype_benchmark import Fit
from tierplan.planning.schedule import people, schedule_start, working_day, working_days_between
from tierplan.planning.spec_break_even import break_even
from tierplan.planning.step import host_cost_us, start_state
from tierplan.planning.step_changes import spec_tokens
from tierplan.planning.uncertainty import EffortDistribution
from tierplan.planning.what_it_takes import sentence as what_it_takes_sentence
from tierplan.planning.what_it_takes import what_it_takes
from tierplan.services.analysis import Analysis
from tierplan.services.records import PlanRecord
from tierplan.text import effect_kinds as kind_texts
from tierplan.text import formatting as fmt
from tierplan.text.benchmarks import benchmark_sentence


def band_text(input_share: float | None, risk_share: float | None = None) -> str:
    """"band: 35% input spread, 45% model error, 20% bottleneck risk" (shares of its log-variance; the risk only
    where there is any)."""
    if input_share is None:
        return ""
    risk = risk_share or 0.0
    text = f"band: {input_share * 100:.0f}% input spread, {(1 - input_share - risk) * 100:.0f}% model error"
    return text + (f", {risk * 100:.0f}% bottleneck risk" if risk >= 0.005 else "")


def baseline_row(record: PlanRecord, core_regime: Regime) -> MeasurementPublic | None:
    """The measurement the core took as the regime's baseline (newest baseline-kind, not retracted)."""
    return next(
        (m for m in record.measurements if m.regime == core_regime.name and m.metric == THROUGHPUT_METRIC
         and m.kind == "baseline" and m.retracted_at is None and m.measured_at == core_regime.baseline_measured_at),
        None,
    )


def includes_text(projection: RegimeProjection, baseline: MeasurementPublic | None) -> str:
    if baseline is None:
        return ""
    taken = f"baseline of {fmt.date(baseline.measured_at)}"
    if projection.includes:
        return f"{taken} includes {', '.join(projection.includes)}: the plan applies only the rest"
    return f"{taken} includes none of the plan's interventions: the plan applies all of them"


def step_text(core_regime: Regime, step: Step) -> str:
    if step.step_ms is None:
        return ""
    if core_regime.step_ms:
        return f"Baseline step {fmt.number(step.step_ms, 'ms')}: the {core_regime.step_source}"
    return (f"Baseline step {fmt.number(step.step_ms, 'ms')}: concurrency {core_regime.concurrency} over "
            f"{fmt.tok_s(core_regime.baseline_tok_s)} (no TPOT measured in the baseline's state)")


def launch_text(core_regime: Regime) -> str:
    profile = core_regime.profile
    if profile is None or profile.launches is None:
        return ""
    launches = profile.launches
    state = start_state(profile)
    host = float(state.launch.host()) if state.launch is not None else 0.0
    bound = "host-bound" if host >= float(state.step()) - 1e-9 else "GPU-bound"
    gap = f"{fmt.plain(launches.gpu_gap_us)} µs ({'measured' if launches.gap_measured else 'assumed'})"
    cost = f"host {fmt.plain(need(host_cost_us(profile), 'host cost'))} µs a launch"
    if bound == "GPU-bound":
        cost += (f" (its trace's host time, {fmt.number(launches.host_busy_ms, 'ms')} a step apart from waits for the GPU)"
                 if launches.host_busy_ms is not None else " (assumed: the step hides it)")
    return (f"{fmt.plain(launches.host_launches)} launch calls and {fmt.plain(launches.gpu_items)} GPU work items a "
            f"step of {fmt.plain(launches.step_ms)} ms; {cost}, GPU gap {gap} an item, fixed host time "
            f"{fmt.number(launches.host_fixed_ms, 'ms')}: {bound}")


def effect_text(effect: Effect, regime_names: Sequence[str], analysis: Analysis | None = None) -> str:
    """One effect as the plan lists it (tierplan/text/effect_kinds.py), priced by the campaign's hardware model."""
    text = kind_texts.effect_text(effect, regime_names, dict(analysis.campaign.floors) if analysis else {})
    stop = break_even_text(effect, analysis.campaign) if analysis else ""
    return f"{text}; {stop}" if stop else text


def break_even_text(effect: Effect, campaign: Campaign) -> str:
    """Where speculative decoding priced by the hardware model (and the draft cost, where one is entered: its likely
    value) stops paying, from the measured step of the busiest regime it holds in ("" for another effect, or no regime
    with specs and a baseline)."""
    spec = effect.spec
    if spec is None:
        return ""
    anchors = [(r, campaign.floor_of(r.name), baseline_step_ms(r)) for r in campaign.regimes
               if effect.applies_to(r.name)]
    usable = [(r, floor, step) for r, floor, step in anchors if floor is not None and step]
    if not usable:
        return ""
    regime, floor, step = max(usable, key=lambda found: found[0].concurrency)
    draft_cost = 0.0 if spec.draft_cost is None else spec.draft_cost.likely
    found = break_even(regime.name, floor, step, float(spec_tokens(spec)), spec.draft_tokens, draft_cost)
    where = f"from {regime.name}'s measured step of {fmt.number(step, 'ms')}"
    if found.stops_at is None:
        return f"it pays at every concurrency up to {found.limit:,}, the most the KV cache fits ({where})"
    if found.stops_at <= 1:
        return f"it does not pay at any concurrency ({where})"
    return (f"it stops paying at concurrency {found.stops_at:,} ({where}): set the engine's disable-by-batch-size "
            f"(vLLM speculative_config disable_by_batch_size) to {found.stops_at - 1:,}")


def profile_warning(profile: ProfilePublic | None, baseline: MeasurementPublic | None) -> str:
    """Where a projection rests on a profile nobody measured or one older than its baseline, in words ("" else)."""
    if profile is None:
        return ("no profile: only whole-step effects project here; import a trace of this regime before committing "
                "to work on its buckets")
    if profile.shares and all(s.provenance.value == "assumed" for s in profile.shares):
        return (f"its profile is assumed ({profile.source}): every bucket effect here rests on shares nobody measured; "
                "import a trace of this regime before committing to work on its buckets")
    if baseline is not None and profile.created_at < baseline.measured_at:
        return (f"its profile ({fmt.date(profile.created_at)}) is older than its baseline "
                f"({fmt.date(baseline.measured_at)}): the shares may no longer hold; profile the baseline's state again")
    return ""


def gap_text(projection: RegimeProjection, regime: Regime, campaign: Campaign) -> str:
    """The measured step against its floor bucket by bucket, and what to measure next ("" without specs or a
    profile and a step in ms)."""
    floor = campaign.floor_of(regime.name)
    if floor is None:
        return ""
    gap = floor_gap(regime.name, regime.profile, projection.baseline.step_ms, floor)
    traced = regime.profile is not None and regime.profile.launches is not None
    return "" if gap is None else gap_sentence(gap, traced)


def takes_text(projection: RegimeProjection, regime: Regime, campaign: Campaign) -> str:
    """What it would take for a regime the plan leaves short ("" when it gets there or has no step in ms)."""
    floor = campaign.floor_of(regime.name)  # a plain step's: a step that verifies drafts takes at least as long
    floor_ms = floor.floor_ms(1) if floor is not None else None
    need = what_it_takes(projection, regime.concurrency, floor_ms)
    return "" if need is None else what_it_takes_sentence(need)


def evidence_lines(intervention: Intervention, analysis: Analysis) -> list[tuple[str, str]]:
    """Where a prototype's trace sets an intervention's planned effects: the trace, where it ran and where its
    effects are carried over, then each derived effect and whether it is measured or carried over; where a
    prototype's benchmark sized them, that in one line ([] without a prototype)."""
    evidence = intervention.evidence
    if evidence is None:
        return []
    if isinstance(evidence, Fit):
        measured = {evidence.regime, *(f.regime for f in evidence.also)}
        added = [e for e in intervention.effects if evidence.entered is not None and e not in evidence.entered]
        return [(benchmark_sentence(evidence), ""), *((effect_text(e, sorted(e.regimes), analysis),
                                                      "measured" if e.regimes <= measured else "carried over")
                                                     for e in added)]
    carried = f", carried over to {', '.join(evidence.carried)}" if evidence.carried else ""
    untraced = (f"; in {', '.join(evidence.untraced)} (no traced step to carry it to) the estimates entered still hold"
                if evidence.untraced else "")
    head = f"Planned from a prototype's trace in {evidence.regime} ({evidence.source}): measured there{carried}{untraced}"
    if evidence.new_copies_ms > 0:
        head += (f". The prototype makes {evidence.new_copies_ms:.3g} ms of copies a step that the baseline does not: "
                 f"{_copies_carried(evidence)}. A copy of the weights or of any buffer of fixed size stays the same "
                 "at every batch, a copy of a cache grows with the sequences in flight, and a trace at one batch "
                 "cannot tell which, so trace the prototype in a regime it is carried to and compare before trusting "
                 "the carry")
    derived = [e for e in intervention.effects if e not in evidence.entered and not e.regimes <= set(evidence.untraced)]
    return [(head, ""), *((effect_text(e, sorted(e.regimes), analysis),
                           "measured" if evidence.regime in e.regimes else "carried over") for e in derived)]


def _copies_carried(evidence: Evidence) -> str:
    """How a prototype's new copies are carried: whole buffers between fixed and growing, copy kernels growing."""
    kernels_ms = evidence.new_copies_ms - evidence.buffer_copies_ms
    buffers = (f"{evidence.buffer_copies_ms:.3g} ms of whole buffers copied, carried halfway between staying the same "
               "and growing with the sequences in flight (on a log scale), the band spanning both")
    kernels = f"{kernels_ms:.3g} ms of copy kernels, carried as growing with them"
    if evidence.buffer_copies_ms <= 0.001 * evidence.new_copies_ms:
        return kernels
    return buffers if kernels_ms <= 0.001 * evidence.new_copies_ms else f"{buffers}; {kernels}"


def plan_start(record: PlanRecord) -> date:
    """When the schedule starts: the first tier's start, else the campaign's creation."""
    return schedule_start((t.started_at for t in record.tiers), record.campaign.created_at)


def team_of(record: PlanRecord) -> int:
    """The people the schedule has: the team size, or as many as the work names when more (planning/schedule.py)."""
    return people(record.campaign.team_size, (i.assignee for i in record.interventions if i.status != "rejected"))


def schedule_text(effort: EffortDistribution, team_size: int, start: date, first_p50: date | None = None) -> str:
    """"done 2026-12-14 P50, 2026-12-22 P90 with 2 people" (working days from the plan's start, weekends skipped),
    and, where the tier's first schedule said otherwise, how far it slipped: "; first scheduled 2026-12-10 P50: 2
    working days later"."""
    def day(days: float) -> str:
        return working_day(start, days).isoformat()
    people = f"{team_size} {'person' if team_size == 1 else 'people'}"
    text = f"done {day(effort.done_p50_days)} P50, {day(effort.done_p90_days)} P90 with {people}"
    now = working_day(start, effort.done_p50_days)
    if first_p50 is None or first_p50 == now:
        return text
    moved = working_days_between(first_p50, now)
    slip = (f"{abs(moved)} working day{'s' if abs(moved) != 1 else ''} {'later' if moved > 0 else 'earlier'}"
            if moved else "the same working day")
    return f"{text}; first scheduled {first_p50.isoformat()} P50: {slip}"

"""Every number of a campaign that the team assumed rather than measured or read, in words."""

from __future__ import annotations

from tierplan.models.specs import HardwareSpecPublic, ModelSpecPublic
from tierplan.planning.gates import GateResult
from tierplan.planning.model import Effect, Provenance
from tierplan.planning.sensitivity import Swing, swings
from tierplan.services.analysis import Analysis
from tierplan.services.records import PlanRecord
from tierplan.text import formatting as fmt
from tierplan.text.conditions import condition_text
from tierplan.views.extras import source_lines
from tierplan.views.texts import effect_text


def assumptions(record: PlanRecord, analysis: Analysis, core_effects: dict[int, Effect],
                gate_results: tuple[GateResult, ...]) -> list[str]:
    """Every number the team assumed rather than measured or read."""
    assumed = Provenance.ASSUMED
    names = {r.id: r.name for r in record.regimes}
    out = [f"target of {r.name}: {fmt.tok_s(r.target_tok_s)}" for r in record.regimes if r.target_provenance == assumed]
    out += [
        f"{r.name} workload: {fmt.workload(r.concurrency, r.input_tokens, r.output_tokens)}"
        for r in record.regimes
        if r.workload_provenance == assumed
    ]
    for regime in record.regimes:
        profile = record.profiles.get(regime.id)
        for s in profile.shares if profile else []:
            if s.provenance == assumed:
                out.append(f"{regime.name} profile: {s.bucket} is {fmt.share(s.share)} of step time")
    keys = {i.id: i.key for i in record.interventions}
    for i in record.interventions:
        if i.effort_provenance == assumed:
            out.append(f"{i.key} effort: {fmt.three_point(i.effort_low_days, i.effort_likely_days, i.effort_high_days, ' d')}")
    for e in record.effects:
        if e.provenance == assumed:
            regimes = [names[r] for r in e.regime_ids]
            out.append(f"{keys[e.intervention_id]}: {effect_text(core_effects[e.id], regimes, analysis)}")
    for regime in record.regimes:
        profile = record.profiles.get(regime.id)
        if profile is not None and profile.gpu_items:
            out.append(f"{regime.name} profile: fixed host time {fmt.number(profile.host_fixed_ms, 'ms')} a step")
            if not profile.gap_measured:
                out.append(f"{regime.name} profile: GPU gap {fmt.plain(profile.gpu_gap_us or 0)} µs before each "
                           "kernel (not measurable in the trace)")
    for m in record.measurements:
        if m.provenance == assumed and m.retracted_at is None:
            out.append(f"{m.regime} {fmt.metric(m.metric)}: {fmt.number(m.value, m.unit)}")
    specs: tuple[tuple[str, HardwareSpecPublic | ModelSpecPublic | None], ...] = (
        ("hardware spec", record.hardware), ("model spec", record.model_spec))
    for label, spec in specs:
        if spec is not None:
            out += [f"{label}: {line}" for line in source_lines(spec) if "assumed" in line]
            if spec.provenance == assumed:
                out.append(f"{label}: every figure of {spec.name}")
    for g, result in zip(record.gates, gate_results, strict=True):
        if g.provenance == assumed:
            out.append(f"gate threshold {names[g.regime_id]} {condition_text(result)}")
    return out


MAX_RANKED = 40  # each ranked estimate projects the plan twice: a bounded export whatever the campaign's size


def ranked_assumptions(record: PlanRecord, analysis: Analysis) -> list[str]:
    """The assumed effect estimates ranked by how far each moves a projection, each with the ends it spans (the
    first MAX_RANKED in plan order; the rest are counted)."""
    assumed = {e.id for e in record.effects if e.provenance == Provenance.ASSUMED}
    keys = {i.id: i.key for i in record.interventions}
    found: list[tuple[float, str]] = []
    tried = left = 0
    for intervention in analysis.campaign.interventions:
        if intervention.evidence is not None:  # a prototype's trace or benchmark: nothing assumed to rank
            continue
        rows = [e for e in record.effects if keys.get(e.intervention_id) == intervention.key]
        for position, row in enumerate(rows):
            if row.id not in assumed:
                continue
            if tried >= MAX_RANKED:
                left += 1
                continue
            tried += 1
            moved = swings(analysis.campaign, intervention.key, position)
            if not moved:
                continue
            widest = max(moved, key=lambda s: s.size)
            ends = "; ".join(f"{s.regime} {fmt.tok_s(min(s.low_tok_s, s.high_tok_s))} to "
                             f"{fmt.tok_s(max(s.low_tok_s, s.high_tok_s))} after the plan "
                             f"({_against(s)})" for s in sorted(moved, key=lambda s: -s.size))
            effect = intervention.effects[position]
            said = effect_text(effect, sorted(effect.regimes), analysis)
            found.append((widest.size, f"{intervention.key}: {said}: {ends}"))
    ranked = [text for _, text in sorted(found, key=lambda f: -f[0])]
    if left:
        ranked.append(f"{left} more assumed estimate{'s' if left > 1 else ''} not ranked (the first {MAX_RANKED} in "
                      "plan order are)")
    return ranked


def _against(swing: Swing) -> str:
    low, high = sorted((swing.low_tok_s, swing.high_tok_s))
    if low >= swing.target_tok_s:
        return "reaches the target either way"
    if high < swing.target_tok_s:
        return f"short by {swing.target_tok_s / high:.3g}x to {swing.target_tok_s / low:.3g}x"
    return "the target hangs on it"

"""What an import would change, said before anything is written: baselines, profiles, gates, mismatches."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace

from tierplan.db.repo import CampaignRows
from tierplan.db.tables import pk
from tierplan.planning import model as core
from tierplan.planning.baselines import newest_baseline, with_measurements
from tierplan.planning.capacity import campaign_gate_results
from tierplan.planning.effect_kinds import rule_of
from tierplan.planning.metrics import STEP_METRIC, THROUGHPUT_METRIC
from tierplan.planning.model import need
from tierplan.planning.projection import project_regime
from tierplan.planning.prototype import with_evidence
from tierplan.text import effect_kinds as kind_texts
from tierplan.text import formatting as fmt
from tierplan.text.conditions import condition_text

ENGINES = ("vllm", "sglang", "tensorrt", "trt-llm", "tgi", "lmdeploy")
SETUP_WARNING = "the file names "  # how a warning of another model or GPU than the campaign's specs begins


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def same_thing(named: str, ours: str) -> bool:
    """Whether a name a file gives and the campaign's look like the same model or GPU (one contains the other)."""
    a, b = _norm(named).removeprefix("nvidia"), _norm(ours).removeprefix("nvidia")
    return bool(a and b) and (a in b or b in a)


def mismatches(rows: CampaignRows, *, models: Iterable[str] = (), gpus: Iterable[str] = (), engines: Iterable[str] = ()
               ) -> tuple[list[str], list[str]]:
    """What the files name, and a warning for each name that differs from the campaign's specs."""
    campaign = rows.campaign
    named, warnings = [], []
    our_model = rows.model_spec.name if rows.model_spec else campaign.model
    our_gpu = rows.hardware.name if rows.hardware else campaign.hardware
    for label, values, ours, where in (("model", models, our_model, "model spec"), ("GPU", gpus, our_gpu, "hardware spec")):
        for value in sorted({v for v in values if v}):
            named.append(f"{label} {value}")
            if ours and not same_thing(value, ours) and not same_thing(value, f"{campaign.model} {campaign.hardware}"):
                warnings.append(f"{SETUP_WARNING}{label} {value!r}, the campaign's {where} is {ours!r}: "
                                "make sure it was measured on this setup")
    text = _norm(f"{campaign.notes} {campaign.hardware} {campaign.model}")
    ours_engines = [e for e in ENGINES if _norm(e) in text]
    for value in sorted({v for v in engines if v}):
        named.append(f"engine {value}")
        if ours_engines and not any(_norm(e) in _norm(value) for e in ours_engines):
            warnings.append(f"the file was measured with {value!r}; the campaign describes {', '.join(ours_engines)}")
    return named, warnings


def measurement_consequences(campaign: core.Campaign, added: list[core.Measurement]) -> list[str]:
    """Per regime: the baseline it would replace (or why not), the step time, and the gates it would decide."""
    after = with_measurements(campaign, added)
    lines = []
    for regime, new in zip(campaign.regimes, after.regimes, strict=False):
        mine = [m for m in added if m.regime == regime.name]
        if not mine:
            continue
        throughput = [m for m in mine if m.metric == THROUGHPUT_METRIC]
        if not throughput:
            lines.append(f"{len(mine)} measurements of {regime.name} go into its history; no throughput among them, "
                         "so the baseline stays")
            continue
        newest = max(throughput, key=lambda m: m.measured_at)
        if newest.kind is core.MeasurementKind.GATE_CHECK:
            lines.append(f"{fmt.tok_s(newest.value)} in {regime.name} is recorded as a gate check: the baseline "
                         f"stays {fmt.tok_s(regime.baseline_tok_s)}")
        elif new.baseline_measured_at == newest.measured_at and new.baseline_tok_s == newest.value:
            was = fmt.tok_s(regime.baseline_tok_s) if regime.baseline_tok_s else "no baseline"
            taken = ", ".join(sorted(newest.includes)) or "none of the plan's interventions"
            lines.append(f"becomes the {regime.name} baseline: {was} → {fmt.tok_s(newest.value)} "
                         f"(taken with {taken})")
            if new.step_ms and any(m.metric == STEP_METRIC for m in mine):
                lines.append(f"its mean TPOT, {fmt.number(new.step_ms, 'ms')}, becomes the {regime.name} step time")
        else:
            current = need(newest_baseline(campaign.measurements, regime.name), "the current baseline")
            lines.append(f"older than the {regime.name} baseline of {fmt.date(current.measured_at)} "
                         f"({fmt.tok_s(current.value)}): recorded in the history, the baseline stays")
    lines += _gate_changes(campaign, after)
    return lines


def _gate_changes(before: core.Campaign, after: core.Campaign) -> list[str]:
    lines = []
    old = campaign_gate_results(before)
    new = campaign_gate_results(after)
    for was, now in zip(old, new, strict=False):
        if now.status != was.status or now.evidence != was.evidence:
            lines.append(f"gate of tier {now.gate.tier_key}, {now.gate.regime} {condition_text(now)}: "
                         f"{was.status.value} → {now.status.value}")
    return lines


def profile_consequences(rows: CampaignRows, campaign: core.Campaign, regime_name: str,
                         profile: core.Profile) -> list[str]:
    """The profile it replaces, what each effect on a bucket would then act on, and the projection it moves."""
    regime_row = next(r for r in rows.regimes if r.name == regime_name)
    regime = next(r for r in campaign.regimes if r.name == regime_name)
    old_row = rows.profiles.get(pk(regime_row))
    lines = []
    if old_row is None:
        lines.append(f"becomes the first profile of {regime_name}")
    else:
        lines.append(f"replaces the {regime_name} profile of {fmt.date(old_row.created_at)} ({old_row.source}); "
                     "the old one stays on record")
    old_shares = dict(regime.profile.shares) if regime.profile else {}
    new_shares = dict(profile.shares)
    for intervention in campaign.interventions:
        for effect in intervention.effects:
            if not rule_of(effect.kind).on_bucket or not effect.bucket:
                continue
            if not effect.applies_to(regime_name) or intervention.status is core.Status.REJECTED:
                continue
            before = fmt.share(old_shares[effect.bucket]) if effect.bucket in old_shares else "absent"
            if effect.bucket in new_shares:
                lines.append(f"effect of {intervention.key} on bucket {effect.bucket} would then apply to "
                             f"{fmt.share(new_shares[effect.bucket])} of the step ({before} before)")
            elif effect.bucket == "host_overhead" and profile.launches is not None:
                lines.append(f"effect of {intervention.key} on host_overhead would act on the launch model's host side")
            else:
                lines.append(f"effect of {intervention.key} on bucket {effect.bucket} would no longer apply: the new "
                             f"profile has no {effect.bucket} bucket ({before} before)")
    old = project_regime(regime, campaign).final
    new = project_regime(replace(regime, profile=profile), campaign).final
    if old.tier_key and old.tok_s is not None and new.tok_s is not None:
        lines.append(f"{regime_name} projected after {old.tier_key}: {fmt.tok_s(old.tok_s)} → {fmt.tok_s(new.tok_s)}")
    return lines


def prototype_consequences(campaign: core.Campaign, key: str, regime_name: str, trace: core.Profile) -> list[str]:
    """What a prototype's trace would make of its intervention: the effects derived from it, where each is measured
    or carried over, and the projections it moves."""
    intervention = next(i for i in campaign.interventions if i.key == key)
    measured = next(r for r in campaign.regimes if r.name == regime_name)
    try:
        planned = with_evidence(intervention, trace, measured, campaign.regimes, "this trace")
    except core.PlanningError as exc:
        return [f"cannot be compared with {regime_name}'s own profile: {exc}"]
    evidence = need(planned.evidence, "the evidence")
    carried = f", carried over to {', '.join(evidence.carried)}" if evidence.carried else ""
    n = len(evidence.entered)
    lines = [f"becomes the evidence of {key}: its effects are derived from this trace against {regime_name}'s own "
             f"(measured there{carried}); the {n} effect{'s' if n != 1 else ''} entered for it "
             + (f"still hold in {', '.join(evidence.untraced)} (no traced step to carry it to)" if evidence.untraced
                else "stay on record, no longer planned")]
    floors = dict(campaign.floors)
    lines += [f"{key}: {kind_texts.effect_text(e, sorted(e.regimes), floors)}" for e in planned.effects
              if e not in evidence.entered and not e.regimes <= set(evidence.untraced)]
    after = replace(campaign, interventions=tuple(planned if i.key == key else i for i in campaign.interventions))
    for regime, new in zip(campaign.regimes, after.regimes, strict=True):
        was, now = project_regime(regime, campaign).final.tok_s, project_regime(new, after).final.tok_s
        if was is not None and now is not None and abs(now / was - 1) > 1e-6:
            lines.append(f"{regime.name}: the plan's projection {fmt.tok_s(was)} → {fmt.tok_s(now)}")
    return lines

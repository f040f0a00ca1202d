"""The only place rows become core values. A core value takes every field its row has under the same name (an enum
field as its enum), so a column the core also reads is named once here and nowhere else: `derived` fills them, and
each mapper says only what differs (keys in place of ids, a renamed or computed field)."""

from __future__ import annotations

import dataclasses
import math
import typing
from collections.abc import Mapping
from enum import Enum
from typing import Any, TypeVar

from tierplan.db.repo import CampaignRows, Estimates
from tierplan.db.tables import Effect as EffectRow
from tierplan.db.tables import HardwareSpec, ModelSpec, pk
from tierplan.planning import ceiling as ceilings
from tierplan.planning import model as core
from tierplan.planning import prototype
from tierplan.planning.baselines import rebased
from tierplan.planning.prototype_benchmark import Benchmark

T = TypeVar("T")


_ENUM_FIELDS: dict[type, dict[str, type[Enum]]] = {}


def _enum_fields(target: type) -> dict[str, type[Enum]]:
    """The fields of a core dataclass that hold an enum, by name (read once per class)."""
    if target not in _ENUM_FIELDS:
        hints = typing.get_type_hints(target)
        _ENUM_FIELDS[target] = {f.name: hints[f.name] for f in dataclasses.fields(target)  # type: ignore[arg-type]
                                if isinstance(hints[f.name], type) and issubclass(hints[f.name], Enum)}
    return _ENUM_FIELDS[target]


def derived(target: type[T], row: Any, **given: Any) -> T:
    """The core value `target` (a dataclass) of a row: `given` fields as they are, every other field the row has
    under the same name (converted to the field's enum where it is one), the rest left at their defaults."""
    enums = _enum_fields(target)
    values = dict(given)
    for f in dataclasses.fields(target):  # type: ignore[arg-type]
        if f.name not in values and hasattr(row, f.name):
            value = getattr(row, f.name)
            values[f.name] = enums[f.name](value) if f.name in enums and value is not None else value
    return target(**values)


def three(estimates: Estimates, name: str) -> core.ThreePoint | None:
    """The effect's three-point input `name`, if it has one (the core's rules judge the points)."""
    points = estimates.get(name)
    return None if points is None else core.ThreePoint.of(name, *points)


def per_position(text: str) -> tuple[float, ...]:
    """vLLM's per-position acceptance rates: each a number from 0 to 1 (no nan, inf or negative rate)."""
    try:
        rates = tuple(float(part) for part in text.replace(";", ",").split(",") if part.strip())
    except ValueError:
        rates = (math.nan,)
    if not all(0 <= rate <= 1 for rate in rates):  # a nan fails every comparison
        raise core.PlanningError("comma-separated numbers between 0 and 1", "per_position")
    return rates


# the core Effect's three-point inputs, each filled from the estimate of the same name
_EFFECT_POINTS = tuple(f.name for f in dataclasses.fields(core.Effect) if str(f.type).startswith("ThreePoint"))


def to_core_effect(row: EffectRow, regime_names: frozenset[str], estimates: Estimates) -> core.Effect:
    """The core's Effect of a row and its estimates (or of an effect being edited: the core's PlanningError names
    the input)."""
    spec = None
    if row.kind == core.EffectKind.SPEC_DECODE.value:
        spec = core.SpecDecode(
            draft_tokens=core.need(row.draft_tokens, "the draft length", "draft_tokens"),
            draft_cost=three(estimates, "draft_cost"),
            acceptance=three(estimates, "acceptance"),
            per_position=per_position(row.acceptance_per_position),
        )
    points = {name: three(estimates, name) for name in _EFFECT_POINTS}
    return core.Effect(kind=core.EffectKind(row.kind), bucket=row.bucket, regimes=regime_names, spec=spec,
                       kernels=(row.kernels or "").strip(), log_scale=False, **points)


def to_core_profile(profile_row, shares, kernels=()) -> core.Profile | None:
    """A stored profile with its launch counts when all the launch model needs is there, and the kernels it named."""
    if profile_row is None or not shares:
        return None
    launches = None
    p = profile_row
    if p.gpu_items and p.host_launches is not None and p.step_ms and p.gpu_gap_us is not None:
        launches = core.LaunchProfile(gpu_items=p.gpu_items, host_launches=p.host_launches, step_ms=p.step_ms,
                                      gpu_gap_us=p.gpu_gap_us, host_fixed_ms=p.host_fixed_ms,
                                      gap_measured=p.gap_measured, host_busy_ms=p.host_busy_ms)
    profile = core.Profile.of({s.bucket: s.share for s in shares}, launches)
    if not kernels:
        return profile
    return dataclasses.replace(profile, kernels=tuple((k.name, k.bucket, k.fraction, k.calls_a_step or 0.0)
                                                      for k in kernels),
                               blocks_per_sm=tuple((k.name, k.blocks_per_sm) for k in kernels
                                                   if k.blocks_per_sm is not None))


def to_core_measurements(rows: CampaignRows) -> tuple[core.Measurement, ...]:
    """The measurements the planner may use: retracted ones are kept in the history, never here."""
    regime_names = {r.id: r.name for r in rows.regimes}
    keys = {i.id: i.key for i in rows.interventions}
    return tuple(
        derived(core.Measurement, m, regime=regime_names[m.regime_id],
                includes=frozenset(keys[i] for i in rows.includes.get(pk(m), []) if i in keys), ref=pk(m))
        for m in rows.measurements
        if m.retracted_at is None
    )


def to_core_changes(rows: CampaignRows, measurements: tuple[core.Measurement, ...]
                    ) -> tuple[tuple[core.Measurement, core.Measurement], ...]:
    """The measured changes kept with the history, as pairs of the core's measurements."""
    by_id = {m.ref: m for m in measurements}
    return tuple((by_id[b], by_id[a]) for b, a in rows.changes if b in by_id and a in by_id)


def to_gpu_spec(row: HardwareSpec) -> ceilings.GpuSpec:
    tflops = tuple(
        (dtype, value)
        for dtype, value in (("bf16", row.tflops_bf16), ("fp8", row.tflops_fp8), ("fp4", row.tflops_fp4))
        if value
    )
    return derived(ceilings.GpuSpec, row, tflops=tflops, sm_count=row.sm_count or 0)


def to_model_spec(row: ModelSpec) -> ceilings.ModelSpec:
    return derived(ceilings.ModelSpec, row)


def to_core_gate(g, tier_keys: Mapping[int | None, str], regime_names: Mapping[int | None, str]) -> core.Gate:
    """A gate row as the core reads it, its tier and regimes by key and name."""
    return derived(core.Gate, g, tier_key=tier_keys[g.tier_id], regime=regime_names[g.regime_id],
                   reference_regime=regime_names.get(g.reference_regime_id) if g.reference_regime_id else None)


def to_core(rows: CampaignRows) -> core.Campaign:
    """The planning core's view of a campaign's rows (ceilings and calibration are added by the services)."""
    regime_names = {r.id: r.name for r in rows.regimes}
    tier_keys = {t.id: t.key for t in rows.tiers}
    keys = {i.id: i.key for i in rows.interventions}
    measurements = to_core_measurements(rows)
    effects_by_intervention: dict[int, list[core.Effect]] = {}
    for effect in rows.effects:
        names = frozenset(regime_names[rid] for rid in rows.effect_regimes.get(pk(effect), []))
        effects_by_intervention.setdefault(effect.intervention_id, []).append(
            to_core_effect(effect, names, rows.effect_estimates.get(pk(effect), {})))
    regimes = tuple(_regime(r, rows, measurements) for r in rows.regimes)
    return core.Campaign(
        regimes=regimes,
        tiers=tuple(
            derived(core.Tier, t, order=t.position) for t in rows.tiers
        ),
        interventions=tuple(
            derived(
                core.Intervention, i,
                effort_days=core.ThreePoint(i.effort_low_days, i.effort_likely_days, i.effort_high_days),
                tier_key=tier_keys.get(i.tier_id) if i.tier_id is not None else None,
                **_planned(i, tuple(effects_by_intervention.get(pk(i), [])), rows, regimes),
                prerequisites=tuple(keys[r] for r in rows.prerequisites.get(pk(i), []) if r in keys),
            )
            for i in rows.interventions
        ),
        gates=tuple(to_core_gate(g, tier_keys, regime_names) for g in rows.gates),
        measurements=measurements,
        changes=to_core_changes(rows, measurements),
        objectives=tuple(derived(core.Objective, s) for s in rows.slos),
        team_size=rows.campaign.team_size,
    )


def _planned(intervention, entered: tuple[core.Effect, ...], rows: CampaignRows,
             regimes: tuple[core.Regime, ...]) -> dict[str, object]:
    """The intervention's effects: derived from its prototype's trace where it has one the regime's own trace can be
    compared with, else those the team entered."""
    trace = rows.prototypes.get(pk(intervention))
    names = {r.id: r.name for r in rows.regimes}
    measured = next((r for r in regimes if trace is not None and r.name == names.get(trace.regime_id)), None)
    if trace is None or measured is None or measured.profile is None:
        return {"effects": entered}
    after = core.need(to_core_profile(trace, rows.shares.get(pk(trace), []), rows.kernels.get(pk(trace), [])),
                      "the trace")
    plain = core.Intervention(intervention.key, intervention.title, core.ThreePoint(0, 0, 0), effects=entered)
    try:
        # its source names the import and how it was read: the first part says which trace
        planned = prototype.with_evidence(plain, after, measured, regimes, trace.source.split(": ", 1)[0])
    except core.PlanningError:
        return {"effects": entered}  # the regime's own profile has no trace to compare with (the import says so)
    return {"effects": planned.effects, "evidence": planned.evidence}


def to_benchmarks(rows: CampaignRows) -> dict[str, tuple[Benchmark, ...]]:
    """Each intervention's prototype benchmarks (the newest in each regime, oldest first), by key, their regimes by
    name."""
    keys = {pk(i): i.key for i in rows.interventions}
    names = {pk(r): r.name for r in rows.regimes}
    return {keys[i]: tuple(Benchmark(names[run.regime_id], run.tok_s, run.source)
                           for run in runs if run.regime_id in names)
            for i, runs in rows.benchmarks.items() if i in keys}


def _regime(regime, rows: CampaignRows, measurements: tuple[core.Measurement, ...]) -> core.Regime:
    profile_row = rows.profiles.get(regime.id)
    shares = rows.shares.get(pk(profile_row), []) if profile_row else []
    measured = profile_row is not None and any(s.provenance in ("measured", "imported") for s in shares)
    kernels = rows.kernels.get(pk(profile_row), []) if profile_row else []
    plain = derived(core.Regime, regime, profile=to_core_profile(profile_row, shares, kernels) if profile_row else None,
                    profile_measured_at=profile_row.created_at if measured and profile_row else None)
    return rebased(plain, measurements)

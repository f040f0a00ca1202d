"""Everything the core computes for one campaign: ceilings, calibration, projections, simulation, order."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import lru_cache

from tierplan.db.mappers import to_benchmarks, to_core, to_gpu_spec, to_model_spec
from tierplan.db.repo import CampaignRows
from tierplan.planning import model as core
from tierplan.planning.achievable import Achievable, achievable
from tierplan.planning.calibration import CalibrationSummary, calibrate
from tierplan.planning.capacity import Capacity, campaign_gate_results, capacity, load_points, projected_capacities
from tierplan.planning.ceiling import Ceiling, StepFloor, decode_ceiling, mean_decode_context
from tierplan.planning.concurrency_curve import ConcurrencyCurve, concurrency_curve
from tierplan.planning.gate_chances import GateChance, chances
from tierplan.planning.gates import GateResult
from tierplan.planning.kernel_targets import with_kernel_parts
from tierplan.planning.projection import RegimeProjection, project_campaign
from tierplan.planning.prototype_benchmark import sized_by_benchmarks
from tierplan.planning.tiering import Ordering, suggest_order
from tierplan.planning.uncertainty import Simulation, simulate
from tierplan.planning.whatif import WhatIf, what_if


@dataclass
class Analysis:
    campaign: core.Campaign
    ceilings: dict[str, Ceiling]
    ceiling_problem: str | None  # why no ceiling could be computed
    calibration: CalibrationSummary
    calibration_applied: bool
    projections: tuple[RegimeProjection, ...]
    simulation: Simulation
    ordering: Ordering
    what_ifs: dict[str, tuple[WhatIf, ...]]
    gate_results: tuple[GateResult, ...]
    gate_chances: dict[int, GateChance] = field(default_factory=dict)  # gate position -> its chance of passing
    capacity: Capacity | None = None  # at the SLOs, as measured (None: no SLO)
    tier_capacities: tuple[Capacity, ...] = ()  # after each tier
    achievable: dict[str, Achievable] = field(default_factory=dict)  # regime -> its achievable ceiling and why
    curve: ConcurrencyCurve | None = None  # the campaign's concurrency curve (None: no specs)


def ceilings_of(rows: CampaignRows, campaign: core.Campaign) -> tuple[dict[str, Ceiling], dict[str, StepFloor], str | None]:
    """Each regime's decode ceiling and hardware model from the campaign's specs, or why there is none."""
    if rows.hardware is None or rows.model_spec is None:
        missing = [n for n, r in (("hardware", rows.hardware), ("model", rows.model_spec)) if r is None]
        return {}, {}, f"no {' or '.join(missing)} specs entered: the ceiling is unknown"
    gpu, model = to_gpu_spec(rows.hardware), to_model_spec(rows.model_spec)
    floors = {
        r.name: StepFloor(gpu, model, r.concurrency, mean_decode_context(r.input_tokens, r.output_tokens))
        for r in campaign.regimes
    }
    try:
        ceilings = {name: decode_ceiling(f.gpu, f.model, f.concurrency, f.context_tokens) for name, f in floors.items()}
    except (core.PlanningError, ArithmeticError) as exc:
        return {}, {}, f"the specs do not give a ceiling: {exc}"
    odd = next((c for c in ceilings.values() if not 0 < c.ceiling_tok_s < math.inf), None)
    if odd is not None:  # a spec stored outside its bounds (a bandwidth of 5e-324): no ceiling rather than a 0
        return {}, {}, f"the specs do not give a ceiling: they give {odd.ceiling_tok_s:g} tok/s; check the specs"
    return ceilings, floors, None


# The core is pure and its inputs are frozen, so a page view of an unchanged campaign reuses the
# last Monte Carlo and greedy order instead of recomputing them. They are keyed on what they read: not the runs,
# gates or objectives (a gate check moves none of their inputs), so a key is a few kB whatever the history.
_simulation = lru_cache(maxsize=64)(simulate)
_order = lru_cache(maxsize=64)(suggest_order)


def _projection_inputs(campaign: core.Campaign) -> core.Campaign:
    return replace(campaign, measurements=(), changes=(), gates=(), objectives=())


def cached_simulation(campaign: core.Campaign, samples: int, seed: int) -> Simulation:
    return _simulation(_projection_inputs(campaign), samples, seed)


def cached_order(campaign: core.Campaign) -> Ordering:
    return _order(_projection_inputs(campaign))


def unsized_campaign(rows: CampaignRows) -> tuple[core.Campaign, dict[str, Ceiling], str | None]:
    """The core's campaign with its ceilings and hardware models, its kernel parts split, before prototype
    benchmarks size any intervention."""
    campaign = to_core(rows)
    ceilings, floors, problem = ceilings_of(rows, campaign)
    campaign = replace(campaign, ceilings_tok_s=tuple((name, c.ceiling_tok_s) for name, c in ceilings.items()),
                       floors=tuple(floors.items()))
    return with_kernel_parts(campaign), ceilings, problem


def core_campaign(rows: CampaignRows) -> tuple[core.Campaign, dict[str, Ceiling], str | None]:
    """The core's campaign with its ceilings and hardware models (no simulation)."""
    # kernels effects name are split from their buckets first; a prototype's benchmark then sizes its intervention
    # against the regime's step and hardware model
    campaign, ceilings, problem = unsized_campaign(rows)
    return sized_by_benchmarks(campaign, to_benchmarks(rows)), ceilings, problem


def analyse(rows: CampaignRows) -> Analysis:
    """Run the whole planning core on a campaign's rows."""
    campaign, ceilings, problem = core_campaign(rows)
    calibration = calibrate(campaign)
    campaign = replace(campaign, model_error_scale=calibration.error_scale,
                       kind_error_scales=tuple((kind, scale) for kind, scale, _ in calibration.kind_scales))
    applied = bool(rows.campaign.apply_calibration and calibration.realised is not None)
    if applied:
        campaign = replace(campaign, calibration=calibration.realised)
    projections = project_campaign(campaign)
    simulation = cached_simulation(campaign, rows.campaign.samples, rows.campaign.seed)
    return Analysis(
        campaign=campaign,
        ceilings=ceilings,
        ceiling_problem=problem,
        calibration=calibration,
        calibration_applied=applied,
        projections=projections,
        simulation=simulation,
        ordering=cached_order(campaign),
        what_ifs={r.name: what_if(r.profile) for r in campaign.regimes if r.profile is not None},
        gate_results=campaign_gate_results(campaign),
        gate_chances=chances(campaign, simulation),
        achievable=achievable(campaign, {name: c.ceiling_tok_s for name, c in ceilings.items()},
                              {p.regime: p.baseline.step_ms for p in projections}),
        curve=concurrency_curve(campaign.regimes, dict(campaign.floors), projections),
        **_capacities(campaign, projections),
    )


def _capacities(campaign: core.Campaign, projections: tuple[RegimeProjection, ...]) -> dict:
    if not campaign.objectives:
        return {}
    return {"capacity": capacity(load_points(campaign), campaign.objectives),
            "tier_capacities": projected_capacities(load_points(campaign, baseline_state=True), campaign.objectives,
                                                    projections)}

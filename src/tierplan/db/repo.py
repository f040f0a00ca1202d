"""Queries. Keyword-only arguments; nothing here commits."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlmodel import Session, col, select

from tierplan.db import history, planning_runs
from tierplan.db.tables import (
    Campaign,
    Effect,
    EffectEstimate,
    EffectRegime,
    Gate,
    HardwareSpec,
    Intervention,
    Measurement,
    MeasurementInclude,
    ModelSpec,
    Prerequisite,
    Profile,
    ProfileKernel,
    ProfileShare,
    PrototypeRun,
    Regime,
    Slo,
    Tier,
    ids,
    pk,
)
from tierplan.planning.metrics import CAPACITY_METRIC

Estimates = dict[str, tuple[float, float, float]]  # an effect's three-point inputs: name -> (low, likely, high)


@dataclass
class CampaignRows:
    """Every row of one campaign, as the mappers and pages need them."""

    campaign: Campaign
    regimes: list[Regime]
    measurements: list[Measurement]  # the runs the planner's rules pick (tierplan/db/history.py), newest first
    profiles: dict[int, Profile]  # regime id -> its newest profile
    shares: dict[int, list[ProfileShare]]  # profile id -> shares
    tiers: list[Tier]
    interventions: list[Intervention]
    effects: list[Effect]
    effect_regimes: dict[int, list[int]] = field(default_factory=dict)  # effect id -> regime ids
    effect_estimates: dict[int, Estimates] = field(default_factory=dict)  # effect id -> its three-point inputs
    gates: list[Gate] = field(default_factory=list)
    prerequisites: dict[int, list[int]] = field(default_factory=dict)  # intervention id -> required ids
    hardware: HardwareSpec | None = None
    model_spec: ModelSpec | None = None
    includes: dict[int, list[int]] = field(default_factory=dict)  # measurement id -> intervention ids
    slos: list[Slo] = field(default_factory=list)
    changes: list[tuple[int, int]] = field(default_factory=list)  # measured changes: (before id, after id)
    prototypes: dict[int, Profile] = field(default_factory=dict)  # intervention id -> its prototype's newest trace
    # intervention id -> its prototype's newest run in each regime, oldest first
    benchmarks: dict[int, list[PrototypeRun]] = field(default_factory=dict)
    kernels: dict[int, list[ProfileKernel]] = field(default_factory=dict)  # profile id -> the kernels it named


def list_campaigns(session: Session) -> Sequence[Campaign]:
    return session.exec(select(Campaign).order_by(col(Campaign.created_at).desc(), col(Campaign.id).desc())).all()


def count_campaigns(session: Session) -> int:
    return len(session.exec(select(Campaign.id)).all())


def get_campaign(session: Session, *, campaign_id: int) -> Campaign | None:
    return session.get(Campaign, campaign_id)


def regimes_of(session: Session, *, campaign_id: int) -> list[Regime]:
    query = select(Regime).where(Regime.campaign_id == campaign_id).order_by(col(Regime.position), col(Regime.id))
    return list(session.exec(query).all())


def regime_named(session: Session, *, campaign_id: int, name: str) -> Regime | None:
    query = select(Regime).where(Regime.campaign_id == campaign_id, Regime.name == name)
    return session.exec(query).first()


def measurements_of(session: Session, *, regime_ids: Sequence[int], baselines_only: bool = False) -> list[Measurement]:
    """Measurements of those regimes, newest first; `baselines_only`: the standing baselines alone (neither gate
    checks nor retracted ones), all the checks of a new reading look at."""
    if not regime_ids:
        return []
    query = (
        select(Measurement)
        .where(col(Measurement.regime_id).in_(regime_ids))
        .order_by(col(Measurement.measured_at).desc(), col(Measurement.id).desc())
    )
    if baselines_only:
        query = query.where(Measurement.kind == "baseline", col(Measurement.retracted_at).is_(None))
    return list(session.exec(query).all())


def includes_of(session: Session, *, measurement_ids: Sequence[int]) -> dict[int, list[int]]:
    """The interventions each measurement was taken with."""
    result: dict[int, list[int]] = {mid: [] for mid in measurement_ids}
    if measurement_ids:
        query = select(MeasurementInclude).where(col(MeasurementInclude.measurement_id).in_(measurement_ids))
        for link in session.exec(query).all():
            result[link.measurement_id].append(link.intervention_id)
    return result


def measurement_in(session: Session, *, campaign_id: int, measurement_id: int) -> Measurement | None:
    """The measurement, if it belongs to a regime of the campaign."""
    query = (
        select(Measurement)
        .join(Regime, col(Regime.id) == col(Measurement.regime_id))
        .where(Measurement.id == measurement_id, Regime.campaign_id == campaign_id)
    )
    return session.exec(query).first()


def newest_profiles(session: Session, *, regime_ids: Sequence[int]) -> dict[int, Profile]:
    if not regime_ids:
        return {}
    query = (
        select(Profile)
        .where(col(Profile.regime_id).in_(regime_ids), col(Profile.intervention_id).is_(None))
        .order_by(col(Profile.created_at), col(Profile.id))
    )
    return {p.regime_id: p for p in session.exec(query).all()}


def prototype_profiles(session: Session, *, intervention_ids: Sequence[int]) -> dict[int, Profile]:
    """Each intervention's newest prototype trace (a profile of a regime with the prototype in place)."""
    if not intervention_ids:
        return {}
    query = (
        select(Profile)
        .where(col(Profile.intervention_id).in_(intervention_ids))
        .order_by(col(Profile.created_at), col(Profile.id))
    )
    return {p.intervention_id: p for p in session.exec(query).all() if p.intervention_id is not None}


def prototype_runs(session: Session, *, intervention_ids: Sequence[int]) -> dict[int, list[PrototypeRun]]:
    """Each intervention's prototype benchmarks (the throughput a prototype of it measured in a regime): the newest
    in each regime, oldest first."""
    if not intervention_ids:
        return {}
    query = (
        select(PrototypeRun)
        .where(col(PrototypeRun.intervention_id).in_(intervention_ids))
        .order_by(col(PrototypeRun.measured_at), col(PrototypeRun.id))
    )
    newest: dict[int, dict[int, PrototypeRun]] = {}
    for run in session.exec(query).all():
        by_regime = newest.setdefault(run.intervention_id, {})
        by_regime.pop(run.regime_id, None)  # a newer run of the regime goes to the end
        by_regime[run.regime_id] = run
    return {i: list(runs.values()) for i, runs in newest.items()}


def kernels_of(session: Session, *, profile_ids: Sequence[int]) -> dict[int, list[ProfileKernel]]:
    """The kernels each profile's trace or kernel table named, largest share of their bucket first."""
    result: dict[int, list[ProfileKernel]] = {pid: [] for pid in profile_ids}
    if profile_ids:
        query = (
            select(ProfileKernel)
            .where(col(ProfileKernel.profile_id).in_(profile_ids))
            .order_by(col(ProfileKernel.id))
        )
        for kernel in session.exec(query).all():
            result[kernel.profile_id].append(kernel)
    return result


def shares_of(session: Session, *, profile_ids: Sequence[int]) -> dict[int, list[ProfileShare]]:
    result: dict[int, list[ProfileShare]] = {pid: [] for pid in profile_ids}
    if profile_ids:
        query = (
            select(ProfileShare)
            .where(col(ProfileShare.profile_id).in_(profile_ids))
            .order_by(col(ProfileShare.share).desc(), col(ProfileShare.id))
        )
        for share in session.exec(query).all():
            result[share.profile_id].append(share)
    return result


def tiers_of(session: Session, *, campaign_id: int) -> list[Tier]:
    query = select(Tier).where(Tier.campaign_id == campaign_id).order_by(col(Tier.position), col(Tier.id))
    return list(session.exec(query).all())


def interventions_of(session: Session, *, campaign_id: int) -> list[Intervention]:
    query = (
        select(Intervention)
        .where(Intervention.campaign_id == campaign_id)
        .order_by(col(Intervention.position), col(Intervention.id))
    )
    return list(session.exec(query).all())


def effects_of(session: Session, *, intervention_ids: Sequence[int]) -> list[Effect]:
    if not intervention_ids:
        return []
    query = select(Effect).where(col(Effect.intervention_id).in_(intervention_ids)).order_by(col(Effect.id))
    return list(session.exec(query).all())


def effect_regime_ids(session: Session, *, effect_ids: Sequence[int]) -> dict[int, list[int]]:
    result: dict[int, list[int]] = {eid: [] for eid in effect_ids}
    if effect_ids:
        for link in session.exec(select(EffectRegime).where(col(EffectRegime.effect_id).in_(effect_ids))).all():
            result[link.effect_id].append(link.regime_id)
    return result


def effect_estimates(session: Session, *, effect_ids: Sequence[int]) -> dict[int, Estimates]:
    """Each effect's three-point inputs by name (an effect with none: {})."""
    result: dict[int, Estimates] = {eid: {} for eid in effect_ids}
    if effect_ids:
        query = select(EffectEstimate).where(col(EffectEstimate.effect_id).in_(effect_ids))
        for row in session.exec(query).all():
            result[row.effect_id][row.input] = (row.low, row.likely, row.high)
    return result


def slos_of(session: Session, *, campaign_id: int) -> list[Slo]:
    return list(session.exec(select(Slo).where(Slo.campaign_id == campaign_id).order_by(col(Slo.id))).all())


def gates_of(session: Session, *, tier_ids: Sequence[int]) -> list[Gate]:
    if not tier_ids:
        return []
    return list(session.exec(select(Gate).where(col(Gate.tier_id).in_(tier_ids)).order_by(col(Gate.id))).all())


def prerequisites_of(session: Session, *, intervention_ids: Sequence[int]) -> dict[int, list[int]]:
    result: dict[int, list[int]] = {iid: [] for iid in intervention_ids}
    if intervention_ids:
        query = select(Prerequisite).where(col(Prerequisite.intervention_id).in_(intervention_ids))
        for link in session.exec(query).all():
            result[link.intervention_id].append(link.requires_id)
    return result


def hardware_of(session: Session, *, campaign_id: int) -> HardwareSpec | None:
    return session.exec(select(HardwareSpec).where(HardwareSpec.campaign_id == campaign_id)).first()


def model_spec_of(session: Session, *, campaign_id: int) -> ModelSpec | None:
    return session.exec(select(ModelSpec).where(ModelSpec.campaign_id == campaign_id)).first()


def load_campaign(session: Session, *, campaign_id: int) -> CampaignRows | None:
    """The campaign's rows, and of its measurement history the runs the planner needs: a few statements whatever
    the length of the history."""
    campaign = get_campaign(session, campaign_id=campaign_id)
    if campaign is None:
        return None
    regimes = regimes_of(session, campaign_id=campaign_id)
    regime_ids = ids(regimes)
    profiles = newest_profiles(session, regime_ids=regime_ids)
    tiers = tiers_of(session, campaign_id=campaign_id)
    interventions = interventions_of(session, campaign_id=campaign_id)
    effects = effects_of(session, intervention_ids=ids(interventions))
    prototypes = prototype_profiles(session, intervention_ids=ids(interventions))
    gates = gates_of(session, tier_ids=ids(tiers))
    slos = slos_of(session, campaign_id=campaign_id)
    runs = planning_runs.planning_runs(session, regime_ids=regime_ids, gates=gates,
                                 tier_starts={pk(t): t.started_at for t in tiers},
                                 capacity_gates=bool(slos) and any(g.metric == CAPACITY_METRIC for g in gates))
    return CampaignRows(
        campaign=campaign,
        regimes=regimes,
        measurements=runs.measurements,
        includes={pk(m): history.key_ids(m.includes_key) for m in runs.measurements},
        profiles=profiles,
        shares=shares_of(session, profile_ids=ids(profiles.values()) + ids(prototypes.values())),
        tiers=tiers,
        interventions=interventions,
        effects=effects,
        effect_regimes=effect_regime_ids(session, effect_ids=ids(effects)),
        effect_estimates=effect_estimates(session, effect_ids=ids(effects)),
        gates=gates,
        prerequisites=prerequisites_of(session, intervention_ids=ids(interventions)),
        hardware=hardware_of(session, campaign_id=campaign_id),
        model_spec=model_spec_of(session, campaign_id=campaign_id),
        slos=slos,
        changes=runs.changes,
        prototypes=prototypes,
        benchmarks=prototype_runs(session, intervention_ids=ids(interventions)),
        # the kernels each profile named: effects that target kernels, and prototypes carried kernel by kernel
        kernels=kernels_of(session, profile_ids=ids(profiles.values()) + ids(prototypes.values())),
    )

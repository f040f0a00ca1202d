"""A campaign's stored rows as their public models: plain values (no session, no lazy loading) that the views,
the export and the API read. The only place a row becomes an XPublic."""

from __future__ import annotations

import logging
import typing
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from tierplan.db.repo import CampaignRows
from tierplan.db.tables import Measurement, Profile, ProfileShare, pk
from tierplan.models.effects import EffectPublic, ProfilePublic, ShareOut, flat
from tierplan.models.measurements import MeasurementPublic
from tierplan.models.plan_rows import CampaignPublic, GatePublic, InterventionPublic, RegimePublic, SloPublic, TierPublic
from tierplan.models.specs import HardwareSpecPublic, ModelSpecPublic

log = logging.getLogger("tierplan")

P = TypeVar("P", bound=BaseModel)


@dataclass(frozen=True)
class PlanRecord:
    """Every stored row of one campaign, as the API shows it."""

    campaign: CampaignPublic
    regimes: tuple[RegimePublic, ...]
    profiles: dict[int, ProfilePublic]  # regime id -> its newest profile
    tiers: tuple[TierPublic, ...]
    interventions: tuple[InterventionPublic, ...]
    effects: tuple[EffectPublic, ...]
    gates: tuple[GatePublic, ...]
    slos: tuple[SloPublic, ...]
    measurements: tuple[MeasurementPublic, ...]  # newest first, retracted ones included
    hardware: HardwareSpecPublic | None
    model_spec: ModelSpecPublic | None

    def regime_name(self, regime_id: int) -> str:
        return next(r.name for r in self.regimes if r.id == regime_id)


def public(model: type[P], row: Any, **extra: Any) -> P:
    """The public model of a row: its columns the model names, and `extra` for what is not a column."""
    values = {name: getattr(row, name) for name in model.model_fields if hasattr(row, name)} | extra
    try:
        return model.model_validate(values)
    except ValidationError as exc:  # a row stored before a bound, or by hand: shown as it is, never a 500
        log.warning("%s %s holds a value outside its bounds: %s", model.__name__, values.get("id"),
                    exc.errors()[0]["msg"])
        return model.model_construct(**{name: _typed(model, name, value) for name, value in values.items()})


def _typed(model: type[BaseModel], name: str, value: Any) -> Any:
    """A stored value as its field's enum, where the field is one (model_construct converts nothing)."""
    field = model.model_fields.get(name)
    kinds = [field.annotation, *typing.get_args(field.annotation)] if field is not None else []
    enum = next((k for k in kinds if isinstance(k, type) and issubclass(k, Enum)), None)
    return enum(value) if enum is not None and isinstance(value, str) else value


def measurement_public(measurement: Measurement, regime: str, keys: dict[int, str],
                       include_ids: Iterable[int]) -> MeasurementPublic:
    """A measurement with its regime's name and the keys of the interventions it was taken with."""
    return public(MeasurementPublic, measurement, regime=regime,
                  includes=sorted(keys[i] for i in include_ids if i in keys))


def profile_public(profile: Profile, regime: str, shares: Iterable[ProfileShare]) -> ProfilePublic:
    out = [ShareOut(bucket=s.bucket, share=s.share, provenance=s.provenance) for s in shares]
    return public(ProfilePublic, profile, regime=regime, shares=out)


def record_of(rows: CampaignRows) -> PlanRecord:
    """The public models of rows already loaded (no query)."""
    names = {pk(r): r.name for r in rows.regimes}
    keys = {pk(i): i.key for i in rows.interventions}
    return PlanRecord(
        campaign=public(CampaignPublic, rows.campaign),
        regimes=tuple(public(RegimePublic, r) for r in rows.regimes),
        profiles={regime_id: profile_public(p, names[regime_id], rows.shares.get(pk(p), []))
                  for regime_id, p in rows.profiles.items()},
        tiers=tuple(public(TierPublic, t) for t in rows.tiers),
        interventions=tuple(public(InterventionPublic, i, prerequisite_ids=rows.prerequisites.get(pk(i), []))
                            for i in rows.interventions),
        effects=tuple(public(EffectPublic, e, regime_ids=rows.effect_regimes.get(pk(e), []),
                             **flat(rows.effect_estimates.get(pk(e), {}))) for e in rows.effects),
        gates=tuple(public(GatePublic, g) for g in rows.gates),
        slos=tuple(public(SloPublic, o) for o in rows.slos),
        measurements=tuple(measurement_public(m, names[m.regime_id], keys, rows.includes.get(pk(m), []))
                           for m in rows.measurements),
        hardware=public(HardwareSpecPublic, rows.hardware) if rows.hardware else None,
        model_spec=public(ModelSpecPublic, rows.model_spec) if rows.model_spec else None,
    )

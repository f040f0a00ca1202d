"""One declaration per field: a table and the models a user fills or reads derive the fields they share from one
base (tierplan/models' XFields), so a field's type, bound, label and help are written once."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from tierplan.db import tables
from tierplan.models import effects, measurements, plan_rows, specs

# each table a user edits or reads through the API, and its create and public models
FAMILIES: list[tuple[type, tuple[type[BaseModel], ...]]] = [
    (tables.Campaign, (plan_rows.CampaignCreate, plan_rows.CampaignSettings, plan_rows.CampaignPublic)),
    (tables.Regime, (plan_rows.RegimeCreate, plan_rows.RegimePublic)),
    (tables.Tier, (plan_rows.TierCreate, plan_rows.TierPublic)),
    (tables.Intervention, (plan_rows.InterventionCreate, plan_rows.InterventionPublic)),
    (tables.Effect, (effects.EffectCreate, effects.EffectPublic)),
    (tables.Gate, (plan_rows.GateCreate, plan_rows.GatePublic)),
    (tables.Slo, (plan_rows.SloCreate, plan_rows.SloPublic)),
    (tables.HardwareSpec, (specs.HardwareSpecCreate, specs.HardwareSpecPublic)),
    (tables.ModelSpec, (specs.ModelSpecCreate, specs.ModelSpecPublic)),
    (tables.Measurement, (measurements.MeasurementPublic,)),
    (tables.Profile, (effects.ProfilePublic,)),
]
OWN = {"id", "version"}  # every table's key and row version, which the public models state on their own


def declared_in(cls: type, name: str) -> type:
    """The class of cls's MRO whose body declares the field `name`."""
    return next(c for c in cls.__mro__ if name in c.__dict__.get("__annotations__", {}))


@pytest.mark.parametrize(("table", "models"), FAMILIES, ids=[t.__name__ for t, _ in FAMILIES])
def test_a_field_a_table_shares_with_its_models_is_declared_once_in_a_base_of_both(table, models):
    for model in models:
        shared = (set(table.model_fields) & set(model.model_fields)) - OWN
        assert shared, model
        for name in shared:
            base = declared_in(table, name)
            assert base is not table and base is declared_in(model, name), (table.__name__, model.__name__, name)


def test_the_estimates_of_an_effect_are_fields_of_its_models_and_rows_of_a_table_not_columns():
    estimate_fields = {f"{name}_{point}" for name in effects.ESTIMATES for point in effects.POINTS}
    assert estimate_fields <= set(effects.EffectCreate.model_fields)
    assert not estimate_fields & set(tables.Effect.model_fields)
    assert {"effect_id", "input", "low", "likely", "high"} == set(tables.EffectEstimate.model_fields)

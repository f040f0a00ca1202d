"""Whatever a row holds (a value stored before the bounds, or written by hand), no page, chart, export or API read
answers 500: a value that cannot be drawn is shown as text."""

import pytest
from sqlmodel import select

from tierplan.db.engine import new_session
from tierplan.db.tables import EffectEstimate, HardwareSpec, Measurement, Regime

EXTREMES = (5e-324, 1e-300, 1e308)
PAGES = ("/", "/campaigns/{id}", "/campaigns/{id}/regimes/1", "/campaigns/{id}/history", "/campaigns/{id}/compare",
         "/campaigns/{id}/roadmap.md", "/campaigns/{id}/changes", "/api/campaigns/{id}/plan",
         "/api/campaigns/{id}/gates/status", "/api/campaigns/{id}/regressions", "/api/campaigns/{id}/capacity",
         "/api/campaigns/{id}/measurements", "/campaigns/{id}/specs")


def store(app, table, columns: tuple[str, ...], value: float) -> None:
    with new_session(app.state.engine) as session:
        for row in session.exec(select(table)).all():
            for column in columns:
                setattr(row, column, value)
            session.add(row)
        session.commit()
    app.state.page_cache.clear()


@pytest.mark.parametrize("value", EXTREMES)
@pytest.mark.parametrize(("table", "columns"), [
    (Regime, ("target_tok_s",)), (HardwareSpec, ("bandwidth_gb_s",)), (Measurement, ("value",)),
    (EffectEstimate, ("low", "likely", "high")),  # a consistent estimate of an absurd size
    (EffectEstimate, ("likely",)),  # likely outside low..high: a rule the core refuses
])
def test_no_page_answers_500_whatever_a_row_holds(client, app, demo_id, table, columns, value):
    store(app, table, columns, value)
    for path in PAGES:
        answer = client.get(path.format(id=demo_id))
        assert answer.status_code < 500, (path, answer.text[-2000:])


@pytest.mark.parametrize(("path", "body", "field", "words"), [
    ("regimes/1", {"target_tok_s": 5e-324}, "target_tok_s", "at least 1e-09"),
    ("regimes/1", {"target_tok_s": 1e308}, "target_tok_s", "at most 1e+08"),
    ("regimes/1", {"target_tok_s": 5e8}, "target_tok_s", "at most 1e+08"),
    ("interventions/1", {"effort_likely_days": 1e6}, "effort_likely_days", "at most 10,000"),
    ("tiers/1", {"started_at": -1}, "started_at", "between 2000-01-01 and 2100-01-01"),
])
def test_a_value_outside_physical_bounds_is_refused_at_its_field_with_the_bound(client, demo_id, path, body, field,
                                                                                words):
    before = client.get(f"/api/campaigns/{demo_id}/plan").json()
    refused = client.patch(f"/api/campaigns/{demo_id}/{path}", json=body)
    assert refused.status_code == 422 and words in refused.json()["errors"][field]
    assert client.get(f"/api/campaigns/{demo_id}/plan").json() == before


@pytest.mark.parametrize("value", [5e-324, 1e308])
def test_a_measurement_of_no_physical_size_is_refused(client, demo_id, value):
    refused = client.post(f"/api/campaigns/{demo_id}/measurements",
                          json={"regime": "batch 1", "metric": "output_tok_s", "value": value})
    assert refused.status_code == 422 and "value" in refused.json()["errors"]


def test_per_position_acceptance_takes_rates_from_0_to_1_only(client, demo_id):
    from tierplan.db.mappers import per_position
    from tierplan.planning.model import PlanningError

    assert per_position("0.8, 0.6; 0.4") == (0.8, 0.6, 0.4)
    for text in ("nan, 0.5", "inf", "-1", "0.5, 1.2", "x"):
        with pytest.raises(PlanningError, match="between 0 and 1"):
            per_position(text)

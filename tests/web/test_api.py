"""The JSON API."""

import pytest

from tests.unit.test_spec_decode_load import v4_floor


def test_healthz(client):
    assert client.get("/healthz").json() == {"status": "ok"}


def test_openapi_documents_the_api(client):
    spec = client.get("/openapi.json").json()
    assert "/api/campaigns/{campaign_id}/plan" in spec["paths"]
    assert client.get("/docs").status_code == 200


def test_campaigns_are_listed(client, demo_id):
    campaigns = client.get("/api/campaigns").json()
    assert [c["id"] for c in campaigns] == [demo_id]
    assert campaigns[0]["gpu_count"] == 8


def test_the_plan_has_each_regime_its_projections_and_every_gate(client, demo_id):
    plan = client.get(f"/api/campaigns/{demo_id}/plan").json()
    batch1 = plan["regimes"][0]
    assert batch1["name"] == "batch 1"
    assert batch1["baseline_tok_s"] == 10.0 and batch1["target_tok_s"] == 1000.0
    assert [p["tier"] for p in batch1["projections"]] == ["A", "B", "C"]
    # A1 4.8x (the 100 ms step to 20.8 ms); A2 E = 1.7 tokens a step from a step that verifies 2 tokens a sequence:
    # the hardware model's extra GPU time added to that step
    added_ms = v4_floor(1).verify_added_ms(1)
    assert batch1["projections"][0]["tok_s"] == pytest.approx(1000 * 1.7 / (100 / 4.8 + added_ms), rel=1e-3)
    assert batch1["projections"][0]["bottleneck"] == "attention"
    assert batch1["includes"] == [] and batch1["step_source"].startswith("concurrency 1 over")
    assert batch1["verdict"] == "short by 6.34x"
    assert len(plan["gates"]) == 6 and {g["status"] for g in plan["gates"]} == {"pending"}


def test_posting_a_gate_check_moves_the_gate_not_the_projection(client, demo_id):
    before = client.get(f"/api/campaigns/{demo_id}/plan").json()["regimes"][1]["projections"]
    response = client.post(f"/api/campaigns/{demo_id}/measurements",
                           json={"regime": "concurrency 16", "metric": "output_tok_s", "value": 41.5,
                                 "kind": "gate check"})
    assert response.status_code == 201
    body = response.json()
    assert body["value"] == 41.5 and body["source"] == "api" and body["kind"] == "gate check"
    assert body["includes"] == []
    plan = client.get(f"/api/campaigns/{demo_id}/plan").json()
    c16_a = next(g for g in plan["gates"] if g["tier"] == "A" and g["regime"] == "concurrency 16")
    assert c16_a["status"] == "pass" and c16_a["evidence_value"] == 41.5
    assert plan["regimes"][1]["projections"] == before


def test_a_gate_passing_baseline_that_leaves_out_its_tier_needs_confirming(client, demo_id):
    body = {"regime": "concurrency 16", "metric": "output_tok_s", "value": 41.5}
    refused = client.post(f"/api/campaigns/{demo_id}/measurements", json=body)
    assert refused.status_code == 409 and refused.json()["confirmable"] is True
    assert "does not include A1, A2" in refused.json()["errors"]["kind"]
    with_work = client.post(f"/api/campaigns/{demo_id}/measurements", json={**body, "includes": ["A1", "A2"]})
    assert with_work.status_code == 201 and with_work.json()["includes"] == ["A1", "A2"]
    c16 = client.get(f"/api/campaigns/{demo_id}/plan").json()["regimes"][1]
    # the baseline now holds tier A's work: tier A adds nothing more, and B applies to 41.5
    assert c16["baseline_tok_s"] == 41.5 and c16["includes"] == ["A1", "A2"]
    assert c16["projections"][0]["tok_s"] == pytest.approx(41.5)


def test_an_absurd_value_is_refused_unless_confirmed_and_then_says_so(client, demo_id):
    body = {"regime": "batch 1", "metric": "output_tok_s", "value": 1e6, "kind": "gate check"}
    refused = client.post(f"/api/campaigns/{demo_id}/measurements", json=body)
    assert refused.status_code == 409 and refused.json()["confirmable"] is True
    assert "above the hardware ceiling" in refused.json()["errors"]["value"]
    assert len(client.get(f"/api/campaigns/{demo_id}/measurements").json()) == 2  # nothing stored
    stored = client.post(f"/api/campaigns/{demo_id}/measurements", json={**body, "confirm": True})
    assert stored.status_code == 201


def test_a_measurement_is_retracted_through_the_api(client, demo_id):
    measurement = client.get(f"/api/campaigns/{demo_id}/measurements").json()[0]
    response = client.post(f"/api/campaigns/{demo_id}/measurements/{measurement['id']}/retract",
                           json={"reason": "debug build", "by": "ana"})
    assert response.status_code == 200
    assert response.json()["retracted_by"] == "ana" and response.json()["retraction_reason"] == "debug build"
    again = client.post(f"/api/campaigns/{demo_id}/measurements/{measurement['id']}/retract",
                        json={"reason": "twice", "by": "ana"})
    assert again.status_code == 409 and "already retracted" in again.json()["errors"]["reason"]
    missing = client.post(f"/api/campaigns/{demo_id}/measurements/999/retract", json={"reason": "x", "by": "y"})
    assert missing.status_code == 404


def test_a_bad_measurement_is_422_with_the_field_named(client, demo_id):
    response = client.post(f"/api/campaigns/{demo_id}/measurements",
                           json={"regime": "batch 99", "metric": "output_tok_s", "value": 0})
    assert response.status_code == 422  # a zero throughput can never be recorded, whatever the campaign holds
    errors = response.json()["errors"]
    assert set(errors) == {"regime", "value"}
    assert response.json()["confirmable"] is False
    unknown = client.post(f"/api/campaigns/{demo_id}/measurements",
                          json={"regime": "batch 99", "metric": "output_tok_s", "value": 10})
    assert unknown.status_code == 409 and set(unknown.json()["errors"]) == {"regime"}  # it can once it has the regime
    negative = client.post(f"/api/campaigns/{demo_id}/measurements",
                           json={"regime": "batch 1", "metric": "output_tok_s", "value": -1})
    assert negative.status_code == 422 and negative.json()["errors"] == {"value": "must be at least 0"}


def test_an_unknown_campaign_is_404_json(client):
    response = client.get("/api/campaigns/42/plan")
    assert response.status_code == 404 and response.json() == {"detail": "no campaign 42"}


def test_a_query_parameter_the_operation_does_not_take_is_named_not_dropped(client, demo_id):
    typo = client.get(f"/api/campaigns/{demo_id}/measurements", params={"regmie": "batch 1"})
    assert typo.status_code == 422
    assert typo.json()["errors"] == {
        "regmie": "not a parameter of this operation (it takes: before, limit, metric, regime, since, until)"}
    assert client.get(f"/api/campaigns/{demo_id}/measurements", params={"regime": "batch 1"}).status_code == 200
    assert client.get(f"/api/campaigns/{demo_id}/plan", params={"x": "1"}).json()["errors"]["x"].startswith("not a")

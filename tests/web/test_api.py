"""The JSON API."""

import pytest


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
    assert batch1["projections"][0]["tok_s"] == pytest.approx(10 * 4.8 * 1.7 / 1.1)
    assert batch1["projections"][0]["bottleneck"] == "attention"
    assert batch1["verdict"] == "short by 6.5x"
    assert len(plan["gates"]) == 6 and {g["status"] for g in plan["gates"]} == {"pending"}


def test_posting_a_measurement_stores_it_and_moves_the_gate(client, demo_id):
    response = client.post(f"/api/campaigns/{demo_id}/measurements",
                           json={"regime": "concurrency 16", "metric": "output_tok_s", "value": 41.5})
    assert response.status_code == 201
    assert response.json()["value"] == 41.5 and response.json()["source"] == "api"
    gates = client.get(f"/api/campaigns/{demo_id}/plan").json()["gates"]
    c16_a = next(g for g in gates if g["tier"] == "A" and g["regime"] == "concurrency 16")
    assert c16_a["status"] == "pass" and c16_a["evidence_value"] == 41.5


def test_a_bad_measurement_is_422_with_the_field_named(client, demo_id):
    response = client.post(f"/api/campaigns/{demo_id}/measurements",
                           json={"regime": "batch 99", "metric": "output_tok_s", "value": -1})
    assert response.status_code == 422
    errors = response.json()["errors"]
    assert set(errors) == {"regime", "value"}


def test_an_unknown_campaign_is_404_json(client):
    response = client.get("/api/campaigns/42/plan")
    assert response.status_code == 404 and response.json() == {"detail": "no campaign 42"}

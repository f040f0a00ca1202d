"""The JSON API writes every kind of row with the forms' models and checks, and answers errors in one shape."""

from pathlib import Path

import pytest

DATA = Path(__file__).parent.parent / "data"
KINDS = ("regimes", "tiers", "interventions", "effects", "gates")


def test_the_openapi_document_has_write_operations_for_every_kind_of_row_and_one_422_shape(client):
    spec = client.get("/openapi.json").json()
    paths = spec["paths"]
    for kind in KINDS:
        assert {"get", "post"} <= set(paths[f"/api/campaigns/{{campaign_id}}/{kind}"])
        assert {"get", "patch", "delete"} <= set(paths[f"/api/campaigns/{{campaign_id}}/{kind}/{{row_id}}"])
    assert {"post"} <= set(paths["/api/campaigns"]) and {"patch", "delete"} <= set(paths["/api/campaigns/{campaign_id}"])
    assert "post" in paths["/api/campaigns/{campaign_id}/regimes/{regime_id}/profile"]
    assert "put" in paths["/api/campaigns/{campaign_id}/specs/hardware"]
    assert "put" in paths["/api/campaigns/{campaign_id}/specs/model"]
    assert "post" in paths["/api/campaigns/{campaign_id}/imports"]
    assert "post" in paths["/api/campaigns/{campaign_id}/measurements"]
    shapes = {op["responses"]["422"]["content"]["application/json"]["schema"]["$ref"]
              for path, ops in paths.items() if path.startswith("/api") for op in ops.values()}
    assert shapes == {"#/components/schemas/Invalid"}
    assert "HTTPValidationError" not in spec["components"]["schemas"]
    assert all("404" in op["responses"] for path, ops in paths.items() if path.startswith("/api")
               for op in ops.values())


def test_a_campaign_is_built_through_the_api_and_projected(client):
    campaign = client.post("/api/campaigns", json={"name": "Llama on 1 H200", "gpu_count": 1})
    assert campaign.status_code == 201
    cid = campaign.json()["id"]
    regime = client.post(f"/api/campaigns/{cid}/regimes", json={
        "name": "batch 1", "concurrency": 1, "input_tokens": 1024, "output_tokens": 256, "target_tok_s": 200})
    assert regime.status_code == 201, regime.text
    assert regime.json()["workload_provenance"] == "assumed"  # typed, not measured, unless said
    tier = client.post(f"/api/campaigns/{cid}/tiers", json={"key": "A", "name": "Upstream", "position": 0}).json()
    intervention = client.post(f"/api/campaigns/{cid}/interventions", json={
        "key": "A1", "title": "CUDA graphs", "tier_id": tier["id"], "effort_low_days": 1, "effort_likely_days": 2,
        "effort_high_days": 4}).json()
    effect = client.post(f"/api/campaigns/{cid}/effects", json={
        "intervention_id": intervention["id"], "kind": "step", "speedup_low": 1.5, "speedup_likely": 2,
        "speedup_high": 2.5, "regime_ids": [regime.json()["id"]]})
    assert effect.status_code == 201, effect.text
    assert effect.json()["regime_ids"] == [regime.json()["id"]]
    gate = client.post(f"/api/campaigns/{cid}/gates", json={
        "tier_id": tier["id"], "regime_id": regime.json()["id"], "threshold": 150})
    assert gate.status_code == 201 and gate.json()["metric"] == "output_tok_s"
    client.post(f"/api/campaigns/{cid}/measurements", json={"regime": "batch 1", "metric": "output_tok_s",
                                                            "value": 100})
    plan = client.get(f"/api/campaigns/{cid}/plan").json()
    assert plan["regimes"][0]["projections"][0]["tok_s"] == pytest.approx(200)

    changed = client.patch(f"/api/campaigns/{cid}/interventions/{intervention['id']}", json={"status": "landed"})
    assert changed.status_code == 200 and changed.json()["status"] == "landed"
    assert changed.json()["title"] == "CUDA graphs" and changed.json()["landed_at"] is not None
    assert client.get(f"/api/campaigns/{cid}/effects").json()[0]["id"] == effect.json()["id"]
    assert client.delete(f"/api/campaigns/{cid}/gates/{gate.json()['id']}").status_code == 204
    assert client.get(f"/api/campaigns/{cid}/gates").json() == []


def test_bad_bodies_get_one_422_shape_with_a_message_a_field_and_nothing_written(client, demo_id):
    before = client.get(f"/api/campaigns/{demo_id}/regimes").json()
    bad = client.post(f"/api/campaigns/{demo_id}/regimes", json={
        "name": "", "concurrency": 2**40, "input_tokens": "x", "output_tokens": 1, "target_tok_s": -1})
    assert bad.status_code == 422
    body = bad.json()
    assert body["detail"] == "invalid input" and body["confirmable"] is False
    assert body["errors"] == {"name": "required", "concurrency": "at most 2,147,483,647",
                              "input_tokens": "must be a whole number", "target_tok_s": "must be greater than 0"}
    duplicate = client.post(f"/api/campaigns/{demo_id}/regimes", json={
        "name": "batch 1", "concurrency": 1, "input_tokens": 1, "output_tokens": 1, "target_tok_s": 1})
    assert duplicate.status_code == 409 and "already the name" in duplicate.json()["errors"]["name"]
    other_campaign = client.post("/api/campaigns", json={"name": "other", "gpu_count": 1}).json()["id"]
    foreign = client.post(f"/api/campaigns/{other_campaign}/gates", json={
        "tier_id": 1, "regime_id": 1, "threshold": 1})
    assert foreign.status_code == 409 and foreign.json()["errors"]["tier_id"].startswith("unknown choice")
    assert client.get(f"/api/campaigns/{demo_id}/regimes").json() == before
    assert client.post(f"/api/campaigns/{demo_id}/regimes", content=b"{not json",
                       headers={"content-type": "application/json"}).json()["detail"] == "invalid input"


def test_missing_rows_are_documented_404s(client, demo_id):
    assert client.get("/api/campaigns/999").status_code == 404
    missing = client.patch(f"/api/campaigns/{demo_id}/tiers/999", json={"name": "x"})
    assert missing.status_code == 404 and missing.json() == {"detail": f"no tier 999 in campaign {demo_id}"}
    assert client.get(f"/api/campaigns/{demo_id}/specs/unknown").status_code == 422


def test_profiles_and_specs_are_written_through_the_api(client, demo_id):
    regime_id = client.get(f"/api/campaigns/{demo_id}/regimes").json()[0]["id"]
    profile = client.post(f"/api/campaigns/{demo_id}/regimes/{regime_id}/profile",
                          json={"shares": "attention 60%\nmoe 30% measured", "source": "nsys"})
    assert profile.status_code == 201, profile.text
    assert [(s["bucket"], round(s["share"], 2)) for s in profile.json()["shares"]] == [
        ("attention", 0.6), ("moe", 0.3), ("other", 0.1)]
    bad = client.post(f"/api/campaigns/{demo_id}/regimes/{regime_id}/profile", json={"shares": "attention 160%"})
    assert bad.status_code == 422 and "between 0 and 1" in bad.json()["errors"]["shares"]
    hardware = client.get(f"/api/campaigns/{demo_id}/specs/hardware").json()
    hardware.pop("id")
    hardware["scaling_efficiency"] = 0.7
    put = client.put(f"/api/campaigns/{demo_id}/specs/hardware", json=hardware)
    assert put.status_code == 200 and put.json()["scaling_efficiency"] == 0.7
    too_much = client.put(f"/api/campaigns/{demo_id}/specs/hardware", json=hardware | {"scaling_efficiency": 2})
    assert too_much.status_code == 422 and too_much.json()["errors"] == {"scaling_efficiency": "at most 1"}


def test_an_import_through_the_api_previews_then_stores_once(client, demo_id, clock):
    clock.advance(days=7)  # vLLM's client ran on 2026-12-07; the tests' clock starts on 2026-12-01

    def post(**form):
        with open(DATA / "vllm" / "bench_serve_c4.json", "rb") as handle:
            return client.post(f"/api/campaigns/{demo_id}/imports", files={"files": handle.name and handle},
                               data=form)

    dry = post(dry_run="true")
    assert dry.status_code == 200 and dry.json()["batch"] is None
    assert any("matches no regime" in p for p in dry.json()["problems"])
    refused = post(regime="concurrency 16")
    assert refused.status_code == 409 and refused.json()["confirmable"] is True
    stored = post(regime="concurrency 16", confirm="true")
    assert stored.status_code == 201 and stored.json()["batch"]
    assert post(regime="concurrency 16", confirm="true").status_code == 409  # the same file again
    listed = client.get(f"/api/campaigns/{demo_id}/imports").json()
    assert [r["file_name"] for r in listed] == ["bench_serve_c4.json"]
    assert client.delete(f"/api/campaigns/{demo_id}/imports/{stored.json()['batch']}").status_code == 204
    assert client.get(f"/api/campaigns/{demo_id}/imports").json() == []


def test_a_spec_deleted_through_the_api_leaves_the_ceiling_unknown(client, demo_id):
    assert client.delete(f"/api/campaigns/{demo_id}/specs/model").status_code == 204
    assert client.get(f"/api/campaigns/{demo_id}/specs/model").status_code == 404
    assert client.delete(f"/api/campaigns/{demo_id}/specs/model").status_code == 404
    assert client.get(f"/api/campaigns/{demo_id}/plan").json()["regimes"][0]["ceiling_tok_s"] is None

"""The main flows through the web app on the machine's PostgreSQL (the rest of tests/web runs on SQLite)."""

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tierplan.config import Settings
from tierplan.db.engine import new_session
from tierplan.main import create_app
from tierplan.services.demo import load_demo

pytestmark = pytest.mark.postgres
DATA = Path(__file__).parent.parent / "data"
HTMX = {"HX-Request": "true"}


@pytest.fixture
def pg_client(postgres_url, tmp_path, clock):
    app = create_app(Settings(database_url=postgres_url, load_demo_on_empty=False, upload_dir=tmp_path), clock=clock)
    with new_session(app.state.engine) as session:
        campaign_id = load_demo(session, now=clock()).id
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client, campaign_id
    app.state.engine.dispose()


def test_a_measurement_turns_its_gate_to_pass_on_postgres(pg_client):
    client, campaign_id = pg_client
    response = client.post(f"/campaigns/{campaign_id}/measurements", headers=HTMX,
                           data={"regime": "batch 1", "metric": "output_tok_s", "value": "45", "kind": "baseline",
                                 "includes_given": "1", "includes": ["A1", "A2"]})
    assert response.status_code == 200
    regime = client.get(f"/api/campaigns/{campaign_id}/plan").json()["regimes"][0]
    assert regime["includes"] == ["A1", "A2"] and regime["projections"][0]["tok_s"] == 45.0
    gates = client.get(f"/api/campaigns/{campaign_id}/plan").json()["gates"]
    assert next(g for g in gates if g["regime"] == "batch 1" and g["metric"] == "output_tok_s"
                and g["tier"] == "A")["status"] == "pass"
    bad = client.post(f"/campaigns/{campaign_id}/measurements", headers=HTMX,
                      data={"regime": "batch 1", "metric": "output_tok_s", "value": "-1"})
    assert bad.status_code == 422


def test_an_import_and_its_undo_on_postgres(pg_client, clock):
    import re

    client, campaign_id = pg_client
    clock.advance(days=7)  # vLLM's client ran on 2026-12-07; the tests' clock starts on 2026-12-01
    files = [("files", ("bench.json", (DATA / "vllm" / "bench_serve_c4.json").read_bytes()))]
    preview = client.post(f"/campaigns/{campaign_id}/import", files=files, data={"regime": "concurrency 16"},
                          headers=HTMX)
    token = re.search(r"/import/([0-9a-f]{32})/confirm", preview.text).group(1)
    confirm = f"/campaigns/{campaign_id}/import/{token}/confirm"
    assert client.post(confirm, headers=HTMX).status_code == 422  # 29x the baseline: not without confirming
    assert client.post(confirm, data={"confirm": "yes"}, headers=HTMX).status_code == 204
    assert "672.17 tok/s" in client.get(f"/campaigns/{campaign_id}/regimes/2").text
    measurement = client.get(f"/api/campaigns/{campaign_id}/measurements").json()[0]
    retracted = client.post(f"/api/campaigns/{campaign_id}/measurements/{measurement['id']}/retract",
                            json={"reason": "another model", "by": "ana"})
    assert retracted.status_code == 200 and retracted.json()["retracted_at"] is not None
    assert client.post(f"/campaigns/{campaign_id}/imports/{token}/undo", headers=HTMX).status_code == 204
    assert "2249.25 tok/s" not in client.get(f"/campaigns/{campaign_id}/regimes/2").text


def test_the_roadmap_exports_on_postgres(pg_client):
    client, campaign_id = pg_client
    text = client.get(f"/campaigns/{campaign_id}/roadmap.md").text
    assert "short by 6.34x" in text and "not reachable on this hardware whatever the plan" in text

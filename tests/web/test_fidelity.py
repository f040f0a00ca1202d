"""The shared H200 pair replayed through the app as a new user would enter it: eager_b1 with its measured
11.44 ms step, then the two changes the graphs_b1 run made (SDPA attention, CUDA graphs) as interventions."""

import re
from pathlib import Path

import pytest

DATA = Path(__file__).parent.parent / "data"
HTMX = {"HX-Request": "true"}
MEASURED_GRAPHS_STEP_MS = 1.80  # fixture README: median of 5 unprofiled runs
EAGER_STEP_MS = 11.44


def post(client, url, **data):
    response = client.post(url, data=data, headers=HTMX)
    assert response.status_code in (200, 204), response.text
    return response


@pytest.fixture
def toy_campaign(client):
    post(client, "/campaigns", name="Mixtral-style toy MoE on one H200", gpu_count="1")
    cid = client.get("/api/campaigns").json()[0]["id"]
    post(client, f"/campaigns/{cid}/regimes/new", name="batch 1", concurrency="1", input_tokens="128",
         output_tokens="6", workload_provenance="measured", target_tok_s="1000", target_provenance="assumed")
    for metric, value in (("tpot_ms", EAGER_STEP_MS), ("output_tok_s", 1000 / EAGER_STEP_MS)):
        stored = client.post(f"/api/campaigns/{cid}/measurements",
                             json={"regime": "batch 1", "metric": metric, "value": value,
                                   "measured_at": "2026-11-30T10:00:00Z"})
        assert stored.status_code == 201, stored.text
    files = [("files", ("trace_eager_b1.json.gz", (DATA / "trace_eager_b1.json.gz").read_bytes()))]
    preview = client.post(f"/campaigns/{cid}/import", files=files, data={"regime": "batch 1"}, headers=HTMX)
    assert "step time from the newest mean time per output token of batch 1" in preview.text
    token = re.search(r"/import/([0-9a-f]{32})/confirm", preview.text).group(1)
    post(client, f"/campaigns/{cid}/import/{token}/confirm")
    post(client, f"/campaigns/{cid}/tiers/new", key="A", name="What the graphs run changed", position="0")
    return cid


def add_intervention(client, cid, key, title, **effect):
    post(client, f"/campaigns/{cid}/interventions/new", key=key, title=title, tier_id="1", status="proposed",
         effort_low_days="1", effort_likely_days="1", effort_high_days="1", effort_provenance="assumed")
    intervention_id = re.findall(r"/interventions/(\d+)/edit\">" + key, client.get(f"/campaigns/{cid}").text)[0]
    post(client, f"/campaigns/{cid}/effects/new", intervention_id=intervention_id, provenance="assumed", **effect)


def test_sdpa_and_cuda_graphs_on_the_eager_trace_project_the_measured_graphs_step(client, toy_campaign):
    cid = toy_campaign
    add_intervention(client, cid, "SDPA", "SDPA attention instead of eager", kind="launch_count",
                     launches_low="-80", launches_likely="-74", launches_high="-68")
    add_intervention(client, cid, "GRAPHS", "Decode step captured in a CUDA graph", kind="launch_overhead",
                     removed_low="0.9", removed_likely="0.97", removed_high="0.99")
    regime = client.get(f"/api/campaigns/{cid}/plan").json()["regimes"][0]
    assert regime["step_ms"] == EAGER_STEP_MS and regime["step_source"].startswith("mean TPOT")
    after = regime["projections"][0]
    assert after["step_ms"] == pytest.approx(MEASURED_GRAPHS_STEP_MS, rel=0.15)
    measured_tok_s = 1000 / MEASURED_GRAPHS_STEP_MS
    assert after["p10_tok_s"] <= measured_tok_s <= after["p90_tok_s"]
    page = client.get(f"/campaigns/{cid}").text
    assert "launch overhead: 97% (90–99%) of each launch&#39;s host cost removed" in page
    assert "launches a step changed by -74 (-80–-68)" in page


def test_an_attention_kernel_speedup_buys_nothing_while_the_eager_step_is_host_bound(client, toy_campaign):
    cid = toy_campaign
    add_intervention(client, cid, "FAST", "A 3x faster attention kernel", kind="bucket", bucket="attention",
                     speedup_low="3", speedup_likely="3", speedup_high="3")
    after = client.get(f"/api/campaigns/{cid}/plan").json()["regimes"][0]["projections"][0]
    assert after["step_ms"] == pytest.approx(EAGER_STEP_MS)
    assert after["bottleneck"] == "host_overhead"

"""The charts of the plan and regime pages draw the numbers the API and the tables give (read back from the SVG)."""

import re


def test_the_projection_chart_draws_the_numbers_the_api_gives(client, demo_id):
    page = client.get(f"/campaigns/{demo_id}").text
    plan = client.get(f"/api/campaigns/{demo_id}/plan").json()
    charts = re.findall(r'<svg [^>]*projection-chart.*?</svg>', page, re.S)
    assert len(charts) == len(plan["regimes"])
    for regime, svg in zip(plan["regimes"], charts, strict=True):
        drawn = [float(v) for v in re.findall(r'class="point"[^>]*data-tok-s="([^"]+)"', svg)]
        assert drawn == [regime["baseline_tok_s"]] + [p["tok_s"] for p in regime["projections"]]
        target = float(re.search(r'class="target"[^>]*data-tok-s="([^"]+)"', svg).group(1))
        assert target == regime["target_tok_s"]
    assert client.get("/favicon.ico", follow_redirects=False).headers["location"] == "/static/favicon.svg"


def test_the_history_chart_draws_every_run_with_gates_and_retractions(client, demo_id):
    for value, day in ((31.0, 18), (33.0, 19)):
        client.post(f"/api/campaigns/{demo_id}/measurements", json={
            "regime": "concurrency 16", "metric": "output_tok_s", "value": value, "kind": "gate check",
            "measured_at": f"2026-11-{day}T10:00:00Z"})
    runs = client.get(f"/api/campaigns/{demo_id}/measurements").json()
    wrong = next(m for m in runs if m["value"] == 33.0)
    client.post(f"/api/campaigns/{demo_id}/measurements/{wrong['id']}/retract", json={"reason": "wrong unit",
                                                                                      "by": "ana"})
    page = client.get(f"/campaigns/{demo_id}/regimes/2").text
    svg = re.search(r'<svg [^>]*id="history-output_tok_s".*?</svg>', page, re.S).group(0)
    drawn = sorted(float(v) for v in re.findall(r'class="run[^"]*"[^>]*data-value="([^"]+)"', svg))
    stored = sorted(m["value"] for m in runs if m["regime"] == "concurrency 16" and m["metric"] == "output_tok_s")
    assert drawn == stored
    assert re.findall(r'class="run retracted"[^>]*data-value="([^"]+)"', svg) == ["33.0"]
    thresholds = sorted(float(v) for v in re.findall(r'class="threshold"[^>]*data-value="([^"]+)"', svg))
    assert thresholds == [40.0, 45.0]  # the gates of tiers A and B on this regime
    assert '<title id="history-output_tok_s-title">output throughput of concurrency 16 over time</title>' in svg


def _svg(page: str, chart_id: str) -> str:
    return re.search(rf'<svg [^>]*id="{chart_id}".*?</svg>', page, re.S).group(0)


def test_the_waterfall_ends_each_tier_at_its_projection(client, demo_id):
    plan = client.get(f"/api/campaigns/{demo_id}/plan").json()
    ids = {r["name"]: r["id"] for r in client.get(f"/api/campaigns/{demo_id}/regimes").json()}
    for regime in plan["regimes"]:
        page = client.get(f"/campaigns/{demo_id}/regimes/{ids[regime['name']]}").text
        svg = _svg(page, f"waterfall-{ids[regime['name']]}")
        totals = dict(re.findall(r'class="bar total"[^>]*data-label="([^"]+)"[^>]*data-end="([^"]+)"', svg))
        assert float(totals["baseline"]) == regime["baseline_tok_s"]
        assert [float(totals[f"after {p['tier']}"]) for p in regime["projections"]] == [
            p["tok_s"] for p in regime["projections"]]
        assert re.findall(r'class="bar gain"', svg)
        assert 'id="waterfall-table"' in page


def test_the_shares_chart_draws_the_profile_of_each_step(client, demo_id):
    ids = [r["id"] for r in client.get(f"/api/campaigns/{demo_id}/regimes").json()]
    profile = client.get(f"/api/campaigns/{demo_id}/regimes/{ids[0]}/profile").json()
    page = client.get(f"/campaigns/{demo_id}/regimes/{ids[0]}").text
    svg = _svg(page, f"shares-{ids[0]}")
    baseline = {b: float(v) for b, v in re.findall(
        r'data-step="baseline"[^>]*data-bucket="([^"]+)"[^>]*data-share="([^"]+)"', svg)}
    assert baseline.keys() == {s["bucket"] for s in profile["shares"]}
    assert abs(sum(baseline.values()) - 1.0) < 1e-9

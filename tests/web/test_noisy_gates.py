"""Noisy gates and regressions through the web app: the gate form and API refuse impossible settings at the
field, a median gate is inconclusive until it has its runs, and a step in a history shows on the regime page."""

from datetime import datetime, timedelta

import numpy as np


def _gate(**overrides):
    body = {"tier_id": 1, "regime_id": 2, "metric": "output_tok_s", "comparator": ">=", "threshold": 40}
    body.update(overrides)
    return body


def _post_run(client, demo_id, value, at, regime="concurrency 16"):
    response = client.post(f"/api/campaigns/{demo_id}/measurements", json={
        "regime": regime, "metric": "output_tok_s", "value": value, "unit": "tok/s",
        "measured_at": at.isoformat(), "kind": "gate check", "includes": ["A1", "A2"]})
    assert response.status_code == 201, response.text


def test_impossible_gate_settings_are_refused_at_their_field(client, demo_id):
    newest = client.post(f"/api/campaigns/{demo_id}/gates", json=_gate(min_samples=3))
    assert newest.status_code == 422 and "choose the median or mean" in newest.json()["errors"]["aggregation"]
    empty = client.post(f"/api/campaigns/{demo_id}/gates", json=_gate(threshold=None))
    assert empty.status_code == 422 and "threshold" in empty.json()["errors"]
    form = client.post(f"/campaigns/{demo_id}/gates/new", data={
        "tier_id": "1", "regime_id": "2", "metric": "output_tok_s", "comparator": ">=", "threshold": "40",
        "aggregation": "median", "window": "2", "min_samples": "3", "severity": "hard", "provenance": "assumed"})
    assert form.status_code == 422 and "cannot hold the 3 the gate needs" in form.text


def test_a_median_gate_waits_for_its_runs_then_decides(client, demo_id):
    created = client.post(f"/api/campaigns/{demo_id}/gates", json=_gate(
        threshold=None, relative_pct=30, reference_regime_id=2, aggregation="median", window=5, min_samples=3))
    assert created.status_code == 201, created.text
    gate_id = created.json()["id"]

    def status():
        tiers = client.get(f"/api/campaigns/{demo_id}/gates/status", params={"tier": "A"}).json()["tiers"]
        return next(g for g in tiers[0]["gates"] if g["id"] == gate_id)

    assert status()["status"] == "pending"
    start = datetime(2026, 11, 18, 9)
    for i, value in enumerate((31.0, 30.2)):
        _post_run(client, demo_id, value, start + timedelta(hours=i))
    waiting = status()
    assert waiting["status"] == "inconclusive" and waiting["reason"] == (
        "2 of the 3 runs it needs since the tier started")
    _post_run(client, demo_id, 30.8, start + timedelta(hours=2))
    decided = status()
    # the demo's concurrency 16 baseline before tier A started: 23.0 tok/s; +30% asks for 29.9
    assert decided["status"] == "pass", decided
    assert decided["criteria"][0]["relative"] and decided["criteria"][0]["threshold"] == 1.3
    assert [s["value"] for s in decided["samples"]] == [31.0, 30.2, 30.8]
    page = client.get(f"/campaigns/{demo_id}")
    assert "median of the last 5 runs (3 needed): output throughput &gt;= +30% over concurrency 16&#39;s baseline" in page.text


def test_a_step_in_the_history_shows_on_the_regime_page_and_in_the_api(client, demo_id):
    rng = np.random.default_rng(1)
    values = list(rng.normal(60, 1.2, 16)) + list(rng.normal(54, 1.2, 14))
    start = datetime(2026, 11, 17, 9)
    for i, value in enumerate(values):
        _post_run(client, demo_id, round(float(value), 2), start + timedelta(hours=4 * i))
    body = client.get(f"/api/campaigns/{demo_id}/regressions", params={"regime": "concurrency 16",
                                                                       "metric": "output_tok_s"}).json()
    assert body["exit_code"] == 1
    [change] = body["series"][0]["changes"]
    first_after = (start + timedelta(hours=4 * 16)).isoformat()
    assert change["kind"] == "regression" and change["first_run_at"].startswith(first_after)
    assert change["interval_low"] < change["change"] < change["interval_high"] < 0
    page = client.get(f"/campaigns/{demo_id}/regimes/2")
    assert "Changes in the history" in page.text and 'data-kind="regression"' in page.text
    assert client.get(f"/api/campaigns/{demo_id}/regressions", params={"regime": "nope"}).status_code == 404

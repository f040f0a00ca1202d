"""The plan's own history: a snapshot after each change that can move a projection, the projected-against-measured
chart per regime, what changed since a date, and two plans side by side."""

import html
import re

from sqlmodel import select

from tierplan.db.engine import new_session
from tierplan.db.snapshot_tables import PlanSnapshot

HTMX = {"HX-Request": "true"}


def snapshots(app) -> list[PlanSnapshot]:
    with new_session(app.state.engine) as session:
        return list(session.exec(select(PlanSnapshot).order_by(PlanSnapshot.id)).all())


def text(fragment: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def measure(client, demo_id, value, kind="baseline", regime="batch 1"):
    body = {"regime": regime, "metric": "output_tok_s", "value": value, "kind": kind, "includes": []}
    return client.post(f"/api/campaigns/{demo_id}/measurements", json=body)


def final_p50(client, demo_id, regime="batch 1") -> float:
    plan = client.get(f"/api/campaigns/{demo_id}/plan").json()
    return next(r for r in plan["regimes"] if r["name"] == regime)["projections"][-1]["p50_tok_s"]


def test_each_change_keeps_a_snapshot_with_its_cause_and_a_refused_one_keeps_none(client, app, demo_id, clock):
    assert [s.cause for s in snapshots(app)] == ["loaded the demo campaign (DOMAIN.md's reference campaign)"]
    clock.advance(days=1)
    assert measure(client, demo_id, 12.5).status_code == 201
    assert measure(client, demo_id, -3).status_code == 422
    clock.advance(days=1)
    response = client.patch(f"/api/campaigns/{demo_id}/effects/1", json={"speedup_likely": 5.0},
                            headers={"If-Match": client.get(f"/api/campaigns/{demo_id}/effects/1").headers["ETag"]})
    assert response.status_code == 200, response.text
    kept = snapshots(app)
    assert [s.cause for s in kept[1:]] == ["measured output throughput = 12.5 tok/s of batch 1 (baseline)",
                                           "updated effect of A1 (step): Speedup likely (x) 4.8 → 5"]
    assert [s.taken_at.day for s in kept] == [1, 2, 3]


def test_the_history_lists_what_each_change_did_to_each_projection(client, app, demo_id, clock):
    before = final_p50(client, demo_id)
    clock.advance(days=2)
    measure(client, demo_id, 12.5)  # a higher baseline lifts every tier of batch 1, nothing of concurrency 16
    after = final_p50(client, demo_id)
    page = client.get(f"/campaigns/{demo_id}/history?since=2026-12-01").text
    rows = re.findall(r"<tr><td class=\"nowrap\">.*?</tr>", page.split('id="changes-since"')[1], re.S)
    newest = text(rows[0])
    assert "measured output throughput = 12.5 tok/s of batch 1 (baseline)" in newest
    assert f"batch 1 : P50 {before:.3g} → {after:.3g} tok/s" in newest.replace(",", "")
    assert f"({(after / before - 1) * 100:+.3g}%" in newest
    assert "baseline 10.0 → 12.5 tok/s" in newest and "concurrency 16 : no change" in newest
    assert "new regime" in text(rows[-1])
    later = client.get(f"/campaigns/{demo_id}/history?since=2026-12-02").text
    assert "loaded the demo campaign" not in later.split('id="changes-since"')[1]


def test_the_chart_draws_the_projection_after_each_change_and_the_measured_runs(client, app, demo_id, clock):
    clock.advance(days=1)
    measure(client, demo_id, 12.5)
    clock.advance(days=1)
    measure(client, demo_id, 30, kind="gate check")
    page = client.get(f"/campaigns/{demo_id}/history").text
    chart = re.search(r'<svg[^>]*id="timeline-0".*?</svg>', page, re.S).group(0)
    assert "<title" in chart and "<desc" in chart
    p50s = [float(v) for v in re.findall(r'class="point projected"[^>]*data-p50="([^"]+)"', chart)]
    # the demo, the baseline, the gate check (which moves nothing) and the plan now
    assert len(p50s) == 4 and p50s[1] == p50s[2] == p50s[3] > p50s[0]
    assert abs(p50s[-1] - final_p50(client, demo_id)) <= 1e-3 * p50s[-1]
    measured = sorted(float(v) for v in re.findall(r'class="run measured"[^>]*data-value="([^"]+)"', chart))
    assert measured == [10.0, 12.5, 30.0]


def test_a_bad_date_is_refused_at_its_field(client, demo_id):
    response = client.get(f"/campaigns/{demo_id}/history?since=last-week")
    assert response.status_code == 422
    field = re.search(r'<div class="field has-error">.*?</div>', response.text, re.S).group(0)
    assert "is not a date: write it as 2026-12-01" in html.unescape(field) and 'aria-invalid="true"' in field


def test_two_snapshots_and_two_campaigns_side_by_side(client, app, demo_id, clock):
    clock.advance(days=1)
    measure(client, demo_id, 12.5)
    first = snapshots(app)[0].id
    page = client.get(f"/campaigns/{demo_id}/compare?other=snapshot-{first}").text
    table = text(re.search(r'<section class="card compare" data-regime="batch 1">.*?</section>', page, re.S).group(0))
    assert "baseline 12.5 tok/s 10.0 tok/s 0.800x" in table
    assert "after C" in table and "P(target) after C" in table
    head = text(re.search(r'<section class="card compare" data-regime="batch 1">.*?</thead>', page, re.S).group(0))
    assert head == f"batch 1 now {snapshots(app)[0].taken_at:%Y-%m-%d %H:%M} UTC right / left"  # which side is which
    other = client.post("/api/campaigns", json={"name": "empty", "gpu_count": 1}).json()["id"]
    page = client.get(f"/campaigns/{demo_id}/compare?other=campaign-{other}").text
    assert "Only the left plan (DeepSeek-V4-Flash on 8x RTX PRO 6000 Blackwell, as it stands) has this regime." in page
    refused = client.get(f"/campaigns/{demo_id}/compare?other=nothing")
    assert refused.status_code == 422 and "neither a campaign nor a snapshot" in refused.text
    assert client.get(f"/campaigns/{demo_id}/compare?other=snapshot-999").status_code == 404


def test_the_api_gives_the_history_as_stored(client, app, demo_id, clock):
    clock.advance(days=1)
    measure(client, demo_id, 12.5)
    history = client.get(f"/api/campaigns/{demo_id}/snapshots").json()
    assert [s["cause"] for s in history][1] == "measured output throughput = 12.5 tok/s of batch 1 (baseline)"
    batch1 = next(r for r in history[-1]["regimes"] if r["regime"] == "batch 1")
    assert batch1["baseline_tok_s"] == 12.5 and [t["tier"] for t in batch1["tiers"]] == ["A", "B", "C"]
    assert abs(batch1["tiers"][-1]["p50_tok_s"] - final_p50(client, demo_id)) <= 1e-3 * batch1["tiers"][-1]["p50_tok_s"]
    assert client.get("/api/campaigns/999/snapshots").status_code == 404

"""The schedule on the pages and the API: who does which intervention, and slips against the tier's first
schedule."""

import html
import re

import pytest

HTMX = {"HX-Request": "true"}


def plan(client, campaign_id):
    return client.get(f"/api/campaigns/{campaign_id}/plan").json()


def test_the_first_schedule_is_kept_and_a_slip_against_it_is_said(client, demo_id):
    first = {t["tier"]: t for t in plan(client, demo_id)["schedule"]}
    assert all(t["first_done_p50"] == t["done_p50"] and t["slip_working_days"] == 0 for t in first.values())
    b1 = next(i for i in client.get(f"/api/campaigns/{demo_id}/interventions").json() if i["key"] == "B1")
    longer = client.patch(f"/api/campaigns/{demo_id}/interventions/{b1['id']}", json={
        "effort_low_days": b1["effort_low_days"] + 10, "effort_likely_days": b1["effort_likely_days"] + 10,
        "effort_high_days": b1["effort_high_days"] + 10})
    assert longer.status_code == 200, longer.text
    now = {t["tier"]: t for t in plan(client, demo_id)["schedule"]}
    assert now["B"]["first_done_p50"] == first["B"]["done_p50"]  # the first schedule stays
    assert now["B"]["slip_working_days"] >= 9  # ten more days of B1's work, one person: about ten working days
    assert now["A"]["slip_working_days"] == 0
    page = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", client.get(f"/campaigns/{demo_id}").text)).split())
    days = now["B"]["slip_working_days"]
    assert f"first scheduled {first['B']['done_p50']} P50: {days} working days later" in page
    assert f"first scheduled {first['B']['done_p50']} P50" in client.get(f"/campaigns/{demo_id}/roadmap.md").text
    history = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", client.get(f"/campaigns/{demo_id}/history").text)).split())
    assert f"B {first['B']['done_p50']} {now['B']['done_p50']} +{days} " in history


def test_work_assigned_to_one_person_is_done_one_after_the_other(client, demo_id):
    """A team of two: unassigned, independent work runs side by side; all of it assigned to Ann, it runs in a row,
    as with one person."""
    settings = {"name": "demo", "gpu_count": "8", "seed": "20261202", "samples": "10000", "team_size": "2"}
    assert client.post(f"/campaigns/{demo_id}/edit", data=settings, headers=HTMX).status_code == 204
    two = {p["tier"]: p for p in plan(client, demo_id)["regimes"][0]["projections"]}
    for intervention in client.get(f"/api/campaigns/{demo_id}/interventions").json():
        changed = client.patch(f"/api/campaigns/{demo_id}/interventions/{intervention['id']}", json={"assignee": "Ann"})
        assert changed.status_code == 200, changed.text
    ann = {p["tier"]: p for p in plan(client, demo_id)["regimes"][0]["projections"]}
    assert ann["C"]["done_p50_days"] > two["C"]["done_p50_days"]
    assert ann["C"]["done_p50_days"] == pytest.approx(ann["C"]["effort_p50_days"], rel=0.02)  # in a row
    form = client.get(f"/campaigns/{demo_id}/interventions/1/edit").text
    assert 'name="assignee"' in form and 'value="Ann"' in form

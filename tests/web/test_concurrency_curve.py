"""The concurrency curve of the demo and targets stated per user: page, export and API."""

import html
import re

import pytest


def text_of(page: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page)))


def test_the_demo_curve_says_where_1000_tok_s_fits_the_ceiling_and_that_the_plan_does_not_reach_it(client, demo_id):
    plan = client.get(f"/api/campaigns/{demo_id}/plan").json()
    curve = plan["concurrency_curve"]
    points = {p["concurrency"]: p for p in curve["points"]}
    # the ceiling holds 1,000 tok/s from the first power of two where it is at least that
    first = min(c for c, p in points.items() if p["ceiling_tok_s"] >= 1000)
    assert [r["within_ceiling_from"] for r in curve["reaches"]] == [first, first] == [4, 4]
    assert all(r["plan_reaches_from"] is None for r in curve["reaches"])
    assert points[16]["tok_s"]["C"] == pytest.approx(plan["regimes"][1]["projections"][-1]["tok_s"])
    assert points[64]["tok_s"]["C"] is None and max(points) == curve["kv_fit_concurrency"]
    page = text_of(client.get(f"/campaigns/{demo_id}").text)
    assert ("batch 1 and concurrency 16's target: 1,000 tok/s aggregate, within the hardware ceiling from "
            "concurrency 4; the plan reaches it nowhere the regimes span (concurrency 1 to 16)") in page
    assert "aggregate: 62.5 tok/s per user, TPOT 16.0 ms at concurrency 16; stated as the aggregate" in page
    assert f"the KV cache of up to {curve['kv_fit_concurrency']:,} sequences fits beside the weights" in page
    assert "## Concurrency curve" in client.get(f"/campaigns/{demo_id}/roadmap.md").text


def test_a_target_stated_per_user_asks_more_as_the_concurrency_grows(client, demo_id):
    """Concurrency 16's 1,000 tok/s stated per user: 62.5 tok/s each, so 250 tok/s at concurrency 4 and 4,000 at 64;
    the two regimes no longer share one target."""
    changed = client.patch(f"/api/campaigns/{demo_id}/regimes/2", json={"target_kind": "per_user"})
    assert changed.status_code == 200, changed.text
    plan = client.get(f"/api/campaigns/{demo_id}/plan").json()
    assert plan["regimes"][1]["target_kind"] == "per_user"
    assert plan["regimes"][1]["target_per_user_tok_s"] == pytest.approx(62.5)
    reach = plan["concurrency_curve"]["reaches"][1]
    points = {p["concurrency"]: p for p in plan["concurrency_curve"]["points"]}
    asks = {c: 62.5 * c for c in points}
    assert reach["within_ceiling_from"] == min(c for c, p in points.items() if p["ceiling_tok_s"] >= asks[c]) == 1
    page = text_of(client.get(f"/campaigns/{demo_id}").text)
    assert "concurrency 16's target: 62.5 tok/s per user, within the hardware ceiling from concurrency 1" in page
    assert "batch 1's target: 1,000 tok/s aggregate" in page
    assert "stated per user" in page


def test_the_target_kind_is_one_of_three(client, demo_id):
    bad = client.patch(f"/api/campaigns/{demo_id}/regimes/2", json={"target_kind": "per_gpu"})
    assert bad.status_code == 422 and "target_kind" in bad.text
    form = client.get(f"/campaigns/{demo_id}/regimes/2/edit").text
    assert 'name="target_kind"' in form and "tok/s per user" in form

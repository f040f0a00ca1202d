"""The plan page's layout: a head that states each regime's best projection against target and ceiling and the
next gate, tiers with their progress, long sections folded; a measurement updates the head and the tier."""

import html
import re

HTMX = {"HX-Request": "true"}


def tile(page: str, regime: str) -> str:
    return html.unescape(re.search(rf'<article class="tile \w+" data-regime="{regime}">.*?</article>', page, re.S)
                         .group(0))


def text(fragment: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", fragment).split())


def test_the_head_states_the_best_projection_with_its_band_target_ceiling_and_verdict(client, demo_id):
    page = client.get(f"/campaigns/{demo_id}").text
    plan = client.get(f"/api/campaigns/{demo_id}/plan").json()
    batch1 = next(r for r in plan["regimes"] if r["name"] == "batch 1")
    final = batch1["projections"][-1]
    head = text(tile(page, "batch 1"))
    # the API's figures written as the tables write them: 157.7 tok/s after C, P10-P90 93.0-268, 575.9 ceiling
    assert batch1["verdict"] == "short by 6.34x" and batch1["verdict"] in head
    assert "158 tok/s after C" in head and "P10–P90 93.0–268 tok/s" in head and "P(target) 0%" in head
    assert round(final["tok_s"]) == 158 and round(final["p90_tok_s"]) == 268 and round(final["p10_tok_s"], 1) == 93.0
    assert "target 1,000 tok/s" in head and "ceiling 576 tok/s" in head and "baseline 10.0 tok/s" in head
    assert "Target 1.74x above the hardware ceiling: not reachable" in head
    assert 'class="tile short"' in page


def test_the_head_names_the_next_gate_and_moves_on_when_it_passes(client, demo_id):
    page = client.get(f"/campaigns/{demo_id}").text
    nxt = text(re.search(r'<article class="tile next-gate".*?</article>', page, re.S).group(0))
    assert "Tier A · batch 1 output throughput >= 40.0 tok/s pending" in html.unescape(nxt)
    response = client.post(f"/campaigns/{demo_id}/measurements", headers=HTMX, data={
        "regime": "batch 1", "metric": "output_tok_s", "value": "45", "kind": "gate check", "includes_given": "1"})
    assert response.status_code == 200
    # the head and the tier's status are sent again out of band, the next gate now the time per token one
    head = re.search(r'<section class="summary" id="verdicts"[^>]*hx-swap-oob="true".*?</section>', response.text, re.S)
    assert head and "mean time per output token &lt;= 25.0 ms" in head.group(0)
    status = re.search(r'<div class="tier-status" id="tier-status-1" hx-swap-oob="true">.*?</div>', response.text,
                       re.S)
    assert status and "pending · 1 of 3 hard gates pass" in status.group(0)


def test_tiers_show_their_gate_badge_and_progress(client, demo_id):
    page = client.get(f"/campaigns/{demo_id}").text
    status = re.search(r'<div class="tier-status" id="tier-status-1">.*?</div>', page, re.S).group(0)
    assert 'data-state="pending"' in status and "0 of 3 hard gates pass" in status
    assert 'aria-label="0 of 2 landed, 0 validated"' in status
    client.patch(f"/api/campaigns/{demo_id}/interventions/1", json={"status": "landed"})
    status = re.search(r'<div class="tier-status" id="tier-status-1">.*?</div>',
                       client.get(f"/campaigns/{demo_id}").text, re.S).group(0)
    assert 'aria-label="1 of 2 landed, 0 validated"' in status and 'class="progress-landed" style="width: 50.0%"' in status


def test_long_sections_are_folded_behind_their_headings_and_print_opens_them(client, demo_id):
    page = client.get(f"/campaigns/{demo_id}").text
    for fold in ("fold-order", "fold-calibration", "fold-what-if", "fold-assumptions"):
        assert re.search(rf'<details class="card fold" id="{fold}">\s*<summary><h2>', page), fold
    assert 'id="suggested-order"' in page and 'id="assumptions"' in page
    css = client.get("/static/app.css").text
    assert "@media print" in css and ".plan-side" in css.split("@media print")[-1]
    assert "beforeprint" in client.get("/static/app.js").text


def test_the_assumptions_read_like_the_rest_of_the_page(client, demo_id):
    """Each assumed figure in words: a spec figure by its label, speculative decoding with the draft cost the
    hardware model gives (the demo has its specs), never a field name."""
    page = html.unescape(client.get(f"/campaigns/{demo_id}").text)
    assumed = text(re.search(r'<div[^>]*id="assumptions".*?</ul>\s*</div>', page, re.S).group(0))
    assert "hardware spec: scaling efficiency: assumed" in assumed and "scaling_efficiency" not in assumed
    assert "adds, by the hardware model, 0.746 ms in batch 1" in assumed and "enter the specs" not in assumed
    specs = html.unescape(client.get(f"/campaigns/{demo_id}/specs").text)
    assert "memory bandwidth: NVIDIA RTX PRO 6000 Blackwell datasheet" in specs and "bandwidth_gb_s:" not in specs

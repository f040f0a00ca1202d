"""Inline editing on the plan page: the small form of one value, its save (the moved blocks out of band, the
plan recomputed), its 422 and 409 with the messages at the fields and nothing written, and the fallbacks."""

import html
import re

HTMX = {"HX-Request": "true"}


def oob_ids(body: str) -> list[str]:
    return re.findall(r'<\w+ [^>]*?id="([\w-]+)"[^>]*hx-swap-oob="true"', body)


def text(fragment: str) -> str:
    return html.unescape(" ".join(re.sub(r"<[^>]+>", " ", fragment).split()))


def test_every_editable_value_on_the_plan_opens_its_own_small_form(client, demo_id):
    page = client.get(f"/campaigns/{demo_id}").text
    cells = re.findall(r'<span class="editable" id="(inline-(\w+)-(\d+)-(\w+))"><a class="editable-value" href="([^"]+)"',
                       page)
    kinds = {kind for _, kind, _, _, _ in cells}
    assert kinds == {"regimes", "interventions", "effects", "gates"}  # the demo has no objective yet
    for cell, kind, row_id, group, href in cells:
        assert href == f"/campaigns/{demo_id}/{kind}/{row_id}/edit"  # without JavaScript: the full form
        form = client.get(f"/campaigns/{demo_id}/{kind}/{row_id}/inline/{group}", headers=HTMX)
        assert form.status_code == 200, cell
        assert f'<form class="value-form" id="{cell}"' in form.text
        assert 'name="version"' in form.text
        labels = re.findall(r'<label for="(f-[\w-]+)"', form.text)
        inputs = re.findall(r'<(?:input|select) id="(f-[\w-]+)"', form.text)
        assert labels == inputs and labels and all(i.startswith(f"f-{cell}-") for i in inputs)  # ids unique on the page


def test_an_inline_save_recomputes_the_plan_and_sends_only_what_moved(client, demo_id):
    plan = client.get(f"/api/campaigns/{demo_id}/plan").json()
    before = next(r for r in plan["regimes"] if r["name"] == "concurrency 16")["projections"][0]["tok_s"]
    effect = client.get(f"/api/campaigns/{demo_id}/effects/2").json()  # A1: dense_gemm 1.5x in concurrency 16
    response = client.post(f"/campaigns/{demo_id}/effects/2/inline/estimate", headers=HTMX, data={
        "speedup_low": "1.5", "speedup_likely": "2", "speedup_high": "2.5", "provenance": "measured",
        "version": effect["version"]})
    assert response.status_code == 200 and response.headers["HX-Reswap"] == "none"
    moved = oob_ids(response.text)
    assert "interventions-1" in moved and "regime-2" in moved and "verdicts" in moved
    assert "regime-1" not in moved  # batch 1 does not have this effect: its card is not sent again
    shown = re.search(r'<span class="editable" id="inline-effects-2-estimate">.*?</a></span>', response.text, re.S)
    assert "dense_gemm 2x (1.5–2.5x) faster in concurrency 16 measured" in text(shown.group(0))
    after = client.get(f"/api/campaigns/{demo_id}/plan").json()
    now = next(r for r in after["regimes"] if r["name"] == "concurrency 16")["projections"][0]["tok_s"]
    assert now > before
    stored = client.get(f"/api/campaigns/{demo_id}/effects/2").json()
    assert stored["speedup_likely"] == 2 and stored["provenance"] == "measured"
    assert stored["regime_ids"] == effect["regime_ids"] and stored["bucket"] == effect["bucket"]  # the rest kept
    assert "updated effect" in client.get(f"/campaigns/{demo_id}/history").text


def test_a_wrong_value_gets_its_message_at_the_field_and_nothing_is_written(client, demo_id):
    gate = client.get(f"/api/campaigns/{demo_id}/gates/1").json()
    response = client.post(f"/campaigns/{demo_id}/gates/1/inline/threshold", headers=HTMX,
                           data={"threshold": "-4", "provenance": "measured", "version": gate["version"]})
    assert response.status_code == 422
    assert 'class="field has-error" data-field="threshold"' in response.text
    assert 'value="-4"' in response.text  # what was typed stays
    assert "Threshold: output throughput &gt;=, in tok/s" in response.text  # the small form says what it compares
    assert re.search(r'id="error-inline-gates-1-threshold-threshold">[^<]*0', response.text)
    assert client.get(f"/api/campaigns/{demo_id}/gates/1").json() == gate


def test_a_save_over_a_newer_version_is_refused_with_both_values(client, demo_id):
    old = client.get(f"/api/campaigns/{demo_id}/interventions/2").json()
    client.patch(f"/api/campaigns/{demo_id}/interventions/2", json={"status": "in progress"})
    response = client.post(f"/campaigns/{demo_id}/interventions/2/inline/status", headers=HTMX,
                           data={"status": "landed", "version": old["version"]})
    assert response.status_code == 409
    assert "Someone saved this after you opened it" in response.text
    assert "<td>in progress</td><td>landed</td>" in response.text
    assert f'name="version" value="{old["version"] + 1}"' in response.text  # saving again applies it
    assert client.get(f"/api/campaigns/{demo_id}/interventions/2").json()["status"] == "in progress"


def test_cancel_shows_the_value_again_and_the_fallbacks_without_htmx(client, demo_id):
    cancel = client.get(f"/campaigns/{demo_id}/regimes/1/inline/target?cancel=1", headers=HTMX)
    assert cancel.status_code == 200 and oob_ids(cancel.text) == ["verdicts"]
    assert 'id="inline-regimes-1-target"' in cancel.text and "value-form" not in cancel.text
    plain = client.get(f"/campaigns/{demo_id}/regimes/1/inline/target", follow_redirects=False)
    assert plain.status_code == 303 and plain.headers["location"] == f"/campaigns/{demo_id}/regimes/1/edit"
    regime = client.get(f"/api/campaigns/{demo_id}/regimes/1").json()
    saved = client.post(f"/campaigns/{demo_id}/regimes/1/inline/target", follow_redirects=False,
                        data={"target_tok_s": "500", "target_provenance": "assumed", "version": regime["version"]})
    assert saved.status_code == 303 and saved.headers["location"] == f"/campaigns/{demo_id}"
    refused = client.post(f"/campaigns/{demo_id}/regimes/1/inline/target",
                          data={"target_tok_s": "fast", "target_provenance": "assumed", "version": regime["version"] + 1})
    assert refused.status_code == 422 and "<html" in refused.text  # the row's full form page, with the message
    assert 'class="field has-error" data-field="target_tok_s"' in refused.text
    assert client.get(f"/api/campaigns/{demo_id}/regimes/1").json()["target_tok_s"] == 500


def test_unknown_values_rows_and_campaigns_are_404(client, demo_id):
    assert client.get(f"/campaigns/{demo_id}/regimes/1/inline/name", headers=HTMX).status_code == 404
    assert client.get(f"/campaigns/{demo_id}/tiers/1/inline/status", headers=HTMX).status_code == 404
    assert client.get(f"/campaigns/{demo_id}/gates/999/inline/threshold", headers=HTMX).status_code == 404
    assert client.post(f"/campaigns/{demo_id}/things/1/inline/status", headers=HTMX, data={}).status_code == 404
    assert client.get(f"/campaigns/{demo_id + 1}/gates/1/inline/threshold", headers=HTMX).status_code == 404


def test_an_objectives_threshold_is_edited_in_place_and_the_capacity_block_comes_back(client, demo_id):
    slo = client.post(f"/api/campaigns/{demo_id}/slos", json={"metric": "p99_ttft_ms", "comparator": "<=",
                                                              "threshold": 2000, "provenance": "reported"})
    assert slo.status_code == 201, slo.text
    slo = slo.json()
    cell = f"inline-slos-{slo['id']}-threshold"
    assert f'id="{cell}"' in client.get(f"/campaigns/{demo_id}").text
    response = client.post(f"/campaigns/{demo_id}/slos/{slo['id']}/inline/threshold", headers=HTMX,
                           data={"threshold": "1500", "provenance": "measured", "version": slo["version"]})
    assert response.status_code == 200 and "capacity" in oob_ids(response.text)
    shown = re.search(rf'<span class="editable" id="{cell}">.*?</a></span>', response.text, re.S).group(0)
    assert "1,500 ms" in text(shown) and "measured" in text(shown)
    assert client.get(f"/api/campaigns/{demo_id}/slos/{slo['id']}").json()["threshold"] == 1500


def test_a_value_the_plan_does_not_show_still_saves_and_answers_200(client, demo_id):
    loose = client.post(f"/api/campaigns/{demo_id}/interventions", json={
        "key": "X9", "title": "not in a tier yet", "effort_low_days": 1, "effort_likely_days": 2,
        "effort_high_days": 3}).json()
    response = client.post(f"/campaigns/{demo_id}/interventions/{loose['id']}/inline/status", headers=HTMX,
                           data={"status": "in progress", "version": loose["version"]})
    assert response.status_code == 200 and f"inline-interventions-{loose['id']}-status" not in response.text
    assert client.get(f"/api/campaigns/{demo_id}/interventions/{loose['id']}").json()["status"] == "in progress"


def test_on_a_regimes_page_the_target_is_edited_in_place_and_the_page_loads_again(client, demo_id):
    page = client.get(f"/campaigns/{demo_id}/regimes/2").text
    assert '<span class="editable" id="inline-regimes-2-target">' in page
    elsewhere = HTMX | {"HX-Current-URL": f"http://testserver/campaigns/{demo_id}/regimes/2"}
    regime = client.get(f"/api/campaigns/{demo_id}/regimes/2").json()
    saved = client.post(f"/campaigns/{demo_id}/regimes/2/inline/target", headers=elsewhere,
                        data={"target_tok_s": "800", "target_provenance": "assumed", "version": regime["version"]})
    assert saved.status_code == 200 and saved.headers["HX-Refresh"] == "true"  # the plan's blocks are not there
    assert "target 800 tok/s" in text(client.get(f"/campaigns/{demo_id}/regimes/2").text)
    cancel = client.get(f"/campaigns/{demo_id}/regimes/2/inline/target?cancel=1", headers=elsewhere)
    assert cancel.headers["HX-Refresh"] == "true"
    refused = client.post(f"/campaigns/{demo_id}/regimes/2/inline/target", headers=elsewhere,
                          data={"target_tok_s": "0", "target_provenance": "assumed", "version": regime["version"] + 1})
    assert refused.status_code == 422 and "HX-Refresh" not in refused.headers  # the small form, with its message

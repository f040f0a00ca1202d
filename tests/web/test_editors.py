"""The create / edit forms of regimes, tiers, interventions, effects, gates and profiles."""

import html
import re

import pytest

from tests.unit.test_spec_decode_load import v4_floor

HTMX = {"HX-Request": "true"}


def plan_json(client, campaign_id):
    return client.get(f"/api/campaigns/{campaign_id}/plan").json()


def test_every_new_form_renders(client, demo_id):
    for kind in ("regimes", "tiers", "interventions", "effects", "gates"):
        page = client.get(f"/campaigns/{demo_id}/{kind}/new")
        assert page.status_code == 200, kind
        assert "<form" in page.text


def test_every_edit_form_shows_the_stored_values(client, demo_id):
    assert 'value="SM120 FP8 GEMM autotune configs"' in client.get(f"/campaigns/{demo_id}/interventions/1/edit").text
    assert 'value="4.8"' in client.get(f"/campaigns/{demo_id}/effects/1/edit").text
    assert 'value="40"' in client.get(f"/campaigns/{demo_id}/gates/1/edit").text
    assert 'value="Claim existing upstream wins"' in client.get(f"/campaigns/{demo_id}/tiers/1/edit").text
    assert 'value="batch 1"' in client.get(f"/campaigns/{demo_id}/regimes/1/edit").text
    assert "attention 63% reported" in client.get(f"/campaigns/{demo_id}/regimes/1/profile").text


def test_editing_an_effect_changes_the_projection(client, demo_id):
    form = {"intervention_id": "1", "kind": "step", "bucket": "", "speedup_low": "2", "speedup_likely": "2",
            "speedup_high": "2", "regime_ids": ["1"], "provenance": "measured", "note": ""}
    response = client.post(f"/campaigns/{demo_id}/effects/1/edit", data=form, headers=HTMX)
    assert response.status_code == 204 and response.headers["HX-Redirect"] == f"/campaigns/{demo_id}"
    after_a = plan_json(client, demo_id)["regimes"][0]["projections"][0]
    # A2 is MTP speculative decoding: E = 1 + 0.7 from the 50 ms step plus the GPU time of verifying 2 tokens
    assert after_a["tok_s"] == pytest.approx(1000 * 1.7 / (50 + v4_floor(1).verify_added_ms(1)), rel=1e-3)


def test_a_step_multiplier_without_regimes_is_refused(client, demo_id):
    form = {"intervention_id": "1", "kind": "step", "speedup_low": "2", "speedup_likely": "3", "speedup_high": "4",
            "provenance": "assumed"}
    response = client.post(f"/campaigns/{demo_id}/effects/new", data=form, headers=HTMX)
    assert response.status_code == 422
    assert "name its regimes" in response.text
    assert 'value="3"' in response.text


def test_speedups_out_of_order_are_refused(client, demo_id):
    form = {"intervention_id": "3", "kind": "bucket", "bucket": "attention", "speedup_low": "3",
            "speedup_likely": "2", "speedup_high": "4", "provenance": "assumed"}
    response = client.post(f"/campaigns/{demo_id}/effects/new", data=form, headers=HTMX)
    assert response.status_code == 422 and "low &lt;= likely &lt;= high" in response.text


def test_a_new_intervention_in_tier_a_joins_the_plan(client, demo_id):
    form = {"key": "A3", "title": "CUDA graphs for decode", "tier_id": "1", "status": "proposed",
            "effort_low_days": "1", "effort_likely_days": "2", "effort_high_days": "3", "effort_provenance": "assumed"}
    assert client.post(f"/campaigns/{demo_id}/interventions/new", data=form, headers=HTMX).status_code == 204
    effect = {"intervention_id": "7", "kind": "bucket", "bucket": "other", "speedup_low": "1.5",
              "speedup_likely": "2", "speedup_high": "3", "provenance": "assumed"}
    assert client.post(f"/campaigns/{demo_id}/effects/new", data=effect, headers=HTMX).status_code == 204
    page = client.get(f"/campaigns/{demo_id}").text
    assert "CUDA graphs for decode" in page and "other 2x (1.5–3x) faster in every regime" in page


def test_a_duplicate_intervention_key_is_refused_next_to_the_field(client, demo_id):
    form = {"key": "A1", "title": "again", "status": "proposed", "effort_low_days": "1",
            "effort_likely_days": "1", "effort_high_days": "1", "effort_provenance": "assumed"}
    response = client.post(f"/campaigns/{demo_id}/interventions/new", data=form, headers=HTMX)
    assert response.status_code == 422
    assert "is already the key of another intervention" in html.unescape(response.text)


def test_a_gate_can_be_added_and_is_pending_until_measured(client, demo_id):
    form = {"tier_id": "1", "regime_id": "2", "metric": "ttft_ms", "comparator": "<=", "threshold": "900",
            "provenance": "assumed"}
    assert client.post(f"/campaigns/{demo_id}/gates/new", data=form, headers=HTMX).status_code == 204
    gates = plan_json(client, demo_id)["gates"]
    assert {"tier": "A", "regime": "concurrency 16", "metric": "ttft_ms", "status": "pending"}.items() <= gates[-1].items()


def test_starting_a_tier_lets_its_gates_judge_new_measurements(client, demo_id):
    form = {"key": "B", "name": "Custom kernels", "position": "1", "started_at": "2026-11-30T09:00"}
    assert client.post(f"/campaigns/{demo_id}/tiers/2/edit", data=form, headers=HTMX).status_code == 204
    body = {"regime": "batch 1", "metric": "output_tok_s", "value": 120, "kind": "gate check"}
    refused = client.post(f"/api/campaigns/{demo_id}/measurements", json=body)
    assert refused.status_code == 409 and "12 times the current baseline" in refused.json()["errors"]["value"]
    assert client.post(f"/api/campaigns/{demo_id}/measurements", json={**body, "confirm": True}).status_code == 201
    statuses = {(g["tier"], g["regime"], g["metric"]): g["status"] for g in plan_json(client, demo_id)["gates"]}
    assert statuses[("B", "batch 1", "output_tok_s")] == "pass"


def test_a_bad_regime_form_is_refused(client, demo_id):
    form = {"name": "batch 1", "concurrency": "0", "input_tokens": "x", "output_tokens": "128",
            "target_tok_s": "-1", "target_provenance": "reported"}
    response = client.post(f"/campaigns/{demo_id}/regimes/new", data=form, headers=HTMX)
    assert response.status_code == 422
    text = html.unescape(response.text)
    assert "must be at least 1" in text and "must be a whole number" in text and "must be greater than 0" in text


def test_a_profile_line_that_does_not_parse_names_its_line(client, demo_id):
    data = {"shares": "attention 0.5 measured\nmoe: lots", "source": "nsys"}
    response = client.post(f"/campaigns/{demo_id}/regimes/1/profile", data=data, headers=HTMX)
    assert response.status_code == 422 and "line 2" in response.text
    assert "moe: lots" in response.text


def test_every_wrong_profile_line_is_named_not_only_the_first(client, demo_id):
    data = {"shares": "attention 150%\nmoe 0.2 guessed\nmoe 0.1\nother: lots", "source": "nsys"}
    response = client.post(f"/campaigns/{demo_id}/regimes/1/profile", data=data, headers=HTMX)
    error = html.unescape(re.search(r'<p class="error" id="error-shares">(.*?)</p>', response.text, re.S).group(1))
    assert response.status_code == 422
    assert error.startswith("line 1: a share must lie between 0 and 1") and "line 2: 'guessed' is not one of" in error
    assert "line 4: expected 'bucket share [provenance]', got 'other: lots'" in error


def test_a_new_profile_replaces_the_split_and_fills_other(client, demo_id):
    data = {"shares": "attention 40% measured\nmoe 0.3 measured", "source": "nsys run 2026-12-01"}
    response = client.post(f"/campaigns/{demo_id}/regimes/1/profile", data=data, follow_redirects=False)
    assert response.status_code == 303
    page = client.get(f"/campaigns/{demo_id}/regimes/1").text
    assert "nsys run 2026-12-01" in page and "30%" in page


def test_deleting_an_effect_removes_it_from_the_plan(client, demo_id):
    response = client.post(f"/campaigns/{demo_id}/effects/1/delete", follow_redirects=False)
    assert response.status_code == 303
    after_a = plan_json(client, demo_id)["regimes"][0]["projections"][0]
    # only A2's speculative decoding remains: 1.7 tokens from the 100 ms step plus its verify time
    assert after_a["tok_s"] == pytest.approx(1000 * 1.7 / (100 + v4_floor(1).verify_added_ms(1)), rel=1e-3)


def test_rows_of_another_campaign_are_not_found(client, demo_id):
    client.post("/campaigns", data={"name": "other", "gpu_count": "1"})
    assert client.get("/campaigns/2/effects/1/edit").status_code == 404
    assert client.get(f"/campaigns/{demo_id}/widgets/new").status_code == 404


@pytest.mark.parametrize("kind", ["regimes", "tiers", "interventions", "effects", "gates"])
def test_a_new_form_starts_from_the_model_defaults_and_leaves_required_fields_blank(client, demo_id, kind):
    page = client.get(f"/campaigns/{demo_id}/{kind}/new")
    assert page.status_code == 200 and "PydanticUndefined" not in page.text


def field_errors(text: str) -> dict[str, str]:
    """The message under each field of a re-rendered form, by field name."""
    chunks = re.split(r'(?=<div class="field[^"]*" data-field=)', text)
    out = {}
    for chunk in chunks:
        name = re.search(r'data-field="([^"]+)"', chunk)
        error = re.search(r'class="error"[^>]*>([^<]*)<', chunk)
        if name and error:
            out[name.group(1)] = html.unescape(error.group(1))
    return out


SPEC = {"intervention_id": "2", "kind": "spec_decode", "provenance": "assumed"}


@pytest.mark.parametrize(("form", "where", "says"), [
    ({"intervention_id": "3", "kind": "bucket", "speedup_low": "2", "speedup_likely": "2", "speedup_high": "3"},
     "bucket", "needs the bucket"),
    ({"intervention_id": "3", "kind": "bucket", "bucket": "moe", "speedup_likely": "2"}, "speedup_low",
     "low, likely and high"),
    ({"intervention_id": "3", "kind": "time_saved", "regime_ids": "1"}, "saved_ms_likely", "required"),
    (SPEC | {"acceptance_low": "0.5", "acceptance_likely": "0.7", "acceptance_high": "0.8"}, "draft_tokens",
     "draft length"),
    (SPEC | {"draft_tokens": "1", "acceptance_low": "0.5", "acceptance_likely": "0.9", "acceptance_high": "1.2"},
     "acceptance_high", "at most 1"),  # a rate's bound, at the field
    (SPEC | {"draft_tokens": "3", "acceptance_per_position": "0.8, 0.6"}, "acceptance_per_position", "give 3 rates"),
    (SPEC | {"draft_tokens": "2", "acceptance_per_position": "0.8, x"}, "acceptance_per_position",
     "comma-separated"),
    ({"intervention_id": "3", "kind": "launch_overhead", "removed_low": "0.9", "removed_likely": "1",
      "removed_high": "1.5"}, "removed_high", "at most 1"),
])
def test_the_cores_objection_to_an_effect_shows_at_the_field_it_names(client, demo_id, form, where, says):
    response = client.post(f"/campaigns/{demo_id}/effects/new", data={"provenance": "assumed"} | form, headers=HTMX)
    assert response.status_code == 422
    errors = field_errors(response.text)
    assert where in errors and says in errors[where], errors


def test_a_dense_model_with_fewer_active_than_total_parameters_is_refused_at_the_experts(client, demo_id):
    form = {"name": "dense 8B", "total_params_b": "8", "active_params_b": "7", "layers": "32", "routed_experts": "0",
            "experts_per_token": "0", "shared_experts": "0", "dense_bytes_per_weight": "2",
            "expert_bytes_per_weight": "2", "kv_bytes_per_token": "131072", "compute_dtype": "bf16",
            "provenance": "reported"}
    response = client.post(f"/campaigns/{demo_id}/specs/model", data=form, headers=HTMX)
    assert response.status_code == 422
    assert "active = total" in field_errors(response.text)["routed_experts"]
    api = client.put(f"/api/campaigns/{demo_id}/specs/model", json=form)
    assert api.status_code == 422 and "active = total" in api.json()["errors"]["routed_experts"]


def test_saving_a_form_unchanged_keeps_every_digit_of_its_numbers(client, demo_id):
    """The model spec holds 0.53125 bytes an expert weight: the form shows all of it, so saving it changes nothing."""
    before = client.get(f"/api/campaigns/{demo_id}/specs/model").json()
    page = client.get(f"/campaigns/{demo_id}/specs/model").text
    assert 'value="0.53125"' in page
    values = dict(re.findall(r'<input[^>]*name="(\w+)"[^>]*value="([^"]*)"', page))
    values |= {"compute_dtype": before["compute_dtype"], "provenance": before["provenance"], "sources": before["sources"]}
    assert client.post(f"/campaigns/{demo_id}/specs/model", data=values).status_code in (200, 303)
    after = client.get(f"/api/campaigns/{demo_id}/specs/model").json()
    assert after == before


def test_an_effect_on_a_bucket_no_profile_has_is_saved_and_said_so_at_its_field(client, demo_id):
    form = {"intervention_id": "1", "kind": "bucket", "bucket": "sampling", "speedup_low": "1.5",
            "speedup_likely": "2", "speedup_high": "3", "provenance": "assumed", "regime_ids": ["1"]}
    response = client.post(f"/campaigns/{demo_id}/effects/new", data=form, headers=HTMX)
    assert response.status_code == 204
    edit_url = response.headers["HX-Redirect"]
    assert edit_url.endswith("/edit?saved=1")  # back at the form, not the plan
    page = client.get(edit_url).text
    warning = re.search(r'<p class="warning" id="warning-bucket">(.*?)</p>', page, re.S).group(1)
    assert "none of its regimes (batch 1) has step time in a &#39;sampling&#39; bucket: this effect changes nothing" in warning
    assert "batch 1&#39;s profile has attention, moe" in warning and 'aria-describedby="warning-bucket"' in page
    assert "Saved, and the plan recomputed" in page
    plan = client.get(f"/api/campaigns/{demo_id}/plan").json()
    notes = next(r for r in plan["regimes"] if r["name"] == "batch 1")["notes"]
    assert any("no 'sampling' bucket, so that effect is not applied" in n for n in notes)
    form["bucket"] = "moe"
    moved = client.post(edit_url.removesuffix("?saved=1"), data=form, headers=HTMX)
    assert moved.headers["HX-Redirect"] == f"/campaigns/{demo_id}"  # a bucket batch 1 has: straight to the plan
    assert 'class="warning"' not in client.get(edit_url).text


def test_an_effect_that_adds_gpu_work_a_sequence_makes_the_plan_slower_where_it_holds(client, demo_id):
    """A static cache's attention over its whole length: 5 ms more GPU time for each sequence in flight, on top of
    tier A (form fields generated from the kind's inputs; the form explains each with an example)."""
    page = html.unescape(client.get(f"/campaigns/{demo_id}/effects/new").text)
    assert "GPU work a step added or removed" in page and "padding to a captured batch size" in page
    before = plan_json(client, demo_id)["regimes"][1]["projections"][0]
    form = {"intervention_id": "1", "kind": "gpu_work", "gpu_ms_per_seq_low": "3", "gpu_ms_per_seq_likely": "5",
            "gpu_ms_per_seq_high": "8", "regime_ids": ["2"], "provenance": "assumed", "note": "static KV cache"}
    response = client.post(f"/campaigns/{demo_id}/effects/new", data=form, headers=HTMX)
    assert response.status_code == 204, response.text
    after = plan_json(client, demo_id)["regimes"][1]["projections"][0]
    # concurrency 16: 16 x 5 ms = 80 ms more GPU time a step, on a profile without launch counts (shares only)
    assert after["step_ms"] == pytest.approx(before["step_ms"] + 80, rel=1e-6)
    assert after["tok_s"] < before["tok_s"]
    plan = html.unescape(client.get(f"/campaigns/{demo_id}").text)
    assert "GPU work added (negative: removed): 5 ms (3–8 ms) a sequence in flight in concurrency 16" in plan
    missing = dict(form, gpu_ms_per_seq_low="", gpu_ms_per_seq_likely="", gpu_ms_per_seq_high="")
    refused = client.post(f"/campaigns/{demo_id}/effects/new", data=missing, headers=HTMX)
    assert refused.status_code == 422 and "give the GPU time" in field_errors(refused.text)["gpu_ms_likely"]

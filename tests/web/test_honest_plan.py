"""Ceiling, uncertainty, new effect kinds, suggested order and calibration through the pages and the API."""

import html
import math
import re

import pytest

from tests.unit.test_spec_decode_load import v4_floor
from tierplan.planning.ceiling import ModelSpec as ModelShape
from tierplan.planning.spec_break_even import break_even, speedup_at
from tierplan.services.presets import MODEL_PRESETS

HTMX = {"HX-Request": "true"}


def plan_json(client, campaign_id=1):
    return client.get(f"/api/campaigns/{campaign_id}/plan").json()


def test_the_demo_states_its_ceiling_and_says_1000_is_out_of_reach_at_batch_1(client, demo_id):
    plan = plan_json(client, demo_id)
    batch1, c16 = plan["regimes"]
    # 4 decode GPUs x 1,792 GB/s x 0.8; 6.6e9 dense weights at 1 B plus 43 x 6 experts x 25.2e6 at 0.53125 B
    assert batch1["ceiling_tok_s"] == pytest.approx(575.9, abs=0.1)
    assert batch1["ceiling_verdict"].startswith("target 1.74x above the hardware ceiling: not reachable")
    assert c16["ceiling_tok_s"] == pytest.approx(1727, abs=1)
    page = client.get(f"/campaigns/{demo_id}").text
    assert "Target 1.74x above the hardware ceiling: not reachable on this hardware whatever the plan" in page


def test_the_achievable_ceiling_is_the_floor_at_the_best_measured_efficiency_and_the_gap_is_explained(client, demo_id):
    batch1, c16 = plan_json(client, demo_id)["regimes"]
    # the best step is batch 1's: 100 ms against a 1.736 ms floor, 1.74% of it; the ceilings scale by that share
    share = 1000 / 575.9 / 100
    assert batch1["achievable_tok_s"] == pytest.approx(575.9 * share, rel=1e-3) == pytest.approx(10.0, rel=1e-3)
    assert c16["achievable_tok_s"] == pytest.approx(1727 * share, rel=2e-3)
    assert c16["step_vs_floor"].startswith("latency-bound: the step is 75x its floor at concurrency 16")
    # within the physical ceiling, never without how far the plan falls short
    final = c16["projections"][-1]["tok_s"]
    assert c16["ceiling_verdict"].endswith(f"the plan reaches {final:.1f} tok/s, {1000 / final:.1f}x short")


def test_each_tier_step_carries_its_spread_and_probability(client, demo_id):
    step = plan_json(client, demo_id)["regimes"][0]["projections"][0]
    assert step["p10_tok_s"] <= step["p50_tok_s"] <= step["p90_tok_s"]
    assert step["p10_tok_s"] < step["tok_s"] < step["p90_tok_s"]
    assert step["p_target"] == 0.0
    assert step["effort_p50_days"] <= step["effort_p90_days"]


def test_the_same_seed_gives_the_same_plan_and_a_new_seed_moves_the_spread(client, demo_id):
    first = plan_json(client, demo_id)
    assert plan_json(client, demo_id) == first
    form = {"name": "demo", "gpu_count": "8", "seed": "7", "samples": "10000", "apply_calibration": "no"}
    assert client.post(f"/campaigns/{demo_id}/edit", data=form, headers=HTMX).status_code == 204
    second = plan_json(client, demo_id)
    assert second["seed"] == 7
    assert second["regimes"][0]["projections"][0]["p10_tok_s"] != first["regimes"][0]["projections"][0]["p10_tok_s"]
    assert second["regimes"][0]["projections"][0]["tok_s"] == first["regimes"][0]["projections"][0]["tok_s"]


def test_a_spec_decode_effect_entered_in_the_form_matches_the_formula(client, demo_id):
    form = {"intervention_id": "2", "kind": "spec_decode", "draft_tokens": "3", "acceptance_low": "0.7",
            "acceptance_likely": "0.7", "acceptance_high": "0.7", "draft_cost_low": "0.1", "draft_cost_likely": "0.1",
            "draft_cost_high": "0.1", "regime_ids": ["1"], "provenance": "assumed"}
    assert client.post(f"/campaigns/{demo_id}/effects/3/edit", data=form, headers=HTMX).status_code == 204
    after_a = plan_json(client, demo_id)["regimes"][0]["projections"][0]
    # E = (1 - 0.7^4) / 0.3 = 2.533; A1 leaves 100 / 4.8 ms of the 100 ms step, the drafts take 1 + 3 x 0.1 of it,
    # and verifying 4 tokens a sequence adds the hardware model's GPU time besides
    added_ms = v4_floor(1).verify_added_ms(3)
    assert after_a["tok_s"] == pytest.approx(1000 * 2.533 / (100 / 4.8 * 1.3 + added_ms), rel=1e-3)
    page = html.unescape(client.get(f"/campaigns/{demo_id}").text)
    assert (f"E = 2.53 tokens a step, the drafts cost 1.30x a step; verifying 4 tokens a sequence adds, by the "
            f"hardware model, {added_ms:.3g} ms in batch 1 of GPU time to the step") in page
    # where it stops paying counts the drafter's time too (it used to be left out where a draft cost was entered)
    found = break_even("batch 1", v4_floor(1), 100.0, (1 - 0.7 ** 4) / 0.3, 3, draft_cost=0.1)
    without = break_even("batch 1", v4_floor(1), 100.0, (1 - 0.7 ** 4) / 0.3, 3)
    assert found.stops_at is not None and (without.stops_at is None or without.stops_at > found.stops_at)
    assert (f"batch 1; it stops paying at concurrency {found.stops_at:,} (from batch 1's measured step of 100 ms): "
            f"set the engine's disable-by-batch-size (vLLM speculative_config disable_by_batch_size) to "
            f"{found.stops_at - 1:,}") in page


def test_per_position_acceptance_is_taken_as_vllm_reports_it(client, demo_id):
    form = {"intervention_id": "2", "kind": "spec_decode", "draft_tokens": "3",
            "acceptance_per_position": "0.8, 0.6, 0.4", "draft_cost_low": "0.05", "draft_cost_likely": "0.05",
            "draft_cost_high": "0.05", "regime_ids": ["1"], "provenance": "measured"}
    assert client.post(f"/campaigns/{demo_id}/effects/3/edit", data=form, headers=HTMX).status_code == 204
    after_a = plan_json(client, demo_id)["regimes"][0]["projections"][0]
    assert after_a["tok_s"] == pytest.approx(1000 * 2.8 / (100 / 4.8 * 1.15 + v4_floor(1).verify_added_ms(3)), rel=1e-3)


def test_rising_per_position_rates_are_refused_next_to_the_field(client, demo_id):
    form = {"intervention_id": "2", "kind": "spec_decode", "draft_tokens": "2", "acceptance_per_position": "0.5, 0.7",
            "draft_cost_low": "0.1", "draft_cost_likely": "0.1", "draft_cost_high": "0.1", "provenance": "measured"}
    response = client.post(f"/campaigns/{demo_id}/effects/new", data=form, headers=HTMX)
    assert response.status_code == 422
    assert "rates cannot rise" in html.unescape(response.text)


def test_a_time_saved_effect_takes_milliseconds_off_the_step(client, demo_id):
    form = {"intervention_id": "1", "kind": "time_saved", "saved_ms_low": "0.8", "saved_ms_likely": "1.2",
            "saved_ms_high": "1.5", "regime_ids": ["1"], "provenance": "reported", "note": "-0.8 to -1.5 ms TPOT"}
    assert client.post(f"/campaigns/{demo_id}/effects/1/edit", data=form, headers=HTMX).status_code == 204
    after_a = plan_json(client, demo_id)["regimes"][0]["projections"][0]
    # the 100 ms step loses 1.2 ms; then A2 verifies 2 tokens a sequence, adding their GPU time, yielding 1.7
    added_ms = v4_floor(1).verify_added_ms(1)
    assert after_a["step_ms"] == pytest.approx(98.8 + added_ms, rel=1e-3)
    assert after_a["tokens_per_step"] == pytest.approx(1.7)
    assert after_a["tok_s"] == pytest.approx(1000 * 1.7 / (98.8 + added_ms), rel=1e-3)


def test_the_suggested_order_is_shown_beside_the_team_tiers(client, demo_id):
    order = plan_json(client, demo_id)["suggested_order"]
    assert [p["key"] for p in order][:2] == ["A1", "A2"]
    page = client.get(f"/campaigns/{demo_id}").text
    assert "Suggested order" in page and "B1 and C1 both speed up attention" in page


def test_a_prerequisite_cycle_is_refused(client, demo_id):
    # ids follow the demo order A1 A2 B1 B2 C1 C2: C1 (id 5) already needs B1 (id 3)
    form = {"key": "B1", "title": "Split-K", "tier_id": "2", "status": "proposed", "effort_low_days": "10",
            "effort_likely_days": "15", "effort_high_days": "25", "effort_provenance": "assumed",
            "prerequisite_ids": ["5"]}
    response = client.post(f"/campaigns/{demo_id}/interventions/3/edit", data=form, headers=HTMX)
    assert response.status_code == 422 and "cycle" in response.text


def test_an_intervention_is_not_offered_as_its_own_prerequisite(client, demo_id):
    def offered(page: str) -> list[str]:
        select = re.search(r'<select[^>]*name="prerequisite_ids".*?</select>', page, re.S).group(0)
        return re.findall(r'<option value="(\d+)"', select)

    assert offered(client.get(f"/campaigns/{demo_id}/interventions/3/edit").text) == ["1", "2", "4", "5", "6"]
    assert offered(client.get(f"/campaigns/{demo_id}/interventions/new").text) == ["1", "2", "3", "4", "5", "6"]
    itself = client.patch(f"/api/campaigns/{demo_id}/interventions/3", json={"prerequisite_ids": [3]})
    assert itself.status_code == 409 and "cannot need itself" in itself.text  # the API still says why


def test_landing_an_intervention_and_measuring_after_it_calibrates_the_plan(client, demo_id, clock):
    form = {"key": "A1", "title": "SM120 FP8 GEMM autotune configs", "tier_id": "1", "status": "landed",
            "effort_low_days": "1", "effort_likely_days": "2", "effort_high_days": "4",
            "effort_provenance": "reported", "started_at": "2026-11-16T09:00", "landed_at": "2026-11-25T09:00"}
    assert client.post(f"/campaigns/{demo_id}/interventions/1/edit", data=form, headers=HTMX).status_code == 204
    stored = client.post(f"/api/campaigns/{demo_id}/measurements",
                         json={"regime": "batch 1", "metric": "output_tok_s", "value": 36.0})
    assert stored.json()["includes"] == ["A1"]  # by default, what had landed by then
    plan = plan_json(client, demo_id)
    # predicted 4.8x at batch 1, measured 36 / 10 = 3.6x; concurrency 16 has no measurement after landing
    assert plan["calibration_bias"] == pytest.approx(0.75)
    page = client.get(f"/campaigns/{demo_id}").text
    assert "measured / predicted 0.750x" in page
    before = plan["regimes"][0]["projections"][0]["tok_s"]
    settings = {"name": "demo", "gpu_count": "8", "seed": "20261202", "samples": "10000", "apply_calibration": "yes"}
    client.post(f"/campaigns/{demo_id}/edit", data=settings, headers=HTMX)
    calibrated = plan_json(client, demo_id)
    assert calibrated["calibration_applied"] is True
    # A1 is landed and already in the new baseline (36 tok/s); A2's gain is scaled to log(3.6) / log(4.8): its
    # tokens to that power (the estimate, its acceptance); its added verify time is the hardware model's, as priced
    realised = math.log(3.6) / math.log(4.8)
    added = v4_floor(1).verify_added_ms(1) / (1000 / 36)
    assert calibrated["regimes"][0]["projections"][0]["tok_s"] == pytest.approx(
        36 * 1.7**realised / (1 + added), rel=1e-3)
    assert before == pytest.approx(36 * 1.7 / (1 + added), rel=1e-3)


def test_a_run_recorded_over_a_warning_is_left_out_of_calibration_and_says_why(client, demo_id):
    """A gate check of 900 tok/s at batch 1 (another setup?) marked as including A1 and A2: its checks flag it
    (above the hardware ceiling, 90x the baseline); recorded anyway, it judges gates but calibrates nothing."""
    before = plan_json(client, demo_id)
    stored = client.post(f"/api/campaigns/{demo_id}/measurements", json={
        "regime": "batch 1", "metric": "output_tok_s", "value": 900, "kind": "gate check", "includes": ["A1", "A2"],
        "measured_at": "2026-11-28T10:00:00Z", "confirm": True})
    assert stored.status_code == 201 and "above the hardware ceiling" in stored.json()["confirmed"]
    roadmap = client.get(f"/campaigns/{demo_id}/roadmap.md").text
    row = next(line for line in roadmap.splitlines() if line.startswith("| A1, A2 | batch 1 |"))
    assert "left out: the newer run was recorded over a warning (900 tok/s is above the hardware ceiling" in row
    assert row.split(" | ")[3:6] == ["—", "—", "—"]  # no measured gain, no bias, moves nothing
    after = plan_json(client, demo_id)
    assert after["calibration_bias"] is None
    assert [r["projections"] for r in after["regimes"]] == [r["projections"] for r in before["regimes"]]


def test_the_team_leaves_a_run_out_of_calibration_with_a_reason_and_puts_it_back(client, demo_id):
    stored = client.post(f"/api/campaigns/{demo_id}/measurements", json={
        "regime": "batch 1", "metric": "output_tok_s", "value": 36.0, "includes": ["A1"],
        "measured_at": "2026-11-26T10:00:00Z"})
    run = stored.json()["id"]
    assert plan_json(client, demo_id)["calibration_bias"] == pytest.approx(0.75)
    left = client.post(f"/api/campaigns/{demo_id}/measurements/{run}/calibration",
                       json={"reason": "run on the staging H100", "by": "ana"})
    assert left.status_code == 200 and left.json()["left_out"].startswith("run on the staging H100 (ana, ")
    assert plan_json(client, demo_id)["calibration_bias"] is None
    assert "left out: the newer run, run on the staging H100 (ana, " in client.get(
        f"/campaigns/{demo_id}/roadmap.md").text
    assert client.post(f"/api/campaigns/{demo_id}/measurements/{run}/calibration",
                       json={"reason": "", "by": "ana"}).json()["left_out"] == ""
    assert plan_json(client, demo_id)["calibration_bias"] == pytest.approx(0.75)
    assert client.post(f"/api/campaigns/{demo_id}/measurements/99999/calibration",
                       json={"reason": "x", "by": "ana"}).status_code == 404


def test_the_calibration_table_links_each_run_to_a_form_that_leaves_it_out(client, demo_id):
    run = client.post(f"/api/campaigns/{demo_id}/measurements", json={
        "regime": "batch 1", "metric": "output_tok_s", "value": 36.0, "includes": ["A1"],
        "measured_at": "2026-11-26T10:00:00Z"}).json()["id"]
    link = f"/campaigns/{demo_id}/measurements/{run}/calibration"
    assert f'href="{link}">leave out…' in client.get(f"/campaigns/{demo_id}").text
    form = client.get(link)
    assert form.status_code == 200 and "Calibration counts it now" in form.text
    refused = client.post(link, data={"reason": "x" * 600, "by": "ana"}, headers=HTMX)
    assert refused.status_code == 422 and "at most 500" in refused.text
    saved = client.post(link, data={"reason": "warm-up run", "by": "ana"}, headers=HTMX)
    assert saved.status_code == 204 and saved.headers["HX-Redirect"].endswith("#fold-calibration")
    page = client.get(f"/campaigns/{demo_id}").text
    assert "left out: the newer run, warm-up run (ana, " in page and f'href="{link}">count it again' in page


def test_the_specs_page_and_forms(client, demo_id):
    page = client.get(f"/campaigns/{demo_id}/specs")
    assert page.status_code == 200 and "NVIDIA RTX PRO 6000 Blackwell" in page.text and "1,792 GB/s" in page.text
    # bytes a weight in bits as quantization formats are named, kept apart from the parameter counts beside them
    assert "4.25 bits a weight (0.531 bytes)" in page.text and "284B params" in page.text and "80%" in page.text
    preset = client.get(f"/campaigns/{demo_id}/specs/hardware?preset=b200")
    assert 'value="8000"' in preset.text and "DGX B200 datasheet" in preset.text


def test_switching_to_b200_raises_the_ceiling(client, demo_id):
    form = {"name": "NVIDIA B200", "count": "4", "memory_gb": "180", "bandwidth_gb_s": "8000",
            "tflops_bf16": "2250", "tflops_fp8": "4500", "tflops_fp4": "9000", "sm_count": "148",
            "scaling_efficiency": "0.8", "provenance": "reported"}
    assert client.post(f"/campaigns/{demo_id}/specs/hardware", data=form, headers=HTMX).status_code == 204
    ceiling = plan_json(client, demo_id)["regimes"][0]["ceiling_tok_s"]
    assert ceiling == pytest.approx(575.9 * 8000 / 1792, rel=1e-3)


def test_bad_specs_come_back_422(client, demo_id):
    form = {"name": "toy", "total_params_b": "10", "active_params_b": "20", "layers": "4", "routed_experts": "8",
            "experts_per_token": "2", "shared_experts": "0", "dense_bytes_per_weight": "2",
            "expert_bytes_per_weight": "1", "kv_bytes_per_token": "0", "compute_dtype": "bf16", "provenance": "assumed"}
    response = client.post(f"/campaigns/{demo_id}/specs/model", data=form, headers=HTMX)
    assert response.status_code == 422 and "cannot exceed the total" in response.text
    assert plan_json(client, demo_id)["regimes"][0]["ceiling_tok_s"] == pytest.approx(575.9, abs=0.1)


def test_a_hardware_preset_spans_the_campaigns_gpus(client):
    campaign = client.post("/api/campaigns", json={"name": "Llama on 4 H200", "gpu_count": 4}).json()["id"]
    page = client.get(f"/campaigns/{campaign}/specs/hardware?preset=b200").text
    count = re.search(r'<input id="f-count" name="count" value="(\d+)"', page).group(1)
    assert count == "4" and 'value="8000"' in page


@pytest.mark.parametrize("key", sorted(MODEL_PRESETS))
def test_every_model_preset_is_a_model_the_core_accepts_and_gives_a_ceiling(client, demo_id, key):
    preset = MODEL_PRESETS[key]
    body = preset.values() | {"name": preset.name, "sources": preset.sources(), "provenance": "reported"}
    response = client.put(f"/api/campaigns/{demo_id}/specs/model", json=body)
    assert response.status_code == 200, response.text
    ceiling = client.get(f"/api/campaigns/{demo_id}/plan").json()["regimes"][0]["ceiling_tok_s"]
    assert ceiling > 0
    dense = not preset.values()["routed_experts"]
    assert dense == (preset.values()["active_params_b"] == preset.values()["total_params_b"])


def test_dense_presets_read_their_published_shapes():
    llama8, llama70 = MODEL_PRESETS["llama-3.1-8b"].values(), MODEL_PRESETS["llama-3.1-70b"].values()
    assert (llama8["layers"], llama8["kv_bytes_per_token"]) == (32, 2 * 32 * 8 * 128 * 2)  # 128 KiB a token
    assert (llama70["layers"], llama70["kv_bytes_per_token"]) == (80, 2 * 80 * 8 * 128 * 2)
    qwen = MODEL_PRESETS["qwen3-30b-a3b"].values()
    assert (qwen["routed_experts"], qwen["experts_per_token"], qwen["kv_bytes_per_token"]) == (128, 8, 98_304)


# hidden_size and moe_intermediate_size (intermediate_size for Mixtral and gpt-oss) of each published config.json:
# a routed expert is three hidden x intermediate matrices (gate, up, down)
PUBLISHED_EXPERT_SHAPES = {"qwen3-30b-a3b": (2048, 768), "qwen3-235b-a22b": (4096, 1536),
                           "mixtral-8x7b": (4096, 14336), "gpt-oss-120b": (2880, 2880), "deepseek-v3": (7168, 2048)}


@pytest.mark.parametrize("key", sorted(PUBLISHED_EXPERT_SHAPES))
def test_moe_presets_counts_give_back_the_published_expert_size(key):
    """Total and active parameters, MoE layers, E and k are checked together: the expert size the ceiling derives
    from them, (total - active) / (L (E - k)), is the published expert's within 1%."""
    hidden, intermediate = PUBLISHED_EXPERT_SHAPES[key]
    values = MODEL_PRESETS[key].values()
    spec = ModelShape(name=key, **{name: values[name] for name in (
        "total_params_b", "active_params_b", "layers", "routed_experts", "experts_per_token", "shared_experts",
        "dense_bytes_per_weight", "expert_bytes_per_weight", "kv_bytes_per_token")})
    assert spec.expert_params() == pytest.approx(3 * hidden * intermediate, rel=0.01)


def test_kv_cache_presets_follow_their_attention():
    v3, gpt_oss = MODEL_PRESETS["deepseek-v3"].values(), MODEL_PRESETS["gpt-oss-120b"].values()
    assert v3["kv_bytes_per_token"] == 61 * 576 * 2  # MLA: one 512 + 64 latent a layer, not K and V per head
    assert gpt_oss["kv_bytes_per_token"] == 2 * 18 * 8 * 64 * 2  # the 18 full-attention layers
    assert gpt_oss["expert_bytes_per_weight"] == 4.25 / 8


def test_speculative_decoding_says_where_it_stops_paying(client, demo_id):
    """A2 priced by the hardware model: with a poor acceptance the verify step's GPU time outgrows the tokens gained
    at some concurrency, and the plan names it as the engine setting that turns drafting off there."""
    form = {"intervention_id": "2", "kind": "spec_decode", "draft_tokens": "3", "acceptance_low": "0.1",
            "acceptance_likely": "0.15", "acceptance_high": "0.2", "provenance": "measured"}
    assert client.post(f"/campaigns/{demo_id}/effects/2/edit", data=form, headers=HTMX).status_code == 204
    page = html.unescape(client.get(f"/campaigns/{demo_id}").text)
    found = re.search(r"it stops paying at concurrency ([\d,]+) \(from concurrency 16's measured step of 696 ms\): "
                      r"set the engine's disable-by-batch-size \(vLLM speculative_config disable_by_batch_size\) "
                      r"to ([\d,]+)", page)
    assert found is not None
    stops, setting = (int(g.replace(",", "")) for g in found.groups())
    assert setting == stops - 1
    # by hand at that concurrency: E = 1 + 0.15 + 0.15^2 + 0.15^3 tokens no longer beat the verify step's cost
    floor, step_ms = v4_floor(16), 16 * 1000 / 23.0  # 23 tok/s at concurrency 16
    tokens = 1 + 0.15 + 0.15**2 + 0.15**3
    assert speedup_at(floor, step_ms, tokens, 3, stops) <= 1.0 < speedup_at(floor, step_ms, tokens, 3, stops - 1)
    assert "it stops paying" in client.get(f"/campaigns/{demo_id}/roadmap.md").text


def test_a_gate_the_plan_expects_to_fail_is_flagged_with_its_chance_and_projection(client, demo_id):
    """Every pending gate on a projected metric carries P(pass) from the bands' samples; a gate of tier A asking
    batch 1 for 500 tok/s, against 78 projected, is flagged on the page, in the export and in the API."""
    gate = client.post(f"/api/campaigns/{demo_id}/gates", json={"tier_id": 1, "regime_id": 1, "threshold": 500})
    assert gate.status_code == 201, gate.text
    plan = plan_json(client, demo_id)
    gates = {(g["tier"], g["regime"], g["threshold"]): g for g in plan["gates"]}
    hard = gates[("A", "batch 1", 500.0)]
    band = plan["regimes"][0]["projections"][0]
    assert hard["status"] == "pending" and hard["expected_to_fail"] is True and hard["p_pass"] == 0.0
    assert hard["projected_p50"] == pytest.approx(band["p50_tok_s"])
    easy = gates[("A", "batch 1", 40.0)]
    assert easy["expected_to_fail"] is False and easy["p_pass"] > 0.9
    assert all(g["p_pass"] is not None for g in plan["gates"])  # every demo gate is on throughput or TPOT
    page = html.unescape(client.get(f"/campaigns/{demo_id}").text)
    row = re.search(rf'<tr class="gate expected-fail" data-gate="{gate.json()["id"]}".*?</tr>', page, re.S)
    assert row is not None and "projected 78.8 tok/s" in row.group(0)
    assert "P(pass) 0%: expected to fail" in row.group(0)
    roadmap = client.get(f"/campaigns/{demo_id}/roadmap.md").text
    assert "projected 78.8 tok/s; P(pass) 0%: expected to fail" in roadmap


def test_what_it_would_take_is_said_for_each_regime_short_of_its_target(client, demo_id):
    plan = plan_json(client, demo_id)
    batch1, c16 = plan["regimes"]
    final = c16["projections"][-1]
    # concurrency 16: E tokens a sequence for 16 sequences in the step the target needs
    needed_ms = 16 * final["tokens_per_step"] * 1000 / 1000.0
    assert c16["what_it_would_take"].startswith(
        f"concurrency 16: the target needs a {needed_ms:.3g} ms step against the {final['step_ms']:.3g} ms the plan "
        "leaves")
    assert "alone cannot" in c16["what_it_would_take"] and "together," in c16["what_it_would_take"]
    # batch 1's target is above the hardware ceiling: the step it needs is below the floor
    assert "below the 1.74 ms a step's bytes and FLOPs take at the hardware's peak: out of reach" in \
        batch1["what_it_would_take"]
    page = html.unescape(client.get(f"/campaigns/{demo_id}").text)
    assert "What it would take: concurrency 16: the target needs" in " ".join(re.sub(r"<[^>]+>", " ", page).split())
    assert "What it would take: concurrency 16: the target needs" in client.get(f"/campaigns/{demo_id}/roadmap.md").text


def test_a_projection_on_an_assumed_profile_says_so_where_it_is_shown(client, demo_id):
    page = html.unescape(client.get(f"/campaigns/{demo_id}").text)
    assert "Assumptions:" not in page  # the demo's profiles are reported
    data = {"shares": "attention 50%\nmoe 30%", "source": "a guess"}
    assert client.post(f"/campaigns/{demo_id}/regimes/1/profile", data=data, follow_redirects=False).status_code == 303
    page = " ".join(re.sub(r"<[^>]+>", " ", html.unescape(client.get(f"/campaigns/{demo_id}").text)).split())
    assert ("Assumptions: its profile is assumed (a guess): every bucket effect here rests on shares nobody "
            "measured; import a trace of this regime before committing to work on its buckets.") in page
    assert "Assumptions: its profile is assumed (a guess)" in client.get(f"/campaigns/{demo_id}/roadmap.md").text


def test_each_regime_shows_its_gap_to_the_floor_bucket_by_bucket_and_what_to_measure_next(client, demo_id):
    """The demo's batch 1: a 100 ms step against a 1.74 ms floor, 98% explained by neither bytes nor FLOPs; the
    first screen says so, and what to measure next (its profile is not a trace)."""
    batch1, c16 = plan_json(client, demo_id)["regimes"]
    assert batch1["gap_to_floor"].startswith("the 100 ms step is 58x its 1.74 ms floor; attention 63 ms at ")
    assert "98% of the step is explained by neither bytes nor FLOPs; measure next: a trace of this regime" in \
        batch1["gap_to_floor"]
    assert c16["gap_to_floor"].startswith("the 696 ms step is 75x its 9.27 ms floor; moe 278 ms at 3% of its ")
    page = " ".join(re.sub(r"<[^>]+>", " ", html.unescape(client.get(f"/campaigns/{demo_id}").text)).split())
    assert "Gap to the floor: the 100 ms step is 58x its 1.74 ms floor" in page
    assert "Gap to the floor: the 100 ms step is 58x" in client.get(f"/campaigns/{demo_id}/roadmap.md").text


def test_each_tier_has_p50_and_p90_dates_for_the_team_s_size(client, demo_id):
    """With one person the demo's work runs one intervention after another: each tier is done when the cumulative
    effort is spent. With two, independent interventions run side by side: the same effort draws finish sooner
    (tests/unit/test_schedule.py checks a team of two by hand)."""
    one = {p["tier"]: p for p in plan_json(client, demo_id)["regimes"][0]["projections"]}
    settings = {"name": "demo", "gpu_count": "8", "seed": "20261202", "samples": "10000", "team_size": "2"}
    assert client.post(f"/campaigns/{demo_id}/edit", data=settings, headers=HTMX).status_code == 204
    two = {p["tier"]: p for p in plan_json(client, demo_id)["regimes"][0]["projections"]}
    # the same efforts drawn: the cumulative effort is the same, the work is done sooner with two people
    assert two["B"]["effort_p50_days"] == pytest.approx(one["B"]["effort_p50_days"])
    assert two["B"]["done_p50_days"] < one["B"]["done_p50_days"]
    assert one["C"]["done_p50_days"] == pytest.approx(one["C"]["effort_p50_days"], rel=0.02)  # one person: in a row
    page = html.unescape(client.get(f"/campaigns/{demo_id}").text)
    assert re.search(r"done \d{4}-\d\d-\d\d P50, \d{4}-\d\d-\d\d P90 with 2 people", page)

"""Daily-use defects a new user met: each fixed where it was made, each with its test."""

import threading

import pytest
from sqlmodel import func, select

from tests.web.test_imports import APPEND, DATA
from tierplan.db.engine import make_engine, new_session
from tierplan.db.tables import Campaign
from tierplan.models.plan_rows import CampaignCreate
from tierplan.services.campaigns import store_campaign
from tierplan.services.profiles import parse_shares
from tierplan.views.gate_reports import text
from tierplan.views.gates import GateOut, GateSummary, TierGatesOut


def test_a_push_naming_an_unknown_intervention_is_refused_and_stores_nothing(client, demo_id):
    before = len(client.get(f"/api/campaigns/{demo_id}/measurements").json())
    refused = client.post(f"/api/campaigns/{demo_id}/imports", data={"includes": "A1,Z9"},
                          files=[("files", ("run.json", APPEND.read_bytes()))])
    assert refused.status_code == 409
    assert refused.json()["errors"]["includes"].startswith("no intervention Z9 in this campaign (it has A1, A2")
    assert len(client.get(f"/api/campaigns/{demo_id}/measurements").json()) == before


def test_a_push_report_says_its_gates_are_those_the_runs_decided_and_names_a_tier_left_unvalidated():
    gate = GateOut.model_construct(status="pass", severity="hard", regime="batch 1", condition="output >= 40",
                                   evidence="45 tok/s")
    tier = TierGatesOut.model_construct(tier="A", name="upstream", validated=False, gates=[gate])
    report = text(GateSummary((tier,), partial=True), title="demo")
    assert "every hard gate passes among the gates these runs decided (exit 0)" in report
    assert "tier A is not validated: another of its gates fails or is pending" in report
    assert "every hard gate passes (exit 0)" in text(GateSummary((tier,)), title="demo")


def test_a_new_regimes_typed_workload_and_target_are_assumed_until_said_otherwise(client, demo_id):
    made = client.post(f"/api/campaigns/{demo_id}/regimes", json={
        "name": "c8", "concurrency": 8, "input_tokens": 1000, "output_tokens": 200, "target_tok_s": 300})
    assert made.status_code == 201
    assert made.json()["workload_provenance"] == made.json()["target_provenance"] == "assumed"


def test_a_profile_line_may_name_its_source_after_a_comma():
    assert parse_shares("attention, 20%, measured\nmoe 0.5 assumed") == [("attention", 0.2, "measured"),
                                                                          ("moe", 0.5, "assumed")]


def test_a_dense_models_spec_says_layers_and_leaves_the_experts_out():
    from tierplan.views.extras import MODEL_LABELS, _pairs

    class Dense:
        name, total_params_b, active_params_b, layers = "Llama 3.1 70B", 70.6, 70.6, 80
        routed_experts, experts_per_token, shared_experts = 0, 0, 0
        dense_bytes_per_weight, expert_bytes_per_weight, kv_bytes_per_token, compute_dtype = 2.0, 2.0, 327680, "bf16"

    labels = [label for label, _ in _pairs(Dense(), MODEL_LABELS)]
    assert "layers (dense)" in labels and not any("expert" in label or "MoE" in label for label in labels)


@pytest.mark.postgres
def test_one_idempotency_key_sent_eight_times_at_once_makes_one_campaign_and_eight_same_answers(postgres_url):
    engine = make_engine(postgres_url, pool_size=10, max_overflow=5)
    try:
        from datetime import UTC, datetime

        answers: list[int] = []
        errors: list[BaseException] = []

        def post() -> None:
            try:
                with new_session(engine, write=True) as session:
                    campaign = store_campaign(session, CampaignCreate(name="raced", gpu_count=1),
                                              now=datetime.now(UTC), key="race-key-0001")
                    answers.append(campaign.id)
            except BaseException as exc:  # collected for the assertion below
                errors.append(exc)

        threads = [threading.Thread(target=post) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == [] and len(answers) == 8 and len(set(answers)) == 1
        with new_session(engine) as session:
            assert session.exec(select(func.count()).select_from(Campaign).where(Campaign.name == "raced")).one() == 1
    finally:
        engine.dispose()


def test_a_gate_check_dated_before_its_tier_started_needs_confirming(client, demo_id):
    body = {"regime": "batch 1", "metric": "output_tok_s", "value": 45, "kind": "gate check",
            "measured_at": "2026-11-10T09:00:00Z"}  # tier A started on 2026-11-16
    refused = client.post(f"/api/campaigns/{demo_id}/measurements", json=body)
    assert refused.status_code == 409 and refused.json()["confirmable"] is True
    assert "before the tiers whose gates judge it started (2026-11-16)" in refused.json()["errors"]["measured_at"]
    assert client.post(f"/api/campaigns/{demo_id}/measurements", json={**body, "confirm": True}).status_code == 201
    later = {**body, "measured_at": "2026-11-20T09:00:00Z"}
    assert client.post(f"/api/campaigns/{demo_id}/measurements", json=later).status_code == 201


def test_a_trace_whose_entered_step_is_far_from_the_regimes_own_says_so(client, demo_id):
    answer = client.post(f"/api/campaigns/{demo_id}/imports", data={"regime": "batch 1", "step_ms": "11.44",
                                                                     "dry_run": "true"},
                         files=[("files", ("t.json.gz", (DATA / "trace_eager_b1.json.gz").read_bytes()))])
    assert answer.status_code == 200, answer.text
    warnings = " ".join(answer.json()["preview"]["warnings"])
    assert "the step time entered (11.44 ms) is 1/8.74 of the regime's own (100 ms" in warnings
    assert "is this the trace of batch 1?" in warnings

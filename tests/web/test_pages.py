"""Pages through the TestClient: full pages, htmx blocks, 422 re-renders, nothing written on bad input."""

import html
import re

import pytest
from sqlmodel import func, select

from tierplan.db.engine import new_session
from tierplan.db.tables import Measurement

HTMX = {"HX-Request": "true"}


def measurement_count(app) -> int:
    with new_session(app.state.engine) as session:
        return session.exec(select(func.count()).select_from(Measurement)).one()


def gate_status(html: str, condition: str, regime: str) -> str:
    """The status badge of the gate row with that regime and condition."""
    for row in re.findall(r'<tr class="gate".*?</tr>', html, re.S):
        if f"<td>{regime}</td>" in row and condition in row:
            return re.search(r'data-status="(\w+)"', row).group(1)
    raise AssertionError(f"no gate {regime} {condition}")


def test_the_campaign_list_shows_the_demo_and_a_create_form(client, demo_id):
    page = client.get("/")
    assert page.status_code == 200
    assert "DeepSeek-V4-Flash on 8x RTX PRO 6000 Blackwell" in page.text
    assert 'name="gpu_count"' in page.text


def test_creating_a_campaign_redirects_to_its_plan(client):
    response = client.post("/campaigns", data={"name": "Llama 3 on H100", "gpu_count": "2"}, follow_redirects=False)
    assert response.status_code == 303
    plan = client.get(response.headers["location"])
    assert plan.status_code == 200 and "Llama 3 on H100" in plan.text


def test_a_bad_campaign_form_comes_back_422_with_messages_and_values(client):
    response = client.post("/campaigns", data={"name": "", "gpu_count": "two", "model": "Qwen"}, headers=HTMX)
    assert response.status_code == 422
    assert "<html" not in response.text
    assert 'id="error-name"' in response.text and "required" in response.text
    assert "must be a whole number" in response.text
    assert 'value="Qwen"' in response.text and 'value="two"' in response.text
    assert client.get("/api/campaigns").json() == []


def test_the_plan_page_shows_projections_computed_from_the_stored_inputs(client, demo_id):
    page = client.get(f"/campaigns/{demo_id}")
    assert page.status_code == 200
    # batch 1: the 100 ms step / 4.8 (A1) = 20.83 ms, plus 0.746 ms of GPU time A2 adds to verify 2 tokens a
    # sequence (MTP, acceptance 0.7: 1.7 tokens a step): 1000 x 1.7 / 21.58 = 78.8 after A; then attention 0.63 / 2.5
    # and moe 0.15 / 2 shrink the 20.83 ms to 20.83 x (1 - 0.378 - 0.075) = 11.40 ms: 1000 x 1.7 / 12.14 = 140
    assert "78.8 tok/s" in page.text and "140 tok/s" in page.text
    assert "short by 6.34x" in page.text
    assert page.headers["vary"] == "HX-Request"


def test_an_htmx_request_gets_only_the_plan_block(client, demo_id):
    fragment = client.get(f"/campaigns/{demo_id}", headers=HTMX)
    assert fragment.status_code == 200
    assert fragment.text.lstrip().startswith('<div id="plan-body">')
    assert "<html" not in fragment.text


def test_a_history_restore_gets_the_full_page(client, demo_id):
    page = client.get(f"/campaigns/{demo_id}", headers={**HTMX, "HX-History-Restore-Request": "true"})
    assert "<html" in page.text


def test_a_gate_check_turns_its_gate_to_pass_and_leaves_the_projection(client, app, demo_id):
    before = client.get(f"/campaigns/{demo_id}").text
    assert gate_status(before, "output throughput &gt;= 40.0 tok/s", "batch 1") == "pending"
    response = client.post(
        f"/campaigns/{demo_id}/measurements",
        data={"regime": "batch 1", "metric": "output_tok_s", "value": "45", "kind": "gate check", "includes_given": "1",
              "note": "A1 configs"},
        headers=HTMX,
    )
    assert response.status_code == 200
    # the form comes back, then only the blocks the measurement moved, each swapped out of band
    assert response.text.lstrip().startswith('<section class="card" id="measure">')
    assert '<table class="gates" id="gates-1" hx-swap-oob="true">' in response.text
    assert gate_status(response.text, "output throughput &gt;= 40.0 tok/s", "batch 1") == "pass"
    assert "45.0 tok/s on 2026-12-01" in response.text
    assert "Recorded output throughput = 45.0 tok/s as a gate check." in response.text
    assert 'class="card regime"' not in response.text, "a gate check moves no projection"
    # the baseline is still 10 tok/s: 1000 x 1.7 / (100 / 4.8 + 0.746) after A
    after = client.get(f"/campaigns/{demo_id}").text
    assert projection_after_a(before) == projection_after_a(after) == "78.8 tok/s"
    assert gate_status(after, "output throughput &gt;= 40.0 tok/s", "batch 1") == "pass"


def projection_after_a(page: str) -> str:
    row = re.search(r'data-regime="batch 1".*?<tr class="row-tok-s">(.*?)</tr>', page, re.S).group(1)
    return re.search(r'data-step="A"[^>]*>([^<]+)<', row).group(1).strip()


def test_a_gate_passing_baseline_that_leaves_out_its_tier_is_refused_then_taken_with_what_it_includes(client, demo_id):
    data = {"regime": "batch 1", "metric": "output_tok_s", "value": "45", "kind": "baseline", "includes_given": "1"}
    refused = client.post(f"/campaigns/{demo_id}/measurements", data=data, headers=HTMX)
    assert refused.status_code == 422
    text = html.unescape(refused.text)
    assert "does not include A1, A2: as a baseline the plan would add them again" in text
    assert 'name="confirm"' in refused.text, "the form offers to record it anyway"
    taken = client.post(f"/campaigns/{demo_id}/measurements", data={**data, "includes": ["A1", "A2"]}, headers=HTMX)
    assert taken.status_code == 200
    assert "The baseline of 2026-12-01 includes A1, A2: the plan applies only the rest." in html.unescape(taken.text)
    assert projection_after_a(taken.text) == "45.0 tok/s"  # tier A is in the baseline: nothing added twice


def test_a_value_above_the_ceiling_is_refused_at_the_field_unless_confirmed(client, app, demo_id):
    data = {"regime": "batch 1", "metric": "output_tok_s", "value": "1e6", "kind": "gate check",
            "includes_given": "1"}
    before = measurement_count(app)
    refused = client.post(f"/campaigns/{demo_id}/measurements", data=data, headers=HTMX)
    assert refused.status_code == 422 and measurement_count(app) == before
    error = re.search(r'<div class="field has-error" data-field="value">.*?</div>', refused.text, re.S).group(0)
    assert "above the hardware ceiling of this regime (576 tok/s)" in html.unescape(error)
    assert "times the current baseline" in html.unescape(error)
    confirmed = client.post(f"/campaigns/{demo_id}/measurements", data={**data, "confirm": "yes"}, headers=HTMX)
    assert confirmed.status_code == 200 and measurement_count(app) == before + 1


def test_a_measurement_that_misses_its_threshold_fails_the_gate(client, demo_id):
    response = client.post(f"/campaigns/{demo_id}/measurements",
                           data={"regime": "batch 1", "metric": "tpot_ms", "value": "31", "kind": "gate check"},
                           headers=HTMX)
    assert gate_status(response.text, "mean time per output token &lt;= 25.0 ms", "batch 1") == "fail"


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("value", "", "required"),
        ("value", "-3", "must be at least 0"),
        ("value", "0", "output throughput must be greater than 0"),
        ("value", "inf", "must be a finite number"),
        ("measured_at", "2099-01-01T00:00", "lies in the future"),
        ("value", "fast", "must be a number"),
        ("value", "nan", "must be a finite number"),
        ("regime", "batch 64", "unknown regime 'batch 64'"),
        ("metric", "vibes", "unknown choice"),
    ],
)
def test_bad_measurements_come_back_422_and_store_nothing(client, app, demo_id, field, value, message):
    data = {"regime": "batch 1", "metric": "output_tok_s", "value": "45", "note": "kept note"}
    data[field] = value
    before = measurement_count(app)
    response = client.post(f"/campaigns/{demo_id}/measurements", data=data, headers=HTMX)
    assert response.status_code == 422
    error = re.search(rf'<div class="field has-error" data-field="{field}">.*?</div>', response.text, re.S)
    assert error and message in html.unescape(error.group(0))
    assert 'value="kept note"' in response.text
    assert measurement_count(app) == before


def test_a_plain_form_post_without_htmx_redirects_back(client, demo_id):
    response = client.post(f"/campaigns/{demo_id}/measurements",
                           data={"regime": "batch 1", "metric": "output_tok_s", "value": "11"}, follow_redirects=False)
    assert response.status_code == 303


def test_the_regime_page_lists_its_history_newest_first(client, demo_id, clock):
    client.post(f"/campaigns/{demo_id}/measurements", data={"regime": "batch 1", "metric": "output_tok_s", "value": "11"})
    clock.advance(hours=1)
    client.post(f"/campaigns/{demo_id}/measurements", data={"regime": "batch 1", "metric": "output_tok_s", "value": "12"})
    page = client.get(f"/campaigns/{demo_id}/regimes/1")
    assert page.status_code == 200
    values = re.findall(r'<td class="num nowrap" title="[\d.]+ tok/s">([\d.]+) tok/s</td>', page.text)
    assert values == ["12.0", "11.0", "10.0"]
    assert "attention" in page.text and "63%" in page.text


def test_an_unknown_campaign_is_a_clear_404_page(client):
    page = client.get("/campaigns/999")
    assert page.status_code == 404
    assert "no campaign 999" in page.text and "Traceback" not in page.text


def test_an_unknown_page_is_a_404_page(client):
    assert client.get("/nowhere").status_code == 404


def test_a_retracted_measurement_stays_struck_through_and_stops_being_the_baseline(client, app, demo_id, clock):
    clock.advance(hours=1)
    data = {"regime": "batch 1", "metric": "output_tok_s", "value": "12.5", "kind": "baseline", "includes_given": "1"}
    assert client.post(f"/campaigns/{demo_id}/measurements", data=data, headers=HTMX).status_code == 200
    plan = client.get(f"/api/campaigns/{demo_id}/plan").json()
    assert plan["regimes"][0]["baseline_tok_s"] == 12.5
    newest = client.get(f"/api/campaigns/{demo_id}/measurements").json()[0]
    form = client.get(f"/campaigns/{demo_id}/measurements/{newest['id']}/retract")
    assert form.status_code == 200 and "Retract output throughput = 12.50 tok/s of batch 1" in form.text
    missing_reason = client.post(f"/campaigns/{demo_id}/measurements/{newest['id']}/retract", data={"by": "ana"},
                                 headers=HTMX)
    assert missing_reason.status_code == 422 and 'data-field="reason"' in missing_reason.text
    before = measurement_count(app)
    done = client.post(f"/campaigns/{demo_id}/measurements/{newest['id']}/retract",
                       data={"reason": "run on the debug build", "by": "ana"}, headers=HTMX)
    assert done.status_code == 204
    assert measurement_count(app) == before, "a retraction deletes nothing"
    assert client.get(f"/api/campaigns/{demo_id}/plan").json()["regimes"][0]["baseline_tok_s"] == 10.0
    history = html.unescape(client.get(f"/campaigns/{demo_id}/regimes/1").text)
    assert '<tr class="retracted"' in history and "<s>12.5 tok/s</s>" in history
    assert "retracted 2026-12-01 13:00 UTC by ana: run on the debug build" in history


def test_the_plan_page_is_reused_until_something_is_written_and_answers_304_to_its_etag(client, demo_id):
    first = client.get(f"/campaigns/{demo_id}")
    etag = first.headers["etag"]
    assert client.get(f"/campaigns/{demo_id}").headers["etag"] == etag
    assert client.get(f"/campaigns/{demo_id}", headers={"If-None-Match": etag}).status_code == 304
    client.post(f"/api/campaigns/{demo_id}/measurements",
                json={"regime": "batch 1", "metric": "output_tok_s", "value": 12.5})
    second = client.get(f"/campaigns/{demo_id}")
    assert second.headers["etag"] != etag and second.text != first.text
    assert client.get(f"/campaigns/{demo_id}", headers={"If-None-Match": etag}).status_code == 200


def test_a_measurement_submitted_twice_with_one_key_is_stored_once(client, app, demo_id):
    data = {"regime": "batch 1", "metric": "output_tok_s", "value": "12", "kind": "gate check",
            "idempotency_key": "a1b2c3d4e5f6a7b8"}
    before = measurement_count(app)
    first = client.post(f"/campaigns/{demo_id}/measurements", data=data, headers=HTMX)
    again = client.post(f"/campaigns/{demo_id}/measurements", data=data, headers=HTMX)
    assert first.status_code == again.status_code == 200 and measurement_count(app) == before + 1
    assert "Recorded output throughput = 12.0 tok/s" in again.text
    other = client.post(f"/campaigns/{demo_id}/measurements", data=data | {"idempotency_key": "ffff0000ffff0000"},
                        headers=HTMX)
    assert other.status_code == 200 and measurement_count(app) == before + 2


def test_the_api_takes_an_idempotency_key_header(client, app, demo_id):
    body = {"regime": "batch 1", "metric": "output_tok_s", "value": 12, "kind": "gate check"}
    headers = {"Idempotency-Key": "retry-0001-abcd"}
    first = client.post(f"/api/campaigns/{demo_id}/measurements", json=body, headers=headers)
    again = client.post(f"/api/campaigns/{demo_id}/measurements", json=body, headers=headers)
    assert first.status_code == again.status_code == 201 and first.json()["id"] == again.json()["id"]
    other = client.post("/api/campaigns", json={"name": "other", "gpu_count": 1}).json()["id"]
    assert client.post(f"/api/campaigns/{other}/measurements", json=body, headers=headers).status_code == 404

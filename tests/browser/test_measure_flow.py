"""In Chromium: a measurement through the form updates the plan in place and turns a gate to pass."""

import pytest

pytestmark = pytest.mark.browser

GATE = 'tr.gate:has(td:text-is("batch 1")):has(a:text-is("output throughput >= 40.0 tok/s"))'


def fill_measurement(page, regime: str, metric: str, value: str, note: str, kind: str = "gate check") -> None:
    page.select_option("#measure select[name=regime]", regime)
    page.select_option("#measure select[name=metric]", metric)
    page.fill("#measure input[name=value]", value)
    page.select_option("#measure select[name=kind]", kind)
    page.fill("#measure input[name=note]", note)
    page.click("#measure button[type=submit]")


def test_recording_a_gate_check_turns_a_gate_from_pending_to_pass(server, page, screenshot):
    page.goto(f"{server}/campaigns/1")
    page.evaluate("window.__notReloaded = true")
    assert page.locator(GATE).get_attribute("data-status") == "pending"
    baseline = page.locator('section.regime[data-regime="batch 1"] td.baseline-cell')
    after_a = page.locator('section.regime[data-regime="batch 1"] tr.row-tok-s td[data-step="A"]')
    assert baseline.inner_text() == "10.0 tok/s" and after_a.inner_text() == "78.8 tok/s"

    # a 422 is swapped in: the message next to its field, the typed values kept
    fill_measurement(page, "batch 1", "output_tok_s", "0", "SGLang + A1 configs")
    error = page.locator('#measure [data-field="value"] .error')
    error.wait_for()
    assert error.inner_text() == "output throughput must be greater than 0"
    assert page.input_value("#measure input[name=value]") == "0"
    assert page.input_value("#measure input[name=note]") == "SGLang + A1 configs"
    assert page.locator(GATE).get_attribute("data-status") == "pending"
    screenshot("plan-invalid-measurement")

    fill_measurement(page, "batch 1", "output_tok_s", "45", "SGLang + A1 configs")
    page.locator(f'{GATE}[data-status="pass"]').wait_for()
    # a gate check judges the gate; the baseline and the projection stay where they were
    assert baseline.inner_text() == "10.0 tok/s" and after_a.inner_text() == "78.8 tok/s"
    assert page.locator("#measure .saved").inner_text().startswith(
        "Recorded output throughput = 45.0 tok/s as a gate check.")
    assert page.locator(GATE).locator("td").nth(3).inner_text().startswith("45.0 tok/s on ")
    assert page.evaluate("window.__notReloaded") is True, "the page reloaded instead of swapping in place"
    screenshot("plan-after-measurement")


def test_an_absurd_value_needs_the_box_ticked_and_a_wrong_one_can_be_retracted(server, page, screenshot):
    page.goto(f"{server}/campaigns/1")
    fill_measurement(page, "batch 1", "output_tok_s", "1e6", "typo", kind="baseline")
    error = page.locator('#measure [data-field="value"] .error')
    error.wait_for()
    assert "above the hardware ceiling of this regime (576 tok/s)" in error.inner_text()
    assert page.locator('section.regime[data-regime="batch 1"] td.baseline-cell').inner_text() == "10.0 tok/s"
    screenshot("plan-measurement-needs-confirming")
    page.check("#measure input[name=confirm]")
    page.click("#measure button[type=submit]")
    page.locator("#measure .saved").wait_for()
    page.goto(f"{server}/campaigns/1/regimes/1")
    page.click('tr[data-measurement] a:text-is("retract")')
    page.fill("textarea[name=reason]", "typo: 1e6 instead of 13.08")
    page.fill("input[name=by]", "ana")
    page.click("#edit-form button[type=submit]")
    page.wait_for_url(f"{server}/campaigns/1/regimes/1#history")
    retracted = page.locator("tr.retracted")
    assert "retracted" in retracted.inner_text() and "by ana: typo" in retracted.inner_text()
    assert page.locator("section.regime td.baseline-cell").inner_text() == "10.0 tok/s"
    screenshot("regime-history-retracted")


def test_a_bad_edit_form_shows_its_messages_in_place(server, page, screenshot):
    page.goto(f"{server}/campaigns/1/interventions/1/edit")
    page.fill("input[name=effort_likely_days]", "9")
    page.click("#edit-form button[type=submit]")
    message = page.locator('[data-field="effort_likely_days"] .error')
    message.wait_for()
    assert "low <= likely <= high" in message.inner_text()
    screenshot("intervention-form-invalid")
    page.fill("input[name=effort_likely_days]", "3")
    page.click("#edit-form button[type=submit]")
    page.wait_for_url(f"{server}/campaigns/1")
    assert "3 d (1–4 d)" in page.locator("#tier-A").inner_text()


def test_the_effect_form_shows_the_fields_of_the_chosen_kind(server, page, screenshot):
    page.goto(f"{server}/campaigns/1/effects/3/edit")
    assert page.locator('[data-field="draft_tokens"]').is_visible()
    assert not page.locator('[data-field="speedup_likely"]').is_visible()
    page.select_option("select[name=kind]", "time_saved")
    assert page.locator('[data-field="saved_ms_likely"]').is_visible()
    assert not page.locator('[data-field="draft_tokens"]').is_visible()
    page.select_option("select[name=kind]", "spec_decode")
    page.fill("input[name=acceptance_likely]", "0.95")
    page.click("#edit-form button[type=submit]")
    error = page.locator('[data-field="acceptance_likely"] .error')
    error.wait_for()
    assert "low <= likely <= high" in error.inner_text()
    assert page.locator('[data-field="draft_tokens"]').is_visible(), "kind fields must survive the 422 swap"
    screenshot("effect-form-spec-decode")


def test_importing_a_vllm_result_through_the_page(server, page, screenshot):
    from pathlib import Path

    data = Path(__file__).parent.parent / "data"
    page.goto(f"{server}/campaigns/1/import")
    page.set_input_files("#f-files", str(data / "vllm" / "bench_serve_c4.json"))  # vLLM 0.33's own client wrote it
    page.select_option("select[name=regime]", "concurrency 16")
    page.click("#import-form button[type=submit]")
    page.locator("#import-preview").wait_for()
    assert page.locator('td[data-metric="output_tok_s"]').inner_text() == "672 tok/s"
    assert page.locator('td[data-metric="p99_ttft_ms"]').inner_text() == "58.1 ms"
    assert "make sure it was measured on this setup" in page.locator("#import-preview").inner_text()
    screenshot("import-preview-vllm")
    page.click("#confirm-import")
    page.locator('.confirm-form [data-field="confirm"] .error').wait_for()  # flagged values: tick first
    page.check(".confirm-form input[name=confirm]")
    page.click("#confirm-import")
    page.wait_for_url(f"{server}/campaigns/1")
    # the run is dated 2026-12-07, after the demo's baseline: it joins the history as the newest baseline
    page.goto(f"{server}/campaigns/1/regimes/2")
    history = page.locator("table.history").inner_text()
    assert "672 tok/s" in history and "imported" in history


def test_importing_a_trace_shows_its_decode_steps_and_the_idle_share(server, page, screenshot):
    from pathlib import Path

    data = Path(__file__).parent.parent / "data"
    page.goto(f"{server}/campaigns/1/import")
    page.set_input_files("#f-files", str(data / "trace_eager_b1.json.gz"))
    page.select_option("select[name=regime]", "batch 1")
    page.fill("input[name=step_ms]", "11.44")
    page.click("#import-form button[type=submit]")
    page.locator("#import-preview").wait_for()
    assert page.locator('td[data-bucket="host_overhead"]').inner_text() == "87%"
    page.click("text=Forward passes")
    assert page.locator('tr[data-role="prefill"]').count() == 1
    assert page.locator('tr[data-role="decode"]').count() == 6
    screenshot("import-preview-trace")


def test_a_value_typed_while_logged_out_is_back_in_the_form_after_the_login(server, page, screenshot, tmp_path):
    import os
    import subprocess
    import sys

    env = {**os.environ, "TIERPLAN_DATABASE_URL": f"sqlite:///{tmp_path / 'browser.db'}"}  # the server's
    subprocess.run([sys.executable, "-m", "tierplan.cli", "user", "add", "ana", "--password-stdin"], env=env, check=True,
                   input="correct horse battery\n", capture_output=True, text=True, timeout=60)
    page.goto(f"{server}/campaigns/1")
    fill_measurement(page, "concurrency 16", "output_tok_s", "42.5", "nightly run 311")
    page.wait_for_url("**/login?next=*")
    page.fill("input[name=name]", "ana")
    page.fill("input[name=password]", "correct horse battery")
    page.click("form button[type=submit]")
    page.wait_for_url(f"{server}/campaigns/1")
    page.locator("#measure .draft-restored").wait_for()
    assert page.input_value("#measure input[name=value]") == "42.5"
    assert page.input_value("#measure input[name=note]") == "nightly run 311"
    assert page.input_value("#measure select[name=regime]") == "concurrency 16"
    assert page.locator("header a.who").inner_text() == "ana"
    screenshot("plan-draft-restored-after-login")
    page.click("#measure button[type=submit]")
    saved = page.locator("#measure .saved:not(.draft-restored)")
    saved.wait_for()
    assert "Recorded output throughput = 42.5 tok/s" in saved.inner_text()

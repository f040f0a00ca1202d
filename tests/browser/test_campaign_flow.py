"""In Chromium, from nothing: create a campaign, add a regime, a tier, an intervention, its effect and a gate,
import a benchmark result, see the projection chart change, and read the plan's history. Each step saves a
screenshot into tests/browser/screenshots/."""

from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

BENCH = Path(__file__).parents[1] / "data" / "vllm" / "bench_serve_c4.json"  # written by vLLM 0.33's client


def submit(page) -> None:
    """Save the form; htmx follows the server's HX-Redirect to the plan (a 422 would show its messages)."""
    before = page.url
    page.click("#edit-form button[type=submit]")
    page.wait_for_function("url => location.href !== url || document.querySelector('#edit-form .error')", arg=before)
    errors = page.locator("#edit-form .has-error").evaluate_all(
        "fs => fs.map(f => f.dataset.field + ': ' + f.querySelector('.error').textContent)")
    assert not errors, errors


def test_a_campaign_from_nothing_to_an_imported_baseline_and_its_history(server, page, screenshot):
    page.goto(server + "/")
    page.fill("#campaign-form input[name=name]", "Llama on 1 H200")
    page.fill("#campaign-form input[name=gpu_count]", "1")
    with page.expect_navigation():
        page.click("#campaign-form button[type=submit]")
    plan = page.url
    screenshot("flow-1-new-campaign")

    page.goto(plan + "/regimes/new")
    page.fill("input[name=name]", "concurrency 16")
    page.fill("input[name=concurrency]", "16")
    page.fill("input[name=input_tokens]", "1024")
    page.fill("input[name=output_tokens]", "256")
    page.fill("input[name=target_tok_s]", "3000")
    submit(page)
    page.goto(plan + "/tiers/new")
    page.fill("input[name=key]", "A")
    page.fill("input[name=name]", "Quick wins")
    submit(page)
    page.goto(plan + "/interventions/new")
    page.select_option("select[name=tier_id]", label="A: Quick wins")
    page.fill("input[name=key]", "A1")
    page.fill("input[name=title]", "CUDA graphs")
    for point, days in (("low", "1"), ("likely", "2"), ("high", "4")):
        page.fill(f"input[name=effort_{point}_days]", days)
    submit(page)
    page.goto(plan + "/effects/new")
    page.select_option("select[name=kind]", "step")
    for point, speedup in (("low", "1.2"), ("likely", "1.5"), ("high", "2")):
        page.fill(f"input[name=speedup_{point}]", speedup)
    page.select_option("select[name=regime_ids]", label="concurrency 16")
    submit(page)
    page.goto(plan + "/gates/new")
    page.select_option("select[name=regime_id]", label="concurrency 16")
    page.fill("input[name=threshold]", "2500")
    submit(page)
    assert page.url == plan
    tier = page.locator("section.tier, article.tier, [id^=tier-A]").first
    assert "CUDA graphs" in page.content() and "Quick wins" in tier.inner_text()
    assert page.locator("svg.projection-chart").count() == 0  # no baseline yet: nothing to project
    screenshot("flow-2-plan-without-baseline")

    page.goto(plan + "/import")
    page.set_input_files("input[name=files]", str(BENCH))
    page.select_option("select[name=regime]", label="concurrency 16")
    page.click("#import-body button[type=submit]")
    confirm = page.locator("form.confirm-form button[type=submit]")
    confirm.wait_for(timeout=30_000)
    screenshot("flow-3-import-preview")
    with page.expect_navigation():
        confirm.click()
    page.goto(plan)
    chart = page.locator("svg.projection-chart")
    chart.wait_for()
    drawn = [float(v) for v in chart.locator("circle.point").evaluate_all("cs => cs.map(c => c.dataset.tokS)")]
    table = page.locator('section.regime[data-regime="concurrency 16"] td.baseline-cell').inner_text()
    assert len(drawn) == 2 and drawn[1] > drawn[0]  # baseline and after A
    assert table.replace(",", "").startswith(f"{drawn[0]:.0f}")
    screenshot("flow-4-plan-with-imported-baseline")

    page.goto(plan + "/history")
    changes = page.locator("table.changes-since tbody tr").all_inner_texts()
    assert "imported bench_serve_c4.json" in changes[0]
    assert any("created regime concurrency 16" in c for c in changes) and "created campaign" in changes[-1]
    assert "concurrency 16: new regime" in " ".join(changes) or "P50" in changes[0]
    assert page.locator("svg.timeline-chart circle.run.measured").count() >= 1
    screenshot("flow-5-history")

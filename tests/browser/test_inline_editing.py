"""In Chromium, on the demo plan: click a value, change it in place, save, and see the plan recompute; a wrong
value gets its message at the field and nothing saved; Escape puts the value back. Screenshots into
tests/browser/screenshots/."""

import pytest

pytestmark = pytest.mark.browser


def open_inline(page, cell: str):
    """Click the value; its small form replaces it, with the focus in its first field."""
    page.click(f"#{cell} a.editable-value")
    form = page.locator(f"form.value-form#{cell}")
    form.wait_for()
    return form


def save(page, cell: str) -> None:
    """Save the small form and wait for the value to be shown again (the blocks it moved swapped in)."""
    page.click(f"form.value-form#{cell} button[type=submit]")
    page.locator(f"span.editable#{cell}").wait_for()


def test_an_estimate_changed_in_place_recomputes_the_projection(server, page, screenshot):
    page.goto(server + "/campaigns/1")
    tile = page.locator('.tile[data-regime="concurrency 16"] .tile-figure strong')
    before = tile.inner_text()
    cell = "inline-effects-2-estimate"  # A1 on dense_gemm in concurrency 16
    form = open_inline(page, cell)
    assert page.evaluate("document.activeElement.name") == "speedup_low"
    form.locator("input[name=speedup_likely]").fill("1.9")
    form.locator("input[name=speedup_high]").fill("2.4")
    screenshot("inline-1-estimate-open")
    save(page, cell)
    assert "1.9x" in page.locator(f"#{cell}").inner_text()
    page.wait_for_function("([sel, old]) => document.querySelector(sel).textContent !== old",
                           arg=['.tile[data-regime="concurrency 16"] .tile-figure strong', before])
    assert tile.inner_text() != before
    # the change is stored: a reload shows it, and the plan's history notes it
    page.reload()
    assert "1.9x" in page.locator(f"#{cell}").inner_text()
    page.goto(server + "/campaigns/1/history")
    assert "updated effect" in page.locator("main").inner_text()


def test_a_wrong_value_is_refused_at_its_field_and_escape_puts_the_value_back(server, page, screenshot):
    page.goto(server + "/campaigns/1")
    cell = "inline-interventions-2-effort"
    shown = page.locator(f"#{cell}").inner_text()
    form = open_inline(page, cell)
    form.locator("input[name=effort_low_days]").fill("9")
    with page.expect_response(lambda r: r.request.method == "POST" and "/inline/effort" in r.url) as answer:
        form.locator("button[type=submit]").click()
    assert answer.value.status == 422
    error = page.locator(f"form#{cell} .has-error .error")
    error.wait_for()
    assert "low <= likely <= high" in error.inner_text()
    page.wait_for_function("() => document.activeElement.getAttribute('aria-invalid') === 'true'")  # focus on the field
    screenshot("inline-2-refused")
    page.keyboard.press("Escape")
    page.locator(f"span.editable#{cell}").wait_for()
    page.wait_for_function("cell => document.activeElement.closest('span.editable')?.id === cell", arg=cell)
    assert page.locator(f"#{cell}").inner_text() == shown  # nothing was saved
    page.reload()
    assert page.locator(f"#{cell}").inner_text() == shown


def test_a_status_and_a_gate_threshold_changed_in_place(server, page, screenshot):
    page.goto(server + "/campaigns/1")
    cell = "inline-interventions-2-status"
    form = open_inline(page, cell)
    form.locator("select[name=status]").select_option("landed")
    save(page, cell)
    assert page.locator(f"#{cell} .badge").inner_text() == "landed"
    page.wait_for_function("cell => document.activeElement.closest('span.editable')?.id === cell", arg=cell)
    progress = page.locator("#tier-status-1").inner_text()
    assert "landed" in progress

    gate = "inline-gates-1-threshold"
    form = open_inline(page, gate)
    form.locator("input[name=threshold]").fill("4000")
    save(page, gate)
    assert "4,000 tok/s" in page.locator(f"#{gate}").inner_text()
    row = page.locator(f'tr.gate:has(#{gate})')
    assert row.get_attribute("data-status") in {"fail", "pending"}
    screenshot("inline-3-saved")


def test_a_target_changed_on_a_regimes_page(server, page, screenshot):
    page.goto(server + "/campaigns/1/regimes/2")
    cell = "inline-regimes-2-target"
    form = open_inline(page, cell)
    form.locator("input[name=target_tok_s]").fill("800")
    with page.expect_navigation():  # the regime page loads again, recomputed
        form.locator("button[type=submit]").click()
    assert "800 tok/s" in page.locator(f"#{cell}").inner_text()
    assert "800 tok/s" in page.locator(".projection-chart, svg.chart").first.inner_html()
    screenshot("inline-4-regime-target")

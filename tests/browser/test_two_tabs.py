"""Two tabs and repeated submits: a stale save is refused and shows the newer one; a form sends its own key."""

from tests.browser.conftest import SCREENSHOTS


def test_the_second_tab_sees_the_first_tabs_change_and_can_reapply_its_own(server, browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    first, second = context.new_page(), context.new_page()
    url = f"{server}/campaigns/1/interventions/1/edit"
    first.goto(url)
    second.goto(url)
    first.fill("input[name=effort_likely_days]", "3")
    first.click("#edit-form button[type=submit]")
    first.wait_for_url(f"{server}/campaigns/1")
    second.fill("input[name=effort_likely_days]", "2.5")
    second.fill("input[name=title]", "SM120 FP8 GEMM autotune configs (tuned)")
    second.click("#edit-form button[type=submit]")
    conflict = second.locator(".conflict-table")
    conflict.wait_for()
    rows = conflict.inner_text()
    assert "Effort likely (days)" in rows and "3" in rows and "2.5" in rows
    assert second.input_value("input[name=title]").endswith("(tuned)")  # nothing typed is lost
    SCREENSHOTS.mkdir(exist_ok=True)
    second.screenshot(path=str(SCREENSHOTS / "stale-edit-conflict.png"), full_page=True)
    second.click("#edit-form button[type=submit]")  # reapply: the form now carries the new version
    second.wait_for_url(f"{server}/campaigns/1")
    assert "(tuned)" in second.content()
    context.close()


def test_the_measurement_form_carries_a_fresh_key_each_time_it_is_shown(server, page):
    page.goto(f"{server}/campaigns/1")
    key = page.locator("#measure input[name=idempotency_key]")
    first = key.input_value()
    assert len(first) == 32
    page.select_option("#measure select[name=regime]", "batch 1")
    page.fill("#measure input[name=value]", "11")
    page.click("#measure button[type=submit]")
    page.locator("#measure .saved").wait_for()
    page.wait_for_function("document.querySelector('#measure input[name=idempotency_key]').value.length === 32")
    assert key.input_value() != first

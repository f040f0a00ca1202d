"""axe-core (vendored from npm for the tests only, tests/browser/vendor/) on every page: no serious or critical
violation of WCAG 2.1 A and AA."""

from __future__ import annotations

from pathlib import Path

import pytest

AXE = (Path(__file__).parent / "vendor" / "axe.min.js").read_text()
PAGES = ["/", "/campaigns/1", "/campaigns/1/regimes/1", "/campaigns/1/regimes/2", "/campaigns/1/history",
         "/campaigns/1/compare?other=snapshot-1", "/campaigns/1/changes", "/campaigns/1/specs",
         "/campaigns/1/specs/hardware", "/campaigns/1/import", "/campaigns/1/edit", "/campaigns/1/effects/1/edit",
         "/campaigns/1/interventions/new", "/campaigns/1/gates/1/edit", "/campaigns/1/regimes/1/profile",
         "/campaigns/1/history?since=not-a-date"]
RUN = """async () => {
  const result = await axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}});
  return result.violations.filter(v => v.impact === "serious" || v.impact === "critical")
    .map(v => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.slice(0, 3).map(n => n.target.join(" ")).join(", ")}`);
}"""


@pytest.mark.parametrize("width", [1280, 1920])
def test_no_page_has_a_serious_or_critical_accessibility_violation(server, page, width):
    page.set_viewport_size({"width": width, "height": 900})
    found = {}
    for path in PAGES:
        page.goto(server + path)
        page.evaluate(AXE)  # evaluated by the driver, not a script tag: the pages' CSP stays as served
        for details in (summary for summary in page.locator("details").all()):
            details.evaluate("d => d.open = true")  # folded sections are checked too
        violations = page.evaluate(RUN)
        if violations:
            found[path] = violations
    # the plan with its small inline forms open, one refused with its message at the field
    page.goto(server + "/campaigns/1")
    page.evaluate(AXE)
    for cell in ("inline-interventions-1-status", "inline-effects-1-estimate", "inline-regimes-1-target"):
        page.click(f"#{cell} a.editable-value")
        page.locator(f"form.value-form#{cell}").wait_for()
    page.fill("form#inline-regimes-1-target input[name=target_tok_s]", "fast")
    page.click("form#inline-regimes-1-target button[type=submit]")
    page.locator("form#inline-regimes-1-target .has-error").wait_for()
    # htmx settles a swapped element for 20 ms with the old one's classes (the dimmed button of a request in flight)
    page.wait_for_function("() => !document.querySelector('.htmx-request, .htmx-settling, .htmx-swapping')")
    violations = page.evaluate(RUN)
    if violations:
        found["/campaigns/1 (inline forms open)"] = violations
    assert found == {}, "\n".join(f"{p}: {v}" for p, vs in found.items() for v in vs)

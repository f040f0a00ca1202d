"""In Chromium with no network beyond the server: /docs renders the API from the vendored Swagger UI."""

import pytest

pytestmark = pytest.mark.browser


def test_docs_render_offline(server, page, screenshot):
    outside: list[str] = []
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(server)
               else (outside.append(route.request.url), route.abort()))
    page.goto(f"{server}/docs")
    page.locator(".opblock-tag").first.wait_for(timeout=20_000)
    assert page.locator(".opblock").count() >= 4
    assert "tierplan" in page.locator(".title").first.inner_text()
    assert outside == []
    screenshot("docs")

"""Cross-site changes are refused; every response carries the security headers."""

import pytest

from tierplan.web.security import cross_site

BODY = {"regime": "batch 1", "metric": "output_tok_s", "value": "11"}


@pytest.mark.parametrize(("headers", "refused"), [
    ({"Sec-Fetch-Site": "cross-site"}, True),
    ({"Sec-Fetch-Site": "same-site"}, True),
    ({"Sec-Fetch-Site": "same-origin"}, False),
    ({"Sec-Fetch-Site": "none"}, False),
    ({"Origin": "http://evil.example"}, True),
    ({"Origin": "null"}, True),
    ({"Origin": "http://testserver"}, False),
    ({}, False),  # curl, CI, scripts: not a browser's cross-site request
])
def test_an_unsafe_request_from_another_site_is_refused_and_nothing_is_written(client, demo_id, headers, refused):
    before = len(client.get(f"/api/campaigns/{demo_id}/measurements").json())
    form = client.post(f"/campaigns/{demo_id}/measurements", data=BODY, headers=headers, follow_redirects=False)
    api = client.post(f"/api/campaigns/{demo_id}/measurements", json=BODY | {"value": 11}, headers=headers)
    after = len(client.get(f"/api/campaigns/{demo_id}/measurements").json())
    if refused:
        assert form.status_code == 403 and "another site" in form.text and api.status_code == 403
        assert api.json()["detail"].startswith("refused") and after == before
    else:
        assert form.status_code == 303 and api.status_code == 201 and after == before + 2


def test_reads_from_anywhere_still_answer():
    assert not cross_site("GET", {b"sec-fetch-site": b"cross-site"})


@pytest.mark.parametrize("path", ["/", "/campaigns/1", "/campaigns/1/history", "/api/campaigns", "/healthz",
                                  "/static/app.css", "/nowhere"])
def test_every_response_carries_the_security_headers(client, demo_id, path):
    response = client.get(path)
    csp = response.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]
    assert "frame-ancestors 'none'" in csp
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "same-origin"

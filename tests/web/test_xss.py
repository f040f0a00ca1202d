"""Hostile text stored in every text field comes out escaped in the pages, as JSON in the API, and inert in the
markdown export."""

import re

from markdown_it import MarkdownIt

CORPUS = ['<script>alert(1)</script>', '"><img src=x onerror=alert(2)>', "'><svg onload=alert(3)>",
          "javascript:alert(4)", "[x](javascript:alert(5))", "![i](http://evil.example/6.png)", "{{ 7*7 }}",
          "</textarea><script>alert(8)</script>", "<a href=\"javascript:alert(9)\">x</a>"]
EVIL = " ".join(CORPUS)
# tierplan's own tags: scripts from /static/, and its charts (<svg xmlns=... class="chart ...">, every string in
# them escaped by tierplan/views/charts.py); anything else that looks like a live tag came from the corpus
LIVE = re.compile(r"""<(script|img|svg|iframe)\b(?![^>]*\bsrc="/static/)(?![^>]*\bclass="chart )"""
                  r"""|["']\s*on(error|load)=|href=["']?javascript""", re.I)


def test_hostile_text_in_every_field_is_escaped_everywhere_it_shows(client, demo_id):
    api = f"/api/campaigns/{demo_id}"
    assert client.patch(api, json={"notes": EVIL, "hardware": EVIL[:900], "model": EVIL[:400]}).status_code == 200
    assert client.patch(f"{api}/regimes/1", json={"notes": EVIL}).status_code == 200
    assert client.patch(f"{api}/tiers/1", json={"description": EVIL, "name": EVIL[:150]}).status_code == 200
    assert client.patch(f"{api}/interventions/1", json={"title": EVIL[:250], "description": EVIL,
                                                        "links": EVIL}).status_code == 200
    assert client.patch(f"{api}/effects/1", json={"note": EVIL[:1500]}).status_code == 200
    assert client.patch(f"{api}/gates/1", json={"note": EVIL[:1500]}).status_code == 200
    measured = client.post(f"{api}/measurements", json={"regime": "batch 1", "metric": "output_tok_s", "value": 11,
                                                        "kind": "gate check", "note": EVIL[:1500]})
    assert measured.status_code == 201
    pages = ["/", f"/campaigns/{demo_id}", f"/campaigns/{demo_id}/regimes/1", f"/campaigns/{demo_id}/edit",
             f"/campaigns/{demo_id}/regimes/1/edit", f"/campaigns/{demo_id}/tiers/1/edit",
             f"/campaigns/{demo_id}/interventions/1/edit", f"/campaigns/{demo_id}/effects/1/edit",
             f"/campaigns/{demo_id}/gates/1/edit", f"/campaigns/{demo_id}/measurements/{measured.json()['id']}/retract",
             f"/campaigns/{demo_id}/history", f"/campaigns/{demo_id}/compare?other=snapshot-1", f"/campaigns/{demo_id}/changes"]
    for path in pages:
        page = client.get(path)
        assert page.status_code == 200, path
        assert not LIVE.search(page.text), (path, LIVE.search(page.text).group(0))
    plan = client.get(f"{api}/plan")
    assert plan.headers["content-type"].startswith("application/json") and plan.headers["x-content-type-options"]
    assert client.get(api).json()["notes"] == EVIL  # stored as typed, returned as typed (JSON escapes it)
    markdown = client.get(f"/campaigns/{demo_id}/roadmap.md").text
    rendered = MarkdownIt("commonmark").enable("table").render(markdown)
    assert not LIVE.search(rendered) and "evil.example/6.png\"" not in rendered

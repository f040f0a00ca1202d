"""Every link and form on the pages comes from a named route (url_for), and every link leads somewhere."""

import html
import re
from collections import Counter

from tierplan.main import create_app

LINK = re.compile(r'(?:href|hx-get)="(/[^"#]*)[^"]*"')
FORM = re.compile(r'(?:action|hx-post)="([^"]*)"')


def test_route_names_are_unique_so_url_for_finds_the_route_it_names():
    app = create_app()
    names = Counter(route.name for route in app.router.routes if hasattr(route, "name"))
    for included in (r for r in app.router.routes if hasattr(r, "original_router")):
        names.update(route.name for route in included.original_router.routes)
    assert [name for name, count in names.items() if count > 1] == []


def test_every_link_from_the_demo_pages_answers_and_every_form_posts_to_a_route(client, demo_id):
    seen: set[str] = set()
    queue = ["/"]
    forms: set[str] = set()
    while queue:
        path = queue.pop()
        if path in seen or path.startswith("/static/"):
            continue
        seen.add(path)
        page = client.get(path)
        assert page.status_code == 200, path
        if "text/html" not in page.headers["content-type"]:
            continue
        text = page.text
        queue += [html.unescape(link) for link in LINK.findall(text) if html.unescape(link) not in seen]
        forms |= {html.unescape(action) for action in FORM.findall(text)}
    assert {"/", f"/campaigns/{demo_id}", f"/campaigns/{demo_id}/import", f"/campaigns/{demo_id}/specs",
            f"/campaigns/{demo_id}/regimes/1", f"/campaigns/{demo_id}/regimes/new"} <= seen
    assert len(seen) > 40
    for action in forms:
        assert action.startswith("/"), action
        # a form posts where a route is (asked with a GET, which changes nothing: the page, or 405 for POST only)
        assert client.get(action).status_code in (200, 405), action

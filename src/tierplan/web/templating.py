"""Rendering: the whole page, or one named block of it for htmx."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Protocol
from urllib.parse import urlencode

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates
from jinja2_fragments import render_block

from tierplan.planning.metrics import METRICS
from tierplan.services.inline import cell_id
from tierplan.text import formatting as fmt


class Routes(Protocol):
    def url_path_for(self, name: str, /, **path_params: Any) -> Any: ...


def path_for(routes: Routes, name: str, query: dict[str, Any] | None = None, **params: Any) -> str:
    """The path of the route called `name` (a page, a form's action, a redirect), with an optional query string."""
    path = str(routes.url_path_for(name, **params))
    return f"{path}?{urlencode(query)}" if query else path


def make_templates(directory: str, routes: Routes) -> Jinja2Templates:
    templates = Jinja2Templates(directory=directory)
    templates.env.globals["metrics"] = METRICS
    templates.env.filters["metric"] = fmt.metric  # a metric name in words, where a template shows a row's name
    # url_for gives paths, not absolute URLs: a rendered page is cached and served to any host name, and a macro
    # rendered from Python has no request to ask.
    @lru_cache(maxsize=4096)  # a page of 50 runs links each: resolving a route walks every route
    def route_path(name: str, params: tuple[tuple[str, Any], ...]) -> str:
        return str(routes.url_path_for(name, **dict(params)))

    def url_for(name: str, query: dict[str, Any] | None = None, **params: Any) -> str:
        path = route_path(name, tuple(sorted(params.items())))
        return f"{path}?{urlencode(query)}" if query else path

    templates.env.globals["url_for"] = url_for
    # Macros as globals, so a block rendered on its own for htmx sees them too.
    macros = templates.env.get_template("partials/fields.html").module
    templates.env.globals.update(field=getattr(macros, "field"), badge=getattr(macros, "badge"),  # noqa: B009
                                 form_top=getattr(macros, "form_top"))  # noqa: B009
    # Inline editing of one value (tierplan/web/inline_pages.py), and the plan's blocks (tierplan/web/fragments.py renders
    # them one by one after a change).
    templates.env.globals["inline_id"] = cell_id
    templates.env.globals["inline"] = templates.env.get_template("partials/inline.html").module
    templates.env.globals["parts"] = templates.env.get_template("partials/plan_parts.html").module
    return templates


def render(
    request: Request,
    template: str,
    context: dict[str, Any],
    block: str | None = None,
    status: int = 200,
    headers: dict[str, str] | None = None,
) -> HTMLResponse:
    """Render `template` (or only `block` of it) with `context`; always sends Vary: HX-Request."""
    templates: Jinja2Templates = request.app.state.templates
    context = {"request": request, **context}
    if block is None:
        html = templates.get_template(template).render(context)
    else:
        html = render_block(templates.env, template, block, context)
    response = HTMLResponse(html, status_code=status, headers=headers)
    response.headers["Vary"] = "HX-Request"
    return response


def form_page(request: Request, *, campaign: Any, form: Any, title: str, noun: str, back: str, htmx: bool,
              action: str = "", status: int = 200, **extra: Any) -> HTMLResponse:
    """Every single-form page (editors, profile, kernel rules, retraction): first shown, or again with a 422."""
    context = {"campaign": campaign, "form": form, "action": action or request.url.path, "title": title,
               "noun": noun, "back": back, "delete_url": "", **extra}
    return render(request, "form.html", context, block="form" if htmx else None, status=status)

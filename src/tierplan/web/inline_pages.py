"""Inline editing on the plan page (htmx): click a value, edit it in place, save, and the blocks of the plan the
change moved come back swapped out of band. A 422 or a stale save gives the small form again, with its
messages at the fields. Without JavaScript the values are links to the full edit forms."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse

from tierplan.models.errors import FormInvalid, Stale
from tierplan.models.forms import Form
from tierplan.models.plan_rows import CampaignPublic
from tierplan.services.editing import Editor, form_of, read_row, save_form
from tierplan.services.editors import editor_of
from tierplan.services.inline import cell_id, for_value, group_fields, inline_form, merged_data
from tierplan.services.plan import plan_of
from tierplan.views.plan import PlanReport, plan_view
from tierplan.web.deps import CampaignDep, IsHtmx, NowDep, SessionDep, user_of
from tierplan.web.fragments import changed_parts, plan_parts
from tierplan.web.pages import redirect
from tierplan.web.templating import form_page, path_for

router = APIRouter(include_in_schema=False)


def _form_html(request: Request, campaign_id: int, kind: str, row_id: int, group: str, form: Form,
               status: int) -> HTMLResponse:
    macros = request.app.state.templates.env.globals["inline"]
    html = macros.inline_form(campaign_id, kind, row_id, group, form)
    return HTMLResponse(str(html), status_code=status, headers={"Vary": "HX-Request"})


def _on_plan_page(request: Request, campaign_id: int) -> bool:
    """Whether htmx sent the request from the plan page (its blocks can be swapped in); from elsewhere (a regime's
    page) the page is loaded again after a save or a cancel."""
    current = urlsplit(request.headers.get("HX-Current-URL", "")).path
    return current in ("", path_for(request.app, "plan", campaign_id=campaign_id))


REFRESH = {"HX-Refresh": "true", "Vary": "HX-Request"}


def _blocks(request: Request, before: PlanReport | None, after: PlanReport, cell: str) -> HTMLResponse:
    """The blocks of the plan that moved, and always the one holding the edited value (shown again, not as a
    form); the response swaps nothing itself (HX-Reswap: none), every block goes out of band."""
    parts = request.app.state.templates.env.globals["parts"]
    now_parts = plan_parts(parts, after)
    moved = changed_parts(plan_parts(parts, before), now_parts) if before is not None else []
    holder = [html for html in now_parts.values() if f'id="{cell}"' in html and html not in moved]
    return HTMLResponse("\n".join(holder + moved), headers={"HX-Reswap": "none", "Vary": "HX-Request"})


def _rejected(request: Request, campaign: CampaignPublic, editor: Editor, row: Any, group: str, whole: Form, htmx: bool,
              status: int) -> HTMLResponse:
    """The small form again with its messages; without htmx, the row's full form page with them."""
    kind, row_id = editor.kind, row.id
    if htmx:
        return _form_html(request, campaign.id, kind, row_id, group, for_value(whole, editor, group, row), status)
    return form_page(request, campaign=campaign, form=whole, title=f"Edit {editor.noun}", noun=editor.noun,
                     action=path_for(request.app, "update_row", campaign_id=campaign.id, kind=kind, row_id=row_id),
                     back=path_for(request.app, "plan", campaign_id=campaign.id), htmx=False, status=status)


@router.get("/campaigns/{campaign_id:id}/{kind}/{row_id:id}/inline/{group}", name="inline_form")
def open_inline(request: Request, campaign_id: int, _campaign: CampaignDep, kind: str, row_id: int, group: str,
                session: SessionDep, htmx: IsHtmx, cancel: bool = False) -> Response:
    """The small form of one value (htmx); `cancel=1`: the value shown again. Without htmx: the full form."""
    editor = editor_of(kind)
    group_fields(editor, group, read_row(session, editor, campaign_id, row_id))
    if not htmx:
        return redirect(path_for(request.app, "edit_row", campaign_id=campaign_id, kind=kind, row_id=row_id), False)
    if cancel and not _on_plan_page(request, campaign_id):
        return HTMLResponse("", headers=REFRESH)
    if cancel:
        return _blocks(request, None, plan_view(plan_of(session, campaign_id=campaign_id)),
                       cell_id(kind, row_id, group))
    form = inline_form(session, editor, campaign_id, row_id, group)
    return _form_html(request, campaign_id, kind, row_id, group, form, 200)


@router.post("/campaigns/{campaign_id:id}/{kind}/{row_id:id}/inline/{group}", name="save_inline")
async def post_inline(request: Request, campaign_id: int, campaign: CampaignDep, kind: str, row_id: int,
                      group: str, session: SessionDep, htmx: IsHtmx, now: NowDep) -> Response:
    """Save one value. htmx: the moved blocks out of band, or the small form with its messages (422, 409)."""
    editor = editor_of(kind)
    row = read_row(session, editor, campaign_id, row_id)
    group_fields(editor, group, row)  # NotFound before reading the body when the kind has no such value
    data = await request.form()
    in_place = htmx and _on_plan_page(request, campaign_id)  # else the page loads again after the save
    before = plan_view(plan_of(session, campaign_id=campaign_id)) if in_place else None
    merged = merged_data(session, editor, campaign_id, row_id, group, data)
    try:
        save_form(session, editor, campaign_id, row_id, merged, now=now, by=user_of(request))
    except FormInvalid as exc:
        whole = Form.rejected(editor.fields(session, campaign_id, row_id), merged, exc)
        return _rejected(request, campaign, editor, row, group, whole, htmx, 422)
    except Stale:
        whole = Form.stale(form_of(session, editor, campaign_id, row_id), merged)
        return _rejected(request, campaign, editor, row, group, whole, htmx, 409)
    if not htmx:
        return redirect(path_for(request.app, "plan", campaign_id=campaign_id), False)
    if not in_place:
        return HTMLResponse("", headers=REFRESH)
    after = plan_view(plan_of(session, campaign_id=campaign_id))
    return _blocks(request, before, after, cell_id(kind, row_id, group))

"""Create, edit and delete pages for the rows of a plan, one set of routes for every editor."""

from __future__ import annotations

from datetime import datetime

from fastapi import APIRouter, Request, Response
from sqlmodel import Session

from tierplan.models.errors import FormInvalid, NotFound, Stale
from tierplan.models.forms import Form
from tierplan.models.plan_rows import CampaignPublic
from tierplan.services import editing, profiles
from tierplan.services.editing import Editor, form_of, read_row, save_form, warnings_of
from tierplan.services.editors import EDITORS
from tierplan.services.profiles import PROFILE_FIELDS, regime_name, save_profile
from tierplan.web.deps import CampaignDep, IsHtmx, NowDep, SessionDep, user_of
from tierplan.web.pages import redirect
from tierplan.web.templating import form_page, path_for

router = APIRouter(include_in_schema=False)

NEW_DEFAULTS = {
    "regimes": {"concurrency": 1, "input_tokens": 1024, "output_tokens": 256},
    "tiers": {},
    "interventions": {},
    "effects": {},
    "gates": {},
    "slos": {},
}
DELETABLE = {"effects", "gates", "interventions", "tiers", "regimes", "slos"}  # the campaign itself: through the API


def _editor(kind: str) -> Editor:
    if kind not in NEW_DEFAULTS:
        raise NotFound(f"nothing called {kind!r} to edit")
    return EDITORS[kind]


def _form_page(request: Request, campaign: CampaignPublic, editor: Editor, form: Form, action: str, title: str, htmx: bool,
               status: int = 200, delete_url: str = "", saved: str = "") -> Response:
    return form_page(request, campaign=campaign, form=form, title=title, noun=editor.noun, action=action,
                     back=path_for(request.app, "plan", campaign_id=campaign.id), htmx=htmx, status=status,
                     delete_url=delete_url, saved=saved)


@router.get("/campaigns/{campaign_id:id}/{kind}/new", name="new_row")
def new_form(request: Request, campaign_id: int, campaign: CampaignDep, kind: str, session: SessionDep) -> Response:
    editor = _editor(kind)
    chosen = {k: v for k, v in request.query_params.items() if k in editor.create.model_fields}
    form = form_of(session, editor, campaign_id, defaults=NEW_DEFAULTS[kind] | chosen)
    return _form_page(request, campaign, editor, form, request.url.path, f"New {editor.noun}", False)


@router.post("/campaigns/{campaign_id:id}/{kind}/new", name="create_row")
async def create(request: Request, campaign_id: int, campaign: CampaignDep,
                 kind: str, session: SessionDep, htmx: IsHtmx, now: NowDep) -> Response:
    editor = _editor(kind)
    return await _submit(request, session, campaign, editor, None, f"New {editor.noun}", htmx, now)


@router.get("/campaigns/{campaign_id:id}/{kind}/{row_id:id}/edit", name="edit_row")
def edit_form(request: Request, campaign_id: int, campaign: CampaignDep, kind: str, row_id: int, session: SessionDep,
              saved: str = "") -> Response:
    editor = _editor(kind)
    form = form_of(session, editor, campaign_id, row_id)
    return _form_page(request, campaign, editor, form, request.url.path, f"Edit {editor.noun}", False,
                      delete_url=_delete_url(request, campaign_id, kind, row_id),
                      saved="Saved, and the plan recomputed: read the note below before you go back to the plan."
                      if saved and form.warnings else "")


@router.post("/campaigns/{campaign_id:id}/{kind}/{row_id:id}/edit", name="update_row")
async def update(request: Request, campaign_id: int, campaign: CampaignDep,
                 kind: str, row_id: int, session: SessionDep, htmx: IsHtmx,
                 now: NowDep) -> Response:
    editor = _editor(kind)
    read_row(session, editor, campaign_id, row_id)  # NotFound before the body is read
    return await _submit(request, session, campaign, editor, row_id, f"Edit {editor.noun}", htmx, now,
                         _delete_url(request, campaign_id, kind, row_id))


@router.post("/campaigns/{campaign_id:id}/{kind}/{row_id:id}/delete", name="delete_row")
def delete(request: Request, campaign_id: int, kind: str, row_id: int, session: SessionDep, htmx: IsHtmx,
           now: NowDep) -> Response:
    editor = _editor(kind)
    if kind not in DELETABLE:
        raise NotFound(f"{editor.noun} rows cannot be deleted here")
    editing.delete(session, editor, campaign_id, row_id, now=now, by=user_of(request))
    return redirect(path_for(request.app, "plan", campaign_id=campaign_id), htmx)


def _delete_url(request: Request, campaign_id: int, kind: str, row_id: int) -> str:
    if kind not in DELETABLE:
        return ""
    return path_for(request.app, "delete_row", campaign_id=campaign_id, kind=kind, row_id=row_id)


async def _submit(request: Request, session: Session, campaign: CampaignPublic, editor: Editor, row_id: int | None,
                  title: str,
                  htmx: bool, now: datetime, delete_url: str = "") -> Response:
    data = await request.form()
    try:
        stored = save_form(session, editor, campaign.id, row_id, data, now=now, by=user_of(request))
    except FormInvalid as exc:
        fields = editor.fields(session, campaign.id, row_id)
        form = Form.rejected(fields, data, exc)
        return _form_page(request, campaign, editor, form, request.url.path, title, htmx, 422, delete_url)
    except Stale:
        form = Form.stale(form_of(session, editor, campaign.id, row_id), data)
        return _form_page(request, campaign, editor, form, request.url.path, title, htmx, 409, delete_url)
    saved_id = int(getattr(stored, "id"))  # noqa: B009  (every public model of an edited row has its id)
    if warnings_of(session, editor, campaign.id, saved_id):  # saved, but it changes nothing: say so at the field
        edit_url = path_for(request.app, "edit_row", campaign_id=campaign.id, kind=editor.kind, row_id=saved_id)
        return redirect(edit_url + "?saved=1", htmx)
    return redirect(path_for(request.app, "plan", campaign_id=campaign.id), htmx)


@router.get("/campaigns/{campaign_id:id}/edit", name="edit_campaign")
def edit_campaign_form(request: Request, campaign_id: int, campaign: CampaignDep, session: SessionDep) -> Response:
    editor = EDITORS["campaign"]
    form = form_of(session, editor, campaign_id, campaign_id)
    return _form_page(request, campaign, editor, form, request.url.path, "Edit campaign", False)


@router.post("/campaigns/{campaign_id:id}/edit", name="save_campaign")
async def edit_campaign(request: Request, campaign_id: int, campaign: CampaignDep,
                        session: SessionDep, htmx: IsHtmx, now: NowDep) -> Response:
    editor = EDITORS["campaign"]
    return await _submit(request, session, campaign, editor, campaign_id, "Edit campaign", htmx, now)


@router.get("/campaigns/{campaign_id:id}/regimes/{regime_id:id}/profile", name="profile")
def profile_form(request: Request, campaign_id: int, campaign: CampaignDep, regime_id: int, session: SessionDep) -> Response:
    name = regime_name(session, campaign_id, regime_id)
    return _profile_page(request, campaign, regime_id, name, profiles.profile_form(session, campaign_id, regime_id))


def _profile_page(request: Request, campaign: CampaignPublic, regime_id: int, name: str, form: Form,
                  htmx: bool = False, status: int = 200) -> Response:
    return form_page(request, campaign=campaign, form=form, title=f"Profile of {name}", noun="profile",
                     back=path_for(request.app, "regime", campaign_id=campaign.id, regime_id=regime_id), htmx=htmx,
                     status=status)


@router.post("/campaigns/{campaign_id:id}/regimes/{regime_id:id}/profile", name="save_profile")
async def save_profile_form(
    request: Request, campaign_id: int, campaign: CampaignDep, regime_id: int, session: SessionDep, htmx: IsHtmx, now: NowDep
) -> Response:
    name = regime_name(session, campaign_id, regime_id)
    data = await request.form()
    try:
        save_profile(session, campaign_id, regime_id, data, now=now, by=user_of(request))
    except FormInvalid as exc:
        form = Form.rejected(PROFILE_FIELDS, data, exc)
        return _profile_page(request, campaign, regime_id, name, form, htmx, status=422)
    except Stale:
        form = Form.stale(profiles.profile_form(session, campaign_id, regime_id), data)
        return _profile_page(request, campaign, regime_id, name, form, htmx, 409)
    return redirect(path_for(request.app, "regime", campaign_id=campaign_id, regime_id=regime_id), htmx)

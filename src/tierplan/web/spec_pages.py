"""The hardware and model specs of a campaign, with presets, and the ceiling they give."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastapi import APIRouter, Request, Response
from sqlmodel import Session

from tierplan.models.errors import FormInvalid, NotFound, Stale
from tierplan.models.forms import Field, Form
from tierplan.models.plan_rows import CampaignPublic
from tierplan.services.editing_specs import SPEC_FORMS, save_spec, spec_initial
from tierplan.services.plan import plan_of
from tierplan.views.plan import plan_view
from tierplan.web.deps import CampaignDep, IsHtmx, NowDep, SessionDep, user_of
from tierplan.web.pages import redirect
from tierplan.web.templating import path_for, render

router = APIRouter(include_in_schema=False)
TITLES = {"hardware": "Hardware spec", "model": "Model spec"}


@router.get("/campaigns/{campaign_id:id}/specs", name="specs")
def specs_page(request: Request, campaign_id: int, campaign: CampaignDep, session: SessionDep) -> Response:
    return render(request, "specs.html", {"campaign": campaign, "plan": plan_view(plan_of(session, campaign_id=campaign_id))})


def _which(which: str) -> tuple[Any, ...]:
    if which not in SPEC_FORMS:
        raise NotFound(f"no {which!r} spec")
    return SPEC_FORMS[which]


def _page(request: Request, campaign: CampaignPublic, which: str, form: Form, htmx: bool = False,
          status: int = 200) -> Response:
    presets = [(key, p.name) for key, p in _which(which)[2].items()]
    context = {"campaign": campaign, "form": form, "which": which, "title": TITLES[which], "presets": presets,
               "action": path_for(request.app, "save_spec", campaign_id=campaign.id, which=which)}
    return render(request, "spec_form.html", context, block="form" if htmx else None, status=status)


@router.get("/campaigns/{campaign_id:id}/specs/{which}", name="spec")
def spec_form(request: Request, campaign_id: int, campaign: CampaignDep,
              which: str, session: SessionDep, preset: str | None = None) -> Response:
    _, fields, _, _ = _which(which)
    return _page(request, campaign, which, _opened(session, which, campaign_id, fields, preset))


def _opened(session: Session, which: str, campaign_id: int, fields: Sequence[Field], preset: str | None = None) -> Form:
    raw = spec_initial(session, which, campaign_id, preset)
    return Form(fields, raw=raw, version=raw.pop("version", None))


@router.post("/campaigns/{campaign_id:id}/specs/{which}", name="save_spec")
async def save_spec_form(request: Request, campaign_id: int, campaign: CampaignDep,
                         which: str, session: SessionDep, htmx: IsHtmx, now: NowDep) -> Response:
    _, fields, _, _ = _which(which)
    data = await request.form()
    try:
        save_spec(session, which, campaign_id, data, now=now, by=user_of(request))
    except FormInvalid as exc:
        return _page(request, campaign, which, Form.rejected(fields, data, exc), htmx, 422)
    except Stale:
        return _page(request, campaign, which, Form.stale(_opened(session, which, campaign_id, fields), data), htmx, 409)
    return redirect(path_for(request.app, "specs", campaign_id=campaign_id), htmx)

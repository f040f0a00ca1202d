"""The API tokens page: a logged-in user makes tokens for scripts and CI (shown once, only the hash kept), scoped
to a campaign or not, and revokes them."""

from __future__ import annotations

from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import RedirectResponse, Response
from sqlmodel import Session

from tierplan.db import accounts, repo
from tierplan.db.engine import new_session
from tierplan.models.errors import FormInvalid, NotFound
from tierplan.models.fields import check_options, form_fields, parse_form
from tierplan.models.forms import Form
from tierplan.models.measurements import TokenCreate
from tierplan.services.accounts import add_token, revoke_token
from tierplan.web.auth import OutOfScope, who_is
from tierplan.web.deps import user_of
from tierplan.web.templating import render

router = APIRouter(include_in_schema=False)


def _campaign_options(session: Session) -> dict:
    return {"campaign_id": tuple((str(c.id), c.name) for c in repo.list_campaigns(session))}


def _page(request: Request, user: str, form: Form | None = None, made: str = "", status: int = 200) -> Response:
    with new_session(request.app.state.engine) as session:
        options = _campaign_options(session)
        found = accounts.user_named(session, name=user)
        tokens = accounts.tokens_of(session, user_id=found.id or 0) if found else []
        names = dict(options["campaign_id"])
        rows = [(t.id, t.name, names.get(str(t.campaign_id), "any campaign") if t.campaign_id else "any campaign",
                 t.created_at, t.revoked_at) for t in tokens]
    form = form or Form(form_fields(TokenCreate, options))
    return render(request, "tokens.html", {"user": user, "form": form, "tokens": rows, "made": made}, status=status)


async def _user(request: Request) -> tuple[bool, str | None]:
    return await run_in_threadpool(who_is, request.app, dict(request.scope["headers"]))


@router.get("/tokens", name="tokens")
async def tokens_page(request: Request) -> Response:
    try:
        registered, user = await _user(request)
    except OutOfScope as exc:  # a campaign's token may not see (or make) tokens
        return render(request, "error.html", {"title": "Refused", "message": f"this token is for campaign "
                                              f"{exc.campaign_id} only; the tokens page needs a login"}, status=403)
    if not registered:
        return render(request, "tokens.html", {"user": None, "form": None, "tokens": [], "made": ""})
    if user is None:
        return RedirectResponse("/login?next=" + quote("/tokens", safe=""), status_code=303)
    return await run_in_threadpool(_page, request, user)


@router.post("/tokens", name="add_token")
async def make_token(request: Request) -> Response:
    user = user_of(request)  # the auth middleware let this change through: a user is logged in, or nobody exists
    if not user:
        return RedirectResponse("/tokens", status_code=303)
    data = await request.form()

    def make() -> Response:
        with new_session(request.app.state.engine, write=True) as session:
            options = _campaign_options(session)
            try:
                values = parse_form(TokenCreate, data)
                check_options(values, options)
                _, text = add_token(session, user, values.name, now=request.app.state.clock(), campaign_id=values.campaign_id)
            except FormInvalid as exc:
                return _page(request, user, Form.rejected(form_fields(TokenCreate, options), data, exc), status=422)
        return _page(request, user, made=text, status=201)

    return await run_in_threadpool(make)


@router.post("/tokens/{token_id:id}/revoke", name="revoke_token")
async def revoke(request: Request, token_id: int) -> Response:
    user = user_of(request)

    def run() -> None:
        with new_session(request.app.state.engine, write=True) as session:
            owner = accounts.user_named(session, name=user)
            mine = {t.id for t in accounts.tokens_of(session, user_id=owner.id or 0)} if owner else set()
            if token_id not in mine:
                raise NotFound(f"no token {token_id} of yours")
            revoke_token(session, token_id, now=request.app.state.clock())

    await run_in_threadpool(run)
    return RedirectResponse("/tokens", status_code=303)

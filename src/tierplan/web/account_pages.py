"""The account page: who you are, your password, and your login sessions (each can be ended)."""

from __future__ import annotations

from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import RedirectResponse, Response

from tierplan.db import accounts
from tierplan.db.engine import Sessions, new_session
from tierplan.models.errors import FormInvalid
from tierplan.models.fields import form_fields, parse_form
from tierplan.models.forms import Form
from tierplan.models.measurements import PasswordChange
from tierplan.services.accounts import change_password, end_session
from tierplan.web.auth import OutOfScope, login_of
from tierplan.web.templating import render

router = APIRouter(include_in_schema=False)
PASSWORD_FIELDS = form_fields(PasswordChange)


async def _login(request: Request) -> tuple[bool, str | None, int | None]:
    try:
        return await run_in_threadpool(login_of, request.app, dict(request.scope["headers"]))
    except OutOfScope:
        return True, None, None


def _page(request: Request, user: str, this_session: int | None, form: Form | None = None, message: str = "",
          status: int = 200) -> Response:
    with new_session(request.app.state.engine) as session:
        found = accounts.user_named(session, name=user)
        rows = [{"id": s.id, "since": s.created_at, "agent": s.user_agent or "unknown browser",
                 "this": s.id == this_session} for s in accounts.sessions_of(session, user_id=found.id or 0)] \
            if found else []
    context = {"user": user, "form": form or Form(PASSWORD_FIELDS), "sessions": rows, "message": message}
    return render(request, "account.html", context, status=status)


@router.get("/account", name="account")
async def account_page(request: Request) -> Response:
    registered, user, this_session = await _login(request)
    if not registered:
        return render(request, "account.html", {"user": None, "form": None, "sessions": [], "message": ""})
    if user is None or this_session is None:
        return RedirectResponse("/login?next=" + quote("/account", safe=""), status_code=303)
    return await run_in_threadpool(_page, request, user, this_session)


@router.post("/account/password", name="change_password")
async def password(request: Request) -> Response:
    registered, user, this_session = await _login(request)
    if user is None or this_session is None:
        return RedirectResponse("/login?next=" + quote("/account", safe=""), status_code=303)
    data = await request.form()

    def change() -> Response:
        try:
            values = parse_form(PasswordChange, data)
            if values.new != values.again:
                raise FormInvalid({"again": "the two new passwords differ"})
            ended = change_password(Sessions(request.app.state.engine), user, values.current, values.new,
                                    now=request.app.state.clock(), keep_session_id=this_session)
        except FormInvalid as exc:
            return _page(request, user, this_session, Form(PASSWORD_FIELDS, {}, exc.errors), status=422)
        others = f"; {ended} other session{'s' if ended != 1 else ''} ended" if ended else ""
        return _page(request, user, this_session, message=f"Password changed{others}.")

    return await run_in_threadpool(change)


@router.post("/account/sessions/{session_id:id}/end", name="end_session")
async def end(request: Request, session_id: int) -> Response:
    registered, user, this_session = await _login(request)
    if user is None or this_session is None:
        return RedirectResponse("/login?next=" + quote("/account", safe=""), status_code=303)

    def run() -> None:
        with new_session(request.app.state.engine, write=True) as session:
            end_session(session, user, session_id, now=request.app.state.clock())

    await run_in_threadpool(run)
    if session_id == this_session:
        response = RedirectResponse("/", status_code=303)
        response.delete_cookie("tierplan_session", path="/")
        return response
    return RedirectResponse("/account", status_code=303)

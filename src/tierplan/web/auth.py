"""Logins. With no users, tierplan is single-user (and `tierplan serve` keeps to loopback then). Once a user
exists, every change needs one: the signed session cookie of a login, or an API token (`Authorization: Bearer`).
With TIERPLAN_LOGIN_TO_READ, reading needs one too."""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import quote, urlsplit

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from tierplan.db import accounts
from tierplan.db.engine import Sessions, new_session
from tierplan.models.errors import FormInvalid
from tierplan.models.fields import form_fields, parse_form
from tierplan.models.forms import Form
from tierplan.models.measurements import LoginForm
from tierplan.services.accounts import (
    TooManyFailures,
    log_in,
    log_out,
    token_allows,
    user_of_session,
    user_of_token,
)
from tierplan.web.security import SAFE_METHODS
from tierplan.web.templating import render

COOKIE = "tierplan_session"
SESSION_DAYS = 14
OPEN_PATHS = ("/login", "/logout", "/static/", "/healthz")
LOGIN_FIELDS = tuple(f for f in form_fields(LoginForm) if f.name != "next")

router = APIRouter(include_in_schema=False)


def who_is(app: Any, headers: dict[bytes, bytes], method: str = "GET", path: str = "/") -> tuple[bool, str | None]:
    """Whether anyone is registered, and the name of the user this request comes from (None: nobody, or a session
    that has ended). OutOfScope for a token scoped to another campaign than the request's."""
    registered, user, _ = login_of(app, headers, method, path)
    return registered, user


def login_of(app: Any, headers: dict[bytes, bytes], method: str = "GET",
             path: str = "/") -> tuple[bool, str | None, int | None]:
    """As who_is, with the id of the login session the cookie holds (None for a token or no login)."""
    with new_session(app.state.engine) as session:
        if not accounts.any_user(session):
            return False, None, None
        authorization = headers.get(b"authorization", b"").decode("latin-1")
        if authorization.lower().startswith("bearer "):
            user, scope = user_of_token(session, authorization[7:].strip())
            if user is not None and not token_allows(scope, method, path):
                raise OutOfScope(scope)
            return True, user, None
        cookie = _cookie(headers.get(b"cookie", b"").decode("latin-1"))
        if not cookie:
            return True, None, None
        user, login = user_of_session(session, cookie)
        return True, user, login


def _cookie(header: str) -> str:
    for part in header.split(";"):
        name, _, value = part.strip().partition("=")
        if name == COOKIE:
            return value
    return ""


class AuthMiddleware:
    """Refuse what needs a login when there is none: a page goes to the login form, the API answers 401."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith(OPEN_PATHS):
            await self.app(scope, receive, send)
            return
        app = scope["app"]
        if scope["method"] in SAFE_METHODS and not app.state.settings.login_to_read:
            await self._read(app, scope, receive, send)
            return
        try:
            registered, user = await run_in_threadpool(who_is, app, dict(scope["headers"]), scope["method"],
                                                       scope["path"])
        except OutOfScope as exc:
            await _refuse(send, f"this token is for campaign {exc.campaign_id} only")
            return
        if not registered or user is not None:
            scope.setdefault("state", {}).update(user=user, registered=registered)
            await self.app(scope, receive, send)
            return
        await _ask_for_login(scope, send)

    async def _read(self, app: Any, scope: Scope, receive: Receive, send: Send) -> None:
        """A read anyone may make: the page's header still says who is logged in (a session cookie is looked up)
        or offers a login (once users exist, known to within USERS_SEEN_S)."""
        if scope["path"].startswith("/api"):  # no header to fill
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        state = scope.setdefault("state", {})
        if _cookie(headers.get(b"cookie", b"").decode("latin-1")):
            cookie_only = {b"cookie": headers[b"cookie"]}  # no token: nothing to refuse as out of scope
            state["registered"], state["user"], _ = await run_in_threadpool(login_of, app, cookie_only)
        else:
            state["registered"], state["user"] = await run_in_threadpool(_users_exist, app), None
        await self.app(scope, receive, send)


USERS_SEEN_S = 10.0


def _users_exist(app: Any) -> bool:
    """Whether anyone is registered, asked at most every USERS_SEEN_S seconds per process (for the header)."""
    seen = getattr(app.state, "users_seen", None)
    now = time.monotonic()
    if seen is None or now - seen[0] > USERS_SEEN_S:
        with new_session(app.state.engine) as session:
            seen = (now, accounts.any_user(session))
        app.state.users_seen = seen
    return bool(seen[1])


class OutOfScope(Exception):
    def __init__(self, campaign_id: int | None) -> None:
        super().__init__(campaign_id)
        self.campaign_id = campaign_id


async def _refuse(send: Send, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send({"type": "http.response.start", "status": 403,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


async def _ask_for_login(scope: Scope, send: Send) -> None:
    path = scope["path"]
    if path.startswith("/api"):
        body = json.dumps({"detail": "log in first: send Authorization: Bearer <token> (tierplan token add)"}).encode()
        headers = [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")]
        status = 401
    else:
        target = "/login?next=" + quote(path if scope["method"] in SAFE_METHODS else _came_from(scope), safe="")
        body, status = b"", 303
        headers = [(b"location", target.encode())]
        if dict(scope["headers"]).get(b"hx-request") == b"true":
            status, headers = 401, [(b"hx-redirect", target.encode())]
    await send({"type": "http.response.start", "status": status,
                "headers": [*headers, (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def _came_from(scope: Scope) -> str:
    """The page a refused change was sent from (its Referer, when on this site), to come back to after logging in."""
    referer = dict(scope["headers"]).get(b"referer", b"").decode("latin-1")
    host = dict(scope["headers"]).get(b"host", b"").decode("latin-1")
    parts = urlsplit(referer)
    return _local(parts.path + (f"?{parts.query}" if parts.query else "")) if parts.netloc == host else "/"


def _page(request: Request, form: Form, next_path: str, status: int = 200, message: str = "") -> Response:
    return render(request, "login.html", {"form": form, "next": next_path, "message": message}, status=status)


def _local(path: str) -> str:
    """Where to go after logging in: a path of this site only."""
    return path if path.startswith("/") and not path.startswith("//") and "\\" not in path else "/"


@router.get("/login", name="login")
def login_form(request: Request, next: str = "/") -> Response:
    return _page(request, Form(LOGIN_FIELDS), _local(next))


@router.post("/login", name="log_in")
async def login(request: Request) -> Response:
    data = await request.form()
    next_path = _local(str(data.get("next") or "/"))
    now = request.app.state.clock()
    try:
        values = parse_form(LoginForm, data)
        agent = request.headers.get("user-agent", "")
        cookie = await run_in_threadpool(log_in, Sessions(request.app.state.engine), values.name, values.password,
                                         now=now, user_agent=agent)
    except FormInvalid as exc:
        return _page(request, Form(LOGIN_FIELDS, {"name": str(data.get("name") or "")}, exc.errors), next_path, 422)
    except TooManyFailures as exc:
        return _page(request, Form(LOGIN_FIELDS, {"name": str(data.get("name") or "")}), next_path, 429, str(exc))
    response = RedirectResponse(next_path, status_code=303)
    response.set_cookie(COOKIE, cookie, max_age=SESSION_DAYS * 86400, httponly=True, samesite="lax",
                        secure=request.url.scheme == "https", path="/")
    return response


@router.post("/logout", name="log_out")
async def logout(request: Request) -> Response:
    """End this login's session on the server (its cookie no longer works anywhere), then drop the cookie."""
    cookie = request.cookies.get(COOKIE, "")
    if cookie:
        def end() -> None:
            with new_session(request.app.state.engine, write=True) as session:
                log_out(session, cookie, now=request.app.state.clock())

        await run_in_threadpool(end)
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(COOKIE, path="/")
    return response

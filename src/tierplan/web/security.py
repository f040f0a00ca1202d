"""Cross-site request refusal and the security headers of every response (a plain ASGI middleware).

An unsafe request (POST, PUT, PATCH, DELETE) is refused with 403 when a browser says it comes from another
site: `Sec-Fetch-Site` other than `same-origin` or `none` (typed or bookmarked), or, from a browser that does
not send that header, an `Origin` whose host is not the request's `Host`. A request with neither header (curl,
CI, the CLI) is not a browser's cross-site request and passes. This is the approach of Go's
CrossOriginProtection and Datasette 1.0. Behind a TLS proxy the proxy must pass `Host` through unchanged.
"""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

SAFE_METHODS = {"GET", "HEAD", "OPTIONS", "TRACE"}
ALLOWED_FETCH_SITES = {b"same-origin", b"none"}
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'; object-src 'none'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
]
REFUSAL = "refused: this request came from another site (tierplan accepts changes only from its own pages)"


def cross_site(method: str, headers: dict[bytes, bytes]) -> bool:
    """Whether a browser sent this unsafe request from another site."""
    if method in SAFE_METHODS:
        return False
    fetch_site = headers.get(b"sec-fetch-site")
    if fetch_site is not None:
        return fetch_site.lower() not in ALLOWED_FETCH_SITES
    origin = headers.get(b"origin")
    if origin is None:
        return False
    if origin == b"null":
        return True
    host = headers.get(b"host", b"").decode("latin-1").lower()
    return urlsplit(origin.decode("latin-1")).netloc.lower() != host


class SecurityMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        if cross_site(scope["method"], headers):
            await _refuse(scope, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await send(message)

        await self.app(scope, receive, with_headers)


async def _refuse(scope: Scope, send: Send) -> None:
    if scope["path"].startswith("/api"):
        body, kind = json.dumps({"detail": REFUSAL}).encode(), b"application/json"
    else:
        body = (f"<!doctype html><meta charset=utf-8><title>Refused</title><h1>Refused</h1><p>{REFUSAL}.</p>"
                "<p><a href=\"/\">Back to the campaigns</a></p>").encode()
        kind = b"text/html; charset=utf-8"
    await send({"type": "http.response.start", "status": 403,
                "headers": [(b"content-type", kind), (b"content-length", str(len(body)).encode()), *SECURITY_HEADERS]})
    await send({"type": "http.response.body", "body": body})

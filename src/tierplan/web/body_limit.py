"""Every request body bounded as it arrives (a plain ASGI middleware).

An upload route takes up to TIERPLAN_MAX_UPLOAD_MB (and a little for its form fields); every other request up to
TIERPLAN_MAX_BODY_KB. A declared Content-Length past the limit is answered 413 before a byte is read; a body
without one (chunked) is counted as it arrives and refused at the byte that passes the limit, so neither the
server's memory nor its temporary files grow with what a client sends.
"""

from __future__ import annotations

import re

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tierplan.config import Settings

UPLOAD_PATHS = re.compile(r"^/(api/)?campaigns/\d{1,9}/imports?$")
FORM_FIELDS_BYTES = 1 << 20  # an upload's other fields (a pasted summary block, the options)


class BodyTooLarge(HTTPException):
    def __init__(self, limit_bytes: int, upload: bool) -> None:
        what = f"{limit_bytes // (1 << 20)} MB (TIERPLAN_MAX_UPLOAD_MB)" if upload else \
            f"{limit_bytes // 1024} KB (TIERPLAN_MAX_BODY_KB)"
        super().__init__(413, f"the request body is larger than {what}: nothing was read or saved")


def limit_of(settings: Settings, path: str) -> tuple[int, bool]:
    """The body limit of a path in bytes, and whether it is an upload's."""
    if UPLOAD_PATHS.match(path):
        return settings.max_upload_mb * (1 << 20) + FORM_FIELDS_BYTES, True
    return settings.max_body_kb * 1024, False


class BodyLimitMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            await self.app(scope, receive, send)
            return
        limit, upload = limit_of(scope["app"].state.settings, scope["path"])
        declared = dict(scope["headers"]).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > limit:
            await _refuse(scope, receive, send, BodyTooLarge(limit, upload))
            return
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(limit, upload)
            return message

        await self.app(scope, counted, send)


async def _refuse(scope: Scope, receive: Receive, send: Send, exc: BodyTooLarge) -> None:
    """The app's own 413 answer (JSON for the API, a page otherwise), without reading the body."""

    handler = scope["app"].exception_handlers[HTTPException]
    response = await handler(Request(scope, receive), exc)
    response.headers["Connection"] = "close"
    await response(scope, receive, send)

"""A small client of a running tierplan's JSON API for `tierplan gates --server` and `tierplan push` (stdlib only,
so the command needs nothing the server does not)."""

from __future__ import annotations

import json
import secrets
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

TIMEOUT_S = 600.0  # a large upload is parsed before the server answers


class ServerError(Exception):
    """The server refused or could not be reached; the message says what it answered."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class Client:
    def __init__(self, base_url: str, token: str | None = None) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ServerError(f"--server must be an http(s) URL like http://127.0.0.1:8000, got {base_url!r}")
        self.base = base_url.rstrip("/")
        self.token = token

    def _headers(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        headers = {"Accept": "application/json", **(extra or {})}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        return headers

    def _send(self, request: urllib.request.Request) -> Any:
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as exc:
            raise ServerError(_problem(exc), exc.code) from None
        except (urllib.error.URLError, OSError) as exc:
            raise ServerError(f"cannot reach {self.base}: {getattr(exc, 'reason', exc)}") from None

    def get(self, path: str, query: Mapping[str, str] | None = None) -> Any:
        url = self.base + path + (f"?{urlencode(query)}" if query else "")
        return self._send(urllib.request.Request(url, headers=self._headers()))

    def post_files(self, path: str, files: Sequence[Path], fields: Mapping[str, str],
                   headers: Mapping[str, str] | None = None) -> Any:
        boundary = "tierplan-" + secrets.token_hex(12)
        body = _multipart(boundary, files, fields)
        request = urllib.request.Request(
            self.base + path, data=body, method="POST",
            headers=self._headers({"Content-Type": f"multipart/form-data; boundary={boundary}", **(headers or {})}))
        return self._send(request)


def _problem(exc: urllib.error.HTTPError) -> str:
    """The server's own words for a refusal: its detail and each field's message."""
    try:
        body = json.loads(exc.read() or b"{}")
    except ValueError:
        return f"HTTP {exc.code} {exc.reason}"
    detail = body.get("detail") if isinstance(body, dict) else None
    errors = body.get("errors") if isinstance(body, dict) else None
    parts = [str(detail)] if detail else []
    if isinstance(errors, dict):
        parts += [f"{field}: {message}" for field, message in errors.items()]
    return f"HTTP {exc.code}: " + ("; ".join(parts) or str(exc.reason))


def _multipart(boundary: str, files: Sequence[Path], fields: Mapping[str, str]) -> bytes:
    out: list[bytes] = []
    for name, value in fields.items():
        out += [f"--{boundary}\r\n".encode(), f'Content-Disposition: form-data; name="{name}"\r\n\r\n'.encode(),
                value.encode(), b"\r\n"]
    for path in files:
        safe = path.name.replace('"', "_").replace("\r", "_").replace("\n", "_")
        out += [f"--{boundary}\r\n".encode(),
                f'Content-Disposition: form-data; name="files"; filename="{safe}"\r\n'.encode(),
                b"Content-Type: application/octet-stream\r\n\r\n", path.read_bytes(), b"\r\n"]
    out.append(f"--{boundary}--\r\n".encode())
    return b"".join(out)

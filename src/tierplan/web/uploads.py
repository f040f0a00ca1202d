"""Uploaded files written to disk in chunks, with the size limit, for the import page and the API alike."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from starlette.datastructures import UploadFile

from tierplan.models.errors import FormInvalid

CHUNK = 1 << 20


async def save_uploads(uploads: Iterable[Any], folder: Path, limit_bytes: int) -> list[tuple[str, Path]]:
    """Each uploaded file as (its name, where it was written); FormInvalid once all together pass the limit."""
    folder.mkdir(parents=True, exist_ok=True)
    saved, total = [], 0
    for index, upload in enumerate(u for u in uploads if isinstance(u, UploadFile) and u.filename):
        target = folder / f"{index:03d}.upload"
        with open(target, "wb") as out:
            while chunk := await upload.read(CHUNK):
                total += len(chunk)
                if total > limit_bytes:
                    raise FormInvalid({"files": f"the upload is larger than {limit_bytes // (1024 * 1024)} MB"})
                out.write(chunk)
        saved.append((Path(upload.filename or "upload").name[-200:], target))  # shown and stored, never a path
    return saved

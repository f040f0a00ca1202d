"""Uploaded files written to disk in chunks, with the size limit, for the import page and the API alike."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterable
from datetime import timedelta
from pathlib import Path
from typing import Any

from starlette.datastructures import UploadFile

from app.db import jobs
from app.services.errors import FormInvalid

CHUNK = 1 << 20
UPLOAD_TTL_S = 24 * 3600  # a preview nobody confirmed or cancelled: its files are removed after a day


def remove_stale_uploads(root: Path, max_age_s: float = UPLOAD_TTL_S) -> list[str]:
    """Remove the upload folders untouched for `max_age_s` (abandoned previews); returns their names."""
    if not root.is_dir():
        return []
    cutoff, removed = time.time() - max_age_s, []
    for folder in root.iterdir():
        if folder.is_dir() and folder.name.isalnum() and folder.stat().st_mtime < cutoff:
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder.name)
    return removed


def clear_stale(connection, root: Path, max_age_s: float = UPLOAD_TTL_S) -> list[str]:
    """Abandoned uploads: their import jobs and their folders, untouched for `max_age_s`."""
    tokens = jobs.remove_older_than(connection, age=timedelta(seconds=max_age_s))
    for token in tokens:
        shutil.rmtree(root / token, ignore_errors=True)
    return sorted(set(tokens) | set(remove_stale_uploads(root, max_age_s)))


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

"""Where the templates, static files and migrations are: inside the package (src/tierplan/templates, static and
migrations), in a checkout and in an installed wheel alike."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

RESOURCE_NAMES = ("templates", "static", "migrations")


def resource_dir(name: str) -> Path:
    """The folder `name` (one of RESOURCE_NAMES) as a path on disk."""
    if name not in RESOURCE_NAMES:
        raise ValueError(f"unknown resource folder {name!r}")
    return Path(str(files("tierplan").joinpath(name)))

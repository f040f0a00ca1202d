"""Where the templates, static files and migrations are: inside the installed package, or beside it in a checkout.

A wheel ships them as `app/templates`, `app/static` and `app/migrations` (pyproject.toml maps the top-level
folders of the checkout there). An editable install or a checkout keeps them at the top level.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

RESOURCE_NAMES = ("templates", "static", "migrations")


def resource_dir(name: str) -> Path:
    """The folder `name` (one of RESOURCE_NAMES) as a path on disk."""
    if name not in RESOURCE_NAMES:
        raise ValueError(f"unknown resource folder {name!r}")
    packaged = Path(str(files("app").joinpath(name)))
    if packaged.is_dir():
        return packaged
    return Path(str(files("app"))).parent / name

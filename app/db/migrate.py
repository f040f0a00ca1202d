"""Run the Alembic migrations from code (the CLI and the tests use this)."""

from __future__ import annotations

from alembic import command
from alembic.config import Config

from app.config import get_settings
from app.db.locks import exclusive


def alembic_config(database_url: str) -> Config:
    settings = get_settings()
    config = Config()
    config.set_main_option("script_location", str(settings.migrations_dir))
    config.attributes["database_url"] = database_url
    return config


def upgrade_to_head(database_url: str) -> None:
    """Bring the database at `database_url` to the newest revision; one process at a time (the others wait,
    then find it at head)."""
    with exclusive(database_url, "migrate"):
        command.upgrade(alembic_config(database_url), "head")

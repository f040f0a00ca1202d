"""Run the Alembic migrations from code (the CLI and the tests use this)."""

from __future__ import annotations

from alembic import command
from alembic.config import Config

from tierplan.config import get_settings
from tierplan.db.locks import exclusive


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


def schema_is_behind(database_url: str) -> bool | None:
    """Whether the database's schema is older than this version's (not migrated at all, or to an older revision);
    None when the database cannot be asked."""
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory
    from sqlalchemy.exc import SQLAlchemyError

    from tierplan.db.engine import make_engine

    head = ScriptDirectory.from_config(alembic_config(database_url)).get_current_head()
    engine = make_engine(database_url)
    try:
        with engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision() != head
    except SQLAlchemyError:
        return None
    finally:
        engine.dispose()


def database_error(url: str, exc: Exception) -> str:
    """What failed, in one line; `tierplan migrate` named only when the schema is older than this tierplan's."""
    cause = getattr(exc, "orig", None) or exc
    what = f"{type(cause).__name__}: {(str(cause).splitlines() or [''])[0]}"
    if schema_is_behind(url):
        return (f"tierplan: the database {url} is not migrated to this version of tierplan: run `tierplan migrate` "
                f"({what})")
    return f"tierplan: the database {url} refused the command: {what}"

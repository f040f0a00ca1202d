"""Alembic environment: SQLModel metadata, batch mode on SQLite.

SQLite rebuilds a table for most ALTERs ("batch" mode). Dropping the old copy
of a parent table declared ON DELETE CASCADE would delete its children, so
foreign-key enforcement is switched off around the migration run and back on
after it (the pragma cannot change inside a transaction).
"""

from alembic import context
from sqlmodel import SQLModel

import tierplan.db.account_tables
import tierplan.db.history_tables
import tierplan.db.job_tables
import tierplan.db.snapshot_tables
import tierplan.db.tables  # noqa: F401
from tierplan.config import get_settings
from tierplan.db.engine import make_engine

config = context.config
target_metadata = SQLModel.metadata


def database_url() -> str:
    return config.attributes.get("database_url") or get_settings().database_url


def run_migrations_offline() -> None:
    url = database_url()
    context.configure(
        url=url,
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=url.startswith("sqlite"),
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    engine = config.attributes.get("engine") or make_engine(database_url())
    is_sqlite = engine.dialect.name == "sqlite"
    with engine.connect() as connection:
        if is_sqlite:  # outside any transaction, where SQLite ignores it (straight on the driver, which begins none)
            connection.connection.driver_connection.execute("PRAGMA foreign_keys=OFF")
        context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=is_sqlite)
        with context.begin_transaction():
            context.run_migrations()
        if is_sqlite:
            connection.commit()
            connection.connection.driver_connection.execute("PRAGMA foreign_keys=ON")


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()

"""`upgrade head` on an empty database gives exactly the models' schema."""

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlmodel import SQLModel

import app.db.tables  # noqa: F401
from app.db.engine import make_engine
from app.db.migrate import alembic_config


def schema_differences(url: str) -> list:
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return compare_metadata(MigrationContext.configure(connection), SQLModel.metadata)
    finally:
        engine.dispose()


def test_upgrade_head_leaves_no_difference_from_the_models(database_url):
    assert schema_differences(database_url) == []


def test_downgrade_to_base_and_back_up_again(database_url):
    config = alembic_config(database_url)
    command.downgrade(config, "base")
    command.upgrade(config, "head")
    assert schema_differences(database_url) == []

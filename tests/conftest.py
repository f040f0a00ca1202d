"""Shared fixtures: a fresh, migrated database per test; the app on it; a clock the test controls."""

from __future__ import annotations

import fcntl
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import closing, contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tierplan.config import Settings
from tierplan.db.engine import make_engine, new_session
from tierplan.db.migrate import upgrade_to_head

PG_ADMIN_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


class Clock:
    """A clock that stands still until the test moves it."""

    def __init__(self, now: datetime):
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock() -> Clock:
    return Clock(datetime(2026, 12, 1, 12, 0, tzinfo=UTC))


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory) -> Path:
    """A SQLite file brought to the newest revision once a session."""
    path = tmp_path_factory.mktemp("migrated") / "tierplan.db"
    upgrade_to_head(f"sqlite:///{path}")
    return path


@pytest.fixture
def sqlite_url(tmp_path, migrated_sqlite) -> str:
    """A SQLite file of its own at the newest revision: a copy (SQLite's backup) of the one migrated this
    session, the same schema for a third of a second less a test. The migrations themselves run from an empty
    file in tests/db/test_migrations.py."""
    path = tmp_path / "tierplan.db"
    with closing(sqlite3.connect(migrated_sqlite)) as source, closing(sqlite3.connect(path)) as target:
        source.backup(target)
    return f"sqlite:///{path}"


def reset_postgres() -> str:
    """Empty the `test` database's public schema; skip when the server is not there."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.exc import OperationalError

    engine = create_engine(PG_ADMIN_URL)
    try:
        with engine.begin() as connection:
            connection.execute(text("DROP SCHEMA IF EXISTS public CASCADE"))
            connection.execute(text("CREATE SCHEMA public"))
    except OperationalError as exc:
        pytest.skip(f"PostgreSQL is not reachable at 127.0.0.1:5432 ({exc.orig.__class__.__name__})")
    finally:
        engine.dispose()
    return PG_ADMIN_URL


@contextmanager
def empty_postgres() -> Iterator[str]:
    """The `test` database emptied, and to this test alone while it lasts. `make test` runs the tests in several
    processes (pytest-xdist) and each test on PostgreSQL empties the same public schema first, so they take turns
    on an exclusive lock of a file every process sees."""
    with open(Path(tempfile.gettempdir()) / "tierplan-tests-postgres.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield reset_postgres()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture
def postgres_url() -> Iterator[str]:
    with empty_postgres() as url:
        upgrade_to_head(url)
        yield url


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request) -> str:
    """Each test using this runs once on a SQLite file and once on PostgreSQL."""
    return request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "postgres_url")


@pytest.fixture
def engine(sqlite_url):
    engine = make_engine(sqlite_url)
    yield engine
    engine.dispose()


@pytest.fixture
def session(engine):
    with new_session(engine) as session:
        yield session


@pytest.fixture
def app(sqlite_url, clock, tmp_path):
    from tierplan.main import create_app

    settings = Settings(database_url=sqlite_url, load_demo_on_empty=False, upload_dir=tmp_path / "uploads")
    app = create_app(settings, clock=clock)
    yield app
    app.state.engine.dispose()


@pytest.fixture
def client(app) -> TestClient:
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client


@pytest.fixture
def demo_id(app, clock) -> int:
    from tierplan.services.demo import load_demo
    from tierplan.services.snapshots import settle_pending

    with new_session(app.state.engine) as session:
        campaign_id = load_demo(session, now=clock()).id
    settle_pending(app.state.engine, session)
    return campaign_id

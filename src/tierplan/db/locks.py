"""One process at a time: migrating, or loading the demo into an empty database (several servers may start at
once, several `tierplan migrate` may run at once). PostgreSQL: a session advisory lock; SQLite: an exclusive
lock on a file next to the database (fcntl), which every process on the host sees."""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

LOCK_KEYS = {"migrate": 72_616_001, "demo": 72_616_002}  # pg_advisory_lock keys, one per kind of work


@contextmanager
def exclusive(database_url: str, name: str) -> Iterator[None]:
    """Hold the lock called `name` for the database at `database_url` while the block runs (waiting for it)."""
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite":
        if not url.database or url.database == ":memory:":
            yield
            return
        path = Path(url.database).with_name(Path(url.database).name + f".{name}.lock")
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
        return
    engine = create_engine(database_url)
    try:
        # autocommit: the lock is the connection's, held across no transaction of its own
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": LOCK_KEYS[name]})
            try:
                yield
            finally:
                connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": LOCK_KEYS[name]})
    finally:
        engine.dispose()

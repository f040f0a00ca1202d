"""Engine construction; SQLite gets WAL, enforced foreign keys, a busy timeout and BEGIN IMMEDIATE for writers.

SQLite settings, and why:
- `journal_mode=WAL`: readers never wait for the writer, and a crash (even SIGKILL mid-write) loses no
  committed transaction;
- `synchronous=NORMAL`: with WAL this cannot corrupt the database; a power cut (not a process crash) may lose
  the last transactions before a checkpoint. FULL would fsync every commit for that; a planning tool whose
  writes are typed or imported again by a person takes NORMAL, which SQLite recommends with WAL;
- `foreign_keys=ON`: ON DELETE CASCADE and the references hold;
- `busy_timeout=15000`: a writer waits up to 15 s for another to finish instead of failing at once;
- a session that writes (`new_session(engine, write=True)`) begins with BEGIN IMMEDIATE: it takes the write
  lock before its first read, so two writers queue on the busy timeout. With a plain BEGIN, a transaction that
  read first and then writes cannot wait (SQLite answers "database is locked" at once to avoid a deadlock).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url
from sqlmodel import Session, create_engine


def make_engine(url: str, **pool: int) -> Engine:
    """An engine for `url`; creates the folder of a SQLite file if it is missing. `pool`: pool_size and
    max_overflow, when not the defaults."""
    from tierplan.db import revision, snapshots

    revision.install()
    snapshots.install()
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return create_engine(url, pool_pre_ping=True, **pool)
    if parsed.database and parsed.database != ":memory:":
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 15}, **pool)
    event.listen(engine, "connect", _sqlite_pragmas)
    event.listen(engine, "begin", _sqlite_begin)
    return engine


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    dbapi_connection.isolation_level = None  # the driver's own BEGIN off: _sqlite_begin emits it
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=15000")
    cursor.close()


def _sqlite_begin(connection) -> None:
    immediate = connection.get_execution_options().get(WRITE_OPTION)
    connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


WRITE_OPTION = "tierplan_write"


def new_session(engine: Engine, *, write: bool = False) -> Session:
    """A session; `write`: one that will write, so on SQLite it takes the write lock when it begins."""
    bind = engine.execution_options(**{WRITE_OPTION: True}) if write else engine
    return Session(bind, expire_on_commit=False)


_WRITERS: weakref.WeakKeyDictionary[Any, threading.Lock] = weakref.WeakKeyDictionary()  # SQLite pool -> its lock
_WRITERS_LOCK = threading.Lock()


class Sessions:
    """Where a use case opens its own sessions: `reader()` takes no lock, `writer()` takes SQLite's write lock
    when it begins, so a use case reads and analyses first and holds the lock for its writes alone.

    On SQLite, writers of this process also queue on a lock of their own before they begin: SQLite lets a waiting
    writer poll with growing sleeps, which under a stream of writes leaves some waiting for seconds; a thread's
    lock hands over as soon as it is released."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def reader(self) -> Session:
        return new_session(self.engine)

    @contextmanager
    def writer(self) -> Iterator[Session]:
        with self._queue(), new_session(self.engine, write=True) as session:
            yield session

    def _queue(self) -> AbstractContextManager:
        if self.engine.dialect.name != "sqlite":
            return nullcontext()
        with _WRITERS_LOCK:
            return _WRITERS.setdefault(self.engine.pool, threading.Lock())

"""Several `tierplan migrate`, or several servers on one empty database, started at once: all succeed, and the
demo campaign is loaded once."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, text

from tests.serving import start


def campaigns(url: str) -> int:
    engine = create_engine(url)
    with engine.connect() as connection:
        value = connection.execute(text("SELECT count(*) FROM campaign")).scalar()
    engine.dispose()
    return int(value or 0)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def empty_url(request, tmp_path) -> Iterator[str]:
    """A database with no tables yet, on a SQLite file or on the PostgreSQL server (held by this test alone)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'race.db'}"
        return
    from tests.conftest import empty_postgres

    with empty_postgres() as url:
        yield url


def test_four_migrations_at_once_all_succeed(empty_url):
    env = {**os.environ, "TIERPLAN_DATABASE_URL": empty_url}
    runs = [subprocess.Popen([sys.executable, "-m", "tierplan.cli", "migrate"], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True) for _ in range(4)]
    outputs = [(run.wait(timeout=120), run.stdout.read() if run.stdout else "") for run in runs]
    assert [code for code, _ in outputs] == [0, 0, 0, 0], outputs


def test_three_servers_starting_on_one_empty_database_load_the_demo_once(empty_url, tmp_path):
    import threading

    started: list = []

    def one(n: int) -> None:
        started.append(start(empty_url, tmp_path / f"server{n}.log"))

    threads = [threading.Thread(target=one, args=(n,)) for n in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert len(started) == 3 and campaigns(empty_url) == 1
    finally:
        for process, _ in started:
            process.terminate()
            process.wait(timeout=10)

"""Nothing an upload needs lives in one worker's memory: a large upload taken by one server is polled, previewed
and confirmed through another server on the same database and upload folder (one of them with two workers)."""

from __future__ import annotations

import re
import time

import pytest
import requests
from sqlalchemy import create_engine, text

from tests.polling import eventually
from tests.serving import start
from tests.web.test_imports import DATA
from tests.web.test_parse_jobs import slow_trace

HTMX = {"HX-Request": "true"}


def stored(url: str, query: str) -> int:
    engine = create_engine(url)
    with engine.connect() as connection:
        value = connection.execute(text(query)).scalar()
    engine.dispose()
    return int(value or 0)


@pytest.fixture
def two_servers(database_url, tmp_path):
    shared = {"upload_dir": str(tmp_path / "uploads"), "inline_parse_mb": "0"}
    first, base_a = start(database_url, tmp_path / "a.log", **shared)
    second, base_b = start(database_url, tmp_path / "b.log", "--workers", "2", **shared)
    yield database_url, base_a, base_b, tmp_path / "uploads"
    for process in (first, second):
        process.terminate()
        process.wait(timeout=15)


def test_an_upload_taken_by_one_server_is_polled_confirmed_or_cancelled_on_another(two_servers):
    """(Both in one test: starting the two servers, three workers, is most of its time.)"""
    url, base_a, base_b, uploads = two_servers
    before = stored(url, "SELECT count(*) FROM measurement")
    body = (DATA / "vllm" / "bench_serve_append.json").read_bytes()
    with requests.Session() as a, requests.Session() as b:
        started = a.post(f"{base_a}/campaigns/1/import", files={"files": ("run.json", body)},
                         data={"includes": ["A1", "A2"]}, headers=HTMX, timeout=30)
        token = re.search(r"/import/([0-9a-f]{32})/status", started.text).group(1)
        for _ in range(100):
            status = b.get(f"{base_b}/campaigns/1/import/{token}/status", headers=HTMX, timeout=30)
            if "Parsing…" not in status.text:
                break
            time.sleep(0.1)
        assert status.status_code == 200 and f"/import/{token}/confirm" in status.text
        confirmed = b.post(f"{base_b}/campaigns/1/import/{token}/confirm", headers=HTMX, timeout=30)
        assert confirmed.status_code == 204
        again = a.post(f"{base_a}/campaigns/1/import/{token}/confirm", headers=HTMX, timeout=30)  # a retry on the first
        assert again.status_code == 204
    assert stored(url, "SELECT count(*) FROM measurement") > before
    assert stored(url, f"SELECT count(*) FROM import_record WHERE batch = '{token}'") == 1
    a_parse_under_way_on_one_server_is_cancelled_from_another(url, base_a, base_b, uploads)


def a_parse_under_way_on_one_server_is_cancelled_from_another(url, base_a, base_b, uploads):
    with requests.Session() as a, requests.Session() as b:
        started = a.post(f"{base_a}/campaigns/1/import", files={"files": ("big.json.gz", slow_trace())},
                         data={"regime": "batch 1", "step_ms": "11.44"}, headers=HTMX, timeout=30)
        token = re.search(r"/import/([0-9a-f]{32})/cancel", started.text).group(1)
        assert b.post(f"{base_b}/campaigns/1/import/{token}/cancel", headers=HTMX, timeout=30).status_code == 204
        assert eventually(lambda: not (uploads / token).exists())  # the first server's watcher stops the parse
        assert b.get(f"{base_a}/campaigns/1/import/{token}/status", headers=HTMX, timeout=30).status_code == 404
    assert stored(url, f"SELECT count(*) FROM import_job WHERE token = '{token}' AND state = 'cancelled'") == 1
    assert not (uploads / token).exists()

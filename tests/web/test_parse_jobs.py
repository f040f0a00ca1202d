"""Uploads parse in a process of their own: past its CPU time or memory it stops with a message, a cancel stops it,
and a failed or cancelled upload leaves nothing on disk and nothing stored."""

import gzip
import re
import time

import pytest
from sqlalchemy.exc import OperationalError

from tests.polling import eventually
from tests.web.test_imports import APPEND, HTMX, counts, wait_for_parse
from tierplan.db import jobs
from tierplan.services import parse_jobs


def slow_trace(events: int = 300_000) -> bytes:
    """A valid profiler trace of `events` kernels: about 3 s of CPU to parse here, 2 MB gzipped."""
    body = ",".join(f'{{"ph":"X","cat":"kernel","name":"void gemm_kernel_{i % 50}","pid":0,"tid":7,"ts":{i * 5},'
                    f'"dur":3,"args":{{"correlation":{i}}}}}' for i in range(events))
    return gzip.compress(('{"traceEvents":[' + body + "]}").encode(), 1)


@pytest.fixture(scope="module")
def big_trace() -> bytes:
    return slow_trace()


def post_trace(client, campaign_id, data: bytes):
    return client.post(f"/campaigns/{campaign_id}/import", files=[("files", ("big.json.gz", data))],
                       data={"regime": "batch 1", "step_ms": "11.44"}, headers=HTMX)


def job_state(app, token: str) -> str | None:
    with app.state.engine.connect() as connection:
        return jobs.state_of(connection, token=token)


def uploads(app) -> list:
    root = app.state.settings.upload_dir
    return sorted(p.name for p in root.iterdir()) if root.exists() else []


def test_a_parse_past_its_cpu_time_stops_with_a_message_and_leaves_nothing(client, app, demo_id, big_trace):
    app.state.settings.parse_cpu_s = 1
    before = counts(app)
    response = post_trace(client, demo_id, big_trace)
    assert response.status_code == 422
    assert "parsing used more than 1 s of CPU time: nothing was imported" in response.text
    assert counts(app) == before and uploads(app) == []


def test_a_parse_past_its_memory_stops_with_a_message(client, app, demo_id):
    app.state.settings.parse_memory_mb = 1  # below what the process already holds: its first allocation fails
    before = counts(app)
    response = client.post(f"/campaigns/{demo_id}/import", headers=HTMX, data={"regime": "concurrency 16"},
                           files=[("files", ("run.json", b'{"output_throughput": 1, "max_concurrency": 16}'))])
    assert response.status_code == 422 and "parsing needed more than 1 MB of memory" in response.text
    assert counts(app) == before and uploads(app) == []


def test_a_background_parse_can_be_cancelled_and_leaves_nothing(client, app, demo_id, big_trace):
    app.state.settings.inline_parse_mb = 0
    before = counts(app)
    started = post_trace(client, demo_id, big_trace)
    token = re.search(r"/import/([0-9a-f]{32})/cancel", started.text).group(1)
    assert "Cancel this upload" in started.text and job_state(app, token) in ("waiting", "parsing")
    cancelled = client.post(f"/campaigns/{demo_id}/import/{token}/cancel", headers=HTMX)
    assert cancelled.status_code == 204 and job_state(app, token) == "cancelled"
    assert eventually(lambda: uploads(app) == [])  # the watcher looks about once a second: its folder goes
    assert job_state(app, token) == "cancelled" and counts(app) == before
    assert client.get(f"/campaigns/{demo_id}/import/{token}/status", headers=HTMX).status_code == 404


def test_a_watcher_that_loses_the_database_stops_the_parse_and_ends_its_job(client, app, demo_id, big_trace,
                                                                             monkeypatch):
    def busy(process, *_):
        time.sleep(0.5)  # the parse under way, then the database goes away for longer than the retries
        raise OperationalError("UPDATE upload_job", {}, Exception("database is locked"))

    monkeypatch.setattr(parse_jobs, "_watch", busy)
    app.state.settings.inline_parse_mb = 0
    before = counts(app)
    started = post_trace(client, demo_id, big_trace)
    token = re.search(r"/import/([0-9a-f]{32})/cancel", started.text).group(1)
    # the job is marked failed first and its files removed just after: wait for both
    assert eventually(lambda: job_state(app, token) not in ("waiting", "parsing") and uploads(app) == [])
    assert job_state(app, token) == "failed" and counts(app) == before
    shown = client.get(f"/campaigns/{demo_id}/import/{token}/status", headers=HTMX)
    assert "the server could not follow the parse" in shown.text


def test_a_confirm_sent_again_after_the_import_lands_on_the_plan(client, app, demo_id, clock):
    clock.advance(days=7)  # vLLM wrote bench_serve_append.json on 2026-12-07
    app.state.settings.inline_parse_mb = 0
    data = APPEND.read_bytes()
    first = client.post(f"/campaigns/{demo_id}/import", files=[("files", ("run.json", data))],
                        data={"includes": ["A1", "A2"]}, headers=HTMX)
    token = re.search(r"/import/([0-9a-f]{32})/status", first.text).group(1)
    assert "Parsing…" in first.text and wait_for_parse(client, demo_id, token).status_code == 200
    once = client.post(f"/campaigns/{demo_id}/import/{token}/confirm", headers=HTMX)
    stored = counts(app)
    again = client.post(f"/campaigns/{demo_id}/import/{token}/confirm", headers=HTMX)
    assert once.status_code == again.status_code == 204 and counts(app) == stored
    assert job_state(app, token) == "imported" and uploads(app) == []


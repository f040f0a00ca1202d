"""Hostile input that must not hold the server: bodies past their caps (declared or chunked), nesting bombs, more
uploads than parse slots."""

import contextlib
import http.client
import json
import re
from urllib.parse import urlsplit

from sqlmodel import func, select

from tests.web.test_imports import HTMX, counts
from tests.web.test_parse_jobs import job_state, post_trace, slow_trace, uploads
from tierplan.db.engine import new_session
from tierplan.db.tables import Campaign


def campaigns(app) -> int:
    with new_session(app.state.engine) as session:
        return session.exec(select(func.count()).select_from(Campaign)).one()


def test_a_json_body_past_its_cap_is_refused_before_it_is_read(client, app, demo_id):
    app.state.settings.max_body_kb = 4
    body = json.dumps({"name": "x", "description": "y" * 10_000, "model": "m", "hardware": "h"})
    refused = client.post("/api/campaigns", content=body, headers={"Content-Type": "application/json"})
    assert refused.status_code == 413
    assert "larger than 4 KB (TIERPLAN_MAX_BODY_KB)" in refused.json()["detail"] and campaigns(app) == 1


def test_a_form_past_its_cap_is_refused_with_a_page(client, app, demo_id):
    app.state.settings.max_body_kb = 4
    refused = client.post(f"/campaigns/{demo_id}/import/rules", data={"rules": "gemm => dense_gemm\n" * 1000})
    assert refused.status_code == 413 and "TIERPLAN_MAX_BODY_KB" in refused.text and "<html" in refused.text


def test_a_chunked_upload_past_the_cap_is_refused_as_it_arrives_and_leaves_no_file(sqlite_url, tmp_path):
    """No Content-Length: the server counts the body as it comes and stops at the cap (1 MB here), so a client
    cannot fill its disk or memory by leaving the length out."""
    upload_dir = tmp_path / "uploads"
    from tests.serving import start

    process, base = start(sqlite_url, tmp_path / "server.log", max_upload_mb="1", upload_dir=str(upload_dir))
    try:
        boundary = "tierplanboundary"
        head = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"files\"; filename=\"big.json\"\r\n"
                "Content-Type: application/json\r\n\r\n").encode()

        def body():
            yield head
            for _ in range(64):  # 64 x 64 KB: four times the cap
                yield b" " * 65536
            yield f"\r\n--{boundary}--\r\n".encode()

        parts = urlsplit(base)
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # it may close as it refuses
            connection.request("POST", "/api/campaigns/1/imports", body=body(), encode_chunked=True,
                               headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
        response = connection.getresponse()
        assert response.status == 413 and b"TIERPLAN_MAX_UPLOAD_MB" in response.read()
        assert not upload_dir.exists() or list(upload_dir.iterdir()) == []
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_a_nesting_bomb_is_refused_at_its_line_whatever_its_format(client, app, demo_id):
    before = counts(app)
    bombs = {"run.json": b'{"output_throughput": ' + b"[" * 200_000,
             "trace.json": b'{"traceEvents": [\n' + b"[" * 200_000}
    for name, data in bombs.items():
        refused = client.post(f"/api/campaigns/{demo_id}/imports", files=[("files", (name, data))],
                              data={"regime": "batch 1", "step_ms": "11.44"})
        assert refused.status_code == 422, refused.text
        assert "nested deeper than 64 levels" in json.dumps(refused.json()), name
    assert counts(app) == before and uploads(app) == []


def test_uploads_past_the_parse_slots_wait_their_turn_and_say_so(client, app, demo_id):
    app.state.settings.inline_parse_mb = 0
    app.state.settings.max_parses = 1
    trace = slow_trace(200_000)
    first = post_trace(client, demo_id, trace)
    second = post_trace(client, demo_id, trace)
    tokens = [re.search(r"/import/([0-9a-f]{32})/cancel", page.text).group(1) for page in (first, second)]
    status = client.get(f"/campaigns/{demo_id}/import/{tokens[1]}/status", headers=HTMX)
    assert job_state(app, tokens[1]) == "waiting"
    assert "Waiting to parse…" in status.text and "this server parses 1 upload at once" in status.text
    for token in tokens:
        assert client.post(f"/campaigns/{demo_id}/import/{token}/cancel", headers=HTMX).status_code == 204
        assert job_state(app, token) == "cancelled"

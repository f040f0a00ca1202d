"""No request holds the write lock while its body arrives: a client trickling a body to an upload route, a form
or the login leaves every other write free to go on (SQLite, a real server)."""

import http.client
import json
import socket
from urllib.parse import urlsplit

import pytest

from tests.serving import start

BOUNDARY = "tierplanslowbody"
RULES = b"rules=gemm+%3D%3E+dense_gemm%0A"


def multipart(name: str, data: bytes) -> bytes:
    return (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"files\"; filename=\"{name}\"\r\n"
            "Content-Type: application/octet-stream\r\n\r\n").encode() + data + f"\r\n--{BOUNDARY}--\r\n".encode()


@pytest.fixture
def server(sqlite_url, tmp_path):
    process, base = start(sqlite_url, tmp_path / "server.log", upload_dir=str(tmp_path / "uploads"))
    yield base
    process.terminate()
    process.wait(timeout=10)


def write_one(base: str, n: int) -> int:
    parts = urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    body = json.dumps({"regime": "batch 1", "metric": "output_tok_s", "value": 10 + n, "kind": "gate check"})
    connection.request("POST", "/api/campaigns/1/measurements", body=body,
                       headers={"Content-Type": "application/json"})
    return connection.getresponse().status


@pytest.mark.parametrize(("path", "kind", "body"), [
    ("/campaigns/1/import", f"multipart/form-data; boundary={BOUNDARY}", multipart("run.json", b'{"a": 1}' * 64)),
    ("/api/campaigns/1/imports", f"multipart/form-data; boundary={BOUNDARY}", multipart("run.json", b'{"a": 1}' * 64)),
    ("/campaigns/1/import/rules", "application/x-www-form-urlencoded", RULES),
    ("/login", "application/x-www-form-urlencoded", b"name=ana&password=not+it+at+all+really"),
])
def test_a_trickled_body_leaves_other_writes_free(server, path, kind, body):
    """Half the body is sent, then writes go on (each would wait out the 15 s busy timeout and answer 503 if the
    trickling request held the lock), then the rest of the body."""
    parts = urlsplit(server)
    with socket.create_connection((parts.hostname, parts.port), timeout=60) as slow:
        head = (f"POST {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nContent-Type: {kind}\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode()
        slow.sendall(head + body[: len(body) // 2])
        assert [write_one(server, n) for n in range(3)] == [201, 201, 201]
        slow.sendall(body[len(body) // 2:])
        status = int(slow.recv(4096).split(b" ", 2)[1])
    assert status < 500

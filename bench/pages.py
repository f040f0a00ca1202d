"""Benchmark: plan page and plan API requests/s against a bare endpoint of the same server.

Starts `tierplan serve` on a free port with a fresh SQLite file (the demo campaign), then for each
URL sends --requests sequential requests over one keep-alive connection and prints requests/s and
the ratio to /healthz, all measured in one run.

    python bench/pages.py [--requests 300]
"""

from __future__ import annotations

import _bootstrap

_bootstrap.ensure_project_python()

import argparse
import http.client
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
URLS = ("/healthz", "/campaigns/1", "/api/campaigns/1/plan", "/campaigns/1/roadmap.md")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rate(port: int, path: str, requests: int) -> float:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    for _ in range(5):  # warm up
        connection.request("GET", path)
        connection.getresponse().read()
    start = time.perf_counter()
    for _ in range(requests):
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        assert response.status == 200, (path, response.status)
    elapsed = time.perf_counter() - start
    connection.close()
    return requests / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300)
    args = parser.parse_args()
    folder = tempfile.mkdtemp()
    port = free_port()
    env = {**os.environ, "TIERPLAN_DATABASE_URL": f"sqlite:///{folder}/bench.db"}
    server = subprocess.Popen([sys.executable, "-m", "app.cli", "serve", "--port", str(port)], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                http.client.HTTPConnection("127.0.0.1", port, timeout=1).request("GET", "/healthz")
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("the server did not start")
                time.sleep(0.1)
        rates = {path: rate(port, path, args.requests) for path in URLS}
    finally:
        server.terminate()
        server.wait(timeout=10)
    bare = rates["/healthz"]
    print(f"{args.requests} sequential requests each, one uvicorn worker, demo campaign (10,000 samples)")
    for path, value in rates.items():
        print(f"  {path:<28} {value:8.1f} req/s   {value / bare:6.3f} of /healthz")


if __name__ == "__main__":
    main()

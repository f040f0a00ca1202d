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
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
URLS = ("/healthz", "/campaigns/1", "/api/campaigns/1/plan", "/campaigns/1/roadmap.md")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _client(port: int, path: str, requests: int, latencies: list[float]) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    for _ in range(requests):
        start = time.perf_counter()
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        latencies.append(time.perf_counter() - start)
        assert response.status == 200, (path, response.status)
    connection.close()


def rate(port: int, path: str, requests: int, clients: int) -> tuple[float, float, float]:
    """Requests/s of `clients` concurrent keep-alive clients, and the p50 and p99 latency in ms."""
    _client(port, path, 5, [])  # warm up
    latencies: list[float] = []
    threads = [threading.Thread(target=_client, args=(port, path, requests // clients, latencies))
               for _ in range(clients)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - start
    latencies.sort()
    return len(latencies) / elapsed, latencies[len(latencies) // 2] * 1000, latencies[int(len(latencies) * 0.99)] * 1000


def post_bytes(port: int) -> tuple[int, int, int, float, float]:
    """Bytes of the htmx answer to a measurement POST, of the whole plan page and of the answer to an inline edit
    of an estimate (the blocks it moved); the median seconds of that inline save, and of the same edit saved
    and the plan page loaded again (what a full form does)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request("GET", "/campaigns/1")
    page = len(connection.getresponse().read())
    body = urllib.parse.urlencode({"regime": "batch 1", "metric": "output_tok_s", "value": "11",
                                   "kind": "gate check", "note": "bench"})
    connection.request("POST", "/campaigns/1/measurements", body=body,
                       headers={"Content-Type": "application/x-www-form-urlencoded", "HX-Request": "true"})
    fragment = len(connection.getresponse().read())
    inline, saves = 0, []
    for version, likely in enumerate(("2", "1.5") * 5, start=1):  # A1's dense_gemm estimate, back and forth
        body = urllib.parse.urlencode({"speedup_low": "1.2", "speedup_likely": likely, "speedup_high": "2.5",
                                       "provenance": "assumed", "version": str(version)})
        start = time.perf_counter()
        connection.request("POST", "/campaigns/1/effects/2/inline/estimate", body=body,
                           headers={"Content-Type": "application/x-www-form-urlencoded", "HX-Request": "true"})
        answer = connection.getresponse()
        inline = len(answer.read())
        saves.append(time.perf_counter() - start)
        assert answer.status == 200, answer.status
    reloads = []  # the same edit saved without htmx (a JSON PATCH), then the plan page loaded again, as a form does
    for version, likely in enumerate(("2", "1.5") * 5, start=len(saves) + 1):
        start = time.perf_counter()
        connection.request("PATCH", "/api/campaigns/1/effects/2", body=json.dumps({"speedup_likely": float(likely)}),
                           headers={"Content-Type": "application/json", "If-Match": f'"{version}"'})
        answer = connection.getresponse()
        answer.read()
        assert answer.status == 200, answer.status
        connection.request("GET", "/campaigns/1")
        connection.getresponse().read()
        reloads.append(time.perf_counter() - start)
    connection.close()
    return fragment, page, inline, sorted(saves)[len(saves) // 2], sorted(reloads)[len(reloads) // 2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--clients", type=int, default=4, help="concurrent keep-alive clients")
    args = parser.parse_args()
    folder = tempfile.mkdtemp()
    port = free_port()
    env = {**os.environ, "TIERPLAN_DATABASE_URL": f"sqlite:///{folder}/bench.db"}
    server = subprocess.Popen([sys.executable, "-m", "tierplan.cli", "serve", "--port", str(port)], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                http.client.HTTPConnection("127.0.0.1", port, timeout=1).request("GET", "/healthz")
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("the server did not start") from None
                time.sleep(0.1)
        rates = {path: rate(port, path, args.requests, args.clients) for path in URLS}
        fragment, page, inline, save_s, reload_s = post_bytes(port)
    finally:
        server.terminate()
        server.wait(timeout=10)
    bare = rates["/healthz"][0]
    print(f"{args.requests} requests each from {args.clients} concurrent clients, one uvicorn worker, demo campaign")
    for path, (value, p50, p99) in rates.items():
        print(f"  {path:<28} {value:8.1f} req/s   {value / bare:6.3f} of /healthz   p50 {p50:6.1f} ms   "
              f"p99 {p99:6.1f} ms")
    print(f"  plan page ratio {rates['/campaigns/1'][0] / bare:.3f} (goal >= 0.4)")
    print(f"  measurement POST answer {fragment:,} B of a {page:,} B page: {fragment / page:.1%} (goal < 20%)")
    print(f"  inline edit of an estimate: answer {inline:,} B, {inline / page:.1%} of the page; median save "
          f"{save_s * 1000:.0f} ms against {reload_s * 1000:.0f} ms to save it and load the page again: "
          f"{save_s / reload_s:.2f}x")


if __name__ == "__main__":
    main()

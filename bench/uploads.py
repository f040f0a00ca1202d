"""Benchmark: a served tierplan stays responsive while a large upload parses.

Starts `tierplan serve` on a free loopback port (a fresh SQLite file), measures the plan page and /healthz with
--clients concurrent clients while idle, then uploads a generated profiler trace of --events kernels (parsed in
the background, in a process of its own) and measures the same again while it parses. Prints, measured in one
run: requests/s during the parse over requests/s idle for each page (goal: at least 0.5 on two cores), how long
the parse took, and the server's resident memory before and after (the parse's memory is its process's, not the
server's).

    python bench/uploads.py [--events 1500000] [--clients 4] [--requests 200]
"""

from __future__ import annotations

import _bootstrap

_bootstrap.ensure_project_python()

import argparse
import gzip
import http.client
import os
import re
import subprocess
import sys
import tempfile
import time
import uuid

from pages import ROOT, free_port, rate


def trace(events: int) -> bytes:
    body = ",".join(f'{{"ph":"X","cat":"kernel","name":"void gemm_kernel_{i % 50}","pid":0,"tid":7,"ts":{i * 5},'
                    f'"dur":3,"args":{{"correlation":{i}}}}}' for i in range(events))
    return gzip.compress(('{"traceEvents":[' + body + "]}").encode(), 1)


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")) / 1024


def post_upload(port: int, data: bytes) -> str:
    boundary = uuid.uuid4().hex
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
             for name, value in (("regime", "batch 1"), ("step_ms", "11.44"))]
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="big.json.gz"\r\n'
                 "Content-Type: application/gzip\r\n\r\n".encode() + data + b"\r\n")
    body = b"".join(parts) + f"--{boundary}--\r\n".encode()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request("POST", "/campaigns/1/import", body=body,
                       headers={"Content-Type": f"multipart/form-data; boundary={boundary}", "HX-Request": "true"})
    page = connection.getresponse().read().decode()
    found = re.search(r"/import/([0-9a-f]{32})/status", page)
    if not found:
        raise SystemExit("the upload was not parsed in the background:\n" + page[:2000])
    return found.group(1)


def parsing(port: int, token: str) -> bool:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request("GET", f"/campaigns/1/import/{token}/status", headers={"HX-Request": "true"})
    return "Parsing…" in connection.getresponse().read().decode()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=1_500_000)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    data = trace(args.events)
    folder = tempfile.mkdtemp()
    port = free_port()
    env = {**os.environ, "TIERPLAN_DATABASE_URL": f"sqlite:///{folder}/bench.db", "TIERPLAN_INLINE_PARSE_MB": "0",
           "TIERPLAN_UPLOAD_DIR": f"{folder}/uploads"}
    server = subprocess.Popen([sys.executable, "-m", "tierplan.cli", "serve", "--port", str(port)], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                rate(port, "/healthz", 1, 1)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("the server did not start") from None
                time.sleep(0.2)
        idle = {path: rate(port, path, args.requests, args.clients) for path in ("/healthz", "/campaigns/1")}
        before_mb = rss_mb(server.pid)
        started = time.perf_counter()
        token = post_upload(port, data)
        busy = {path: rate(port, path, args.requests, args.clients) for path in ("/healthz", "/campaigns/1")}
        still_parsing = parsing(port, token)
        while parsing(port, token):
            time.sleep(0.2)
        parse_s = time.perf_counter() - started
        print(f"upload: a trace of {args.events:,} kernels, {len(data) / 1e6:.1f} MB gzipped; parsed in the "
              f"background in {parse_s:.1f} s (still parsing when the measurements ended: {still_parsing})")
        for path in idle:
            (idle_rate, _, idle_p99), (busy_rate, _, busy_p99) = idle[path], busy[path]
            print(f"{path}: {busy_rate:,.0f} req/s while parsing over {idle_rate:,.0f} idle = "
                  f"{busy_rate / idle_rate:.2f} (goal >= 0.5); p99 {busy_p99:.1f} ms against {idle_p99:.1f} ms")
        print(f"server memory: {before_mb:.0f} MB before the upload, {rss_mb(server.pid):.0f} MB after its parse")
    finally:
        server.terminate()
        server.wait(timeout=15)


if __name__ == "__main__":
    main()

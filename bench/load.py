"""Benchmark: a served tierplan under 16 concurrent clients mixing reads and writes.

Starts `tierplan serve` on a free loopback port (a fresh SQLite file with one worker, then the PostgreSQL at
127.0.0.1:5432 with --pg-workers workers, when it answers), measures /healthz alone, then runs the mix: each
client sends --requests requests, about 7 in 10 the plan page, 1 in 10 the plan API and 2 in 10 a measurement
POST through the API. Prints, measured in one run: plan-page requests/s over /healthz requests/s of the same
server, p50 and p99 latency, errors (goal 0) and lost writes (acknowledged with 201 but not stored; goal 0).

    python bench/load.py [--clients 16] [--requests 60] [--pg-workers 2]
"""

from __future__ import annotations

import _bootstrap

_bootstrap.ensure_project_python()

import argparse
import http.client
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time

from pages import ROOT, free_port, rate
from sqlalchemy import create_engine, text

PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
MIX = (("GET", "/campaigns/1"),) * 7 + (("GET", "/api/campaigns/1/plan"),) + (("POST", "/api/campaigns/1/measurements"),) * 2


def serve(url: str, workers: int) -> tuple[subprocess.Popen, int]:
    port = free_port()
    env = {**os.environ, "TIERPLAN_DATABASE_URL": url}
    log = open(os.environ.get("TIERPLAN_BENCH_LOG", os.devnull), "a")  # the server writes to it until it ends
    process = subprocess.Popen([sys.executable, "-m", "tierplan.cli", "serve", "--port", str(port), "--workers", str(workers)],
                               cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while True:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            connection.request("GET", "/campaigns/1")
            if connection.getresponse().status == 200:
                return process, port
        except OSError:
            pass
        if time.monotonic() > deadline or process.poll() is not None:
            process.kill()
            raise SystemExit(f"the server on {url} did not start")
        time.sleep(0.2)


def mixed(port: int, clients: int, requests: int, tag: str) -> dict:
    """Run the mix; the plan page's rate and latencies, errors, and the writes acknowledged."""
    lock = threading.Lock()
    page_latencies: list[float] = []
    errors: list[str] = []
    acked: list[str] = []

    def client(n: int) -> None:
        rng = random.Random(n)
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        for k in range(requests):
            method, path = rng.choice(MIX)
            body, headers = None, {}
            if method == "POST":
                note = f"{tag} {n}-{k}"
                body = json.dumps({"regime": "batch 1", "metric": "output_tok_s", "value": 10 + rng.random(),
                                   "kind": "gate check", "note": note})
                headers = {"Content-Type": "application/json"}
            start = time.perf_counter()
            try:
                connection.request(method, path, body=body, headers=headers)
                response = connection.getresponse()
                response.read()
            except OSError as exc:
                with lock:
                    errors.append(f"{method} {path}: {exc}")
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                continue
            took = time.perf_counter() - start
            with lock:
                if response.status >= 400:
                    errors.append(f"{method} {path}: {response.status}")
                elif method == "POST":
                    acked.append(note)
                elif path == "/campaigns/1":
                    page_latencies.append(took)
        connection.close()

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - start
    page_latencies.sort()
    return {"elapsed": elapsed, "pages": len(page_latencies), "errors": errors, "acked": acked,
            "p50": page_latencies[len(page_latencies) // 2] * 1000 if page_latencies else 0.0,
            "p99": page_latencies[int(len(page_latencies) * 0.99)] * 1000 if page_latencies else 0.0}


def stored_notes(url: str, tag: str) -> set[str]:
    engine = create_engine(url)
    with engine.connect() as connection:
        rows = connection.execute(text("SELECT note FROM measurement WHERE note LIKE :tag"), {"tag": tag + " %"})
        notes = {row[0] for row in rows}
    engine.dispose()
    return notes


def postgres_answers() -> bool:
    engine = create_engine(PG_URL)
    try:
        with engine.begin() as connection:
            connection.execute(text("DROP SCHEMA IF EXISTS public CASCADE"))
            connection.execute(text("CREATE SCHEMA public"))
        return True
    except Exception:  # any failure: the server is not there
        return False
    finally:
        engine.dispose()


def run(label: str, url: str, workers: int, args) -> None:
    process, port = serve(url, workers)
    try:
        healthz = rate(port, "/healthz", 400, 4)[0]
        tag = f"load-{int(time.time())}"
        result = mixed(port, args.clients, args.requests, tag)
    finally:
        process.terminate()
        process.wait(timeout=20)
    lost = [note for note in result["acked"] if note not in stored_notes(url, tag)]
    pages_per_s = result["pages"] / result["elapsed"]
    print(f"{label}: {args.clients} clients x {args.requests} requests (7/10 plan page, 1/10 plan API, "
          f"2/10 measurement POST), {workers} worker(s)")
    print(f"  /healthz alone                 {healthz:8.1f} req/s")
    print(f"  plan page under the mix        {pages_per_s:8.1f} req/s   {pages_per_s / healthz:6.3f} of /healthz   "
          f"p50 {result['p50']:6.1f} ms   p99 {result['p99']:6.1f} ms")
    print(f"  writes acknowledged {len(result['acked'])}, lost {len(lost)} (goal 0); errors {len(result['errors'])} "
          f"(goal 0){': ' + '; '.join(result['errors'][:3]) if result['errors'] else ''}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--requests", type=int, default=60, help="requests each client sends")
    parser.add_argument("--pg-workers", type=int, default=2)
    args = parser.parse_args()
    folder = tempfile.mkdtemp()
    run("SQLite", f"sqlite:///{folder}/load.db", 1, args)
    if postgres_answers():
        run("PostgreSQL", PG_URL, args.pg_workers, args)
    else:
        print("PostgreSQL: not reachable at 127.0.0.1:5432, skipped")


if __name__ == "__main__":
    main()

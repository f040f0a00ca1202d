"""Benchmark: concurrent writers against a served tierplan; every write stored, none refused, memory flat.

Starts `tierplan serve` on a free loopback port, on a fresh SQLite file with one worker and then on the
PostgreSQL at 127.0.0.1:5432 (when it answers) with --pg-workers workers; after 100 writes from one client (the
server's memory is read then), --writers clients each POST --each gate-check measurements through the API, one
after another, then more until --memory-writes in all, and the memory is read again. Prints, for each database:
the answers by status (goal: all 201), the rows stored against the writes acknowledged (goal: equal), the writes
per second, p50 and p99 latency (goal: p99 under 2 s), and the server's memory after 100 writes and after all
(goal: within 1.5x).

    python bench/writers.py [--writers 8] [--each 500] [--pg-workers 2] [--memory-writes 10000]
"""

from __future__ import annotations

import _bootstrap

_bootstrap.ensure_project_python()

import argparse
import http.client
import json
import shutil
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from load import PG_URL, postgres_answers, serve, stored_notes


def rss_mb(pid: int) -> float:
    """The resident memory of a process and its children (the server's workers), in MB."""
    total = 0
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
        if int(fields.get("Pid", "0")) == pid or int(fields.get("PPid", "0").strip() or 0) == pid:
            total += int(fields.get("VmRSS", "0 kB").split()[0])
    return total / 1024


def write(port: int, writers: int, each: int, tag: str) -> tuple[list[int], list[float], float]:
    """`writers` clients each POSTing `each` gate checks one after another: statuses, latencies, seconds."""
    statuses: list[int] = []
    latencies: list[float] = []

    def writer(n: int) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        for k in range(each):
            body = json.dumps({"regime": "batch 1", "metric": "output_tok_s", "value": 10 + k % 5,
                               "kind": "gate check", "note": f"{tag} {n}-{k}"})
            start = time.perf_counter()
            connection.request("POST", "/api/campaigns/1/measurements", body=body,
                               headers={"Content-Type": "application/json"})
            response = connection.getresponse()
            response.read()
            latencies.append(time.perf_counter() - start)
            statuses.append(response.status)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(writers)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return statuses, latencies, time.perf_counter() - start


def run(label: str, url: str, workers: int, args) -> None:
    process, port = serve(url, workers)
    try:
        warm, _, _ = write(port, 1, 100, "warm-up")  # the server's memory after its first 100 writes
        memory_100 = rss_mb(process.pid)
        statuses, latencies, elapsed = write(port, args.writers, args.each, "writers")
        rest = max(args.memory_writes - 100 - len(statuses), 0)
        if rest:
            more, _, _ = write(port, args.writers, rest // args.writers, "more")
            statuses_more = len(more)
        else:
            statuses_more = 0
        memory_end = rss_mb(process.pid)
    finally:
        process.terminate()
        process.wait(timeout=30)
    stored = len(stored_notes(url, "writers"))
    answers = ", ".join(f"{count} x {status}" for status, count in sorted(Counter(statuses).items()))
    latencies.sort()
    p99 = latencies[int(len(latencies) * 0.99)] if latencies else 0.0
    total = len(warm) + len(statuses) + statuses_more
    print(f"{label} ({workers} worker{'s' if workers > 1 else ''}): {args.writers} writers x {args.each}: {answers}; "
          f"{stored} stored of {statuses.count(201)} acknowledged; {len(statuses) / elapsed:.1f} writes/s; "
          f"p50 {latencies[len(latencies) // 2] * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms; server memory "
          f"{memory_100:.0f} MB after 100 writes, {memory_end:.0f} MB after {total:,} ({memory_end / memory_100:.2f}x)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--each", type=int, default=500)
    parser.add_argument("--pg-workers", type=int, default=2)
    parser.add_argument("--memory-writes", type=int, default=10_000, help="writes before the memory is read again")
    args = parser.parse_args()
    folder = tempfile.mkdtemp()
    try:
        run("SQLite", f"sqlite:///{folder}/writers.db", 1, args)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if postgres_answers():
        run("PostgreSQL", PG_URL, args.pg_workers, args)
    else:
        print("PostgreSQL: not reachable at 127.0.0.1:5432, skipped")


if __name__ == "__main__":
    main()

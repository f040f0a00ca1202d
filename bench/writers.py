"""Benchmark: concurrent writers against a served tierplan; every write stored, none refused.

Starts `tierplan serve` on a free loopback port, on a fresh SQLite file with one worker and then on the
PostgreSQL at 127.0.0.1:5432 (when it answers) with --pg-workers workers; --writers clients each POST --each
gate-check measurements through the API, one after another. Prints, for each database: the answers by status
(goal: all 201), the rows stored against the writes acknowledged (goal: equal) and the writes per second.

    python bench/writers.py [--writers 8] [--each 500] [--pg-workers 2]
"""

from __future__ import annotations

import _bootstrap

_bootstrap.ensure_project_python()

import argparse
import http.client
import json
import tempfile
import threading
import time
from collections import Counter

from load import PG_URL, postgres_answers, serve, stored_notes


def run(label: str, url: str, workers: int, args) -> None:
    process, port = serve(url, workers)
    statuses: list[int] = []
    try:
        def writer(n: int) -> None:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            for k in range(args.each):
                body = json.dumps({"regime": "batch 1", "metric": "output_tok_s", "value": 10 + k % 5,
                                   "kind": "gate check", "note": f"writers {n}-{k}"})
                connection.request("POST", "/api/campaigns/1/measurements", body=body,
                                   headers={"Content-Type": "application/json"})
                response = connection.getresponse()
                response.read()
                statuses.append(response.status)

        threads = [threading.Thread(target=writer, args=(n,)) for n in range(args.writers)]
        start = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - start
    finally:
        process.terminate()
        process.wait(timeout=30)
    stored = len(stored_notes(url, "writers"))
    answers = ", ".join(f"{count} x {status}" for status, count in sorted(Counter(statuses).items()))
    print(f"{label} ({workers} worker{'s' if workers > 1 else ''}): {args.writers} writers x {args.each}: {answers}; "
          f"{stored} stored of {statuses.count(201)} acknowledged; {len(statuses) / elapsed:.1f} writes/s")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--each", type=int, default=500)
    parser.add_argument("--pg-workers", type=int, default=2)
    args = parser.parse_args()
    run("SQLite", f"sqlite:///{tempfile.mkdtemp()}/writers.db", 1, args)
    if postgres_answers():
        run("PostgreSQL", PG_URL, args.pg_workers, args)
    else:
        print("PostgreSQL: not reachable at 127.0.0.1:5432, skipped")


if __name__ == "__main__":
    main()

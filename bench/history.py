"""Benchmark: what a long CI history costs each page, API read and write, against the fresh demo.

Writes one vLLM `bench serve --save-result --append-result` file per case: a run a night for each regime
(concurrencies 1, 4, 16, 64, or 16 of them from 1 to 384), for 1 and 10 years, every field as `vllm bench serve`
saves it with its default percentile metrics (ttft, tpot, itl: mean, median, std, p99), throughput with 3% noise
and a 12% step up 60% of the way through. Each file is imported into the demo campaign through the real importer
(`tierplan import --add-regimes --confirm`, its time and peak memory measured). Then `tierplan serve` answers, on
SQLite and on PostgreSQL (127.0.0.1:5432, when it answers):

- each page and API read, --requests times in a row: p50 latency and bytes;
- a measurement POST (a gate check through the API) and right after it the plan page, cold (the write moved the
  revision its cache keys on);
- `tierplan push` of the next night's file;

and prints each figure with its ratio to the same request on the fresh demo (no history) of the same database.
The goals (issue 22): 10 years x 4 regimes within 3x of the demo, every answer under 1 MB, the cold plan page
under 1 s, the import under 60 s and 500 MB; 10 years x 16 regimes within 5x.

    python bench/history.py [--years 1,10] [--regimes 4,16] [--databases sqlite,postgres] [--requests 15]
"""

from __future__ import annotations

import _bootstrap

_bootstrap.ensure_project_python()

import argparse
import http.client
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from load import PG_URL, postgres_answers, serve
from pages import ROOT

CONCURRENCIES = {4: (1, 4, 16, 64), 16: (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 256, 384)}
START = datetime(2016, 12, 1, 2, 0, tzinfo=UTC)
READS = (
    ("campaign list", "/"),
    ("plan page", "/campaigns/1"),
    ("regime page", "/campaigns/1/regimes/1"),
    ("plan history", "/campaigns/1/history"),
    ("compare", "/campaigns/1/compare"),
    ("roadmap.md", "/campaigns/1/roadmap.md"),
    ("API plan", "/api/campaigns/1/plan"),
    ("API gates/status", "/api/campaigns/1/gates/status"),
    ("API regressions", "/api/campaigns/1/regressions"),
    ("API capacity", "/api/campaigns/1/capacity"),
    ("API measurements", "/api/campaigns/1/measurements"),
    ("API snapshots", "/api/campaigns/1/snapshots"),
)


def run_of(night: int, nights: int, concurrency: int, rng: random.Random) -> dict:
    """One night's result of one concurrency, as `vllm bench serve --save-result` writes it."""
    at = START + timedelta(days=night, seconds=concurrency)
    step = 1.12 if night >= 0.6 * nights else 1.0
    per_user = 10.0 / (1 + concurrency / 24) * step * math.exp(rng.gauss(0, 0.03))
    throughput = per_user * concurrency
    tpot = 1000 / per_user
    ttft = (400 + 30 * concurrency) * math.exp(rng.gauss(0, 0.05))
    prompts = max(64, 4 * concurrency)
    duration = prompts * 256 / throughput
    result = {"date": at.strftime("%Y%m%d-%H%M%S"), "endpoint_type": "openai-chat", "label": None, "backend": "vllm",
              "model_id": "deepseek-ai/DeepSeek-V4-Flash", "tokenizer_id": "deepseek-ai/DeepSeek-V4-Flash",
              "num_prompts": prompts, "request_rate": "inf", "burstiness": 1.0, "max_concurrency": concurrency,
              "duration": duration, "completed": prompts, "failed": 0, "total_input_tokens": prompts * 1024,
              "total_output_tokens": prompts * 256, "request_throughput": prompts / duration,
              "request_goodput": None, "output_throughput": throughput,
              "total_token_throughput": throughput * 5, "max_output_tokens_per_s": throughput * 1.3,
              "max_concurrent_requests": concurrency}
    for name, mean in (("ttft", ttft), ("tpot", tpot), ("itl", tpot * 0.98)):
        result |= {f"mean_{name}_ms": mean, f"median_{name}_ms": mean * 0.98, f"std_{name}_ms": mean * 0.08,
                   f"p99_{name}_ms": mean * 1.3}
    return result


def write_history(path: Path, nights: int, regimes: int, first: int = 0) -> int:
    """Nights `first` .. `first + nights` of every regime, one JSON object a line; the runs written."""
    rng = random.Random(nights * 100 + regimes + first)
    with open(path, "w") as out:
        for night in range(first, first + nights):
            for concurrency in CONCURRENCIES[regimes]:
                out.write(json.dumps(run_of(night, max(nights, 1), concurrency, rng)) + "\n")
    return nights * regimes


PEAK = ("import resource, runpy, sys\nsys.argv = sys.argv[1:]\ntry:\n    runpy.run_module('tierplan.cli', run_name='__main__')\n"
        "finally:\n    print('peak', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)")


def import_file(url: str, path: Path) -> tuple[float, float]:
    """`tierplan import` of the file into campaign 1: seconds, and the peak memory of its process in MB."""
    env = {**os.environ, "TIERPLAN_DATABASE_URL": url}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", PEAK, "tierplan", "import", str(path), "--campaign", "1",
                           "--add-regimes", "--confirm"], cwd=ROOT, env=env, capture_output=True, text=True)
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"the import failed: {done.stdout[-2000:]} {done.stderr[-2000:]}")
    peak_kb = int(done.stderr.rsplit("peak", 1)[1].split()[0])
    return took, peak_kb / 1024


def timed(port: int, method: str, path: str, body: bytes | None = None, headers: dict | None = None
          ) -> tuple[float, int, int]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    start = time.perf_counter()
    connection.request(method, path, body=body, headers=headers or {})
    response = connection.getresponse()
    data = response.read()
    took = time.perf_counter() - start
    connection.close()
    return took, len(data), response.status


def measure(port: int, requests: int, tmp: Path, regimes: int, nights: int) -> dict[str, tuple[float, int]]:
    """p50 seconds and bytes of each read, the POST, the cold plan page and a push."""
    out: dict[str, tuple[float, int]] = {}
    for label, path in READS:
        timed(port, "GET", path)  # warm up (and fill the caches a repeat may use)
        samples = [timed(port, "GET", path) for _ in range(requests)]
        bad = [s for s in samples if s[2] != 200]
        if bad:
            raise SystemExit(f"{path} answered {bad[0][2]}")
        out[label] = (statistics.median(s[0] for s in samples), samples[-1][1])
    posts, colds = [], []
    for k in range(requests):
        body = json.dumps({"regime": "batch 1", "metric": "output_tok_s", "value": 10 + k % 3, "kind": "gate check",
                           "note": f"bench {k}"}).encode()
        posts.append(timed(port, "POST", "/api/campaigns/1/measurements", body, {"Content-Type": "application/json"}))
        colds.append(timed(port, "GET", "/campaigns/1"))
    if any(p[2] != 201 for p in posts):
        raise SystemExit(f"a measurement POST answered {[p[2] for p in posts if p[2] != 201][0]}")
    out["measurement POST"] = (statistics.median(p[0] for p in posts), posts[-1][1])
    out["plan page, cold"] = (statistics.median(c[0] for c in colds), colds[-1][1])
    pushes = []
    for n in range(3):
        night = tmp / f"night-{n}.json"
        write_history(night, 1, regimes, first=nights + n)
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "tierplan.cli", "push", str(night), "--server",
                               f"http://127.0.0.1:{port}", "--campaign", "1", "--add-regimes", "--confirm"],
                              cwd=ROOT, capture_output=True, text=True)
        pushes.append(time.perf_counter() - start)
        if done.returncode not in (0, 1, 3):
            raise SystemExit(f"tierplan push failed: {done.stderr[-2000:]}")
    out["tierplan push"] = (statistics.median(pushes), night.stat().st_size)
    return out


def fresh(database: str, tmp: Path) -> str:
    if database == "sqlite":
        return f"sqlite:///{tempfile.mkdtemp(dir=tmp)}/history.db"
    if not postgres_answers():  # empties the schema
        raise SystemExit("PostgreSQL is not reachable")
    return PG_URL


def case(database: str, years: int, regimes: int, args, tmp: Path) -> dict[str, tuple[float, int]]:
    url = fresh(database, tmp)
    subprocess.run([sys.executable, "-m", "tierplan.cli", "migrate"], cwd=ROOT, check=True, capture_output=True,
                   env={**os.environ, "TIERPLAN_DATABASE_URL": url})
    subprocess.run([sys.executable, "-m", "tierplan.cli", "demo"], cwd=ROOT, check=True, capture_output=True,
                   env={**os.environ, "TIERPLAN_DATABASE_URL": url, "TIERPLAN_LOAD_DEMO_ON_EMPTY": "false"})
    nights = 365 * years
    extra: dict[str, tuple[float, int]] = {}
    if years:
        path = tmp / f"history-{years}y-{regimes}r.json"
        runs = write_history(path, nights, regimes)
        took, peak_mb = import_file(url, path)
        extra["import"] = (took, path.stat().st_size)
        print(f"  {database}, {years} years x {regimes} regimes: imported {runs:,} runs "
              f"({path.stat().st_size / 1e6:.1f} MB) in {took:.1f} s, peak memory {peak_mb:.0f} MB", flush=True)
    process, port = serve(url, 1)
    try:
        return measure(port, args.requests, tmp, regimes, nights) | extra
    finally:
        process.terminate()
        process.wait(timeout=30)


def report(database: str, label: str, figures: dict, demo: dict) -> None:
    print(f"\n{database}: {label}")
    print(f"  {'request':<20} {'p50':>10} {'x demo':>8} {'bytes':>11} {'x demo':>8}")
    for name, (seconds, size) in figures.items():
        if name == "import":
            continue
        base = demo.get(name)
        ratio = f"{seconds / base[0]:.2f}x" if base and base[0] else ""
        size_ratio = f"{size / base[1]:.2f}x" if base and base[1] else ""
        print(f"  {name:<20} {seconds * 1000:>8.1f} ms {ratio:>8} {size:>11,} {size_ratio:>8}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--years", default="1,10")
    parser.add_argument("--regimes", default="4,16")
    parser.add_argument("--databases", default="sqlite,postgres")
    parser.add_argument("--requests", type=int, default=15)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp())
    try:
        for database in args.databases.split(","):
            if database == "postgres" and not postgres_answers():
                print("PostgreSQL: not reachable at 127.0.0.1:5432, skipped")
                continue
            demo = case(database, 0, 4, args, tmp)
            report(database, "the fresh demo", demo, demo)
            for regimes in (int(r) for r in args.regimes.split(",")):
                for years in (int(y) for y in args.years.split(",")):
                    figures = case(database, years, regimes, args, tmp)
                    report(database, f"{years} years x {regimes} regimes", figures, demo)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

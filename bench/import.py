"""Benchmark: importing a large PyTorch trace against a plain json.load of the same file.

Writes a trace of at least --mb megabytes (default 200) by repeating the events of the real H200
fixture, then runs each reader in a fresh process and prints, measured in one run:
  peak memory (max RSS) of the import over json.load's (goal: at most 30%), and
  time of the import over json.load's (goal: at most 2x).

    python bench/import.py [--mb 200] [--keep PATH]
"""

from __future__ import annotations

import _bootstrap

_bootstrap.ensure_project_python()

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "data" / "trace_eager_b1.json.gz"

READERS = {
    "json.load": "import json; json.load(open(PATH, 'rb'))",
    "tierplan import": (
        "from tierplan.importers.torch_trace import parse_trace; from tierplan.importers.buckets import bucket_kernels; "
        "s = parse_trace(open(PATH, 'rb'), PATH); bucket_kernels(s); "
        "print('decode steps', s.steps.decode_steps, file=__import__('sys').stderr)"
    ),
}
# Peak RSS is read from VmHWM after resetting it (clear_refs 5): ru_maxrss would include the high-water
# mark a process inherits across fork and exec from the one that started it.
MEASURE = """
import resource, sys, time
sys.path[:0] = [ROOT, ROOT + "/src"]
PATH = sys.argv[1]
try:
    open("/proc/self/clear_refs", "w").write("5")
except OSError:
    pass
start = time.perf_counter()
{code}
elapsed = time.perf_counter() - start
try:
    peak_kb = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
except (OSError, StopIteration):
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(elapsed, peak_kb)
"""


def write_trace(path: Path, megabytes: int) -> int:
    """A trace that repeats the fixture's events until the file is at least `megabytes` large.

    Each repeat is shifted in time and in correlation ids, as a longer profiling run would be, so the
    importer splits it into passes and ties kernels to their launches as it does on a real trace.
    """
    with gzip.open(FIXTURE, "rt", encoding="utf-8") as handle:
        trace = json.load(handle)
    events = trace.pop("traceEvents")
    stamps = [e["ts"] + e.get("dur", 0) for e in events if isinstance(e.get("ts"), int | float)]
    span = max(stamps) - min(e["ts"] for e in events if isinstance(e.get("ts"), int | float)) + 1000.0
    top_corr = max(e.get("args", {}).get("correlation", 0) for e in events if isinstance(e.get("args"), dict)) + 1
    head = json.dumps(trace)[:-1] + ', "traceEvents": ['
    target = megabytes * 1024 * 1024
    with open(path, "w", encoding="utf-8") as out:
        out.write(head)
        written, repeat = len(head), 0
        while written < target:
            block = ",".join(json.dumps(_shifted(e, repeat * span, repeat * top_corr), separators=(",", ":"))
                             for e in events)
            out.write(block if repeat == 0 else "," + block)
            written += len(block) + (0 if repeat == 0 else 1)
            repeat += 1
        out.write("]}")
    return path.stat().st_size


def _shifted(event: dict, dt: float, dcorr: int) -> dict:
    if not dt:
        return event
    event = dict(event)
    if isinstance(event.get("ts"), int | float):
        event["ts"] = event["ts"] + dt
    args = event.get("args")
    if isinstance(args, dict) and "correlation" in args:
        event["args"] = {**args, "correlation": args["correlation"] + dcorr}
    if "id" in event and isinstance(event["id"], int):
        event["id"] += dcorr
    return event


def measure(code: str, path: Path) -> tuple[float, int]:
    script = MEASURE.replace("ROOT", repr(str(ROOT))).format(code=code)
    result = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, check=True)
    elapsed, max_rss_kb = result.stdout.split()
    return float(elapsed), int(max_rss_kb)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=200)
    parser.add_argument("--keep", help="write the generated trace here and keep it")
    parser.add_argument("--write-only", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.write_only:
        write_trace(Path(args.write_only), args.mb)
        return
    folder = tempfile.mkdtemp()
    path = Path(args.keep) if args.keep else Path(folder) / "large_trace.json"
    # written by a child process: a parent that had held the events in memory would pass its high-water
    # RSS on to the children measured below
    subprocess.run([sys.executable, __file__, "--write-only", str(path), "--mb", str(args.mb)], check=True)
    size = path.stat().st_size
    try:
        baseline_s, baseline_kb = measure("pass", path)
        results = {name: measure(code, path) for name, code in READERS.items()}
    finally:
        if not args.keep:
            os.remove(path)
    (load_s, load_kb), (ours_s, ours_kb) = results["json.load"], results["tierplan import"]
    print(f"trace: {size / 1e6:,.0f} MB uncompressed, events of {FIXTURE.name} repeated")
    print(f"  json.load          {load_s:7.2f} s   peak {load_kb / 1024:8.0f} MB")
    print(f"  tierplan import    {ours_s:7.2f} s   peak {ours_kb / 1024:8.0f} MB   (bare interpreter {baseline_kb / 1024:.0f} MB)")  # noqa: E501
    print(f"  memory ratio       {ours_kb / load_kb * 100:7.1f} %   (goal <= 30%)")
    print(f"  time ratio         {ours_s / load_s:7.2f} x   (goal <= 2x)")


if __name__ == "__main__":
    started = time.perf_counter()
    main()
    if "--write-only" not in sys.argv:
        print(f"  (benchmark took {time.perf_counter() - started:.0f} s)")

"""Benchmark: a per-launch kernel table costs what its kernel names cost, not what its rows cost.

Writes two CSVs by repeating the rows of the real `nsys stats --report cuda_gpu_trace` file in tests/data/nsys (a
row a kernel launch or copy), one of --mb megabytes and one ten times that, and reads each as the import does (the
column map Name / Duration (ns), the file read as a stream), each in a fresh process. Prints, measured in one run,
the peak memory (max RSS) and time of each, and the large file's over the small one's (goal: memory about 1x,
time about 10x).

    python bench/kernel_tables.py [--mb 20]
"""

from __future__ import annotations

import _bootstrap

_bootstrap.ensure_project_python()

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "data" / "nsys" / "cuda_gpu_trace.csv"

READER = """
import resource, sys, time
from tierplan.importers.kernel_csv import ColumnMap, parse_generic
start = time.perf_counter()
with open(sys.argv[1], "rb") as stream:
    summary = parse_generic(stream, "table.csv", ColumnMap("Name", "Duration (ns)", "ns"))
seconds = time.perf_counter() - start
print(len(summary.kernels), seconds, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def write_table(path: Path, megabytes: float) -> int:
    header, *rows = FIXTURE.read_text(encoding="utf-8").splitlines()
    block = "\n".join(rows) + "\n"
    written = 0
    with open(path, "w", encoding="utf-8") as out:
        out.write(header + "\n")
        while out.tell() < megabytes * 1e6:
            out.write(block)
            written += len(rows)
    return written


def read(path: Path) -> tuple[int, float, float]:
    done = subprocess.run([sys.executable, "-c", READER, str(path)], capture_output=True, text=True, check=True,
                          cwd=ROOT)
    names, seconds, peak_mb = done.stdout.split()
    return int(names), float(seconds), float(peak_mb)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=20.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        results = []
        for megabytes in (args.mb, args.mb * 10):
            path = Path(folder) / f"table_{megabytes:g}mb.csv"
            rows = write_table(path, megabytes)
            names, seconds, peak_mb = read(path)
            results.append((seconds, peak_mb))
            print(f"{megabytes:8.0f} MB, {rows:>10,} rows, {names} kernel names: {seconds:6.2f} s, "
                  f"peak memory {peak_mb:6.1f} MB")
            path.unlink()
    (small_s, small_mb), (large_s, large_mb) = results
    print(f"10x the rows: memory {large_mb / small_mb:.2f}x, time {large_s / small_s:.2f}x")


if __name__ == "__main__":
    main()

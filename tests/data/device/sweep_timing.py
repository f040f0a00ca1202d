"""What the graph sweeps (write_graph_sweep.py, write_hf_graph_sweep.py) share: a decode step timed by the wall clock
between synchronisations, and 6 steps traced by torch.profiler into a gzipped Chrome trace."""

from __future__ import annotations

import gzip
import os
import shutil
import statistics
import time
import traceback
from collections.abc import Callable
from typing import Protocol

import torch
from torch.profiler import ProfilerActivity, profile, schedule


class Stepper(Protocol):
    def run(self) -> None: ...


def steps_ms(runner: Stepper, steps: int) -> list[float]:
    """The wall time of each of `steps` synchronised decode steps (ms)."""
    times = []
    for _ in range(steps):
        torch.cuda.synchronize()
        start = time.perf_counter()
        runner.run()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - start) * 1000)
    return times


def timed(runner: Stepper) -> dict:
    """A step time as the sweeps write it: 4 steps of warm-up (compiled and captured there where a path is), then the
    median over 3 runs of the median of 24 synchronised steps (ms)."""
    steps_ms(runner, 4)
    runs = [statistics.median(steps_ms(runner, 24)) for _ in range(3)]
    return {"median_step_ms": round(statistics.median(runs), 4), "runs_ms": [round(r, 4) for r in runs]}


def measure(make: Callable[[], Stepper], out: str, trace_name: str | None) -> dict:
    """One path at one batch: its runner made, timed, and traced as `trace_name` where one is given. A path that cannot
    run here is written down, not fatal."""
    runner = None
    try:
        runner = make()
        result = timed(runner)
        if trace_name is not None:
            trace(runner, out, trace_name)
        return result
    except Exception as exc:
        traceback.print_exc()
        return {"error": f"{type(exc).__name__}: {str(exc)[:300]}"}
    finally:
        runner = None
        torch.cuda.empty_cache()


def trace(runner: Stepper, out: str, name: str) -> None:
    """6 decode steps, each a ProfilerStep (CPU and CUDA activities, shapes and stacks), as `out`/`name`.json.gz."""
    path = os.path.join(out, f"{name}.json")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True, with_stack=True,
                 schedule=schedule(wait=0, warmup=0, active=6, repeat=1),
                 on_trace_ready=lambda p: p.export_chrome_trace(path)) as prof:
        for _ in range(6):
            runner.run()
            torch.cuda.synchronize()
            prof.step()
    with open(path, "rb") as raw, gzip.open(path + ".gz", "wb", compresslevel=9) as packed:
        shutil.copyfileobj(raw, packed)
    os.remove(path)

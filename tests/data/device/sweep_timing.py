"""What the graph sweeps (write_graph_sweep.py, write_hf_graph_sweep.py) share: a decode step timed by the wall clock
between synchronisations, and 6 steps traced by torch.profiler into a gzipped Chrome trace."""

from __future__ import annotations

import gzip
import os
import shutil
import time
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

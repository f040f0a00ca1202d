"""Eight eager decode steps of write_graph_sweep.py's decoder at batch 8, after two steps of warm-up, for Nsight
Systems to trace (tests/data/device/write_nsys.sh), each inside an NVTX range named "decode_step". Nsight Systems
collects between cudaProfilerStart and cudaProfilerStop only (`--capture-range=cudaProfilerApi`), so the start-up
(the weights, cuBLAS's first calls) stays out of the report."""

import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
os.environ.setdefault("OUT", "/tmp")

from write_graph_sweep import Decoder, Runner

with torch.no_grad():
    runner = Runner(Decoder(), "eager", 8, 1)
    for _ in range(2):
        runner.run()
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    for _ in range(8):
        torch.cuda.nvtx.range_push("decode_step")
        runner.run()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
    torch.cuda.profiler.stop()

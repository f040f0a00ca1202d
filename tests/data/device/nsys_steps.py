"""Eight eager decode steps of write_graph_sweep.py's decoder at batch 8, each inside an NVTX range named
"decode_step", after two steps of warm-up, for Nsight Systems to trace (tests/data/device/write_nsys.sh)."""

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
    for _ in range(8):
        torch.cuda.nvtx.range_push("decode_step")
        runner.run()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()

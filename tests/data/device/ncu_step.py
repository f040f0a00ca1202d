"""One eager decode step of write_graph_sweep.py's decoder at batch 8 inside an NVTX range named "decode_step",
after a step of warm-up, for Nsight Compute to profile (tests/data/device/write_ncu.sh):

    ncu --nvtx --nvtx-include "decode_step/" ... python3 tests/data/device/ncu_step.py
"""

import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
os.environ.setdefault("OUT", "/tmp")

from write_graph_sweep import Decoder, Runner

with torch.no_grad():
    runner = Runner(Decoder(), "eager", 8, 1)
    runner.run()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("decode_step")
    runner.run()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()

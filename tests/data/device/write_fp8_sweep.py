"""Writes the bf16-versus-FP8 sweep in tests/data/fp8/ on a GPU machine (the device tool): decode step times across
batch sizes of write_graph_sweep.py's dense decoder on its CUDA-graph path, with its weight GEMMs in bf16 and in FP8,
and torch.profiler traces of both. Run there as `OUT=<folder> python3 tests/data/device/write_fp8_sweep.py`
(SWEEP_BATCHES narrows it; SWEEP_TRACED, "1,8,32,64" say, names the batches both paths are traced at, else bf16 at 8,
32 and 64 and FP8 at 8 and 64; SWEEP_CONTEXT, SWEEP_MAX_LEN and SWEEP_SHAPE as in write_graph_sweep.py).

The FP8 path is the plainest one a team would prototype: each weight of the layers (qkv, o, gate_up, down) is
quantised once to float8_e4m3fn with one scale a tensor; at every step each GEMM's input is quantised in front of it
(its absolute maximum, a scale, a cast: kernels that the bf16 path does not run) and the product is taken by
`torch._scaled_mm` into bf16. The embedding, attention, norms and LM head stay in bf16. Both paths run the static
cache of write_graph_sweep.py, captured once per batch size as a CUDA graph and replayed.

Step times as write_graph_sweep.py's, one token a sequence in flight ("tokens_1"); traces of 6 replays each.
"""

from __future__ import annotations

import json
import os
from functools import partial

import torch
import write_graph_sweep as base  # beside this script: the decoder, its static cache and the graph runner
from sweep_timing import measure

OUT = os.environ["OUT"]
BATCHES = tuple(int(b) for b in os.environ.get("SWEEP_BATCHES", "1,8,32,64").split(","))
TRACED = ({path: tuple(int(b) for b in os.environ["SWEEP_TRACED"].split(",")) for path in ("bf16", "fp8")}
          if "SWEEP_TRACED" in os.environ else {"bf16": (8, 32, 64), "fp8": (8, 64)})
E4M3_MAX = 448.0
ROWS = 16  # _scaled_mm's row multiple where the probe finds one needed


def scaled(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """x in float8_e4m3fn and its scale (one a tensor, float32)."""
    scale = x.abs().amax().float().clamp(min=1e-12) / E4M3_MAX
    return (x.float() / scale).to(torch.float8_e4m3fn), scale


def needs_padding() -> bool:
    """Whether _scaled_mm refuses 8 rows here (then each GEMM's input is padded to a multiple of ROWS)."""
    a = torch.zeros(8, 64, device="cuda").to(torch.float8_e4m3fn)
    b = torch.zeros(64, 64, device="cuda").to(torch.float8_e4m3fn).t().contiguous().t()
    one = torch.ones((), device="cuda")
    try:
        torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
        return False
    except RuntimeError:
        return True


PAD = needs_padding()


class FP8Weight:
    """A weight (in x out) quantised once, column-major as _scaled_mm takes it; `x @ weight` quantises x and
    multiplies in FP8."""

    def __init__(self, weight: torch.Tensor) -> None:
        q, self.scale = scaled(weight)
        self.q = q.t().contiguous().t()

    def __rmatmul__(self, x: torch.Tensor) -> torch.Tensor:
        rows = x.reshape(-1, x.shape[-1])
        count = rows.shape[0]
        if PAD and count % ROWS:
            rows = torch.cat((rows, rows.new_zeros(ROWS - count % ROWS, rows.shape[1])))
        q, scale = scaled(rows)
        out = torch._scaled_mm(q, self.q, scale_a=scale, scale_b=self.scale, out_dtype=torch.bfloat16)
        return out[:count].reshape(*x.shape[:-1], out.shape[-1])


def fp8_decoder() -> base.Decoder:
    model = base.Decoder()
    for layer in model.layers:
        for name in ("qkv", "o", "gate_up", "down"):
            layer[name] = FP8Weight(layer[name])
    return model


def main() -> None:
    report: dict = {"torch": torch.__version__, "device": torch.cuda.get_device_name(), "layers": base.LAYERS,
                    "hidden": base.HIDDEN, "mlp": base.MLP, "context_tokens": base.CONTEXT,
                    "static_cache_tokens": base.MAX_LEN, "fp8": "float8_e4m3fn, one scale a tensor, torch._scaled_mm",
                    "fp8_rows_padded_to": ROWS if PAD else None, "paths": {}}
    with torch.no_grad():
        for path, build in (("bf16", base.Decoder), ("fp8", fp8_decoder)):
            model, entry = build(), {}
            for batch in BATCHES:
                entry[str(batch)] = {"tokens_1": measure(partial(base.Runner, model, "graphs", batch, 1), OUT,
                                                         f"trace_{path}_b{batch}" if batch in TRACED[path] else None)}
                print(path, batch, entry[str(batch)], flush=True)
                report["paths"][path] = entry
                with open(os.path.join(OUT, "step_times.json"), "w") as f:
                    json.dump(report, f, indent=1)
            model = None
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()

"""Writes the dense-decoder profiler traces in tests/data/ on a GPU machine (the device tool), and the step times
measured without the profiler. Run there as `OUT=<folder> python3 tests/data/device/write_traces.py`.

A random-weight Llama-style dense decoder (transformers' LlamaForCausalLM, bf16): hidden 2048, 8 layers, 16 query
and 4 KV heads, MLP width 5632, vocabulary 32000. For each attention path (eager: transformers' matmul and softmax;
sdpa: torch's scaled_dot_product_attention, its default backend; flash: the same, held to the flash backend), one
trace of a 128-token prefill and 6 decode steps at batch 1, each a ProfilerStep (torch.profiler's schedule,
prof.step() after each), CPU and CUDA activities with Python stacks, as vLLM's profiler records them; then the
median decode step, without the profiler, of 5 runs of 32 steps at batches 1, 8 and 32.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import shutil
import statistics
import time

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.profiler import ProfilerActivity, profile, schedule
from transformers import LlamaConfig, LlamaForCausalLM

OUT = os.environ["OUT"]
PROMPT = 128
DECODE_STEPS = 6
CONFIG = {"hidden_size": 2048, "intermediate_size": 5632, "num_hidden_layers": 8, "num_attention_heads": 16,
          "num_key_value_heads": 4, "vocab_size": 32000, "max_position_embeddings": 4096}
PATHS = {  # name -> (transformers' attention implementation, the SDPA backends it may use)
    "eager": ("eager", None),
    "sdpa": ("sdpa", None),
    "flash": ("sdpa", [SDPBackend.FLASH_ATTENTION]),
}


def model_for(implementation: str) -> LlamaForCausalLM:
    torch.manual_seed(0)
    config = LlamaConfig(**CONFIG)
    try:
        model = LlamaForCausalLM._from_config(config, attn_implementation=implementation, dtype=torch.bfloat16)
    except TypeError:  # transformers before `dtype`
        model = LlamaForCausalLM._from_config(config, attn_implementation=implementation, torch_dtype=torch.bfloat16)
    return model.cuda().eval()


def decode(model: LlamaForCausalLM, batch: int, steps: int, after_each=lambda: None) -> list[float]:
    """A prefill and `steps` decode steps; the wall time of each decode step (ms), synchronised."""
    ids = torch.randint(0, CONFIG["vocab_size"], (batch, PROMPT), device="cuda")
    out = model(input_ids=ids, use_cache=True)
    cache = out.past_key_values
    token = out.logits[:, -1:].argmax(-1)
    after_each()
    times = []
    for _ in range(steps):
        torch.cuda.synchronize()
        start = time.perf_counter()
        out = model(input_ids=token, past_key_values=cache, use_cache=True)
        token = out.logits[:, -1:].argmax(-1)
        torch.cuda.synchronize()
        times.append((time.perf_counter() - start) * 1000)
        after_each()
    return times


def backends(allowed):
    return sdpa_kernel(allowed) if allowed else contextlib.nullcontext()


def main() -> None:
    report: dict = {"torch": torch.__version__, "device": torch.cuda.get_device_name(), "config": CONFIG,
                    "prompt_tokens": PROMPT, "paths": {}}
    import transformers
    report["transformers"] = transformers.__version__
    for name, (implementation, allowed) in PATHS.items():
        model = model_for(implementation)
        entry: dict = {"attn_implementation": implementation,
                       "sdpa_backends": [str(b) for b in allowed] if allowed else "default"}
        try:
            with torch.no_grad(), backends(allowed):
                decode(model, 1, 4)  # warm-up: kernels chosen, caches allocated
                activities = [ProfilerActivity.CPU, ProfilerActivity.CUDA]
                path = os.path.join(OUT, f"trace_dense_{name}_b1.json")
                # one cycle of 1 + DECODE_STEPS steps, written when it ends (as vLLM's profiler writes its window)
                with profile(activities=activities, record_shapes=True, with_stack=True,
                             schedule=schedule(wait=0, warmup=0, active=1 + DECODE_STEPS, repeat=1),
                             on_trace_ready=lambda p, path=path: p.export_chrome_trace(path)) as prof:
                    decode(model, 1, DECODE_STEPS, after_each=prof.step)
                with open(path, "rb") as raw, gzip.open(path + ".gz", "wb", compresslevel=9) as packed:
                    shutil.copyfileobj(raw, packed)
                os.remove(path)
                steps_ms = {}
                for batch in (1, 8, 32):
                    runs = [statistics.median(decode(model, batch, 32)) for _ in range(5)]
                    steps_ms[str(batch)] = {"median_step_ms": statistics.median(runs), "runs_ms": runs}
                entry["decode_step_ms"] = steps_ms
        except RuntimeError as exc:  # a backend this GPU or shape cannot use
            entry["error"] = str(exc)[:500]
        report["paths"][name] = entry
        del model
        torch.cuda.empty_cache()
    with open(os.path.join(OUT, "step_times.json"), "w") as f:
        json.dump(report, f, indent=1)
    print(json.dumps({k: {b: v["median_step_ms"] for b, v in e.get("decode_step_ms", {}).items()} or e.get("error")
                      for k, e in report["paths"].items()}))


if __name__ == "__main__":
    main()

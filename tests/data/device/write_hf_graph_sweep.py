"""Writes the transformers eager-versus-CUDA-graphs sweep in tests/data/graphs_hf/ on a GPU machine (the device tool):
decode step times across batch sizes for three paths of one transformers model, and torch.profiler traces of the
eager and graph paths at batches 8 and 64. Run there as `OUT=<folder> python3 tests/data/device/write_hf_graph_sweep.py`
(SWEEP_BATCHES, SWEEP_PATHS, SWEEP_TRACED, SWEEP_CONTEXT and SWEEP_MAX_LEN narrow or size it; SWEEP_SHAPE picks the
model, below).

The model is transformers' LlamaForCausalLM with random weights (seed 0), bf16, 8 layers of Llama-3-8B's shape
(hidden 4096, 32 query and 8 KV heads, MLP width 14336, vocabulary 128256, rope theta 500000), attention through
SDPA (transformers' "sdpa", torch's default backend). SWEEP_SHAPE=qwen2.5-7b-8-layers takes transformers'
Qwen2ForCausalLM instead, 8 of Qwen2.5-7B's 28 layers (hidden 3584, 28 query and 4 KV heads, biased q/k/v
projections, MLP width 18944, vocabulary 152064, rope theta 1000000). Each batch starts from an eager prefill of SWEEP_CONTEXT
random tokens a sequence (1024 unless set). The paths, as a transformers user takes them:

- `eager`: transformers' DynamicCache, one forward a step, launched op by op.
- `static`: transformers' StaticCache of SWEEP_MAX_LEN positions a sequence (2048 unless set), the model's forward
  called with `cache_position`, still launched op by op.
- `graphs`: the same static-cache forward, the model compiled for each batch size with
  `torch.compile(model, backend="cudagraphs", fullgraph=True, dynamic=False)`: torch's CUDA-graph backend (cudagraph
  trees) without Inductor's fusion, so the kernels are those of the static path. SWEEP_GRAPHS_MODE=reduce-overhead
  compiles it with `mode="reduce-overhead"` instead (Inductor's fused kernels, captured by cudagraph trees).

Each step: the forward and a greedy argmax of the last logits, fed back. A step time is the median over 3 runs of
the median of 24 synchronised steps (ms, wall clock), under "tokens_1" (one token a sequence in flight) as in
write_graph_sweep.py's step_times.json; the context grows by one token a step (under 100 in all).
"""

from __future__ import annotations

import json
import os
import time
from functools import partial

import torch
from sweep_timing import measure  # beside this script
from transformers import DynamicCache, LlamaConfig, LlamaForCausalLM, Qwen2Config, Qwen2ForCausalLM, StaticCache

OUT = os.environ["OUT"]
CONTEXT, MAX_LEN = int(os.environ.get("SWEEP_CONTEXT", "1024")), int(os.environ.get("SWEEP_MAX_LEN", "2048"))
BATCHES = tuple(int(b) for b in os.environ.get("SWEEP_BATCHES", "1,8,32,64").split(","))
PATHS = tuple(os.environ.get("SWEEP_PATHS", "eager,static,graphs").split(","))
GRAPHS_MODE = os.environ.get("SWEEP_GRAPHS_MODE", "cudagraphs")  # or "reduce-overhead": Inductor's fusion too
TRACED = tuple(int(b) for b in os.environ.get("SWEEP_TRACED", "8,64").split(","))
SHAPES = {  # SWEEP_SHAPE: the model's class, its config class and the config
    "llama-3-8b-8-layers": (LlamaForCausalLM, LlamaConfig, {
        "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 8, "num_attention_heads": 32,
        "num_key_value_heads": 8, "vocab_size": 128256, "max_position_embeddings": 8192, "rope_theta": 500000.0}),
    "qwen2.5-7b-8-layers": (Qwen2ForCausalLM, Qwen2Config, {
        "hidden_size": 3584, "intermediate_size": 18944, "num_hidden_layers": 8, "num_attention_heads": 28,
        "num_key_value_heads": 4, "vocab_size": 152064, "max_position_embeddings": 32768, "rope_theta": 1000000.0}),
}
SHAPE = os.environ.get("SWEEP_SHAPE", "llama-3-8b-8-layers")
MODEL_CLASS, CONFIG_CLASS, CONFIG = SHAPES[SHAPE]


def build_model() -> torch.nn.Module:
    torch.manual_seed(0)
    with torch.device("cuda"):
        model = MODEL_CLASS._from_config(CONFIG_CLASS(**CONFIG), attn_implementation="sdpa", dtype=torch.bfloat16)
    return model.eval()


class Runner:
    """One path at one batch size after a prefill of CONTEXT tokens: `run()` is one decode step."""

    def __init__(self, model: torch.nn.Module, path: str, batch: int) -> None:
        self.model, self.path = model, path
        ids = torch.randint(0, CONFIG["vocab_size"], (batch, CONTEXT), device="cuda")
        if path == "eager":
            self.cache = DynamicCache(config=model.config)
        else:
            self.cache = StaticCache(config=model.config, max_cache_len=MAX_LEN)
        out = model(input_ids=ids, past_key_values=self.cache, use_cache=True,
                    cache_position=torch.arange(CONTEXT, device="cuda"))
        self.token = out.logits[:, -1:].argmax(-1)
        self.position = CONTEXT
        self.forward = model
        if path == "graphs":  # the module compiled afresh for this batch size: its weights are static inputs
            torch._dynamo.reset()
            if GRAPHS_MODE == "reduce-overhead":
                self.forward = torch.compile(model, mode="reduce-overhead", fullgraph=True, dynamic=False)
            else:
                self.forward = torch.compile(model, backend="cudagraphs", fullgraph=True, dynamic=False)

    def _static_forward(self, token: torch.Tensor, cache_position: torch.Tensor) -> torch.Tensor:
        logits = self.forward(input_ids=token, past_key_values=self.cache, use_cache=True,
                              cache_position=cache_position).logits
        return logits[:, -1:].argmax(-1)

    def run(self) -> None:
        if self.path == "eager":
            out = self.model(input_ids=self.token, past_key_values=self.cache, use_cache=True)
            self.token = out.logits[:, -1:].argmax(-1)
        else:
            position = torch.tensor([self.position], device="cuda")
            self.token = self._static_forward(self.token, position).clone()
        self.position += 1


def main() -> None:
    import transformers

    model = build_model()
    report: dict = {"torch": torch.__version__, "transformers": transformers.__version__,
                    "device": torch.cuda.get_device_name(), "shape": SHAPE, "config": CONFIG, "attn_implementation": "sdpa",
                    "graphs_mode": GRAPHS_MODE, "context_tokens": CONTEXT, "static_cache_tokens": MAX_LEN, "paths": {}}
    with torch.no_grad():
        for path in PATHS:
            entry: dict = {}
            for batch in BATCHES:
                started = time.perf_counter()
                traced = batch in TRACED and path != "static"  # compiled and captured in the timing's warm-up
                entry[str(batch)] = {"tokens_1": measure(partial(Runner, model, path, batch), OUT,
                                                         f"trace_{path}_b{batch}" if traced else None)}
                print(path, batch, entry[str(batch)], f"{time.perf_counter() - started:.1f} s", flush=True)
                report["paths"][path] = entry
                with open(os.path.join(OUT, "step_times.json"), "w") as f:  # after each batch: a run cut short keeps
                    json.dump(report, f, indent=1)  # what it measured


if __name__ == "__main__":
    main()

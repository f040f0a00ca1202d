"""Writes the eager-versus-CUDA-graphs sweep in tests/data/graphs/ on a GPU machine (the device tool): decode step
times across batch sizes for three implementation paths of one dense decoder, the same with 4 tokens a sequence in
flight (a draft-and-verify step for 3 drafts), and torch.profiler traces of the eager and graph paths at batches 8
and 64. Run there as `OUT=<folder> python3 tests/data/device/write_graph_sweep.py` (SWEEP_BATCHES, SWEEP_PATHS and
SWEEP_VERIFY=0 narrow it: "8,64", "eager,graphs", no draft-and-verify steps; SWEEP_TRACED names the batches traced,
"8,64" unless set; SWEEP_CONTEXT and SWEEP_MAX_LEN set
the tokens of KV cache a sequence starts with and the static cache's positions; SWEEP_SHAPE=llama-3.2-1b gives the
decoder the whole of Llama-3.2-1B's shape: 16 layers, hidden 2048, 32 query and 8 KV heads of 64, MLP width 8192;
SWEEP_SHAPE=qwen2.5-7b-8-layers gives it 8 layers of Qwen2.5-7B's: hidden 3584, 28 query and 4 KV heads of 128, MLP
width 18944, vocabulary 152064).
SWEEP_NO_CUDNN=1 keeps SDPA off its
cuDNN backend (flash, memory-efficient or math instead): with it on, torch 2.11 on an H100 picks cuDNN, which plans
anew for every new key length, so the eager path's host time is mostly that planning.

The decoder is written here in plain torch (no serving engine): 8 layers of Llama-3-8B's shape (hidden 4096, 32 query
and 8 KV heads of 128, MLP width 14336, vocabulary 128256), bf16, random weights (seed 0), RMSNorm, rotary
embeddings, SDPA attention with GQA, SiLU-gated MLP, greedy argmax. Every sequence starts with 512 tokens of
(random) KV cache. The paths:

- `eager`: a dynamic cache (each step's keys and values appended with torch.cat), one kernel launch per op from
  Python; attention over the tokens so far.
- `static`: a static cache of 4096 positions a sequence (written in place at the step's position) and attention
  over all 4096 positions with a mask, as a graph-capturable path must; still launched op by op.
- `graphs`: the static path captured once per batch size as a CUDA graph (torch.cuda.CUDAGraph) and replayed.

Each step time is the median over 3 runs of the median of 24 synchronised steps (ms, wall clock).
"""

from __future__ import annotations

import json
import os
from functools import partial

import torch
import torch.nn.functional as F
from sweep_timing import measure  # beside this script
from torch.nn.attention import SDPBackend, sdpa_kernel

OUT = os.environ["OUT"]
SHAPES = {"llama-3-8b-8-layers": (8, 4096, 32, 8, 128, 14336, 128256),  # the default
          "llama-3.2-1b": (16, 2048, 32, 8, 64, 8192, 128256),  # the whole model's shape (SWEEP_SHAPE)
          "qwen2.5-7b-8-layers": (8, 3584, 28, 4, 128, 18944, 152064)}  # 8 of Qwen2.5-7B's 28 layers
SHAPE = os.environ.get("SWEEP_SHAPE", "llama-3-8b-8-layers")
LAYERS, HIDDEN, HEADS, KV_HEADS, HEAD_DIM, MLP, VOCAB = SHAPES[SHAPE]
CONTEXT, MAX_LEN = int(os.environ.get("SWEEP_CONTEXT", "512")), int(os.environ.get("SWEEP_MAX_LEN", "4096"))
BATCHES = tuple(int(b) for b in os.environ.get("SWEEP_BATCHES", "1,8,32,64").split(","))
VERIFY_TOKENS = 4
PATHS = tuple(os.environ.get("SWEEP_PATHS", "eager,static,graphs").split(","))
LENGTHS = (1, VERIFY_TOKENS) if os.environ.get("SWEEP_VERIFY", "1") == "1" else (1,)
TRACED = tuple(int(b) for b in os.environ.get("SWEEP_TRACED", "8,64").split(","))
NO_CUDNN = os.environ.get("SWEEP_NO_CUDNN", "0") == "1"
BACKENDS = [SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH]


def sdpa(q, k, v, mask):
    if not NO_CUDNN:
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)
    with sdpa_kernel(BACKENDS):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)


def weight(*shape: int) -> torch.Tensor:
    return (torch.randn(*shape, device="cuda", dtype=torch.bfloat16) * 0.02)


class Decoder:
    def __init__(self) -> None:
        torch.manual_seed(0)
        self.embed = weight(VOCAB, HIDDEN)
        self.layers = [{"norm1": torch.ones(HIDDEN, device="cuda", dtype=torch.bfloat16),
                        "qkv": weight(HIDDEN, (HEADS + 2 * KV_HEADS) * HEAD_DIM),
                        "o": weight(HEADS * HEAD_DIM, HIDDEN),
                        "norm2": torch.ones(HIDDEN, device="cuda", dtype=torch.bfloat16),
                        "gate_up": weight(HIDDEN, 2 * MLP), "down": weight(MLP, HIDDEN)} for _ in range(LAYERS)]
        self.norm = torch.ones(HIDDEN, device="cuda", dtype=torch.bfloat16)
        self.head = weight(HIDDEN, VOCAB)
        inv = 1.0 / (500000 ** (torch.arange(0, HEAD_DIM, 2, device="cuda").float() / HEAD_DIM))
        angles = torch.outer(torch.arange(MAX_LEN, device="cuda").float(), inv)
        self.cos, self.sin = angles.cos().to(torch.bfloat16), angles.sin().to(torch.bfloat16)

    def rope(self, x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        cos, sin = self.cos[positions][None, None], self.sin[positions][None, None]
        a, b = x[..., ::2], x[..., 1::2]
        return torch.stack((a * cos - b * sin, a * sin + b * cos), dim=-1).flatten(-2)

    def step(self, tokens: torch.Tensor, positions: torch.Tensor, attend) -> torch.Tensor:
        batch, length = tokens.shape
        x = self.embed[tokens]
        for index, w in enumerate(self.layers):
            h = F.rms_norm(x, (HIDDEN,), w["norm1"])
            q, k, v = (h @ w["qkv"]).split([HEADS * HEAD_DIM, KV_HEADS * HEAD_DIM, KV_HEADS * HEAD_DIM], dim=-1)
            q = self.rope(q.view(batch, length, HEADS, HEAD_DIM).transpose(1, 2), positions)
            k = self.rope(k.view(batch, length, KV_HEADS, HEAD_DIM).transpose(1, 2), positions)
            v = v.view(batch, length, KV_HEADS, HEAD_DIM).transpose(1, 2)
            out = attend(index, q, k, v, positions)
            x = x + out.transpose(1, 2).reshape(batch, length, HEADS * HEAD_DIM) @ w["o"]
            h = F.rms_norm(x, (HIDDEN,), w["norm2"])
            gate, up = (h @ w["gate_up"]).chunk(2, dim=-1)
            x = x + (F.silu(gate) * up) @ w["down"]
        return (F.rms_norm(x[:, -1], (HIDDEN,), self.norm) @ self.head).argmax(-1, keepdim=True)


class DynamicCache:
    def __init__(self, batch: int) -> None:
        shape = (batch, KV_HEADS, CONTEXT, HEAD_DIM)
        self.k = [torch.randn(shape, device="cuda", dtype=torch.bfloat16) for _ in range(LAYERS)]
        self.v = [torch.randn(shape, device="cuda", dtype=torch.bfloat16) for _ in range(LAYERS)]

    def attend(self, index, q, k, v, positions):
        self.k[index] = torch.cat((self.k[index], k), dim=2)
        self.v[index] = torch.cat((self.v[index], v), dim=2)
        length, total = q.shape[2], self.k[index].shape[2]
        mask = None
        if length > 1:  # query j sees the cache and drafts up to j
            mask = torch.arange(total, device="cuda")[None] <= (total - length + torch.arange(length, device="cuda"))[:, None]
        return sdpa(q, self.k[index], self.v[index], mask)


class StaticCache:
    def __init__(self, batch: int) -> None:
        shape = (batch, KV_HEADS, MAX_LEN, HEAD_DIM)
        self.k = [torch.randn(shape, device="cuda", dtype=torch.bfloat16) for _ in range(LAYERS)]
        self.v = [torch.randn(shape, device="cuda", dtype=torch.bfloat16) for _ in range(LAYERS)]
        self.keys = torch.arange(MAX_LEN, device="cuda")

    def attend(self, index, q, k, v, positions):
        self.k[index].index_copy_(2, positions, k)
        self.v[index].index_copy_(2, positions, v)
        mask = self.keys[None] <= positions[:, None]  # every position of the cache, masked
        return sdpa(q, self.k[index], self.v[index], mask)


class Runner:
    """One path at one batch size and tokens in flight: `run()` is one synchronised-or-not decode step."""

    def __init__(self, model: Decoder, path: str, batch: int, length: int) -> None:
        self.model, self.path, self.length = model, path, length
        self.tokens = torch.randint(0, VOCAB, (batch, length), device="cuda")
        self.positions = CONTEXT + torch.arange(length, device="cuda")
        self.cache = DynamicCache(batch) if path == "eager" else StaticCache(batch)
        self.graph = None
        if path == "graphs":
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(3):
                    self.model.step(self.tokens, self.positions, self.cache.attend)
            torch.cuda.current_stream().wait_stream(side)
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph):
                self.out = self.model.step(self.tokens, self.positions, self.cache.attend)
                self.positions.add_(self.length)

    def run(self) -> None:
        if self.graph is not None:
            self.graph.replay()
            self.tokens[:, :1].copy_(self.out)
            if int(self.positions[-1]) + self.length >= MAX_LEN:
                self.positions.sub_(self.positions[0] - CONTEXT)
            return
        out = self.model.step(self.tokens, self.positions, self.cache.attend)
        self.tokens[:, :1].copy_(out)
        if self.path == "static":
            self.positions.add_(self.length)
            if int(self.positions[-1]) + self.length >= MAX_LEN:
                self.positions.sub_(self.positions[0] - CONTEXT)
        elif self.cache.k[0].shape[2] + self.length > CONTEXT + 512:  # keep the dynamic context near 512
            self.cache = DynamicCache(self.tokens.shape[0])
            self.positions = CONTEXT + torch.arange(self.length, device="cuda")


def main() -> None:
    model = Decoder()
    report: dict = {"torch": torch.__version__, "device": torch.cuda.get_device_name(), "shape": SHAPE, "layers": LAYERS,
                    "hidden": HIDDEN, "heads": HEADS, "kv_heads": KV_HEADS, "head_dim": HEAD_DIM, "mlp": MLP,
                    "vocab": VOCAB, "context_tokens": CONTEXT, "static_cache_tokens": MAX_LEN,
                    "sdpa_backends": "flash, efficient, math (no cuDNN)" if NO_CUDNN else "torch's default", "paths": {}}
    with torch.no_grad():
        for path in PATHS:
            entry: dict = {}
            for batch in BATCHES:
                for length in LENGTHS:
                    traced = length == 1 and batch in TRACED and path != "static"
                    entry.setdefault(str(batch), {})[f"tokens_{length}"] = measure(
                        partial(Runner, model, path, batch, length), OUT, f"trace_{path}_b{batch}" if traced else None)
                print(path, batch, entry[str(batch)], flush=True)
            report["paths"][path] = entry
    with open(os.path.join(OUT, "step_times.json"), "w") as f:
        json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()

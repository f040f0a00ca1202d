"""Hardware and model presets, shipped as data; each figure says where it comes from.

Dense peak figures are without structured sparsity. Where a datasheet
quotes only sparse or "AI TOPS" figures, the dense figure is derived (and
the derivation is given).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Figure:
    value: float | int | str | None
    source: str


@dataclass(frozen=True)
class Preset:
    key: str
    name: str
    figures: dict[str, Figure]

    def values(self) -> dict[str, Any]:
        return {name: f.value for name, f in self.figures.items()}

    def sources(self) -> str:
        return "\n".join(f"{name}: {f.source}" for name, f in self.figures.items() if f.value not in (None, ""))


def _gpu(key, name, memory, bandwidth, bf16, fp8, fp4, sms, interconnect, sheet, derived_note="") -> Preset:
    return Preset(key, name, {
        "memory_gb": Figure(memory, sheet),
        "bandwidth_gb_s": Figure(bandwidth, sheet),
        "tflops_bf16": Figure(bf16, derived_note or sheet),
        "tflops_fp8": Figure(fp8, derived_note or sheet),
        "tflops_fp4": Figure(fp4, derived_note or sheet if fp4 else "no FP4 tensor cores"),
        "sm_count": Figure(sms, sheet),
        "interconnect": Figure(interconnect, sheet),
    })


GPU_PRESETS = {
    p.key: p
    for p in (
        _gpu(
            "rtx-pro-6000", "NVIDIA RTX PRO 6000 Blackwell", 96, 1792, 500, 1000, 2000, 188,
            "PCIe Gen5 x16 (no NVLink)",
            "NVIDIA RTX PRO 6000 Blackwell datasheet: 96 GB GDDR7, 512-bit, 1,792 GB/s, 188 SMs",
            "derived: datasheet 4,000 AI TOPS is FP4 with 2:4 sparsity; halved for dense FP4 (2,000), "
            "halved again per doubling of precision (FP8 1,000, BF16 500)",
        ),
        _gpu(
            "h100-sxm", "NVIDIA H100 SXM", 80, 3350, 989, 1979, None, 132, "NVLink 4, 900 GB/s",
            "NVIDIA H100 datasheet (SXM): 80 GB HBM3, 3.35 TB/s; dense BF16 989 / FP8 1,979 TFLOPS "
            "(datasheet quotes twice that with sparsity)",
        ),
        _gpu(
            "h200", "NVIDIA H200 SXM", 141, 4800, 989, 1979, None, 132, "NVLink 4, 900 GB/s",
            "NVIDIA H200 datasheet: 141 GB HBM3e, 4.8 TB/s; same Hopper compute as H100 SXM "
            "(dense BF16 989 / FP8 1,979 TFLOPS)",
        ),
        _gpu(
            "b200", "NVIDIA B200", 180, 8000, 2250, 4500, 9000, 148, "NVLink 5, 1.8 TB/s",
            "NVIDIA DGX B200 datasheet: 180 GB HBM3e and 8 TB/s per GPU; dense BF16 2.25 / FP8 4.5 / FP4 9 PFLOPS "
            "(half the sparse figures); 148 SMs",
        ),
    )
}

_V4 = "DeepSeek-V4-Flash config.json / model card"
_QWEN3 = "Qwen/Qwen3-30B-A3B config.json / model card"


def _kv_bytes(layers: int, kv_heads: int, head_dim: int, bytes_per_value: float) -> int:
    """A token's KV cache: keys and values of every layer's KV heads."""
    return int(2 * layers * kv_heads * head_dim * bytes_per_value)


def _dense(key: str, name: str, params_b: float, layers: int, kv_heads: int, head_dim: int, card: str) -> Preset:
    """A dense model in BF16: every weight read every step, active = total parameters."""
    return Preset(key, name, {
        "total_params_b": Figure(params_b, card),
        "active_params_b": Figure(params_b, "dense: every parameter is active"),
        "layers": Figure(layers, card),
        "routed_experts": Figure(0, "dense: no experts"),
        "experts_per_token": Figure(0, "dense: no experts"),
        "shared_experts": Figure(0, "dense: no experts"),
        "dense_bytes_per_weight": Figure(2.0, "BF16 weights (torch_dtype bfloat16)"),
        "expert_bytes_per_weight": Figure(2.0, "no expert weights; BF16 like the rest"),
        "kv_bytes_per_token": Figure(
            _kv_bytes(layers, kv_heads, head_dim, 2),
            f"derived: 2 (K and V) x {layers} layers x {kv_heads} KV heads x head_dim {head_dim} x 2 bytes (BF16)"),
        "compute_dtype": Figure("bf16", "BF16 GEMMs"),
    })
MODEL_PRESETS = {
    "deepseek-v4-flash": Preset("deepseek-v4-flash", "DeepSeek-V4-Flash", {
        "total_params_b": Figure(284, f"{_V4}: 284B total parameters"),
        "active_params_b": Figure(13, f"{_V4}: 13B activated a token"),
        "layers": Figure(43, f"{_V4}: num_hidden_layers 43, every block MoE"),
        "routed_experts": Figure(256, f"{_V4}: n_routed_experts 256"),
        "experts_per_token": Figure(6, f"{_V4}: num_experts_per_tok 6"),
        "shared_experts": Figure(1, f"{_V4}: n_shared_experts 1"),
        "dense_bytes_per_weight": Figure(
            1.0, "derived: non-expert weights in FP8 e4m3 (quantization_config fp8, 128x128 block scales: +0.006%)"
        ),
        "expert_bytes_per_weight": Figure(
            0.53125, "derived: expert weights MXFP4 (expert_dtype fp4), 4 bits plus one 8-bit scale per 32 values"
        ),
        "kv_bytes_per_token": Figure(
            5000,
            "derived, approximate: head_dim 512 with 1 KV head, layers compressed 4x (CSA) or 128x (HCA) "
            "plus 128-dim indexer keys, in FP8; about 5 KB a token over 43 layers",
        ),
        "compute_dtype": Figure("fp8", "dense GEMMs in FP8"),
    }),
    "llama-3.1-8b": _dense(
        "llama-3.1-8b", "Llama 3.1 8B (BF16)", 8.03, 32, 8, 128,
        "meta-llama/Llama-3.1-8B config.json: num_hidden_layers 32, num_attention_heads 32, num_key_value_heads 8, "
        "hidden_size 4096 (head_dim 128); model card: 8.03B parameters",
    ),
    "llama-3.1-70b": _dense(
        "llama-3.1-70b", "Llama 3.1 70B (BF16)", 70.6, 80, 8, 128,
        "meta-llama/Llama-3.1-70B config.json: num_hidden_layers 80, num_attention_heads 64, num_key_value_heads 8, "
        "hidden_size 8192 (head_dim 128); model card: 70.6B parameters",
    ),
    "qwen3-30b-a3b": Preset("qwen3-30b-a3b", "Qwen3-30B-A3B (BF16)", {
        "total_params_b": Figure(30.5, f"{_QWEN3}: 30.5B total parameters"),
        "active_params_b": Figure(3.3, f"{_QWEN3}: 3.3B activated"),
        "layers": Figure(48, f"{_QWEN3}: num_hidden_layers 48, every block MoE"),
        "routed_experts": Figure(128, f"{_QWEN3}: num_experts 128"),
        "experts_per_token": Figure(8, f"{_QWEN3}: num_experts_per_tok 8"),
        "shared_experts": Figure(0, f"{_QWEN3}: no shared expert"),
        "dense_bytes_per_weight": Figure(2.0, "BF16 weights (torch_dtype bfloat16)"),
        "expert_bytes_per_weight": Figure(2.0, "BF16 weights (torch_dtype bfloat16)"),
        "kv_bytes_per_token": Figure(
            _kv_bytes(48, 4, 128, 2), f"derived: 2 (K and V) x 48 layers x 4 KV heads ({_QWEN3}: num_key_value_heads 4) "
            "x head_dim 128 x 2 bytes (BF16)"),
        "compute_dtype": Figure("bf16", "BF16 GEMMs"),
    }),
}

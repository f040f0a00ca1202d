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


def _gpu(key: str, name: str, memory: float, bandwidth: float, bf16: float, fp8: float, fp4: float | None, sms: int,
         interconnect: str, sheet: str, derived_note: str = "") -> Preset:
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
_BF16 = "BF16 weights (torch_dtype bfloat16)"
_MXFP4 = "derived: MXFP4, 4 bits plus one 8-bit scale per 32 values"
_FP8_BLOCKS = Figure(1.0, "FP8 e4m3 weights (quantization_config fp8, 128x128 block scales: +0.006%)")


def _kv_bytes(layers: int, kv_heads: int, head_dim: int, bytes_per_value: float) -> int:
    """A token's KV cache: keys and values of every layer's KV heads."""
    return int(2 * layers * kv_heads * head_dim * bytes_per_value)


def _gqa_kv(layers: int, kv_heads: int, head_dim: int, card: str, note: str = "") -> Figure:
    """A grouped-query attention model's KV cache a token in BF16, with its derivation."""
    return Figure(_kv_bytes(layers, kv_heads, head_dim, 2),
                  f"derived: 2 (K and V) x {layers} layers x {kv_heads} KV heads (num_key_value_heads) x head_dim "
                  f"{head_dim} x 2 bytes (BF16), from {card}{note}")


def _dense(key: str, name: str, params_b: float, layers: int, kv_heads: int, head_dim: int, card: str) -> Preset:
    """A dense model in BF16: every weight read every step, active = total parameters."""
    return Preset(key, name, {
        "total_params_b": Figure(params_b, card),
        "active_params_b": Figure(params_b, "dense: every parameter is active"),
        "layers": Figure(layers, card),
        "routed_experts": Figure(0, "dense: no experts"),
        "experts_per_token": Figure(0, "dense: no experts"),
        "shared_experts": Figure(0, "dense: no experts"),
        "dense_bytes_per_weight": Figure(2.0, _BF16),
        "expert_bytes_per_weight": Figure(2.0, "no expert weights; BF16 like the rest"),
        "kv_bytes_per_token": _gqa_kv(layers, kv_heads, head_dim, card),
        "compute_dtype": Figure("bf16", "BF16 GEMMs"),
    })


@dataclass(frozen=True)
class MoeShape:
    """What a mixture-of-experts config.json and model card say, as the ceiling needs it."""

    total_b: float
    active_b: float
    moe_layers: int  # layers with routed experts (DeepSeek's first dense layers left out)
    experts: int  # E, routed
    per_token: int  # k
    shared: int


def _moe(key: str, name: str, card: str, shape: MoeShape, *, kv: Figure, dense_bytes: Figure = Figure(2.0, _BF16),
         expert_bytes: Figure = Figure(2.0, _BF16), dtype: Figure = Figure("bf16", "BF16 GEMMs")) -> Preset:
    """A mixture-of-experts model: the counts from its card, the weights' bytes and KV cache as given."""
    return Preset(key, name, {
        "total_params_b": Figure(shape.total_b, f"{card}: {shape.total_b:g}B total parameters"),
        "active_params_b": Figure(shape.active_b, f"{card}: {shape.active_b:g}B activated a token"),
        "layers": Figure(shape.moe_layers, f"{card}: {shape.moe_layers} layers with routed experts"),
        "routed_experts": Figure(shape.experts, f"{card}: {shape.experts} routed experts"),
        "experts_per_token": Figure(shape.per_token, f"{card}: num_experts_per_tok {shape.per_token}"),
        "shared_experts": Figure(shape.shared, f"{card}: {shape.shared} shared experts"),
        "dense_bytes_per_weight": dense_bytes,
        "expert_bytes_per_weight": expert_bytes,
        "kv_bytes_per_token": kv,
        "compute_dtype": dtype,
    })


_QWEN3_30B = "Qwen/Qwen3-30B-A3B config.json / model card"
_QWEN3_235B = "Qwen/Qwen3-235B-A22B config.json / model card"
_MIXTRAL = "mistralai/Mixtral-8x7B-v0.1 config.json / model card"
_GPT_OSS = "openai/gpt-oss-120b config.json / model card"
_DSV3 = "deepseek-ai/DeepSeek-V3 config.json / model card (DeepSeek-R1 has the same shape)"
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
    "qwen3-8b": _dense(
        "qwen3-8b", "Qwen3 8B (BF16)", 8.2, 36, 8, 128,
        "Qwen/Qwen3-8B config.json: num_hidden_layers 36, num_attention_heads 32, num_key_value_heads 8, head_dim 128; "
        "model card: 8.2B parameters",
    ),
    "qwen3-30b-a3b": _moe(
        "qwen3-30b-a3b", "Qwen3-30B-A3B (BF16)", _QWEN3_30B, MoeShape(30.5, 3.3, 48, 128, 8, 0),
        kv=_gqa_kv(48, 4, 128, _QWEN3_30B),
    ),
    "qwen3-235b-a22b": _moe(
        "qwen3-235b-a22b", "Qwen3-235B-A22B (BF16)", _QWEN3_235B, MoeShape(235, 22, 94, 128, 8, 0),
        kv=_gqa_kv(94, 4, 128, _QWEN3_235B),
    ),
    "mixtral-8x7b": _moe(
        "mixtral-8x7b", "Mixtral 8x7B (BF16)", _MIXTRAL, MoeShape(46.7, 12.9, 32, 8, 2, 0),
        kv=_gqa_kv(32, 8, 128, _MIXTRAL),
    ),
    "gpt-oss-120b": _moe(
        "gpt-oss-120b", "gpt-oss-120b (MXFP4 experts)", _GPT_OSS, MoeShape(116.8, 5.1, 36, 128, 4, 0),
        kv=_gqa_kv(18, 8, 64, _GPT_OSS, note="; only the 18 full-attention layers of the 36: the other 18 attend to "
                   "a 128-token window, at most 4.72 MB a sequence, left out (the ceiling is that much optimistic)"),
        expert_bytes=Figure(0.53125, f"{_MXFP4} (quantization_config mxfp4 on the expert MLPs)"),
        dense_bytes=Figure(2.0, "attention, router, embeddings in BF16 (quantization_config modules_to_not_convert)"),
    ),
    "deepseek-v3": _moe(
        "deepseek-v3", "DeepSeek-V3 / R1 (FP8)", _DSV3, MoeShape(671, 37, 58, 256, 8, 1),
        kv=Figure(61 * (512 + 64) * 2, f"derived: MLA caches one latent a layer, kv_lora_rank 512 + qk_rope_head_dim "
                  f"64 values, x 61 layers x 2 bytes (BF16 cache), from {_DSV3}"),
        dense_bytes=_FP8_BLOCKS, expert_bytes=_FP8_BLOCKS,
        dtype=Figure("fp8", "FP8 GEMMs as the checkpoint ships"),
    ),
}

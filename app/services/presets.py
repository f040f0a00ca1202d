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
}

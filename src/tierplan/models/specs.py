"""A campaign's hardware and model specs, which give the decode ceiling."""

from __future__ import annotations

from enum import StrEnum

from sqlmodel import AutoString, SQLModel

from tierplan.models.fields import Input, Int, Number, example, field
from tierplan.models.plan_rows import Versioned, provenance, text
from tierplan.planning.model import Provenance


class ComputeDtype(StrEnum):
    BF16 = "bf16"
    FP8 = "fp8"
    FP4 = "fp4"


class HardwareSpecFields(SQLModel):
    name: str = field("GPU", min_length=1, max_length=200)
    count: Int = field("GPUs a decode step spans", default=1, ge=1)
    memory_gb: Number = field("Memory per GPU (GB)", gt=0)
    bandwidth_gb_s: Number = field("Memory bandwidth per GPU (GB/s)", gt=0)
    tflops_bf16: Number | None = field("Dense BF16 (TFLOP/s)", default=None, ge=0)
    tflops_fp8: Number | None = field("Dense FP8 (TFLOP/s)", default=None, ge=0)
    tflops_fp4: Number | None = field("Dense FP4 (TFLOP/s)", default=None, ge=0)
    sm_count: Int | None = field("SMs", default=None, ge=1)
    interconnect: str = text("Interconnect", max_length=200)
    scaling_efficiency: Number = field("Scaling efficiency (0-1)", default=0.8, gt=0, le=1,
                                       help="share of count x one GPU's bandwidth and FLOP/s a step really gets")
    provenance: Provenance = provenance("Figures come from", Provenance.REPORTED)
    sources: str = text("Source of each figure", widget="textarea",
                        help="one 'figure: datasheet / measured / derived and how' a line")


class HardwareSpecCreate(HardwareSpecFields, Input):
    """The GPUs a decode step runs on."""

    model_config = example(name="NVIDIA RTX PRO 6000 Blackwell", count=8, memory_gb=96, bandwidth_gb_s=1792,
                           tflops_bf16=500, tflops_fp8=1000, tflops_fp4=2000, sm_count=188, interconnect="PCIe 5.0",
                           scaling_efficiency=0.8, provenance="reported",
                           sources="bandwidth_gb_s: datasheet (96 GB GDDR7, 512-bit, 1,792 GB/s)")


class HardwareSpecPublic(HardwareSpecCreate, Versioned):
    id: int


class ModelSpecFields(SQLModel):
    name: str = field("Model", min_length=1, max_length=200)
    total_params_b: Number = field("Total parameters (B)", gt=0)
    active_params_b: Number = field("Active parameters a token (B)", gt=0)
    layers: Int = field("MoE layers (all layers if dense)", ge=1)
    routed_experts: Int = field("Routed experts E (0 if dense)", default=0, ge=0)
    experts_per_token: Int = field("Experts a token k", default=0, ge=0)
    shared_experts: Int = field("Shared experts", default=0, ge=0)
    dense_bytes_per_weight: Number = field("Bytes a dense weight", gt=0, le=8)  # FP64 at most
    expert_bytes_per_weight: Number = field("Bytes an expert weight", gt=0, le=8)
    kv_bytes_per_token: Number = field("KV-cache bytes a token (all layers)", default=0.0, ge=0)
    compute_dtype: ComputeDtype = field("Compute data type", default=ComputeDtype.FP8,
                                        labels={"bf16": "BF16", "fp8": "FP8", "fp4": "FP4"}, sa_type=AutoString)
    provenance: Provenance = provenance("Figures come from", Provenance.REPORTED)
    sources: str = text("Source of each figure", widget="textarea")


class ModelSpecCreate(ModelSpecFields, Input):
    """The model's shape as the ceiling needs it."""

    model_config = example(name="DeepSeek-V4-Flash", total_params_b=284, active_params_b=13, layers=43,
                           routed_experts=256, experts_per_token=6, shared_experts=1, dense_bytes_per_weight=1,
                           expert_bytes_per_weight=0.53125, kv_bytes_per_token=5000, compute_dtype="fp8",
                           provenance="reported", sources="layers: config.json num_hidden_layers 43, every block MoE")


class ModelSpecPublic(ModelSpecCreate, Versioned):
    id: int

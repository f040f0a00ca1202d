"""The default kernel -> bucket rules on kernel names as the tools' own sources write them."""

import pytest

from tierplan.importers.buckets import DEFAULT_RULES, bucket_kernels
from tierplan.importers.records import KernelSummary

# Each name as a profiler shows it, from the source that launches it (checked with the search tool).
NAMES = {
    # vLLM csrc/moe/topk_softmax_kernels.cu, fused_moe.py (Triton), moe_align_block_size, marlin_moe_wna16/kernel.h
    "void vllm::moe::topkGatingSoftmax<8, 128, 4, 16, int>(float const*, bool const*, float*, int, int*, int*, int, int, int, bool)": "moe",
    "void vllm::moe::moeSoftmax<256>(float const*, bool const*, float*, int)": "moe",
    "fused_moe_kernel": "moe",
    "void vllm::moe::moe_align_block_size_kernel<int>(int const*, int*, int*, int*, int, int, int, int, unsigned long, int*)": "moe",
    "void marlin_moe_wna16::Marlin<(vllm::ScalarTypeId)5, 256, 1, 8, 8, true, false, 4, 8, false>(int4 const*)": "moe",
    # SGLang sgl-kernel moe_fused_gate.cu
    "void moe_fused_gate_kernel<float, 256, 8, 4>(void*, void*, float*, int*, long, long, long, long, double)": "moe",
    # CUTLASS 3 grouped GEMM as torch._grouped_mm launches it (the shared H200 trace), DeepGEMM grouped layouts
    "_ZN7cutlass13device_kernelIN2at4cuda6detail25enable_3x_kernel_for_sm9xINS_4gemm6kernel13GemmUniversalINS5_17GroupProblemShapeIN4cute5tupleIJiiiEEEEENS5_10collective13CollectiveMmaINS5_39MainloopSm90ArrayTmaGmmaWarpSpecializedILi4E": "moe",
    "void deep_gemm::sm90_fp8_gemm_1d2d_impl<0u, 4096u, 7168u, 128u, 128u, (deep_gemm::GemmType)1, deep_gemm::GemmType::MGroupedContiguous>(float*)": "moe",
    "void deep_gemm::fp8_gemm_kernel<4096u, 7168u, 128u, 128u, 128u, 8u, 1u, GemmType::GroupedMasked>(float*)": "moe",
    "[router] void (anonymous namespace)::softmax_warp_forward<float, float, float, 3, false, false>(float*)": "moe",
    # vLLM attention: paged_attention_v2_kernel, reshape_and_cache_flash_kernel, Triton unified attention
    "void vllm::paged_attention_v2_kernel<__nv_bfloat16, __nv_bfloat16, 128, 16, 128, (vllm::Fp8KVCacheDataType)0, false, 512>(float*)": "attention",
    "void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16, __nv_bfloat16, (vllm::Fp8KVCacheDataType)0>(__nv_bfloat16 const*)": "attention",
    "kernel_unified_attention_2d": "attention",
    # FlashInfer, flash-attention 2 / 3, FlashMLA, PyTorch SDPA (flash, memory-efficient CUTLASS, cuDNN)
    "void flashinfer::BatchDecodeWithPagedKVCacheKernel<(flashinfer::PosEncodingMode)0, 2u, 4u, 8u, 16u, 1u, 8u>(Params)": "attention",
    "void flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, false, false, cutlass::bfloat16_t>, false>(Flash_fwd_params)": "attention",
    "void flash::flash_fwd_splitkv_mla_kernel<Flash_fwd_kernel_traits_mla<576, 64, 64, 8, cutlass::bfloat16_t, 512>>(Flash_fwd_mla_params)": "attention",
    "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, cutlass::bfloat16_t>>(Flash_fwd_params)": "attention",
    "fmha_cutlassF_bf16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<cutlass::bfloat16_t, cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)": "attention",
    "cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_35_16x128x128_1x4x1_cga1x1": "attention",
    "_tiled_sparse_decode_kernel": "attention",
    # communication: vLLM custom all-reduce, NCCL
    "void vllm::cross_device_reduce_1stage<__nv_bfloat16, 4>(vllm::RankData*, vllm::RankSignals, vllm::Signal*, __nv_bfloat16*, int, int)": "communication",
    "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm *, unsigned long, ncclWork *)": "communication",
    # dense GEMMs: cuBLAS (nvjet), CUTLASS 2 kernels, dense Marlin
    "nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT": "dense_gemm",
    "void cutlass::Kernel2<cutlass_80_simt_sgemm_128x32_8x5_nn_align1>(cutlass_80_simt_sgemm_128x32_8x5_nn_align1::Params)": "dense_gemm",
    "sm120_xmma_gemm_e4m3f32_e4m3f32_f32_tn_n_tilesize128x128x64": "dense_gemm",
    "void marlin::Marlin<256, 1, 8, 8, 4, 8>(int4 const*)": "dense_gemm",
    # sampling
    "void at::native::sbtopk::gatherTopK<float, unsigned int, 2, false>(at::cuda::detail::TensorInfo<float, unsigned int>)": "sampling",
}


@pytest.mark.parametrize("name, bucket", NAMES.items(), ids=[n[:40] for n in NAMES])
def test_real_kernel_names_land_in_their_bucket(name, bucket):
    summary = KernelSummary("test")
    summary.add(name, 1.0)
    assert bucket_kernels(summary, DEFAULT_RULES).kernels[0].bucket == bucket

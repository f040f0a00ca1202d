"""The dense-decoder traces torch.profiler wrote on the device (tests/data/dense): steps cut once each, never a
layer at a time, and attention told by where its kernels were launched."""

import gzip
import io
import json
from pathlib import Path

import pytest

from tierplan.importers.buckets import bucket_kernels
from tierplan.importers.errors import ImportFileError
from tierplan.importers.torch_trace import parse_trace

DATA = Path(__file__).parent.parent / "data"


@pytest.mark.parametrize(("path", "items"), [("eager", 424), ("sdpa", 350), ("flash", 358)])
def test_profiler_step_markers_cut_the_trace_once_each(path, items):
    """torch.profiler writes each ProfilerStep twice: on the host (user_annotation) and on the GPU timeline
    (gpu_user_annotation). Only the host's cuts passes: 7 steps, a prefill and 6 decode steps of a whole model each,
    not 14 with a one-kernel pass between them."""
    with open(DATA / "dense" / f"trace_dense_{path}_b1.json.gz", "rb") as handle:
        summary = parse_trace(handle, path)
    steps = summary.steps
    assert steps.method == "7 ProfilerStep markers"
    assert [p.role for p in steps.passes] == ["prefill"] + ["decode"] * 6
    assert steps.decode_steps == 6 and steps.gpu_items == items  # 8 layers' kernels a step, not one


def dense_without(path: str, keep_host) -> io.BytesIO:
    """A real dense trace with its ProfilerStep markers (and the host spans `keep_host` refuses) taken out, as a
    trace recorded without torch.profiler's schedule would be."""
    with gzip.open(DATA / "dense" / f"trace_dense_{path}_b1.json.gz") as handle:
        trace = json.load(handle)
    host = {"cpu_op", "python_function", "user_annotation", "gpu_user_annotation"}
    events = [e for e in trace["traceEvents"] if not str(e.get("name", "")).startswith("ProfilerStep#")
              and (e.get("cat") not in host or keep_host(str(e.get("name", ""))))]
    return io.BytesIO(json.dumps({**trace, "traceEvents": events}).encode())


def test_without_step_markers_a_span_that_repeats_every_layer_does_not_cut_the_steps():
    """transformers' __getitem__ runs 9 times a step; its pieces never hold the token read back, so the
    span that starts each forward pass is found instead: 7 passes of the whole model."""
    summary = parse_trace(dense_without("eager", lambda name: True), "eager")
    assert summary.steps.decode_steps == 6 and summary.steps.gpu_items == 424


def test_a_trace_whose_only_repeating_spans_cut_steps_into_layers_is_refused_with_what_to_do():
    per_layer = dense_without("eager", lambda name: name == "transformers/utils/generic.py(1110): __getitem__")
    with pytest.raises(ImportFileError) as refused:
        parse_trace(per_layer, "per_layer.json")
    message = str(refused.value)
    assert message.startswith("per_layer.json: its forward passes could not be found")
    assert "63 of them" in message and "a layer each" in message and "prof.step()" in message


def test_eager_attention_s_matmuls_and_softmax_count_as_attention():
    """transformers' eager attention is a bmm, a softmax and a bmm (cuBLAS GEMV kernels and a softmax): named by
    what they are they read as dense_gemm and elementwise, 1.2% of the step's GPU time left to attention. Launched
    inside eager_attention_forward (the trace's Python stack), they are attention: 13.9%, the q/k/v/o projections
    around them stay dense_gemm."""
    with open(DATA / "dense" / "trace_dense_eager_b1.json.gz", "rb") as handle:
        bucketing = bucket_kernels(parse_trace(handle, "eager"))
    total = sum(bucketing.bucket_us.values())
    assert bucketing.bucket_us["attention"] / total == pytest.approx(0.139, abs=0.002)
    tagged = [k for k in bucketing.kernels if k.name.startswith("[attention] ")]
    assert {k.bucket for k in tagged} == {"attention"}
    assert any("gemv" in k.name.lower() for k in tagged) and any("softmax" in k.name for k in tagged)
    assert bucketing.bucket_us["dense_gemm"] / total > 0.4  # the projections and the MLP


@pytest.mark.parametrize(("path", "kernel"), [("sdpa", "cudnn_generated_fort_native_sdpa"),
                                               ("flash", "pytorch_flash::flash_fwd_splitkv_kernel")])
def test_fused_attention_kernels_are_attention_by_name_and_by_where_they_ran(path, kernel):
    with open(DATA / "dense" / f"trace_dense_{path}_b1.json.gz", "rb") as handle:
        bucketing = bucket_kernels(parse_trace(handle, path))
    assert any(kernel in k.name and k.bucket == "attention" for k in bucketing.kernels)

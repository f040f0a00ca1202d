"""The importers on real fixtures and small files of each dialect; malformed files get a clear error."""

import gzip
import io
import json
import os
from pathlib import Path

import pytest

from tierplan.importers import detect as formats
from tierplan.importers.benchmarks import parse_console
from tierplan.importers.buckets import HOST_BUCKET, bucket_kernels, kept_blocks, step_shares
from tierplan.importers.errors import ImportFileError
from tierplan.importers.kernel_csv import ColumnMap, parse_generic
from tierplan.importers.torch_trace import parse_trace, parse_traces

DATA = Path(__file__).parent.parent / "data"


def text(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def detected(name: str) -> str:
    return formats.detect((DATA / name).read_bytes()[: formats.HEAD_BYTES], name)


@pytest.mark.parametrize(
    "name, expected",
    [
        ("vllm/bench_serve_c4.json", formats.RESULTS),
        ("sglang/one_batch.jsonl", formats.RESULTS),
        ("sglang/bench_serving.jsonl", formats.RESULTS),
        ("vllm/bench_serve_append.json", formats.RESULTS),
        ("vllm/bench_serve_c4.console.txt", formats.CONSOLE),
        ("trace_eager_b1.json.gz", formats.TRACE),
    ],
)
def test_the_format_is_read_from_the_content(name, expected):
    assert detected(name) == expected


@pytest.mark.parametrize(
    "name, message",
    [("empty.txt", "the file is empty"), ("garbage.bin", "binary data, not text"), ("wrong_columns.csv", "expected")],
)
def test_files_of_no_known_format_are_refused_by_name(name, message):
    with pytest.raises(ImportFileError, match=message) as error:
        detected(name)
    assert error.value.file == name


@pytest.mark.parametrize("blank, said", [(b" \n\t\r\n", "the file holds only spaces and line breaks"),
                                         (b" \n" * (1 << 20), "its first 64 KiB hold only spaces and line breaks")])
def test_a_file_of_blanks_is_called_what_it_is(blank, said):
    with pytest.raises(ImportFileError, match=said):
        formats.detect(blank[:formats.HEAD_BYTES], "blank.json")


def test_the_real_eager_trace_splits_into_its_prefill_and_six_decode_steps():
    with open(DATA / "trace_eager_b1.json.gz", "rb") as handle:
        summary = parse_trace(handle, "eager")
    steps = summary.steps
    assert steps.method.startswith("aten::embedding at the start of each pass")
    assert [p.role for p in steps.passes] == ["prefill"] + ["decode"] * 6
    assert steps.passes[0].busy_ratio == pytest.approx(1.57, abs=0.01)  # 128 tokens of prefill: GEMMs, not GEMVs
    assert summary.whole_trace_gpu_us == pytest.approx(11258.967, abs=0.01)
    # only the decode steps are kept: 21% of the GPU time at batch 1 was the prefill
    assert summary.gpu_time_us == pytest.approx(8915.888, abs=0.01)
    assert 1 - summary.gpu_time_us / summary.whole_trace_gpu_us == pytest.approx(0.208, abs=0.001)
    assert (steps.decode_steps, steps.gpu_items, steps.host_launches) == (6, 689, 689)
    assert steps.busy_ms == pytest.approx(1.486, abs=0.001)
    assert steps.trace_idle_ms == pytest.approx(32.8, abs=0.1)  # under the profiler, not the 11.44 ms step
    assert steps.gpu_gap_us is None  # every kernel waited for its launch: the GPU's own gap cannot be seen


def test_the_graphs_trace_is_six_replays_of_one_launch_each():
    with open(DATA / "trace_graphs_b1.json.gz", "rb") as handle:
        summary = parse_trace(handle, "graphs")
    steps = summary.steps
    assert steps.method == "one cudaGraphLaunch a pass (6 replays)"
    assert [p.role for p in steps.passes] == ["decode"] * 6
    assert (steps.gpu_items, steps.host_launches) == (686, 1)
    assert steps.busy_ms == pytest.approx(1.6105, abs=1e-3)
    assert steps.gpu_gap_us == pytest.approx(0.416, abs=0.01)  # measured between queued kernels of a replay
    assert summary.devices == ["NVIDIA H200"]


def test_excluding_passes_leaves_them_out_as_asked():
    with open(DATA / "trace_eager_b1.json.gz", "rb") as handle:
        summary = parse_trace(handle, "eager", exclude_first=3)
    assert [p.role for p in summary.steps.passes] == ["excluded"] * 3 + ["decode"] * 4
    assert summary.steps.decode_steps == 4
    assert any("first 3 passes excluded" in note for note in summary.steps.notes)


def test_the_router_softmax_and_top_k_of_the_eager_moe_go_to_moe():
    with open(DATA / "trace_eager_b1.json.gz", "rb") as handle:
        bucketing = bucket_kernels(parse_trace(handle, "eager"))
    router = [k for k in bucketing.kernels if k.name.startswith("[router] ")]
    assert {k.bucket for k in router} == {"moe"}
    assert any("softmax_warp_forward" in k.name for k in router) and any("gatherTopK" in k.name for k in router)
    # the attention softmax of the same layers is not a router: it stays in attention
    assert any("softmax_warp_forward" in k.name and k.bucket == "attention" for k in bucketing.kernels)
    grouped = [k for k in bucketing.kernels if "GroupProblemShape" in k.name]
    assert grouped and {k.bucket for k in grouped} == {"moe"}  # torch._grouped_mm's CUTLASS grouped GEMM


def test_at_batch_1_the_eager_decode_is_mostly_idle_gpu():
    with open(DATA / "trace_eager_b1.json.gz", "rb") as handle:
        summary = parse_trace(handle, "eager")
    shares, how = step_shares(bucket_kernels(summary), ranks=1, step_ms=11.44, steps=summary.steps_found)
    # 8.92 ms of decode GPU time over 6 steps of 11.44 ms: 13% busy, 87% host / launch overhead
    assert shares[HOST_BUCKET] == pytest.approx(1 - 8915.888 / (6 * 11440), abs=1e-6)
    assert "host / launch overhead" in how


def test_rank_files_of_one_run_are_averaged():
    with open(DATA / "trace_graphs_b1.json.gz", "rb") as a, open(DATA / "trace_graphs_b1.json.gz", "rb") as b:
        summary = parse_traces([("rank0", a), ("rank1", b)])
    one = bucket_kernels(summary)
    shares, _ = step_shares(one, ranks=2, step_ms=1.8, steps=6)
    # two copies of one rank average back to that rank: 9.66 ms of GPU time over 6 steps of 1.8 ms
    assert shares[HOST_BUCKET] == pytest.approx(1 - 9663.118 / (6 * 1800), abs=1e-4)
    assert summary.steps.gpu_items == 686 and summary.steps.decode_steps == 6


def test_a_truncated_gzip_trace_is_refused():
    with open(DATA / "truncated_trace.json.gz", "rb") as handle, pytest.raises(ImportFileError, match="truncated"):
        parse_trace(handle, "truncated_trace.json.gz")


def test_a_gzip_bomb_is_refused_after_a_few_megabytes(tmp_path):
    path = tmp_path / "bomb.json.gz"
    with gzip.open(path, "wb", compresslevel=9) as out:  # 24 MB of events in about 40 KB
        out.write(b'{"schemaVersion": 1, "traceEvents": [' + b'{"ph": "i", "ts": 1, "name": "x"},' * 700_000 + b"{}]}")
    with open(path, "rb") as handle, pytest.raises(ImportFileError, match=r"expands more than 100x") as refused:
        parse_trace(handle, "bomb.json.gz")
    assert "bomb.json.gz, decompressed byte" in str(refused.value)


@pytest.mark.parametrize("gzipped", [True, False])
def test_a_value_of_megabytes_is_refused_before_the_parser_chews_on_it(tmp_path, gzipped):
    text = b'{"schemaVersion": 1, "traceEvents": [{"name": "' + os.urandom(3 << 20).hex().encode() + b'"}]}'
    path = tmp_path / "long.json"
    path.write_bytes(gzip.compress(text) if gzipped else text)
    with open(path, "rb") as handle, pytest.raises(ImportFileError, match="a single value longer than 4 MiB"):
        parse_trace(handle, "long.json")


def test_a_csv_field_past_csvs_limit_names_its_line():
    text = "Name,Total Time (ns)\nfine,1\n" + "x" * 200_000 + ",5\n"
    with pytest.raises(ImportFileError, match=r"k.csv, line 3: not a readable CSV row"):
        parse_generic(text, "k.csv", ColumnMap("Name", "Total Time (ns)"))


def test_more_gpu_time_than_the_steps_hold_is_refused():
    with open(DATA / "trace_graphs_b1.json.gz", "rb") as handle:
        bucketing = bucket_kernels(parse_trace(handle, "eager"))
    with pytest.raises(ValueError, match="check the step time"):
        step_shares(bucketing, ranks=1, step_ms=1.0, steps=2)


def test_older_pytorch_trace_categories_count_as_gpu_time():
    import io

    trace = {"traceEvents": [
        {"ph": "X", "cat": "Kernel", "name": "volta_sgemm_128x64_nn", "ts": 10, "dur": 30},
        {"ph": "X", "cat": "Memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "ts": 50, "dur": 5},
        {"ph": "X", "cat": "Operator", "name": "aten::mm", "ts": 0, "dur": 100},
        {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "ts": 0, "dur": 100},
    ]}
    summary = parse_trace(io.BytesIO(json.dumps(trace).encode()), "old.json")
    assert summary.gpu_time_us == 35 and summary.gpu_span_us == 45 and summary.steps_found == 1


def test_sglang_console_block_with_its_own_labels():
    block = """============ Serving Benchmark Result ============
Backend:                                 sglang
Traffic request rate:                    inf
Max request concurrency:                 16
Successful requests:                     64
Output token throughput (tok/s):         24.90
Total throughput (tok/s):                388.9
----------------End-to-End Latency----------------
Mean E2E Latency (ms):                   44000.00
Median E2E Latency (ms):                 43800.00
---------------Time to First Token----------------
Mean TTFT (ms):                          2100.00
P99 TTFT (ms):                           2900.00
"""
    (run,) = parse_console(block, "pasted")
    assert run.concurrency == 16 and run.request_rate == "inf"
    assert run.metrics == {"output_tok_s": 24.9, "total_tok_s": 388.9, "e2el_ms": 44000.0,
                           "median_e2el_ms": 43800.0, "ttft_ms": 2100.0, "p99_ttft_ms": 2900.0}


def test_a_chrome_trace_in_the_bare_array_format():
    import io

    events = [{"ph": "X", "cat": "kernel", "name": "flash_fwd_kernel", "ts": 1, "dur": 7.5},
              {"ph": "X", "cat": "kernel", "name": "flash_fwd_kernel", "ts": 20, "dur": 2.5}]
    raw = json.dumps(events).encode()
    assert formats.detect(raw, "array.json") == formats.TRACE
    summary = parse_trace(io.BytesIO(raw), "array.json")
    assert summary.kernels == {"flash_fwd_kernel": [10.0, 2]}


def test_a_trace_of_several_generate_calls_splits_into_steps_not_calls(tmp_path):
    """Three generate() calls in one trace: each call's prefill is told apart, even in the middle."""
    import gzip

    with gzip.open(DATA / "trace_eager_b1.json.gz", "rt") as handle:
        trace = json.load(handle)
    events = trace["traceEvents"]
    span = max(e["ts"] + e.get("dur", 0) for e in events if "ts" in e) + 1000
    repeated = []
    for k in range(3):
        for e in events:
            e = dict(e)
            if "ts" in e:
                e["ts"] += k * span
            if isinstance(e.get("args"), dict) and "correlation" in e["args"]:
                e["args"] = {**e["args"], "correlation": e["args"]["correlation"] + k * 10_000_000}
            repeated.append(e)
    trace["traceEvents"] = repeated
    path = tmp_path / "three_calls.json"
    path.write_text(json.dumps(trace))
    with open(path, "rb") as handle:
        steps = parse_trace(handle, "three_calls.json").steps
    assert steps.method == "aten::embedding at the start of each pass (21 found)"
    assert "".join(p.role[0] for p in steps.passes) == "p" + "d" * 6 + ("o" + "d" * 6) * 2
    assert steps.decode_steps == 18 and steps.busy_ms == pytest.approx(1.486, abs=0.001)


def test_passes_are_found_by_an_annotation_nested_under_an_outer_python_frame():
    """As vLLM's model runner writes it: one outer frame, a `forward` annotation a step, the token read back."""
    import io

    events, corr, t = [{"ph": "X", "cat": "python_function", "name": "serve_loop", "ts": 0, "dur": 10_000,
                        "pid": 1, "tid": 1}], 1, 10.0
    for _step in range(4):
        events.append({"ph": "X", "cat": "user_annotation", "name": "gpu_model_runner: forward", "ts": t,
                       "dur": 2000, "pid": 1, "tid": 1})
        for k in range(30):
            events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": t + 1, "dur": 5,
                           "pid": 1, "tid": 1, "args": {"correlation": corr}})
            events.append({"ph": "X", "cat": "kernel", "name": f"layer_kernel_{k % 3}", "ts": t + 10, "dur": 20,
                           "pid": 0, "tid": 7, "args": {"correlation": corr, "stream": 7}})
            corr, t = corr + 1, t + 50
        events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "ts": t, "dur": 30,
                       "pid": 1, "tid": 1, "args": {"correlation": corr}})
        corr, t = corr + 1, t + 500
    summary = parse_trace(io.BytesIO(json.dumps({"traceEvents": events}).encode()), "vllm-like.json")
    steps = summary.steps
    assert steps.method == "gpu_model_runner: forward at the start of each pass (4 found)"
    assert [p.role for p in steps.passes] == ["decode"] * 4 and steps.gpu_items == 30


def values(text: str) -> list:
    from tierplan.importers.json_values import json_values

    return list(json_values(io.BytesIO(text.encode()), "r.jsonl"))


def test_appended_results_keep_their_line_numbers_and_an_error_names_its_line():
    text = '{"a": 1}\n{"b": 2}\n\n  {"c":\n 3}\n{"d": 4}\n'
    assert [line for _, line in values(text)] == [1, 2, 4, 6]
    with pytest.raises(ImportFileError, match=r"r.jsonl, line 3: invalid JSON"):
        values('{"a": 1}\n{"b": 2}\n{"c": x}\n')
    with pytest.raises(ImportFileError, match=r"r.jsonl, line 2: invalid JSON"):
        values('{"a": 1}\n{"b": ')


def test_results_are_read_shallow_so_per_request_arrays_cost_nothing():
    from tierplan.importers import json_values as module

    text = ('{"output_throughput": 10.5, "request_rate": Infinity, "itls": [[0.1, 0.2], [0.3]], '
            '"ttfts": [' + ", ".join(["0.5"] * 1000) + '], "spec_decode_per_position": [0.9, 0.7], '
            '"nested": {"a": 1, "deeper": {"b": 2}, "objects": [{"c": 3}]}, "results": [{"x": 1, "deep": [1]}, '
            '{"y": NaN}]}\n[{"z": 2}, 3, 4]')
    (first, line1), (second, line2) = values(text)
    assert first == {"output_throughput": 10.5, "request_rate": "inf", "spec_decode_per_position": [0.9, 0.7],
                     "nested": {"a": 1}, "results": [{"x": 1, "deep": [1]}, {"y": "nan"}]}  # one level in, scalars
    assert (line1, line2) == (1, 2) and second == [{"z": 2}, 3]  # one odd item kept, for its error
    long_line = '{"a": [' + ",".join(["1.25"] * (module.PIECE_BYTES // 4)) + '], "output_throughput": 3}'
    assert values(long_line) == [({"output_throughput": 3}, 1)]  # a line past a piece is cut at a comma


def test_a_kernels_blocks_per_sm_is_read_from_the_trace_and_kept_with_its_profile():
    """torch.profiler writes each kernel's "blocks per SM" (CUPTI): in the H100 reduce-overhead trace at batch 1
    (tests/data/graphs_hf_inductor_4096), Inductor's fused mask over the whole 4096-position cache fills the GPU
    (a grid of 16384 blocks, 124 an SM) where its RMSNorm reductions run one block."""
    with open(DATA / "graphs_hf_inductor_4096/trace_graphs_b1.json.gz", "rb") as handle:
        summary = parse_trace(handle, "trace_graphs_b1.json.gz")
    mask = max((name for name in summary.blocks_per_sm if "scaled_dot_product_cudnn_attention" in name
                and name.startswith("triton_poi")), key=lambda name: summary.kernels[name][0])
    assert summary.blocks_per_sm[mask] == pytest.approx(124.12, abs=0.01)
    norms = [blocks for name, blocks in summary.blocks_per_sm.items() if name.startswith("triton_red_fused")]
    assert norms and max(norms) < 0.01
    kept = kept_blocks(bucket_kernels(summary), summary.blocks_per_sm)
    assert kept[mask] == summary.blocks_per_sm[mask] and set(kept) <= set(summary.kernels)


@pytest.mark.parametrize("said", ["124", -1.0, True, None, [124], 1e308])
def test_a_blocks_per_sm_that_is_no_count_is_left_unsaid(said):
    """The real batch-1 trace with its fused mask's "blocks per SM" replaced by a string, a negative number, a bool,
    null, a list or more blocks than a CUDA grid holds (summed over the step's launches, 1e308 overflowed to infinity
    and the regime page showed "inf"): the kernel is read, its blocks per SM left out (never a count made up)."""
    with gzip.open(DATA / "graphs_hf_inductor_4096/trace_graphs_b1.json.gz", "rt", encoding="utf-8") as handle:
        trace = json.load(handle)
    masks = [e for e in trace["traceEvents"] if e.get("cat") == "kernel"
             and e["name"].startswith("triton_poi_fused__scaled_dot_product") and e["args"].get("blocks per SM", 0) > 100]
    for event in masks:
        event["args"]["blocks per SM"] = said
    summary = parse_trace(io.BytesIO(json.dumps(trace).encode()), "trace_graphs_b1.json")
    assert masks and masks[0]["name"] in summary.kernels
    assert masks[0]["name"] not in summary.blocks_per_sm
    assert all(b >= 0 and b < 1e6 for b in summary.blocks_per_sm.values())

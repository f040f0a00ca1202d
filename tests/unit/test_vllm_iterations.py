"""`vllm bench iterations` results, written by the client itself against the stub's scheduler
(tests/data/vllm/iterations): found by their content, each parameter combination a run at its batch size, the
server's step time read as the file states it, and a mangled or truncated file refused where it breaks."""

import io
import json
from pathlib import Path

import pytest

from tierplan.importers.detect import HEAD_BYTES, detect
from tierplan.importers.errors import ImportFileError
from tierplan.importers.registry import read_runs

DATA = Path(__file__).resolve().parent.parent / "data" / "vllm" / "iterations"


def runs_of(data: bytes, name: str):
    found = detect(data[:HEAD_BYTES], name)
    return found, list(read_runs(found, io.BytesIO(data), name))


def test_a_decode_sweep_gives_each_batch_its_step_and_its_throughput_to_the_last_digit():
    path = DATA / "decode_results.json"
    written = json.loads(path.read_text())
    found, runs = runs_of(path.read_bytes(), path.name)
    assert found == "vllm_iterations" and [r.concurrency for r in runs] == [1, 16, 64]
    for run, result in zip(runs, written["results"], strict=True):
        step = result["server_latency_per_iter_ms"]
        assert run.metrics == {"tpot_ms": step, "output_tok_s": result["batch_size"] * 1000.0 / step}
        assert (run.input_len, run.output_len) == (1024, 32) and run.label == "decode" and run.engine == "vllm"
        assert run.measured_at == written["timestamp"]
        assert f"the client saw {result['client_latency_per_iter_ms']:.4g} ms" in run.note


def test_a_prefill_sweep_gives_the_time_to_first_token_of_its_new_tokens():
    path = DATA / "prefill_results.json"
    written = json.loads(path.read_text())
    _, runs = runs_of(path.read_bytes(), path.name)
    assert [(r.concurrency, r.input_len, r.output_len) for r in runs] == [(1, 1024, 1), (1, 4096, 1)]
    for run, result in zip(runs, written["results"], strict=True):
        step = result["server_latency_per_iter_ms"]
        assert run.metrics == {"ttft_ms": step, "input_tok_s": result["input_len"] * 1000.0 / step}
        assert f"prefill of {result['input_len']} new tokens after 0 cached" in run.note


def test_the_earlier_clients_own_timing_and_a_traced_steps_host_gap_are_read():
    written = json.loads((DATA / "decode_results.json").read_text())
    first = written["results"][0]
    step = first.pop("server_latency_per_iter_ms")
    first.pop("client_latency_per_iter_ms")
    first["latency_per_iter_ms"] = step  # the key the client wrote before it kept the server's steps
    second = written["results"][1]
    second.update(trace_breakdown={"gemm": 6.0, "attention": 2.5}, trace_iter_duration_ms=10.0,
                  trace_kernel_sum_ms=8.5)
    _, runs = runs_of(json.dumps(written).encode(), "decode.json")
    assert runs[0].metrics["tpot_ms"] == step and "the client saw" not in runs[0].note
    assert "trace: kernels 8.5 ms of a 10 ms iteration, host gap 1.5 ms (gemm 6 ms, attention 2.5 ms)" in runs[1].note


@pytest.mark.parametrize(("change", "where", "says"), [
    (lambda r: r.update(mode="warmup"), "result 2", "expected mode decode or prefill, found 'warmup'"),
    (lambda r: r.update(batch_size=0), "result 2", "expected batch_size to be a whole number of at least 1"),
    (lambda r: r.update(server_latency_per_iter_ms=-1.0), "result 2", "expected a positive"),
])
def test_a_mangled_result_is_refused_at_its_place(change, where, says):
    written = json.loads((DATA / "decode_results.json").read_text())
    change(written["results"][1])
    with pytest.raises(ImportFileError) as refused:
        runs_of(json.dumps(written).encode(), "decode.json")
    assert (refused.value.file, refused.value.where) == ("decode.json", where) and says in str(refused.value)


def test_a_truncated_file_is_refused_at_its_line():
    data = (DATA / "decode_results.json").read_bytes()
    with pytest.raises(ImportFileError) as refused:
        runs_of(data[: len(data) // 2], "decode_results.json")
    assert refused.value.file == "decode_results.json" and "invalid JSON" in str(refused.value)


def test_a_sweep_of_more_combinations_than_a_report_holds_is_refused_in_bounded_memory():
    written = json.loads((DATA / "decode_results.json").read_text())
    written["results"] *= 10_000  # 30,000 combinations: read as a stream, the list dropped past 256 items
    with pytest.raises(ImportFileError, match="expected a results list of 1 to 256 parameter combinations"):
        runs_of(json.dumps(written).encode(), "huge.json")

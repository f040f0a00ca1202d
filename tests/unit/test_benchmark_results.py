"""Benchmark results as the tools wrote them (tests/data/vllm, tests/data/sglang, the legacy vLLM file in
../shared/fixtures): every figure to the last digit, the runs of appended files, what the file names."""

import json
from pathlib import Path

import pytest

from tests.shared_fixtures import shared_fixture
from tierplan.importers.benchmarks import engine_of_backend, parse_console, parse_results_json
from tierplan.importers.errors import ImportFileError

DATA = Path(__file__).parent.parent / "data"


def text(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def test_the_legacy_vllm_result_gives_its_throughput_and_latencies():
    """vLLM's legacy benchmarks/benchmark_serving.py, as a public repository kept it (../shared/fixtures/vllm)."""
    legacy = shared_fixture("vllm/benchmark_serving_10qps.json").read_text(encoding="utf-8")
    (run,) = parse_results_json(legacy, "bench.json")
    assert run.source_format == "vllm_legacy_json"
    assert round(run.metrics["output_tok_s"], 2) == 2249.25
    assert round(run.metrics["p99_ttft_ms"], 2) == 89.77
    assert run.metrics["tpot_ms"] == pytest.approx(13.577995860227945)  # the mean is the plain metric
    assert "request_goodput" not in run.metrics  # "request_goodput:": null is no measurement
    assert run.concurrency is None and run.request_rate == "10"  # open loop at 10 req/s
    assert run.input_len == 1000  # metadata written as a string
    (pasted,) = parse_console(shared_fixture("vllm/benchmark_serving_10qps.console.txt").read_text(), "pasted")
    assert pasted.metrics["output_tok_s"] == 2249.25 and pasted.metrics["median_itl_ms"] == 12.84


def test_a_vllm_result_written_here_gives_its_figures_to_the_last_digit():
    """vLLM 0.33's `vllm bench serve --save-result` (tests/data/vllm): every figure as the file holds it."""
    saved = json.loads(text("vllm/bench_serve_c4.json"))
    (run,) = parse_results_json(text("vllm/bench_serve_c4.json"), "bench.json")
    assert run.source_format == "vllm_json" and run.concurrency == 4 and run.request_rate == "inf"
    for key, metric in (("output_throughput", "output_tok_s"), ("total_token_throughput", "total_tok_s"),
                        ("request_throughput", "request_throughput"), ("mean_tpot_ms", "tpot_ms"),
                        ("p99_ttft_ms", "p99_ttft_ms"), ("median_itl_ms", "median_itl_ms"),
                        ("std_itl_ms", "std_itl_ms")):
        assert run.metrics[metric] == saved[key]
    assert run.model == "stub-model" and run.measured_at == saved["date"]
    assert (run.input_len, run.output_len) == (round(1354 / 40), 64)  # from its totals: it states no lengths


def test_appended_vllm_results_give_each_run_and_the_server_s_draft_acceptance_to_the_last_digit():
    """vLLM 0.33's `--append-result` (tests/data/vllm/bench_serve_append.json): a run a line, the first against a
    draft-and-verify server, whose /metrics the client read into spec_decode_* fields."""
    saved = [json.loads(line) for line in text("vllm/bench_serve_append.json").splitlines()]
    runs = parse_results_json(text("vllm/bench_serve_append.json"), "append.json")
    assert [r.concurrency for r in runs] == [1, 16] and [r.where for r in runs] == ["line 1", "line 2"]
    for run, record in zip(runs, saved, strict=True):
        assert run.metrics["output_tok_s"] == record["output_throughput"]
        assert run.metrics["tpot_ms"] == record["mean_tpot_ms"] and run.measured_at == record["date"]
        assert run.model == "deepseek-ai/DeepSeek-V4-Flash" and run.label == record["label"]
        assert (run.input_len, run.output_len) == (round(record["total_input_tokens"] / record["completed"]), 256)
        assert run.engine == ""  # its backend, openai-chat, names the protocol, not the engine that served
    drafted, plain = runs
    assert drafted.metrics["spec_decode_acceptance_length"] == saved[0]["spec_decode_acceptance_length"]
    assert drafted.metrics["spec_decode_acceptance_rate"] == saved[0]["spec_decode_acceptance_rate"]
    assert drafted.spec_decode["spec_decode_accepted_tokens"] == saved[0]["spec_decode_accepted_tokens"] == 636
    assert drafted.spec_decode["spec_decode_per_position_acceptance_rates"] == [636 / 897]
    assert plain.spec_decode == {} and "spec_decode_acceptance_length" not in plain.metrics


def test_sglang_bench_serving_runs_give_their_figures_to_the_last_digit_and_the_server_s_accept_length():
    """SGLang 0.5.23's `python -m sglang.benchmark.serving` (tests/data/sglang): a run a line, `request_rate` written
    as JSON's non-standard Infinity, no date, the model only in the server_info it saved."""
    saved = [json.loads(line) for line in text("sglang/bench_serving.jsonl").splitlines()]
    runs = parse_results_json(text("sglang/bench_serving.jsonl"), "bench_serving.jsonl")
    assert [r.concurrency for r in runs] == [1, 16] and all(r.source_format == "sglang_bench_serving" for r in runs)
    for run, record in zip(runs, saved, strict=True):
        assert run.request_rate == "inf" and run.measured_at == "" and run.engine == "sglang"
        assert run.model == record["server_info"]["model_path"] == "deepseek-ai/DeepSeek-V4-Flash"
        assert (run.input_len, run.output_len) == (1024, 256)
        for key, metric in (("output_throughput", "output_tok_s"), ("mean_tpot_ms", "tpot_ms"),
                            ("p99_itl_ms", "p99_itl_ms"), ("median_ttft_ms", "median_ttft_ms"),
                            ("mean_e2e_latency_ms", "e2el_ms")):
            assert run.metrics[metric] == record[key]
    accept = saved[0]["server_info"]["internal_states"][0]["avg_spec_accept_length"]
    assert runs[0].metrics["spec_decode_acceptance_length"] == saved[0]["accept_length"] == accept
    assert "spec_decode_acceptance_length" not in runs[1].metrics and saved[1]["accept_length"] is None


def test_sglang_one_batch_records_give_the_static_batch_s_decode_step_as_tpot():
    """SGLang 0.5.23's one_batch measurement (tests/data/sglang/one_batch.jsonl): a static batch of batch_size
    sequences, so its median decode step is the TPOT and batch / step the output throughput; seconds in the file."""
    saved = [json.loads(line) for line in text("sglang/one_batch.jsonl").splitlines()]
    runs = parse_results_json(text("sglang/one_batch.jsonl"), "one_batch.jsonl")
    assert [r.concurrency for r in runs] == [1, 16] and all(r.source_format == "sglang_one_batch" for r in runs)
    for run, record in zip(runs, saved, strict=True):
        assert run.label == record["run_name"] == "before-a1"
        assert (run.input_len, run.output_len) == (1024, 256)
        assert run.metrics["tpot_ms"] == record["median_decode_latency"] * 1000
        assert run.metrics["output_tok_s"] == record["median_decode_throughput"]
        assert run.metrics["output_tok_s"] == pytest.approx(record["batch_size"] / record["median_decode_latency"])
        assert run.metrics["ttft_ms"] == record["prefill_latency"] * 1000
        assert run.metrics["total_tok_s"] == record["overall_throughput"]
        assert run.measured_at == "" and run.engine == "sglang"  # no date; only SGLang runs this benchmark


@pytest.mark.parametrize("backend, engine", [("vllm", "vllm"), ("openai-chat", ""), ("openai", ""), ("sglang-oai", "sglang"),
                                             ("vllm-chat", "vllm"), ("trt", "tensorrt-llm"), (None, "")])
def test_a_client_backend_names_an_engine_only_where_it_is_one(backend, engine):
    assert engine_of_backend(backend) == engine


def test_the_console_block_vllm_printed_gives_the_same_figures_rounded():
    (run,) = parse_console(text("vllm/bench_serve_c4.console.txt"), "pasted")
    saved = json.loads(text("vllm/bench_serve_c4.json"))
    assert run.metrics["output_tok_s"] == round(saved["output_throughput"], 2) == 672.17
    assert run.metrics["p99_ttft_ms"] == round(saved["p99_ttft_ms"], 2)
    assert run.metrics["median_itl_ms"] == round(saved["median_itl_ms"], 2) and run.concurrency == 4


def test_json_without_a_throughput_says_what_was_expected():
    with pytest.raises(ImportFileError, match="expected an output_throughput number"):
        parse_results_json('{"model": "x"}', "x.json")

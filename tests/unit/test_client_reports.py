"""AIPerf and GuideLLM reports, written by the tools themselves (tests/data/aiperf, tests/data/guidellm): found by
their content, every figure read as the report states it, and a mangled or truncated report refused where it
breaks."""

import io
import json
from pathlib import Path

import pytest

from tierplan.importers.detect import HEAD_BYTES, detect
from tierplan.importers.errors import ImportFileError
from tierplan.importers.registry import read_runs

DATA = Path(__file__).resolve().parent.parent / "data"


def runs_of(path: Path):
    head = path.read_bytes()[:HEAD_BYTES]
    with open(path, "rb") as handle:
        return detect(head, path.name), list(read_runs(detect(head, path.name), handle, path.name))


def test_an_aiperf_run_is_read_to_the_last_digit():
    path = DATA / "aiperf" / "profile_export_aiperf_c16.json"
    report = json.loads(path.read_text())
    found, (run,) = runs_of(path)
    assert found == "aiperf" and run.concurrency == 16 and run.model == "stub-model"
    assert run.metrics["output_tok_s"] == report["output_token_throughput"]["avg"]
    assert run.metrics["total_tok_s"] == report["total_token_throughput"]["avg"]
    assert run.metrics["request_throughput"] == report["request_throughput"]["avg"]
    assert run.metrics["ttft_ms"] == report["time_to_first_token"]["avg"]
    assert run.metrics["p99_ttft_ms"] == report["time_to_first_token"]["p99"]
    # AIPerf's inter-token latency is (latency - TTFT) / (tokens - 1): vLLM's TPOT; its inter-chunk latency is ITL
    assert run.metrics["tpot_ms"] == report["inter_token_latency"]["avg"]
    assert run.metrics["median_tpot_ms"] == report["inter_token_latency"]["p50"]
    assert run.metrics["itl_ms"] == report["inter_chunk_latency"]["avg"]
    assert run.metrics["e2el_ms"] == report["request_latency"]["avg"]
    assert (run.input_len, run.output_len) == (128, 64)
    assert run.measured_at == report["start_time"] and "AIPerf 0.13.0" in run.note


def test_aiperf_aggregates_give_the_mean_over_trials_and_say_so():
    aggregate = json.loads((DATA / "aiperf" / "profile_export_aiperf_aggregate_c4.json").read_text())
    _, (run,) = runs_of(DATA / "aiperf" / "profile_export_aiperf_aggregate_c4.json")
    assert run.concurrency == 4 and run.source_format == "aiperf_aggregate"
    assert run.metrics["output_tok_s"] == aggregate["metrics"]["output_token_throughput_avg"]["mean"]
    assert run.note.startswith("AIPerf mean of 3 trials, output throughput 95% CI ")
    sweep = json.loads((DATA / "aiperf" / "profile_export_aiperf_sweep.json").read_text())
    _, runs = runs_of(DATA / "aiperf" / "profile_export_aiperf_sweep.json")
    assert [r.concurrency for r in runs] == [4, 16]
    assert [r.metrics["output_tok_s"] for r in runs] == [
        c["metrics"]["output_token_throughput_avg"]["mean"] for c in sweep["per_combination_metrics"]]


def test_a_guidellm_report_gives_a_run_a_benchmark():
    report = json.loads((DATA / "guidellm" / "benchmarks.json").read_text())
    found, runs = runs_of(DATA / "guidellm" / "benchmarks.json")
    assert found == "guidellm" and [r.concurrency for r in runs] == [4, 16]
    for run, benchmark in zip(runs, report["benchmarks"], strict=True):
        metrics = benchmark["metrics"]
        assert run.metrics["output_tok_s"] == metrics["output_tokens_per_second"]["successful"]["mean"]
        assert run.metrics["tpot_ms"] == metrics["time_per_output_token_ms"]["successful"]["mean"]
        assert run.metrics["p99_ttft_ms"] == metrics["time_to_first_token_ms"]["successful"]["percentiles"]["p99"]
        assert run.metrics["e2el_ms"] == metrics["request_latency"]["successful"]["mean"] * 1000  # seconds there
        assert run.output_len == 64 and "GuideLLM 0.8.1, 40 successful of 40 requests" in run.note


@pytest.mark.parametrize("name", ["aiperf/profile_export_aiperf_c4.json", "guidellm/benchmarks.json",
                                  "aiperf/profile_export_aiperf_sweep.json"])
def test_a_truncated_report_is_refused_at_its_line(name):
    data = (DATA / name).read_bytes()
    cut = data[: len(data) // 2]
    found = detect(cut[:HEAD_BYTES], name)
    with pytest.raises(ImportFileError) as refused:
        list(read_runs(found, io.BytesIO(cut), name))
    assert refused.value.file == name and "invalid JSON" in str(refused.value)


def test_a_report_without_its_throughput_is_refused_with_what_it_lacks():
    report = json.loads((DATA / "aiperf" / "profile_export_aiperf_c4.json").read_text())
    del report["output_token_throughput"]
    with pytest.raises(ImportFileError, match="expected output_token_throughput"):
        list(read_runs("aiperf", io.BytesIO(json.dumps(report).encode()), "mangled.json"))
    guide = json.loads((DATA / "guidellm" / "benchmarks.json").read_text())
    guide["benchmarks"][1]["metrics"]["output_tokens_per_second"] = None
    with pytest.raises(ImportFileError) as refused:
        list(read_runs("guidellm", io.BytesIO(json.dumps(guide).encode()), "mangled.json"))
    assert refused.value.where == "benchmark 2"


def test_per_request_arrays_cost_nothing_and_a_report_of_too_many_values_is_refused():
    report = json.loads((DATA / "aiperf" / "profile_export_aiperf_c4.json").read_text())
    report["records"] = [{"latency": n} for n in range(100_000)]  # dropped as it streams
    (run,) = read_runs("aiperf", io.BytesIO(json.dumps(report).encode()), "big.json")
    assert run.metrics["output_tok_s"] == report["output_token_throughput"]["avg"]
    bomb = {"aiperf_version": "0", **{f"m{n}": {"a": 1.0, "b": 2.0} for n in range(300_000)}}
    with pytest.raises(ImportFileError, match="values outside per-request arrays"):
        list(read_runs("aiperf", io.BytesIO(json.dumps(bomb).encode()), "bomb.json"))

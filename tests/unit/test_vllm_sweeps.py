"""vLLM's sweep, as `vllm bench sweep serve` wrote it (tests/data/vllm/sweep): summary.csv read a run a row, each
figure as the run's own JSON holds it; a folder imported takes each run once."""

import io
import json
from pathlib import Path

import pytest

from tierplan.importers.detect import HEAD_BYTES, detect
from tierplan.importers.errors import ImportFileError
from tierplan.importers.folders import files_of
from tierplan.importers.registry import read_runs

SWEEP = Path(__file__).resolve().parent.parent / "data" / "vllm" / "sweep"


def read(path: Path):
    found = detect(path.read_bytes()[:HEAD_BYTES], path.name)
    with open(path, "rb") as handle:
        return found, list(read_runs(found, handle, path.name))


def test_the_summary_csv_gives_the_runs_of_the_run_files_to_the_last_digit():
    found, runs = read(SWEEP / "summary.csv")
    assert found == "vllm_sweep_csv" and [r.concurrency for r in runs] == [4, 4, 4, 16, 16, 16]
    for run, (c, n) in zip(runs, [(4, 0), (4, 1), (4, 2), (16, 0), (16, 1), (16, 2)], strict=True):
        own = json.loads((SWEEP / f"BENCH--max_concurrency={c}" / f"run={n}.json").read_text())
        assert run.metrics["output_tok_s"] == own["output_throughput"]
        assert run.metrics["tpot_ms"] == own["mean_tpot_ms"] and run.metrics["p99_itl_ms"] == own["p99_itl_ms"]
        assert run.measured_at == own["date"] and run.label.endswith(f"run {n}")
        assert run.output_len == own["total_output_tokens"] / own["completed"] == 64


def test_each_run_file_and_each_combination_summary_is_a_results_json():
    _, (run,) = read(SWEEP / "BENCH--max_concurrency=16" / "run=2.json")
    _, listed = read(SWEEP / "BENCH--max_concurrency=16" / "summary.json")
    assert run.concurrency == 16 and [r.metrics["output_tok_s"] for r in listed][2] == run.metrics["output_tok_s"]


def test_a_sweep_folder_is_its_run_files_each_once():
    named = files_of([SWEEP])
    assert [name for name, _ in named] == [
        f"sweep/BENCH--max_concurrency={c}/run={n}.json" for c in (16, 4) for n in range(3)]


def test_a_cut_summary_is_refused_at_its_line():
    data = (SWEEP / "summary.csv").read_bytes()
    lines = data.split(b"\n")
    cut = b"\n".join(lines[:3]) + b"\n" + lines[3][: len(lines[3]) // 3]
    with pytest.raises(ImportFileError) as refused:
        list(read_runs("vllm_sweep_csv", io.BytesIO(cut), "summary.csv"))
    assert refused.value.where == "line 4" and "the file is cut or mangled" in str(refused.value)


def test_a_line_too_long_for_any_run_is_refused_where_it_starts():
    header = (SWEEP / "summary.csv").read_text().split("\n", 1)[0]
    huge = f"{header}\n0,{'x' * (17 << 20)}\n".encode()
    with pytest.raises(ImportFileError) as refused:
        list(read_runs("vllm_sweep_csv", io.BytesIO(huge), "summary.csv"))
    assert refused.value.where == "line 2" and "a line longer than 16 MB" in str(refused.value)

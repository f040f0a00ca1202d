"""bench/fidelity.py runs from a checkout and replays every case it lists."""

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
BAND_ALONE = "judged by its band alone: the GPU work the graph path adds is unknowable before the work"


def test_the_fidelity_bench_replays_every_case_and_the_prototypes_carried_land_inside_their_bands():
    result = subprocess.run([sys.executable, str(ROOT / "bench" / "fidelity.py"), "--samples", "5000"],
                            capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    cases = json.loads((ROOT / "bench" / "fidelity_cases.json").read_text())["cases"]
    lines = result.stdout.splitlines()
    assert [line for line in lines if not line.startswith(" ")][:-2] == [c["name"] for c in cases]
    summary = re.fullmatch(r"(\d+) of (\d+) cases with P50 within 15%, (\d+) of (\d+) measured inside P10-P90", lines[-2])
    assert summary and summary.group(2) == summary.group(4) == str(len(cases))
    # the rule: within 15% and inside, or inside alone where the GPU work a graph path adds is unknowable
    # (CUDA graphs entered with no GPU work stated, and no trace or benchmark of a prototype that shows it there)
    said = {c["name"]: lines[lines.index(c["name"]) + 1:lines.index(c["name"]) + 5] for c in cases}
    band_alone = {name for name, below in said.items() if f"  {BAND_ALONE}" in below}
    for case in (c for c in cases if c["name"] in band_alone):
        kinds = {i["kind"] for i in case["interventions"]}
        assert "launch_overhead" in kinds and "gpu_work" not in kinds and "prototype" not in case, case["name"]
        if "benchmark_prototype" in case:  # only carried up from one benchmark whose residual was the model's miss
            assert isinstance(case["benchmark_prototype"], dict), case["name"]
            assert case["target"]["concurrency"] > case["benchmark_prototype"]["concurrency"], case["name"]
    held = [c for c in cases if said[c["name"]][1].endswith("inside P10-P90") and (
        abs(float(re.search(r"P50 off by ([+-][\d.]+)%", said[c["name"]][1]).group(1))) <= 15 or c["name"] in band_alone)]
    assert lines[-1].startswith(f"{len(held)} of {len(cases)} hold: ")
    # a prototype traced or benchmarked at one batch and carried to another: within 15% of the measured step, inside
    # its band, but where the case states the limit that keeps it out (and the bench prints it under the case), or
    # where its band is what judges it
    carried = ("prototype", "benchmark_prototype", "prototype_concurrency")  # traced, benchmarked, a fit's benchmark
    for case in (c for c in cases if any(k in c for k in carried) and "limit" not in c
                 and c["name"] not in band_alone):
        measured = said[case["name"]][1]
        error = float(re.search(r"P50 off by ([+-][\d.]+)%", measured).group(1))
        assert abs(error) <= 15 and measured.endswith("inside P10-P90"), measured
    for case in (c for c in cases if "limit" in c):
        assert said[case["name"]][2] == f"  a known limit: {case['limit']}"

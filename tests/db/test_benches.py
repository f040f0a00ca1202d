"""bench/fidelity.py runs from a checkout and replays every case it lists."""

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def test_the_fidelity_bench_replays_every_case_and_the_prototypes_carried_land_inside_their_bands():
    result = subprocess.run([sys.executable, str(ROOT / "bench" / "fidelity.py"), "--samples", "5000"],
                            capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    cases = json.loads((ROOT / "bench" / "fidelity_cases.json").read_text())["cases"]
    lines = result.stdout.splitlines()
    assert [line for line in lines if not line.startswith(" ")][:-2] == [c["name"] for c in cases]
    summary = re.fullmatch(r"(\d+) of (\d+) cases with P50 within 15%, (\d+) of (\d+) measured inside P10-P90", lines[-2])
    assert summary and summary.group(2) == summary.group(4) == str(len(cases))
    # the rule: within 15% and inside, or inside alone for CUDA graphs entered with no GPU work stated
    held = [c for c in cases if lines[lines.index(c["name"]) + 2].endswith("inside P10-P90") and (
        abs(float(re.search(r"P50 off by ([+-][\d.]+)%", lines[lines.index(c["name"]) + 2]).group(1))) <= 15
        or "launch_overhead" in (kinds := {i["kind"] for i in c.get("interventions", ())}) and "gpu_work" not in kinds
        and "prototype" not in c)]
    assert lines[-1].startswith(f"{len(held)} of {len(cases)} hold: ")
    # a prototype traced at batch 8 and carried to batch 64: within 15% of the measured step, inside its band, but
    # where the case states the limit that keeps it out (and the bench prints it under the case)
    for case in (c for c in cases if "prototype" in c and "limit" not in c):
        measured = lines[lines.index(case["name"]) + 2]
        error = float(re.search(r"P50 off by ([+-][\d.]+)%", measured).group(1))
        assert abs(error) <= 15 and measured.endswith("inside P10-P90"), measured
    for case in (c for c in cases if "limit" in c):
        assert lines[lines.index(case["name"]) + 3] == f"  a known limit: {case['limit']}"

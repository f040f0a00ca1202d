"""bench/fidelity.py runs from a checkout and replays every case it lists."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def test_the_fidelity_bench_replays_the_shared_fixtures():
    result = subprocess.run([sys.executable, str(ROOT / "bench" / "fidelity.py"), "--samples", "5000"],
                            capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert "eager_b1 -> graphs_b1: SDPA and CUDA graphs as launch effects" in result.stdout
    assert "5 of 5 cases with P50 within 15%, 5 of 5 measured inside P10-P90" in result.stdout

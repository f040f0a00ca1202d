#!/usr/bin/env bash
# Nsight Compute around one eager decode step (tests/data/device/ncu_step.py) on the device machine, clocks left
# alone: the details page and the raw page of chosen metrics, as CSV, into $OUT.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
ncu --version > "$OUT/ncu_version.txt"
ncu --csv --page details --clock-control none --nvtx --nvtx-include "decode_step/" \
  python3 "$here/ncu_step.py" > "$OUT/ncu_details.csv"
ncu --csv --page raw --clock-control none --nvtx --nvtx-include "decode_step/" \
  --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes.sum \
  python3 "$here/ncu_step.py" > "$OUT/ncu_raw.csv"

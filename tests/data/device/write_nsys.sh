#!/usr/bin/env bash
# Nsight Systems 2023.4.4 (Debian trixie non-free's nsight-systems-target, the .deb carried in .nsysdeb/) traces
# tests/data/device/nsys_steps.py on the device machine, CUDA and NVTX only. The target package has no
# QdstrmImporter, so what comes back is the raw .qdstrm; the host package's QdstrmImporter turns it into a report.
# Only the decode steps are collected (cudaProfilerStart to Stop): the importer of 2023.4 stops at a CUDA 13 runtime
# call it does not know ("Unknown runtime API function index: 468"), which start-up makes and the steps do not.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root=/tmp/nsys-target
mkdir -p "$root" && dpkg -x .nsysdeb/nsight-systems-target_*.deb "$root"
nsys="$root/usr/lib/x86_64-linux-gnu/nsight-systems/target-linux-x64/nsys"
"$nsys" --version
"$nsys" status -e
"$nsys" profile --trace=cuda,nvtx --sample=none --cpuctxsw=none --force-overwrite=true \
  --capture-range=cudaProfilerApi --capture-range-end=stop \
  -o "$OUT/nsys/decode_b8" python3 "$here/nsys_steps.py"
ls -la "$OUT/nsys" /tmp/nvidia 2>/dev/null
find / -name "*.qdstrm" -newer "$here/nsys_steps.py" 2>/dev/null | head

#!/usr/bin/env bash
# Writes tests/data/nsys/ from the .qdstrm that tests/data/device/write_nsys.sh brought back from the device machine
# (Nsight Systems 2023.4.4's target, which has no importer): Debian trixie non-free's nsight-systems 2023.4.4 turns it
# into a report and writes its kernel tables; Debian bookworm non-free's nsight-systems 2022.4.2 writes the older
# gpukernsum table from the same report's SQLite export.
#   NSYS2023=/opt/nsys2023 NSYS2022=/usr QDSTRM=/path/decode_b8.qdstrm OUT=tests/data/nsys \
#     bash tests/data/tools/write_nsys_reports.sh
# NSYS2023 is the folder both trixie packages (nsight-systems, nsight-systems-target) were unpacked into with
# `dpkg -x`; NSYS2022 the root of bookworm's nsight-systems, installed with apt-get (the `nsys` under bin/).
set -euo pipefail
out="${OUT:?the folder the tables go to}"
qdstrm="${QDSTRM:?the .qdstrm file}"
nsys23="${NSYS2023:?the folder the trixie packages were unpacked into}/usr/lib/nsight-systems"
nsys22="${NSYS2022:-/usr}/bin/nsys"
libs="$(mktemp -d)"
ln -s /usr/lib/x86_64-linux-gnu/libssh.so.4 "$libs/libssh.so"  # the importer asks for libssh.so; Debian has .so.4
work="$(mktemp -d)"
cp "$qdstrm" "$work/decode_b8.qdstrm"
LD_LIBRARY_PATH="$libs" "$nsys23/host-linux-x64/QdstrmImporter" -i "$work/decode_b8.qdstrm" -o "$work/decode_b8.nsys-rep" \
  || echo "QdstrmImporter reported errors (above); the report it saved holds the events before them"
test -s "$work/decode_b8.nsys-rep"
mkdir -p "$out"
cd "$work"
stats23() { LD_LIBRARY_PATH="$libs" "$nsys23/target-linux-x64/nsys" stats --force-export=true "$@"; }
# the report's kernels as nsys prints them, the lines before the table included
stats23 --report cuda_gpu_kern_sum --format csv decode_b8.nsys-rep > "$out/cuda_gpu_kern_sum.csv"
# every default report, as `nsys stats --format csv` alone prints them: the kernel table among the others
stats23 --format csv decode_b8.nsys-rep > "$out/all_reports.csv"
# every kernel and copy with its own row (a CSV whose columns tierplan is told), written by nsys itself (--output
# <prefix> writes <prefix>_<report>.csv)
stats23 --report cuda_gpu_trace --format csv --output "$out/report" decode_b8.nsys-rep
mv "$out/report_cuda_gpu_trace.csv" "$out/cuda_gpu_trace.csv"
# the older report's table, by nsys 2022.4.2's stats on the report's SQLite export (written to old_gpukernsum.csv)
"$nsys22" stats --report gpukernsum --format csv --output "$out/old" decode_b8.sqlite
"$nsys23/target-linux-x64/nsys" --version > "$out/nsys_version.txt"
"$nsys22" --version >> "$out/nsys_version.txt"

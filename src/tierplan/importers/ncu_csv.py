"""Nsight Compute CSV (`ncu --csv`), the details page (`--page details`, the default: a row per kernel launch,
section and metric) or the raw page (`--page raw`: a row per kernel launch, a column per metric, the second row the
units). Each launch's duration makes a kernel table as nsys's does; each kernel's launch configuration, achieved
occupancy and DRAM throughput as a share of peak are kept as words for the preview ("16 blocks of 256 threads on
132 SMs, 12% achieved occupancy, 0.53% of DRAM bandwidth"), so how far a kernel is from its floor is read from the
file, not typed. ncu writes its own lines (`==PROF==`, `==WARNING==`) before the table; they are skipped. The file
is read a line at a time (kernel_csv.csv_stream); what it costs is its launches, at most MAX_LAUNCHES.
"""

from __future__ import annotations

from collections import defaultdict
from typing import BinaryIO

from tierplan.importers.errors import ImportFileError
from tierplan.importers.kernel_csv import Rows, blank_row, csv_rows, csv_stream, find_header, stream_header
from tierplan.importers.records import KernelSummary

ID, NAME = "ID", "Kernel Name"
DETAILS = ("Section Name", "Metric Name", "Metric Unit", "Metric Value")
RAW_DURATION = "gpu__time_duration.sum"
HEADER = ((ID,), (NAME,), ("Metric Name", RAW_DURATION))  # the details page's header, or the raw page's
MAX_LAUNCHES = 200_000  # ncu replays each launch it profiles: a real file holds thousands at most
DEVICE = "device__attribute_display_name"  # the raw page names the GPU; the details page gives only its index
TIME_UNITS_US = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3, "s": 1e6,
                 "second": 1e6}
# what each page calls the figures the preview names: (details section, metric), raw metric
FIGURES = {
    "duration": (("GPU Speed Of Light Throughput", "Duration"), RAW_DURATION),
    "grid": (("Launch Statistics", "Grid Size"), "launch__grid_size"),
    "block": (("Launch Statistics", "Block Size"), "launch__block_size"),
    "sms": (("Launch Statistics", "# SMs"), "device__attribute_multiprocessor_count"),
    "occupancy": (("Occupancy", "Achieved Occupancy"), "sm__warps_active.avg.pct_of_peak_sustained_active"),
    "dram": (("GPU Speed Of Light Throughput", "DRAM Throughput"), "dram__throughput.avg.pct_of_peak_sustained_elapsed"),
}


def is_ncu_csv(text: str) -> bool:
    try:
        rows = csv_rows(text[:20000])
    except ImportFileError:
        return False
    return find_header(rows, HEADER) is not None


def _number(cell: str, file: str, line: int, what: str) -> float:
    try:
        return float(cell.replace(",", ""))
    except ValueError:
        raise ImportFileError(file, f"line {line}", f"expected a number for {what}, got {cell!r}") from None


def _launch(launches: dict[str, dict], key: str, name: str, line: int, file: str) -> dict:
    """The launch of this ID, made on its first row (no more than MAX_LAUNCHES of them)."""
    if key not in launches and len(launches) >= MAX_LAUNCHES:
        raise ImportFileError(file, f"line {line}", f"more than {MAX_LAUNCHES:,} kernel launches: not one profiled "
                              "step")
    return launches.setdefault(key, {"name": name, "line": line})


def _details(rows: Rows, header: list[str], file: str) -> dict[str, dict]:
    """Each launch (by ID): its kernel name and the figures the preview names, with the duration's unit."""
    col = {name: header.index(name) for name in (ID, NAME, *DETAILS)}
    wanted = {pair: figure for figure, (pair, _) in FIGURES.items()}
    launches: dict[str, dict] = {}
    for line, row in rows:
        if blank_row(row):
            continue
        if len(row) < len(header) - 6:  # the rule columns at the end may be left off a metric's row
            raise ImportFileError(file, f"line {line}", f"expected {len(header)} columns, got {len(row)}")
        figure = wanted.get((row[col["Section Name"]].strip(), row[col["Metric Name"]].strip()))
        launch = _launch(launches, row[col[ID]].strip(), row[col[NAME]].strip(), line, file)
        if figure is not None:
            unit = row[col["Metric Unit"]].strip()
            value = _number(row[col["Metric Value"]], file, line, f"{figure} ({unit or 'no unit'})")
            launch[figure] = value * TIME_UNITS_US[unit] if figure == "duration" and unit in TIME_UNITS_US else value
            if figure == "duration" and unit not in TIME_UNITS_US:
                raise ImportFileError(file, f"line {line}", f"a kernel duration in {unit!r}: expected ns, us or ms")
    return launches


def _raw(rows: Rows, header: list[str], header_line: int, file: str) -> dict[str, dict]:
    units_line, units_row = next(rows, (header_line + 1, []))
    units = [c.strip() for c in units_row]
    columns = {figure: header.index(raw) for figure, (_, raw) in FIGURES.items() if raw in header}
    unit = units[columns["duration"]] if len(units) > columns["duration"] else ""
    if unit not in TIME_UNITS_US:
        raise ImportFileError(file, f"line {units_line}", f"{RAW_DURATION} in {unit!r}: expected ns, us or ms")
    launches: dict[str, dict] = {}
    for line, row in rows:
        if blank_row(row):
            continue
        if len(row) < len(header):
            raise ImportFileError(file, f"line {line}", f"expected {len(header)} columns, got {len(row)}")
        launch = _launch(launches, row[header.index(ID)].strip(), row[header.index(NAME)].strip(), line, file)
        for figure, index in columns.items():
            if row[index].strip():
                launch[figure] = _number(row[index], file, line, figure)
        launch["duration"] = launch.get("duration", 0.0) * TIME_UNITS_US[unit]
        if DEVICE in header and row[header.index(DEVICE)].strip():
            launch["device"] = row[header.index(DEVICE)].strip()
    return launches


def parse_ncu(source: str | BinaryIO, file: str) -> KernelSummary:
    """The kernel table of an `ncu --csv` details or raw page, with each kernel's launch figures in words."""
    rows = csv_stream(source, file)
    header_line, header = _header(rows, file)
    launches = _details(rows, header, file) if "Metric Name" in header else _raw(rows, header, header_line, file)
    summary = KernelSummary("ncu_csv", files=[file])
    by_kernel: dict[str, list[dict]] = defaultdict(list)
    for launch in launches.values():
        if "duration" not in launch:
            raise ImportFileError(file, f"line {launch['line']}", "a kernel launch without its duration (ncu's "
                                  "Duration in GPU Speed Of Light Throughput): profile with that section")
        summary.add(launch["name"], launch["duration"], 1)
        by_kernel[launch["name"]].append(launch)
    if not summary.kernels:
        raise ImportFileError(file, "", "no kernel launches after the header")
    summary.launch = {name: launch_words(kernel) for name, kernel in by_kernel.items()}
    summary.devices = sorted({launch["device"] for launch in launches.values() if "device" in launch})
    return summary


def _header(rows: Rows, file: str) -> tuple[int, list[str]]:
    """The table's header and its line, after the lines ncu writes before it."""
    found = stream_header(rows, HEADER)
    if found is not None:
        return found
    raise ImportFileError(file, "", "expected Nsight Compute's header: 'ID', 'Kernel Name' and 'Metric Name' "
                                    f"(the details page) or '{RAW_DURATION}' (the raw page)")


def launch_words(launches: list[dict]) -> str:
    """A kernel's launches in words: the blocks and threads of its largest launch, the SMs, and the mean achieved
    occupancy and DRAM throughput (as shares of peak), as far as the file gives them."""
    largest = max(launches, key=lambda launch: launch.get("duration", 0.0))
    parts = []
    if "grid" in largest:
        threads = f" of {largest['block']:,.0f} threads" if "block" in largest else ""
        sms = f" on {largest['sms']:,.0f} SMs" if "sms" in largest else ""
        parts.append(f"{largest['grid']:,.0f} block{'s' if largest['grid'] != 1 else ''}{threads}{sms}")
    for figure, words in (("occupancy", "achieved occupancy"), ("dram", "of DRAM bandwidth")):
        values = [launch[figure] for launch in launches if figure in launch]
        if values:
            parts.append(f"{sum(values) / len(values):.3g}% {words}")
    return ", ".join(parts)

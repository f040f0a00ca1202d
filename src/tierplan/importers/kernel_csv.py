"""Kernel-summary CSVs: `nsys stats --report cuda_gpu_kern_sum --format csv` (and the older
gpukernsum), found by header name after any preamble lines, or any CSV whose name and total-time
columns the user names."""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass

from tierplan.importers.errors import ImportFileError
from tierplan.importers.records import KernelSummary

NSYS_TIME_HEADERS = ("Total Time (ns)", "Total Time")
NSYS_NAME_HEADERS = ("Name", "Kernel Name")
NSYS_COUNT_HEADERS = ("Instances", "Calls", "Num Calls")
NSYS_PERCENT_HEADERS = ("Time (%)", "Time(%)")
NSYS_KERNEL_REPORTS = ("cuda_gpu_kern_sum", "gpukernsum")
# "Processing [x.sqlite] with [/path/cuda_gpu_kern_sum.py]..." (2022 on), "Running [/path/gpukernsum.py x.sqlite]..."
NSYS_PROCESSING = re.compile(r"(?:Processing \[[^\]]*\] with|Running) \[(?:[^\]]*[/\\])?(?P<report>\w+)\.py\b")
UNIT_TO_US = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}


@dataclass(frozen=True)
class ColumnMap:
    """Which columns of a generic kernel CSV hold the name and the total time, and its unit."""

    name_column: str
    time_column: str
    unit: str = "ns"
    count_column: str | None = None


def csv_rows(text: str, file: str = "") -> list[list[str]]:
    """The CSV's rows; ImportFileError naming the line where it cannot be read (a field over csv's 128 KiB limit,
    a stray quote), never csv's own error."""
    reader = csv.reader(io.StringIO(text))
    try:
        return list(reader)
    except csv.Error as exc:
        raise ImportFileError(file, f"line {reader.line_num}", f"not a readable CSV row ({exc})") from None


def find_header(rows: list[list[str]], wanted: tuple[tuple[str, ...], ...]) -> int | None:
    """Index of the first row holding one name of each wanted group (preamble lines come before it)."""
    for index, row in enumerate(rows[:200]):
        cells = [c.strip() for c in row]
        if all(any(name in cells for name in group) for group in wanted):
            return index
    return None


def is_nsys_kernel_csv(text: str) -> bool:
    try:
        return find_header(csv_rows(text[:20000]), (NSYS_TIME_HEADERS, NSYS_NAME_HEADERS)) is not None
    except ImportFileError:
        return False


def parse_nsys(text: str, file: str) -> KernelSummary:
    """cuda_gpu_kern_sum / gpukernsum CSV: Total Time (ns) and Name, Instances when given. In what `nsys stats`
    prints for several reports, the table of the kernel summary, up to the blank line that ends it."""
    rows = csv_rows(text, file)
    header_at = _kernel_table(rows, file)
    header = [c.strip() for c in rows[header_at]]
    if "Num Calls" in header and "Instances" not in header:
        raise ImportFileError(file, f"line {header_at + 1}", "this is nsys's CUDA API summary (cuda_api_sum: calls "
                              "made on the host), not the kernel summary: nsys stats --report cuda_gpu_kern_sum")
    end = next((i for i in range(header_at + 1, len(rows)) if not any(cell.strip() for cell in rows[i])), len(rows))
    rows = rows[:end]
    time_col = next(h for h in NSYS_TIME_HEADERS if h in header)
    name_col = next(h for h in NSYS_NAME_HEADERS if h in header)
    count_col = next((h for h in NSYS_COUNT_HEADERS if h in header), None)
    summary = _summary(rows, header_at, file, ColumnMap(name_col, time_col, "ns", count_col), "nsys_csv")
    percent_col = next((h for h in NSYS_PERCENT_HEADERS if h in header), None)
    if percent_col is not None:
        summary.listed_share = _listed_share(rows, header_at, header.index(percent_col), header.index(time_col),
                                             summary.gpu_time_us * 1000)
    return summary


def _kernel_table(rows: list[list[str]], file: str) -> int:
    """The index of the kernel table's header. `nsys stats` announces each report it runs ("Processing [x.sqlite]
    with [.../cuda_gpu_kern_sum.py]..."), so where it printed several, the kernel summary's own is taken."""
    reports = []
    for index, row in enumerate(rows):
        found = NSYS_PROCESSING.match(",".join(row))
        if found:
            reports.append((found.group("report"), index))
    start, end = 0, len(rows)
    if reports:
        kernel = [n for n, (report, _) in enumerate(reports) if report in NSYS_KERNEL_REPORTS]
        if not kernel:
            names = ", ".join(dict.fromkeys(report for report, _ in reports))
            raise ImportFileError(file, "", f"the file holds the nsys reports {names}, not the kernel summary: "
                                  "nsys stats --report cuda_gpu_kern_sum --format csv")
        start = reports[kernel[0]][1] + 1
        end = reports[kernel[0] + 1][1] if kernel[0] + 1 < len(reports) else len(rows)
    header_at = find_header(rows[start:end], (NSYS_TIME_HEADERS, NSYS_NAME_HEADERS))
    if header_at is None:
        said = next((",".join(row).strip() for row in rows[start:end] if any(c.strip() for c in row)), "")
        where = f"line {start}" if reports else ""
        raise ImportFileError(file, where, "expected a header with 'Total Time (ns)' and 'Name' columns"
                              + (f" after it; nsys wrote {said!r}" if said else (" after it" if reports else "")))
    return start + header_at


def _listed_share(rows, header_at: int, percent_i: int, time_i: int, listed_ns: float) -> float | None:
    """The share of all kernel time the table lists: below 1 when it was cut (a copied top-N). The whole is the
    largest row's time over its Time (%), the figure its rounding to 0.1 least disturbs (a sum of rounded
    percentages drifts with the rows: 99.8 for a whole table of many small kernels)."""
    best_percent, best_ns = 0.0, 0.0
    for row in rows[header_at + 1:]:
        if len(row) > max(percent_i, time_i):
            try:
                percent, ns = float(row[percent_i].replace(",", "")), float(row[time_i].replace(",", ""))
            except ValueError:
                continue
            if percent > best_percent:
                best_percent, best_ns = percent, ns
    if best_percent <= 0 or best_ns <= 0:
        return None
    return min(1.0, listed_ns / (best_ns * 100 / best_percent))


def parse_generic(text: str, file: str, columns: ColumnMap) -> KernelSummary:
    """Any kernel CSV, with the columns the user mapped."""
    if columns.unit not in UNIT_TO_US:
        raise ImportFileError(file, "", f"unknown time unit {columns.unit!r}: use ns, us, ms or s")
    rows = csv_rows(text, file)
    wanted = ((columns.name_column,), (columns.time_column,))
    header_at = find_header(rows, wanted)
    if header_at is None:
        raise ImportFileError(
            file, "", f"expected a header row with columns {columns.name_column!r} and {columns.time_column!r}"
        )
    return _summary(rows, header_at, file, columns, "kernel_csv")


def _summary(rows, header_at: int, file: str, columns: ColumnMap, source_format: str) -> KernelSummary:
    header = [c.strip() for c in rows[header_at]]
    name_i, time_i = header.index(columns.name_column), header.index(columns.time_column)
    count_i = header.index(columns.count_column) if columns.count_column in header else None
    scale = UNIT_TO_US[columns.unit]
    summary = KernelSummary(source_format, files=[file])
    for number, row in enumerate(rows[header_at + 1:], start=header_at + 2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) < len(header):
            raise ImportFileError(file, f"line {number}", f"expected {len(header)} columns, got {len(row)}")
        try:
            total = float(row[time_i].replace(",", ""))
            count = int(float(row[count_i].replace(",", ""))) if count_i is not None else 1
        except ValueError:
            raise ImportFileError(
                file, f"line {number}", f"expected a number in {columns.time_column!r}, got {row[time_i]!r}"
            ) from None
        if total < 0:
            raise ImportFileError(file, f"line {number}", "a total time cannot be negative")
        summary.add(row[name_i].strip(), total * scale, count)
    if not summary.kernels:
        raise ImportFileError(file, "", "no kernel rows after the header")
    return summary

"""Kernel-summary CSVs: `nsys stats --report cuda_gpu_kern_sum --format csv` (and the older
gpukernsum), found by header name after any preamble lines, or any CSV whose name and total-time
columns the user names. Both are read as a stream, a row at a time, kernels summed by name as they
come: a per-launch table of millions of rows costs what its distinct kernel names cost."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

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
MAX_LINE_CHARS = 1 << 20  # bytes: a kernel table's line is a name and some numbers, a megabyte is no such line
MAX_KERNEL_NAMES = 100_000  # distinct names a table may hold (a real step runs hundreds)
HEADER_WITHIN_ROWS = 200
Rows = Iterator[tuple[int, list[str]]]  # a CSV's rows, each with the line it ends on


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


def is_header(row: list[str], wanted: tuple[tuple[str, ...], ...]) -> bool:
    """Whether the row holds one name of each wanted group."""
    cells = [c.strip() for c in row]
    return all(any(name in cells for name in group) for group in wanted)


def blank_row(row: list[str]) -> bool:
    return not any(cell.strip() for cell in row)


def find_header(rows: list[list[str]], wanted: tuple[tuple[str, ...], ...]) -> int | None:
    """Index of the first row holding one name of each wanted group (preamble lines come before it)."""
    return next((index for index, row in enumerate(rows[:HEADER_WITHIN_ROWS]) if is_header(row, wanted)), None)


def stream_header(rows: Rows, wanted: tuple[tuple[str, ...], ...]) -> tuple[int, list[str]] | None:
    """The first row of the stream holding one name of each wanted group, within its first rows, and its line."""
    for line, row in rows:
        if is_header(row, wanted):
            return line, [c.strip() for c in row]
        if line >= HEADER_WITHIN_ROWS:
            break
    return None


def is_nsys_kernel_csv(text: str) -> bool:
    try:
        return find_header(csv_rows(text[:20000]), (NSYS_TIME_HEADERS, NSYS_NAME_HEADERS)) is not None
    except ImportFileError:
        return False


def csv_stream(source: str | BinaryIO, file: str) -> Rows:
    """The CSV's rows with the line each ends on, read a line at a time from the text or a binary file; ImportFileError
    naming the line where one cannot be read (not UTF-8, a stray quote, a field over csv's 128 KiB limit, a line over
    MAX_LINE_CHARS)."""
    stream = io.BytesIO(source.encode("utf-8")) if isinstance(source, str) else source
    reader = csv.reader(_bounded_lines(stream, file))
    try:
        for row in reader:
            yield reader.line_num, row
    except csv.Error as exc:
        raise ImportFileError(file, f"line {reader.line_num}", f"not a readable CSV row ({exc})") from None


def _bounded_lines(stream: BinaryIO, file: str) -> Iterator[str]:
    number = 0
    while raw := stream.readline(MAX_LINE_CHARS + 1):
        number += 1
        if len(raw) > MAX_LINE_CHARS:
            raise ImportFileError(file, f"line {number}", f"a line of more than {MAX_LINE_CHARS:,} bytes: "
                                  "not a kernel table")
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ImportFileError(file, f"line {number}", f"not UTF-8 text (byte {exc.start + 1} of the line)") from None


def parse_nsys(source: str | BinaryIO, file: str) -> KernelSummary:
    """cuda_gpu_kern_sum / gpukernsum CSV: Total Time (ns) and Name, Instances when given. In what `nsys stats`
    prints for several reports, the table of the kernel summary, up to the blank line that ends it."""
    rows = csv_stream(source, file)
    line, header = _kernel_header(rows, file)
    if "Num Calls" in header and "Instances" not in header:
        raise ImportFileError(file, f"line {line}", "this is nsys's CUDA API summary (cuda_api_sum: calls made on "
                              "the host), not the kernel summary: nsys stats --report cuda_gpu_kern_sum")
    time_col = next(h for h in NSYS_TIME_HEADERS if h in header)
    name_col = next(h for h in NSYS_NAME_HEADERS if h in header)
    count_col = next((h for h in NSYS_COUNT_HEADERS if h in header), None)
    percent_col = next((h for h in NSYS_PERCENT_HEADERS if h in header), None)
    return _read_table(rows, header, file, ColumnMap(name_col, time_col, "ns", count_col), "nsys_csv",
                       blank_ends=True, percent_col=percent_col)


def _kernel_header(rows: Rows, file: str) -> tuple[int, list[str]]:
    """The kernel table's header and its line. `nsys stats` announces each report it runs ("Processing [x.sqlite]
    with [.../cuda_gpu_kern_sum.py]..."), so where it printed several, the kernel summary's own is taken; a bare
    table's header is looked for in its first rows."""
    wanted = (NSYS_TIME_HEADERS, NSYS_NAME_HEADERS)
    reports: list[str] = []
    kernel_line = 0  # the line announcing the kernel report, while its header is awaited
    for line, row in rows:
        found = NSYS_PROCESSING.match(",".join(row))
        if found:
            if kernel_line:
                break
            reports.append(found.group("report"))
            kernel_line = line if found.group("report") in NSYS_KERNEL_REPORTS else 0
            continue
        if kernel_line and not blank_row(row) and not is_header(row, wanted):
            said = ",".join(row).strip()
            raise ImportFileError(file, f"line {kernel_line}", f"expected a header with 'Total Time (ns)' and 'Name' "
                                  f"columns after it; nsys wrote {said[:200]!r}")
        if (kernel_line or not reports) and is_header(row, wanted):
            return line, [c.strip() for c in row]
        if not reports and line >= HEADER_WITHIN_ROWS:
            break
    if kernel_line:
        raise ImportFileError(file, f"line {kernel_line}",
                              "expected a header with 'Total Time (ns)' and 'Name' columns after it")
    if reports:
        raise ImportFileError(file, "", f"the file holds the nsys reports {', '.join(dict.fromkeys(reports))}, not "
                              "the kernel summary: nsys stats --report cuda_gpu_kern_sum --format csv")
    raise ImportFileError(file, "", "expected a header with 'Total Time (ns)' and 'Name' columns")


def parse_generic(source: str | BinaryIO, file: str, columns: ColumnMap) -> KernelSummary:
    """Any kernel CSV, with the columns the user mapped."""
    if columns.unit not in UNIT_TO_US:
        raise ImportFileError(file, "", f"unknown time unit {columns.unit!r}: use ns, us, ms or s")
    wanted = ((columns.name_column,), (columns.time_column,))
    rows = csv_stream(source, file)
    found = stream_header(rows, wanted)
    if found is None:
        raise ImportFileError(
            file, "", f"expected a header row with columns {columns.name_column!r} and {columns.time_column!r}"
        )
    return _read_table(rows, found[1], file, columns, "kernel_csv")


def _read_table(rows: Rows, header: list[str], file: str, columns: ColumnMap, source_format: str,
                blank_ends: bool = False, percent_col: str | None = None) -> KernelSummary:
    """The rows after the header, summed by kernel name (a blank row ends an nsys table), and with a Time (%)
    column the share of all kernel time the table lists."""
    name_i, time_i = header.index(columns.name_column), header.index(columns.time_column)
    count_i = header.index(columns.count_column) if columns.count_column in header else None
    percent_i = header.index(percent_col) if percent_col else None
    scale = UNIT_TO_US[columns.unit]
    summary = KernelSummary(source_format, files=[file])
    best_percent, best_us = 0.0, 0.0
    for line, row in rows:
        if blank_row(row):
            if blank_ends:
                break
            continue
        if len(row) < len(header):
            raise ImportFileError(file, f"line {line}", f"expected {len(header)} columns, got {len(row)}")
        try:
            total = float(row[time_i].replace(",", ""))
            count = int(float(row[count_i].replace(",", ""))) if count_i is not None else 1
        except ValueError:
            raise ImportFileError(
                file, f"line {line}", f"expected a number in {columns.time_column!r}, got {row[time_i][:100]!r}"
            ) from None
        if total < 0:
            raise ImportFileError(file, f"line {line}", "a total time cannot be negative")
        name = row[name_i].strip()
        if name not in summary.kernels and len(summary.kernels) >= MAX_KERNEL_NAMES:
            raise ImportFileError(file, f"line {line}", f"more than {MAX_KERNEL_NAMES:,} distinct kernel names: "
                                  "not a kernel table of one run")
        summary.add(name, total * scale, count)
        if percent_i is not None:
            percent = _number(row[percent_i])
            if percent is not None and percent > best_percent:
                best_percent, best_us = percent, total * scale
    if not summary.kernels:
        raise ImportFileError(file, "", "no kernel rows after the header")
    if percent_i is not None and best_percent > 0 and best_us > 0:
        # the whole is the largest row's time over its Time (%), the figure its rounding to 0.1 least disturbs (a
        # sum of rounded percentages drifts with the rows: 99.8 for a whole table of many small kernels)
        summary.listed_share = min(1.0, summary.gpu_time_us / (best_us * 100 / best_percent))
    return summary


def _number(cell: str) -> float | None:
    try:
        return float(cell.replace(",", ""))
    except ValueError:
        return None

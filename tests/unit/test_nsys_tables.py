"""Nsight Systems kernel tables as nsys wrote them (tests/data/nsys): `nsys stats` 2023.4.4's cuda_gpu_kern_sum
printed with its preamble and written to a file, its cuda_gpu_trace (a CSV whose columns the user names), and 2022.4.2's
older gpukernsum, all of one report of eight eager decode steps at batch 8 on an H100. Every figure is checked
against the table's own rows, read here with the csv module."""

import csv
import io
from collections import defaultdict

import pytest

from tests.unit.test_importers import DATA, detected, text
from tierplan.importers import detect as formats
from tierplan.importers import kernel_csv
from tierplan.importers.buckets import UNLISTED_BUCKET, bucket_kernels, step_shares
from tierplan.importers.errors import ImportFileError
from tierplan.importers.kernel_csv import ColumnMap, parse_generic, parse_nsys

WHOLE = "nsys/cuda_gpu_kern_sum.csv"  # stdout of `nsys stats`, the lines before the table included
TRACE = "nsys/cuda_gpu_trace.csv"  # cuda_gpu_trace written by nsys (--output): a row a kernel or copy
OLD = "nsys/old_gpukernsum.csv"  # nsys 2022.4.2's gpukernsum of the same report
ALL = "nsys/all_reports.csv"  # `nsys stats --format csv` alone: every default report, the kernel table among them


def table(name: str, header_starts: str) -> list[dict[str, str]]:
    """The table's rows as dicts, after the lines nsys prints before its header."""
    lines = text(name).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header_starts))
    return list(csv.DictReader(io.StringIO("\n".join(lines[start:]))))


def totals(rows: list[dict[str, str]], time_column: str, count_column: str | None) -> dict[str, list]:
    """Total microseconds and instances by kernel name, summed over the rows that name it."""
    by_name: dict[str, list] = defaultdict(lambda: [0.0, 0])
    for row in rows:
        by_name[row["Name"]][0] += float(row[time_column]) / 1000
        by_name[row["Name"]][1] += int(row[count_column]) if count_column else 1
    return dict(by_name)


@pytest.mark.parametrize("name, expected", [(WHOLE, formats.NSYS), (OLD, formats.NSYS), (ALL, formats.NSYS),
                                            (TRACE, formats.KERNEL_CSV)])
def test_each_table_is_known_by_its_content(name, expected):
    assert detected(name) == expected


def test_cuda_gpu_kern_sum_gives_every_kernel_s_time_and_instances():
    summary = parse_nsys(text(WHOLE), WHOLE)
    expected = totals(table(WHOLE, "Time (%)"), "Total Time (ns)", "Instances")
    assert summary.kernels.keys() == expected.keys()
    for kernel, (total_us, count) in expected.items():
        assert summary.kernels[kernel][0] == pytest.approx(total_us, rel=1e-12)
        assert summary.kernels[kernel][1] == count
    assert summary.listed_share == pytest.approx(1.0, abs=0.002)  # the largest row over its Time (%), rounded


def test_of_every_report_nsys_printed_the_kernel_summary_is_read_and_no_other():
    """The CUDA API summary comes first, with the same time and name columns: its calls are not kernels."""
    everything, kernels = parse_nsys(text(ALL), ALL), parse_nsys(text(WHOLE), WHOLE)
    assert "cuda_api_sum" in text(ALL) and "cudaLaunchKernel" in text(ALL)
    assert everything.kernels == kernels.kernels and everything.listed_share == kernels.listed_share


def test_a_file_of_other_nsys_reports_is_refused_naming_them():
    lines = text(ALL).splitlines()
    kernel_at = next(i for i, line in enumerate(lines) if "cuda_gpu_kern_sum.py" in line)
    without = "\n".join(lines[:kernel_at]) + "\n"  # nvtx_sum, osrt_sum (skipped) and cuda_api_sum
    with pytest.raises(ImportFileError, match="holds the nsys reports nvtx_sum, osrt_sum, cuda_api_sum, not the"):
        parse_nsys(without, "api.csv")
    api_alone = "\n".join(line for line in lines[:kernel_at] if not line.startswith(("Processing", "SKIPPED")))
    api_at = api_alone.splitlines().index(next(line for line in api_alone.splitlines() if "Num Calls" in line))
    with pytest.raises(ImportFileError, match="CUDA API summary") as error:
        parse_nsys("\n".join(api_alone.splitlines()[api_at:]), "api.csv")
    assert error.value.where == "line 1"


def test_a_file_cut_after_the_kernel_report_s_first_line_names_that_line():
    lines = text(ALL).splitlines()
    kernel_at = next(i for i, line in enumerate(lines) if "cuda_gpu_kern_sum.py" in line)
    with pytest.raises(ImportFileError, match="expected a header with 'Total Time \\(ns\\)' and 'Name' columns after "
                                              "it") as error:
        parse_nsys("\n".join(lines[: kernel_at + 1]) + "\n", "cut.csv")
    assert error.value.where == f"line {kernel_at + 1}"


def test_the_older_gpukernsum_of_the_same_report_gives_the_same_kernels():
    """2022.4's table splits a kernel by grid and block; summed by name it is the 2023.4 table of the same report."""
    old, new = parse_nsys(text(OLD), OLD), parse_nsys(text(WHOLE), WHOLE)
    assert len(table(OLD, "Time (%)")) >= len(old.kernels)
    assert old.kernels.keys() == new.kernels.keys()
    for kernel, (total_us, count) in new.kernels.items():
        assert old.kernels[kernel][0] == pytest.approx(total_us, rel=1e-12) and old.kernels[kernel][1] == count


def test_the_gpu_trace_mapped_by_name_and_duration_sums_to_the_kernel_table():
    trace = parse_generic(text(TRACE), TRACE, ColumnMap("Name", "Duration (ns)", "ns"))
    kernels = parse_nsys(text(WHOLE), WHOLE)
    for kernel, (total_us, count) in kernels.kernels.items():
        assert trace.kernels[kernel][0] == pytest.approx(total_us, rel=1e-9) and trace.kernels[kernel][1] == count
    copies = set(trace.kernels) - set(kernels.kernels)  # the trace lists memory copies and sets too
    assert all(name.startswith("[CUDA ") for name in copies)


def test_a_wrong_column_name_is_named():
    with pytest.raises(ImportFileError, match="'Kernel' and 'Duration'"):
        parse_generic(text(TRACE), TRACE, ColumnMap("Kernel", "Duration"))


def test_a_whole_kernel_table_has_nothing_unlisted():
    summary = parse_nsys(text(WHOLE), WHOLE)
    shares, _ = step_shares(bucket_kernels(summary), ranks=1, step_ms=None, steps=None,
                            listed_share=summary.listed_share)
    assert UNLISTED_BUCKET not in shares


def test_a_table_cut_to_its_top_rows_keeps_the_rest_as_unlisted_not_renormalised():
    """The real table cut after the rows that make half its kernel time, as a user copies a top-N: what the cut
    leaves out stays unlisted, at the share the whole table gives it."""
    lines = text(WHOLE).splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("Time (%)"))
    rows = table(WHOLE, "Time (%)")
    kept = next(n for n in range(1, len(rows) + 1) if sum(float(r["Time (%)"]) for r in rows[:n]) >= 50)
    assert kept < len(rows)
    cut = "\n".join(lines[: header + 1 + kept]) + "\n"
    listed = sum(float(r["Total Time (ns)"]) for r in rows[:kept]) / sum(float(r["Total Time (ns)"]) for r in rows)
    summary = parse_nsys(cut, "top.csv")
    assert summary.listed_share == pytest.approx(listed, rel=0.002)  # the top row's Time (%) is rounded to 0.1
    shares, how = step_shares(bucket_kernels(summary), ranks=1, step_ms=None, steps=None,
                              listed_share=summary.listed_share)
    assert shares[UNLISTED_BUCKET] == pytest.approx(1 - summary.listed_share)
    assert sum(shares.values()) == pytest.approx(1.0)
    assert f"lists {summary.listed_share:.1%} of kernel time" in how


def test_a_table_read_as_a_stream_gives_what_its_text_gives():
    with open(DATA / TRACE, "rb") as stream:
        streamed = parse_generic(stream, TRACE, ColumnMap("Name", "Duration (ns)", "ns"))
    with open(DATA / ALL, "rb") as stream:
        kernels = parse_nsys(stream, ALL)
    assert streamed.kernels == parse_generic(text(TRACE), TRACE, ColumnMap("Name", "Duration (ns)", "ns")).kernels
    assert kernels.kernels == parse_nsys(text(ALL), ALL).kernels


def test_a_line_longer_than_any_kernel_table_s_is_refused_at_its_number(monkeypatch):
    monkeypatch.setattr(kernel_csv, "MAX_LINE_CHARS", 300)
    lines = (DATA / TRACE).read_bytes().splitlines(keepends=True)
    first_long = next(n for n, line in enumerate(lines, start=1) if len(line) > 300)
    with pytest.raises(ImportFileError, match="a line of more than 300 bytes") as error:
        parse_generic(text(TRACE), TRACE, ColumnMap("Name", "Duration (ns)", "ns"))
    assert error.value.where == f"line {first_long}"


def test_more_distinct_kernel_names_than_a_run_holds_are_refused_at_the_row(monkeypatch):
    monkeypatch.setattr(kernel_csv, "MAX_KERNEL_NAMES", 5)
    names = [row["Name"] for row in table(TRACE, "Start (ns)")]
    sixth = next(n for n in range(len(names)) if len(set(names[: n + 1])) == 6)
    with pytest.raises(ImportFileError, match="more than 5 distinct kernel names") as error:
        parse_generic(text(TRACE), TRACE, ColumnMap("Name", "Duration (ns)", "ns"))
    assert error.value.where == f"line {sixth + 2}"  # the header is line 1

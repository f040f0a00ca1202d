"""Nsight Compute's CSV pages, as ncu 2025.3.1 wrote them around one eager decode step on an H100 (tests/data/ncu)."""

import csv
import gzip
from pathlib import Path

import pytest

from tierplan.importers import detect as formats
from tierplan.importers import ncu_csv
from tierplan.importers.errors import ImportFileError
from tierplan.importers.ncu_csv import is_ncu_csv, parse_ncu

DATA = Path(__file__).parent.parent / "data" / "ncu"
RAW = (DATA / "ncu_raw.csv").read_text()
DETAILS = gzip.decompress((DATA / "ncu_details.csv.gz").read_bytes()).decode()


def table(text: str) -> list[dict[str, str]]:
    lines = [line for line in text.splitlines() if not line.startswith("==")]
    return list(csv.DictReader(lines))


def test_the_raw_page_gives_each_launch_s_duration_to_the_last_digit():
    rows = table(RAW)
    units, launches = rows[0], rows[1:]
    assert units["gpu__time_duration.sum"] == "ns" and len(launches) == 284
    summary = parse_ncu(RAW, "ncu_raw.csv")
    assert sum(count for _, count in summary.kernels.values()) == 284
    name = launches[0]["Kernel Name"]
    mine = [float(r["gpu__time_duration.sum"].replace(",", "")) / 1000 for r in launches if r["Kernel Name"] == name]
    assert summary.kernels[name] == [pytest.approx(sum(mine), rel=1e-12), len(mine)]
    assert summary.source_format == "ncu_csv"


def test_the_details_page_gives_the_same_launches_and_their_figures_in_words():
    rows = table(DETAILS)
    summary = parse_ncu(DETAILS, "ncu_details.csv")
    assert sum(count for _, count in summary.kernels.values()) == len({r["ID"] for r in rows}) == 284
    gemm = "nvjet_sm90_tst_384x8_64x4_4x1_v_bz_NNT"
    durations = [float(r["Metric Value"].replace(",", "")) for r in rows
                 if r["Kernel Name"] == gemm and r["Metric Name"] == "Duration"]
    unit = {r["Metric Unit"] for r in rows if r["Metric Name"] == "Duration"}
    factor = {"ns": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3}[unit.pop()]
    assert summary.kernels[gemm][0] == pytest.approx(sum(durations) * factor, rel=1e-12)
    occupancy = [float(r["Metric Value"]) for r in rows if r["Kernel Name"] == gemm
                 and r["Metric Name"] == "Achieved Occupancy"]
    dram = [float(r["Metric Value"]) for r in rows if r["Kernel Name"] == gemm and r["Metric Name"] == "DRAM Throughput"]
    words = summary.launch[gemm]
    assert words.startswith("76 blocks of 384 threads on 132 SMs")
    assert f"{sum(occupancy) / len(occupancy):.3g}% achieved occupancy" in words
    assert f"{sum(dram) / len(dram):.3g}% of DRAM bandwidth" in words


@pytest.mark.parametrize("text", [RAW, DETAILS])
def test_both_pages_are_told_by_their_content(text):
    assert is_ncu_csv(text) and formats.detect(text[:65536].encode(), "profile.csv") == formats.NCU


def test_a_page_cut_mid_row_or_with_a_mangled_duration_is_refused_at_its_line():
    cut = RAW[: RAW.index("\n", len(RAW) // 2) + 40]
    with pytest.raises(ImportFileError, match=r"ncu\.csv, line \d+: expected \d+ columns"):
        parse_ncu(cut, "ncu.csv")
    lines = RAW.splitlines(keepends=True)
    header_at = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))
    mangled = list(lines)
    duration = next(csv.reader([lines[header_at]])).index("gpu__time_duration.sum")
    cells = next(csv.reader([lines[header_at + 5]]))
    cells[duration] = "fast"
    mangled[header_at + 5] = ",".join(f'"{c}"' for c in cells) + "\n"
    with pytest.raises(ImportFileError, match=rf"line {header_at + 6}: expected a number for duration, got 'fast'"):
        parse_ncu("".join(mangled), "ncu.csv")


def test_a_page_read_from_its_file_a_line_at_a_time_gives_what_its_text_gives():
    with open(DATA / "ncu_raw.csv", "rb") as stream:
        streamed = parse_ncu(stream, "ncu_raw.csv")
    whole = parse_ncu(RAW, "ncu_raw.csv")
    assert streamed.kernels == whole.kernels and streamed.launch == whole.launch


@pytest.mark.parametrize("page, name", [(RAW, "ncu_raw.csv"), (DETAILS, "ncu_details.csv")])
def test_more_launches_than_a_profiled_step_holds_are_refused_at_the_row(monkeypatch, page, name):
    monkeypatch.setattr(ncu_csv, "MAX_LAUNCHES", 10)
    lines = page.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))
    ids, eleventh = [], None
    for number, row in enumerate(csv.reader(lines[header + 1:]), start=header + 2):
        if row and row[0] != "" and row[0] not in ids and row[0].isdigit():
            ids.append(row[0])
            if len(ids) == 11:
                eleventh = number
                break
    with pytest.raises(ImportFileError, match="more than 10 kernel launches") as error:
        parse_ncu(page, name)
    assert error.value.where == f"line {eleventh}"

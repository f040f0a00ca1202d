"""Changes found in the measurement histories, in words and records: the regime page, the API and
`tierplan regressions` read these."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING
from xml.etree import ElementTree as ET

from pydantic import BaseModel, Field

from tierplan.planning.metrics import metric_unit
from tierplan.planning.regressions import Change, Series
from tierplan.planning.stats import CONFIDENCE
from tierplan.text import formatting as fmt
from tierplan.views.gate_reports import ReportFormat

if TYPE_CHECKING:  # the CLI reads these views without loading the services
    from tierplan.services.regressions import Searched


def change_text(change: Change) -> str:
    """"regression from 2026-10-18: 100 tok/s -> 91.2 tok/s, -8.8% (90% interval -10.1% to -7.2%), 17 runs before, 13 after"."""
    unit = metric_unit(change.metric)
    low, high = change.interval
    word = "improvement" if change.improvement else "regression"
    return (f"{word} from {fmt.date(change.first_run.measured_at)}: {fmt.number(change.before, unit)} → "
            f"{fmt.number(change.after, unit)}, {change.change:+.1%} ({CONFIDENCE:.0%} interval {low:+.1%} to "
            f"{high:+.1%}), {change.runs_before} runs before, {change.runs_after} after")


class ChangeOut(BaseModel):
    regime: str
    metric: str
    kind: str = Field(description="regression or improvement, by the metric's direction")
    first_run_at: str = Field(description="when the first run after the change was measured (ISO 8601)")
    first_run_value: float
    before_median: float
    after_median: float
    change: float = Field(description="after / before - 1")
    interval_low: float
    interval_high: float
    p_value: float = Field(description="rank test, times the splits tried")
    runs_before: int
    runs_after: int
    text: str


class SeriesOut(BaseModel):
    regime: str
    metric: str
    runs: int = Field(description="runs of this history, not retracted")
    searched: int = Field(description="the newest runs searched for changes (at most 500, or 4 x min_samples)")
    judged: bool = Field(description="enough runs to find a change (twice the runs a side needs)")
    changes: list[ChangeOut]


def change_out(c: Change) -> ChangeOut:
    return ChangeOut(regime=c.regime, metric=c.metric, kind="improvement" if c.improvement else "regression",
                     first_run_at=c.first_run.measured_at.isoformat(), first_run_value=c.first_run.value,
                     before_median=c.before, after_median=c.after, change=c.change, interval_low=c.interval[0],
                     interval_high=c.interval[1], p_value=c.p_value, runs_before=c.runs_before,
                     runs_after=c.runs_after, text=change_text(c))


def series_out(s: Series, runs: int | None = None) -> SeriesOut:
    """The series as the API shows it; `runs`: every run of the history, when only its newest were searched."""
    return SeriesOut(regime=s.regime, metric=s.metric, runs=len(s.runs) if runs is None else runs,
                     searched=len(s.runs), judged=s.judged, changes=[change_out(c) for c in s.changes])


def searched_out(found: Sequence[Searched]) -> list[SeriesOut]:
    """The histories a search read (tierplan/services/regressions.py), as the API, the CLI and the pages show them."""
    return [series_out(f.series, runs=f.runs) for f in found]


def exit_code(series: list[SeriesOut]) -> int:
    """0 no regression, 1 a regression, 3 no history long enough to judge."""
    if any(c.kind == "regression" for s in series for c in s.changes):
        return 1
    return 0 if any(s.judged for s in series) else 3


def render(series: list[SeriesOut], how: ReportFormat, *, title: str) -> str:
    code = exit_code(series)
    verdict = {0: "no regression (exit 0)", 1: "a regression (exit 1)",
               3: "no history long enough to judge (exit 3)"}[code]
    changed = [c for s in series for c in s.changes]
    if how is ReportFormat.JSON:
        return json.dumps({"title": title, "exit_code": code, "series": [s.model_dump() for s in series]},
                          indent=1) + "\n"
    if how is ReportFormat.JUNIT:
        suites = ET.Element("testsuites", name=f"tierplan regressions: {title}")
        suite = ET.SubElement(suites, "testsuite", name="measurement histories", tests=str(len(series)),
                              failures=str(sum(any(c.kind == "regression" for c in s.changes) for s in series)),
                              errors="0", skipped=str(sum(not s.judged for s in series)))
        for s in series:
            case = ET.SubElement(suite, "testcase", classname=f"tierplan.{s.regime}", name=s.metric)
            regressions = [c for c in s.changes if c.kind == "regression"]
            if regressions:
                ET.SubElement(case, "failure", message=regressions[0].text, type="regression").text = "\n".join(
                    c.text for c in s.changes)
            elif not s.judged:
                ET.SubElement(case, "skipped", message=f"{s.runs} runs: too few to judge")
        ET.indent(suites)
        return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
    if how is ReportFormat.MARKDOWN:
        lines = [f"### {'❌' if code == 1 else '✅' if code == 0 else '⏳'} {verdict}: {title}", ""]
        if changed:
            lines += ["| regime | metric | change |", "| --- | --- | --- |"]
            lines += [f"| {c.regime} | {c.metric} | {c.text} |" for c in changed]
        judged = sum(s.judged for s in series)
        lines += ["", f"<sub>{judged} of {len(series)} histories long enough to judge</sub>"]
        return "\n".join(lines) + "\n"
    lines = [f"changes in the histories of {title}"]
    lines += [f"  {c.regime} {c.metric}: {c.text}" for c in changed] or ["  none found"]
    short = [f"{s.regime} {s.metric} ({s.runs})" for s in series if not s.judged]
    if short:
        lines.append(f"  too few runs to judge: {', '.join(short[:12])}" + (" ..." if len(short) > 12 else ""))
    lines.append(verdict)
    return "\n".join(lines) + "\n"

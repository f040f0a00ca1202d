"""`tierplan gates` and `tierplan push` output: the gates as text, JSON, a pull-request comment or JUnit XML."""

from __future__ import annotations

import json
from enum import StrEnum
from xml.etree import ElementTree as ET

from tierplan.views.gates import GateOut, GateSummary

MARKS = {"pass": "✅", "warn": "⚠️", "fail": "❌", "inconclusive": "❔", "pending": "⏳"}
EXIT_MEANINGS = {0: "every hard gate passes", 1: "a gate fails", 3: "a gate is pending or inconclusive"}


class ReportFormat(StrEnum):
    TEXT = "text"
    JSON = "json"
    MARKDOWN = "markdown"
    JUNIT = "junit"


def render(summary: GateSummary, how: ReportFormat, *, title: str, strict: bool = False) -> str:
    """The report of `summary` in the format asked for; `title` names the campaign."""
    if how is ReportFormat.JSON:
        return json.dumps({"title": title, "exit_code": summary.exit_code(strict),
                           "tiers": [t.model_dump(mode="json") for t in summary.tiers]}, indent=1) + "\n"
    if how is ReportFormat.MARKDOWN:
        return markdown(summary, title=title, strict=strict)
    if how is ReportFormat.JUNIT:
        return junit(summary, title=title, strict=strict)
    return text(summary, title=title, strict=strict)


def _verdict(summary: GateSummary, strict: bool) -> str:
    code = summary.exit_code(strict)
    if not summary.partial:
        return f"{EXIT_MEANINGS[code]} (exit {code})"
    verdict = f"{EXIT_MEANINGS[code]} among the gates these runs decided (exit {code})"
    unvalidated = [t.tier for t in summary.tiers if not t.validated]
    if unvalidated:  # its other gates, which these runs did not decide, do not all pass
        verdict += (f"; tier {', '.join(unvalidated)} is not validated: another of its gates fails or is pending "
                    "(`tierplan gates` lists them all)")
    return verdict


def text(summary: GateSummary, *, title: str, strict: bool = False) -> str:
    lines = [f"gates of {title}"]
    for tier in summary.tiers:
        lines.append(f"tier {tier.tier}: {tier.name}: {'validated' if tier.validated else 'not validated'}")
        for g in tier.gates:
            severity = " [warn only]" if g.severity == "warn" else ""
            lines.append(f"  {g.status.upper():<12} {g.regime}: {g.condition}{severity}")
            lines.append(f"  {'':<12} {g.evidence}")
    if not summary.tiers:
        lines.append("no gate")
    lines.append(_verdict(summary, strict))
    return "\n".join(lines) + "\n"


def _cell(value: str) -> str:
    return value.replace("|", "\\|").replace("\n", " ")


def markdown(summary: GateSummary, *, title: str, strict: bool = False) -> str:
    """A pull-request comment: a headline, then a table a tier."""
    code = summary.exit_code(strict)
    head = {0: "✅ gates pass", 1: "❌ a gate fails", 3: "⏳ gates not decided yet"}[code]
    lines = [f"### {head}: {_cell(title)}", ""]
    for tier in summary.tiers:
        state = "validated" if tier.validated else "not validated"
        lines += [f"**Tier {_cell(tier.tier)}: {_cell(tier.name)}** ({state})", "",
                  "| | regime | condition | evidence |", "| --- | --- | --- | --- |"]
        for g in tier.gates:
            severity = " (warn only)" if g.severity == "warn" else ""
            lines.append(f"| {MARKS[g.status]} {g.status} | {_cell(g.regime)} | {_cell(g.condition)}{severity} | "
                         f"{_cell(g.evidence)} |")
        lines.append("")
    if not summary.tiers:
        lines += ["No gate.", ""]
    lines.append(f"<sub>tierplan gates: {_verdict(summary, strict)}</sub>")
    return "\n".join(lines) + "\n"


def _case_name(g: GateOut) -> str:
    return f"{g.regime}: {g.condition}"


def junit(summary: GateSummary, *, title: str, strict: bool = False) -> str:
    """JUnit XML: a test suite a tier, a test case a gate; fail is a failure, pending and inconclusive are skipped,
    warn passes with its message in system-out (a failure with `strict`)."""
    suites = ET.Element("testsuites", name=f"tierplan gates: {title}")
    for tier in summary.tiers:
        suite = ET.SubElement(suites, "testsuite", name=f"tier {tier.tier}: {tier.name}")
        failures = skipped = 0
        for g in tier.gates:
            case = ET.SubElement(suite, "testcase", classname=f"tierplan.tier_{tier.tier}", name=_case_name(g))
            if g.status == "fail" or (strict and g.status == "warn"):
                failures += 1
                ET.SubElement(case, "failure", message=g.reason, type=g.status).text = g.evidence
            elif g.status in ("pending", "inconclusive"):
                skipped += 1
                ET.SubElement(case, "skipped", message=f"{g.status}: {g.reason}")
            elif g.status == "warn":
                ET.SubElement(case, "system-out").text = f"warn: {g.evidence}"
            else:
                ET.SubElement(case, "system-out").text = g.evidence
        suite.set("tests", str(len(tier.gates)))
        suite.set("failures", str(failures))
        suite.set("errors", "0")
        suite.set("skipped", str(skipped))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"

"""The plan's own history as the pages show it: projected against measured over time per regime, what each change
since a date did to each projection, and two plans (campaigns or snapshots) side by side (pure: reads snapshots)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from markupsafe import Markup

from tierplan.services.runs import ChartSeries
from tierplan.services.snapshots import RegimeFigures, Snapshot, TierFigures
from tierplan.text import formatting as fmt
from tierplan.views.timeline_chart import Projected, timeline_chart


@dataclass(frozen=True)
class TimelineRow:
    at: str
    what: str  # the change, or "measured"
    projected: str  # "127 tok/s (P10–P90 72.5–222 tok/s)", or ""
    measured: str  # "45.0 tok/s", or ""


@dataclass(frozen=True)
class Timeline:
    regime: str
    chart: Markup
    rows: list[TimelineRow]


def _band(t: TierFigures | None) -> str:
    if t is None or t.p50_tok_s is None:
        return "—"
    return f"{fmt.tok_s(t.p50_tok_s)} (P10–P90 {fmt.digits(t.p10_tok_s or 0)}–{fmt.tok_s(t.p90_tok_s)})"


def timelines(history: Sequence[Snapshot], now: Snapshot, measured: Mapping[str, ChartSeries]) -> list[Timeline]:
    """Per regime of the plan as it stands: its projection after each change `history` holds (and now) against
    its measured output throughput (retracted runs left out; stretches of time when it has more runs than the
    chart draws)."""
    shown: list[Timeline] = []
    for regime in now.regimes:
        points = [(s, s.of(regime.regime)) for s in [*history, now]]
        projected = [Projected(s.taken_at, f.final.p50_tok_s, f.final.p10_tok_s, f.final.p90_tok_s)
                     for s, f in points if f is not None and f.final is not None]
        series = measured.get(regime.regime)
        runs = sorted((m.measured_at, m.value) for m in (series.runs if series else []) if not m.retracted)
        stretches = series.stretches if series else []
        rows = [TimelineRow(fmt.timestamp(s.taken_at), s.cause, _band(f.final if f else None), "")
                for s, f in points if s.id is not None]
        rows += [TimelineRow(fmt.timestamp(at), "measured", "", fmt.tok_s(value)) for at, value in runs]
        rows += [TimelineRow(fmt.timestamp(s.start), f"measured, {s.runs:,} runs to {fmt.timestamp(s.end)}", "",
                             f"{fmt.digits(s.low)}–{fmt.tok_s(s.high)}") for s in stretches]
        rows.sort(key=lambda r: r.at)
        chart = timeline_chart(f"timeline-{len(shown)}", regime.regime, projected, runs, regime.target_tok_s,
                               now.taken_at, f"timeline-table-{len(shown)}", stretches)
        shown.append(Timeline(regime.regime, chart, rows))
    return shown


@dataclass(frozen=True)
class Effect:
    regime: str
    text: str  # "127 → 131 tok/s (+3.15%), P(target) 0% → 0%", or "no change"
    moved: bool


@dataclass(frozen=True)
class ChangeRow:
    at: str
    by: str
    cause: str
    effects: list[Effect]


def regime_effect(before: RegimeFigures | None, after: RegimeFigures | None, name: str) -> Effect:
    """What one change did to regime `name`'s projection after the last tier, its baseline and its ceiling."""
    if after is None:
        return Effect(name, "regime removed", True)
    if before is None:
        if after.final is None or after.final.p50_tok_s is None:
            return Effect(name, "new regime, nothing projected yet (no baseline or no tier)", True)
        return Effect(name, f"new regime: {_band(after.final)}", True)
    old, new = before.final, after.final
    old_p50 = old.p50_tok_s if old else None
    new_p50 = new.p50_tok_s if new else None
    old_p = old.p_target if old else None
    new_p = new.p_target if new else None
    if ((old_p50, old_p, before.baseline_tok_s, before.ceiling_tok_s)
            == (new_p50, new_p, after.baseline_tok_s, after.ceiling_tok_s)):
        return Effect(name, "no change", False)
    if old_p50 and new_p50 and fmt.digits(old_p50) == fmt.digits(new_p50):  # not "127 → 127"
        text = f"P50 {fmt.tok_s(new_p50)} ({fmt.change(new_p50 / old_p50)})"
    else:
        text = f"P50 {fmt.digits(old_p50) if old_p50 else '—'} → {fmt.tok_s(new_p50)}"
        text += f" ({fmt.change(new_p50 / old_p50)})" if old_p50 and new_p50 else ""
    if old_p != new_p:
        text += f", P(target) {fmt.probability(old_p)} → {fmt.probability(new_p)}"
    if before.baseline_tok_s != after.baseline_tok_s:
        old_baseline = fmt.digits(before.baseline_tok_s) if before.baseline_tok_s is not None else "—"
        text += f"; baseline {old_baseline} → {fmt.tok_s(after.baseline_tok_s)}"
    if before.ceiling_tok_s != after.ceiling_tok_s:
        text += f"; ceiling {fmt.tok_s(before.ceiling_tok_s)} → {fmt.tok_s(after.ceiling_tok_s)}"
    return Effect(name, text, True)


def changes_since(history: Sequence[Snapshot], before: Snapshot | None) -> list[ChangeRow]:
    """Each stored change, newest first, with what it did to each regime's projection after the last tier
    (`before`: the plan as it stood when the listing starts, None: from the campaign's beginning)."""
    rows, previous = [], before
    for snapshot in history:
        names = [r.regime for r in snapshot.regimes]
        names += [r.regime for r in (previous.regimes if previous else ()) if r.regime not in names]
        effects = [regime_effect(previous.of(n) if previous else None, snapshot.of(n), n) for n in names]
        rows.append(ChangeRow(fmt.timestamp(snapshot.taken_at), snapshot.by or "—", snapshot.cause, effects))
        previous = snapshot
    return rows[::-1]


@dataclass(frozen=True)
class CompareRow:
    step: str  # "baseline", "target", "ceiling", "after A"
    left: str
    right: str
    ratio: str  # right / left, "1.05x", or ""


@dataclass(frozen=True)
class CompareRegime:
    regime: str
    rows: list[CompareRow]
    only_in: str  # "" when both plans have the regime, else the side that has it


def _ratio(left: float | None, right: float | None) -> str:
    return fmt.factor(right / left) if left and right else ""


def compare(left: Snapshot, right: Snapshot) -> list[CompareRegime]:
    """The two plans regime by regime (matched by name), tier by tier (matched by key)."""
    names = [r.regime for r in left.regimes] + [r.regime for r in right.regimes if left.of(r.regime) is None]
    shown = []
    for name in names:
        a, b = left.of(name), right.of(name)
        if a is None or b is None:
            shown.append(CompareRegime(name, [], "right" if a is None else "left"))
            continue
        rows = [CompareRow("baseline", fmt.tok_s(a.baseline_tok_s), fmt.tok_s(b.baseline_tok_s),
                           _ratio(a.baseline_tok_s, b.baseline_tok_s)),
                CompareRow("target", fmt.tok_s(a.target_tok_s), fmt.tok_s(b.target_tok_s), ""),
                CompareRow("hardware ceiling", fmt.tok_s(a.ceiling_tok_s), fmt.tok_s(b.ceiling_tok_s),
                           _ratio(a.ceiling_tok_s, b.ceiling_tok_s))]
        keys = [t.tier for t in a.tiers] + [t.tier for t in b.tiers if t.tier not in {u.tier for u in a.tiers}]
        for key in keys:
            ta = next((t for t in a.tiers if t.tier == key), None)
            tb = next((t for t in b.tiers if t.tier == key), None)
            rows.append(CompareRow(f"after {key}", _band(ta), _band(tb),
                                   _ratio(ta.p50_tok_s if ta else None, tb.p50_tok_s if tb else None)))
            if ta is not None and tb is not None:
                rows.append(CompareRow(f"P(target) after {key}", fmt.probability(ta.p_target),
                                       fmt.probability(tb.p_target), ""))
        shown.append(CompareRegime(name, rows, ""))
    return shown


def describe(snapshot: Snapshot, campaign: str) -> str:
    """How a side of a comparison is named: "Demo as it stands" or "Demo on 2026-12-01 10:00 UTC"."""
    if snapshot.id is None:
        return f"{campaign}, as it stands"
    return f"{campaign}, {fmt.timestamp(snapshot.taken_at)} (after: {snapshot.cause})"


def heading(snapshot: Snapshot, campaign: str, same_campaign: bool) -> str:
    """A side's column heading: "now" or its date beside an earlier state of the same plan, else the campaign."""
    if not same_campaign:
        return campaign
    return "now" if snapshot.id is None else fmt.timestamp(snapshot.taken_at)


def since_default(first: datetime | None, now: datetime) -> datetime:
    """Where "what changed since" starts when not asked: a week back, or the first change (taken at `first`) if the
    campaign is younger."""
    week = now - timedelta(days=7)
    return max(week, first) if first else week


def snapshot_choices(history: Sequence[Snapshot]) -> list[tuple[str, str]]:
    """The snapshots (newest first) as options of the compare form: ("snapshot-12", "2026-12-01 10:00 UTC · ...")."""
    return [(f"snapshot-{s.id}", f"{fmt.timestamp(s.taken_at)} · {s.cause[:80]}") for s in history]

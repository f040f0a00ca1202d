"""The head of the plan page, the screen of the weekly meeting: per regime the best projection with its band
against target and ceiling, the next gate to pass, and each tier's progress (pure: reads the page's views)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tierplan.planning.model import Status

if TYPE_CHECKING:  # the page's views hold a summary: only their types are read here
    from tierplan.views.plan import GateView, InterventionView, RegimeView, TierView

@dataclass(frozen=True)
class RegimeSummary:
    id: int
    name: str
    state: str  # "ok", "short" or "none": the colour of the tile
    best_text: str  # "127 tok/s"
    after_text: str  # "after C", or "baseline" when the plan has no tier
    band_text: str  # "P10–P90 72.5–222 tok/s", or ""
    p_target_text: str  # "0%", or ""
    baseline_text: str
    target_text: str
    target_provenance: str
    ceiling_text: str
    achievable_text: str  # the ceiling at the campaign's efficiency, or ""
    achievable_detail: str
    verdict_text: str  # "short by 7.90x"
    ceiling_verdict: str
    target_above_ceiling: bool


@dataclass(frozen=True)
class NextGate:
    tier_key: str
    gate: GateView


@dataclass(frozen=True)
class TierProgress:
    """How far a tier has come: its interventions landed or validated, its hard gates passing."""

    total: int
    landed: int  # landed, not yet validated
    validated: int
    rejected: int
    gates_passing: int
    gates_total: int  # hard gates
    gates_failing: int
    validated_tier: bool  # as the planning core decides it (planning/gates.py tier_validated)

    @property
    def state(self) -> str:
        """The badge: "validated", "failing", "pending" or "no gate"."""
        if not self.gates_total:
            return "no gate"
        if self.validated_tier:
            return "validated"
        return "failing" if self.gates_failing else "pending"

    @property
    def gates_text(self) -> str:
        return f"{self.gates_passing} of {self.gates_total} hard gates pass" if self.gates_total else "no hard gate"

    @property
    def done_text(self) -> str:
        """"1 of 3 landed, 0 validated"; a rejected intervention is counted out."""
        counted = self.total - self.rejected
        rejected = f", {self.rejected} rejected" if self.rejected else ""
        return f"{self.landed + self.validated} of {counted} landed, {self.validated} validated{rejected}"

    def width_pct(self, part: int) -> float:
        """A part's width in the progress bar, in percent of the tier's interventions still counted."""
        counted = self.total - self.rejected
        return round(100 * part / counted, 1) if counted else 0.0


def tier_progress(interventions: list[InterventionView], gates: list[GateView], validated: bool) -> TierProgress:
    statuses = [i.status for i in interventions]
    hard = [g for g in gates if g.severity == "hard"]
    return TierProgress(
        total=len(statuses),
        landed=statuses.count(Status.LANDED.value),
        validated=statuses.count(Status.VALIDATED.value),
        rejected=statuses.count(Status.REJECTED.value),
        gates_passing=sum(g.status == "pass" for g in hard),
        gates_total=len(hard),
        gates_failing=sum(g.status == "fail" for g in hard),
        validated_tier=validated,
    )


def regime_summary(r: RegimeView) -> RegimeSummary:
    final = r.steps[-1]
    band = ""
    if final.p50_text:
        band = f"P10–P90 {final.p10_text.removesuffix(' tok/s')}–{final.p90_text}"
    return RegimeSummary(
        id=r.id, name=r.name, state="ok" if r.reaches else ("none" if r.reaches is None else "short"),
        best_text=final.tok_s_text, after_text=final.label, band_text=band, p_target_text=final.p_target_text,
        baseline_text=r.baseline_text, target_text=r.target_text, target_provenance=r.target_provenance,
        ceiling_text=r.ceiling_text, achievable_text=r.achievable_text, achievable_detail=r.achievable_detail,
        verdict_text=r.verdict_text, ceiling_verdict=r.ceiling_verdict,
        target_above_ceiling=r.target_above_ceiling,
    )


def next_gate(tiers: list[TierView]) -> NextGate | None:
    """The first hard gate not passing, in the first tier not validated: failing before pending."""
    for tier in tiers:
        open_gates = [g for g in tier.gates if g.severity == "hard" and g.status != "pass"]
        if open_gates:
            open_gates.sort(key=lambda g: g.status != "fail")
            return NextGate(tier.key, open_gates[0])
    return None

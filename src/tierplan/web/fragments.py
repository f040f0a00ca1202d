"""After a change, only the blocks of the plan page that it moved, each marked for htmx's out-of-band swap."""

from __future__ import annotations

from typing import Any

from tierplan.views.plan import PlanReport


def plan_parts(parts: Any, plan: PlanReport) -> dict[str, str]:
    """Every block of the plan page that data can move, by its element id, rendered with hx-swap-oob."""
    out = {"verdicts": str(parts.verdicts(plan, oob=True))}
    out |= {f"regime-{r.id}": str(parts.regime_card(plan, r, oob=True)) for r in plan.regimes}
    for t in plan.tiers:
        out[f"tier-effort-{t.id}"] = str(parts.tier_effort(plan, t, oob=True))
        out[f"tier-status-{t.id}"] = str(parts.tier_status(plan, t, oob=True))
        out[f"interventions-{t.id}"] = str(parts.interventions_table(plan, t, oob=True))
        out[f"gates-{t.id}"] = str(parts.gates_table(plan, t, oob=True))
    out["capacity"] = str(parts.capacity(plan, oob=True))
    out["suggested-order"] = str(parts.ordering(plan, oob=True))
    out["calibration"] = str(parts.calibration(plan, oob=True))
    out["assumptions"] = str(parts.assumptions(plan, oob=True))
    return out


def changed_parts(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """The blocks whose HTML the change moved, in page order."""
    return [html for key, html in after.items() if before.get(key) != html]

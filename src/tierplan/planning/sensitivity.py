"""How much one effect's estimate moves the plan: every regime's final throughput with that effect at its low and at
its high point, the rest at their likely ones. The export ranks the assumed estimates by it, so the team knows which
assumption to replace with a measurement first.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace

from tierplan.planning.model import Campaign, Effect, SpecDecode, ThreePoint
from tierplan.planning.projection import project_regime


@dataclass(frozen=True)
class Swing:
    regime: str
    low_tok_s: float  # after the plan, with the effect at its low point
    high_tok_s: float
    target_tok_s: float

    @property
    def size(self) -> float:
        """|ln| of the ratio of the two ends: how far the estimate moves this regime."""
        if self.low_tok_s <= 0 or self.high_tok_s <= 0:
            return 0.0
        return abs(math.log(self.high_tok_s / self.low_tok_s))


def _pin(point: ThreePoint, pick: str) -> ThreePoint:
    value = getattr(point, pick)
    return ThreePoint(value, value, value)


def pinned(effect: Effect, pick: str) -> Effect:
    """The effect with every three-point input at its `pick` point (low or high)."""
    changes: dict[str, object] = {f.name: _pin(getattr(effect, f.name), pick) for f in fields(effect)
                                  if isinstance(getattr(effect, f.name), ThreePoint)}
    spec = effect.spec
    if spec is not None:
        changes["spec"] = SpecDecode(spec.draft_tokens,
                                     draft_cost=_pin(spec.draft_cost, pick) if spec.draft_cost else None,
                                     acceptance=_pin(spec.acceptance, pick) if spec.acceptance else None,
                                     per_position=spec.per_position)
    return replace(effect, **changes)  # type: ignore[arg-type]


def swings(campaign: Campaign, key: str, position: int) -> list[Swing]:
    """Each regime the effect (its intervention's `position`th planned one) moves, its two ends."""
    intervention = next(i for i in campaign.interventions if i.key == key)
    effect = intervention.effects[position]
    ends = {}
    for pick in ("low", "high"):
        effects = tuple(pinned(e, pick) if n == position else e for n, e in enumerate(intervention.effects))
        moved = replace(campaign, interventions=tuple(replace(i, effects=effects) if i.key == key else i
                                                      for i in campaign.interventions))
        ends[pick] = {r.name: project_regime(r, moved).final.tok_s for r in moved.regimes if effect.applies_to(r.name)}
    out = []
    for regime in campaign.regimes:
        low, high = ends["low"].get(regime.name), ends["high"].get(regime.name)
        if low is not None and high is not None and abs(high - low) > 1e-9 * max(abs(low), abs(high)):
            out.append(Swing(regime.name, low, high, regime.target_tok_s))
    return out

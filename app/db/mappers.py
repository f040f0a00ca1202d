"""The only place rows become core values."""

from __future__ import annotations

from app.db.repo import CampaignRows
from app.planning import model as core
from app.planning.metrics import THROUGHPUT_METRIC


def to_core(rows: CampaignRows) -> core.Campaign:
    """The planning core's view of a campaign's rows."""
    regime_names = {r.id: r.name for r in rows.regimes}
    tier_keys = {t.id: t.key for t in rows.tiers}
    measurements = tuple(
        core.Measurement(
            regime=regime_names[m.regime_id], metric=m.metric, value=m.value, measured_at=m.measured_at
        )
        for m in rows.measurements
    )
    effects_by_intervention: dict[int, list[core.Effect]] = {}
    for effect in rows.effects:
        effects_by_intervention.setdefault(effect.intervention_id, []).append(
            core.Effect(
                kind=core.EffectKind(effect.kind),
                speedup=core.ThreePoint(effect.speedup_low, effect.speedup_likely, effect.speedup_high),
                bucket=effect.bucket,
                regimes=frozenset(regime_names[rid] for rid in rows.effect_regimes.get(effect.id, [])),
            )
        )
    return core.Campaign(
        regimes=tuple(_regime(r, rows) for r in rows.regimes),
        tiers=tuple(
            core.Tier(key=t.key, name=t.name, order=t.position, started_at=t.started_at) for t in rows.tiers
        ),
        interventions=tuple(
            core.Intervention(
                key=i.key,
                title=i.title,
                effort_days=core.ThreePoint(i.effort_low_days, i.effort_likely_days, i.effort_high_days),
                status=core.Status(i.status),
                tier_key=tier_keys.get(i.tier_id) if i.tier_id is not None else None,
                effects=tuple(effects_by_intervention.get(i.id, [])),
            )
            for i in rows.interventions
        ),
        gates=tuple(
            core.Gate(
                tier_key=tier_keys[g.tier_id],
                regime=regime_names[g.regime_id],
                metric=g.metric,
                comparator=core.Comparator(g.comparator),
                threshold=g.threshold,
            )
            for g in rows.gates
        ),
        measurements=measurements,
    )


def _regime(regime, rows: CampaignRows) -> core.Regime:
    baseline = next(
        (m for m in rows.measurements if m.regime_id == regime.id and m.metric == THROUGHPUT_METRIC), None
    )
    profile_row = rows.profiles.get(regime.id)
    profile = None
    if profile_row is not None and rows.shares.get(profile_row.id):
        profile = core.Profile.of({s.bucket: s.share for s in rows.shares[profile_row.id]})
    return core.Regime(
        name=regime.name,
        concurrency=regime.concurrency,
        target_tok_s=regime.target_tok_s,
        baseline_tok_s=baseline.value if baseline else None,
        baseline_measured_at=baseline.measured_at if baseline else None,
        profile=profile,
    )

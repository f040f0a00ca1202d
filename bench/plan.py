"""Benchmark: recomputing a plan's Monte Carlo against numpy drawing the same samples.

Prints ratios measured in one run (no absolute goals are asserted):
  1. simulate() on 200 interventions x 8 regimes x 10,000 samples, over the
     time numpy takes only to draw those samples, the three-point inputs and
     the model-error terms (goal: at most 3x);
  2. the same plan with 2,000 interventions over 200 (goal: at most 12x).
The likely-value projection and the greedy order are timed too, for the record.

    python bench/plan.py [--samples N] [--repeat R]
"""

from __future__ import annotations

import _bootstrap

_bootstrap.ensure_project_python()

import argparse
import time

import numpy as np

from tierplan.planning.effects import three_points
from tierplan.planning.model import Campaign, Effect, EffectKind, Intervention, Profile, Regime, SpecDecode, ThreePoint, Tier
from tierplan.planning.projection import project_campaign
from tierplan.planning.tiering import suggest_order
from tierplan.planning.uncertainty import pert, simulate

BUCKETS = ("attention", "moe", "dense_gemm", "communication", "sampling", "other")


def synthetic_campaign(interventions: int, regimes: int = 8, seed: int = 1) -> Campaign:
    """A campaign of random but valid plans: mixed effect kinds, three tiers, eight regimes."""
    rng = np.random.default_rng(seed)
    names = [f"concurrency {2 ** n}" for n in range(regimes)]
    regime_values = []
    for n, name in enumerate(names):
        shares = rng.dirichlet(np.ones(len(BUCKETS)))
        regime_values.append(Regime(name=name, concurrency=2 ** n, target_tok_s=1000.0, baseline_tok_s=10.0 * (n + 1),
                                    profile=Profile.of(dict(zip(BUCKETS, shares.tolist(), strict=False)))))
    tiers = tuple(Tier(key=k, name=k, order=i) for i, k in enumerate("ABC"))
    items = []
    for i in range(interventions):
        low = 1 + rng.random()
        tp = ThreePoint(low, low + rng.random(), low + 1 + rng.random())
        kind = i % 4
        if kind == 0:
            effect = Effect(kind=EffectKind.BUCKET, bucket=BUCKETS[i % len(BUCKETS)], speedup=tp)
        elif kind == 1:
            effect = Effect(kind=EffectKind.STEP, speedup=tp, regimes=frozenset(names[: 1 + i % regimes]))
        elif kind == 2:
            effect = Effect(kind=EffectKind.TIME_SAVED, saved_ms=ThreePoint(0.01, 0.02, 0.04),
                            regimes=frozenset(names[i % regimes:]))
        else:
            effect = Effect(kind=EffectKind.SPEC_DECODE, spec=SpecDecode(
                draft_tokens=2, acceptance=ThreePoint(0.5, 0.7, 0.8), draft_cost=ThreePoint(0.05, 0.1, 0.2)))
        items.append(Intervention(key=f"I{i}", title=f"intervention {i}", effort_days=ThreePoint(1, 3, 9),
                                  tier_key="ABC"[i % 3], effects=(effect,)))
    return Campaign(regimes=tuple(regime_values), tiers=tiers, interventions=tuple(items),
                    ceilings_tok_s=tuple((n, 5000.0) for n in names))


def draw_only(campaign: Campaign, samples: int, seed: int) -> None:
    """Only the draws simulate() makes: every effort, every effect estimate and its model-error term, same count."""
    rng = np.random.default_rng(seed)
    for intervention in campaign.interventions:
        pert(intervention.effort_days, rng, samples)
        for effect in intervention.effects:
            for _, estimate in sorted(three_points(effect).items()):
                pert(estimate, rng, samples)
        rng.standard_normal((len(intervention.effects), samples))


def best_of(repeat: int, fn) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    small, large = synthetic_campaign(200), synthetic_campaign(2000)
    n = args.samples
    draws_s = best_of(args.repeat, lambda: draw_only(small, n, 0))
    plan_s = best_of(args.repeat, lambda: simulate(small, n, 0))
    plan_large_s = best_of(max(1, args.repeat - 1), lambda: simulate(large, n, 0))
    # interleaved, so a noisy neighbour slows both alike; the best of each
    pairs = [(best_of(3, lambda: project_campaign(small)), best_of(1, lambda: suggest_order(small)))
             for _ in range(max(5, args.repeat))]
    likely_s, order_s = min(p for p, _ in pairs), min(o for _, o in pairs)
    print(f"plan: 200 interventions x 8 regimes x {n:,} samples")
    print(f"  numpy draws only          {draws_s * 1000:8.1f} ms")
    print(f"  simulate (draws + plan)   {plan_s * 1000:8.1f} ms")
    print(f"  ratio simulate / draws    {plan_s / draws_s:8.2f}x   (goal <= 3x)")
    print(f"  2,000 interventions       {plan_large_s * 1000:8.1f} ms")
    print(f"  ratio 2,000 / 200         {plan_large_s / plan_s:8.2f}x   (goal <= 12x)")
    print(f"  likely-value projection   {likely_s * 1000:8.1f} ms")
    print(f"  greedy suggested order    {order_s * 1000:8.1f} ms")
    print(f"  ratio order / projection  {order_s / likely_s:8.2f}x   (goal <= 10x)")


if __name__ == "__main__":
    main()

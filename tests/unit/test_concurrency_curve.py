"""The concurrency curve: ceiling to the KV cache's limit, measured points, projections interpolated between regimes,
and where a target becomes reachable, against hand computations."""

import math
from dataclasses import replace

import pytest

from tests.factories import make_campaign, make_intervention, make_regime, step_effect
from tierplan.planning.ceiling import GpuSpec, ModelSpec, StepFloor
from tierplan.planning.concurrency_curve import concurrency_curve
from tierplan.planning.projection import project_campaign
from tierplan.planning.targets import TargetKind, aggregate_at, aggregate_of, views

# a dense 8B model in bf16 on one 141 GB GPU at 4.8 TB/s, 128 KiB of KV cache a token (Llama-3-8B's)
GPU = GpuSpec("H200", 1, 141, 4800, (("bf16", 990.0),), scaling_efficiency=1.0)
DENSE = ModelSpec("8B", 8.0, 8.0, 32, 0, 0, 0, 2.0, 2.0, 131072.0, "bf16")
CONTEXT = 1152.0  # 1,024 in, 256 out: the mean context of a decode step


def curve_of(*regimes, speedup=2.0):
    floors = tuple((r.name, StepFloor(GPU, DENSE, r.concurrency, CONTEXT)) for r in regimes)
    campaign = replace(make_campaign(regimes, [make_intervention("A1", step_effect(speedup, *(r.name for r in regimes)))]),
                       floors=floors)
    return concurrency_curve(campaign.regimes, dict(floors), project_campaign(campaign)), dict(floors)


def test_the_curve_runs_from_one_sequence_to_the_most_whose_kv_cache_fits():
    curve, _ = curve_of(make_regime("batch 1", concurrency=1, baseline_tok_s=100.0),
                        make_regime("c16", concurrency=16, baseline_tok_s=800.0))
    # 0.9 x 141 GB less 16 GB of weights, over 1,152 tokens x 128 KiB a sequence
    fits = int((0.9 * 141e9 - 16e9) // (CONTEXT * 131072))
    assert curve.kv_fit == fits == 734
    assert curve.concurrencies == (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 734)
    assert curve.ceiling_tok_s[0] == pytest.approx(StepFloor(GPU, DENSE, 1, CONTEXT).ceiling_tok_s())
    assert curve.ceiling_tok_s[-1] == pytest.approx(StepFloor(GPU, DENSE, 734, CONTEXT).ceiling_tok_s())


def test_projections_are_exact_at_the_regimes_and_interpolated_between_in_efficiency():
    curve, floors = curve_of(make_regime("batch 1", concurrency=1, baseline_tok_s=100.0),
                             make_regime("c16", concurrency=16, baseline_tok_s=800.0))
    baseline, tier = curve.stages
    assert (baseline.stage, tier.stage) == ("baseline", "A")
    assert baseline.tok_s[0] == 100.0 and baseline.tok_s[4] == pytest.approx(800.0)
    assert tier.tok_s[0] == pytest.approx(200.0) and tier.how[0] == "projected" and baseline.how[4] == "measured"
    # concurrency 4 lies halfway between 1 and 16 in log: the efficiency over the ceiling is the geometric mean
    e1 = 100.0 / curve.ceiling_tok_s[0]
    e16 = 800.0 / curve.ceiling_tok_s[4]
    assert baseline.tok_s[2] == pytest.approx(math.sqrt(e1 * e16) * curve.ceiling_tok_s[2])
    assert baseline.how[2] == "interpolated"
    assert baseline.tok_s[-1] is None and baseline.how[-1] == ""  # beyond the regimes: not projected
    assert curve.measured == (("batch 1", 1, 100.0), ("c16", 16, 800.0))


def test_where_an_aggregate_target_fits_the_ceiling_and_where_the_plan_reaches_it():
    """1,000 tok/s aggregate: batch 1's ceiling (about 296 tok/s) cannot hold it; the plan (2x) reaches 1,600 at
    concurrency 16, the first point of the curve at or above 1,000; beyond 16 nothing is projected."""
    curve, _ = curve_of(make_regime("batch 1", concurrency=1, baseline_tok_s=100.0),
                        make_regime("c16", concurrency=16, baseline_tok_s=800.0))
    reach = curve.reaches[0]
    within = next(c for c, top in zip(curve.concurrencies, curve.ceiling_tok_s, strict=True) if top >= 1000)
    assert reach.within_ceiling_from == within == 4
    final = curve.stages[-1].tok_s
    assert reach.plan_reaches_from == next(c for c, v in zip(curve.concurrencies, final, strict=True) if v >= 1000)
    assert reach.plan_reaches_from == 16 and reach.span == (1, 16)
    short, _ = curve_of(make_regime("batch 1", concurrency=1, baseline_tok_s=100.0),
                        make_regime("c16", concurrency=16, baseline_tok_s=300.0), speedup=1.5)
    assert short.reaches[0].plan_reaches_from is None
    assert short.reaches[0].best_share == pytest.approx(0.45) and short.reaches[0].best_at == 16  # 450 of 1,000


def test_a_per_user_target_asks_more_as_sequences_are_added():
    """60 tok/s each user at concurrency 16 (960 aggregate): at 64 users it asks 3,840 tok/s."""
    assert aggregate_of(TargetKind.PER_USER, 60.0, 16) == 960.0
    assert aggregate_of(TargetKind.TPOT, 20.0, 16) == pytest.approx(800.0)  # 50 tok/s a user
    assert aggregate_at(TargetKind.PER_USER, 960.0, 16, 64) == pytest.approx(3840.0)
    assert aggregate_at(TargetKind.AGGREGATE, 960.0, 16, 64) == 960.0
    seen = views(960.0, 16)
    assert (seen.per_user_tok_s, seen.tpot_ms) == (60.0, pytest.approx(1000 / 60))
    curve, _ = curve_of(make_regime("c16", concurrency=16, baseline_tok_s=800.0, target_tok_s=960.0,
                                    target_kind=TargetKind.PER_USER))
    reach = curve.reaches[0]
    asks = curve.target_tok_s(reach, 16)
    assert asks[curve.concurrencies.index(64)] == pytest.approx(3840.0)
    assert reach.plan_reaches_from == 16 and reach.span == (16, 16)  # one regime: projected at its concurrency only

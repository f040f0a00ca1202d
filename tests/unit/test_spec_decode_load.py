"""Speculative decoding that follows load: the verification step costs what the hardware model says."""

import math

import pytest

from tests.factories import make_regime, same
from tests.unit.test_ceiling import gpu, moe
from tierplan.planning.ceiling import VERIFY_EFFICIENCY, GpuSpec, ModelSpec, StepFloor
from tierplan.planning.model import Campaign, Effect, EffectKind, Intervention, Regime, SpecDecode, ThreePoint, Tier
from tierplan.planning.projection import project_regime
from tierplan.planning.prototype_benchmark import Benchmark, sized_by_benchmarks
from tierplan.planning.spec_break_even import break_even, speedup_at
from tierplan.planning.step_changes import spec_cost, spec_tokens
from tierplan.services.presets import GPU_PRESETS, MODEL_PRESETS
from tierplan.text.benchmarks import benchmark_sentence


def v4_floor(concurrency: int) -> StepFloor:
    from tierplan.db.mappers import to_gpu_spec, to_model_spec
    from tierplan.db.tables import HardwareSpec, ModelSpec

    hardware = HardwareSpec(campaign_id=0, name="RTX PRO 6000", count=4, scaling_efficiency=0.8,
                            **GPU_PRESETS["rtx-pro-6000"].values())
    model = ModelSpec(campaign_id=0, name="V4", **MODEL_PRESETS["deepseek-v4-flash"].values())
    return StepFloor(to_gpu_spec(hardware), to_model_spec(model), concurrency, 1024 + 128)


def test_verifying_drafts_costs_more_as_concurrency_grows():
    # one MTP draft: 2 tokens a sequence in flight touch more distinct experts, more so when many sequences share
    # a step (measured on a public DeepSeek-V4-Flash campaign: about 1.3x at concurrency 1, 1.8x at 24)
    at_1, at_24 = v4_floor(1).verify_cost(1), v4_floor(24).verify_cost(1)
    assert at_1 == pytest.approx(1.34, abs=0.01)
    assert at_24 == pytest.approx(1.51, abs=0.01)
    assert at_24 > at_1


def test_the_verification_cost_of_a_toy_moe_by_hand():
    floor = StepFloor(gpu(), moe(), concurrency=1, context_tokens=0)
    # 1 token: 4e9 B dense + 10 x 2 experts x 1e8 B = 6e9 B; 2 tokens: 8 (1 - (6/8)^2) = 3.5 experts: 7.5e9 B
    assert floor.verify_cost(1) == pytest.approx(7.5e9 / 6e9)


def spec_campaign(floor: StepFloor | None, draft_cost: ThreePoint | None = None) -> Campaign:
    regime = make_regime(shares={"moe": 0.5, "attention": 0.5}, concurrency=floor.concurrency if floor else 1)
    effect = Effect(kind=EffectKind.SPEC_DECODE,
                    spec=SpecDecode(draft_tokens=1, acceptance=ThreePoint(0.7, 0.7, 0.7), draft_cost=draft_cost))
    return Campaign((regime,), (Tier("A", "A", 1),), (Intervention("A2", "MTP", ThreePoint(1, 1, 1), tier_key="A",
                                                                    effects=(effect,)),),
                    floors=(("batch 1", floor),) if floor else ())


def test_verifying_adds_the_extra_bytes_and_flops_at_the_stated_efficiency():
    floor = StepFloor(gpu(), moe(), concurrency=1, context_tokens=0)
    # 2 tokens touch 3.5 experts a layer, not 2: 1.5e9 more bytes at 1 TB/s = 1.5 ms; 8e9 more FLOPs at 100 TFLOP/s
    # = 0.08 ms; both at 80% of the datasheet
    assert floor.verify_added_ms(1) == pytest.approx((1.5 + 0.08) / VERIFY_EFFICIENCY)


def test_without_a_draft_cost_the_verify_step_is_the_measured_step_plus_its_added_gpu_time():
    floor = StepFloor(gpu(), moe(), concurrency=1, context_tokens=0)
    campaign = spec_campaign(floor)
    after = project_regime(campaign.regimes[0], campaign).after("A")
    added_ms = (1.5 + 0.08) / VERIFY_EFFICIENCY
    assert after.tokens_per_step == pytest.approx(1.7)
    # the measured step is 100 ms (10 tok/s at concurrency 1): its fixed costs do not grow with the tokens verified
    assert after.step_rel == pytest.approx(1 + added_ms / 100)
    assert after.tok_s == pytest.approx(10 * 1.7 / (1 + added_ms / 100))


def test_a_draft_cost_adds_the_drafter_s_time_beside_the_verify_step_s_gpu_time():
    """c = 0.1 for the one draft: the 100 ms step takes 10 ms more of drafting, and verifying 2 tokens still adds what
    the hardware model says (an EAGLE head's forward does not make the target's verify free)."""
    campaign = spec_campaign(StepFloor(gpu(), moe(), 1, 0), draft_cost=ThreePoint(0.1, 0.1, 0.1))
    added_ms = (1.5 + 0.08) / VERIFY_EFFICIENCY
    after = project_regime(campaign.regimes[0], campaign).after("A")
    assert after.step_rel == pytest.approx(1.1 + added_ms / 100)
    assert after.tok_s == pytest.approx(10 * 1.7 / (1.1 + added_ms / 100))


def test_without_specs_a_draft_cost_is_the_whole_price_and_the_plan_says_so():
    campaign = spec_campaign(None, draft_cost=ThreePoint(0.1, 0.1, 0.1))
    result = project_regime(campaign.regimes[0], campaign)
    assert result.after("A").tok_s == pytest.approx(10 * 1.7 / 1.1)
    assert any("the verify step's added GPU time is not priced" in n for n in result.notes)


def test_without_a_draft_cost_or_specs_the_effect_says_why_it_cannot_apply():
    campaign = spec_campaign(None)
    result = project_regime(campaign.regimes[0], campaign)
    assert result.after("A").tok_s == pytest.approx(10.0)
    assert any("no draft cost entered and no hardware and model specs" in n for n in result.notes)


def test_the_ceiling_caps_the_step_not_the_token():
    floor = StepFloor(gpu(), moe(), concurrency=1, context_tokens=0)
    plain_ceiling = floor.ceiling_tok_s()  # 1 token a 6 ms step: 166.7 tok/s

    def after_a(draft_cost):
        regime = make_regime(shares={"moe": 1.0}, baseline_tok_s=160.0)  # a 6.25 ms step
        effect = Effect(kind=EffectKind.SPEC_DECODE, spec=SpecDecode(
            draft_tokens=1, acceptance=ThreePoint(0.9, 0.9, 0.9), draft_cost=draft_cost))
        campaign = Campaign((regime,), (Tier("A", "A", 1),), (
            Intervention("A2", "MTP", ThreePoint(1, 1, 1), tier_key="A", effects=(effect,)),),
            floors=(("batch 1", floor),), ceilings_tok_s=(("batch 1", plain_ceiling),))
        return project_regime(regime, campaign).after("A")

    # E = 1.9 tokens from the 6.25 ms step plus 1.975 ms of verify work: 231 tok/s, above the plain-decode ceiling
    priced = after_a(None)
    assert not priced.capped and priced.tok_s == pytest.approx(1.9 / (6.25 + 1.58 / VERIFY_EFFICIENCY) * 1000)
    assert priced.tok_s > plain_ceiling
    # a drafter's cost adds to the step beside the verify: 6.25 x 1.05 + 1.975 ms, never under the floor of a step
    # verifying 2 tokens (7.5 ms), which caps only a step projected below it
    drafted = after_a(ThreePoint(0.05, 0.05, 0.05))
    assert not drafted.capped and drafted.tok_s == pytest.approx(1.9 / (6.25 * 1.05 + 1.58 / VERIFY_EFFICIENCY) * 1000)
    assert 1.9 / (6.25 * 1.05 + 1.58 / VERIFY_EFFICIENCY) * 1000 < 1.9 / 7.5e-3


def llama_8b_on_h100(concurrency: int, context_tokens: float = 1024) -> StepFloor:
    """Llama-3.1-8B (8.03e9 parameters, bf16, 32 layers x 8 KV heads x 128 x K and V x 2 bytes) on one H100 SXM."""
    h100 = GpuSpec("H100 SXM", 1, 80, 3350, (("bf16", 989.0),))
    llama = ModelSpec("Llama-3.1-8B", 8.03, 8.03, 32, 0, 0, 0, 2, 2, 32 * 8 * 128 * 2 * 2, "bf16")
    return StepFloor(h100, llama, concurrency, context_tokens)


# SpecDecode-Bench's step time for Llama-3.1-8B on one H100 under vLLM, fitted on its measured runs at batch 1-64
# (github.com/SpecDecode-Bench/simulator, predictor.py; arXiv 2601.11580): 21.0 us a batched token, 0.039 us a KV
# token, 5.9 ms fixed. Verifying g drafts adds g x concurrency batched tokens.
PUBLISHED_US_A_BATCHED_TOKEN = 21.0103129


@pytest.mark.parametrize("concurrency", [1, 8, 64])
def test_the_added_verify_time_matches_the_published_vllm_fit_at_low_and_high_concurrency(concurrency):
    floor = llama_8b_on_h100(concurrency)
    published_ms = 3 * concurrency * PUBLISHED_US_A_BATCHED_TOKEN / 1000
    assert floor.verify_added_ms(3) == pytest.approx(published_ms, rel=0.05)


def test_the_measured_step_not_its_multiple_is_what_verifying_adds_to():
    # at concurrency 1 the 8B model's step is mostly fixed cost: verifying 3 drafts adds 0.06 ms to a 7 ms step,
    # where the floors' ratio would have multiplied all of it
    floor = llama_8b_on_h100(1)
    assert spec_cost(SPEC_3, floor=floor, step_ms=7.0) == pytest.approx(1 + floor.verify_added_ms(3) / 7.0)
    assert spec_cost(SPEC_3, floor=floor, step_ms=7.0) < 1.01


SPEC_3 = SpecDecode(draft_tokens=3, acceptance=ThreePoint(0.6, 0.6, 0.6))


def test_speculative_decoding_stops_paying_where_the_verify_time_eats_the_tokens_gained():
    floor = llama_8b_on_h100(8)
    tokens = 1.4  # E a step
    found = break_even("conc 8", floor, 10.0, tokens, 3)
    assert found.speedup > 1.3 and found.stops_at is not None
    # at the concurrency it names drafting no longer pays, one below it still does (a hand check of the bisection)
    assert speedup_at(floor, 10.0, tokens, 3, found.stops_at) <= 1.0 < speedup_at(floor, 10.0, tokens, 3,
                                                                                   found.stops_at - 1)
    # by hand: a sequence adds 1024 x 128 KiB of KV at 3.35 TB/s and 16.06 GFLOP at 989 TFLOP/s, each at 0.8: 0.0703
    # ms to the step, and verifying 3 drafts adds 3 x 0.0203 ms a sequence; 0.4 (10 + 0.0703 (c - 8)) = 0.0609 c
    # at c = 115
    assert found.stops_at == pytest.approx(115, abs=2)


def test_a_drafter_s_cost_brings_the_break_even_down():
    """EAGLE at c = 0.08 a draft token: each step pays 1.24x for its drafts besides the verify, so drafting stops
    paying where 1.4 step = 1.24 step + verify: 0.16 (10 + 0.0703 (c - 8)) = 0.0609 c, at c = 30.4 (115 with no
    drafter time)."""
    floor = llama_8b_on_h100(8)
    found = break_even("conc 8", floor, 10.0, 1.4, 3, draft_cost=0.08)
    assert found.stops_at == 31
    assert speedup_at(floor, 10.0, 1.4, 3, found.stops_at, 0.08) <= 1.0 < speedup_at(floor, 10.0, 1.4, 3,
                                                                                     found.stops_at - 1, 0.08)


def test_a_high_acceptance_pays_up_to_the_largest_concurrency_the_kv_cache_fits():
    floor = llama_8b_on_h100(1, context_tokens=1024)
    found = break_even("batch 1", floor, 7.0, 4.0, 1)
    # 80 GB x 0.9 - 16.06 GB of weights, over 1024 tokens x 128 KiB: 417 sequences
    assert found.limit == int((80e9 * 0.9 - 16.06e9) // (1024 * 131072))
    assert found.stops_at is None


def eagle_campaign(acceptance: ThreePoint) -> Campaign:
    """Llama-3.1-8B on one H100 at concurrency 1 and 64 (SpecDecode-Bench's plain steps, 296 tokens of context),
    EAGLE k=3 entered with this acceptance and its drafter at 0.09 of a plain step."""
    regimes = tuple(Regime(f"c{c}", c, 1e6, baseline_tok_s=c * 1000 / step, step_ms=step)
                    for c, step in ((1, 7.1254), (64, 9.1812)))
    effect = Effect(EffectKind.SPEC_DECODE, spec=SpecDecode(3, acceptance=acceptance, draft_cost=same(0.09)))
    return Campaign(regimes, (Tier("A", "A", 1),), (Intervention("A2", "EAGLE", same(1), tier_key="A",
                                                                    effects=(effect,)),),
                    floors=tuple((r.name, llama_8b_on_h100(r.concurrency, 296)) for r in regimes))


@pytest.mark.parametrize("entered", [0.3, 0.65, 0.9])
def test_a_prototype_s_benchmark_sizes_the_tokens_a_step_and_the_cost_stays_priced(entered):
    """Benchmarked at concurrency 1 at 1.8x (E = 2.35 tokens a step there), EAGLE at 64 takes E = 2.35 over what
    drafting and verifying cost at 64, whatever acceptance was entered: 1.39x. Sized as a share of the whole
    log-gain (cost included), an acceptance entered at 0.3 took the share to its bound (4) and carried 0.94x to 64,
    one entered at 0.9 carried 1.51x."""
    campaign = eagle_campaign(same(entered))
    c1, c64 = campaign.regimes
    spec = campaign.interventions[0].effects[0].spec
    cost_1 = spec_cost(spec, floor=llama_8b_on_h100(1, 296), step_ms=7.1254)
    measured_tok_s = c1.baseline_tok_s * 2.35 / cost_1
    sized = sized_by_benchmarks(campaign, {"A2": (Benchmark("c1", measured_tok_s, "proto.json"),)})
    assert project_regime(c1, sized).final.tok_s == pytest.approx(measured_tok_s, rel=1e-6)
    cost_64 = spec_cost(spec, floor=llama_8b_on_h100(64, 296), step_ms=9.1812)
    assert project_regime(c64, sized).final.tok_s == pytest.approx(c64.baseline_tok_s * 2.35 / cost_64, rel=1e-6)


def test_a_prototype_slower_than_the_plain_step_is_sized_to_that_slowdown():
    """At concurrency 64 a prototype at 0.9x the plain step's throughput (drafts mostly rejected): the share of the
    tokens that gives it, with the cost paid in full; not the plain step (a share of 0 is "not held")."""
    campaign = eagle_campaign(same(0.65))
    c64 = campaign.regimes[1]
    sized = sized_by_benchmarks(campaign, {"A2": (Benchmark("c64", 0.9 * c64.baseline_tok_s, "proto.json"),)})
    assert 0 < sized.interventions[0].realised < 0.5 and not sized.interventions[0].evidence.clamped
    assert project_regime(c64, sized).final.tok_s == pytest.approx(0.9 * c64.baseline_tok_s, rel=1e-6)


def test_a_benchmark_beyond_every_draft_accepted_is_held_to_g_plus_1_tokens_and_says_so():
    """6x at concurrency 1 with g = 3 would need 7.9 tokens a step: the share stops where E reaches 4 (every draft
    accepted) and the fit says it was clamped (something else changed that step)."""
    campaign = eagle_campaign(same(0.65))
    c1 = campaign.regimes[0]
    sized = sized_by_benchmarks(campaign, {"A2": (Benchmark("c1", 6 * c1.baseline_tok_s, "proto.json"),)})
    evidence = sized.interventions[0].evidence
    assert evidence.clamped and evidence.of_tokens
    assert "(every draft accepted, g + 1 tokens a step, is as far as drafting goes" in benchmark_sentence(evidence)
    spec = campaign.interventions[0].effects[0].spec
    assert sized.interventions[0].realised == pytest.approx(math.log(4) / math.log(float(spec_tokens(spec))))
    cost_1 = spec_cost(spec, floor=llama_8b_on_h100(1, 296), step_ms=7.1254)
    assert project_regime(c1, sized).final.tok_s == pytest.approx(c1.baseline_tok_s * 4 / cost_1, rel=1e-6)

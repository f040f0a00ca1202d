"""Traces imported as evidence: a prototype's trace setting its intervention's effects, and a gate on a measured
profile."""

import dataclasses
import html

import pytest
from sqlmodel import select

from tests.web.test_imports import APPEND, APPEND_RUNS, DATA, confirm, token_of, upload, wait_for_parse
from tierplan.db.engine import new_session
from tierplan.db.mappers import to_core, to_core_profile
from tierplan.db.repo import load_campaign
from tierplan.db.tables import Profile, ProfileKernel, ProfileShare
from tierplan.planning.prototype_kernels import carried_gpu_ms


def test_a_prototype_s_trace_sets_its_intervention_s_effects_measured_where_it_ran_and_carried_elsewhere(
        client, app, demo_id):
    """The shared H200 pair: batch 1's own eager trace (11.44 ms a step), then a trace of A1's prototype, the same
    model in CUDA graphs (1.8 ms). A1's effects are then derived from the pair: what the page, the export and the
    plan show, measured in batch 1; concurrency 16 has no traced step to carry them to, so A1's estimates hold there."""
    own = upload(client, demo_id, "trace_eager_b1.json.gz", regime="batch 1", step_ms="11.44")
    assert confirm(client, demo_id, token_of(own.text)).status_code == 204
    plan_before = client.get(f"/api/campaigns/{demo_id}/plan").json()
    before = plan_before["regimes"][0]["projections"][0]["tok_s"]
    preview = upload(client, demo_id, "trace_graphs_b1.json.gz", regime="batch 1", step_ms="1.8", prototype_of="A1")
    said = html.unescape(preview.text)
    assert preview.status_code == 200, said
    assert "becomes the evidence of A1: its effects are derived from this trace against batch 1's own (measured " \
           "there); the 2 effects entered for it still hold in concurrency 16 (no traced step to carry it to)" in said
    assert "launch overhead" in said and "of each launch's host cost removed" in said
    assert confirm(client, demo_id, token_of(preview.text), confirm="on").status_code == 204
    plan = client.get(f"/api/campaigns/{demo_id}/plan").json()
    after = plan["regimes"][0]["projections"][0]
    # concurrency 16 has no traced step: A1's entered estimates hold there, its projections do not move
    assert [p["tok_s"] for p in plan["regimes"][1]["projections"]] == pytest.approx(
        [p["tok_s"] for p in plan_before["regimes"][1]["projections"]])
    # A1 alone would replay the eager step's work as the graph trace's 1.8 ms step: far above the entered 4.8x
    assert after["tok_s"] != pytest.approx(before)
    page = html.unescape(client.get(f"/campaigns/{demo_id}").text)
    assert "Planned from a prototype's trace in batch 1 (import of trace_graphs_b1.json.gz" in page
    assert "measured there; in concurrency 16 (no traced step to carry it to) the estimates entered still hold" in page
    assert "Entered for it, still planned in concurrency 16:" in page
    assert "Planned from a prototype's trace in batch 1" in client.get(f"/campaigns/{demo_id}/roadmap.md").text
    # the regime's own profile is still the eager trace: a prototype's trace is evidence, not the regime's profile
    profile = client.get(f"/api/campaigns/{demo_id}/regimes/1/profile").json()
    assert "trace_eager_b1.json.gz" in profile["source"]


def test_a_prototype_needs_the_regime_s_own_trace_and_its_own_step(client, demo_id):
    no_step = upload(client, demo_id, "trace_graphs_b1.json.gz", regime="batch 1", prototype_of="A1")
    assert no_step.status_code == 422 and "give the step time the prototype measured" in html.unescape(no_step.text)
    no_own = upload(client, demo_id, "trace_graphs_b1.json.gz", regime="batch 1", step_ms="1.8", prototype_of="A1")
    assert no_own.status_code == 422
    assert "batch 1 has no traced profile of its own to compare the prototype with" in html.unescape(no_own.text)
    unknown = upload(client, demo_id, "trace_graphs_b1.json.gz", regime="batch 1", step_ms="1.8", prototype_of="Z9")
    assert unknown.status_code == 422 and "no intervention 'Z9' in this campaign" in html.unescape(unknown.text)


def test_a_gate_can_require_a_measured_profile_of_its_regime(client, demo_id):
    """Tier A (started 2026-11-16) asks batch 1 for a measured profile: pending on the demo's reported split, passed
    once the regime's own trace is imported."""
    gate = client.post(f"/api/campaigns/{demo_id}/gates", json={
        "tier_id": 1, "regime_id": 1, "metric": "profile_measured", "threshold": 1})
    assert gate.status_code == 201, gate.text

    def status() -> dict:
        plan = client.get(f"/api/campaigns/{demo_id}/plan").json()
        return next(g for g in plan["gates"] if g["id"] == gate.json()["id"])

    assert status()["status"] == "pending" and status()["p_pass"] is None
    assert "measured profile (1 once a trace" in status()["condition"]
    own = upload(client, demo_id, "trace_eager_b1.json.gz", regime="batch 1", step_ms="11.44")
    assert confirm(client, demo_id, token_of(own.text)).status_code == 204
    assert status()["status"] == "pass"


def test_a_prototype_s_benchmark_sizes_its_intervention_and_is_not_the_regime_s_history(client, demo_id, clock):
    """The two runs of vLLM's bench_serve_append.json (concurrency 1 and 16) imported as A1's prototype: refused
    across two regimes, then with the regime named the newest run sizes A1 against batch 1's baseline; batch 1's own
    runs do not move."""
    clock.advance(days=7)  # vLLM wrote the file on 2026-12-07
    newest = APPEND_RUNS[-1]["output_throughput"]
    runs_before = client.get(f"/api/campaigns/{demo_id}/measurements").json()
    plan_before = client.get(f"/api/campaigns/{demo_id}/plan").json()
    two = upload(client, demo_id, APPEND, prototype_of="A1")
    assert "a prototype's benchmark is compared in one regime, and these runs are in batch 1, concurrency 16" in \
        html.unescape(two.text)
    preview = upload(client, demo_id, APPEND, regime="batch 1", prototype_of="A1")
    said = html.unescape(preview.text)
    assert preview.status_code == 200, said
    assert ("becomes the evidence of A1. Sized by a prototype's benchmark in batch 1 (this benchmark): it measured "
            f"{newest:.1f} tok/s") in said
    assert confirm(client, demo_id, token_of(preview.text)).status_code == 204
    assert client.get(f"/api/campaigns/{demo_id}/measurements").json() == runs_before
    plan = client.get(f"/api/campaigns/{demo_id}/plan").json()
    assert plan["regimes"][0]["baseline_tok_s"] == plan_before["regimes"][0]["baseline_tok_s"]
    tier_a = plan["regimes"][0]["projections"][0]
    assert tier_a["tok_s"] != pytest.approx(plan_before["regimes"][0]["projections"][0]["tok_s"])
    page = html.unescape(client.get(f"/campaigns/{demo_id}").text)
    assert "Sized by a prototype's benchmark in batch 1 (import: bench_serve_append.json" in page
    assert "Entered for it, planned at that size:" in page
    assert "Sized by a prototype's benchmark in batch 1" in client.get(f"/campaigns/{demo_id}/roadmap.md").text


def test_a_prototype_s_benchmark_names_an_intervention_of_the_campaign(client, demo_id):
    unknown = upload(client, demo_id, APPEND, regime="batch 1", prototype_of="Z9")
    assert unknown.status_code == 422 and "no intervention 'Z9' in this campaign" in html.unescape(unknown.text)


def test_a_prototype_whose_new_copies_are_carried_says_they_may_not_grow_with_the_batch(client, demo_id):
    """tests/data/graphs_hf: transformers' decoder on an H100, eager at batches 8 and 64 as the demo's two regimes,
    and a prototype under torch.compile's cudagraphs backend traced at batch 8, whose replays copy every weight and
    the static cache (about 7 ms a step that the eager path does not make). Carried to the other regime, the plan says
    how each kind of copy is carried, that one batch cannot tell, and what settles it."""
    imported_with_prototype(client, demo_id, DATA / "graphs_hf", ("trace_eager_b8.json.gz", "49.85"),
                            ("trace_eager_b64.json.gz", "57.54"), ("trace_graphs_b8.json.gz", "11.75"))
    page = html.unescape(client.get(f"/campaigns/{demo_id}").text)
    assert "carried over to concurrency 16. The prototype makes 7.35 ms of copies a step that the baseline does " \
           "not: 4.91 ms of whole buffers copied, carried halfway between staying the same and growing with the " \
           "sequences in flight (on a log scale), the band spanning both; 2.44 ms of copy kernels, carried as " \
           "growing with them" in page
    assert "trace the prototype in a regime it is carried to and compare before trusting the carry" in page


def test_a_prototype_s_kernels_keep_their_blocks_per_sm_and_a_kernel_that_filled_the_gpu_grows_as_work(
        client, app, demo_id):
    """tests/data/graphs_hf_inductor_4096: eager traces at batches 1 and 64 as the demo's two regimes, then a
    prototype under torch.compile's reduce-overhead path traced at batch 1. Its fused mask over the whole static
    cache ran 124 blocks an SM there: stored with the kernel, it makes the mask work that grows with the batch, and
    the GPU work carried to the other regime is the core's reading of the stored profiles."""
    imported_with_prototype(client, demo_id, DATA / "graphs_hf_inductor_4096", ("trace_eager_b1.json.gz", "46.82"),
                            ("trace_eager_b64.json.gz", "47.71"), ("trace_graphs_b1.json.gz", "2.897"))
    with new_session(app.state.engine) as session:
        prototype = session.exec(select(Profile).where(Profile.intervention_id.is_not(None))).one()
        kernels = session.exec(select(ProfileKernel).where(ProfileKernel.profile_id == prototype.id)).all()
        shares = session.exec(select(ProfileShare).where(ProfileShare.profile_id == prototype.id)).all()
        rows = load_campaign(session, campaign_id=demo_id)
    mask = max((k for k in kernels if k.name.startswith("triton_poi_fused__scaled_dot_product")),
               key=lambda k: k.fraction)
    assert mask.blocks_per_sm == pytest.approx(124.12, abs=0.01)
    assert all(k.blocks_per_sm is None or k.blocks_per_sm >= 0 for k in kernels)
    after = to_core_profile(prototype, shares, kernels)
    assert after is not None and dict(after.blocks_per_sm)[mask.name] == mask.blocks_per_sm
    assert rows is not None
    measured, other = to_core(rows).regimes
    assert measured.profile is not None and other.profile is not None
    carried = carried_gpu_ms(measured.profile, after, measured, other)
    without = carried_gpu_ms(measured.profile, dataclasses.replace(after, blocks_per_sm=()), measured, other)
    assert carried is not None and without is not None and carried > without  # the mask grows as work
    page = html.unescape(client.get(f"/campaigns/{demo_id}").text)
    assert "Planned from a prototype's trace in batch 1" in page and "carried over to concurrency 16" in page
    # the regime's own kernels show theirs: a split-K GEMM of the eager trace at batch 1 ran 4 x 12 blocks on 132 SMs
    batch_1 = next(r.id for r in rows.regimes if r.name == "batch 1")
    regime_page = client.get(f"/campaigns/{demo_id}/regimes/{batch_1}").text
    assert ">blocks an SM</th>" in regime_page and '<td class="num">0.364</td>' in regime_page


def imported_with_prototype(client, demo_id: int, folder, batch_1: tuple[str, str], concurrency_16: tuple[str, str],
                            prototype: tuple[str, str]) -> None:
    """Two eager traces (file, step ms) as the demo's regimes' own, then a prototype of A1 traced in batch 1."""
    for (name, step_ms), regime in ((batch_1, "batch 1"), (concurrency_16, "concurrency 16")):
        own = upload(client, demo_id, folder / name, regime=regime, step_ms=step_ms)
        own = wait_for_parse(client, demo_id, token_of(own.text)) if "Parsing" in own.text else own
        assert confirm(client, demo_id, token_of(own.text)).status_code == 204, html.unescape(own.text)
    name, step_ms = prototype
    preview = upload(client, demo_id, folder / name, regime="batch 1", step_ms=step_ms, prototype_of="A1")
    preview = wait_for_parse(client, demo_id, token_of(preview.text)) if "Parsing" in preview.text else preview
    assert confirm(client, demo_id, token_of(preview.text), confirm="on").status_code == 204
